"""Loading a locale's compiled gettext catalog, the same way in CPython and Pyodide; and the marker ``N_``."""

from __future__ import annotations

import gettext
from pathlib import Path

from calc.marker import N_

# The pages mark their words with N_ from here, beside the catalogs it marks for (calc.marker defines it).
__all__ = ["DOMAIN", "N_", "load_translations"]

DOMAIN = "messages"


def load_translations(localedir: str | Path, locale: str) -> gettext.GNUTranslations:
    """The compiled catalog ``<localedir>/<locale>/LC_MESSAGES/messages.mo``.

    A missing catalog is an error, not a silent fall back to English.
    """
    return gettext.translation(DOMAIN, localedir=str(localedir), languages=[locale])
