"""Accessibility: axe-core on every page and state, keyboard use, zoom and narrow screens."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.conftest import LOCALES, wait_until_ready

pytestmark = pytest.mark.browser

AXE = Axe()


def violations(page) -> list[str]:
    results = AXE.run(page, options={"resultTypes": ["violations"]})
    return [f"{v['id']}: {v['help']} at {[n['target'] for n in v['nodes']]}" for v in results.response["violations"]]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("locale", LOCALES)
def test_axe_finds_nothing_in_any_state(browser, base_url, locale, scheme):
    context = browser.new_context(color_scheme=scheme)
    held = []
    context.route("**/pyodide.asm.wasm", lambda route: held.append(route))
    page = context.new_page()
    page.goto(f"{base_url}{locale}/")
    expect(page.locator(".status[data-status=loading]")).to_be_visible()
    assert violations(page) == [], "while Python loads"

    page.fill("[name=gpus]", "2")  # typed before Python is ready: marked as waiting
    expect(page.locator(".status[data-status=busy]")).to_be_visible()
    assert violations(page) == [], "while an edit waits for Python"

    while not held:
        page.wait_for_timeout(20)
    held[0].continue_()
    wait_until_ready(page)
    assert violations(page) == [], "with Python ready"

    page.fill("[name=activation_per_sample]", "0.5")
    expect(page.locator("#activation_per_sample-error")).to_be_visible()
    assert violations(page) == [], "with an error showing"

    page.fill("[name=activation_per_sample]", "")
    expect(page.locator("[data-role=placeholder]")).to_be_visible()
    assert violations(page) == [], "with the prompt for an empty field"
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("locale", LOCALES)
def test_axe_finds_nothing_when_python_fails(browser, base_url, locale, scheme):
    context = browser.new_context(color_scheme=scheme)
    context.route("**/python_stdlib.zip", lambda route: route.fulfill(status=404))
    page = context.new_page()
    page.goto(f"{base_url}{locale}/")
    expect(page.locator("html")).to_have_attribute("data-calc", "error")
    assert violations(page) == []
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_on_the_root_page(browser, base_url, scheme):
    context = browser.new_context(color_scheme=scheme, locale="de-DE")
    page = context.new_page()
    page.goto(base_url)
    assert violations(page) == []
    context.close()


# What has the focus: a field's name, a language link's language, or the tag.
FOCUSED = """() => {
    const active = document.activeElement;
    return active.getAttribute("name") || active.getAttribute("hreflang") || active.tagName;
}"""


def test_every_control_is_reached_by_keyboard_in_order(calculator):
    calculator.locator("body").focus()
    reached = []
    for _ in range(7):
        calculator.keyboard.press("Tab")
        reached.append(calculator.evaluate(FOCUSED))
    assert reached[:6] == ["es", "it", "micro_batch", "accumulation_steps", "gpus", "activation_per_sample"]
    # Past the last field, focus leaves the form: nothing traps it.
    assert reached[6] not in {"micro_batch", "accumulation_steps", "gpus", "activation_per_sample"}


def test_focus_is_visible(calculator):
    calculator.locator("[name=gpus]").focus()
    calculator.keyboard.press("Shift+Tab")
    calculator.keyboard.press("Tab")
    outline = calculator.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline not in ("none", "")


def test_a_changed_result_is_announced_once(calculator):
    calculator.evaluate(
        """() => {
            window.announced = [];
            const region = document.querySelector("[data-role=announcement]");
            new MutationObserver(() => window.announced.push(region.textContent))
                .observe(region, { childList: true, characterData: true, subtree: true });
        }"""
    )
    calculator.locator("[name=micro_batch]").fill("")
    calculator.locator("[name=micro_batch]").press_sequentially("128", delay=40)
    final = {
        "es": "Tamaño de lote efectivo: 1024. Memoria de activaciones máxima por GPU: 64 GB.",
        "it": "Dimensione effettiva del batch: 1024. Picco di memoria delle attivazioni per GPU: 64 GB.",
    }[calculator.locale]
    expect(calculator.locator("[data-role=announcement]")).to_have_text(final)
    # The partial states (an empty field, 1, 12) were never announced.
    assert calculator.evaluate("window.announced") == [final]


@pytest.mark.parametrize("width", [320, 640])
@pytest.mark.parametrize("locale", LOCALES)
def test_no_horizontal_scrolling_when_narrow_or_zoomed(browser, base_url, locale, width):
    # 640 CSS pixels is a 1280-pixel window at 200% zoom.
    context = browser.new_context(viewport={"width": width, "height": 800})
    page = context.new_page()
    page.goto(f"{base_url}{locale}/")
    wait_until_ready(page)
    page.fill("[name=micro_batch]", "1.000.000")
    page.fill("[name=accumulation_steps]", "1.000.000")
    page.fill("[name=gpus]", "1.000.000")
    expect(page.locator("output[name=effective_batch]")).to_have_text("1.000.000.000.000.000.000")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    context.close()


@pytest.mark.parametrize("locale", LOCALES)
def test_print_keeps_inputs_results_and_example(context, base_url, locale):
    page = context.new_page()
    page.goto(f"{base_url}{locale}/")
    wait_until_ready(page)
    page.emulate_media(media="print")
    expect(page.locator(".languages")).to_be_hidden()
    expect(page.locator(".statuses")).to_be_hidden()
    for shown in ("[name=micro_batch]", "output[name=effective_batch]", ".example"):
        expect(page.locator(shown)).to_be_visible()
