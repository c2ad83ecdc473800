"""The calculator page as a reader uses it, in headless Chromium, in every locale."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from sitebuild.config import LOCALES
from tests.expectations import expected
from tests.helpers import A_LOCALE, cases, expect, start_over, wait_until_ready

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser


def outputs(page: Page) -> tuple[str, str]:
    return (
        page.locator("output[name=effective_batch]").inner_text(),
        page.locator("output[name=activation_memory]").inner_text(),
    )


def expect_results(page: Page, effective: str, memory: str) -> None:
    expect(page.locator("output[name=effective_batch]")).to_have_text(effective)
    expect(page.locator("output[name=activation_memory]")).to_have_text(memory)
    expect(page.locator("[data-role=placeholder]")).to_be_hidden()
    expect(page.locator(".figures")).to_be_visible()


def expect_no_results(page: Page, prompt: str) -> None:
    expect(page.locator("[data-role=placeholder]")).to_have_text(prompt)
    expect(page.locator("[data-role=placeholder]")).to_be_visible()
    expect(page.locator(".figures")).to_be_hidden()
    assert outputs(page) == ("", "")


def test_default_results_show_with_python_ready(calculator):
    expect_results(calculator, *calculator.expected.figures())
    expect(calculator.locator(".status:visible")).to_have_text([calculator.expected.ready])


# The tables are checked in full where the views are made: in CPython
# (test_evaluation.py) and in the site's Pyodide (test_pyodide.py). The
# page applies whatever view comes back alike, so here a few cases per
# locale show that it does: two results (a number typed with the locale's
# group separator, two fields edited), and two errors (a whole-number field,
# a field written with the other decimal mark), each shown beside its field.
SHOWN_RESULTS = (4, 6)
SHOWN_ERRORS = (0, 9)


@pytest.mark.parametrize(("locale", "texts", "effective", "memory"), cases("results", SHOWN_RESULTS))
def test_results_follow_the_fields_as_they_are_typed(ready_pages, locale, texts, effective, memory):
    page = start_over(ready_pages, locale)
    for field, text in texts.items():
        box = page.locator(f"[name={field}]")
        box.fill("")
        box.press_sequentially(text)
    expect_results(page, effective, memory)


def test_an_empty_field_shows_the_prompt_instead_of_results(ready_pages):
    calculator = start_over(ready_pages, A_LOCALE)
    calculator.fill("[name=accumulation_steps]", "")
    expect_no_results(calculator, calculator.expected.prompt_empty)
    expect(calculator.locator("[aria-invalid]")).to_have_count(0)
    calculator.fill("[name=accumulation_steps]", "16")
    expect_results(calculator, *calculator.expected.figures(accumulation_steps="16"))


@pytest.mark.parametrize(("locale", "name", "text", "message"), cases("errors", SHOWN_ERRORS))
def test_each_error_is_explained_next_to_its_field_and_recovers(ready_pages, locale, name, text, message):
    page = start_over(ready_pages, locale)
    table = page.expected
    field = page.locator(f"[name={name}]")
    error = page.locator(f"#{name}-error")
    field.fill(text)
    expect(error).to_have_text(message)
    expect(error).to_be_visible()
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(field).to_have_attribute("aria-describedby", f"{name}-hint {name}-error")
    expect_no_results(page, table.prompt_invalid)
    for word in ("NaN", "None", "undefined", "Infinity", "Traceback"):
        assert word not in page.inner_text("body")

    field.fill(table.defaults[name])
    expect(error).to_be_hidden()
    expect(field).not_to_have_attribute("aria-invalid", "true")
    expect(field).to_have_attribute("aria-describedby", f"{name}-hint")
    expect(page.locator("[data-role=placeholder]")).to_be_hidden()


def test_enter_does_not_reload_the_page(ready_pages):
    calculator = start_over(ready_pages, A_LOCALE)
    calculator.evaluate("window.stillHere = true")
    calculator.fill("[name=gpus]", "4")
    calculator.press("[name=gpus]", "Enter")
    expect_results(calculator, *calculator.expected.figures(gpus="4"))
    assert calculator.evaluate("window.stillHere") is True


def test_no_request_leaves_the_site(context, base_url, locale=A_LOCALE):
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    page = context.new_page()
    page.goto(f"{base_url}{locale}/")
    wait_until_ready(page)
    page.fill("[name=micro_batch]", "8")
    expect_results(page, *expected(locale).figures(micro_batch="8"))
    page.click(f"a[hreflang={next(other for other in LOCALES if other != locale)}]")
    wait_until_ready(page)
    assert any(url.endswith("/pyodide.asm.wasm") for url in requests), "the worker's requests were not seen"
    assert [url for url in requests if not url.startswith(base_url)] == []
