"""Fixtures shared by the unit, build and browser tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from build import build
from sitebuild.catalogs import compile_catalogs
from sitebuild.config import LOCALES, PAGES, ROOT
from tests.helpers import EXPECT_WITHIN_MS, start_over, wait_until_ready

# The colour scheme of a new browser context (Playwright emulates light unless told otherwise).
LOADED_WITH_SCHEME = "light"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "site: needs the whole site built (once a session)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that needs the built site, so `make check` can leave them to `make test`."""
    for item in items:
        if "site" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.site)


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


# Browser fixtures: one static server and one Chromium per session, and a
# page per test that is already past loading.


@pytest.fixture(scope="session")
def base_url(site: Path) -> Iterator[str]:
    from tools.serve import serving

    with serving(site) as url:
        yield url


# Playwright is imported only here and in tests.helpers.expect, when a browser test runs: the fast tier needs none.
@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import expect, sync_playwright

    from tests.browser import launch

    # Every expect() in the browser tests waits for its state up to this long
    # (Playwright's default is 5 s): a loaded machine gets there later, not never.
    # Shorter than the page's own one-minute start limit (START_TIMEOUT_MS in
    # web/app.js), so that a wait for a failure's reason never passes by the
    # page's time-out; only the wait for the start is longer (helpers.START_WITHIN_MS).
    expect.set_options(timeout=EXPECT_WITHIN_MS)
    with sync_playwright() as playwright:
        browser = launch(playwright)
        yield browser
        browser.close()


@pytest.fixture
def context(browser):
    context = browser.new_context()
    yield context
    # A route handler still in flight when the context closes (a service worker fetching the worker's script again)
    # would raise in whichever test runs next: the routes go first, their late errors ignored.
    context.unroute_all(behavior="ignoreErrors")
    context.close()


@pytest.fixture(scope="session")
def loaded_pages(browser, base_url):
    """Calculator pages for the whole session, by (locale, name): see ``ready_pages``.

    Each load starts Python, the slowest thing a browser test does: so each
    page is loaded once, when a test first asks for it, and again only if a
    test left its Python unavailable.
    """
    context = browser.new_context()
    pages = {}

    def page_for(locale: str, name: str):
        page = pages.get((locale, name))
        if page is None or page.locator("html").get_attribute("data-calc") != "ready":
            if page is not None:
                page.close()
            page = pages[locale, name] = context.new_page()
            page.goto(f"{base_url}{locale}/{PAGES[name]}")
            wait_until_ready(page)
        return page

    yield page_for
    context.close()


@pytest.fixture
def ready_pages(loaded_pages):
    """The session's loaded pages, ``ready_pages(locale, name)``, as the test found them.

    A test may resize a page or switch its colour scheme; after it, passed or
    failed, each page it used gets back the window and scheme it was loaded
    with, so one failure does not fail the next tests on the same page.
    """
    used = {}

    def page_for(locale: str, name: str = "accumulation"):
        page = loaded_pages(locale, name)
        used.setdefault(page, page.viewport_size)
        return page

    yield page_for
    for page, viewport in used.items():
        page.set_viewport_size(viewport)
        page.emulate_media(color_scheme=LOADED_WITH_SCHEME)


@pytest.fixture(params=LOCALES)
def calculator(request, ready_pages):
    """The calculator page in each locale, Python ready, the form at its defaults."""
    return start_over(ready_pages, request.param)
