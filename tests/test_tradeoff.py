"""The accumulation page's trade-off chart: its table holds the formulas' numbers, and its picture draws them.

The picture is read back from its SVG: each line's points are mapped back
to values through the axis ticks the reader sees, so a line drawn in the
wrong place, or a budget crossed at the wrong step, fails here.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from decimal import Decimal

import pytest
from babel import Locale

from calc.accumulation import CALCULATOR
from calc.evaluation import evaluate
from calc.formatting import GIGABYTE, format_number, format_quantity, unit_symbol
from calc.i18n import load_translations
from sitebuild.config import LOCALES
from tests.helpers import expect, start_over

SVG = "{http://www.w3.org/2000/svg}"

# (micro-batch, steps, GPUs, activation per sample, budget or "" for none)
SETTINGS = [
    ("4", "8", "1", "0.5", "12"),
    ("2", "3", "4", "1.25", "7.5"),
    ("1", "1", "1", "0.1", "0.25"),
    ("16", "64", "8", "0.75", ""),
    ("3", "5", "2", "2", "5"),  # one micro-batch is over the budget
    ("8", "2", "1", "0.5", "100"),  # the whole batch fits without accumulation
]


CHART = next(output for output in CALCULATOR.outputs if output.name == "tradeoff")


@pytest.fixture(scope="module")
def catalogs(localedir):
    return {locale: load_translations(localedir, locale) for locale in LOCALES}


def view_for(catalogs, micro_batch, steps, gpus, per_sample, budget, locale=LOCALES[0]):
    texts = {
        "micro_batch": micro_batch,
        "accumulation_steps": steps,
        "gpus": gpus,
        "activation_per_sample": per_sample,
        "memory_budget": budget,
    }
    return evaluate(CALCULATOR, texts, Locale.parse(locale), catalogs[locale])


def gigabytes(value, locale="en", places=None) -> str:
    return format_quantity(Decimal(value), "digital-gigabyte", Locale.parse(locale), breakable=False, places=places)


def figure(value, locale="en", places=None) -> str:
    """A number as a cell shows it: a count with its digits, a memory with ``places`` decimals."""
    if places is None:
        return format_number(Decimal(value), Locale.parse(locale))
    return format_quantity(Decimal(value), None, Locale.parse(locale), places=places)


def places_of(per_sample: Decimal) -> int:
    """The decimals b · A is shown with: those of A, and at least two (14.90 under 7.45)."""
    return max(2, -per_sample.normalize().as_tuple().exponent)


@pytest.mark.parametrize("settings", SETTINGS)
def test_each_row_is_the_formulas_at_its_steps(catalogs, settings):
    b, a, g, per_sample, budget = (Decimal(s) if s else None for s in settings)
    rows = view_for(catalogs, *settings).outputs["tradeoff"]["rows"]
    steps = [int(row[0].replace(",", "")) for row in rows]
    # From one step to four times the current ones, the current ones among them.
    assert steps == sorted(set(steps)) and steps[0] == 1 and steps[-1] == 4 * a and a in steps
    for s, (_, effective, held, whole) in zip(steps, rows, strict=True):
        assert effective == figure(b * s * g)
        # In gigabytes, which the headings name: the cells hold the numbers alone, exact, with the decimals of the
        # memory per sample and at least two, alike down the column.
        assert held == figure(b * per_sample, places=places_of(per_sample))
        assert whole == figure(b * s * per_sample, places=places_of(per_sample))
    if budget is not None:
        # The last step whose batch would still fit in one pass is a row, when the chart reaches it.
        fitting = int(budget // (b * per_sample))
        assert (fitting in steps) == (1 <= fitting < 4 * a)


class Drawing:
    """A chart's SVG, read back: each panel's ticks, lines and rings, in data units."""

    def __init__(self, markup: str):
        root = ElementTree.fromstring(markup)
        self.name = root.get("aria-label")
        self.role = root.get("role")
        ticks = [(t, float(t.get("x")), float(t.get("y"))) for t in root.iter(f"{SVG}text") if t.get("class") == "tick"]
        # The value axes' labels end at the axis; the shared axis' labels are centred on their step.
        self.value_ticks = [(y, t.text) for t, _, y in ticks if t.get("text-anchor") == "end"]
        self.x_ticks = [(x, t.text) for t, x, _ in ticks if t.get("text-anchor") == "middle"]
        lines = list(root.iter(f"{SVG}polyline"))
        self.lines = {
            line.find(f"{SVG}title").text: [tuple(map(float, p.split(","))) for p in line.get("points").split()]
            for line in lines
        }
        self.classes = {line.find(f"{SVG}title").text: line.get("class") for line in lines}
        circles = [(c.get("class"), float(c.get("cx")), float(c.get("cy"))) for c in root.iter(f"{SVG}circle")]
        self.rings = [(x, y) for kind, x, y in circles if kind == "crossing"]
        self.dots = [(x, y) for kind, x, y in circles if kind != "crossing"]


def scale(ticks: list[tuple[float, str]], parse) -> tuple[float, float]:
    """The drawing's coordinate per unit and its offset, from two ticks."""
    (p0, l0), (p1, l1) = ticks[0], ticks[-1]
    v0, v1 = parse(l0), parse(l1)
    per_unit = (p1 - p0) / (v1 - v0)
    return per_unit, p0 - per_unit * v0


