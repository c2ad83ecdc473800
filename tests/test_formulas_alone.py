"""The formulas stand alone: ``make validate`` imports them where neither Babel nor the page machinery is installed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import calc.formulas

ROOT = Path(__file__).resolve().parent.parent
FORMULAS = sorted(f"calc.formulas.{path.stem}" for path in Path(calc.formulas.__file__).parent.glob("[!_]*.py"))
# The data the formulas read.
DATA = ["calc.models", "calc.gpus"]
# What a formula module must not need: the locale, the catalogs, the page's kinds and pipeline.
FORBIDDEN = ["babel", "gettext", "calc.i18n", "calc.formatting", "calc.inputs", "calc.outputs", "calc.evaluation"]

_BLOCK = """
import importlib.abc, sys
class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if any(name == f or name.startswith(f + ".") for f in {forbidden!r}):
            raise ImportError(f"formulas must not import {{name}}")
sys.meta_path.insert(0, Refuse())
sys.path.insert(0, {root!r})
for module in {modules!r}:
    __import__(module)
print(len({modules!r}))
"""


def test_there_are_formula_modules():
    assert {"calc.formulas.activations", "calc.formulas.parameters", "calc.formulas.model_states"} <= set(FORMULAS)


def test_every_formula_module_imports_without_babel_or_the_page_machinery():
    code = _BLOCK.format(forbidden=FORBIDDEN, modules=FORMULAS + DATA, root=str(ROOT))
    run = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == str(len(FORMULAS + DATA))


def test_the_guard_refuses_what_it_names():
    # The test above means something only if importing a page module through the same guard fails.
    code = _BLOCK.format(forbidden=FORBIDDEN, modules=["calc.lora"], root=str(ROOT))
    run = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True)
    assert run.returncode != 0 and "formulas must not import" in run.stderr
