"""Numbers and gigabytes written to CLDR's rules, in every locale."""

from decimal import Decimal

import pytest
from babel import Locale
from babel.core import get_cldr_version

from calc.cldr import CLDR_VERSION
from calc.formatting import format_number, format_quantity, unit_symbol
from sitebuild.config import LOCALES
from tests.expectations import expected

NUMBERS = [
    pytest.param(locale, *case, id=f"{locale}-{case[0]}") for locale in LOCALES for case in expected(locale).numbers
]


@pytest.mark.parametrize(("locale", "value", "plain", "gigabytes"), NUMBERS)
def test_numbers(locale, value, plain, gigabytes):
    parsed = Locale.parse(locale)
    assert format_number(Decimal(value), parsed) == plain
    # Babel alone writes Italian "1 Gbyte"; CLDR's fallback is the "other" pattern.
    assert format_quantity(Decimal(value), "digital-gigabyte", parsed) == gigabytes


# The spaces a line does not break at: CLDR writes either (French units take the narrow one).
NO_BREAK_SPACES = "\u00a0\u202f"


@pytest.mark.parametrize("locale", LOCALES)
def test_prose_keeps_a_quantity_on_one_line(locale):
    text = format_quantity(Decimal(2), "digital-gigabyte", Locale.parse(locale), breakable=False)
    spaces = {c for c in text if c.isspace()}
    assert spaces and spaces <= set(NO_BREAK_SPACES)


@pytest.mark.parametrize(
    ("locale", "value", "written"),
    [
        # CLDR's minimumGroupingDigits of 2, as Intl.NumberFormat writes them: no group of one digit.
        ("pl", "1234", "1234"),
        ("pl", "12345", "12\u00a0345"),
        ("bg", "1234", "1234"),
        # Groups of two before the last three.
        ("hi", "1234567", "12,34,567"),
        ("en_IN", "1234", "1,234"),
    ],
)
def test_languages_the_site_may_add_are_written_to_their_own_rules(locale, value, written):
    assert format_number(Decimal(value), Locale.parse(locale)) == written


def test_ungrouped_numbers_for_suggestions():
    assert format_number(Decimal("12345.5"), Locale.parse("it"), grouping=False) == "12345,5"


def test_plain_counts_have_no_unit():
    assert format_quantity(Decimal(128), None, Locale.parse("es")) == "128"


@pytest.mark.parametrize("locale", LOCALES)
def test_unit_symbol(locale):
    assert unit_symbol("digital-gigabyte", Locale.parse(locale)) == expected(locale).gigabyte


def test_the_cldr_data_babel_lacks_is_of_babels_cldr():
    """calc/cldr.py is written from one CLDR version: upgrading Babel means writing it anew
    (tools/minimum_grouping_digits.py)."""
    assert CLDR_VERSION == get_cldr_version()
