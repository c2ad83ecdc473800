"""What of Babel calc needs: `python -m sitebuild.babel_usage`.

Run in a fresh interpreter (the build itself imports more of Babel), it
exercises every calculator in every locale, good inputs and bad, its
worked examples, and every kind of input problem's words, and prints as
JSON the source files of the Babel modules that got imported and the keys
of the locale data and of the global data that were read.
Loading Babel's data imports modules of its own (the pickles refer to
classes in babel.dates), which is why this is measured, not listed.
"""

from __future__ import annotations

import json
import sys
from decimal import Decimal
from gettext import NullTranslations
from pathlib import Path

import babel.core
import babel.localedata
from babel import Locale

from calc.calculators import NAMES, load
from calc.evaluation import default_texts, evaluate
from calc.formatting import GIGABYTE, IN_WORDS, format_quantity
from calc.inputs import Amount, Count
from calc.problems import InputProblem
from sitebuild.config import LOCALES

BAD = ("", "x", "0", "-1", "1,5", "0.5", "1.250,5", "1" * 40)
# The fields a problem's words are tried beside: a whole number, and an amount with a unit.
FIELDS = (
    Count("n", "", "", default=Decimal(4), maximum=Decimal(10)),
    Amount("a", "", "", default=Decimal("0.5"), maximum=Decimal(10), places=1, unit=GIGABYTE),
)


def kinds(base: type) -> list[type]:
    """Every subclass of ``base`` in calc, once every calculator is loaded (they may declare their own)."""
    for name in NAMES:
        load(name)
    found, pending = [], [base]
    while pending:
        for kind in pending.pop().__subclasses__():
            pending.append(kind)
            if kind.__module__.startswith("calc."):
                found.append(kind)
    return found


def problems() -> list[InputProblem]:
    """Every kind of problem's own examples (:meth:`calc.problems.InputProblem.examples`)."""
    return [problem for kind in kinds(InputProblem) for problem in kind.examples()]


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
            # The worked examples, typed in: combinations of values the defaults and single edits do not reach.
            inputs = {i.name: i for i in calculator.inputs}
            for overrides in calculator.examples.values():
                typed = {name: inputs[name].text(value, locale) for name, value in overrides.items()}
                evaluate(calculator, {**texts, **typed}, locale, NullTranslations())
    # Every problem's words, some of which only a combination of fields reaches; and counts said in words, which
    # only some results say (DistributedDataParallel's note, on several GPUs without ZeRO).
    for code in LOCALES:
        for problem in problems():
            for field in FIELDS:
                problem.message(field, Locale.parse(code), NullTranslations())
        for count in (Decimal(1), Decimal("7.5")):
            format_quantity(count * 10**9, IN_WORDS, Locale.parse(code))
    root = Path(sys.modules["babel"].__file__).parent.parent
    files = sorted(
        Path(module.__file__).relative_to(root).as_posix()
        for name, module in sys.modules.items()
        if (name == "babel" or name.startswith("babel.")) and getattr(module, "__file__", None)
    )
    print(json.dumps({"modules": files, "locale_keys": sorted(_Recording.read), "global_keys": sorted(global_keys)}))


if __name__ == "__main__":
    main()
