"""Where a new calculator, kind of input or output, or problem plugs in, and that each carries all it needs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, fields, replace
from decimal import Decimal, InvalidOperation
from typing import ClassVar

import pytest
from babel import Locale
from jinja2.exceptions import UndefinedError

from calc.calculators import NAMES, PAGES, load
from calc.evaluation import default_texts, evaluate
from calc.i18n import load_translations
from calc.inputs import Input
from calc.outputs import Figure, Output
from calc.problems import InputProblem
from sitebuild import pages
from sitebuild.babel_usage import FIELDS, kinds, problems
from sitebuild.config import LOCALES, ROOT, TEMPLATES
from sitebuild.pages import PageWithoutResults, Prose, environment, render_calculator
from tests.helpers import Page


@pytest.mark.parametrize("name", NAMES)
def test_each_calculator_has_its_page_and_its_words(name):
    assert load(name).name == name
    assert (TEMPLATES / f"{name}.html").is_file()
    assert list(PAGES.values()).count(PAGES[name]) == 1


def printed_by(code: str) -> list[str]:
    """The words ``code`` prints in a new interpreter, which has imported nothing yet, as a page's worker starts."""
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()


@pytest.mark.parametrize("name", NAMES)
def test_a_pages_worker_imports_no_other_calculator(name):
    imported = printed_by(
        f"import sys; from calc.calculators import load; load({name!r});"
        "print(' '.join(m for m in sys.modules if m.startswith('calc.')))"
    )
    assert f"calc.{name}" in imported
    assert not {f"calc.{other}" for other in NAMES if other != name} & set(imported)


@pytest.mark.parametrize("name", NAMES)
def test_a_pages_worker_computes_no_step_for_its_prose(name):
    """What the prose quotes is the build's to compute (Calculator.facts, a function): importing a page, as its worker
    does, runs no training step."""
    # Every step computation (moments, saved_breakdown) first checks its setting: counted there, whatever the page
    # imported by name.
    runs = printed_by(
        "import calc.formulas.step as step; runs = []; check = step._check;"
        "step._check = lambda *args: runs.append(args) or check(*args);"
        f"from calc.calculators import load; calculator = load({name!r}); print(len(runs));"
        "calculator.results(calculator.defaults()); print(len(runs))"
    )
    assert runs[0] == "0"
    if name in ("vram", "lora", "activations"):
        assert int(runs[1]) > 0  # the probe does see the page's steps, once its results are asked for


@pytest.mark.parametrize("locale", LOCALES)
def test_every_problem_words_itself_in_every_locale(localedir, locale):
    translations = load_translations(localedir, locale)
    english = load_translations(localedir, LOCALES[0])
    parsed = Locale.parse(locale)
    assert len(problems()) >= 15
    for problem in problems():
        for field in FIELDS:
            said = problem.message(field, parsed, translations)
            # Every placeholder filled, and a list joined as words, not shown as Python writes a tuple.
            assert said and "%(" not in said and "('" not in said, problem
            if locale != LOCALES[0]:
                # Translated: a message missing from the catalogs would read as the English.
                assert said != problem.message(field, parsed, english), problem


def test_every_kind_of_input_and_output_says_how_it_is_drawn_and_shown_empty():
    for kind in kinds(Output):
        assert isinstance(kind.widget, str) and kind.empty is not None, kind
    for kind in kinds(Input):
        assert isinstance(kind.widget, str), kind


def test_every_kind_has_its_macro_and_nothing_else_is_one(localedir):
    env = environment(TEMPLATES, load_translations(localedir, LOCALES[0]))
    exported = env.get_template("widgets.html").module.__dict__
    macros = {name for name, value in exported.items() if callable(value)}
    assert macros == {kind.widget for kind in kinds(Input) + kinds(Output)}


