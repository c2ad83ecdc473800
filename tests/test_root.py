"""The site's root sends each visitor to their language, or lets them choose."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(("preference", "landing"), [("it-IT", "it"), ("es-MX", "es"), ("es", "es"), ("it-CH", "it")])
def test_a_visitor_lands_on_their_language(browser, base_url, preference, landing):
    context = browser.new_context(locale=preference)
    page = context.new_page()
    page.goto(base_url)
    expect(page).to_have_url(f"{base_url}{landing}/")
    expect(page.locator("html")).to_have_attribute("lang", landing)
    context.close()


def test_other_languages_choose_from_the_links(browser, base_url):
    context = browser.new_context(locale="de-DE")
    page = context.new_page()
    page.goto(base_url)
    expect(page).to_have_url(base_url)
    page.get_by_role("link", name="Italiano").click()
    expect(page).to_have_url(f"{base_url}it/")
    context.close()


def test_without_script_the_links_and_the_default_results_are_there(browser, base_url):
    context = browser.new_context(locale="it-IT", java_script_enabled=False)
    page = context.new_page()
    page.goto(base_url)
    expect(page).to_have_url(base_url)
    expect(page.get_by_role("link", name="Español")).to_be_visible()
    page.get_by_role("link", name="Español").click()
    expect(page).to_have_url(re.compile(r"/es/$"))
    expect(page.locator("output[name=effective_batch]")).to_have_text("32")
    expect(page.locator("output[name=activation_memory]")).to_have_text("2 GB")
    context.close()


def test_the_language_switcher_keeps_the_reader_on_the_calculator(browser, base_url):
    context = browser.new_context(locale="es-ES")
    page = context.new_page()
    page.goto(f"{base_url}es/")
    page.get_by_role("navigation").get_by_role("link", name="Italiano").click()
    expect(page).to_have_url(f"{base_url}it/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Calcolatore della memoria con accumulo del gradiente")
    context.close()
