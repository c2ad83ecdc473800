"""Fixtures shared by the unit, build and browser tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from build import build
from sitebuild.catalogs import compile_catalogs
from sitebuild.config import LOCALES, LOCALES_DIR, PAGES
from tests.expectations import expected

# Every expect() in the browser tests waits for its state up to this long
# (Playwright's default is 5 s): a loaded machine gets there later, not never.
# Longer than the page's own one-minute start limit (START_TIMEOUT_MS in
# web/app.js), so a slow start is judged by the page, not cut short by a test.
expect.set_options(timeout=90_000)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "site: needs the whole site built (once a session, about 10 s)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that needs the built site, so `make check` can leave them to `make test`."""
    for item in items:
        if "site" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.site)


@pytest.fixture(scope="session")
def localedir() -> Path:
    """The catalogs, compiled as the build compiles them."""
    compile_catalogs(LOCALES_DIR)
    return LOCALES_DIR


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The whole site, built once for the session into a temporary folder."""
    out = tmp_path_factory.mktemp("site")
    build(out)
    yield out


# Browser fixtures: a static server per test module, one Chromium per session,
# and a page per test that is already past loading.


@pytest.fixture(scope="module")
def base_url(site: Path) -> Iterator[str]:
    from tools.serve import serving

    with serving(site) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    from tests.browser import launch

    with sync_playwright() as playwright:
        browser = launch(playwright)
        yield browser
        browser.close()


@pytest.fixture
def context(browser):
    context = browser.new_context()
    yield context
    context.close()


def wait_until_ready(page) -> None:
    """Wait, as long as the default expect() timeout allows, for Python to be past loading; fail unless ready."""
    # A locator wait: on failure it says which state it last saw.
    html = page.locator("html")
    expect(html).not_to_have_attribute("data-calc", "loading")
    # Past loading, "error" is final: read the outcome now rather than wait for "ready" in vain.
    state = html.get_attribute("data-calc")
    assert state == "ready", f"Python did not start: data-calc={state!r}"


@pytest.fixture(scope="module")
def ready_pages(browser, base_url):
    """Calculator pages for a test module, each loaded once: ``ready_pages(locale, name)``."""
    context = browser.new_context()
    pages = {}

    def page_for(locale: str, name: str = "accumulation"):
        if (locale, name) not in pages:
            page = context.new_page()
            page.goto(f"{base_url}{locale}/{PAGES[name]}")
            wait_until_ready(page)
            pages[locale, name] = page
        return pages[locale, name]

    yield page_for
    context.close()


def start_over(ready_pages, locale: str, name: str = "accumulation"):
    """A calculator's page in ``locale``, Python ready, the form back at its defaults."""
    page = ready_pages(locale, name)
    # As a reader would start over: the defaults back in every field.
    page.evaluate(
        """() => {
            const form = document.querySelector("form[data-calculator]");
            form.reset();
            form.dispatchEvent(new Event("input"));
        }"""
    )
    expect(page.locator(".results")).not_to_have_attribute("aria-busy", "true")
    expect(page.locator("[aria-invalid]")).to_have_count(0)
    if name == "accumulation":
        expect(page.locator("output[name=effective_batch]")).to_have_text("32")
        expect(page.locator("output[name=activation_memory]")).to_have_text("2 GB")
    page.locale = locale
    page.expected = expected(locale)
    return page


@pytest.fixture(params=LOCALES)
def calculator(request, ready_pages):
    """The calculator page in each locale, Python ready, the form at its defaults."""
    return start_over(ready_pages, request.param)
