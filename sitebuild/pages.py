"""Rendering each locale's pages from the Jinja2 templates and calc's results.

``base_url`` is where the site is deployed, ending in "/" (say
https://calc.example/), or "" when it is not known: the canonical and
alternate links and the social tags need absolute URLs, so without it the
pages leave them out.
"""

from __future__ import annotations

from functools import cached_property
from gettext import GNUTranslations, NullTranslations
from pathlib import Path

from babel import Locale
from babel.core import get_global
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from jinja2.environment import TemplateModule
from markupsafe import Markup

from calc.calculator import Calculator
from calc.calculators import load
from calc.evaluation import default_texts, evaluate
from calc.formatting import format_number, unit_symbol
from calc.inputs import Amount, Count, Value
from calc.outputs import Citation, Fact, Names, Quantity, typed
from sitebuild import BuildError
from sitebuild.config import ASSETS, CATALOG, CONTENT_SECURITY_POLICY, LOCALES, PAGES
from sitebuild.validation import validation_facts


def environment(templates: Path, translations: GNUTranslations) -> Environment:
    env = Environment(
        loader=FileSystemLoader(templates),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
    )
    # One msgid a paragraph, whatever the template's line breaks.
    env.policies["ext.i18n.trimmed"] = True
    env.install_gettext_translations(translations, newstyle=True)
    env.filters["external_links"] = external_links
    env.filters["plain_text"] = plain_text
    return env


def plain_text(html: str) -> str:
    r"""A text for structured data: its markup left out and its line breaks one space, as Jinja's ``striptags``
    does, but its no-break spaces kept (``striptags`` splits at every space, U+00A0 and U+202F among them), so that
    a number stays on its unit's line in a search result as on the page.

    >>> plain_text("Its default,\n  <code>1.00\u00a0GB</code>, covers   the context.")
    'Its default, 1.00\xa0GB, covers the context.'
    """
    kept = str(html).replace("\u00a0", "&#160;").replace("\u202f", "&#8239;")
    return str(Markup(kept).striptags())


def external_links(sources: list[dict[str, str]]) -> Markup:
    """Links to sources off the site (each ``href`` and ``text``), joined by semicolons: a source's own text holds
    commas ("Wu & He, arXiv:1803.08494"), which a list joined by commas would split in the wrong places (technical
    review, round 88).

    >>> print(external_links([{"href": "https://a.example/", "text": "A & B, 1"}, {"href": "/c", "text": "C"}]))
    <a href="https://a.example/" rel="external">A &amp; B, 1</a>; <a href="/c" rel="external">C</a>
    """
    links = [Markup('<a href="{}" rel="external">{}</a>').format(source["href"], source["text"]) for source in sources]
    return Markup("; ").join(links)


def autonym(locale: str) -> str:
    """A language's name in itself, as a language switcher lists it.

    >>> autonym("it")
    'Italiano'
    """
    name = Locale.parse(locale).get_display_name(locale)
    return name[:1].upper() + name[1:]


def math_symbol(symbol: str) -> Markup:
    """A formula's symbol set inline in prose, as MathML: ``k_w`` is k with a subscript w. A subscript of several
    letters is a word (``n_kv``), upright, not a product of italic variables.

    >>> print(math_symbol("k_w"), math_symbol("g"))
    <math><msub><mi>k</mi><mi>w</mi></msub></math> <math><mi>g</mi></math>
    >>> print(math_symbol("n_kv"))
    <math><msub><mi>n</mi><mtext>kv</mtext></msub></math>
    """
    base, _, subscript = symbol.partition("_")
    if subscript:
        kind = "mi" if len(subscript) == 1 else "mtext"
        return Markup("<math><msub><mi>{}</mi><{}>{}</{}></msub></math>").format(base, kind, subscript, kind)
    return Markup("<math><mi>{}</mi></math>").format(symbol)


