"""Which Chromium the browser tests and the benchmark launch, and how."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pytest's doctest pass imports this module in the fast tier too, which needs no Playwright
    from playwright.sync_api import Browser, BrowserContext, Playwright

SYSTEM_CHROMIUM = "/usr/bin/chromium"

# Keep Chromium from reaching out on its own: this machine's network is
# closed, and a test must see only the requests the page makes.
_QUIET = [
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def playwright_chromium() -> str | None:
    """Playwright's own Chromium, if it has been downloaded."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        path = playwright.chromium.executable_path
    return path if Path(path).exists() else None


def _options(playwright: Playwright) -> dict[str, object]:
    args = list(_QUIET)
    if os.geteuid() == 0:
        args.append("--no-sandbox")  # Chromium refuses its sandbox as root
    if Path(playwright.chromium.executable_path).exists():
        return {"args": args}
    return {"args": args, "executable_path": SYSTEM_CHROMIUM}


def launch(playwright: Playwright) -> Browser:
    """Playwright's Chromium where it exists, Debian's otherwise."""
    return playwright.chromium.launch(**_options(playwright))


def launch_profile(playwright: Playwright, profile: Path) -> BrowserContext:
    """A browser with a profile on disk, whose HTTP cache behaves as a visitor's does."""
    return playwright.chromium.launch_persistent_context(profile, **_options(playwright))
