"""What build.py refuses to build into, because it deletes its output folder first."""

from __future__ import annotations

import pytest

from build import UnsafeOutput, build, check_output, main
from sitebuild import BuildError
from sitebuild.config import ROOT


def test_the_checkout_and_the_folders_that_hold_it_are_refused_before_anything_runs(monkeypatch):
    monkeypatch.chdir(ROOT)
    with pytest.raises(SystemExit, match=r"Not built: \. is the checkout or holds it"):
        main(["--out", "."])
    for out in (ROOT, ROOT.parent, ROOT / "calc" / ".."):
        with pytest.raises(UnsafeOutput, match="is the checkout or holds it"):
            check_output(out)
    assert (ROOT / "build.py").is_file()


def test_a_folder_of_other_files_or_a_file_is_refused_saying_why(tmp_path):
    kept = tmp_path / "notes" / "todo.txt"
    kept.parent.mkdir()
    kept.write_text("keep me", encoding="utf-8")
    with pytest.raises(SystemExit, match="holds files and is no earlier build"):
        main(["--out", str(kept.parent)])
    with pytest.raises(UnsafeOutput, match="is a file"):
        check_output(kept)
    assert kept.read_text(encoding="utf-8") == "keep me"


def test_a_new_or_empty_folder_or_an_earlier_build_is_accepted(tmp_path):
    earlier = tmp_path / "site"
    (earlier / "assets").mkdir(parents=True)
    (earlier / "sw.js").write_text("", encoding="utf-8")
    (tmp_path / "empty").mkdir()
    for out in (tmp_path / "new", tmp_path / "empty", earlier):
        check_output(out)


def test_a_build_step_that_fails_stops_the_command_with_its_reason_and_the_library_call_with_an_exception(
    monkeypatch, tmp_path
):
    """A build step raises BuildError, an ordinary exception for build()'s callers (the tests' fixture); only the
    command turns it into an exit with the step's message."""
    missing = tmp_path / "node_modules" / "pyodide"
    monkeypatch.setattr("build.PYODIDE_PACKAGE", missing)
    with pytest.raises(BuildError, match="is missing: run `npm ci` first") as raised:
        build(tmp_path / "site")
    assert not isinstance(raised.value, SystemExit)
    with pytest.raises(SystemExit) as stopped:
        main(["--out", str(tmp_path / "site")])
    assert stopped.value.code == f"Build failed: {missing} is missing: run `npm ci` first"
