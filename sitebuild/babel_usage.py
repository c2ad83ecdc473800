"""Which of Babel's modules calc needs: `python -m sitebuild.babel_usage`.

Run in a fresh interpreter (the build itself imports more of Babel), it
exercises every calculator in every locale, good inputs and bad, and
prints the source files of the Babel modules that got imported. Loading
Babel's locale data imports some modules of its own (the pickles refer
to classes in babel.dates), which is why this is measured, not listed.
"""

from __future__ import annotations

import json
import sys
from gettext import NullTranslations
from pathlib import Path

from babel import Locale

from calc.calculators import CALCULATORS
from calc.evaluation import default_texts, evaluate
from sitebuild.config import LOCALES

BAD = ("", "x", "0", "-1", "1,5", "0.5", "1.250,5", "1" * 40)


def main() -> None:
    for calculator in CALCULATORS.values():
        for code in LOCALES:
            locale = Locale.parse(code)
            texts = default_texts(calculator, locale)
            evaluate(calculator, texts, locale, NullTranslations())
            for name in texts:
                for bad in BAD:
                    evaluate(calculator, {**texts, name: bad}, locale, NullTranslations())
    root = Path(sys.modules["babel"].__file__).parent.parent
    files = sorted(
        Path(module.__file__).relative_to(root).as_posix()
        for name, module in sys.modules.items()
        if (name == "babel" or name.startswith("babel.")) and getattr(module, "__file__", None)
    )
    print(json.dumps(files))


if __name__ == "__main__":
    main()
