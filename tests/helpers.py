"""Helpers the test modules share: the built pages read as data, tables of cases, pages driven in Chromium."""

from __future__ import annotations

import re
from collections.abc import Iterable
from html.parser import HTMLParser

import pytest
from babel import Locale

from calc.calculators import load
from calc.evaluation import default_texts
from sitebuild.config import LOCALES
from tests.expectations import expected


def expect(actual, message: str | None = None):
    """Playwright's ``expect``, imported when a browser test first asserts: the fast tier needs no Playwright."""
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(actual, message)


# The built site's pages, read without a browser.


NOT_PROSE = frozenset({"code", "pre", "math", "script", "style", "template"})


class Page(HTMLParser):
    """The parts of a built page the tests look at."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.formulas: list[str] = []
        self.options: list[tuple[str, dict[str, str | None]]] = []
        # The text a reader reads as sentences: none of code, formulas or scripts.
        self.prose: list[str] = []
        self._not_prose = 0
        self._math: list[str] | None = None
        self._select = ""
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._not_prose += tag in NOT_PROSE
        if tag == "select":
            self._select = dict(attrs)["name"]
        if tag == "option":
            self.options.append((self._select, dict(attrs)))
        if tag == "math":
            self._math = []

    def handle_endtag(self, tag):
        self._not_prose -= tag in NOT_PROSE
        if tag == "math":
            self.formulas.append(" ".join(self._math))
            self._math = None

    def handle_data(self, data):
        self.text.append(data)
        self.prose.append(" " if self._not_prose else data)
        if self._math is not None and data.strip():
            self._math.append(data.strip())

    def option_values(self, select: str) -> list[dict[str, str | None]]:
        return [attrs for name, attrs in self.options if name == select]

    def find(self, tag, **attrs):
        return [a for t, a in self.tags if t == tag and all(a.get(k.rstrip("_")) == v for k, v in attrs.items())]

    @property
    def words(self) -> str:
        return re.sub(r"\s+", " ", "".join(self.text))


def read(site, path) -> Page:
    return Page((site / path).read_text(encoding="utf-8"))


# Cases from the locales' expectation tables.

# For what a page does alike in every language, checked once: the binder moves
# strings and never reads them, and each locale's words and numbers are checked
# where the views are made (CPython, and Pyodide in test_pyodide.py). Not the
# message ids' own language, so that an untranslated string would show.
A_LOCALE = LOCALES[-1]

# A browser's language the site is not in (the root page sends it to the first locale): the first of these that
# LOCALES lacks, so that adding a language never turns this into one of the site's.
UNLISTED_LANGUAGE = next(tag for tag in ("de-DE", "fr-FR", "ja-JP") if tag.split("-")[0] not in LOCALES)


def in_turn(*cases: tuple) -> list:
    """``(locale, *case)`` for each case, the locales taken in turn: each case once, and every locale seen."""
    return [
        pytest.param(LOCALES[index % len(LOCALES)], *case, id=f"{LOCALES[index % len(LOCALES)]}-{case[0]}")
        for index, case in enumerate(cases)
    ]


def cases(attribute: str, only: tuple[int, ...] | None = None) -> list:
    """Each locale's cases from its table (those at the indexes ``only``, if given), one test per locale and case."""
    return [
        pytest.param(locale, *case, id=f"{locale}-{index}")
        for locale in LOCALES
        for index, case in enumerate(getattr(expected(locale), attribute))
        if only is None or index in only
    ]


def edited(name: str | None, texts: Iterable[str] = ()) -> frozenset[str] | None:
    """What a page's request says was edited: the input ``name``, else the first of ``texts``; neither, the page
    opening (calc.calculator.Changed)."""
    first = name or next(iter(texts), None)
    return None if first is None else frozenset({first})


# Pages in Chromium.


# How long an expect() waits for its state (conftest.py sets it): less than the page's one-minute start limit.
EXPECT_WITHIN_MS = 45_000
# How long a test waits for Python to be past loading: longer than that limit, so that a slow start is judged by the
# page, not cut short by a test.
START_WITHIN_MS = 90_000


def wait_until_ready(page) -> None:
    """Wait, as long as START_WITHIN_MS, for Python to be past loading; fail unless ready."""
    # A locator wait: on failure it says which state it last saw.
    html = page.locator("html")
    expect(html).not_to_have_attribute("data-calc", "loading", timeout=START_WITHIN_MS)
    # Past loading, "error" is final: read the outcome now rather than wait for "ready" in vain.
    state = html.get_attribute("data-calc")
    assert state == "ready", f"Python did not start: data-calc={state!r}"


# Each input's raw value as the page sends it to Python (web/app.js, KINDS): a group of checkboxes as the values of
# those checked, any other input as its control's value.
READ_FORM = """(form) => Object.fromEntries([...form.querySelectorAll("[data-input]")].map((input) => {
    const controls = [...input.querySelectorAll(`[name="${input.dataset.input}"]`)];
    const read = input.dataset.kind === "choices"
        ? controls.filter((box) => box.checked).map((box) => box.value) : controls[0].value;
    return [input.dataset.input, read];
}))"""


