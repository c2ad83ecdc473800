"""Replacing a wheel's Python sources by bytecode for Pyodide's Python.

Compiling the modules is most of what importing them costs in the page,
so the wheels ship compiled, as Pyodide's own packages do. The bytecode
must come from the very Python version Pyodide runs, so it is compiled
by that Pyodide, under Node.
"""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

from sitebuild.wheels import write_wheel

COMPILER = Path(__file__).with_name("compile_bytecode.mjs")


def compile_wheels(wheels: list[Path], work: Path) -> None:
    """Rewrite each wheel in place with ``X.pyc`` instead of ``X.py``."""
    if work.exists():
        shutil.rmtree(work)
    sources = {}
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as archive:
            sources[wheel] = {name: archive.read(name) for name in archive.namelist() if not name.endswith("/RECORD")}
        for name, data in sources[wheel].items():
            if name.endswith(".py"):
                target = work / wheel.stem / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
    subprocess.run(["node", str(COMPILER), str(work)], check=True, cwd=COMPILER.parent.parent)
    for wheel, files in sources.items():
        compiled = {}
        for name, data in files.items():
            if name.endswith(".py"):
                compiled[name + "c"] = (work / wheel.stem / (name + "c")).read_bytes()
            else:
                compiled[name] = data
        info = next(n for n in files if n.endswith(".dist-info/METADATA")).rsplit("/", 1)[0]
        write_wheel(wheel, compiled, f"{info}/RECORD")
