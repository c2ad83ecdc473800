"""What the page shows for given inputs, in every locale: results, errors, prompts, announcements."""

import decimal
import json
from dataclasses import replace
from decimal import Decimal
from gettext import NullTranslations
from urllib.parse import parse_qsl, urlencode

import pytest
from babel import Locale

from calc.accumulation import CALCULATOR
from calc.batch_inputs import MEMORY_BUDGET
from calc.browser import evaluator, rehearsals
from calc.calculators import NAMES, load
from calc.evaluation import default_texts, evaluate, restore
from calc.formatting import format_number, unit_symbol
from calc.formulas.batch import effective_batch_size, peak_activation_memory
from calc.gpus import GPUS_BY_ID
from calc.i18n import load_translations
from calc.inputs import Amount, Choice, ChoiceSet, Count, Pasted
from calc.outputs import Chart, Column, Quantity, Table
from calc.problems import Ambiguous, InputProblem, NumberOnly
from calc.vram import gpu_memory
from sitebuild.config import LOCALES
from tests.expectations import expected
from tests.helpers import cases
from tests.test_configs import QWEN2_5_0_5B


def figures(outputs: dict) -> dict:
    """The accumulation page's two figures, out of all its outputs."""
    return {name: outputs[name] for name in ("effective_batch", "activation_memory")}


def nothing_shown(outputs: dict) -> bool:
    """No output shows anything: no text, no picture, no rows."""
    return all(not (shown if isinstance(shown, str) else any(shown.values())) for shown in outputs.values())


def view(localedir, locale, **texts):
    table = expected(locale)
    return evaluate(CALCULATOR, {**table.defaults, **texts}, Locale.parse(locale), load_translations(localedir, locale))


def test_formulas():
    assert effective_batch_size(Decimal(4), Decimal(8), Decimal(4)) == 128
    assert peak_activation_memory(Decimal(4), Decimal("0.5")) == 2


@pytest.mark.parametrize("locale", LOCALES)
def test_default_texts_are_the_seeded_values(locale):
    assert default_texts(CALCULATOR, Locale.parse(locale)) == expected(locale).defaults


@pytest.mark.parametrize(("locale", "texts", "effective", "memory"), cases("results"))
def test_results(localedir, locale, texts, effective, memory):
    shown = view(localedir, locale, **texts)
    assert figures(shown.outputs) == {"effective_batch": effective, "activation_memory": memory}
    assert shown.prompt is None
    assert set(shown.errors.values()) == {None}


@pytest.mark.parametrize(("locale", "name", "text", "message"), cases("errors"))
def test_each_bad_input_is_explained_and_hides_the_results(localedir, locale, name, text, message):
    shown = view(localedir, locale, **{name: text})
    assert shown.errors[name] == message
    assert [n for n, error in shown.errors.items() if error] == [name]
    assert nothing_shown(shown.outputs)
    assert shown.prompt == expected(locale).prompt_invalid


@pytest.mark.parametrize("locale", LOCALES)
def test_several_bad_inputs_are_counted(localedir, locale):
    assert view(localedir, locale, micro_batch="0", gpus="x").prompt == expected(locale).prompt_two_invalid


@pytest.mark.parametrize("blank", ["", "   "])
@pytest.mark.parametrize("locale", LOCALES)
def test_an_empty_field_asks_for_a_value_without_an_error(localedir, locale, blank):
    shown = view(localedir, locale, accumulation_steps=blank)
    assert set(shown.errors.values()) == {None}
    assert nothing_shown(shown.outputs)
    assert shown.prompt == expected(locale).prompt_empty


@pytest.mark.parametrize("locale", LOCALES)
def test_the_prompt_names_every_empty_field(localedir, locale):
    assert view(localedir, locale, accumulation_steps="", gpus="").prompt == expected(locale).prompt_two_empty


@pytest.mark.parametrize("locale", LOCALES)
def test_an_error_outranks_an_empty_field(localedir, locale):
    assert view(localedir, locale, micro_batch="", gpus="0").prompt == expected(locale).prompt_invalid


@pytest.mark.parametrize(("locale", "texts", "announcement"), cases("announcements"))
def test_what_a_screen_reader_hears(localedir, locale, texts, announcement):
    assert view(localedir, locale, **texts).announcement == announcement


@pytest.mark.parametrize("locale", LOCALES)
def test_the_worker_entry_point_speaks_json(localedir, locale):
    table = expected(locale)
    evaluate_json = evaluator("accumulation", locale, str(localedir))
    answer = json.loads(evaluate_json(json.dumps({"values": {**table.defaults, "unknown": "<b>"}})))
    answer["outputs"] = figures(answer["outputs"])
    (texts, announcement) = table.announcements[0]
    assert texts == {}
    assert answer == {
        "errors": {name: None for name in table.defaults},
        "outputs": dict(zip(("effective_batch", "activation_memory"), table.figures(), strict=True)),
        "prompt": None,
        "announcement": announcement,
        "texts": {},
        "address": "",
        "links": {
            "vram": "gpus=1&micro_batch=1&target_batch=64",
            "plan": "target_batch=64&gpus=1&activation_per_sample=7.45&memory_budget=8.01",
        },
        "offered": {},  # no group of checkboxes on this page
        "worded": [],  # both figures are numbers
        "failed": False,
    }
    # Values that are not text are read as their text, never trusted as numbers.
    request = {"values": {**table.defaults, "gpus": 4}, "changed": ["gpus"]}
    answer = json.loads(evaluate_json(json.dumps(request)))
    assert answer["outputs"]["effective_batch"] == "256"
    # With the budget, which an address that leaves it out would leave blank.
    assert answer["address"] == "gpus=4&memory_budget=8.01"


def test_an_address_without_the_budget_leaves_it_blank_not_the_default_run_s():
    """The accumulation page's default budget is what the VRAM page's default run leaves; a shared run that does
    not name one must not be judged against it."""
    en = Locale.parse("en")
    texts = restore(load("accumulation"), "?micro_batch=3&accumulation_steps=5&gpus=12&activation_per_sample=0.5", en)
    shown = evaluate(load("accumulation"), texts, en, NullTranslations())
    assert texts["memory_budget"] == "" and shown.prompt is None
    assert "budget" not in str(shown.outputs) and "memory_budget=&" in shown.links["plan"] + "&"
    # Reopened from its own address, the page is the same run, budget and all.
    for budget in ("", "8.01", "20"):
        edited = evaluate(load("accumulation"), {**texts, "memory_budget": budget}, en, NullTranslations())
        again = restore(load("accumulation"), edited.address, en)
        assert again == {**texts, "memory_budget": budget}


@pytest.mark.parametrize("locale", LOCALES)
def test_an_address_written_by_hand_with_a_zero_that_changes_nothing_is_read_in_every_locale(locale):
    """Links write 25.2; a hand-written 25.20 means the same in every locale, where only three decimals could be a
    thousands separator to a Spanish or Italian reader (Spanish review, round 21, D11)."""
    plan, parsed = load("plan"), Locale.parse(locale)
    shown = evaluate(
        plan, restore(plan, "?memory_budget=25.20&activation_per_sample=0.50", parsed), parsed, NullTranslations()
    )
    assert (shown.errors["memory_budget"], shown.errors["activation_per_sample"]) == (None, None)
    assert "memory_budget=25.2&" in shown.address + "&" and "activation_per_sample=0.5&" in shown.address + "&"
    assert restore(plan, "?memory_budget=1.500", parsed)["memory_budget"] == "1.500"


@pytest.mark.parametrize("name", NAMES)
def test_the_worker_s_warm_up_computes_results_the_defaults_do_not(localedir, name, locale="en"):
    # The warm-up is there to run the code a reader's edits run: forms the page accepts, many with other results
    # (an edit can change nothing shown: a count of layers under full recomputation, on the activation page).
    evaluate_json = evaluator(name, locale, str(localedir))
    defaults = json.loads(evaluate_json(json.dumps({"address": ""})))["outputs"]
    views = [json.loads(evaluate_json(request)) for request in rehearsals(name, locale, 60)]
    other = [view for view in views if not any(view["errors"].values()) and view["outputs"] != defaults]
    assert len(other) >= len(views) // 3


@pytest.mark.parametrize("locale", LOCALES)
def test_a_calculation_that_fails_is_a_message_not_a_dead_page(localedir, locale):
    def inexact(values):
        return {"effective_batch": Quantity(Decimal(1) / Decimal(3))}  # raises Inexact in the exact context

    broken = replace(CALCULATOR, compute=inexact)
    shown = evaluate(broken, expected(locale).defaults, Locale.parse(locale), load_translations(localedir, locale))
    assert shown.prompt and shown.prompt == shown.announcement
    assert nothing_shown(shown.outputs)
    assert set(shown.errors.values()) == {None}


@pytest.mark.parametrize("locale", LOCALES)
def test_an_unexpected_failure_in_python_is_a_message_too(localedir, locale, monkeypatch):
    evaluate_json = evaluator("accumulation", locale, str(localedir))
    monkeypatch.setattr("calc.browser.evaluate", lambda *args, **kwargs: 1 / 0)
    answer = json.loads(evaluate_json(json.dumps({"values": expected(locale).defaults})))
    assert answer["prompt"] and nothing_shown(answer["outputs"])


@pytest.mark.parametrize(
    "signal",
    [decimal.Inexact, decimal.Rounded, decimal.Overflow, decimal.InvalidOperation, decimal.DivisionByZero],
)
def test_values_no_formula_takes_exactly_are_said_so(localedir, signal):
    def inexact(values):
        raise signal

    broken = replace(CALCULATOR, compute=inexact)
    translations = load_translations(localedir, "en")
    shown = evaluate(broken, expected("en").defaults, Locale.parse("en"), translations)
    assert shown.prompt == "These values cannot be computed exactly. Change one of them to see the results."
    assert set(shown.errors.values()) == {None}


def test_a_bug_in_a_calculation_is_not_passed_off_as_inexact(localedir, locale="en"):
    def buggy(values):
        raise ValueError("a formula given what it does not take")

    broken = replace(CALCULATOR, compute=buggy)
    with pytest.raises(ValueError, match="does not take"):
        evaluate(broken, expected(locale).defaults, Locale.parse(locale), load_translations(localedir, locale))


def test_a_calculations_problem_that_names_no_field_is_a_bug_that_says_so(localedir, locale="en"):
    from calc.model_inputs import HeadsDoNotDivide

    def unmarked(values):
        raise HeadsDoNotDivide()  # no field=: the page could mark nothing

    broken = replace(CALCULATOR, compute=unmarked)
    with pytest.raises(LookupError, match="names none of the page's inputs"):
        evaluate(broken, expected(locale).defaults, Locale.parse(locale), load_translations(localedir, locale))


def test_the_worker_reports_a_bug_in_a_calculation_with_its_traceback(localedir, monkeypatch, capsys, locale="en"):
    def buggy_on_four_gpus(values):
        if values["gpus"] == 4:
            raise ValueError("a formula given what it does not take")
        return CALCULATOR.compute(values)

    monkeypatch.setattr("calc.browser.load", lambda name: replace(CALCULATOR, compute=buggy_on_four_gpus))
    evaluate_json = evaluator("accumulation", locale, str(localedir))
    answer = json.loads(evaluate_json(json.dumps({"values": {**expected(locale).defaults, "gpus": "4"}})))
    assert answer["prompt"] == "Something went wrong with these values. Change one of them to try again."
    # Flagged, so the page keeps the reader's address rather than this view's empty one.
    assert answer["failed"] is True and answer["address"] == ""
    assert "ValueError: a formula given what it does not take" in capsys.readouterr().err


def test_the_worker_answers_a_malformed_request_with_a_message_not_a_rejection(localedir, capsys, locale="en"):
    evaluate_json = evaluator("accumulation", locale, str(localedir))
    for request in ("{", "[]", "null"):
        answer = json.loads(evaluate_json(request))
        assert answer["prompt"] == "Something went wrong with these values. Change one of them to try again."
    assert "JSONDecodeError" in capsys.readouterr().err


def extremes(field) -> list:
    """Texts at the edges of what ``field`` takes, and every option it offers."""
    if isinstance(field, Choice):
        return [option.value for option in field.options]
    if isinstance(field, ChoiceSet):
        return [[option.value] for option in field.options]
    if isinstance(field, Pasted):
        return ["", "{", "[]", '{"model_type": "gpt2"}', '{"model_type": "llama"}']
    if isinstance(field, Count):
        return [str(field.minimum), str(field.maximum)]
    if isinstance(field, Amount):
        return [str(field.minimum + Decimal(1).scaleb(-field.places)), str(field.maximum)]
    raise TypeError(f"no extremes for a {type(field).__name__}: add its kind here")


@pytest.mark.parametrize("name", NAMES)
def test_every_input_at_its_edges_gives_results_or_says_which_field_is_at_fault(localedir, name):
    calculator = load(name)
    en = Locale.parse("en")
    translations = load_translations(localedir, "en")
    defaults = default_texts(calculator, en)
    for field in calculator.inputs:
        for text in extremes(field):
            shown = evaluate(
                calculator, {**defaults, field.name: text}, en, translations, changed=frozenset({field.name})
            )
            assert shown.prompt is None or any(shown.errors.values()), (field.name, text, shown.prompt)


@pytest.mark.parametrize("name", NAMES)
def test_every_link_carries_only_values_the_page_it_opens_takes(name):
    """At the defaults and at each input's edges, every value a link carries is one its field on the other page
    takes, or blank for that page to ask for: never one it refuses, as the accumulation page refused the activation
    estimator's 10,425.80 GB (review 7, technical item 11)."""
    calculator = load(name)
    en = Locale.parse("en")
    defaults = default_texts(calculator, en)
    edits = [{}] + [{field.name: text} for field in calculator.inputs for text in extremes(field)]
    # Past the shared bounds: the largest batch a page can reach, a sequence whose sample no GPU holds.
    edits += [{"micro_batch": "1000000", "accumulation_steps": "1000000", "gpus": "1000000"}]
    edits += [{"sequence_length": "10000000", "recomputation": "none", "attention": "eager", "method": "full"}]
    checked = 0
    for edit in edits:
        texts = {**defaults, **{field: text for field, text in edit.items() if field in defaults}}
        shown = evaluate(calculator, texts, en, NullTranslations(), changed=frozenset(edit) & frozenset(defaults))
        for page, address in shown.links.items():
            target = load(page)
            opened, inputs = restore(target, address, en), {i.name: i for i in target.inputs}
            for field, value in parse_qsl(address, keep_blank_values=True):
                if value:
                    try:
                        inputs[field].check(inputs[field].read(opened[field], en))
                    except InputProblem as refused:
                        raise AssertionError((name, edit, page, field, value)) from refused
                    checked += 1
    assert checked


@pytest.mark.parametrize("name", NAMES)
def test_every_input_edited_back_to_its_default_is_the_page_as_it_opens(name):
    """The whole form edited at once (reset to its defaults, as the browser tests start over): no input is settled
    to another value, and the view is the defaults' (on the VRAM page, the default preset's count is no count of the
    reader's own)."""
    calculator = load(name)
    en = Locale.parse("en")
    defaults = default_texts(calculator, en)
    opening = evaluate(calculator, defaults, en, NullTranslations())
    reset = evaluate(calculator, defaults, en, NullTranslations(), changed=frozenset(defaults))
    assert {field: text for field, text in reset.texts.items() if text != defaults[field]} == {}
    assert (reset.outputs, reset.address) == (opening.outputs, opening.address)


@pytest.mark.parametrize("name", ["lora", "vram", "activations"])
def test_a_blank_shape_field_a_preset_fills_in_shows_the_results(localedir, name, locale="en"):
    """A reader who cleared a shape field, then picks a model: the preset fills the field, and the results show."""
    chosen = load(name)
    texts = {**default_texts(chosen, Locale.parse(locale)), "layers": ""}
    translations = load_translations(localedir, locale)
    shown = evaluate(chosen, texts, Locale.parse(locale), translations, changed=frozenset({"model"}))
    assert shown.prompt is None and shown.texts.get("layers")
    # Opened from an address with the field blank: the preset's value too.
    restored = json.loads(evaluator(name, locale, str(localedir))(json.dumps({"address": "?layers="})))
    assert restored["prompt"] is None


# The calculators with a table or a chart: a page of figures alone has no column to head.
DRAWN = [name for name in NAMES if any(isinstance(output, Table | Chart) for output in load(name).outputs)]


def test_the_pages_with_tables_or_charts_are_checked_below():
    assert {"vram", "lora", "accumulation"} <= set(DRAWN)


@pytest.mark.parametrize("name", DRAWN)
def test_every_column_of_quantities_names_its_unit_in_the_heading_not_in_each_cell(name):
    """A table's column of sizes, memories or shares says "(GB)" or "(%)" once, in its heading, and its cells show
    the numbers alone: in the defaults' results and each worked example's, every quantity with a unit sits in a
    column headed in that unit (one unit a column: the LoRA page's files in MB and memories in GB are two tables)."""
    calculator = load(name)
    tables = [output for output in calculator.outputs if isinstance(output, Table)]
    charts = [output for output in calculator.outputs if isinstance(output, Chart)]
    for over in ({}, *calculator.examples.values()):
        results = calculator.results({**calculator.defaults(), **over})
        for table in tables:
            columns = [column if isinstance(column, Column) else Column(column) for column in table.columns]
            for row in results[table.name]:
                for cell, column in zip(row, columns, strict=True):
                    if isinstance(cell, Quantity) and cell.unit is not None:
                        assert column.unit == cell.unit, (name, table.name, column.label, cell)
        for chart in charts:
            for (_, series), values in zip(chart.panels, results[chart.name].values, strict=True):
                for one, shown in zip(series, values, strict=True):
                    units = set() if one.limit else {q.unit for q in shown if q.unit is not None}
                    assert units <= {one.unit}, (name, chart.name, one.label, units)


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("name", ["vram", "lora", "activations"])
def test_a_column_headed_in_a_unit_shows_bare_numbers_in_the_locale_s_notation(localedir, locale, name):
    """As the reader sees the defaults' tables: "Per GPU (GB)" above "16,23", never "16,23 GB" in each cell."""
    calculator, parsed = load(name), Locale.parse(locale)
    translations = load_translations(localedir, locale)
    view = evaluate(calculator, default_texts(calculator, parsed), parsed, translations)
    results = calculator.results({**calculator.defaults(), **calculator.settle(calculator.defaults(), None)})
    headed = 0
    for table in (output for output in calculator.outputs if isinstance(output, Table)):
        for index, column in enumerate(table.columns):
            if not isinstance(column, Column) or column.unit is None:
                continue
            symbol = unit_symbol(column.unit, parsed)
            heading = table.headings(parsed, translations)[index]
            assert heading.startswith(translations.gettext(column.label)) and heading.endswith(f"({symbol})")
            cells = [row[index] for row in view.outputs[table.name]["rows"]]
            assert cells == [row[index].number(parsed) for row in results[table.name]]
            assert cells and not any(symbol in cell for cell in cells), (table.name, cells)
            headed += 1
    assert headed


def written_values(field: Count | Amount) -> list[Decimal]:
    """Values a field may be given, from an address or a preset, that its locale would group or could misread:
    thousands and more, up to its maximum, and for a decimal field three decimals after a whole part (1.125)."""
    step = Decimal(1).scaleb(-field.places) if isinstance(field, Amount) else Decimal(1)
    values = [Decimal(v) for v in (1000, 1500, 9999, 10_000, 15_000, 123_456, 1_000_000)]
    values += [field.maximum, field.maximum - step]
    if isinstance(field, Amount):
        values += [Decimal(v) for v in ("1.125", "7.445", "999.125", "1000.125", "15000.5", "12345.125", "0.125")]
    taken = []
    for value in values:
        try:
            field.check(value)
        except ValueError:
            continue
        taken.append(value)
    return taken


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("name", NAMES)
def test_every_number_the_page_writes_into_a_field_reads_back_as_itself(locale, name):
    """An address's value is restored into its field in the locale's notation; read back, it is that value, never a
    question about grouping (?memory_budget=15000 once came back as 15.000 in Spanish: 15000 or 15?)."""
    calculator, parsed = load(name), Locale.parse(locale)
    fields = [field for field in calculator.inputs if isinstance(field, Count | Amount)]
    assert fields
    for field in fields:
        values = written_values(field)
        assert any(value >= 10_000 for value in values) or field.maximum < 10_000, field.name
        for value in values:
            text = restore(calculator, urlencode({field.name: field.to_address(value)}), parsed)[field.name]
            assert field.read(text, parsed) == value, (field.name, value, text)


@pytest.mark.parametrize("locale", LOCALES)
def test_the_reading_a_typed_text_is_asked_about_is_offered_as_a_text_that_reads_as_it(locale):
    """Typed grouped or with three decimals, a number is still asked about; each reading offered, typed as shown,
    is read as that reading."""
    parsed = Locale.parse(locale)
    for value in (Decimal(15_000), Decimal("1.125")):
        typed = format_number(value, parsed)
        if not {".", ","} & set(typed):
            # Grouped with a space (French), or not at all: one reading.
            assert MEMORY_BUDGET.read(typed, parsed) == value
            continue
        with pytest.raises(Ambiguous) as asked:
            MEMORY_BUDGET.read(typed, parsed)
        for reading in (asked.value.ours, asked.value.foreign):
            assert MEMORY_BUDGET.read(MEMORY_BUDGET.text(reading, parsed), parsed) == reading


# A reader who mistyped a field, then picks what fills it: a listed GPU, a preset, or a pasted config.json.
REFILLED = [
    ("vram", "gpu_memory", "abc", {"gpu": "h100-80gb"}, str(gpu_memory(GPUS_BY_ID["h100-80gb"]))),
    ("vram", "layers", "3x", {"model": "Qwen/Qwen3-8B"}, "36"),
    ("lora", "layers", "3x", {"model": "Qwen/Qwen3-8B"}, "36"),
    ("vram", "layers", "x", {"config": json.dumps(QWEN2_5_0_5B)}, "24"),
    ("lora", "layers", "x", {"config": json.dumps(QWEN2_5_0_5B)}, "24"),
]


@pytest.mark.parametrize(("name", "field", "bad", "chosen", "filled"), REFILLED)
def test_what_the_reader_chooses_replaces_a_refused_text_it_fills(localedir, name, field, bad, chosen, filled):
    calculator = load(name)
    en = Locale.parse("en")
    texts = {**default_texts(calculator, en), field: bad, **chosen}
    shown = evaluate(calculator, texts, en, load_translations(localedir, "en"), changed=frozenset(chosen))
    assert shown.errors[field] is None and shown.prompt is None
    assert shown.texts[field] == filled
    # A config applied in full leaves its box empty for the next.
    assert shown.texts.get("config", "") == ""


@pytest.mark.parametrize("name", ["vram", "lora"])
def test_a_config_pasted_with_a_refused_field_just_typed_stays_in_its_box(localedir, name):
    """Typed and pasted while an answer was on its way: the text typed keeps its problem, and the config, which this
    answer could not apply in full, is not cleared, so that the next edit applies it (the reader's paste is not
    lost)."""
    calculator = load(name)
    en = Locale.parse("en")
    texts = {**default_texts(calculator, en), "layers": "x", "config": json.dumps(QWEN2_5_0_5B)}
    shown = evaluate(calculator, texts, en, load_translations(localedir, "en"), changed=frozenset({"layers", "config"}))
    assert shown.errors["layers"] is not None and "config" not in shown.texts
    assert shown.texts["hidden_size"] == "896"
    after = evaluate(calculator, texts, en, load_translations(localedir, "en"), changed=frozenset({"micro_batch"}))
    assert (after.errors["layers"], after.texts["layers"], after.texts["config"]) == (None, "24", "")


EN = Locale.parse("en")
# A language the site does not list whose gigabyte has a symbol of its own (French "Go").
OWN_SYMBOL = next(
    Locale.parse(code)
    for code in ("fr", "ru")
    if code not in LOCALES
    and unit_symbol(MEMORY_BUDGET.unit, Locale.parse(code)) != unit_symbol(MEMORY_BUDGET.unit, EN)
)


def test_a_language_with_its_own_unit_symbol_reads_the_english_one_too(locale=OWN_SYMBOL):
    """On a French form "0,5 GB" has one reading, as "0,5 Go" does: refusing it would refuse what is clear."""
    half = format_number(Decimal("0.5"), locale)
    own, english = unit_symbol(MEMORY_BUDGET.unit, locale), unit_symbol(MEMORY_BUDGET.unit, EN)
    for symbol in (own, english, english.lower()):
        assert MEMORY_BUDGET.read(f"{half} {symbol}", locale) == Decimal("0.5"), symbol
    with pytest.raises(NumberOnly):
        MEMORY_BUDGET.read(f"{half} MB", locale)


@pytest.mark.parametrize("locale", LOCALES)
def test_a_value_the_calculation_refuses_is_written_to_the_address_as_addresses_write_numbers(locale):
    """A budget smaller than one sample reads fine and is refused by the plan: its address carries 8.5, not the
    locale's 8,5, so that the page in any language reads the same number and shows the same problem (Spanish review,
    round 23, D2)."""
    plan, parsed = load("plan"), Locale.parse(locale)
    texts = restore(plan, "?target_batch=64&gpus=1&activation_per_sample=9&memory_budget=8.5", parsed)
    shown = evaluate(plan, texts, parsed, NullTranslations(), restoring=True)
    assert shown.errors["memory_budget"] is not None
    assert "memory_budget=8.5" in shown.address
    english = Locale.parse("en")
    again = evaluate(plan, restore(plan, shown.address, english), english, NullTranslations(), restoring=True)
    assert again.errors["memory_budget"].startswith("One sample alone needs 9.00")
