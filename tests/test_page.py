"""The calculator page as a reader uses it, in headless Chromium, in Spanish and Italian."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import LOCALES, wait_until_ready
from tests.test_evaluation import ERRORS

pytestmark = pytest.mark.browser

PROMPTS = {
    "empty": {
        "es": "Rellena todos los campos para ver los resultados.",
        "it": "Compila tutti i campi per vedere i risultati.",
    },
    "invalid": {
        "es": "Corrige el valor marcado para ver los resultados.",
        "it": "Correggi il valore evidenziato per vedere i risultati.",
    },
}


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


READY = {"es": "Los resultados se actualizan mientras escribes.", "it": "I risultati si aggiornano mentre scrivi."}


def test_default_results_show_with_python_ready(calculator):
    expect_results(calculator, "32", "2 GB")
    expect(calculator.locator(".status:visible")).to_have_text([READY[calculator.locale]])


@pytest.mark.parametrize(
    ("field", "text", "effective", "memory"),
    [
        ("micro_batch", "8", "64", "4 GB"),
        ("accumulation_steps", "16", "64", "2 GB"),
        ("gpus", "4", "128", "2 GB"),
        ("activation_per_sample", "1,25", "32", "5 GB"),
        ("gpus", "1.024", "32.768", "2 GB"),
    ],
)
def test_results_follow_each_field_as_it_is_typed(calculator, field, text, effective, memory):
    box = calculator.locator(f"[name={field}]")
    box.fill("")
    box.press_sequentially(text)
    expect_results(calculator, effective, memory)


def test_exact_decimal_arithmetic(calculator):
    calculator.fill("[name=micro_batch]", "3")
    calculator.fill("[name=activation_per_sample]", "0,1")
    expect_results(calculator, "24", "0,3 GB")


def test_a_live_result_reads_like_the_prerendered_one(calculator):
    calculator.fill("[name=gpus]", "2")
    expect_results(calculator, "64", "2 GB")
    calculator.fill("[name=gpus]", "1")
    expect_results(calculator, "32", "2 GB")


def test_an_empty_field_shows_the_prompt_instead_of_results(calculator):
    calculator.fill("[name=accumulation_steps]", "")
    expect_no_results(calculator, PROMPTS["empty"][calculator.locale])
    expect(calculator.locator("[aria-invalid]")).to_have_count(0)
    calculator.fill("[name=accumulation_steps]", "2")
    expect_results(calculator, "8", "2 GB")


@pytest.mark.parametrize(("name", "text", "spanish", "italian"), ERRORS, ids=[f"{e[0]}={e[1][:12]}" for e in ERRORS])
def test_each_error_is_explained_next_to_its_field_and_recovers(calculator, name, text, spanish, italian):
    field = calculator.locator(f"[name={name}]")
    error = calculator.locator(f"#{name}-error")
    field.fill(text)
    expect(error).to_have_text({"es": spanish, "it": italian}[calculator.locale])
    expect(error).to_be_visible()
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(field).to_have_attribute("aria-describedby", f"{name}-hint {name}-error")
    expect_no_results(calculator, PROMPTS["invalid"][calculator.locale])
    for word in ("NaN", "None", "undefined", "Infinity", "Traceback"):
        assert word not in calculator.inner_text("body")

    field.fill({"activation_per_sample": "0,5"}.get(name, "2" if name != "micro_batch" else "4"))
    expect(error).to_be_hidden()
    expect(field).not_to_have_attribute("aria-invalid", "true")
    expect(field).to_have_attribute("aria-describedby", f"{name}-hint")
    expect(calculator.locator("[data-role=placeholder]")).to_be_hidden()


def test_a_huge_paste_is_refused_and_the_page_stays_responsive(calculator):
    calculator.fill("[name=micro_batch]", "9" * 5000)
    expect(calculator.locator("#micro_batch-error")).to_have_text(
        {"es": "El valor máximo es 1.000.000.", "it": "Il valore massimo è 1.000.000."}[calculator.locale]
    )
    calculator.fill("[name=micro_batch]", "2")
    expect_results(calculator, "16", "1 GB")


def test_enter_does_not_reload_the_page(calculator):
    calculator.evaluate("window.stillHere = true")
    calculator.fill("[name=gpus]", "2")
    calculator.press("[name=gpus]", "Enter")
    expect_results(calculator, "64", "2 GB")
    assert calculator.evaluate("window.stillHere") is True


@pytest.mark.parametrize("locale", LOCALES)
def test_no_request_leaves_the_site(context, base_url, locale):
    requests: list[str] = []
    context.on("request", lambda request: requests.append(request.url))
    page = context.new_page()
    page.goto(f"{base_url}{locale}/")
    wait_until_ready(page)
    page.fill("[name=micro_batch]", "16")
    expect_results(page, "128", "8 GB")
    page.click(f"a[hreflang={'it' if locale == 'es' else 'es'}]")
    wait_until_ready(page)
    assert any(url.endswith("/pyodide.asm.wasm") for url in requests), "the worker's requests were not seen"
    assert [url for url in requests if not url.startswith(base_url)] == []
