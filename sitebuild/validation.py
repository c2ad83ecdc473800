"""What `make validate` checked, as the pages quote it: library versions and how many configurations.

The results are committed under ``validation/``; the tests hold calc to
them, and the pages say what they were checked against.
"""

from __future__ import annotations

import json
from decimal import Decimal

from babel import Locale

from calc.formatting import format_number
from sitebuild.config import ROOT

VALIDATION = ROOT / "validation"


def validation_facts(locale: Locale) -> dict[str, str]:
    """The versions and counts of ``validation/parameters.json``, written for ``locale``."""
    parameters = json.loads((VALIDATION / "parameters.json").read_text(encoding="utf-8"))
    return {
        "peft": parameters["versions"]["peft"],
        "transformers": parameters["versions"]["transformers"],
        "lora_configurations": format_number(Decimal(parameters["configurations"]["lora"]), locale),
        "models": format_number(Decimal(parameters["configurations"]["models"]), locale),
    }
