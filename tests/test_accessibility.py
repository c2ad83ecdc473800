"""Accessibility: axe-core on every page and state, keyboard use, zoom and narrow screens."""

from __future__ import annotations

from decimal import Decimal

import pytest
from babel import Locale

from calc.formatting import format_number
from sitebuild.config import LOCALES, PAGES
from tests.helpers import A_LOCALE, UNLISTED_LANGUAGE, expect, in_turn, start_over, wait_until_ready
from tests.holding import Held

pytestmark = pytest.mark.browser


# Lighthouse's phone: links that are apart on a wide screen can crowd each other on it.
PHONE = {"width": 412, "height": 823}


def violations(page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    # target-size (WCAG 2.2's touch targets) is off by default in axe; Lighthouse checks it.
    options = {"resultTypes": ["violations"], "rules": {"target-size": {"enabled": True}}}
    results = Axe().run(page, options=options)
    return [f"{v['id']}: {v['help']} at {[n['target'] for n in v['nodes']]}" for v in results.response["violations"]]


# Each fresh load starts Python: the states a load passes through are checked once per colour scheme, the locales
# in turn; every page in every locale and scheme is checked ready below, on pages loaded once.
@pytest.mark.parametrize(("locale", "scheme"), in_turn(("light",), ("dark",)))
def test_axe_finds_nothing_in_any_state(browser, base_url, locale, scheme):
    context = browser.new_context(color_scheme=scheme)
    held = Held(context, "**/pyodide.asm.wasm")
    page = context.new_page()
    page.goto(f"{base_url}{locale}/")
    expect(page.locator(".status[data-status=loading]")).to_be_visible()
    assert violations(page) == [], "while Python loads"

    page.fill("[name=gpus]", "2")  # typed before Python is ready: marked as waiting
    expect(page.locator(".status[data-status=busy]")).to_be_visible()
    assert violations(page) == [], "while an edit waits for Python"

    held.release(page)
    wait_until_ready(page)
    assert violations(page) == [], "with Python ready"

    page.fill("[name=activation_per_sample]", "x")
    expect(page.locator("#activation_per_sample-error")).to_be_visible()
    assert violations(page) == [], "with an error showing"

    page.fill("[name=activation_per_sample]", "")
    expect(page.locator("[data-role=placeholder]")).to_be_visible()
    assert violations(page) == [], "with the prompt for an empty field"
    context.close()


# A language changes a page's words, not its structure or colours: each page once, the locales in turn.
@pytest.mark.parametrize(("locale", "name"), in_turn(*((name,) for name in PAGES)))
def test_axe_finds_nothing_on_any_calculator(ready_pages, locale, name):
    page = start_over(ready_pages, locale, name)
    assert violations(page) == [], "with Python ready"
    page.set_viewport_size(PHONE)
    assert violations(page) == [], "on a phone's screen"
    # Every kind of input the page has, each holding a bad value at once.
    page.locator("input[type=text]").first.fill("x")
    for box in page.locator("input[type=checkbox]").all():
        box.uncheck()
    expect(page.locator(".error:visible")).to_have_count(1 + min(1, page.locator("input[type=checkbox]").count()))
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        assert violations(page) == [], f"{scheme}, with errors showing"


@pytest.mark.parametrize(("locale", "scheme"), in_turn(("dark",), ("light",)))
def test_axe_finds_nothing_when_python_fails(browser, base_url, locale, scheme):
    context = browser.new_context(color_scheme=scheme)
    context.route("**/pyodide.asm.mjs", lambda route: route.fulfill(status=404))
    page = context.new_page()
    page.goto(f"{base_url}{locale}/")
    expect(page.locator("html")).to_have_attribute("data-calc", "error")
    assert violations(page) == []
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_on_the_root_page(browser, base_url, scheme):
    context = browser.new_context(color_scheme=scheme, locale=UNLISTED_LANGUAGE)
    page = context.new_page()
    page.goto(base_url)
    assert violations(page) == []
    context.close()


# What has the focus: a field's name, a language link's language, or the tag.
FOCUSED = """() => {
    const active = document.activeElement;
    return active.getAttribute("name") || active.getAttribute("hreflang") || active.tagName;
}"""


def test_every_control_is_reached_by_keyboard_in_order(ready_pages):
    calculator = start_over(ready_pages, A_LOCALE)
    # From the page's first control, the first language link (whatever earlier tests focused).
    calculator.locator(f".languages a[hreflang={LOCALES[0]}]").focus()
    reached = [calculator.evaluate(FOCUSED)]
    fields = ["micro_batch", "accumulation_steps", "gpus", "activation_per_sample"]
    for _ in range(len(LOCALES) - 1 + len(fields) + 1):
        calculator.keyboard.press("Tab")
        reached.append(calculator.evaluate(FOCUSED))
    assert reached[:-1] == [*LOCALES, *fields]
    # Past the last field, focus leaves the form: nothing traps it.
    assert reached[-1] not in fields


def test_focus_is_visible(ready_pages):
    calculator = start_over(ready_pages, A_LOCALE)
    calculator.locator("[name=gpus]").focus()
    calculator.keyboard.press("Shift+Tab")
    calculator.keyboard.press("Tab")
    outline = calculator.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline not in ("none", "")


def test_a_changed_result_is_announced_once(ready_pages):
    calculator = start_over(ready_pages, A_LOCALE)
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
    (final,) = [said for texts, said in calculator.expected.announcements if texts == {"micro_batch": "128"}]
    expect(calculator.locator("[data-role=announcement]")).to_have_text(final)
    # The partial states (an empty field, 1, 12) were never announced.
    assert calculator.evaluate("window.announced") == [final]


@pytest.mark.parametrize("width", [320, 640])
@pytest.mark.parametrize("locale", LOCALES)
def test_no_horizontal_scrolling_when_narrow_or_zoomed(ready_pages, locale, width):
    # 640 CSS pixels is a 1280-pixel window at 200% zoom.
    page = start_over(ready_pages, locale)
    page.set_viewport_size({"width": width, "height": 800})
    for name in ("micro_batch", "accumulation_steps", "gpus"):
        page.fill(f"[name={name}]", "1000000")
    largest = format_number(Decimal(10**18), Locale.parse(locale))
    expect(page.locator("output[name=effective_batch]")).to_have_text(largest)
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_print_keeps_inputs_results_and_example(context, base_url, locale=A_LOCALE):
    page = context.new_page()
    page.goto(f"{base_url}{locale}/")
    wait_until_ready(page)
    page.emulate_media(media="print")
    expect(page.locator(".languages")).to_be_hidden()
    expect(page.locator(".statuses")).to_be_hidden()
    for shown in ("[name=micro_batch]", "output[name=effective_batch]", ".example"):
        expect(page.locator(shown)).to_be_visible()
