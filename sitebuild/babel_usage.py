"""What of Babel calc needs: `python -m sitebuild.babel_usage`.

Run in a fresh interpreter (the build itself imports more of Babel), it
exercises every calculator in every locale, good inputs and bad, and
prints as JSON the source files of the Babel modules that got imported
and the keys of the locale data and of the global data that were read.
Loading Babel's data imports modules of its own (the pickles refer to
classes in babel.dates), which is why this is measured, not listed.
"""

from __future__ import annotations

import json
import sys
from gettext import NullTranslations
from pathlib import Path

import babel.core
import babel.localedata
from babel import Locale

from calc.calculators import NAMES, load
from calc.evaluation import default_texts, evaluate
from calc.formatting import format_names
from sitebuild.config import LOCALES

BAD = ("", "x", "0", "-1", "1,5", "0.5", "1.250,5", "1" * 40)


class _Recording(dict):
    """A locale's data that remembers which keys were read."""

    read: set[str] = set()

    def __getitem__(self, key):
        _Recording.read.add(key)
        return super().__getitem__(key)


def _record_reads() -> set[str]:
    load, get_global = babel.localedata.load, babel.core.get_global
    global_keys: set[str] = set()

    def recording_load(name, merge_inherited=True):
        return _Recording(load(name, merge_inherited))

    def recording_get_global(key):
        global_keys.add(key)
        return get_global(key)

    babel.localedata.load = recording_load
    babel.core.get_global = recording_get_global
    return global_keys


def main() -> None:
    global_keys = _record_reads()
    for calculator in map(load, NAMES):
        for code in LOCALES:
            locale = Locale.parse(code)
            texts = default_texts(calculator, locale)
            evaluate(calculator, texts, locale, NullTranslations())
            for name in texts:
                for bad in BAD:
                    evaluate(calculator, {**texts, name: bad}, locale, NullTranslations())
    # Lists of names, which only a few problems word (a model without a target module, a recipe's precisions),
    # and which no input above reaches.
    for code in LOCALES:
        for style in ("standard", "or"):
            format_names(("a", "b", "c"), Locale.parse(code), style=style)
    root = Path(sys.modules["babel"].__file__).parent.parent
    files = sorted(
        Path(module.__file__).relative_to(root).as_posix()
        for name, module in sys.modules.items()
        if (name == "babel" or name.startswith("babel.")) and getattr(module, "__file__", None)
    )
    print(json.dumps({"modules": files, "locale_keys": sorted(_Recording.read), "global_keys": sorted(global_keys)}))


if __name__ == "__main__":
    main()