def number(label: str) -> float:
    return float(label.replace("\u00a0GB", "").replace(",", ""))


@pytest.mark.parametrize("settings", SETTINGS)
def test_the_picture_draws_the_table(catalogs, settings):
    b, a, g, per_sample, budget = (Decimal(s) if s else None for s in settings)
    output = view_for(catalogs, *settings).outputs["tradeoff"]
    drawing = Drawing(output["svg"])
    assert drawing.role == "img" and drawing.name == CHART.label

    x_per_step, x_zero = scale(sorted(drawing.x_ticks), number)
    # Two panels' value axes: the batch's ticks are plain numbers, the memory's are in GB.
    batch_ticks = sorted(t for t in drawing.value_ticks if "GB" not in t[1])
    memory_ticks = sorted(t for t in drawing.value_ticks if "GB" in t[1])
    y_per_sample, y_zero = scale(batch_ticks, number)
    y_per_gb, y_gb_zero = scale(memory_ticks, number)

    def values(name, per_unit, zero):
        return [((x - x_zero) / x_per_step, (y - zero) / per_unit) for x, y in drawing.lines[name]]

    for s, e in values("Effective batch size", y_per_sample, y_zero):
        assert e == pytest.approx(float(b * g) * s, rel=1e-3, abs=1e-2 * float(b * g))
    for _, m in values("With accumulation", y_per_gb, y_gb_zero):
        assert m == pytest.approx(float(b * per_sample), rel=1e-3, abs=1e-2)
    for s, m in values("Same batch in one pass, without accumulation", y_per_gb, y_gb_zero):
        assert m == pytest.approx(float(b * per_sample) * s, rel=1e-3, abs=1e-2)
    # Every value axis reaches the highest value it draws.
    assert number(batch_ticks[0][1]) >= float(b * 4 * a * g)
    assert number(memory_ticks[0][1]) >= float(b * 4 * a * per_sample)

    # The ring sits where the batch without accumulation meets the budget, and nowhere else.
    crossing = None if budget is None else float(budget / (b * per_sample))
    if crossing is not None and 1 <= crossing < 4 * a:
        assert "Budget" in drawing.lines and drawing.classes["Budget"] == "limit"
        ((ring_x, ring_y),) = drawing.rings
        assert (ring_x - x_zero) / x_per_step == pytest.approx(crossing, rel=1e-3)
        assert (ring_y - y_gb_zero) / y_per_gb == pytest.approx(float(budget), rel=1e-3)
    else:
        assert drawing.rings == []
    assert ("Budget" in drawing.lines) == (budget is not None)
    # The current steps are marked on each of the three lines.
    assert len(drawing.dots) == 3
    assert {round((x - x_zero) / x_per_step, 3) for x, _ in drawing.dots} == {float(a)}


@pytest.mark.parametrize(
    ("settings", "note"),
    [
        (
            SETTINGS[0],
            "Without accumulation, the same batch would need a micro-batch size of 32 and 16.00\u00a0GB of activation "
            "memory per GPU at once, more than the budget of 12.00\u00a0GB. Accumulation keeps the activation memory "
            "at 2.00\u00a0GB.",
        ),
        (
            SETTINGS[3],
            "micro-batch size of 1,024 and 768.00\u00a0GB of activation memory per GPU at once; accumulation",
        ),
        (SETTINGS[4], "A single micro-batch already needs 6.00\u00a0GB, more than the budget of 5.00\u00a0GB"),
        (("1", "4", "1", "6", "5"), "A single sample already needs 6.00\u00a0GB, more than the budget of 5.00\u00a0GB"),
        (
            SETTINGS[5],
            "8.00\u00a0GB of activation memory per GPU at once, which also fits the budget of 100.00\u00a0GB",
        ),
        # One step: there is no batch without accumulation to compare with.
        (("2", "1", "1", "3", "10"), "With one accumulation step, nothing accumulates: each GPU takes its share"),
        (
            ("2", "1", "1", "3", ""),
            "its share of the batch in one micro-batch, with 6.00\u00a0GB of activation memory per GPU.",
        ),
    ],
)
def test_the_note_says_what_the_chart_shows(catalogs, settings, note):
    assert note in view_for(catalogs, *settings).outputs["tradeoff_note"]


