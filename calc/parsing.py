"""Reading a number the way the page's locale writes one.

Only the locale's own notation is accepted, and only where it cannot be
read another way. Anything that the other great convention would read
differently is refused with an :class:`InputProblem` that names what the
visitor may have meant, never guessed at:

- ``0.5`` on a Spanish page (``0,5`` there) is refused with ``0,5``;
- ``1.500`` in a Spanish decimal field is 1500 by Spanish grouping and 1.5
  by English notation, so both readings are offered;
- ``1.250,5`` or ``1.000.000`` can only be Spanish grouping, and are read.

A space (plain, no-break or narrow no-break) groups thousands in any
locale: it is never a decimal mark, so it is never ambiguous.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from babel import Locale
from babel.numbers import get_decimal_symbol, get_group_symbol

from calc.formatting import format_number
from calc.problems import Ambiguous, DecimalMark, ForeignGrouping, NotANumber, NotWhole

# Signs people type: ASCII and the Unicode minus; a plus changes nothing.
_MINUS_SIGNS = frozenset("-\u2212")
_PLUS_SIGNS = frozenset("+")
# Spaces that group digits: the plain one people type, the no-break space
# and the narrow no-break space that CLDR locales such as fr write.
_SPACES = " \u00a0\u202f"


# How the other great convention groups digits: in threes.
_THREES = (3, 3)


@dataclass(frozen=True)
class _Notation:
    decimal: str
    group: str
    foreign_decimal: str
    foreign_group: str
    # The locale's (primary, secondary) grouping: (3, 3) for 1,000,000; (3, 2) for Hindi's 10,00,000.
    grouping: tuple[int, int]

    @classmethod
    def of(cls, locale: Locale) -> _Notation:
        decimal = get_decimal_symbol(locale)
        # The marks of the other great convention: what a visitor used to
        # it types instead of ours.
        foreign = "." if decimal == "," else ","
        return cls(decimal, get_group_symbol(locale), foreign, decimal, locale.decimal_formats[None].grouping)

    def ours(self) -> str:
        """A pattern for digits grouped as the locale groups them, by its mark (or by spaces)."""
        return _grouped(self.group, self.grouping)

    def theirs(self) -> str:
        """A pattern for digits grouped as the other convention groups them, by its mark (or by spaces)."""
        return _grouped(self.foreign_group, _THREES)


def _grouped(mark: str, grouping: tuple[int, int]) -> str:
    """Digits grouped by ``mark`` or by spaces: the last group of ``primary`` digits, those before it of
    ``secondary``, the first of at most that many."""
    primary, secondary = grouping
    separator = f"[{re.escape(mark)}{_SPACES}]"
    return rf"[1-9][0-9]{{0,{secondary - 1}}}(?:{separator}[0-9]{{{secondary}}})*{separator}[0-9]{{{primary}}}"


def _digits(text: str) -> str:
    return re.sub(r"[^0-9]", "", text)


def parse_number(text: str, locale: Locale, *, whole: bool) -> Decimal | None:
    """Read ``text`` as a number in ``locale``; ``None`` when it is blank.

    >>> es, en = Locale.parse("es"), Locale.parse("en")
    >>> parse_number(" 0,5 ", es, whole=False)
    Decimal('0.5')
    >>> parse_number("1.024", es, whole=True), parse_number("1,024", en, whole=True)
    (Decimal('1024'), Decimal('1024'))
    >>> parse_number("1 024", es, whole=True)
    Decimal('1024')
    >>> parse_number("", es, whole=True) is None
    True
    >>> parse_number("0.5", es, whole=False)
    Traceback (most recent call last):
    ...
    calc.problems.DecimalMark: DecimalMark(field=None, suggestion=Decimal('0.5'))
    >>> parse_number("1,500", en, whole=False)
    Traceback (most recent call last):
    ...
    calc.problems.Ambiguous: Ambiguous(field=None, ours=Decimal('1500'), foreign=Decimal('1.500'))
    >>> parse_number("4,096", es, whole=True)
    Traceback (most recent call last):
    ...
    calc.problems.ForeignGrouping: ForeignGrouping(field=None, suggestion=Decimal('4096'))
    """
    stripped = text.strip(_SPACES + "\t\n\r")
    if not stripped:
        return None
    notation = _Notation.of(locale)
    sign, body = _split_sign(stripped)
    value = _read_whole(body, notation) if whole else _read_decimal(body, notation)
    return -value if sign else value


def field_text(value: Decimal, locale: Locale) -> str:
    """``value`` as the page writes it into a field, or asks for it to be typed: a text that :func:`parse_number`
    reads back as ``value``, whatever the locale.

    It is never grouped: a grouped 1,500 is also the other convention's 1.5,
    which a reader's typing is asked about. Nor can three decimals after a
    whole part below a thousand be told from grouping (1.125, or 1125?), so
    such a value gets a fourth decimal, a zero, which no grouping has.

    >>> en, es = Locale.parse("en"), Locale.parse("es")
    >>> field_text(Decimal(15000), es), field_text(Decimal(1500), en), field_text(Decimal("0.125"), en)
    ('15000', '1500', '0.125')
    >>> field_text(Decimal("1.125"), en), field_text(Decimal("1.125"), es), field_text(Decimal("1000.125"), es)
    ('1.1250', '1,1250', '1000,125')
    """
    text = format_number(value, locale, grouping=False)
    try:
        parse_number(text, locale, whole=False)
    except Ambiguous:
        return text + "0"
    return text


def _split_sign(text: str) -> tuple[bool, str]:
    if text[0] in _MINUS_SIGNS:
        return True, text[1:].lstrip(_SPACES)
    if text[0] in _PLUS_SIGNS:
        return False, text[1:].lstrip(_SPACES)
    return False, text


def _read_whole(body: str, notation: _Notation) -> Decimal:
    if re.fullmatch(rf"[0-9]+|{notation.ours()}", body):
        return Decimal(_digits(body))
    if re.fullmatch(notation.theirs(), body):
        # The other convention's thousands, which ours may read as a decimal.
        # A whole field takes no fraction: only a whole reading of ours (4,000 as 4) is worth asking about.
        ours = _decimal_in(body, notation.ours(), notation.decimal)
        if ours is None or ours != ours.to_integral_value():
            raise ForeignGrouping(Decimal(_digits(body)))
        raise Ambiguous(ours, Decimal(_digits(body)))
    marks = re.escape(notation.decimal + notation.group + notation.foreign_decimal)
    if re.fullmatch(rf"[0-9{marks}]*[0-9][0-9{marks}]*", body):
        raise NotWhole()
    raise NotANumber()


def _read_decimal(body: str, notation: _Notation) -> Decimal:
    ours = _decimal_in(body, notation.ours(), notation.decimal)
    # The same text in the other convention: its grouping and its mark.
    theirs = _decimal_in(body, notation.theirs(), notation.foreign_decimal)
    if ours is not None and theirs is not None and ours != theirs:
        raise Ambiguous(ours, theirs)
    if ours is not None:
        return ours
    if theirs is None:
        raise NotANumber()
    if notation.foreign_decimal in body:
        raise DecimalMark(theirs)
    raise ForeignGrouping(theirs)


def _decimal_in(body: str, grouped: str, mark: str) -> Decimal | None:
    """``body`` read with ``mark`` as its decimal mark; ``None`` if it is no such number."""
    match = re.fullmatch(rf"([0-9]*|{grouped})(?:{re.escape(mark)}([0-9]*))?", body)
    if not match or not (match[1] or match[2]):
        return None
    if match[2] is None:
        return Decimal(_digits(match[1]))
    return Decimal(f"{_digits(match[1]) or 0}.{match[2] or 0}")
