"""Writing numbers and quantities in the page's locale, to CLDR's rules.

Values are shown exactly: every digit the arithmetic produced, none
invented by rounding. Babel supplies the symbols and patterns; two CLDR
rules it does not apply are applied here (see the comments below), one with
CLDR data it does not import (calc/cldr.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache

from babel import Locale
from babel.lists import format_list
from babel.numbers import (
    format_compact_decimal,
    format_decimal,
    get_decimal_symbol,
    get_minus_sign_symbol,
    get_plus_sign_symbol,
)

from calc.cldr import MINIMUM_GROUPING_DIGITS

# The units the calculators show, by their CLDR ids (binary ones below).
GIGABYTE = "digital-gigabyte"
MEGABYTE = "digital-megabyte"
PERCENT = "concentr-percent"
GIBIBYTE = "digital-gibibyte"
MEBIBYTE = "digital-mebibyte"
# Not a unit: a large count said as prose says it (7.5 billion), where its digits would be a string of zeros.
IN_WORDS = "count-in-words"

# CLDR's plural fallback for unit patterns: a missing category uses "other".
# Babel instead falls back to the unit's display name, which in Italian
# turns 1 GB into "1 Gbyte".
_FALLBACK_PLURAL = "other"

# Binary units, which CLDR does not have: their IEC 80000-13 symbols are the
# same in every language. GPU memory is sized in them (an "80 GB" card has
# about 80 GiB); the ids follow CLDR's.
_IEC_UNITS = {GIBIBYTE: "GiB", MEBIBYTE: "MiB"}

# Every edit formats some forty numbers (figures, tables, a chart's ticks),
# most of them as the edit before did; Babel takes tens of microseconds for
# each. A number's text depends on its value alone (2.0 and 2 read alike),
# so equal Decimals may share it.
_REMEMBERED = 2048


@lru_cache(_REMEMBERED)
def format_number(value: Decimal, locale: Locale, *, grouping: bool = True) -> str:
    """``value`` with every significant digit, in ``locale``'s notation.

    ``grouping=False`` leaves out group separators, for text a visitor may
    type back into a field that refuses them.

    >>> en, es, it = Locale.parse("en"), Locale.parse("es"), Locale.parse("it")
    >>> format_number(Decimal(1024), en), format_number(Decimal("0.5"), en)
    ('1,024', '0.5')
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
    """Whether CLDR's <minimumGroupingDigits> lets ``value`` be grouped: in Spanish, Italian or Polish 1000 to 9999
    are not (a group of one digit left of the separator), as the browsers' Intl.NumberFormat writes them."""
    minimum = MINIMUM_GROUPING_DIGITS.get(str(locale), 1)
    primary = locale.decimal_formats[None].grouping[0]
    integer_digits = value.adjusted() + 1
    return integer_digits >= primary + minimum


def rounded(value: Decimal | Fraction, places: int) -> Decimal:
    """``value`` rounded half up to ``places`` decimal places, to show it.

    Integer arithmetic, so no decimal context can round it twice or refuse it.
    Half up is how the ZeRO paper prints its Table 1 (41.25 GB reads 41.3).

    >>> rounded(Fraction(4125, 100), 1)
    Decimal('41.3')
    >>> rounded(Fraction(1, 3), 4)
    Decimal('0.3333')
    >>> rounded(Fraction(120), 0)
    Decimal('120')
    """
    if value < 0 or places < 0:
        raise ValueError("rounded takes a non-negative value and number of places")
    scaled = Fraction(value) * 10**places
    whole, rest = divmod(scaled.numerator, scaled.denominator)
    if 2 * rest >= scaled.denominator:
        whole += 1
    return Decimal(f"{whole}E-{places}") if places else Decimal(whole)