@pytest.mark.parametrize("locale", LOCALES)
def test_the_chart_speaks_the_pages_language(catalogs, locale):
    output = view_for(catalogs, "4", "8", "1", figure("0.5", locale), "12", locale).outputs["tradeoff"]
    drawing = Drawing(output["svg"])
    assert drawing.name == catalogs[locale].gettext(CHART.label) and (locale == "en" or drawing.name != CHART.label)
    assert gigabytes("60", locale) in [label for _, label in drawing.value_ticks]
    assert output["rows"][-1] == ["32", "128", figure("2", locale, 2), figure("64", locale, 2)]
    # The memory columns name their unit once, in the heading, as the locale writes it.
    translated = catalogs[locale].gettext
    headings = CHART.headings(Locale.parse(locale), catalogs[locale])
    unit = unit_symbol(GIGABYTE, Locale.parse(locale))
    assert headings[0] == translated("Accumulation steps") and unit not in headings[0] + headings[1]
    assert headings[2].startswith(translated("With accumulation")) and headings[2].endswith(f"({unit})")
    assert headings[3].endswith(f"({unit})")


@pytest.mark.browser
@pytest.mark.parametrize("locale", LOCALES)
def test_the_chart_follows_the_fields_as_picture_and_table(ready_pages, catalogs, locale):
    page = start_over(ready_pages, locale)
    chart = page.locator(".plot svg[role=img]")
    name = catalogs[locale].gettext(CHART.label)
    expect(chart).to_have_attribute("aria-label", name)
    page.fill("[name=accumulation_steps]", "2")
    last = page.locator("table[data-output=tradeoff] tbody tr").last.locator("th, td")
    expect(last).to_have_text(["8", "8", figure("7.45", locale, 2), figure("59.6", locale, 2)], use_inner_text=False)
    # Drawn as SVG, not as text: the redrawn lines have a size on the page.
    line = chart.locator("polyline.series-3")
    expect(line).to_have_count(1)
    assert line.bounding_box()["width"] > 100
    expect(chart).to_have_attribute("aria-label", name)
    # Without a budget there is no budget line.
    page.fill("[name=memory_budget]", "")
    expect(chart.locator("polyline.limit")).to_have_count(0)
    expect(page.locator("[data-output=tradeoff_note]")).to_contain_text(gigabytes("14.9", locale, 2))


@pytest.mark.browser
def test_the_accumulation_page_hands_its_batch_to_the_planner(ready_pages):
    page = start_over(ready_pages, LOCALES[0])
    page.fill("[name=gpus]", "4")
    expect(page.locator("a[data-link=plan]")).to_have_attribute(
        "href", "plan/?target_batch=256&gpus=4&activation_per_sample=7.45&memory_budget=8.01"
    )


def test_the_vram_link_opens_this_run_not_the_vram_page_s_defaults():
    """The GPUs, micro-batch and effective batch go along: a reader who set 8 GPUs and a micro-batch of 4 finds them
    there, and a target that is this page's effective batch. Not the activation memory, which this page knows for
    no model: the VRAM page computes the activations of the model chosen there, at this micro-batch, rather than add
    a figure estimated for one model to another's model state (review 7, technical item 5)."""
    from gettext import NullTranslations

    from calc.evaluation import default_texts, restore
    from calc.vram import CALCULATOR as VRAM

    en = Locale.parse("en")
    texts = {**default_texts(CALCULATOR, en), "micro_batch": "4", "accumulation_steps": "2", "gpus": "8"}
    view = evaluate(CALCULATOR, texts, en, NullTranslations())
    opened = evaluate(VRAM, restore(VRAM, view.links["vram"], en), en, NullTranslations(), restoring=True)
    assert opened.prompt is None, opened.errors
    assert {name: opened.texts[name] for name in ("gpus", "micro_batch", "target_batch")} == {
        "gpus": "8",
        "micro_batch": "4",
        "target_batch": "64",
    }
    assert "activation_memory" not in view.links["vram"] and opened.values["activation_memory"] is None
    # So its largest micro-batch is computed, from the model shown there.
    assert opened.results["largest_micro_batch"].value >= 1
