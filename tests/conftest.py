"""Fixtures shared by the unit, build and browser tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from build import build
from sitebuild.catalogs import compile_catalogs
from sitebuild.config import LOCALES_DIR

LOCALES = [pytest.param("es", id="es"), pytest.param("it", id="it")]


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
    # Locator waits, not wait_for_function: the pages' CSP forbids the eval it uses.
    from playwright.sync_api import expect

    expect(page.locator("html")).not_to_have_attribute("data-calc", "loading", timeout=60_000)
    expect(page.locator("html")).to_have_attribute("data-calc", "ready")


@pytest.fixture(scope="module")
def ready_pages(browser, base_url):
    """One calculator page per locale for a test module, loaded once."""
    context = browser.new_context()
    pages = {}

    def page_for(locale: str):
        if locale not in pages:
            page = context.new_page()
            page.goto(f"{base_url}{locale}/")
            wait_until_ready(page)
            pages[locale] = page
        return pages[locale]

    yield page_for
    context.close()


@pytest.fixture(params=LOCALES)
def calculator(request, ready_pages):
    """The calculator page in one locale, Python ready, the form at its defaults."""
    page = ready_pages(request.param)
    # As a reader would start over: the defaults back in every field.
    page.evaluate(
        """() => {
            const form = document.querySelector("form[data-calculator]");
            form.reset();
            form.dispatchEvent(new Event("input"));
        }"""
    )
    from playwright.sync_api import expect

    expect(page.locator("output[name=effective_batch]")).to_have_text("32")
    expect(page.locator("output[name=activation_memory]")).to_have_text("2 GB")
    expect(page.locator("[aria-invalid]")).to_have_count(0)
    page.locale = request.param
    return page
