"""Repeat visits come from the service worker's cache: offline too, and one build at a time."""

from __future__ import annotations

import shutil
import time

import pytest

from sitebuild.config import LOCALES
from sitebuild.offline import write_service_worker
from tests.helpers import A_LOCALE, expect, visit
from tools.serve import serving

pytestmark = pytest.mark.browser

ACTIVE_CACHE = """async () => {
    const registration = await navigator.serviceWorker.ready;
    while (registration.active.state !== "activated") await new Promise((r) => setTimeout(r, 20));
    return (await caches.keys()).filter((name) => name.startsWith("calc-"));
}"""


def wait_for_caches(context, names: list[str]) -> None:
    """Until the site's caches are ``names``, as the running service workers see them."""
    blank = context.new_page()  # of no origin: it paces the polling, and Playwright's events run meanwhile
    deadline = time.monotonic() + 90
    while not any(caches_of(worker) == names for worker in context.service_workers):
        assert time.monotonic() < deadline, f"the caches did not become {names}"
        blank.wait_for_timeout(50)
    blank.close()


def caches_of(worker) -> list[str] | None:
    from playwright.sync_api import Error

    try:
        return worker.evaluate("caches.keys().then((names) => names.filter((name) => name.startsWith('calc-')))")
    except Error:
        return None  # a service worker that stopped meanwhile


def test_a_repeat_visit_works_with_the_network_off(browser, base_url, locale=A_LOCALE):
    context = browser.new_context()
    visit(context, f"{base_url}{locale}/").evaluate(ACTIVE_CACHE)
    context.set_offline(True)
    page = visit(context, f"{base_url}{locale}/")
    page.fill("[name=accumulation_steps]", "16")
    expect(page.locator("output[name=effective_batch]")).to_have_text("16")
    context.close()


def test_a_new_build_replaces_the_cache_whole(browser, site, tmp_path):
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    with serving(copy) as url:
        context = browser.new_context()
        first = visit(context, f"{url}{LOCALES[0]}/")
        (old,) = first.evaluate(ACTIVE_CACHE)
        first.close()

        # A new build: one page changes, and with it the version.
        page = copy / LOCALES[0] / "index.html"
        page.write_text(page.read_text(encoding="utf-8").replace("<h1>", '<h1 data-build="2">'), encoding="utf-8")
        new = f"calc-{write_service_worker(copy)}"
        assert new != old

        # The open page keeps the old build; the new one waits for it to close.
        second = visit(context, f"{url}{LOCALES[0]}/")
        expect(second.locator("h1")).not_to_have_attribute("data-build", "2")
        second.evaluate("navigator.serviceWorker.ready.then((r) => r.update())")
        # Installed (its cache filled), it waits for the old build's pages to close.
        second.wait_for_function("navigator.serviceWorker.ready.then((r) => r.waiting !== null)")
        second.close()
        # Then it takes over and drops the old cache. Asked of the service
        # workers themselves: a page opened before that would be the old
        # build's again, and keep the new one waiting.
        wait_for_caches(context, [new])

        third = visit(context, f"{url}{LOCALES[0]}/")
        expect(third.locator("h1")).to_have_attribute("data-build", "2")
        assert third.evaluate(ACTIVE_CACHE) == [new]
        context.close()
