"""Build the deployable site into site/: `python build.py [--out DIR] [--site-url URL]` (or `make site`).

Steps, in order: compile the catalogs; render every page in every locale;
build the calc and Babel wheels (compiled to Pyodide's bytecode);
copy the pinned Pyodide runtime with a lockfile naming only our wheels;
make the memory snapshot the worker restores Python from;
copy the browser glue, the worker told the snapshot's name; check links;
write the service worker that caches all of it for repeat and offline visits;
write brotli and gzip copies of the big files beside them, for hosts that serve such.
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import sys
import tempfile
from pathlib import Path

from calc.i18n import load_translations
from sitebuild import BuildError
from sitebuild.bytecode import compile_wheels
from sitebuild.catalogs import compile_catalogs, runtime_catalog
from sitebuild.config import ASSETS, CATALOG, LOCALES, PAGES, PYODIDE_PACKAGE, ROOT, RUNTIME, TEMPLATES, WEB
from sitebuild.links import dead_links
from sitebuild.offline import SERVICE_WORKER, write_service_worker
from sitebuild.pages import Prose, environment, render_calculator, render_chooser
from sitebuild.precompress import precompress
from sitebuild.runtime import check_pinned, install_runtime
from sitebuild.snapshot import build_snapshot, tell_worker
from sitebuild.wheels import babel_usage, build_babel_wheel, build_calc_wheel


class UnsafeOutput(BuildError):
    """An output folder the build will not empty, and why."""


def check_output(out: Path) -> None:
    """Refuse an ``out`` whose deletion could lose work: the checkout or a folder holding it, a file, or a folder
    with files in it that is not an earlier build (which has the service worker and the assets at its root).
    """
    folder = out.resolve()
    if folder == ROOT or folder in ROOT.parents:
        raise UnsafeOutput(f"{out} is the checkout or holds it, and the build deletes its output folder first")
    if folder.exists() and not folder.is_dir():
        raise UnsafeOutput(f"{out} is a file, not a folder")
    built = (folder / SERVICE_WORKER).is_file() and (folder / ASSETS).is_dir()
    if folder.is_dir() and any(folder.iterdir()) and not built:
        raise UnsafeOutput(
            f"{out} holds files and is no earlier build (no {SERVICE_WORKER} and {ASSETS}/), and the build deletes "
            "its output folder first: name a new or empty folder, or delete this one yourself"
        )


def build(out: Path, base_url: str = "") -> None:
    """Build the site into ``out``; ``base_url`` is where it is deployed (see :mod:`sitebuild.pages`).

    ``out`` is deleted first, so it must be new, empty or an earlier build (:func:`check_output`).
    Whatever the build makes on the way goes into a temporary folder: the
    source tree is only read.
    """
    check_output(out)
    # Before anything runs the installed Pyodide: it must be the pinned one.
    check_pinned(PYODIDE_PACKAGE)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="calc-build-") as temporary:
        work = Path(temporary)
        localedir = compile_catalogs(work / "locales")
        # First, so that a page that opens on no results stops the build before its slow steps.
        write_pages(out, localedir, base_url)
        wheels_dir = work / "wheels"
        wheels_dir.mkdir()
        wheels = [build_calc_wheel(ROOT, wheels_dir), build_babel_wheel(LOCALES, babel_usage(ROOT), wheels_dir)]
        compile_wheels(wheels, work / "bytecode")
        install_runtime(PYODIDE_PACKAGE, wheels, out / RUNTIME)
        snapshot = build_snapshot(out / RUNTIME, wheels, work / "snapshot")
        # The service worker is written last, at the root, once every file it caches exists.
        shutil.copytree(WEB, out / ASSETS, ignore=shutil.ignore_patterns(SERVICE_WORKER))
        tell_worker(out / ASSETS / "calc-worker.js", snapshot)

    problems = dead_links(out, base_url)
    if problems:
        raise BuildError("Dead internal links:\n  " + "\n  ".join(problems))
    write_service_worker(out)
    precompress(out)


def write_pages(out: Path, localedir: Path, base_url: str) -> None:
    """Every calculator's page in every locale, each locale's compiled catalog, and the site's root page."""
    proses = {}
    for locale in LOCALES:
        translations = load_translations(localedir, locale)
        proses[locale] = prose = Prose(environment(TEMPLATES, translations), locale, translations)
        folder = out / locale
        folder.mkdir(exist_ok=True)
        # The worker's catalog: what calc translates, of the same reviewed entries the pages were made with.
        (folder / CATALOG).write_bytes(gzip.compress(runtime_catalog(locale), compresslevel=9, mtime=0))
        for name, path in PAGES.items():
            page = folder / path / "index.html"
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(render_calculator(prose, name, base_url), encoding="utf-8")
    (out / "index.html").write_text(render_chooser(proses, base_url), encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=ROOT / "site",
        help="output folder, deleted first: a new or empty folder, or an earlier build (default: site/)",
    )
    parser.add_argument(
        "--site-url",
        default=os.environ.get("SITE_URL", ""),
        help="where the site is deployed, ending in / (default: $SITE_URL); without it the pages have no "
        "absolute links (canonical, alternates, social tags)",
    )
    args = parser.parse_args(argv)
    if args.site_url and not args.site_url.endswith("/"):
        parser.error(f"the site's address must end in /: {args.site_url}")
    try:
        build(args.out, args.site_url)
    except UnsafeOutput as refusal:
        sys.exit(f"Not built: {refusal}")
    except BuildError as error:
        sys.exit(f"Build failed: {error}")


if __name__ == "__main__":
    main()