def rounded_up(value: Decimal | Fraction, places: int) -> Decimal:
    """``value`` rounded up (away from zero) to ``places`` decimal places: a bound that stays true as written (at
    most 4.41% for 4.4021%), or a per-sample figure that never overstates what fits.

    >>> rounded_up(Fraction(44021, 10000), 2), rounded_up(Fraction(3), 2), rounded_up(Fraction(1, 10**9), 2)
    (Decimal('4.41'), Decimal('3.00'), Decimal('0.01'))
    """
    if value < 0 or places < 0:
        raise ValueError("rounded_up takes a non-negative value and number of places")
    scaled = Fraction(value) * 10**places
    whole = -(-scaled.numerator // scaled.denominator)
    return Decimal(whole).scaleb(-places)


def rounded_down(value: Decimal | Fraction, places: int) -> Decimal:
    """``value`` rounded down (toward zero) to ``places`` decimal places: memory to spend that never counts on a byte
    a GPU lacks (a card's capacity, what it leaves for the micro-batch). Three decimals would read as grouping in a
    field, and the field would ask which was meant.

    >>> rounded_down(Fraction(25757220864, 10**9), 2), rounded_down(Fraction(3), 2), rounded_down(Fraction(1, 10**9), 2)
    (Decimal('25.75'), Decimal('3.00'), Decimal('0.00'))
    """
    if value < 0 or places < 0:
        raise ValueError("rounded_down takes a non-negative value and number of places")
    scaled = Fraction(value) * 10**places
    return Decimal(scaled.numerator // scaled.denominator).scaleb(-places)


@lru_cache(_REMEMBERED)
def format_quantity(
    value: Decimal, unit: str | None, locale: Locale, *, breakable: bool = True, places: int | None = None
) -> str:
    """``value`` followed by ``unit`` (a CLDR unit id) in its short form.

    ``breakable=False`` joins number and unit with a no-break space, for
    prose, where a line must not end between them. ``places`` pads the
    decimals with zeros to that many, for a table's column, whose cells
    then align and read alike (4.20 GB under 16.23 GB).


    >>> format_quantity(Decimal(1), "digital-gigabyte", Locale.parse("it"))
    '1 GB'
    >>> format_quantity(Decimal("0.3"), "digital-gigabyte", Locale.parse("es"))
    '0,3 GB'
    >>> format_quantity(Decimal(10000), "digital-gigabyte", Locale.parse("en"), breakable=False)
    '10,000\xa0GB'
    >>> format_quantity(Decimal(32), None, Locale.parse("es"))
    '32'
    >>> format_quantity(Decimal("79.65"), "digital-gibibyte", Locale.parse("it"))
    '79,65 GiB'
    >>> format_quantity(Decimal("4.2"), "digital-gigabyte", Locale.parse("es"), places=2)
    '4,20 GB'
    >>> format_quantity(Decimal(1), "digital-gigabyte", Locale.parse("en"), places=2)
    '1.00 GB'
    """
    if unit == IN_WORDS:
        return in_words(value, locale, breakable=breakable)
    number = format_number(value, locale)
    if places:
        # Babel drops a Decimal's trailing zeros whatever its exponent: pad the shown decimals instead.
        decimal = get_decimal_symbol(locale)
        integer, _, fraction = number.partition(decimal)
        number = f"{integer}{decimal}{fraction.ljust(places, '0')}"
    if unit is None:
        return number
    patterns = _unit_patterns(unit, locale)
    pattern = patterns.get(locale.plural_form(value)) or patterns[_FALLBACK_PLURAL]
    if not breakable:
        pattern = pattern.replace(" ", "\u00a0")
    return pattern.format(number)


def format_names(names: Iterable[str], locale: Locale, *, style: str = "standard") -> str:
    """Names (architectures, modules, dtypes, or words already translated) joined as ``locale`` joins a list, to CLDR's
    list patterns: the last two by "and" ("or" with ``style="or"``), the others by commas.

    >>> en, es, it = Locale.parse("en"), Locale.parse("es"), Locale.parse("it")
    >>> format_names(["llama", "mistral", "qwen2"], en), format_names(["llama", "qwen2"], es)
    ('llama, mistral, and qwen2', 'llama y qwen2')
    >>> format_names(["bf16", "fp16"], it, style="or"), format_names(["q_proj"], en)
    ('bf16 o fp16', 'q_proj')
    """
    return format_list(list(names), style=style, locale=locale)


def unit_symbol(unit: str, locale: Locale) -> str:
    """The short unit alone, as shown beside an input.

    >>> unit_symbol("digital-gigabyte", Locale.parse("it"))
    'GB'
    """
    return _unit_patterns(unit, locale)[_FALLBACK_PLURAL].replace("{0}", "").strip()


def in_words(value: Decimal, locale: Locale, *, breakable: bool = True) -> str:
    """A count of a million or more as prose says it: CLDR's long compact form, in whole units where it has no
    decimals (so that Italian's singular, «1 miliardo», is the one CLDR gives an integer), but Spanish says thousands
    of millions in millions (7500 millones), as the native reviews of rounds 21 and 22 asked, not «7,5 mil millones»,
    and a round thousand of them in letters, as the RAE writes round numbers (mil millones).

    >>> en, es, it = Locale.parse("en"), Locale.parse("es"), Locale.parse("it")
    >>> in_words(Decimal("7.5E9"), en), in_words(Decimal("1E9"), it), in_words(Decimal("7.5E9"), it)
    ('7.5 billion', '1 miliardo', '7,5 miliardi')
    >>> in_words(Decimal("7.5E9"), es), in_words(Decimal("1E9"), es, breakable=False)
    ('7500 millones', 'mil\xa0millones')
    """
    if locale.language == "es" and 10**9 <= value < 10**12:
        millions = value / 10**6
        text = f"{'mil' if millions == 1000 else format_number(millions, locale)} millones"
    else:
        whole = int(value) if value == value.to_integral_value() else value
        text = format_compact_decimal(whole, format_type="long", locale=locale, fraction_digits=2)
    return text if breakable else text.replace(" ", "\u00a0")


def _unit_patterns(unit: str, locale: Locale) -> dict[str, str]:
    if unit in _IEC_UNITS:
        return {_FALLBACK_PLURAL: "{0} " + _IEC_UNITS[unit]}
    # Babel has no public accessor for a unit's patterns by plural category.
    return locale._data["unit_patterns"][unit]["short"]


def sign(negative: bool, locale: Locale) -> str:
    """The sign a difference is written with, in a column of them: CLDR gives en, es and it the hyphen-minus, a sign to
    type and parse back, but a table is read, not parsed, and the minus sign (U+2212) is as wide as + and the digits,
    so the column lines up. A locale whose CLDR sign is already U+2212 (sv, fi) keeps its own.

    >>> sign(True, Locale.parse("en")), sign(False, Locale.parse("it"))
    ('−', '+')
    """
    return get_minus_sign_symbol(locale).replace("-", "\u2212") if negative else get_plus_sign_symbol(locale)
