"""Compiling the gettext catalogs that the pages and the worker read."""

from __future__ import annotations

from pathlib import Path

from babel.messages.frontend import CommandLineInterface


def compile_catalogs(locales_dir: Path) -> None:
    """``pybabel compile --statistics`` over every catalog in ``locales_dir``.

    Fuzzy entries are left out of the compiled catalog (Babel's default),
    so an unreviewed translation never reaches a page.
    """
    CommandLineInterface().run(
        ["pybabel", "-q", "compile", "--domain", "messages", "--directory", str(locales_dir), "--statistics"]
    )
