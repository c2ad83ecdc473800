"""What can be wrong with an input's value, each kind of problem with its own words.

An :class:`InputProblem` is raised where the problem is found: reading a
field's text (:mod:`calc.parsing`, :mod:`calc.inputs`), or a calculation
that finds a combination of values that cannot be (heads that do not
divide the width). Each kind is a subclass that holds what its message
needs (numbers as :class:`~decimal.Decimal`, formatted only when worded)
and words it through the locale's gettext catalog in :meth:`~InputProblem.message`.

The kinds here are those of every number and choice; a calculator's own
(:class:`calc.plan.SampleExceedsBudget`) sits in its module. A new kind
is a subclass: nothing else changes.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from dataclasses import field as _attribute
from decimal import Decimal
from gettext import NullTranslations
from typing import TYPE_CHECKING, ClassVar

from babel import Locale
from babel.numbers import get_decimal_symbol

from calc.formatting import format_names, format_number, format_quantity, unit_symbol

if TYPE_CHECKING:
    from calc.inputs import Input


@dataclass
class InputProblem(ValueError):
    """Why a value is not acceptable, and the sentence that says so.

    ``field`` names the input at fault when a calculation, not the reading
    of one input, finds the problem.
    """

    field: str | None = _attribute(default=None, kw_only=True)

    @classmethod
    def examples(cls) -> tuple[InputProblem, ...]:
        """Problems of this kind whose words take every path :meth:`message` has (the site's Babel keeps what they
        format: sitebuild/babel_usage.py). A kind that holds nothing is its own; one that holds data gives its own."""
        if any(not attribute.kw_only for attribute in fields(cls)):
            raise NotImplementedError(f"{cls.__name__} holds data: give it examples()")
        return (cls(),)

    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        """One sentence telling what is wrong with ``input``'s value and what it takes."""
        raise NotImplementedError(f"{type(self).__name__} has no message")

    def __str__(self) -> str:
        return repr(self)


@dataclass
class NamesTheWayOut:
    """What a kind of problem whose words name what would do instead shares: ``names`` (architectures, dtypes, which no
    language changes), joined as the locale joins a list, by "or" with ``style = "or"``. A kind, ``class
    Kind(NamesTheWayOut, InputProblem)``, is its message id, ``words``, where ``%(names)s`` stands for them."""

    names: tuple[str, ...]
    words: ClassVar[str]
    style: ClassVar[str] = "standard"

    @classmethod
    def examples(cls) -> tuple[InputProblem, ...]:
        return (cls(("x",)), cls(("x", "y")))

    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext(self.words) % {"names": format_names(self.names, locale, style=self.style)}


def quantity(value: Decimal, input: Input, locale: Locale) -> str:
    """A number in ``input``'s unit, kept on one line."""
    return format_quantity(value, input.unit, locale, breakable=False)


@dataclass
class NotANumber(InputProblem):
    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        _ = translations.gettext
        if input.whole:
            return _("Enter a whole number, such as %(example)s.") % {"example": input.sample(locale)}
        return _("Enter a number, such as %(example)s.") % {"example": input.sample(locale)}


@dataclass
class NotWhole(InputProblem):
    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext("Enter a whole number, without decimals.")


@dataclass
class NumberOnly(InputProblem):
    """A word after the number that is not the field's unit."""

    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        _ = translations.gettext
        if input.unit:
            return _("Type the number only, in %(unit)s.") % {"unit": unit_symbol(input.unit, locale)}
        return _("Type the number only.")


@dataclass
class DecimalMark(InputProblem):
    """The other convention's decimal mark: ``suggestion`` is the number in ours."""

    suggestion: Decimal

    @classmethod
    def examples(cls) -> tuple[InputProblem, ...]:
        return (cls(Decimal("1.5")),)

    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        _ = translations.gettext
        if get_decimal_symbol(locale) == ",":
            return _("Use a decimal comma: %(suggestion)s.") % {"suggestion": input.text(self.suggestion, locale)}
        return _("Use a decimal point: %(suggestion)s.") % {"suggestion": input.text(self.suggestion, locale)}


@dataclass
class ForeignGrouping(InputProblem):
    """The other convention's thousands separators: ``suggestion`` is the number without them."""

    suggestion: Decimal

    @classmethod
    def examples(cls) -> tuple[InputProblem, ...]:
        return (cls(Decimal(1500)),)

    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext("Leave out the thousands separators: %(suggestion)s.") % {
            "suggestion": input.text(self.suggestion, locale)
        }


@dataclass
class Ambiguous(InputProblem):
    """A text that reads as ``ours`` in the locale's notation and as ``foreign`` in the other."""

    ours: Decimal
    foreign: Decimal

    @classmethod
    def examples(cls) -> tuple[InputProblem, ...]:
        return (cls(Decimal(1500), Decimal("1.5")),)

    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext("Did you mean %(ours)s or %(foreign)s? Type the one you mean as shown.") % {
            "ours": input.text(self.ours, locale),
            "foreign": input.text(self.foreign, locale),
        }


@dataclass
class TooSmall(InputProblem):
    minimum: Decimal

    @classmethod
    def examples(cls) -> tuple[InputProblem, ...]:
        return (cls(Decimal(2)),)

    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext("Enter at least %(minimum)s.") % {"minimum": quantity(self.minimum, input, locale)}


@dataclass
class NotPositive(InputProblem):
    """At most ``minimum``, which the value must exceed."""

    minimum: Decimal

    @classmethod
    def examples(cls) -> tuple[InputProblem, ...]:
        return (cls(Decimal(0)),)

    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext("Enter a value greater than %(minimum)s.") % {
            "minimum": quantity(self.minimum, input, locale)
        }


@dataclass
class TooLarge(InputProblem):
    """More than ``maximum``.

    >>> from calc.inputs import Count
    >>> steps = Count("steps", "Steps", "", default=Decimal(8), maximum=Decimal(1000))
    >>> TooLarge(Decimal(1000)).message(steps, Locale.parse("en"), NullTranslations())
    'Enter at most 1,000.'
    """

    maximum: Decimal

    @classmethod
    def examples(cls) -> tuple[InputProblem, ...]:
        return (cls(Decimal(1000)),)

    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext("Enter at most %(maximum)s.") % {"maximum": quantity(self.maximum, input, locale)}


@dataclass
class NotAnOption(InputProblem):
    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext("Choose one of the listed options.")


@dataclass
class NoneChosen(InputProblem):
    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext("Choose at least one option.")


@dataclass
class TooManyDecimals(InputProblem):
    places: int

    @classmethod
    def examples(cls) -> tuple[InputProblem, ...]:
        return (cls(1), cls(2))

    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.ngettext(
            "Use at most %(count)s decimal place.",
            "Use at most %(count)s decimal places.",
            self.places,
        ) % {"count": format_number(Decimal(self.places), locale)}
