"""The wheels the browser installs: ``calc`` from this tree, and a Babel cut to our locales."""

from __future__ import annotations

import base64
import hashlib
import json
import pickle
import shutil
import subprocess
import sys
import zipfile
from importlib.metadata import distribution
from pathlib import Path

from babel.core import get_global

from sitebuild import BuildError

# What building calc's wheel reads from the project.
_CALC_SOURCES = ("pyproject.toml", "calc")


def build_calc_wheel(project: Path, out: Path) -> Path:
    """Build ``calc``'s wheel with pip, as any pure-Python package is built, into the folder ``out``.

    setuptools builds in the folder it is given, leaving ``build/`` and
    ``calc.egg-info`` there: so it is given a copy of the sources, in ``out``.
    """
    source = out / "calc-source"
    source.mkdir(parents=True)
    for name in _CALC_SOURCES:
        if (project / name).is_dir():
            shutil.copytree(project / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(project / name, source / name)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(out),
            str(source),
        ],
        check=True,
    )
    (wheel,) = out.glob("calc-*.whl")
    return wheel


def locale_chain(locale: str) -> list[str]:
    """``locale`` and every locale whose data Babel merges under it.

    >>> locale_chain("es")
    ['es', 'root']
    >>> locale_chain("es_MX")
    ['es_MX', 'es_419', 'es', 'root']
    """
    chain = [locale]
    parents = get_global("parent_exceptions")
    while chain[-1] != "root":
        current = chain[-1]
        chain.append(parents.get(current) or (current.rsplit("_", 1)[0] if "_" in current else "root"))
    return chain


def babel_usage(project: Path) -> dict[str, list[str]]:
    """What of Babel calc uses (see :mod:`sitebuild.babel_usage`), measured in a fresh interpreter."""
    probe = subprocess.run(
        [sys.executable, "-m", "sitebuild.babel_usage"], cwd=project, check=True, capture_output=True, text=True
    )
    return json.loads(probe.stdout)


def _only(data: bytes, keys: list[str]) -> bytes:
    # Babel's data files are pickled dicts; unpickling all of es.dat, it.dat,
    # root.dat and global.dat was most of a first result's time in the page.
    content = pickle.loads(data)
    return pickle.dumps({key: content[key] for key in keys if key in content}, protocol=pickle.HIGHEST_PROTOCOL)


def build_babel_wheel(locales: tuple[str, ...], usage: dict[str, list[str]], out: Path) -> Path:
    """Repack the installed Babel as a wheel of what the site uses.

    Only the modules calc imports, and of the global data and of
    ``locales``' data only the keys calc reads (see :func:`babel_usage`;
    the sizes: docs/performance.md). Made from the very copy the build
    runs, so both sides share a version.
    """
    dist = distribution("babel")
    info = f"babel-{dist.version}.dist-info"
    data = {f"babel/locale-data/{name}.dat" for locale in locales for name in locale_chain(locale)}
    keep = {*usage["modules"], *data, "babel/global.dat", f"{info}/METADATA", f"{info}/licenses/LICENSE"}
    files = {
        entry.as_posix(): Path(entry.locate()).read_bytes() for entry in dist.files or () if entry.as_posix() in keep
    }
    if missing := keep - files.keys():
        raise BuildError(f"Babel {dist.version} has no {sorted(missing)}")
    files["babel/global.dat"] = _only(files["babel/global.dat"], usage["global_keys"])
    for name in data:
        files[name] = _only(files[name], usage["locale_keys"])
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: sitebuild\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    wheel = out / f"babel-{dist.version}-py3-none-any.whl"
    write_wheel(wheel, files, f"{info}/RECORD")
    return wheel


def write_wheel(path: Path, files: dict[str, bytes], record: str) -> None:
    lines = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name in sorted(files):
            data = files[name]
            archive.writestr(name, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            lines.append(f"{name},sha256={digest},{len(data)}")
        lines.append(f"{record},,")
        archive.writestr(record, "\n".join(lines) + "\n")
