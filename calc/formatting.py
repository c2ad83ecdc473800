"""Writing numbers and quantities in the page's locale, to CLDR's rules.

Values are shown exactly: every digit the arithmetic produced, none
invented by rounding. Babel supplies the symbols and patterns; two CLDR
rules it does not apply are applied here (see the comments below).
"""

from __future__ import annotations

from decimal import Decimal

from babel import Locale
from babel.numbers import format_decimal

# CLDR's <minimumGroupingDigits> (common/main/*.xml), which Babel does not
# import: Spanish, and Italian since CLDR 46, write 1000 to 9999 ungrouped
# and group from 10 000 on, as the browsers' Intl.NumberFormat does.
# Locales absent here use 1, the CLDR root value.
_MINIMUM_GROUPING_DIGITS = {"es": 2, "it": 2}

# CLDR's plural fallback for unit patterns: a missing category uses "other".
# Babel instead falls back to the unit's display name, which in Italian
# turns 1 GB into "1 Gbyte".
_FALLBACK_PLURAL = "other"


def format_number(value: Decimal, locale: Locale, *, grouping: bool = True) -> str:
    """``value`` with every significant digit, in ``locale``'s notation.

    ``grouping=False`` leaves out group separators, for text a visitor may
    type back into a field that refuses them.

    >>> es, it = Locale.parse("es"), Locale.parse("it")
    >>> format_number(Decimal("0.50"), es)
    '0,5'
    >>> format_number(Decimal(1000), es), format_number(Decimal(1000), it)
    ('1000', '1000')
    >>> format_number(Decimal(10000), es), format_number(Decimal(10000), es, grouping=False)
    ('10.000', '10000')
    """
    if value == value.to_integral_value():
        value = value.quantize(Decimal(1))
    else:
        value = value.normalize()
    return format_decimal(
        value,
        locale=locale,
        decimal_quantization=False,
        group_separator=grouping and _groups(value, locale),
    )


def _groups(value: Decimal, locale: Locale) -> bool:
    minimum = _MINIMUM_GROUPING_DIGITS.get(locale.language, 1)
    primary = locale.decimal_formats[None].grouping[0]
    integer_digits = value.adjusted() + 1
    return integer_digits >= primary + minimum


def format_quantity(value: Decimal, unit: str | None, locale: Locale) -> str:
    """``value`` followed by ``unit`` (a CLDR unit id) in its short form.

    >>> format_quantity(Decimal(1), "digital-gigabyte", Locale.parse("it"))
    '1 GB'
    >>> format_quantity(Decimal("0.3"), "digital-gigabyte", Locale.parse("es"))
    '0,3 GB'
    >>> format_quantity(Decimal(32), None, Locale.parse("es"))
    '32'
    """
    number = format_number(value, locale)
    if unit is None:
        return number
    patterns = _unit_patterns(unit, locale)
    pattern = patterns.get(locale.plural_form(value)) or patterns[_FALLBACK_PLURAL]
    return pattern.format(number)


def unit_symbol(unit: str, locale: Locale) -> str:
    """The short unit alone, as shown beside an input.

    >>> unit_symbol("digital-gigabyte", Locale.parse("it"))
    'GB'
    """
    return _unit_patterns(unit, locale)[_FALLBACK_PLURAL].replace("{0}", "").strip()


def _unit_patterns(unit: str, locale: Locale) -> dict[str, str]:
    # Babel has no public accessor for a unit's patterns by plural category.
    return locale._data["unit_patterns"][unit]["short"]
