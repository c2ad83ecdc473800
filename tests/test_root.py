"""The site's root sends each visitor to their language, or to English, and without script lets them choose."""

from __future__ import annotations

import re

import pytest

from sitebuild.config import LOCALES
from tests.expectations import expected
from tests.helpers import A_LOCALE, UNLISTED_LANGUAGE, expect

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(
    ("preference", "landing"),
    [("it-IT", "it"), ("es-MX", "es"), ("es", "es"), ("it-CH", "it"), ("en-GB", "en"), (UNLISTED_LANGUAGE, LOCALES[0])],
)
def test_a_visitor_lands_on_their_language_or_the_first_one(browser, base_url, preference, landing):
    context = browser.new_context(locale=preference)
    page = context.new_page()
    page.goto(base_url)
    expect(page).to_have_url(f"{base_url}{landing}/")
    expect(page.locator("html")).to_have_attribute("lang", landing)
    context.close()


def test_the_first_locale_is_english():
    assert LOCALES[0] == "en"


@pytest.mark.parametrize("locale", LOCALES)
def test_without_script_the_links_and_the_default_results_are_there(browser, base_url, locale):
    context = browser.new_context(locale=UNLISTED_LANGUAGE, java_script_enabled=False)
    page = context.new_page()
    page.goto(base_url)
    expect(page).to_have_url(base_url)
    page.locator(f".choices a[hreflang={locale}]").click()
    expect(page).to_have_url(re.compile(f"/{locale}/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(expected(locale).title)
    effective, memory = expected(locale).figures()
    expect(page.locator("output[name=effective_batch]")).to_have_text(effective)
    expect(page.locator("output[name=activation_memory]")).to_have_text(memory)
    context.close()


def test_the_language_switcher_keeps_the_reader_on_the_calculator(browser, base_url, locale=A_LOCALE):
    other = next(code for code in LOCALES if code != locale)
    context = browser.new_context(locale=locale)
    page = context.new_page()
    page.goto(f"{base_url}{locale}/")
    page.get_by_role("navigation").locator(f"a[hreflang={other}]").click()
    expect(page).to_have_url(f"{base_url}{other}/")
    expect(page.get_by_role("heading", level=1)).to_have_text(expected(other).title)
    context.close()
