"""From the texts of a calculator's fields to the view a page shows.

The build calls :func:`evaluate` to pre-render a page's results and the
web worker calls it on every edit, so both show the same strings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Context, Decimal, Inexact, InvalidOperation, Overflow, Rounded, localcontext
from gettext import NullTranslations

from babel import Locale

from calc.fields import Field
from calc.formatting import format_number, format_quantity
from calc.messages import describe
from calc.parsing import InputProblem

# Results must be exact: any rounding would raise instead of showing a
# value that differs from the formula's.
_EXACT = Context(prec=100, traps=[Inexact, Rounded, Overflow, InvalidOperation])


@dataclass(frozen=True)
class Quantity:
    """A computed value and its CLDR unit id (``None`` for a plain count)."""

    value: Decimal
    unit: str | None = None


@dataclass(frozen=True)
class Calculator:
    """A calculator: its fields, the names of its results, and its formulas.

    ``compute`` receives every field's value by name and returns every
    output's :class:`Quantity` by name; ``summarize`` words the formatted
    outputs as one sentence for a screen reader. ``examples`` are named
    sets of field values (over the defaults) that a page's prose works
    through.
    """

    name: str
    fields: tuple[Field, ...]
    outputs: tuple[str, ...]
    compute: Callable[[Mapping[str, Decimal]], Mapping[str, Quantity]]
    summarize: Callable[[Mapping[str, str], NullTranslations], str]
    examples: Mapping[str, Mapping[str, Decimal]] = field(default_factory=dict)

    def results(self, values: Mapping[str, Decimal]) -> Mapping[str, Quantity]:
        """The outputs for ``values``, computed exactly."""
        with localcontext(_EXACT):
            return self.compute(values)


@dataclass(frozen=True)
class View:
    """What a page shows: each field's error (or ``None``), each output's
    text (empty while there is no result), the prompt shown instead of the
    results (``None`` when there are results), and the one sentence a
    screen reader announces once the reader pauses."""

    errors: dict[str, str | None]
    outputs: dict[str, str]
    prompt: str | None
    announcement: str

    def as_dict(self) -> dict[str, object]:
        return {
            "errors": self.errors,
            "outputs": self.outputs,
            "prompt": self.prompt,
            "announcement": self.announcement,
        }


def default_texts(calculator: Calculator, locale: Locale) -> dict[str, str]:
    """Each field's default value as the page pre-fills it."""
    return {f.name: format_number(f.default, locale) for f in calculator.fields}


def evaluate(
    calculator: Calculator,
    texts: Mapping[str, str],
    locale: Locale,
    translations: NullTranslations,
) -> View:
    """Read every field, then compute and format the results if all are valid.

    >>> from calc.accumulation import CALCULATOR
    >>> es = Locale.parse("es")
    >>> evaluate(CALCULATOR, default_texts(CALCULATOR, es), es, NullTranslations()).outputs
    {'effective_batch': '32', 'activation_memory': '2 GB'}
    """
    _, ngettext = translations.gettext, translations.ngettext
    values: dict[str, Decimal] = {}
    errors: dict[str, str | None] = {}
    blank = False
    for f in calculator.fields:
        errors[f.name] = None
        try:
            value = f.read(texts.get(f.name, ""), locale)
        except InputProblem as problem:
            errors[f.name] = describe(problem, f, locale, translations)
            continue
        if value is None:
            blank = True
        else:
            values[f.name] = value

    invalid = sum(error is not None for error in errors.values())
    if invalid:
        prompt = ngettext(
            "Correct the highlighted value to see the results.",
            "Correct the %(count)s highlighted values to see the results.",
            invalid,
        ) % {"count": format_number(Decimal(invalid), locale)}
    elif blank:
        prompt = _("Enter a value in every field to see the results.")
    else:
        results = calculator.results(values)
        outputs = {name: format_quantity(q.value, q.unit, locale) for name, q in results.items()}
        return View(errors, outputs, None, calculator.summarize(outputs, translations))
    # The reader is in the field that went wrong: its message says it all.
    announcement = " ".join(error for error in errors.values() if error) or prompt
    return View(errors, {name: "" for name in calculator.outputs}, prompt, announcement)
