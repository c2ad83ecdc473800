"""Python's start in the page: what a reader sees when it fails, hangs or is slow."""

from __future__ import annotations

import pytest
from babel import Locale

from calc.accumulation import CALCULATOR as ACCUMULATION
from calc.evaluation import evaluate
from calc.i18n import load_translations
from sitebuild.config import CONTENT_SECURITY_POLICY
from tests.expectations import expected
from tests.helpers import A_LOCALE, expect, in_turn, wait_until_ready
from tests.holding import Held
from tools.serve import sending, serving

pytestmark = pytest.mark.browser

# The page gives Python a minute to start (START_TIMEOUT_MS in web/app.js),
# counted from its script's start, and then gives up whatever went wrong. A
# failure the page can tell is reported before that: waiting less, from
# before the page loads, for the reason it names, a test passes by that
# report and never by the time-out. (Reports take seconds; the margin is
# for a loaded machine.)
REPORTED_WITHIN_MS = 45_000


def open_failing(page, url: str, reason: str) -> None:
    """Open ``url``; fail unless the page gives up on Python for ``reason`` within REPORTED_WITHIN_MS.

    fail() in web/app.js logs the error it gives up for as a console error.
    """
    with page.expect_console_message(
        lambda message: message.type == "error" and reason in message.text, timeout=REPORTED_WITHIN_MS
    ):
        page.goto(url)


def expect_defaults_with_notice(page, locale):
    effective, memory = expected(locale).figures()
    expect(page.locator("html")).to_have_attribute("data-calc", "error")
    expect(page.locator(".status[data-status=error]")).to_be_visible()
    expect(page.locator(".status[data-status=error]")).to_contain_text(expected(locale).failed)
    expect(page.locator(".status[data-status=loading]")).to_be_hidden()
    expect(page.locator("output[name=effective_batch]")).to_have_text(effective)
    expect(page.locator("output[name=activation_memory]")).to_have_text(memory)
    # Drawn again from the view the page holds (a view without the chart would leave its place empty).
    expect(page.locator("[data-output=tradeoff][data-kind=chart] svg")).to_have_count(1)
    expect(page.locator("[name=micro_batch]")).to_have_value("1")
    expect(page.locator("[name=micro_batch]")).to_be_disabled()


# Failing alike in every language, each case runs once, the locales in turn (each one's notice is seen).
# `boots`: the snapshot's restore fails on it, and Python's own boot is tried before the page is told. The loader's
# module fails both at once; the lockfile, which both wait for only after compiling the WebAssembly, is not retried.
@pytest.mark.parametrize(
    ("locale", "missing", "reason", "boots"),
    in_turn(
        ("**/pyodide.asm.mjs", "/pyodide/pyodide.asm.mjs", True),
        ("**/calc-worker.js", "the worker could not be loaded", False),
        ("**/wheel-data-*.zip", ".zip: HTTP 404", False),
        ("**/messages.mo.gzip", "/messages.mo.gzip: HTTP 404", False),
        ("**/pyodide-lock.json", "/pyodide/pyodide-lock.json: HTTP 404", False),
    ),
)
def test_a_missing_file_is_reported_at_once_and_the_defaults_stay(context, base_url, locale, missing, reason, boots):
    context.route(missing, lambda route: route.fulfill(status=404, body="not here"))
    warnings = []
    context.on("console", lambda message: warnings.append(message.text) if message.type == "warning" else None)
    page = context.new_page()
    open_failing(page, f"{base_url}{locale}/", reason)
    expect_defaults_with_notice(page, locale)
    assert any("starts without its snapshot" in text for text in warnings) == boots


def test_a_loader_that_never_answers_times_out_and_the_typing_stays(context, base_url, localedir, locale=A_LOCALE):
    stalled = Held(context, "**/pyodide.asm.wasm")  # never released
    page = context.new_page()
    # The page's own one-minute time-out (START_TIMEOUT_MS), on a clock the
    # test moves on once it has seen what a reader sees while Python loads:
    # a jump of a minute, not a minute's wait, and the same on a slow machine.
    page.clock.install()
    page.goto(f"{base_url}{locale}/")
    expect(page.locator(".status[data-status=loading]")).to_be_visible()
    # A value typed while Python loads is marked as waiting, not shown stale.
    page.fill("[name=micro_batch]", "8")
    expect(page.locator(".status[data-status=busy]")).to_be_visible()
    expect(page.locator(".results")).to_have_attribute("aria-busy", "true")
    stalled.wait(page)  # the loader is waiting for it: the time-out is what ends the wait
    page.clock.fast_forward("01:01")
    message = (
        "The live calculator could not start in this browser, so it cannot show results for the values you entered."
        " Reload the page to try again."
    )
    expect_stopped_keeping_the_typing(page, "error-edited", load_translations(localedir, locale).gettext(message))


