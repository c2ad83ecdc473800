"""Screenshots of each locale's page for the README: `make screenshots`.

Builds nothing itself: run after `make site`. Each picture shows the page
with Python ready, at a laptop's width.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import expect, sync_playwright  # noqa: E402

from sitebuild.config import LOCALES  # noqa: E402
from tests.browser import launch  # noqa: E402
from tools.serve import serving  # noqa: E402


def main() -> None:
    with serving(ROOT / "site") as base, sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page(viewport={"width": 1000, "height": 1250})
        for locale in LOCALES:
            page.goto(f"{base}{locale}/")
            expect(page.locator("html")).to_have_attribute("data-calc", "ready", timeout=60_000)
            page.screenshot(path=ROOT / "docs" / f"screenshot-{locale}.png")
        browser.close()


if __name__ == "__main__":
    main()
