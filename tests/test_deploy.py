"""The GitHub Pages workflow: actionlint finds nothing in it, and it deploys what `make site` builds."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from sitebuild.config import ROOT

WORKFLOWS = ROOT / ".github" / "workflows"
PAGES = WORKFLOWS / "pages.yml"


def actionlint() -> str:
    """The actionlint that requirements.txt installs beside this Python."""
    scripts = os.pathsep.join([sysconfig.get_path("scripts"), str(Path(sys.executable).parent)])
    found = shutil.which("actionlint", path=scripts)
    assert found, f"no actionlint in {scripts}: `make test` installs requirements.txt"
    return found


def lint(*workflows: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [actionlint(), "-no-color", *map(str, workflows)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def test_actionlint_finds_nothing_in_the_workflows():
    workflows = sorted(WORKFLOWS.glob("*.yml"))
    assert PAGES in workflows
    result = lint(*workflows)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_actionlint_reports_a_broken_workflow(tmp_path):
    """So that the test above could fail: a copy with a misspelt output is reported."""
    text = PAGES.read_text(encoding="utf-8")
    assert "steps.pages.outputs.base_url" in text
    broken = tmp_path / "pages.yml"
    broken.write_text(text.replace("steps.pages.outputs.base_url", "steps.pages.outputs.base_ur1"), encoding="utf-8")
    result = lint(broken)
    assert result.returncode == 1
    assert "base_ur1" in result.stdout


def workflow() -> dict:
    parsed = yaml.safe_load(PAGES.read_text(encoding="utf-8"))
    parsed["on"] = parsed.pop(True)  # YAML 1.1 reads the key `on` as true
    return parsed


def step(job: dict, action: str) -> dict:
    (found,) = [s for s in job["steps"] if s.get("uses", "").startswith(f"{action}@")]
    return found


def build_step(job: dict) -> dict:
    (found,) = [s for s in job["steps"] if "make site" in s.get("run", "")]
    return found


def test_the_workflow_builds_with_make_site_and_the_tools_make_needs():
    build = workflow()["jobs"]["build"]
    # The values themselves are the workflow's to say; only what they must agree with is checked here.
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["requires-python"]
    assert Version(step(build, "actions/setup-python")["with"]["python-version"]) in SpecifierSet(requires)
    assert step(build, "actions/setup-node")["with"]["node-version"]
    # The whole suite runs before the build (the site tier too: the cut Babel and the snapshot are checked there), so
    # nothing broken is published.
    (check,) = [i for i, s in enumerate(build["steps"]) if s.get("run") == "make test"]
    assert check < build["steps"].index(build_step(build))
    pages = step(build, "actions/configure-pages")
    assert build_step(build)["env"]["BASE_URL"] == f"${{{{ steps.{pages['id']}.outputs.base_url }}}}"
    assert step(build, "actions/upload-pages-artifact")["with"]["path"] == "site"


@pytest.mark.parametrize("base_url", ["https://someone.github.io/calc", "https://someone.github.io/calc/"])
def test_the_site_url_is_the_pages_address_ending_in_one_slash(tmp_path, base_url):
    """The build step's own script, with a `make` that reports how it was called."""
    fake = tmp_path / "make"
    fake.write_text('#!/bin/sh\necho "$SITE_URL $*"\n', encoding="utf-8")
    fake.chmod(0o755)
    script = build_step(workflow()["jobs"]["build"])["run"]
    env = {**os.environ, "BASE_URL": base_url, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(["bash", "-e", "-c", script], env=env, capture_output=True, text=True, check=True)
    assert result.stdout == "https://someone.github.io/calc/ site\n"


def test_the_deployment_has_what_github_pages_requires():
    parsed = workflow()
    assert parsed["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    assert parsed["concurrency"]["group"]
    deploy = parsed["jobs"]["deploy"]
    assert deploy["needs"] == "build"
    deployment = step(deploy, "actions/deploy-pages")
    assert deploy["environment"] == {
        "name": "github-pages",
        "url": f"${{{{ steps.{deployment['id']}.outputs.page_url }}}}",
    }
