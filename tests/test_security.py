"""The pages' Content-Security-Policy holds, and typed text never becomes markup."""

from __future__ import annotations

import pytest

from sitebuild.config import CONTENT_SECURITY_POLICY, LOCALES, RECOMMENDED_HEADERS, ROOT
from tests.expectations import expected
from tests.helpers import A_LOCALE, expect, read, start_over, wait_until_ready
from tools.serve import sending, serving

pytestmark = pytest.mark.browser

# Installed before any of the page's own scripts run.
RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__violations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""


def test_every_page_declares_the_policy(site):
    for page in site.rglob("*.html"):
        metas = read(site, page.relative_to(site)).find("meta", **{"http-equiv": "Content-Security-Policy"})
        assert [m["content"] for m in metas] == [CONTENT_SECURITY_POLICY], page
    assert "unsafe-inline" not in CONTENT_SECURITY_POLICY and "unsafe-eval" not in CONTENT_SECURITY_POLICY


def test_no_page_has_inline_script_or_style(site):
    for page in site.rglob("*.html"):
        parsed = read(site, page.relative_to(site))
        for tag, attrs in parsed.tags:
            assert "style" not in attrs, (page, tag)
            assert not any(name.startswith("on") for name in attrs), (page, tag)
            if tag == "script":
                # Only external scripts, and data, which never runs: JSON-LD, and the view a page is drawn with.
                assert attrs.get("src") or attrs.get("type") in ("application/ld+json", "application/json"), page
        assert not parsed.find("style")


def test_a_whole_session_violates_nothing(browser, base_url, locale=A_LOCALE):
    context = browser.new_context()
    context.add_init_script(RECORD_VIOLATIONS)
    page = context.new_page()
    page.goto(base_url)  # the root page, which sends the visitor on
    page.goto(f"{base_url}{locale}/")
    wait_until_ready(page)
    page.fill("[name=micro_batch]", "0.5")
    page.fill("[name=micro_batch]", "8")
    # Python's answer, not the page as served: the edit's result differs from the default one.
    edited = expected(locale).figures(micro_batch="8")[0]
    assert edited != expected(locale).figures()[0]
    expect(page.locator("output[name=effective_batch]")).to_have_text(edited)
    page.reload()
    wait_until_ready(page)
    assert page.evaluate("window.__violations") == []
    context.close()


def test_the_policy_is_enforced(browser, base_url):
    """So that the test above could fail: an inline script is refused and reported."""
    context = browser.new_context()
    context.add_init_script(RECORD_VIOLATIONS)
    page = context.new_page()
    page.goto(f"{base_url}{LOCALES[0]}/")
    page.evaluate(
        "document.body.append(Object.assign(document.createElement('script'), {textContent: 'window.ran = true'}))"
    )
    # Until the refusal is reported (a script that was let run would have run already).
    page.wait_for_function("() => window.__violations.length > 0", timeout=90_000)
    assert page.evaluate("window.ran") is None
    assert page.evaluate("window.__violations") != []
    context.close()


def test_typed_markup_stays_text(ready_pages):
    calculator = start_over(ready_pages, A_LOCALE)
    calculator.fill("[name=micro_batch]", '<img src=x onerror="window.owned=1">')
    expect(calculator.locator("#micro_batch-error")).to_be_visible()
    assert calculator.locator("img").count() == 0
    assert calculator.evaluate("window.owned") is None


def test_the_headers_the_deploying_guide_recommends_keep_everything_working(site, browser):
    guide = (ROOT / "docs" / "deploying.md").read_text(encoding="utf-8")
    for name, value in RECOMMENDED_HEADERS.items():
        assert f"{name}: {value}" in guide

    with serving(site, sending(RECOMMENDED_HEADERS)) as url:
        context = browser.new_context()
        context.add_init_script(RECORD_VIOLATIONS)
        page = context.new_page()
        page.goto(f"{url}{LOCALES[0]}/")
        wait_until_ready(page)
        page.fill("[name=gpus]", "4")
        # Python's answer under these headers, not the page as served: the edit's result differs from the default one.
        edited = expected(LOCALES[0]).figures(gpus="4")[0]
        assert edited != expected(LOCALES[0]).figures()[0]
        expect(page.locator("output[name=effective_batch]")).to_have_text(edited)
        assert page.evaluate("window.__violations") == []
        context.close()
