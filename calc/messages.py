"""The words for what is wrong with an input's value, through the locale's gettext catalog."""

from __future__ import annotations

from gettext import NullTranslations

from babel import Locale
from babel.numbers import get_decimal_symbol

from calc.formatting import format_number, format_quantity, unit_symbol
from calc.parsing import InputProblem


def describe(problem: InputProblem, field, locale: Locale, translations: NullTranslations) -> str:
    """One sentence telling what is wrong with the field and what it takes.

    ``field`` is the input (a kind from :mod:`calc.inputs`) the problem is in.

    >>> from decimal import Decimal
    >>> from calc.inputs import Count
    >>> steps = Count("steps", "Steps", "", default=Decimal(8), maximum=Decimal(1000))
    >>> describe(InputProblem("too_large", maximum=Decimal(1000)), steps, Locale.parse("en"), NullTranslations())
    'Enter at most 1,000.'
    """
    _, ngettext = translations.gettext, translations.ngettext
    details = problem.details

    def number(name: str) -> str:
        return format_number(details[name], locale)

    def typed(name: str) -> str:
        # Ungrouped: a suggestion is meant to be typed back in as it reads.
        return format_number(details[name], locale, grouping=False)

    def quantity(name: str) -> str:
        return format_quantity(details[name], field.unit, locale, breakable=False)

    match problem.code:
        case "not_a_number" if field.whole:
            return _("Enter a whole number, such as %(example)s.") % {"example": field.sample(locale)}
        case "not_a_number":
            return _("Enter a number, such as %(example)s.") % {"example": field.sample(locale)}
        case "not_whole":
            return _("Enter a whole number, without decimals.")
        case "number_only" if field.unit:
            return _("Type the number only, in %(unit)s.") % {"unit": unit_symbol(field.unit, locale)}
        case "number_only":
            return _("Type the number only.")
        case "decimal_mark" if get_decimal_symbol(locale) == ",":
            return _("Use a decimal comma: %(suggestion)s.") % {"suggestion": typed("suggestion")}
        case "decimal_mark":
            return _("Use a decimal point: %(suggestion)s.") % {"suggestion": typed("suggestion")}
        case "foreign_grouping":
            return _("Leave out the thousands separators: %(suggestion)s.") % {"suggestion": typed("suggestion")}
        case "ambiguous":
            return _("Did you mean %(ours)s or %(foreign)s? Type the one you mean as shown.") % {
                "ours": typed("ours"),
                "foreign": typed("foreign"),
            }
        case "too_small":
            return _("Enter at least %(minimum)s.") % {"minimum": quantity("minimum")}
        case "not_positive":
            return _("Enter a value greater than %(minimum)s.") % {"minimum": quantity("minimum")}
        case "too_large":
            return _("Enter at most %(maximum)s.") % {"maximum": quantity("maximum")}
        case "not_an_option":
            return _("Choose one of the listed options.")
        case "none_chosen":
            return _("Choose at least one option.")
        case "sample_exceeds_budget":
            return _(
                "One sample alone needs %(needed)s, more than this budget. Lower the activation memory per sample: "
                "recompute activations, shorten the sequences, or estimate it again for your setup."
            ) % {"needed": quantity("needed")}
        case "heads_do_not_divide":
            return _("The hidden size must be divisible by the number of attention heads.")
        case "kv_heads_do_not_divide":
            return _("The attention heads must be divisible by the number of key and value heads.")
        case "experts_without_mixture":
            return _("Only a mixture of experts has these: leave the field blank, or choose %(mixtures)s.") % {
                "mixtures": details["mixtures"]
            }
        case "mixture_needs_value":
            return _("A mixture of experts needs this value.")
        case "more_experts_per_token_than_experts":
            return _("A token cannot go to more experts than a layer has.")
        case "expert_width_is_intermediate_size":
            return _("Mixtral's experts are as wide as its intermediate size: enter the same value.")
        case "not_in_model":
            return _("This model has no %(missing)s. Its projections are %(available)s.") % {
                "missing": details["missing"],
                "available": details["available"],
            }
        case "config_too_large":
            return _("This is longer than a config.json: paste one of at most %(limit)s bytes.") % {
                "limit": number("limit")
            }
        case "config_too_deep":
            return _("This JSON nests far deeper than a config.json does.")
        case "config_not_json":
            return _("This is not valid JSON: look at line %(line)s, character %(column)s.") % {
                "line": number("line"),
                "column": number("column"),
            }
        case "config_not_object":
            return _("A config.json holds one JSON object, between braces.")
        case "config_missing_key":
            return _("The config has no %(key)s.") % {"key": details["key"]}
        case "config_unknown_model_type":
            return _("The calculator reads the model types %(known)s, not %(model_type)s.") % {
                "known": details["known"],
                "model_type": details["model_type"],
            }
        case "config_not_count":
            return _("%(key)s is %(value)s: it should be a whole number, at least one.") % {
                "key": details["key"],
                "value": details["value"],
            }
        case "config_not_boolean":
            return _("%(key)s is %(value)s: it should be true or false.") % {
                "key": details["key"],
                "value": details["value"],
            }
        case "config_unsupported":
            return _("The calculator cannot count a model with %(key)s set to %(value)s.") % {
                "key": details["key"],
                "value": details["value"],
            }
        case "too_many_decimals":
            count = int(details["count"])
            return ngettext(
                "Use at most %(count)s decimal place.",
                "Use at most %(count)s decimal places.",
                count,
            ) % {"count": number("count")}
    raise ValueError(f"no message for problem {problem.code!r}")
