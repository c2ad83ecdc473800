"""Every calculator the site has, by the name its page and worker use.

A calculator named ``x`` is ``calc.x.CALCULATOR``. A page's worker imports
only its own (:func:`load`): importing all of them would slow every
page's start. ``CALCULATORS`` gives them all, for the build and the tests.
"""

from __future__ import annotations

from importlib import import_module

from calc.calculator import Calculator

NAMES = ("accumulation", "vram", "lora", "activations", "plan")


def load(name: str) -> Calculator:
    """The calculator called ``name``, its module imported now."""
    if name not in NAMES:
        raise KeyError(f"no calculator {name!r}")
    return import_module(f"calc.{name}").CALCULATOR


def __getattr__(attribute: str) -> dict[str, Calculator]:
    # CALCULATORS, made on first use (PEP 562), so that importing load() imports no calculator.
    if attribute == "CALCULATORS":
        return {name: load(name) for name in NAMES}
    raise AttributeError(attribute)