def worked_example(
    calculator: Calculator, overrides: dict[str, Value], locale: Locale, translations: NullTranslations
) -> dict[str, dict[str, str]]:
    """An example's inputs and results, formatted for prose and formulas: computed as the page computes them when a
    reader types the example's values into its fields (read, checked, settled), so that the prose quotes only what a
    reader can reproduce.

    ``inputs`` and ``numbers`` are bare numbers (for formulas); ``quantities``
    and ``outputs`` carry their unit, kept on one line (for prose).
    """
    fields = {i.name: i for i in calculator.inputs}
    entered = {name: fields[name].text(value, locale) for name, value in overrides.items()}
    texts = {**default_texts(calculator, locale), **entered}
    view = evaluate(calculator, texts, locale, translations, changed=frozenset(overrides))
    if view.results is None:
        problems = "; ".join(f"{name}: {error}" for name, error in view.errors.items() if error)
        raise PageWithoutResults(problems or view.prompt)
    values, results = view.values, view.results
    numbers = {name: i for name, i in fields.items() if isinstance(i, Count | Amount) and values[name] is not None}
    shown = {name: q for name, q in results.items() if isinstance(q, Quantity)}
    return {
        "inputs": {name: i.text(values[name], locale) for name, i in numbers.items()},
        "quantities": {name: typed(values[name], i.unit).text(locale, breakable=False) for name, i in numbers.items()},
        "numbers": {name: format_number(q.shown(), locale) for name, q in shown.items()},
        "outputs": {name: q.text(locale, breakable=False) for name, q in shown.items()},
    }


class PageWithoutResults(BuildError):
    """A page whose default values, or one of its worked examples, give no results: the build stops."""


def page_url(path: str, base_url: str) -> str | None:
    """A page's address under ``base_url``; ``None`` when the site's address is unknown.

    Canonical and alternate links must be absolute: search engines ignore
    relative ones, so without the address the pages leave them out.

    >>> page_url("es/lora/", "https://calc.example/"), page_url("es/lora/", "")
    ('https://calc.example/es/lora/', None)
    """
    return f"{base_url}{path}" if base_url else None


def open_graph_locale(locale: str) -> str:
    """``es`` -> ``es_ES``: the form Open Graph asks for.

    >>> open_graph_locale("it")
    'it_IT'
    """
    language, _, territory = get_global("likely_subtags")[locale].split("_")
    return f"{language}_{territory}"


def page_links(locale: str, path: str, base_url: str) -> dict[str, object]:
    """What every page's head and language switcher need; ``path`` is the page's own inside its locale."""
    up = "../" * (1 + path.count("/"))
    return {
        "lang": locale,
        "csp": CONTENT_SECURITY_POLICY,
        "assets": f"{up}{ASSETS}/",
        "canonical": page_url(f"{locale}/{path}", base_url),
        "og_locale": open_graph_locale(locale),
        "og_alternates": [open_graph_locale(code) for code in LOCALES if code != locale],
        # The same page in each language.
        "alternates": [
            {
                "lang": code,
                "name": autonym(code),
                "href": f"{up}{code}/{path}",
                "url": page_url(f"{code}/{path}", base_url),
            }
            for code in LOCALES
        ],
        # The root page, which sends each visitor to their language.
        "default_url": page_url("", base_url),
    }


def relative(path: str, target: str) -> str:
    """The link from the page at ``path`` to the page at ``target``, both inside one locale.

    >>> relative("vram/", ""), relative("", "lora/"), relative("vram/", "lora/")
    ('../', 'lora/', '../lora/')
    """
    return "../" * path.count("/") + target or "./"


def _fact(fact: Fact, locale: Locale) -> str | Markup | list[dict[str, str]]:
    """A fact as prose quotes it: a quantity or a list of names for the locale, a citation as its link, several as a
    question's sources (what ``external_links`` takes), text and message ids as they are."""
    if isinstance(fact, tuple):
        return [{"href": citation.href, "text": citation.text} for citation in fact]
    if isinstance(fact, Names):
        return fact.text(locale)
    if isinstance(fact, Quantity):
        return fact.text(locale, breakable=False)
    if isinstance(fact, Citation):
        return Markup('<a href="{}" rel="external">{}</a>').format(fact.href, fact.text)
    return fact


