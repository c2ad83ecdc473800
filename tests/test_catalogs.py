"""The gettext catalogs: current, complete, and free of typed-in numbers."""

from __future__ import annotations

import io
import re
import shutil
from gettext import GNUTranslations

import pytest
from babel import Locale
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from calc.calculators import NAMES
from calc.calculators import load as load_calculator
from calc.evaluation import evaluate, restore
from sitebuild.catalogs import SOURCE_LOCALE, TEMPLATE, extract, runtime_catalog, update
from sitebuild.config import LOCALES, LOCALES_DIR, TEMPLATES
from tests.helpers import requests_for

_PLACEHOLDER = re.compile(r"%\((\w+)\)s")
# Names that hold digits but are no quantity: number formats, settings, cards, models.
_NAMES = re.compile(
    r"\b(?:bf16|fp16|fp32|NF4|FP4|bnb_4bit_use_double_quant|stage3_max_live_parameters|stage3_prefetch_bucket_size"
    r"|H100|T4|A10G|L4|L40S|Llama-2-7b|Llama-3.1-8B|Phi-3|GPT-2|ZeRO-[0-3]|FSDP[12]|(?:4|8|16|32)[-\s]bits?)\b"
)


_REWORDED = "Samples per GPU in each forward and backward pass."


def load(path) -> Catalog:
    with open(path, "rb") as file:
        return read_po(file)


def ids(catalog: Catalog) -> set:
    return {message.id for message in catalog if message.id}


def messages(catalog: Catalog) -> dict:
    """Each message, by its id and context, with its plural form, flags and translator comments, in no order: moving
    a string in the code reorders an extracted template, and changes nothing a translator reads."""
    return {
        (message.id, message.context): (sorted(message.flags), message.auto_comments)
        for message in catalog
        if message.id
    }


def test_the_template_in_git_has_every_string_of_the_code_and_templates(tmp_path):
    fresh = tmp_path / "messages.pot"
    extract(fresh)
    assert messages(load(fresh)) == messages(load(TEMPLATE)), "locales/messages.pot is stale: run `make messages`"


def test_the_template_is_compared_by_its_messages_not_their_order(tmp_path):
    text = TEMPLATE.read_text(encoding="utf-8")
    reordered, reworded = tmp_path / "reordered.pot", tmp_path / "reworded.pot"
    reordered.write_text("\n\n".join(reversed(text.strip().split("\n\n"))) + "\n", encoding="utf-8")
    reworded.write_text(text.replace(_REWORDED, "Samples per GPU in each pass."), encoding="utf-8")
    assert messages(load(reordered)) == messages(load(TEMPLATE)) != messages(load(reworded))


def test_make_messages_starts_english_from_the_ids_and_leaves_the_rest_to_translators(tmp_path):
    locales = tmp_path / "locales"
    shutil.copytree(LOCALES_DIR, locales, ignore=shutil.ignore_patterns("*.mo"))
    before = {locale: (locales / locale / "LC_MESSAGES" / "messages.po").read_bytes() for locale in LOCALES}
    update(TEMPLATE, locales)
    after = {locale: (locales / locale / "LC_MESSAGES" / "messages.po").read_bytes() for locale in LOCALES}
    assert after == before, "`make messages` on current catalogs must change nothing"

    template = tmp_path / "messages.pot"
    template.write_text(
        TEMPLATE.read_text(encoding="utf-8").replace(_REWORDED, "Samples each GPU takes through one forward pass.")
        + '\nmsgid "A new sentence."\nmsgstr ""\n'
        + '\nmsgid "One new card"\nmsgid_plural "%(count)s new cards"\nmsgstr[0] ""\nmsgstr[1] ""\n',
        encoding="utf-8",
    )
    update(template, locales)
    for locale in LOCALES:
        catalog = load(locales / locale / "LC_MESSAGES" / "messages.po")
        new = (
            catalog["A new sentence."],
            catalog["One new card"],
            catalog["Samples each GPU takes through one forward pass."],
        )
        if locale == SOURCE_LOCALE:
            # The id is the English text to review; not the old wording, which Babel's fuzzy matching would guess.
            assert [(m.string, m.fuzzy) for m in new] == [(m.id, True) for m in new]
        else:
            assert not new[0].string and not any(new[1].string)
            assert new[2].fuzzy  # a guess from the old id, for the translator to check
        assert _REWORDED not in catalog


@pytest.mark.parametrize("locale", LOCALES)
def test_every_message_is_translated_and_reviewed(locale):
    catalog = load(LOCALES_DIR / locale / "LC_MESSAGES" / "messages.po")
    assert ids(catalog) == ids(load(TEMPLATE)), "run `make messages`"
    for message in catalog:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(strings), f"untranslated: {message.id!r}"
        assert not message.fuzzy, f"fuzzy: {message.id!r}: review it, then delete its #, fuzzy line"
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


