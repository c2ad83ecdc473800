"""Fixtures shared by the unit, build and browser tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from build import build
from sitebuild.catalogs import compile_catalogs
from sitebuild.config import LOCALES, PAGES, ROOT
from tests.expectations import expected

# Every expect() in the browser tests waits for its state up to this long
# (Playwright's default is 5 s): a loaded machine gets there later, not never.
# Longer than the page's own one-minute start limit (START_TIMEOUT_MS in
# web/app.js), so a slow start is judged by the page, not cut short by a test.
expect.set_options(timeout=90_000)


@pytest.fixture(scope="session")
def localedir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The catalogs, compiled as the build compiles them, into a temporary folder."""
    return compile_catalogs(tmp_path_factory.mktemp("locales"))


# Not the source tree's: the running Pythons' caches and the installed environments.
_NOT_SOURCE = {".git", "node_modules", ".venv", ".venv-validate", "__pycache__", ".pytest_cache"}


def source_files() -> dict[str, tuple[int, int]]:
    """Every file of the source tree, git-ignored ones included, with its modification time and size."""
    files = {}
    for folder, subfolders, names in os.walk(ROOT):
        subfolders[:] = [name for name in subfolders if name not in _NOT_SOURCE]
        for name in names:
            path = os.path.join(folder, name)
            stat = os.lstat(path)
            files[os.path.relpath(path, ROOT)] = (stat.st_mtime_ns, stat.st_size)
    return files


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The whole site, built once for the session into a temporary folder, and the source files the build wrote."""
    before = source_files()
    out = tmp_path_factory.mktemp("site")
    build(out)
    after = source_files()
    return out, sorted(path for path in before.keys() | after.keys() if before.get(path) != after.get(path))


@pytest.fixture(scope="session")
def site(built: tuple[Path, list[str]]) -> Path:
    return built[0]


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
