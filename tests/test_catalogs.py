"""The gettext catalogs: current, complete, and free of typed-in numbers."""

from __future__ import annotations

import re

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from sitebuild.catalogs import TEMPLATE, extract
from sitebuild.config import LOCALES, LOCALES_DIR, TEMPLATES

_PLACEHOLDER = re.compile(r"%\((\w+)\)s")
# Names that hold digits but are no quantity: number formats, cards, models.
_NAMES = re.compile(
    r"\b(?:bf16|fp16|fp32|NF4|bnb_4bit_use_double_quant|H100|T4|A10G|L4|L40S|Llama-2-7b|Llama-3.1-8B|Phi-3|GPT-2"
    r"|ZeRO-[0-3]|FSDP2|(?:4|8|16|32)[-\s]bits?)\b"
)


def load(path) -> Catalog:
    with open(path, "rb") as file:
        return read_po(file)


def ids(catalog: Catalog) -> set:
    return {message.id for message in catalog if message.id}


def test_the_template_in_git_has_every_string_of_the_code_and_templates(tmp_path):
    fresh = tmp_path / "messages.pot"
    extract(fresh)
    # Byte for byte: ids, plural forms, flags and translator comments (no source lines, so moving one changes nothing).
    assert fresh.read_bytes() == TEMPLATE.read_bytes(), "locales/messages.pot is stale: run `make messages`"


@pytest.mark.parametrize("locale", LOCALES)
def test_every_message_is_translated_and_reviewed(locale):
    catalog = load(LOCALES_DIR / locale / "LC_MESSAGES" / "messages.po")
    assert ids(catalog) == ids(load(TEMPLATE)), "run `make messages`"
    for message in catalog:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(strings), f"untranslated: {message.id!r}"
        assert not message.fuzzy, f"fuzzy: {message.id!r}"
    assert not list(catalog.obsolete)


@pytest.mark.parametrize("locale", LOCALES)
def test_translations_keep_the_placeholders(locale):
    catalog = load(LOCALES_DIR / locale / "LC_MESSAGES" / "messages.po")
    problems = [(message.id, [str(e) for e in errors]) for message, errors in catalog.check()]
    assert problems == []
    for message in catalog:
        if not message.id:
            continue
        originals = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        expected = set(_PLACEHOLDER.findall(originals[-1]))
        for string in strings:
            # A singular form may leave out the count; nothing else may go.
            assert set(_PLACEHOLDER.findall(string)) in (expected, expected - {"count"}), message.id


@pytest.mark.parametrize(
    "path",
    [TEMPLATE, *(LOCALES_DIR / loc / "LC_MESSAGES" / "messages.po" for loc in LOCALES)],
    ids=lambda p: p.parent.parent.name if p.suffix == ".po" else "pot",
)
def test_catalogs_hold_no_numbers(path):
    """Numbers in the prose come from calc, formatted for the locale; names with digits are names."""
    for message in load(path):
        if not message.id:
            continue  # the header
        texts = [*(message.id if isinstance(message.id, tuple) else (message.id,))]
        texts += [s for s in (message.string if isinstance(message.string, tuple) else (message.string,)) if s]
        for text in texts:
            assert not re.search(r"[0-9]", _NAMES.sub("", _PLACEHOLDER.sub("", text))), text


@pytest.mark.parametrize("template", sorted(TEMPLATES.glob("*.html")), ids=lambda p: p.name)
def test_templates_show_no_text_outside_the_catalog(template):
    """Visible text is a catalog message or a value: no untranslated words, no typed-in numbers."""
    source = template.read_text(encoding="utf-8")
    source = re.sub(r"\{%-? *trans\b.*?endtrans *-?%\}", " ", source, flags=re.S)
    source = re.sub(r"\{#.*?#\}|\{%.*?%\}|\{\{.*?\}\}", " ", source, flags=re.S)
    # Formulas are notation, not words; so is the separator of the root page's titles.
    source = re.sub(r"<(script|style|math)\b.*?</\1>", " ", source, flags=re.S)
    text = re.sub(r"<[^>]*>", " ", source)
    assert re.findall(r"[^\s·]+", text.replace("&nbsp;", " ")) == []
