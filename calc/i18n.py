"""Loading a locale's compiled gettext catalog, the same way in CPython and Pyodide."""

from __future__ import annotations

import gettext
from pathlib import Path

DOMAIN = "messages"


def N_(message: str) -> str:
    """Mark ``message`` for the catalog; it is translated where it is shown.

    Babel's extractor collects ``N_`` calls by default.
    """
    return message


def load_translations(localedir: str | Path, locale: str) -> gettext.GNUTranslations:
    """The compiled catalog ``<localedir>/<locale>/LC_MESSAGES/messages.mo``.

    A missing catalog is an error, not a silent fall back to English.
    """
    return gettext.translation(DOMAIN, localedir=str(localedir), languages=[locale])
