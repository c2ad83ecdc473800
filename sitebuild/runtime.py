"""Copying the pinned Pyodide runtime and writing the lockfile the site hosts."""

from __future__ import annotations

import hashlib
import json
import shutil
import zipfile
from email.parser import HeaderParser
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

from sitebuild import BuildError
from sitebuild.config import ROOT

# Pyodide's standard library, which only its own boot reads: a restored snapshot gets an empty one.
STDLIB = "python_stdlib.zip"
# Pyodide's loader, and the WebAssembly it loads (which web/snapshot.js reads too).
LOADER = "pyodide.mjs"
WEBASSEMBLY = "pyodide.asm.wasm"
# What the page's worker loads of Pyodide; the rest of the npm package
# (Node entry points, consoles, type definitions, source maps) is not served.
CORE_FILES = (LOADER, "pyodide.asm.mjs", WEBASSEMBLY, STDLIB)
# Pyodide's lockfile: the package's own, and the site's, which names only our wheels.
LOCKFILE = "pyodide-lock.json"
# The names web/start-python.js uses, as the build tells the worker (sitebuild.snapshot.tell_worker) and the tests
# tell tests/pyodide_views.mjs: the JavaScript writes none of them.
FILES_FOR_JAVASCRIPT = {"loader": LOADER, "lockfile": LOCKFILE, "webassembly": WEBASSEMBLY}

# The npm manifest that pins Pyodide's version.
MANIFEST = ROOT / "package.json"


def check_pinned(package: Path, manifest: Path = MANIFEST) -> None:
    """Fail unless the Pyodide installed in ``package`` is the version ``manifest`` pins.

    The snapshot, the private options the worker passes and the lockfile
    written here hold for one Pyodide (docs/pyodide.md): an older or newer
    one left in node_modules must stop the build, not ship.
    """
    if not (package / "package.json").exists():
        raise BuildError(f"{package} is missing: run `npm ci` first")
    pinned = json.loads(manifest.read_text(encoding="utf-8"))["dependencies"]["pyodide"]
    installed = json.loads((package / "package.json").read_text(encoding="utf-8"))["version"]
    if installed != pinned:
        raise BuildError(
            f"{package} holds Pyodide {installed}, but {manifest.name} pins {pinned}: run `npm ci`"
            " (or, to upgrade, follow docs/pyodide.md)"
        )


def install_runtime(package: Path, wheels: list[Path], out: Path) -> None:
    """Put Pyodide's core, our wheels and a lockfile naming only them in ``out`` (the build has run check_pinned)."""
    out.mkdir(parents=True, exist_ok=True)
    for name in CORE_FILES:
        shutil.copy2(package / name, out / name)
    for wheel in wheels:
        shutil.copy2(wheel, out / wheel.name)
    upstream = json.loads((package / LOCKFILE).read_text(encoding="utf-8"))
    lock = {"info": upstream["info"], "packages": lock_entries(wheels, upstream["info"]["python"])}
    (out / LOCKFILE).write_text(json.dumps(lock, indent=1, sort_keys=True), encoding="utf-8")


def lock_entries(wheels: list[Path], python: str) -> dict[str, dict[str, object]]:
    """Pyodide lockfile entries for pure-Python ``wheels`` served beside it.

    Dependencies are those that apply in Pyodide's ``python`` (say 3.14.2)
    on Emscripten, without extras.

    The ``pyodide-lock`` package on PyPI predates this Pyodide's lockfile
    format, so the few fields are written here.
    """
    environment = {
        "python_version": ".".join(python.split(".")[:2]),
        "python_full_version": python,
        "sys_platform": "emscripten",
        "platform_system": "Emscripten",
        "extra": "",
    }
    entries = {}
    for wheel in wheels:
        name, version, _, _ = parse_wheel_filename(wheel.name)
        with zipfile.ZipFile(wheel) as archive:
            (metadata,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
            headers = HeaderParser().parsestr(archive.read(metadata).decode("utf-8"))
            imports = sorted(
                {n.split("/")[0] for n in archive.namelist() if n.endswith("/__init__.py") and n.count("/") == 1}
            )
        requirements = [Requirement(r) for r in headers.get_all("Requires-Dist") or []]
        depends = [canonicalize_name(r.name) for r in requirements if not r.marker or r.marker.evaluate(environment)]
        entries[name] = {
            "name": name,
            "version": str(version),
            "file_name": wheel.name,
            "install_dir": "site",
            "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
            "package_type": "package",
            "imports": imports,
            "depends": depends,
            "unvendored_tests": False,
        }
    missing = {d for e in entries.values() for d in e["depends"]} - entries.keys()
    if missing:
        raise BuildError(f"wheels depend on packages the site does not host: {sorted(missing)}")
    return entries
