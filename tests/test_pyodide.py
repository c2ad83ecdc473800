"""The browser's Python gives the views CPython gives: same calc, and the Babel the site ships.

The site ships a Babel cut to the modules and data calc uses (measured by
``sitebuild.babel_usage``); a formatting path that the cut left out would
pass every CPython test and fail in the page. So every calculator, in every
locale, answers the same requests in the site's own Pyodide under Node, and
the answers must be those of CPython with the full Babel.

The page's worker restores Python from a memory snapshot the build made
once calc was imported, and gives it no standard library; it falls back to
Pyodide's own boot. Both starts must give those answers, and after the
restore nothing may be imported from a file: the file would not be there.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from calc.browser import evaluator
from calc.calculators import NAMES
from sitebuild import BuildError
from sitebuild.config import ASSETS, LOCALES, PYODIDE_PACKAGE, ROOT, RUNTIME
from sitebuild.runtime import CORE_FILES, FILES_FOR_JAVASCRIPT, LOADER, LOCKFILE, check_pinned
from sitebuild.snapshot import tell_worker, told_worker
from tests.helpers import requests_for


@pytest.mark.parametrize("start", ["boot", "snapshot"])
def test_pyodide_and_cpython_give_the_same_views(site, localedir, tmp_path, start):
    asked = [
        {"calculator": name, "locale": locale, "request": request}
        for name in NAMES
        for locale in LOCALES
        for request in requests_for(name, locale)
    ]
    requests = tmp_path / "requests.json"
    requests.write_text(json.dumps(asked), encoding="utf-8")
    # Restored from the snapshot the build told the worker of, or booted.
    snapshot = [json.dumps(told_worker(site / ASSETS / "calc-worker.js"))] if start == "snapshot" else []
    run = subprocess.run(
        ["node", str(ROOT / "tests" / "pyodide_views.mjs"), str(site), str(requests), json.dumps(FILES_FOR_JAVASCRIPT)]
        + snapshot,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr
    answers = json.loads(run.stdout)
    if start == "snapshot":
        assert answers["imported"] == [], "imported after the snapshot, from a standard library it does not get"
    evaluators = {}
    for item, view in zip(asked, answers["views"], strict=True):
        key = (item["calculator"], item["locale"])
        if key not in evaluators:
            evaluators[key] = evaluator(*key, str(localedir))
        assert view == json.loads(evaluators[key](json.dumps(item["request"]))), item


def pyodide_in(folder, pinned: str, installed: str | None):
    """A package.json pinning ``pinned``, and node_modules holding Pyodide ``installed`` (None: nothing)."""
    manifest = folder / "package.json"
    manifest.write_text(json.dumps({"dependencies": {"pyodide": pinned}}), encoding="utf-8")
    package = folder / "node_modules" / "pyodide"
    package.mkdir(parents=True)
    if installed:
        (package / "package.json").write_text(json.dumps({"name": "pyodide", "version": installed}), encoding="utf-8")
    return package, manifest


def test_the_installed_pyodide_is_the_pinned_one(tmp_path):
    check_pinned(PYODIDE_PACKAGE)
    check_pinned(*pyodide_in(tmp_path, "314.0.8", "314.0.8"))


@pytest.mark.parametrize("installed", ["314.0.7", "315.0.0"])
def test_the_build_stops_on_another_pyodide_than_the_pinned_one(tmp_path, installed):
    with pytest.raises(BuildError) as stopped:
        check_pinned(*pyodide_in(tmp_path, "314.0.8", installed))
    assert f"holds Pyodide {installed}, but package.json pins 314.0.8: run `npm ci`" in str(stopped.value)


def test_the_build_stops_without_pyodide(tmp_path):
    with pytest.raises(BuildError, match="is missing: run `npm ci` first"):
        check_pinned(*pyodide_in(tmp_path, "314.0.8", None))


def test_the_javascript_names_none_of_pyodides_files(tmp_path):
    """sitebuild/runtime.py names them once: the build tells the worker, and the tests tell pyodide_views.mjs."""
    scripts = [*(ROOT / "web").glob("*.js"), *(ROOT / "sitebuild").glob("*.mjs"), *(ROOT / "bench").glob("*.js")]
    for script in [*scripts, ROOT / "tests" / "pyodide_views.mjs"]:
        text = script.read_text(encoding="utf-8")
        assert [name for name in (*CORE_FILES, LOCKFILE) if name in text] == [], script.name
    worker = tmp_path / "calc-worker.js"
    worker.write_text("// the worker\n", encoding="utf-8")
    tell_worker(worker, {"memory": "snapshot-0.bin"})
    assert told_worker(worker) == {"memory": "snapshot-0.bin"}
    told = worker.read_text(encoding="utf-8")
    assert f"const PYODIDE = {json.dumps(FILES_FOR_JAVASCRIPT)};" in told
    assert f'import {{ loadPyodide }} from "../{RUNTIME}/{LOADER}";' in told
