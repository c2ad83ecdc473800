"""The entry point the web worker calls; it speaks JSON strings only.

The worker writes the page's compiled catalog into Pyodide's file system,
then asks :func:`evaluator` for a function that turns the form's texts
into the view to show.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from babel import Locale

from calc.calculators import CALCULATORS
from calc.evaluation import default_texts, evaluate
from calc.i18n import load_translations


def evaluator(calculator: str, locale: str, localedir: str) -> Callable[[str], str]:
    """A function from a JSON object of field texts to the JSON of the view."""
    chosen = CALCULATORS[calculator]
    parsed_locale = Locale.parse(locale)
    translations = load_translations(localedir, locale)
    names = [f.name for f in chosen.fields]
    # Once now, so that the locale's data is loaded before the page says
    # it is ready, not on the reader's first edit.
    evaluate(chosen, default_texts(chosen, parsed_locale), parsed_locale, translations)

    def evaluate_json(request: str) -> str:
        texts = json.loads(request)
        # Only the known fields, and only as text: the request comes from a page.
        clean = {name: str(texts.get(name, "")) for name in names}
        return json.dumps(evaluate(chosen, clean, parsed_locale, translations).as_dict())

    return evaluate_json
