"""The gettext catalogs: extracting, updating and compiling them with Babel.

`make messages` runs :func:`extract` and :func:`update`; the build and
the tests run :func:`compile_catalogs`, into a folder of their own. The
tests extract again to check the template in git is current.
"""

from __future__ import annotations

import io
import os
from functools import cache
from pathlib import Path

from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import CommandLineInterface
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from calc.i18n import DOMAIN
from sitebuild.config import LOCALES, LOCALES_DIR, ROOT

TEMPLATE = LOCALES_DIR / "messages.pot"
SOURCE_LOCALE = "en"  # the language the message ids are written in
PLURAL_MARK = "Nn_:1,2"  # calc.marker's mark of a message with a plural form, as pybabel's --keyword takes it


def _pybabel(*args: str) -> None:
    CommandLineInterface().run(["pybabel", "-q", *args])


def extract(output: Path = TEMPLATE) -> None:
    """Collect every string of calc/ and templates/ into ``output``."""
    _pybabel(
        "extract",
        "--mapping-file", str(ROOT / "pyproject.toml"),
        # No source locations, so that a shifted line changes no entry. The order follows the source, for
        # translators' context: a string moved reorders the catalogs, which the tests do not compare.
        "--omit-header", "--no-wrap", "--sort-by-file", "--no-location",
        "--add-comments", "TRANSLATORS:",
        "--keyword", PLURAL_MARK,
        "--output-file", str(output),
        os.path.relpath(ROOT),
    )  # fmt: skip


def update(template: Path = TEMPLATE, locales_dir: Path = LOCALES_DIR) -> None:
    """Merge the template into each locale's catalog, dropping what is gone; English starts from the ids.

    Babel guesses a translation for a reworded id from a similar old one
    (fuzzy matching), marked fuzzy: a start for a translator, but in English
    the old wording, so English takes the new id instead (:func:`prefill`).
    """
    for locale in LOCALES:
        _pybabel(
            "update", "--input-file", str(template), "--output-dir", str(locales_dir), "--locale", locale,
            "--ignore-obsolete", "--no-wrap", "--ignore-pot-creation-date",
            *(["--no-fuzzy-matching"] if locale == SOURCE_LOCALE else []),
        )  # fmt: skip
    prefill(locales_dir / SOURCE_LOCALE / "LC_MESSAGES" / f"{DOMAIN}.po")


def prefill(path: Path) -> None:
    """Give each untranslated message of the ids' own language its id as its text, marked fuzzy.

    The English copy is the id until someone decides otherwise, so nobody
    types it twice; the fuzzy flag, which the tests refuse, keeps that
    decision a reviewer's.
    """
    with path.open("rb") as file:
        catalog = read_po(file, locale=SOURCE_LOCALE)
    for message in catalog:
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.id and not any(strings):
            message.string = message.id
            message.flags.add("fuzzy")
    with path.open("wb") as file:
        write_po(file, catalog, ignore_obsolete=True, width=None)


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


@cache  # calc/ does not change within a build: one extraction for every locale's catalog
def runtime_ids() -> frozenset[str]:
    """The message ids calc/ marks: all the browser's worker translates, since the templates' words are in the built
    pages already."""
    name, _, arguments = PLURAL_MARK.partition(":")
    keywords = {**DEFAULT_KEYWORDS, name: tuple(int(index) for index in arguments.split(","))}
    found = extract_from_dir(ROOT / "calc", method_map=[("**.py", "python")], keywords=keywords)
    return frozenset(message if isinstance(message, str) else message[0] for _, _, message, _, _ in found)


def runtime_catalog(locale: str) -> bytes:
    """``locale``'s compiled catalog, reviewed entries only (as :func:`compile_catalogs` compiles it), holding what
    calc/ marks (:func:`runtime_ids`): a third of the whole catalog's bytes, which every visit downloads."""
    with (LOCALES_DIR / locale / "LC_MESSAGES" / f"{DOMAIN}.po").open("rb") as file:
        catalog = read_po(file, locale=locale)
    kept = runtime_ids()
    for message in list(catalog):
        key = message.id if isinstance(message.id, str) else message.id[0]
        if key and key not in kept:
            del catalog[message.id]
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    return compiled.getvalue()


if __name__ == "__main__":
    extract()
    update()
