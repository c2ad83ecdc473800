"""Reading typed numbers in Spanish and Italian notation."""

from decimal import Decimal

import pytest
from babel import Locale

from calc.parsing import InputProblem, parse_number

LOCALES = [pytest.param(Locale.parse("es"), id="es"), pytest.param(Locale.parse("it"), id="it")]


def problem(text: str, locale: Locale, *, whole: bool) -> InputProblem:
    with pytest.raises(InputProblem) as caught:
        parse_number(text, locale, whole=whole)
    return caught.value


@pytest.mark.parametrize("locale", LOCALES)
class TestWholeNumbers:
    @pytest.mark.parametrize(
        ("text", "value"),
        [("4", 4), (" 8 ", 8), ("\u00a016\t", 16), ("007", 7), ("1.024", 1024), ("1.000.000", 1000000), ("+3", 3)],
    )
    def test_reads(self, locale, text, value):
        assert parse_number(text, locale, whole=True) == Decimal(value)

    @pytest.mark.parametrize("text", ["-2", "\u22122", "- 2"])
    def test_negative_numbers_are_read_for_the_range_check(self, locale, text):
        assert parse_number(text, locale, whole=True) == Decimal(-2)

    @pytest.mark.parametrize("text", ["", "   ", "\u00a0"])
    def test_blank_is_no_value(self, locale, text):
        assert parse_number(text, locale, whole=True) is None

    @pytest.mark.parametrize("text", ["4,5", "1.5", "1,000", "12.34", "1.00", "4,"])
    def test_decimals_are_not_whole(self, locale, text):
        assert problem(text, locale, whole=True).code == "not_whole"

    @pytest.mark.parametrize("text", ["abc", "4a", "1e3", "inf", "nan", "0x10", "4 4", "--4", "½", "٤"])
    def test_other_text_is_not_a_number(self, locale, text):
        assert problem(text, locale, whole=True).code == "not_a_number"


@pytest.mark.parametrize("locale", LOCALES)
class TestDecimals:
    @pytest.mark.parametrize(
        ("text", "value"),
        [
            ("0,5", "0.5"),
            ("  0,5  ", "0.5"),
            (",5", "0.5"),
            ("2", "2"),
            ("2,", "2"),
            ("12,125", "12.125"),
            ("0,000001", "0.000001"),
        ],
    )
    def test_reads(self, locale, text, value):
        assert parse_number(text, locale, whole=False) == Decimal(value)

    @pytest.mark.parametrize(
        ("text", "suggestion"),
        [("0.5", "0.5"), (".5", "0.5"), ("12.75", "12.75"), ("1.250", "1.250")],
    )
    def test_a_decimal_point_is_refused_with_the_comma_version(self, locale, text, suggestion):
        refused = problem(text, locale, whole=False)
        assert (refused.code, refused.details) == ("decimal_mark", {"suggestion": Decimal(suggestion)})

    @pytest.mark.parametrize(("text", "suggestion"), [("1.250,5", "1250.5"), ("1.000.000", "1000000")])
    def test_thousands_separators_are_refused(self, locale, text, suggestion):
        refused = problem(text, locale, whole=False)
        assert (refused.code, refused.details) == ("grouped_decimal", {"suggestion": Decimal(suggestion)})

    @pytest.mark.parametrize("text", ["0,5,5", "0.5.5", ",", ".", "1,2.5", "abc", "0,5 GB", "5e-1"])
    def test_other_text_is_not_a_number(self, locale, text):
        assert problem(text, locale, whole=False).code == "not_a_number"


def test_a_huge_paste_is_read_without_conversion_limits():
    digits = "9" * 5000
    assert parse_number(digits, Locale.parse("es"), whole=True) == Decimal(digits)
