"""Reading typed numbers in each locale's notation.

Cases are written with placeholders for the marks, so that they hold for
every locale in the locale list: ``D`` is the locale's decimal mark and
``G`` its group mark; ``d`` and ``g`` are the other convention's (what a
visitor used to it types instead).
"""

from decimal import Decimal

import pytest
from babel import Locale
from babel.localedata import locale_identifiers
from babel.numbers import get_decimal_symbol, get_group_symbol

from calc.formatting import format_number
from calc.parsing import field_text, parse_number
from calc.problems import Ambiguous, DecimalMark, ForeignGrouping, InputProblem, NotANumber, NotWhole
from sitebuild.config import LOCALES


def notation(locale: Locale):
    marks = {"D": get_decimal_symbol(locale), "G": get_group_symbol(locale)}
    marks |= {"d": "." if marks["D"] == "," else ",", "g": marks["D"]}

    def written(case: str) -> str:
        return "".join(marks.get(c, c) for c in case)

    return written


@pytest.fixture(params=LOCALES)
def locale(request):
    parsed = Locale.parse(request.param)
    parsed.written = notation(parsed)
    return parsed


def problem(text: str, locale: Locale, *, whole: bool) -> InputProblem:
    with pytest.raises(InputProblem) as caught:
        parse_number(text, locale, whole=whole)
    return caught.value


class TestWholeNumbers:
    @pytest.mark.parametrize(
        ("case", "value"),
        [
            ("4", 4),
            (" 8 ", 8),
            ("\u00a016\t", 16),
            ("007", 7),
            ("1G024", 1024),
            ("1G000G000", 1000000),
            ("+3", 3),
            # A space groups digits in every locale (the RAE recommends it).
            ("1 024", 1024),
            ("1\u00a0024", 1024),
            ("1\u202f000\u202f000", 1000000),
        ],
    )
    def test_reads(self, locale, case, value):
        assert parse_number(locale.written(case), locale, whole=True) == Decimal(value)

    @pytest.mark.parametrize("text", ["-2", "\u22122", "- 2"])
    def test_negative_numbers_are_read_for_the_range_check(self, locale, text):
        assert parse_number(text, locale, whole=True) == Decimal(-2)

    @pytest.mark.parametrize("text", ["", "   ", "\u00a0"])
    def test_blank_is_no_value(self, locale, text):
        assert parse_number(text, locale, whole=True) is None

    @pytest.mark.parametrize("case", ["4D5", "1d5", "12D34", "1D00", "4D", "1G00"])
    def test_decimals_are_not_whole(self, locale, case):
        assert problem(locale.written(case), locale, whole=True) == NotWhole()

    def test_the_other_grouping_reads_as_our_decimal_too_so_both_are_named(self, locale):
        assert problem(locale.written("1D000"), locale, whole=True) == Ambiguous(Decimal(1), Decimal(1000))

    def test_the_other_grouping_alone_is_refused_with_the_plain_number(self, locale):
        assert problem(locale.written("1g000g000"), locale, whole=True) == ForeignGrouping(Decimal(1000000))

    @pytest.mark.parametrize("text", ["abc", "4a", "1e3", "inf", "nan", "0x10", "4 4", "--4", "½", "٤", "1 02"])
    def test_other_text_is_not_a_number(self, locale, text):
        assert problem(text, locale, whole=True) == NotANumber()


class TestDecimals:
    @pytest.mark.parametrize(
        ("case", "value"),
        [
            ("0D5", "0.5"),
            ("  0D5  ", "0.5"),
            ("D5", "0.5"),
            ("2", "2"),
            ("2D", "2"),
            ("12D25", "12.25"),
            ("0D000001", "0.000001"),
            ("0D500", "0.5"),
            # Grouping that the other convention cannot read is unambiguous.
            ("1G250D5", "1250.5"),
            ("1G000G000", "1000000"),
            ("1 500", "1500"),
            ("1 500D25", "1500.25"),
        ],
    )
    def test_reads(self, locale, case, value):
        assert parse_number(locale.written(case), locale, whole=False) == Decimal(value)

    @pytest.mark.parametrize(
        ("case", "suggestion"),
        [("0d5", "0.5"), ("d5", "0.5"), ("12d75", "12.75"), ("0d500", "0.5"), ("1g250d5", "1250.5")],
    )
    def test_the_other_decimal_mark_is_refused_with_ours(self, locale, case, suggestion):
        assert problem(locale.written(case), locale, whole=False) == DecimalMark(Decimal(suggestion))

    def test_the_other_grouping_is_refused_with_the_plain_number(self, locale):
        assert problem(locale.written("1g000g000"), locale, whole=False) == ForeignGrouping(Decimal(1000000))

    @pytest.mark.parametrize(
        ("case", "ours", "foreign"),
        [
            # Our decimal, or the other convention's grouping.
            ("1D500", "1.5", "1500"),
            ("12D125", "12.125", "12125"),
        ],
    )
    def test_text_with_two_readings_names_both(self, locale, case, ours, foreign):
        assert problem(locale.written(case), locale, whole=False) == Ambiguous(Decimal(ours), Decimal(foreign))

    @pytest.mark.parametrize(("case", "ours", "foreign"), [("1G500", "1500", "1.5"), ("10G000", "10000", "10")])
    def test_our_grouping_has_two_readings_where_the_other_convention_writes_decimals_with_it(
        self, locale, case, ours, foreign
    ):
        # 1000 times apart. A group mark no convention writes decimals with
        # (CLDR French groups with a narrow space) has one reading only.
        if locale.written("G") == locale.written("d"):
            assert problem(locale.written(case), locale, whole=False) == Ambiguous(Decimal(ours), Decimal(foreign))
        else:
            assert parse_number(locale.written(case), locale, whole=False) == Decimal(ours)

    @pytest.mark.parametrize("case", ["0D5D5", "0d5d5", "D", "d", "1D2d5", "abc", "0D5 GB", "5e-1", "1 50"])
    def test_other_text_is_not_a_number(self, locale, case):
        assert problem(locale.written(case), locale, whole=False) == NotANumber()


def test_a_huge_paste_is_read_without_conversion_limits():
    digits = "9" * 5000
    assert parse_number(digits, Locale.parse("es"), whole=True) == Decimal(digits)


# Numbers of every size the pages write: grouped or not, whole or with decimals, one to twelve integer digits.
WRITTEN = [Decimal(v) for v in ("0", "7", "1234", "12345", "1234567", "123456789012", "0.5", "1234.5", "1234567.125")]


@pytest.mark.parametrize("identifier", sorted(locale_identifiers()))
def test_every_locale_reads_back_what_it_writes(identifier):
    """Not only the site's locales: a language added later, whatever its grouping (Hindi's 12,34,567) or its
    minimumGroupingDigits (Polish's 1234), reads its own notation as what it wrote."""
    locale = Locale.parse(identifier)
    for value in WRITTEN:
        shown = format_number(value, locale)
        if value == value.to_integral_value():
            assert parse_number(shown, locale, whole=True) == value, shown
        # In a decimal field a grouped number may also be the other convention's decimal: then ours is one reading.
        try:
            read = parse_number(shown, locale, whole=False)
        except Ambiguous as both:
            read = both.ours
        assert read == value, shown
        assert parse_number(field_text(value, locale), locale, whole=False) == value


def test_indian_grouping_is_read_in_its_own_groups():
    hindi = Locale.parse("hi")
    assert parse_number("12,34,567", hindi, whole=True) == Decimal(1234567)
    assert problem("1,234,567", hindi, whole=True) == NotWhole()