def test_the_glue_reads_and_writes_every_kind_of_input_and_no_other():
    """web/app.js reads and writes an input's controls by its kind (the widget its template marks it with)."""
    glue = (ROOT / "web" / "app.js").read_text(encoding="utf-8")
    table = re.search(r"^const KINDS = \{$(.*?)^\};$", glue, flags=re.M | re.S)
    assert table, "web/app.js has no table KINDS"
    assert set(re.findall(r"^  (\w+):", table.group(1), flags=re.M)) == {kind.widget for kind in kinds(Input)}


def test_every_kind_of_input_has_a_default_and_the_whole_protocol():
    """Input's abstract methods refuse a kind that lacks one as it is made; its default is each kind's own field."""
    for kind in kinds(Input):
        assert not getattr(kind, "__abstractmethods__", None) or kind.__name__.startswith("_"), kind
        assert "default" in {field.name for field in fields(kind)}, kind


def test_the_glue_shows_every_kind_of_output_and_no_other(localedir):
    """web/app.js shows an output's view by its kind (the widget its template marks it with), on every element a page
    marks with an output's name."""
    glue = (ROOT / "web" / "app.js").read_text(encoding="utf-8")
    table = re.search(r"^const OUTPUT_KINDS = \{$(.*?)^\};$", glue, flags=re.M | re.S)
    assert table, "web/app.js has no table OUTPUT_KINDS"
    widgets = {kind.widget for kind in kinds(Output)}
    assert set(re.findall(r"^  (\w+):", table.group(1), flags=re.M)) == widgets
    translations = load_translations(localedir, LOCALES[0])
    prose = Prose(environment(TEMPLATES, translations), LOCALES[0], translations)
    for name in NAMES:
        outputs = {o.name: o.widget for o in load(name).outputs}
        marked = [
            (attrs["data-output"], attrs["data-kind"])
            for _, attrs in Page(render_calculator(prose, name)).tags
            if "data-output" in attrs
        ]
        # Each output at least once, as its own kind; a line chart's table too, as a table.
        assert {output for output, _ in marked} == outputs.keys(), name
        assert all(kind in (outputs[output], "table") for output, kind in marked), name


def test_every_input_is_marked_with_its_name_and_kind_and_the_page_holds_the_view_it_is_drawn_with(localedir):
    """What the glue finds an input's controls and their kind by, on the element that holds them; and the view it
    shows if Python fails, as data."""
    translations = load_translations(localedir, LOCALES[0])
    prose = Prose(environment(TEMPLATES, translations), LOCALES[0], translations)
    locale = Locale.parse(LOCALES[0])
    for name in NAMES:
        calculator = load(name)
        html = render_calculator(prose, name)
        marked = [(attrs["data-input"], attrs["data-kind"]) for _, attrs in Page(html).tags if "data-input" in attrs]
        assert marked == [(i.name, i.widget) for i in calculator.inputs], name
        (held,) = re.findall(r'<script type="application/json" id="default-view">(.*?)</script>', html, flags=re.S)
        drawn = evaluate(calculator, default_texts(calculator, locale), locale, translations)
        assert json.loads(held) == json.loads(json.dumps(drawn.as_dict())), name


@dataclass(frozen=True)
class Gauge(Output):
    """A kind of output that no macro draws."""

    widget: ClassVar[str] = "gauge"
    empty: ClassVar[str] = ""

    def render(self, result, locale, translations) -> str:
        return ""


def test_a_kind_without_a_macro_fails_the_build(localedir, monkeypatch):
    translations = load_translations(localedir, LOCALES[0])
    plan = load("plan")
    with_gauge = replace(
        plan,
        outputs=(*plan.outputs, Gauge("gauge", "Gauge")),
        compute=lambda values: {**plan.compute(values), "gauge": None},
    )
    monkeypatch.setattr("sitebuild.pages.load", lambda name: with_gauge if name == "plan" else load(name))
    with pytest.raises(UndefinedError, match="gauge"):
        render_calculator(Prose(environment(TEMPLATES, translations), LOCALES[0], translations), "plan")


