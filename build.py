"""Build the deployable site into site/: `python build.py` (or `make site`).

Steps, in order: compile the catalogs; build the calc and Babel wheels
(compiled to Pyodide's bytecode);
copy the pinned Pyodide runtime with a lockfile naming only our wheels;
make the memory snapshot the worker restores Python from;
copy the browser glue, the worker told the snapshot's name; render every page in every locale; check links;
write the service worker that caches all of it for repeat and offline visits.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from calc.i18n import load_translations
from sitebuild.bytecode import compile_wheels
from sitebuild.catalogs import compile_catalogs
from sitebuild.config import (
    ASSETS,
    CATALOG,
    LOCALES,
    LOCALES_DIR,
    PAGES,
    PYODIDE_PACKAGE,
    ROOT,
    RUNTIME,
    TEMPLATES,
    WEB,
    WORK,
)
from sitebuild.links import dead_links
from sitebuild.offline import SERVICE_WORKER, write_service_worker
from sitebuild.pages import environment, render_calculator, render_chooser
from sitebuild.runtime import install_runtime
from sitebuild.snapshot import build_snapshot, tell_worker
from sitebuild.wheels import babel_usage, build_babel_wheel, build_calc_wheel


def build(out: Path) -> None:
    compile_catalogs(LOCALES_DIR)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)

    wheels_dir = WORK / "wheels"
    wheels_dir.mkdir(parents=True, exist_ok=True)
    wheels = [build_calc_wheel(ROOT, wheels_dir), build_babel_wheel(LOCALES, babel_usage(ROOT), wheels_dir)]
    compile_wheels(wheels, WORK / "bytecode")
    install_runtime(PYODIDE_PACKAGE, wheels, out / RUNTIME)
    snapshot = build_snapshot(out / RUNTIME, wheels, WORK / "snapshot")
    # The service worker is written last, at the root, once every file it caches exists.
    shutil.copytree(WEB, out / ASSETS, ignore=shutil.ignore_patterns(SERVICE_WORKER))
    tell_worker(out / ASSETS / "calc-worker.js", snapshot)

    envs, catalogs = {}, {}
    for locale in LOCALES:
        catalogs[locale] = translations = load_translations(LOCALES_DIR, locale)
        envs[locale] = env = environment(TEMPLATES, translations)
        folder = out / locale
        folder.mkdir()
        # The worker reads the same compiled catalog the pages were made with.
        shutil.copy2(LOCALES_DIR / locale / "LC_MESSAGES" / "messages.mo", folder / CATALOG)
        for name, path in PAGES.items():
            page = folder / path / "index.html"
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(render_calculator(env, translations, name, locale), encoding="utf-8")
    (out / "index.html").write_text(render_chooser(envs, catalogs), encoding="utf-8")

    problems = dead_links(out)
    if problems:
        sys.exit("Dead internal links:\n  " + "\n  ".join(problems))
    write_service_worker(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "site", help="output folder (default: site/)")
    build(parser.parse_args().out)


if __name__ == "__main__":
    main()
