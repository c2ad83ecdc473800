"""The entry point the web worker calls; it speaks JSON strings only.

The worker writes the page's compiled catalog into Pyodide's file system,
then asks :func:`evaluator` for a function that turns a request into the
view to show. A request is one of

- ``{"values": {name: text or [values]}, "changed": [name, …]}``: the form as it is, and the inputs the
  reader edited since the page last read it;
- ``{"address": "?name=value…"}``: the page's own address, when it was opened with one.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable
from decimal import Decimal

from babel import Locale

from calc.calculators import load
from calc.evaluation import default_texts, evaluate, restore, unavailable
from calc.i18n import load_translations
from calc.inputs import Amount, Count


def evaluator(calculator: str, locale: str, localedir: str) -> Callable[[str], str]:
    """A function from a JSON request to the JSON of the view.

    It evaluates nothing yet: the page's first request, or the worker's warm-up once the page is ready, reads the
    locale's data and runs the code cold.
    """
    chosen = load(calculator)
    parsed_locale = Locale.parse(locale)
    translations = load_translations(localedir, locale)
    names = [i.name for i in chosen.inputs]

    def evaluate_json(request: str) -> str:
        try:
            asked = json.loads(request)
            if "address" in asked:
                texts = restore(chosen, str(asked["address"]), parsed_locale)
                view = evaluate(chosen, texts, parsed_locale, translations, restoring=True)
            else:
                # Only the known inputs, each as text or a list of texts: the request comes from a page.
                given = asked.get("values", {})
                texts = {name: _raw(given.get(name, "")) for name in names}
                changed = frozenset(asked.get("changed", [])) & frozenset(names)
                view = evaluate(chosen, texts, parsed_locale, translations, changed=changed)
        except Exception:
            # A bug, not the reader's doing (a malformed request included): the
            # console gets the traceback, the page a message, and the calculator keeps answering.
            traceback.print_exc()
            view = unavailable(chosen, translations)
        return json.dumps(view.as_dict())

    return evaluate_json


def rehearsals(calculator: str, locale: str, count: int) -> list[str]:
    """``count`` requests for the worker's warm-up: the default form with one number after another edited, as a reader
    would edit it.

    The defaults alone would rehearse little: their step is remembered after the first
    (calc.formulas.step.moments), so the computing and formatting a reader's edits run would stay cold.

    >>> [json.loads(request)["changed"] for request in rehearsals("accumulation", "en", 3)]
    [['micro_batch'], ['accumulation_steps'], ['gpus']]
    """
    chosen, parsed_locale = load(calculator), Locale.parse(locale)
    texts = default_texts(chosen, parsed_locale)
    numbers = [i for i in chosen.inputs if isinstance(i, Count | Amount) and i.default is not None]
    requests = []
    for turn in range(count):
        number = numbers[turn % len(numbers)]
        # An eighth more each time round, or the field's smallest step if that is more, so that the results change.
        times = turn // len(numbers) + 1
        smallest = Decimal(1) if isinstance(number, Count) else Decimal(1).scaleb(-number.places)
        step = max(times * smallest, (number.default * times / 8).quantize(smallest))
        value = min(number.default + step, number.maximum)
        edited = {**texts, number.name: number.text(value, parsed_locale)}
        requests.append(json.dumps({"values": edited, "changed": [number.name]}))
    return requests


def _raw(value: object) -> str | list[str]:
    return [str(item) for item in value] if isinstance(value, list) else str(value)
