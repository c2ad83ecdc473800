"""Requests a browser test holds back, to see the page while it waits for them."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from tests.helpers import EXPECT_WITHIN_MS

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page, Route

# How long a test waits for the page to make a request it holds (as long as expect() waits).
REQUEST_WITHIN_S = EXPECT_WITHIN_MS // 1000


class Held:
    """Every request of `context` to `pattern`, held until `release()`, then let through.

    The worker may ask for one file more than once (it fetches the
    WebAssembly for Pyodide and to undo the snapshot's XOR, and again if it
    falls back to booting), so all of them are held and all released.
    """

    def __init__(self, context: BrowserContext, pattern: str) -> None:
        self._routes: list[Route] = []
        self._released = False
        context.route(pattern, self._arrived)

    def _arrived(self, route: Route) -> None:
        if self._released:
            route.continue_()
        else:
            self._routes.append(route)

    def wait(self, page: Page) -> None:
        """Return once a request is held; fail if none came in time.

        Route handlers run only while Playwright waits, so this waits in
        short steps, each letting them run.
        """
        deadline = time.monotonic() + REQUEST_WITHIN_S
        while not self._routes:
            assert time.monotonic() < deadline, f"no request was held within {REQUEST_WITHIN_S} s"
            page.wait_for_timeout(50)

    def release(self, page: Page) -> None:
        """Let through what is held, once something is, and whatever comes later."""
        self.wait(page)
        self._released = True
        for route in self._routes:
            route.continue_()