def view_of_the_form(page, localedir):
    """CPython's view (calc.evaluation.evaluate) of what the page's form holds, once its last answer is shown."""
    from babel import Locale

    from calc.calculators import load
    from calc.evaluation import evaluate
    from calc.i18n import load_translations

    expect(page.locator(".results")).not_to_have_attribute("aria-busy", "true")
    form = page.locator("form[data-calculator]")
    locale = page.locator("html").get_attribute("lang")
    raw = form.evaluate(READ_FORM)
    return evaluate(
        load(form.get_attribute("data-calculator")), raw, Locale.parse(locale), load_translations(localedir, locale)
    )


def expect_shown_as_cpython_shows(page, localedir, *outputs: str):
    """The page shows ``outputs`` (figures, texts or listings) and carries its links as CPython's view of its form
    says.

    The figures themselves are checked where the views are made (each calculator's tests, and test_pyodide.py):
    in the browser, only what the page does with a view.
    """
    view = view_of_the_form(page, localedir)
    assert view.prompt is None, view.prompt
    for name in outputs:
        if isinstance(view.outputs[name], dict):
            # A listing: each paragraph and each list item, in order.
            lines = [line for block in view.outputs[name]["blocks"] for line in block.get("items", [block.get("text")])]
            expect(page.locator(f"[data-output={name}][data-kind=listing]").locator("p, li")).to_have_text(lines)
            continue
        expect(page.locator(f"[data-output={name}]:is([data-kind=figure], [data-kind=text])")).to_have_text(
            view.outputs[name]
        )
        # A figure in words is set as prose, a number as a figure.
        worded = re.compile(r"\bworded\b")
        figure = page.locator(f"[data-output={name}][data-kind=figure]")
        if name in view.worded:
            expect(figure).to_have_class(worded)
        elif figure.count():
            expect(figure).not_to_have_class(worded)
    for link in page.locator("a[data-link]").all():
        carried = view.links.get(link.get_attribute("data-link"))
        path = link.get_attribute("data-path")
        expect(link).to_have_attribute("href", f"{path}?{carried}" if carried else path)
        # A link that carries nothing is not offered.
        if carried:
            expect(link).to_be_visible()
        else:
            expect(link).to_be_hidden()
    return view


def visit(context, url: str):
    """A new page of ``context`` at ``url``, Python ready."""
    page = context.new_page()
    page.goto(url)
    wait_until_ready(page)
    return page


def start_over(ready_pages, locale: str, name: str = "accumulation"):
    """A calculator's page in ``locale``, Python ready, the form back at its defaults."""
    page = ready_pages(locale, name)
    # As a reader would start over: the defaults back in every field, each input edited as typing edits it.
    page.evaluate(
        """() => {
            const form = document.querySelector("form[data-calculator]");
            form.reset();
            for (const input of form.querySelectorAll("[data-input]")) {
                const control = input.querySelector(`[name="${input.dataset.input}"]`);
                control.dispatchEvent(new Event("input", { bubbles: true }));
            }
        }"""
    )
    expect(page.locator(".results")).not_to_have_attribute("aria-busy", "true")
    expect(page.locator("[aria-invalid]")).to_have_count(0)
    table = expected(locale)
    if name == "accumulation":
        effective, memory = table.figures()
        expect(page.locator("output[name=effective_batch]")).to_have_text(effective)
        expect(page.locator("output[name=activation_memory]")).to_have_text(memory)
    page.locale = locale
    page.expected = table
    return page


# The views the Pyodide comparison asks for, whose words the worker's catalog must hold: texts that exercise each
# problem's wording and number formatting.
ODD = ("", "x", "0", "-1", "1,5", "0.5", "1.500", "1.250,5", "0,5 GB", "7 MB", "1" * 40, "99999999")


def requests_for(name: str, locale: str) -> list[dict]:
    """Defaults, each input given each odd text (and its last options), the locale's table, an odd address."""
    calculator = load(name)
    defaults = default_texts(calculator, Locale.parse(locale))
    asked = [{"values": defaults, "changed": []}]
    for field in calculator.inputs:
        options = [option.value for option in getattr(field, "options", ())]
        for odd in (*ODD, *options[-2:]):
            asked.append({"values": {**defaults, field.name: odd}, "changed": [field.name]})
    if name == "accumulation":
        table = expected(locale)
        asked += [{"values": {**defaults, **texts}, "changed": list(texts)} for texts, _, _ in table.results]
        asked += [{"values": {**defaults, name: text}, "changed": [name]} for name, text, _ in table.errors]
    asked.append({"address": "?gpus=3&parameters=7.5&model=custom&rank=0&target_modules=q_proj,x"})
    # No page sends this: it takes the path of a bug in calc (a message, and the traceback printed).
    asked.append({"values": 5})
    return asked
