"""The gettext catalogs: extracting, updating and compiling them with Babel.

`make messages` runs :func:`extract` and :func:`update`; the build and
the tests run :func:`compile_catalogs`, into a folder of their own. The
tests extract again to check the template in git is current.
"""

from __future__ import annotations

import os
from pathlib import Path

from babel.messages.frontend import CommandLineInterface

from calc.i18n import DOMAIN
from sitebuild.config import LOCALES, LOCALES_DIR, ROOT

TEMPLATE = LOCALES_DIR / "messages.pot"


def _pybabel(*args: str) -> None:
    CommandLineInterface().run(["pybabel", "-q", *args])


def extract(output: Path = TEMPLATE) -> None:
    """Collect every string of calc/ and templates/ into ``output``."""
    _pybabel(
        "extract",
        "--mapping-file", str(ROOT / "pyproject.toml"),
        # No source locations: moving a line in a template changes no catalog.
        "--omit-header", "--no-wrap", "--sort-by-file", "--no-location",
        "--add-comments", "TRANSLATORS:",
        "--output-file", str(output),
        os.path.relpath(ROOT),
    )  # fmt: skip


def update() -> None:
    """Merge the template into each locale's catalog, dropping what is gone."""
    _pybabel(
        "update", "--input-file", str(TEMPLATE), "--output-dir", str(LOCALES_DIR),
        "--ignore-obsolete", "--no-wrap", "--ignore-pot-creation-date",
    )  # fmt: skip


def compile_catalogs(out: Path) -> Path:
    """Compile every locale's catalog to ``out/<locale>/LC_MESSAGES/messages.mo``, printing how complete it is.

    Returns ``out``: the folder :func:`calc.i18n.load_translations` reads.
    Fuzzy entries are left out of the compiled catalog (Babel's default),
    so an unreviewed translation never reaches a page.
    """
    for locale in LOCALES:
        catalog = Path(locale, "LC_MESSAGES", f"{DOMAIN}.po")
        compiled = out / catalog.with_suffix(".mo")
        compiled.parent.mkdir(parents=True, exist_ok=True)
        _pybabel(
            "compile", "--domain", DOMAIN, "--locale", locale, "--statistics",
            "--input-file", str(LOCALES_DIR / catalog), "--output-file", str(compiled),
        )  # fmt: skip
    return out


if __name__ == "__main__":
    extract()
    update()
