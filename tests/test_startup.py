"""Python's start in the page: what a reader sees when it fails, hangs or is slow."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from sitebuild.config import CONTENT_SECURITY_POLICY
from tests.conftest import LOCALES
from tests.expectations import expected
from tests.holding import Held
from tools.serve import sending, serving

pytestmark = pytest.mark.browser


def expect_defaults_with_notice(page, locale):
    expect(page.locator("html")).to_have_attribute("data-calc", "error")
    expect(page.locator(".status[data-status=error]")).to_be_visible()
    expect(page.locator(".status[data-status=error]")).to_contain_text(expected(locale).failed)
    expect(page.locator(".status[data-status=loading]")).to_be_hidden()
    expect(page.locator("output[name=effective_batch]")).to_have_text("32")
    expect(page.locator("output[name=activation_memory]")).to_have_text("2 GB")
    expect(page.locator("[name=micro_batch]")).to_have_value("4")
    expect(page.locator("[name=micro_batch]")).to_be_disabled()


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize(
    "missing", ["**/pyodide.asm.mjs", "**/calc-worker.js", "**/calc-*.whl", "**/messages.mo", "**/pyodide-lock.json"]
)
def test_a_missing_file_is_reported_and_the_defaults_stay(context, base_url, locale, missing):
    context.route(missing, lambda route: route.fulfill(status=404, body="not here"))
    page = context.new_page()
    page.goto(f"{base_url}{locale}/")
    expect_defaults_with_notice(page, locale)


@pytest.mark.parametrize("locale", LOCALES)
def test_a_loader_that_never_answers_times_out(context, base_url, locale):
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
    expect_defaults_with_notice(page, locale)
    expect(page.locator(".status[data-status=busy]")).to_be_hidden()


@pytest.mark.parametrize("locale", LOCALES)
def test_values_typed_before_python_is_ready_are_computed_when_it_is(context, base_url, locale):
    held = Held(context, "**/pyodide.asm.wasm")
    page = context.new_page()
    page.goto(f"{base_url}{locale}/")
    page.fill("[name=gpus]", "2")
    page.fill("[name=gpus]", "4")
    expect(page.locator(".status[data-status=busy]")).to_be_visible()
    held.release(page)
    expect(page.locator("html")).to_have_attribute("data-calc", "ready")
    expect(page.locator("output[name=effective_batch]")).to_have_text("128")
    expect(page.locator(".status[data-status=busy]")).to_be_hidden()
    expect(page.locator(".results")).not_to_have_attribute("aria-busy", "true")


def test_a_policy_that_refuses_webassembly_is_reported_at_once(site, browser):
    """Pyodide's loader waits forever then; the worker reports the refusal instead."""
    with serving(site, sending({"Content-Security-Policy": CONTENT_SECURITY_POLICY})) as url:
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"{url}es/")
        # Well before the page's one-minute time-out: only the worker's report can do this.
        expect_defaults_with_notice(page, "es")
        context.close()


@pytest.mark.parametrize("locale", LOCALES)
def test_a_wheel_that_does_not_match_the_lockfile_is_refused(context, base_url, locale):
    context.route("**/babel-*.whl", lambda route: route.fulfill(status=200, body=b"PK\x05\x06" + bytes(18)))
    page = context.new_page()
    page.goto(f"{base_url}{locale}/")
    expect_defaults_with_notice(page, locale)
