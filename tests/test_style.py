"""The Python follows the project's lint and format rules (ruff, configured in pyproject.toml), and every script
parses as the JavaScript it is run as."""

import shutil
import subprocess
import sys

import pytest

from sitebuild.config import ROOT

PATHS = ["calc", "sitebuild", "tests", "tools", "bench", "build.py"]

# Every script the pages, the build, the bench and the tests run. Node reads .js as an ES module here
# (package.json's "type": "module"), as the pages load them.
SCRIPTS = sorted(
    path.relative_to(ROOT).as_posix()
    for pattern in ("web/*.js", "sitebuild/*.mjs", "bench/*.js", "tests/*.mjs")
    for path in ROOT.glob(pattern)
)


def test_lint():
    result = subprocess.run([sys.executable, "-m", "ruff", "check", *PATHS], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_format():
    check = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", *PATHS], cwd=ROOT, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout


def test_every_kind_of_script_is_checked():
    assert {script.split("/")[0] for script in SCRIPTS} == {"web", "sitebuild", "bench", "tests"}


@pytest.mark.parametrize("script", SCRIPTS)
def test_the_javascript_parses(script):
    """node --check: a syntax error fails here, not in a reader's browser or halfway through a build."""
    check = subprocess.run([shutil.which("node"), "--check", script], cwd=ROOT, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
