"""Failing the build on any internal link to a file that is not in the site."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

_LINK_ATTRIBUTES = {"href", "src", "data-catalog"}


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in _LINK_ATTRIBUTES and value:
                self.links.append(value)
            if name == "id" and value:
                self.ids.add(value)


def _parse(page: Path) -> _Collector:
    collector = _Collector()
    collector.feed(page.read_text(encoding="utf-8"))
    return collector


def dead_links(site: Path, base_url: str = "") -> list[str]:
    """Every internal link (with its page) whose target file or anchor is missing.

    Absolute links under ``base_url`` (the deployed address) are internal too.
    """
    problems = []
    parsed = {page: _parse(page) for page in site.rglob("*.html")}
    for page, collector in parsed.items():
        for link in collector.links:
            parts = urlsplit(link)
            if base_url and link.startswith(base_url):
                target = site / unquote(urlsplit(link[len(base_url) :]).path)
            elif parts.scheme or parts.netloc:
                continue  # not internal: the pages' own tests forbid foreign requests
            else:
                target = page.parent / unquote(parts.path) if parts.path else page
            target = target.resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file() or not target.is_relative_to(site.resolve()):
                problems.append(f"{page.relative_to(site)}: {link}")
            elif parts.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else _parse(target).ids
                if parts.fragment not in ids:
                    problems.append(f"{page.relative_to(site)}: {link} (no such anchor)")
    return problems
