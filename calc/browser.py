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

from babel import Locale

from calc.calculators import load
from calc.evaluation import evaluate, restore, unavailable
from calc.i18n import load_translations


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


def _raw(value: object) -> str | list[str]:
    return [str(item) for item in value] if isinstance(value, list) else str(value)
