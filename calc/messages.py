"""The words for each input problem, through the locale's gettext catalog."""

from __future__ import annotations

from gettext import NullTranslations

from babel import Locale
from babel.numbers import get_decimal_symbol

from calc.fields import Field
from calc.formatting import format_number, format_quantity
from calc.parsing import InputProblem


def describe(problem: InputProblem, field: Field, locale: Locale, translations: NullTranslations) -> str:
    """One sentence telling what is wrong with the field and what it takes.

    >>> from decimal import Decimal
    >>> steps = Field("steps", default=Decimal(8), maximum=Decimal(1000))
    >>> describe(InputProblem("too_large", maximum=Decimal(1000)), steps, Locale.parse("en"), NullTranslations())
    'Enter at most 1,000.'
    """
    _, ngettext = translations.gettext, translations.ngettext
    details = problem.details

    def number(name: str) -> str:
        return format_number(details[name], locale)

    def suggestion() -> str:
        # Ungrouped: the suggestion is meant to be typed back in as it reads.
        return format_number(details["suggestion"], locale, grouping=False)

    def quantity(name: str) -> str:
        return format_quantity(details[name], field.unit, locale)

    example = format_number(field.default, locale)
    match problem.code:
        case "not_a_number" if field.whole:
            return _("Enter a whole number, such as %(example)s.") % {"example": example}
        case "not_a_number":
            return _("Enter a number, such as %(example)s.") % {"example": example}
        case "not_whole":
            return _("Enter a whole number, without decimals.")
        case "decimal_mark" if get_decimal_symbol(locale) == ",":
            return _("Use a decimal comma: %(suggestion)s.") % {"suggestion": suggestion()}
        case "decimal_mark":
            return _("Use a decimal point: %(suggestion)s.") % {"suggestion": suggestion()}
        case "grouped_decimal":
            return _("Leave out the thousands separators: %(suggestion)s.") % {"suggestion": suggestion()}
        case "too_small":
            return _("Enter at least %(minimum)s.") % {"minimum": quantity("minimum")}
        case "not_positive":
            return _("Enter a value greater than %(minimum)s.") % {"minimum": quantity("minimum")}
        case "too_large":
            return _("Enter at most %(maximum)s.") % {"maximum": quantity("maximum")}
        case "too_many_decimals":
            count = int(details["count"])
            return ngettext(
                "Use at most %(count)s decimal place.",
                "Use at most %(count)s decimal places.",
                count,
            ) % {"count": number("count")}
    raise ValueError(f"no message for problem {problem.code!r}")