@pytest.mark.parametrize("locale", LOCALES)
def test_translations_add_no_markup(locale):
    """A translation uses only the tags its English id uses: a message the code writes into an output is shown as
    text, where a tag of its own would read as "<code>" (round 18b, a Spanish note). Prose may mark one more name as
    code where its English marks others, and a template's prose may set an English word in italics, as Spanish
    typography sets a foreign word (Spanish review, round 58)."""
    catalog = load(LOCALES_DIR / locale / "LC_MESSAGES" / "messages.po")
    tags = re.compile(r"</?(\w+)")

    def allowed(message) -> set[str]:
        italics = {"i"} if all(path.startswith("templates/") for path, _ in message.locations) else set()
        return set(tags.findall(message.id)) | italics

    added = [
        message.id
        for message in catalog
        if message.id and isinstance(message.string, str) and not set(tags.findall(message.string)) <= allowed(message)
    ]
    assert added == []


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


def test_no_italian_article_depends_on_the_number_after_it():
    """An Italian article or articled preposition takes its form from the word after it: «i 2 valori» but «gli 8»,
    «del 4,5%» but «dell’1,00%». Before a number the catalog cannot know, the sentence is built so that none stands
    there (Italian reviews of 2026-12-04, item 5 and the plural articles)."""
    articled = re.compile(
        r"\b(?:il|lo|i|gli|un|uno|del|dello|dei|degli|al|allo|ai|agli|dal|dallo|dai|dagli|nel|nello|nei|negli|sul"
        r"|sullo|sui|sugli)\s%\("
    )
    for message in load(LOCALES_DIR / "it" / "LC_MESSAGES" / "messages.po"):
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for text in strings:
            assert not articled.search(text or ""), text


# The nouns a number placeholder counts in the prose, as each locale writes them (a placeholder is a number, or a
# formula's symbol, which the same rule keeps beside its noun).
COUNTED_NOUNS = {
    "en": "bytes|tokens|parameters|samples|elements|steps|step",
    "es": "bytes|tokens|parámetros|muestras|elementos|pasos|paso",
    "it": "byte|token|parametri|campioni|elementi|passi|passo",
}


@pytest.mark.parametrize("locale", LOCALES)
def test_a_number_and_the_noun_it_counts_stay_on_one_line(locale):
    """A placeholder followed by the noun it counts ("%(share)s samples") is joined to it by a no-break space, as a
    number and its unit are in the results (Italian review, round 23: «64 campioni»)."""
    split = re.compile(r"%\(\w+\)s[ \n](?:" + COUNTED_NOUNS[locale] + r")\b")
    catalog = load(LOCALES_DIR / locale / "LC_MESSAGES" / "messages.po")
    found = [
        match.group(0)
        for message in catalog
        if message.id
        for text in (message.string if isinstance(message.string, tuple) else (message.string,))
        for match in split.finditer(text or "")
    ]
    assert found == []


class Recording(GNUTranslations):
    """A compiled catalog that remembers every message id it is asked for."""

    def __init__(self, compiled: bytes) -> None:
        super().__init__(io.BytesIO(compiled))
        self.asked: set[str] = set()

    def gettext(self, message: str) -> str:
        self.asked.add(message)
        return super().gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        self.asked.add(singular)
        return super().ngettext(singular, plural, n)


@pytest.mark.parametrize("locale", LOCALES)
def test_the_worker_s_catalog_holds_every_message_the_pages_translate_in_the_browser(locale):
    """The browser gets only what calc/ marks (the templates' words are in the built pages): every view the Pyodide
    comparison asks for, each input given odd texts and its options, finds its words there, none in English."""
    translations = Recording(runtime_catalog(locale))
    parsed = Locale.parse(locale)
    for name in NAMES:
        calculator = load_calculator(name)
        for request in requests_for(name, locale)[:-1]:  # the last one takes the path of a bug, on purpose
            if "address" in request:
                values = restore(calculator, request["address"], parsed)
                evaluate(calculator, values, parsed, translations, restoring=True)
            else:
                evaluate(calculator, request["values"], parsed, translations, changed=frozenset(request["changed"]))
    catalog = load(LOCALES_DIR / locale / "LC_MESSAGES" / "messages.po")
    # The reviewed entries: the ones any compiled catalog holds.
    whole = {message.id if isinstance(message.id, str) else message.id[0] for message in catalog if not message.fuzzy}
    held = set(translations._catalog) | {key[0] for key in translations._catalog if isinstance(key, tuple)}
    # Names the pages pass through gettext without a catalog entry (a GPU's) are no one's words to translate.
    assert translations.asked & whole <= held
    assert len(translations.asked & whole) > 100
