"""The Python follows the project's lint and format rules (ruff, configured in pyproject.toml)."""

import subprocess
import sys

from sitebuild.config import ROOT

PATHS = ["calc", "sitebuild", "tests", "tools", "bench", "build.py"]


def test_lint():
    result = subprocess.run([sys.executable, "-m", "ruff", "check", *PATHS], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_format():
    check = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", *PATHS], cwd=ROOT, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout
