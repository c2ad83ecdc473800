"""From what a calculator's form holds to the view its page shows.

The build calls :func:`evaluate` to pre-render a page's results and the
web worker calls it on every edit, so both show the same strings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from gettext import NullTranslations
from urllib.parse import parse_qsl, urlencode

from babel import Locale

from calc.calculator import NOT_EXACT, Calculator, Changed
from calc.formatting import format_names, format_number
from calc.inputs import Input, Pasted, Raw, Value
from calc.outputs import Figure
from calc.problems import InputProblem


@dataclass(frozen=True)
class View:
    """What a page shows.

    ``errors``: each input's problem, or ``None``. ``outputs``: each
    output's view (empty while there are no results). ``prompt``: shown
    instead of the results, or ``None``. ``announcement``: the one sentence
    a screen reader hears once the reader pauses. ``texts``: inputs whose
    widget Python sets (from an address, or kept in step by ``settle``).
    ``address``: the inputs as the page's query string. ``links``: the
    query string each linked calculator's page gets; a page without one is not offered. ``offered``: for each
    input that hides some of its options (a group of checkboxes), the values
    of those shown.
    ``worded``: the figures that show words instead of a number (:meth:`calc.outputs.Figure.worded`).
    ``failed``: evaluating
    failed unexpectedly (a bug): the page keeps the address it had, the
    values to send with a report, instead of this view's empty one.
    ``values`` and ``results``: what the view shows, before formatting (the
    build's worked examples quote them); not sent to the page.
    """

    errors: dict[str, str | None]
    outputs: dict[str, object]
    prompt: str | None
    announcement: str
    texts: dict[str, Raw]
    address: str
    links: dict[str, str]
    offered: dict[str, list[str]]
    worded: list[str] = field(default_factory=list)
    failed: bool = False
    values: Mapping[str, Value | None] = field(default_factory=dict, repr=False, compare=False)
    results: Mapping[str, object] | None = field(default=None, repr=False, compare=False)

    def as_dict(self) -> dict[str, object]:
        return {
            "errors": self.errors,
            "outputs": self.outputs,
            "prompt": self.prompt,
            "announcement": self.announcement,
            "texts": self.texts,
            "address": self.address,
            "links": self.links,
            "offered": self.offered,
            "worded": self.worded,
            "failed": self.failed,
        }


def unavailable(calculator: Calculator, translations: NullTranslations) -> View:
    """What the page shows when evaluating failed unexpectedly: a message, and the page stays alive."""
    message = translations.gettext("Something went wrong with these values. Change one of them to try again.")
    outputs = {o.name: o.empty for o in calculator.outputs}
    errors = dict.fromkeys(i.name for i in calculator.inputs)
    return View(errors, outputs, message, message, {}, "", {}, {}, failed=True)


def default_texts(calculator: Calculator, locale: Locale) -> dict[str, Raw]:
    """Each input's default as the page pre-fills it."""
    return {i.name: i.text(i.default, locale) for i in calculator.inputs}


def restore(calculator: Calculator, address: str, locale: Locale) -> dict[str, Raw]:
    """The inputs' texts for a page opened at ``address`` (its query string).

    A value written as addresses write it is shown in the locale's
    notation; anything else is taken as if the reader had typed it, so an
    odd address gets a message beside its field, never a guess.

    >>> from calc.accumulation import CALCULATOR
    >>> restore(CALCULATOR, "?gpus=1024&activation_per_sample=0.25&x=1", Locale.parse("es"))["gpus"]
    '1024'
    >>> restore(CALCULATOR, "activation_per_sample=1.500", Locale.parse("es"))["activation_per_sample"]
    '1.500'

    A name given more than once, as addresses often write a list, is read as its values joined by commas, as this
    site writes a list (technical review, round 72: the last alone was read), so a number given twice gets a message.

    >>> restore(CALCULATOR, "?gpus=2&gpus=4", Locale.parse("en"))["gpus"]
    '2,4'
    """
    texts = default_texts(calculator, locale)
    given: dict[str, str] = {}
    for name, value in parse_qsl(address.removeprefix("?"), keep_blank_values=True):
        given[name] = f"{given[name]},{value}" if name in given else value
    describes_a_run = any(i.name in given for i in calculator.inputs)
    for i in calculator.inputs:
        if i.name in given:
            try:
                texts[i.name] = i.text(i.from_address(given[i.name]), locale)
            except ValueError:
                texts[i.name] = i.as_entered(given[i.name])
        elif describes_a_run and _names_its_default(i):
            texts[i.name] = i.text(None, locale)
    return texts


def _names_its_default(field: Input) -> bool:
    """Whether an address that describes a run must name the field even at its default.

    An optional field's default is a figure of the page's default run (the accumulation page's budget is what the
    VRAM page's default run leaves): beside another run's values it would describe neither, so an address that
    leaves it out leaves it blank.

    >>> from calc.accumulation import CALCULATOR
    >>> restore(CALCULATOR, "?activation_per_sample=0.5", Locale.parse("en"))["memory_budget"]
    ''
    >>> restore(CALCULATOR, "", Locale.parse("en"))["memory_budget"]
    '8.01'
    """
    return field.in_address and field.optional and field.default is not None


def evaluate(
    calculator: Calculator,
    raw: Mapping[str, Raw],
    locale: Locale,
    translations: NullTranslations,
    *,
    changed: Changed = None,
    restoring: bool = False,
) -> View:
    """Read every input, keep linked ones in step, then compute and show the results if all are valid.

    ``changed`` names the inputs the reader edited since the page last read
    the form (``None``: the page opens); ``restoring`` says the texts come
    from the page's address, so the page shows them all.

    >>> from calc.accumulation import CALCULATOR
    >>> es = Locale.parse("es")
    >>> outputs = evaluate(CALCULATOR, default_texts(CALCULATOR, es), es, NullTranslations()).outputs
    >>> outputs["effective_batch"], outputs["activation_memory"]
    ('64', '7,45\xa0GB')
    """
    _, ngettext = translations.gettext, translations.ngettext
    inputs = {i.name: i for i in calculator.inputs}
    texts = {name: raw.get(name, "") for name in inputs}
    values: dict[str, Value | None] = {}
    errors: dict[str, str | None] = dict.fromkeys(inputs)
    for name, i in inputs.items():
        try:
            values[name] = i.read(texts[name], locale)
        except InputProblem as problem:
            errors[name] = problem.message(i, locale, translations)
    proposed = calculator.settle(values, changed)
    # What the reader's choice fills (a preset, a listed GPU, a pasted config.json) replaces a field's refused text,
    # but not one the reader has just typed: that stays, with its problem.
    settled = {name: value for name, value in proposed.items() if errors[name] is None or name not in (changed or ())}
    if settled.keys() != proposed.keys():
        # A pasted text is cleared only once all it fills is applied, so that the reader need not paste it again.
        settled = {name: value for name, value in settled.items() if not isinstance(inputs[name], Pasted)}
    values.update(settled)
    for name, value in settled.items():
        errors[name] = None
        # A preset or a pasted config.json is held to the field's limits, as typing is; a figure derived from the
        # others is not.
        try:
            if value is not None and name not in calculator.derived:
                inputs[name].check(value)
        except InputProblem as problem:
            errors[name] = problem.message(inputs[name], locale, translations)
    # After settling: a field a preset has just filled in is not blank.
    blank = [name for name, i in inputs.items() if values.get(name, 0) is None and not i.optional]
    shown_texts = dict(texts) if restoring else {}
    for name, value in settled.items():
        texts[name] = shown_texts[name] = inputs[name].text(value, locale)

    results, unreachable = None, False
    if not blank and not any(errors.values()):
        try:
            results = calculator.results(values)
        except InputProblem as problem:
            if problem.field not in inputs:
                # A calculation's problem must say which field to mark: without one the reader could fix nothing.
                raise LookupError(f"{calculator.name}: {problem!r} names none of the page's inputs") from problem
            errors[problem.field] = problem.message(inputs[problem.field], locale, translations)
        except NOT_EXACT:
            # A combination no formula takes exactly: say so, and keep the page alive. Anything else is a bug.
            unreachable = True

    outputs: dict[str, object] = {o.name: o.empty for o in calculator.outputs}
    links: dict[str, str] = {}
    worded: list[str] = []
    invalid = [name for name, error in errors.items() if error]
    if invalid:
        prompt = ngettext(
            "Correct the highlighted value to see the results.",
            "Correct the %(count)s highlighted values to see the results.",
            len(invalid),
        ) % {"count": format_number(Decimal(len(invalid)), locale)}
        # Each problem with the name of its field: a screen reader hears this away from the fields.
        announcement = " ".join(
            _("%(field)s: %(problem)s") % {"field": _(inputs[name].label), "problem": errors[name]} for name in invalid
        )
    elif blank:
        # Named, since a page opened from a link may leave a field empty that the reader never touched.
        prompt = announcement = ngettext(
            "Fill in the field %(fields)s to see the results.",
            "Fill in the fields %(fields)s to see the results.",
            len(blank),
        ) % {
            "fields": format_names(
                [_("“%(field)s”") % {"field": _(inputs[name].label)} for name in blank], locale=locale
            )
        }
    elif unreachable:
        prompt = announcement = _("These values cannot be computed exactly. Change one of them to see the results.")
    else:
        prompt = None
        outputs = {o.name: o.render(results[o.name], locale, translations) for o in calculator.outputs}
        worded = [o.name for o in calculator.outputs if isinstance(o, Figure) and o.worded(results[o.name])]
        texts_shown = {n: t for n, t in outputs.items() if isinstance(t, str)}
        announcement = calculator.summarize(texts_shown, results, translations)
        links = {page: urlencode(carried) for page, carried in calculator.links(values, results).items()}
    offered = {name: shown for name, i in inputs.items() if (shown := i.offered(values)) is not None}
    return View(
        errors,
        outputs,
        prompt,
        announcement,
        shown_texts,
        address(calculator, texts, values),
        links,
        offered,
        worded,
        values=values,
        results=results,
    )


def address(
    calculator: Calculator,
    texts: Mapping[str, Raw],
    values: Mapping[str, Value | None],
) -> str:
    """The query string that reopens the page as it is: each input that differs from its default, and with them
    the optional inputs whose default belongs to the default run.

    A value the field read is written as addresses write it, even where the calculation then refused it (a budget
    smaller than one sample), so that a page in another locale reads the same number and finds the same problem; a
    text the field could not read, as it was typed.
    """
    pairs = {}
    for i in calculator.inputs:
        if not i.in_address:
            continue
        if i.name in values:
            if values[i.name] != i.default:
                pairs[i.name] = i.to_address(values[i.name])
        else:
            pairs[i.name] = i.entered_address(texts[i.name])
    if pairs:
        # Such an address describes a run of its own, and :func:`restore` leaves a field it omits blank.
        for i in calculator.inputs:
            if i.name not in pairs and _names_its_default(i):
                pairs[i.name] = i.to_address(values[i.name])
    return urlencode([(i.name, pairs[i.name]) for i in calculator.inputs if i.name in pairs])
