"""Screenshots of each locale's page for the README: `make screenshots`.

Builds nothing itself: run after `make site`. Each picture shows the page
with Python ready, at a laptop's width; the README's table of them is
rewritten from the locale list.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sitebuild.config import LOCALES  # noqa: E402
from sitebuild.pages import autonym  # noqa: E402
from tools.serve import serving  # noqa: E402

README = ROOT / "README.md"
TABLE = re.compile(r"(<!-- screenshots -->\n).*?(<!-- /screenshots -->)", re.S)


def picture(code: str) -> Path:
    """Where the picture of ``code``'s page is kept."""
    return ROOT / "docs" / f"screenshot-{code}.png"


def screenshot_table(codes: Sequence[str] = LOCALES) -> str:
    """The README's table: one column per locale of ``codes``, each with its page's picture."""
    names = [autonym(code) for code in codes]
    pictures = [f"![The {code} page]({picture(code).relative_to(ROOT).as_posix()})" for code in codes]
    return "\n".join(f"| {' | '.join(row)} |" for row in (names, ["---"] * len(codes), pictures)) + "\n"


def main() -> None:
    # Imported here: tests/test_readme.py reads the table above in the fast tier, which needs no Playwright.
    from playwright.sync_api import expect, sync_playwright

    from tests.browser import launch

    with serving(ROOT / "site") as base, sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        for locale in LOCALES:
            page.goto(f"{base}{locale}/")
            expect(page.locator("html")).to_have_attribute("data-calc", "ready", timeout=120_000)
            page.screenshot(path=picture(locale))
        browser.close()
    readme = README.read_text(encoding="utf-8")
    README.write_text(TABLE.sub(lambda m: m[1] + screenshot_table() + m[2], readme), encoding="utf-8")


if __name__ == "__main__":
    main()
