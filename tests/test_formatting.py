"""Numbers and gigabytes written to CLDR's rules for Spanish and Italian."""

from decimal import Decimal

import pytest
from babel import Locale

from calc.formatting import format_number, format_quantity, unit_symbol

ES, IT = Locale.parse("es"), Locale.parse("it")


@pytest.mark.parametrize(
    ("value", "spanish", "italian"),
    [
        ("0", "0", "0"),
        ("1", "1", "1"),
        ("999", "999", "999"),
        ("1000", "1000", "1000"),  # CLDR: both group only from five digits
        ("9999", "9999", "9999"),
        ("10000", "10.000", "10.000"),
        ("1234567", "1.234.567", "1.234.567"),
        ("1000000000000", "1.000.000.000.000", "1.000.000.000.000"),
        ("0.5", "0,5", "0,5"),
        ("0.50", "0,5", "0,5"),
        ("2.0", "2", "2"),
        ("0.000001", "0,000001", "0,000001"),
        ("1234.125", "1234,125", "1234,125"),
        ("12345.678901", "12.345,678901", "12.345,678901"),
    ],
)
def test_numbers(value, spanish, italian):
    assert format_number(Decimal(value), ES) == spanish
    assert format_number(Decimal(value), IT) == italian


def test_ungrouped_numbers_for_suggestions():
    assert format_number(Decimal("12345.5"), IT, grouping=False) == "12345,5"


@pytest.mark.parametrize("locale", [pytest.param(ES, id="es"), pytest.param(IT, id="it")])
@pytest.mark.parametrize(("value", "text"), [("1", "1 GB"), ("2", "2 GB"), ("0.3", "0,3 GB"), ("10000", "10.000 GB")])
def test_gigabytes(locale, value, text):
    # Babel alone writes Italian "1 Gbyte"; CLDR's fallback is the "other" pattern.
    assert format_quantity(Decimal(value), "digital-gigabyte", locale) == text


def test_plain_counts_have_no_unit():
    assert format_quantity(Decimal(128), None, ES) == "128"


def test_unit_symbol():
    assert unit_symbol("digital-gigabyte", ES) == unit_symbol("digital-gigabyte", IT) == "GB"