class Prose:
    """One locale's words for every calculator, each computed once a build: what its prose quotes (worked examples,
    facts, ``validation/``) and the module its template makes (title, description, links, FAQ…). Every page quotes
    the other pages' titles and descriptions too: each is asked for by every page of the locale, and made once."""

    def __init__(self, env: Environment, locale: str, translations: NullTranslations) -> None:
        self.env, self.code, self.locale, self.translations = env, locale, Locale.parse(locale), translations
        self._contexts: dict[str, dict[str, object]] = {}
        self._modules: dict[str, TemplateModule] = {}

    @cached_property
    def validation(self) -> dict[str, object]:
        return validation_facts(self.locale, self.translations)

    def context(self, name: str) -> dict[str, object]:
        """What calculator ``name``'s prose quotes: its worked examples and facts, formatted for the locale."""
        if name not in self._contexts:
            self._contexts[name] = self._quoted(name)
        return self._contexts[name]

    def words(self, name: str) -> TemplateModule:
        """The module calculator ``name``'s template makes."""
        if name not in self._modules:
            self._modules[name] = self.env.get_template(f"{name}.html").make_module(self.context(name))
        return self._modules[name]

    def _quoted(self, name: str) -> dict[str, object]:
        calculator, locale, translations = load(name), self.locale, self.translations
        examples = {}
        for key, over in calculator.examples.items():
            try:
                examples[key] = worked_example(calculator, dict(over), locale, translations)
            except (PageWithoutResults, LookupError) as failed:  # LookupError: a problem that names no field
                where = f"the {name} page in {str(locale)!r}: its example {key!r} gives no results"
                raise PageWithoutResults(f"{where}: {failed}") from failed
        return {
            "examples": examples,
            "facts": {key: _fact(fact, locale) for key, fact in calculator.facts().items()},
            "validation": self.validation,
            "math": math_symbol,
            # For the prose's links to other pages: this page's name, and each page's address from here.
            "this_page": name,
            "page_hrefs": {other: relative(PAGES[name], other_path) for other, other_path in PAGES.items()},
        }


def render_calculator(prose: Prose, name: str, base_url: str = "") -> str:
    """A calculator's page in ``prose``'s locale, its results pre-rendered for the default values.

    Raises :class:`PageWithoutResults` when the defaults give an error or a prompt
    instead of results: a page must open on results.
    """
    calculator = load(name)
    path = PAGES[name]
    locale, parsed, translations = prose.code, prose.locale, prose.translations
    texts = default_texts(calculator, parsed)
    view = evaluate(calculator, texts, parsed, translations)
    if view.prompt is not None:
        problems = "; ".join(f"{field}: {error}" for field, error in view.errors.items() if error)
        raise PageWithoutResults(f"the {name} page in {locale!r} opens on no results: {problems or view.prompt}")
    # Links that carry this page's values to another: their address follows the results, and one that carries
    # nothing is not offered, as in the browser.
    links = [
        {
            **link,
            "path": relative(path, PAGES[link["page"]]),
            "href": relative(path, PAGES[link["page"]])
            + (f"?{carried}" if (carried := view.links.get(link["page"])) else ""),
            "carried": bool(carried),
        }
        for link in prose.words(name).links
    ]
    related = [
        {"href": relative(path, PAGES[other]), "title": words.title, "description": words.description}
        for other, words in ((other, prose.words(other)) for other in PAGES if other != name)
    ]
    return prose.env.get_template("calculator.html").render(
        **page_links(locale, path, base_url),
        prose_template=f"{name}.html",
        calculator=calculator,
        catalog="../" * path.count("/") + CATALOG,
        hints={i.name: i.hint(parsed, translations) for i in calculator.inputs},
        units={i.name: unit_symbol(i.unit, parsed) for i in calculator.inputs if i.unit},
        headings={o.name: o.headings(parsed, translations) for o in calculator.outputs},
        texts=texts,
        view=view,
        links=links,
        related=related,
        **prose.context(name),
    )


def render_chooser(proses: dict[str, Prose], base_url: str = "") -> str:
    """The site's root: a link to each locale, and a script that picks one.

    Each locale's title and description come from its own catalog, so
    each reads in its own language.
    """
    # The root is no locale's page: its own address, and assets beside it.
    links = {**page_links(LOCALES[0], "", base_url), "canonical": page_url("", base_url), "assets": f"{ASSETS}/"}
    home = next(name for name, path in PAGES.items() if path == "")
    entries = []
    for alternate in links["alternates"]:
        words = proses[alternate["lang"]].words(home)
        entries.append(
            {**alternate, "href": f"{alternate['lang']}/", "title": words.title, "description": words.description}
        )
    return proses[LOCALES[0]].env.get_template("chooser.html").render(entries=entries, **links)
