"""Rendering each locale's pages from the Jinja2 templates and calc's results."""

from __future__ import annotations

from decimal import Decimal
from gettext import GNUTranslations
from pathlib import Path

from babel import Locale
from babel.core import get_global
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from calc.calculators import CALCULATORS
from calc.evaluation import Calculator, default_texts, evaluate
from calc.formatting import format_number, format_quantity, unit_symbol
from sitebuild.config import ASSETS, BASE_URL, CATALOG, CONTENT_SECURITY_POLICY, LOCALES, PAGES


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
    return env


def autonym(locale: str) -> str:
    """A language's name in itself, as a language switcher lists it.

    >>> autonym("it")
    'Italiano'
    """
    name = Locale.parse(locale).get_display_name(locale)
    return name[:1].upper() + name[1:]


def math_symbol(symbol: str) -> Markup:
    """A formula's symbol set inline in prose, as MathML."""
    return Markup("<math><mi>{}</mi></math>").format(symbol)


def unbroken(text: str) -> Markup:
    """A number with its unit, kept on one line wherever prose wraps."""
    return Markup('<span class="nowrap">{}</span>').format(text)


def worked_example(calculator: Calculator, overrides: dict[str, Decimal], locale: Locale) -> dict[str, dict[str, str]]:
    """An example's inputs and results, formatted for prose and formulas."""
    values = {f.name: overrides.get(f.name, f.default) for f in calculator.fields}
    units = {f.name: f.unit for f in calculator.fields}
    results = calculator.results(values)
    return {
        "inputs": {name: format_number(value, locale) for name, value in values.items()},
        "quantities": {name: unbroken(format_quantity(value, units[name], locale)) for name, value in values.items()},
        "numbers": {name: format_number(q.value, locale) for name, q in results.items()},
        "outputs": {name: unbroken(format_quantity(q.value, q.unit, locale)) for name, q in results.items()},
    }


def page_url(path: str, up: str) -> str:
    """A page's address: absolute under ``BASE_URL`` if set, else relative."""
    return f"{BASE_URL}{path}" if BASE_URL else f"{up}{path}" or "./"


def open_graph_locale(locale: str) -> str:
    """``es`` -> ``es_ES``: the form Open Graph asks for.

    >>> open_graph_locale("it")
    'it_IT'
    """
    language, _, territory = get_global("likely_subtags")[locale].split("_")
    return f"{language}_{territory}"


def page_links(locale: str, up: str, path: str) -> dict[str, object]:
    """What every page's head and language switcher need; ``path`` is the page's own."""
    return {
        "lang": locale,
        "csp": CONTENT_SECURITY_POLICY,
        "assets": f"{up}{ASSETS}/",
        "canonical": page_url(path, up),
        "og_locale": open_graph_locale(locale),
        "og_alternates": [open_graph_locale(code) for code in LOCALES if code != locale],
        "alternates": [
            {"lang": code, "name": autonym(code), "href": f"{up}{code}/", "url": page_url(f"{code}/", up)}
            for code in LOCALES
        ],
        "default_url": page_url("", up),
    }


def render_calculator(env: Environment, translations: GNUTranslations, name: str, locale: str) -> str:
    """A calculator's page, its results pre-rendered for the default values."""
    calculator = CALCULATORS[name]
    template, path = PAGES[name]
    parsed = Locale.parse(locale)
    texts = default_texts(calculator, parsed)
    up = "../" * (path.count("/") + 1)
    return env.get_template(template).render(
        **page_links(locale, up, f"{locale}/{path.removesuffix('index.html')}"),
        calculator=name,
        catalog=CATALOG,
        fields={f.name: f for f in calculator.fields},
        bounds={
            f.name: {
                "minimum": unbroken(format_quantity(f.minimum, f.unit, parsed)),
                "maximum": unbroken(format_quantity(f.maximum, f.unit, parsed)),
            }
            for f in calculator.fields
        },
        units={f.name: unit_symbol(f.unit, parsed) for f in calculator.fields if f.unit},
        texts=texts,
        view=evaluate(calculator, texts, parsed, translations),
        examples={key: worked_example(calculator, dict(over), parsed) for key, over in calculator.examples.items()},
        math=math_symbol,
    )


def render_chooser(envs: dict[str, Environment]) -> str:
    """The site's root: a link to each locale, and a script that picks one.

    Each locale's title and description come from its own catalog, so
    each reads in its own language.
    """
    links = page_links(LOCALES[0], "", "")
    entries = []
    for alternate in links["alternates"]:
        words = envs[alternate["lang"]].get_template("site-words.html").make_module()
        entries.append({**alternate, "title": words.title, "description": words.description})
    return envs[LOCALES[0]].get_template("chooser.html").render(entries=entries, **links)