def test_a_calculation_that_never_answers_times_out_and_the_typing_stays(context, base_url, localedir, locale=A_LOCALE):
    # A worker that starts but never answers an edit: a listener ahead of its own drops every request.
    def unanswering(route):
        response = route.fetch()
        drop = 'self.addEventListener("message", (e) => e.data.type === "evaluate" && e.stopImmediatePropagation());\n'
        route.fulfill(response=response, body=drop + response.text())

    context.route("**/calc-worker.js", unanswering)
    page = context.new_page()
    # The page's own time-out for an answer (ANSWER_TIMEOUT_MS), on a clock the test moves on.
    page.clock.install()
    page.goto(f"{base_url}{locale}/")
    wait_until_ready(page)
    page.fill("[name=micro_batch]", "8")
    expect(page.locator(".results")).to_have_attribute("aria-busy", "true")
    page.clock.fast_forward("00:31")
    message = (
        "The calculation stopped responding, so the live calculator has been switched off and cannot show results for "
        "the values you entered. Reload the page to try again."
    )
    expect_stopped_keeping_the_typing(page, "unanswered-edited", load_translations(localedir, locale).gettext(message))


def expect_stopped_keeping_the_typing(page, status: str, words: str) -> None:
    """The page has stopped; the 8 typed in micro_batch stays, with no results (the defaults' are not its results),
    and only ``status`` shows, in ``words``."""
    expect(page.locator("html")).to_have_attribute("data-calc", "error")
    expect(page.locator("[name=micro_batch]")).to_have_value("8")
    expect(page.locator("[name=micro_batch]")).to_be_disabled()
    expect(page.locator(f".status[data-status={status}]")).to_have_text(words)
    expect(page.locator("[data-role=outcome]")).to_be_hidden()
    for other in page.locator(".status[data-status]").all():
        if other.get_attribute("data-status") != status:
            expect(other).to_be_hidden()


def test_values_typed_before_python_is_ready_are_computed_when_it_is(context, base_url, locale=A_LOCALE):
    held = Held(context, "**/pyodide.asm.wasm")
    page = context.new_page()
    page.goto(f"{base_url}{locale}/")
    page.fill("[name=gpus]", "2")
    page.fill("[name=gpus]", "4")
    expect(page.locator(".status[data-status=busy]")).to_be_visible()
    held.release(page)
    expect(page.locator("html")).to_have_attribute("data-calc", "ready")
    expect(page.locator("output[name=effective_batch]")).to_have_text("256")
    expect(page.locator(".status[data-status=busy]")).to_be_hidden()
    expect(page.locator(".results")).not_to_have_attribute("aria-busy", "true")


def test_a_value_typed_before_python_is_ready_outlives_the_address_it_was_opened_at(
    context, base_url, localedir, locale=A_LOCALE
):
    """Opened from a link, the reader types while Python starts: the address's answer leaves the typing, and the
    results are those of both."""
    held = Held(context, "**/pyodide.asm.wasm")
    page = context.new_page()
    page.goto(f"{base_url}{locale}/?gpus=4")
    page.fill("[name=micro_batch]", "8")
    held.release(page)
    expect(page.locator("html")).to_have_attribute("data-calc", "ready")
    expect(page.locator(".results")).not_to_have_attribute("aria-busy", "true")
    expect(page.locator("[name=micro_batch]")).to_have_value("8")
    expect(page.locator("[name=gpus]")).to_have_value("4")
    texts = {**expected(locale).defaults, "micro_batch": "8", "gpus": "4"}
    view = evaluate(ACCUMULATION, texts, Locale.parse(locale), load_translations(localedir, locale))
    expect(page.locator("output[name=effective_batch]")).to_have_text(view.outputs["effective_batch"])  # 8 · 64 · 4


def test_a_policy_that_refuses_webassembly_is_reported_at_once(site, browser):
    """Pyodide's loader waits forever then; the worker reports the refusal instead."""
    with serving(site, sending({"Content-Security-Policy": CONTENT_SECURITY_POLICY})) as url:
        context = browser.new_context()
        page = context.new_page()
        open_failing(page, f"{url}es/", "refused wasm-eval")
        expect_defaults_with_notice(page, "es")
        context.close()


def test_a_wheel_that_does_not_match_the_lockfile_is_refused(context, base_url, locale=A_LOCALE):
    # Only Pyodide's own boot installs the wheels: the snapshot is missing here.
    context.route("**/pyodide/snapshot-*.bin", lambda route: route.fulfill(status=404))
    # An empty zip archive: without the check it would install, and Python would fail later for another reason.
    context.route("**/babel-*.whl", lambda route: route.fulfill(status=200, body=b"PK\x05\x06" + bytes(18)))
    page = context.new_page()
    open_failing(page, f"{base_url}{locale}/", ".whl: wrong sha256")
    expect_defaults_with_notice(page, locale)


def test_the_wheels_data_that_does_not_match_its_sha256_is_refused(context, base_url, locale=A_LOCALE):
    # An empty zip archive: without the check it would install, and Python would fail later for another reason.
    context.route("**/wheel-data-*.zip", lambda route: route.fulfill(status=200, body=b"PK\x05\x06" + bytes(18)))
    page = context.new_page()
    open_failing(page, f"{base_url}{locale}/", ".zip: wrong sha256")
    expect_defaults_with_notice(page, locale)