@pytest.mark.parametrize("missing", ["", "Not modeled"])
def test_a_figure_without_words_for_no_result_refuses_one(localedir, missing, locale="es"):
    """Without them it would show gettext("") in the figure's place: the catalog's header."""
    translations = load_translations(localedir, locale)
    plan = load("plan")
    with_figure = replace(
        plan,
        outputs=(*plan.outputs, Figure("extra", "Extra", missing=missing)),
        compute=lambda values: {**plan.compute(values), "extra": None},
    )
    parsed = Locale.parse(locale)
    if missing:
        view = evaluate(with_figure, default_texts(with_figure, parsed), parsed, translations)
        assert view.outputs["extra"] == translations.gettext(missing) != missing
    else:
        with pytest.raises(ValueError, match="figure 'extra': no result"):
            evaluate(with_figure, default_texts(with_figure, parsed), parsed, translations)


def test_a_locale_s_prose_is_computed_once_for_all_its_pages(localedir, monkeypatch):
    """A guard on the build's cost, not on what a reader sees: every page quotes the other pages' titles and
    descriptions, and running their worked examples again for that would make a locale's build quadratic in its
    pages."""
    translations = load_translations(localedir, LOCALES[0])
    runs = Counter()
    run = pages.worked_example

    def counted(calculator, overrides, locale, translations):
        runs[calculator.name] += 1
        return run(calculator, overrides, locale, translations)

    monkeypatch.setattr(pages, "worked_example", counted)
    prose = Prose(environment(TEMPLATES, translations), LOCALES[0], translations)
    for name in PAGES:
        render_calculator(prose, name)
    assert runs == {name: len(load(name).examples) for name in PAGES if load(name).examples}


@pytest.mark.parametrize(
    ("failure", "said"),
    [
        (InputProblem(), "names none of the page's inputs"),
        (InputProblem(field="no_such_input"), "names none of the page's inputs"),
        (InvalidOperation(), "cannot be computed exactly"),
    ],
    ids=["no field", "unknown field", "not exact"],
)
def test_a_worked_example_without_results_stops_the_build_saying_which(localedir, monkeypatch, failure, said):
    translations = load_translations(localedir, LOCALES[0])
    accumulation = load("accumulation")

    def failing(values):
        raise failure

    monkeypatch.setattr("sitebuild.pages.load", lambda name: replace(accumulation, compute=failing))
    with pytest.raises(PageWithoutResults, match=f"example 'single_gpu' gives no results: .*{said}"):
        Prose(environment(TEMPLATES, translations), LOCALES[0], translations).context("accumulation")


def test_a_worked_example_is_computed_as_the_page_reads_its_values(localedir, monkeypatch):
    """An example's values are typed into the form and read, checked and settled as a reader's are: a value the field
    refuses stops the build, rather than reaching prose that no reader could reproduce."""
    translations = load_translations(localedir, LOCALES[0])
    accumulation = load("accumulation")
    refused = replace(accumulation, examples={"no_gpu": {"gpus": Decimal(0)}})
    monkeypatch.setattr("sitebuild.pages.load", lambda name: refused)
    with pytest.raises(PageWithoutResults, match="example 'no_gpu' gives no results: gpus: "):
        Prose(environment(TEMPLATES, translations), LOCALES[0], translations).context("accumulation")


def test_every_kind_of_problem_gives_its_own_examples():
    """The site's Babel keeps what the problems' words format (sitebuild/babel_usage.py), from each kind's own
    examples: a kind that holds data and gives none fails here, not in the browser."""
    for kind in kinds(InputProblem):
        made = kind.examples()
        assert made and all(type(problem) is kind for problem in made), kind

    @dataclass
    class Holding(InputProblem):
        held: Decimal

    with pytest.raises(NotImplementedError, match="Holding holds data: give it examples"):
        Holding.examples()
