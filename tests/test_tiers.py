"""The Makefile's tiers: `make check` needs no browser stack, and `make clean` only what the build wrote."""

import subprocess
import sys

from sitebuild.config import ROOT

# Makes Playwright and axe-playwright unimportable, then collects what `make check` runs.
_WITHOUT_PLAYWRIGHT = """
import importlib.abc, sys
import pytest

class Absent(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("playwright", "axe_playwright_python"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, Absent())
sys.exit(pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", "-m", "not browser and not site", "tests"]))
"""


def test_the_fast_tier_is_collected_without_playwright():
    run = subprocess.run(
        [sys.executable, "-c", _WITHOUT_PLAYWRIGHT], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert " tests collected" in run.stdout or "selected" in run.stdout


def _would_run(target: str) -> str:
    return subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def test_make_clean_removes_the_outputs_and_keeps_what_make_installed():
    removed = _would_run("clean").split()
    assert {"site", "build"} <= set(removed) and not {".venv", "node_modules", ".venv-validate"} & set(removed)
    assert {"site", ".venv", ".venv-validate", "node_modules"} <= set(_would_run("distclean").split())
