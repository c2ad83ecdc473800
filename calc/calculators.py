"""Every calculator the site has, by the name its page and worker use, and where its page is.

A calculator named ``x`` is ``calc.x.CALCULATOR``, its words are
``templates/x.html``, and its page is ``/<locale>/<PAGES[x]>``: adding a
calculator is its module, its template, and its line in ``PAGES``.

A page's worker imports only its own calculator (:func:`load`), so this
module imports none.
"""

from __future__ import annotations

from importlib import import_module

from calc.calculator import Calculator

# Calculator name -> its page's folder inside a locale's, "" for the locale's home page.
PAGES = {"accumulation": "", "vram": "vram/", "lora": "lora/", "activations": "activations/", "plan": "plan/"}
NAMES = tuple(PAGES)


def load(name: str) -> Calculator:
    """The calculator called ``name``, its module imported now if it was not yet.

    >>> load("plan").name
    'plan'
    """
    if name not in PAGES:
        raise KeyError(f"no calculator {name!r}")
    return import_module(f"calc.{name}").CALCULATOR
