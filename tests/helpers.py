"""Helpers the test modules share: the built pages read as data, tables of cases, pages driven in Chromium."""

from __future__ import annotations

import re
from collections.abc import Iterable
from html.parser import HTMLParser

import pytest

from sitebuild.config import LOCALES
from tests.expectations import expected


def expect(actual, message: str | None = None):
    """Playwright's ``expect``, imported when a browser test first asserts: the fast tier needs no Playwright."""
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(actual, message)


# The built site's pages, read without a browser.


class Page(HTMLParser):
    """The parts of a built page the tests look at."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.formulas: list[str] = []
        self.options: list[tuple[str, dict[str, str | None]]] = []
        self._math: list[str] | None = None
        self._select = ""
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "select":
            self._select = dict(attrs)["name"]
        if tag == "option":
            self.options.append((self._select, dict(attrs)))
        if tag == "math":
            self._math = []

    def handle_endtag(self, tag):
        if tag == "math":
            self.formulas.append(" ".join(self._math))
            self._math = None

    def handle_data(self, data):
        self.text.append(data)
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


def wait_until_ready(page) -> None:
    """Wait, as long as the default expect() timeout allows, for Python to be past loading; fail unless ready."""
    # A locator wait: on failure it says which state it last saw.
    html = page.locator("html")
    expect(html).not_to_have_attribute("data-calc", "loading")
    # Past loading, "error" is final: read the outcome now rather than wait for "ready" in vain.
    state = html.get_attribute("data-calc")
    assert state == "ready", f"Python did not start: data-calc={state!r}"


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
