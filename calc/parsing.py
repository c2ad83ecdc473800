"""Reading a number the way the page's locale writes one.

Only the locale's own notation is accepted. Anything that another
convention would read differently (``0.5`` on a Spanish page) is refused
with a :class:`InputProblem` that names a suggestion, never guessed at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from babel import Locale
from babel.numbers import get_decimal_symbol, get_group_symbol

# Signs people type: ASCII and the Unicode minus; a plus changes nothing.
_MINUS_SIGNS = frozenset("-\u2212")
_PLUS_SIGNS = frozenset("+")


class InputProblem(ValueError):
    """Why a text is not an acceptable value.

    ``code`` names the problem; ``details`` holds what its message needs
    (numbers as :class:`~decimal.Decimal`, formatted only when worded).
    """

    def __init__(self, code: str, **details: Decimal) -> None:
        super().__init__(code)
        self.code = code
        self.details = details


@dataclass(frozen=True)
class _Notation:
    decimal: str
    group: str
    foreign_decimal: str

    @classmethod
    def of(cls, locale: Locale) -> _Notation:
        decimal = get_decimal_symbol(locale)
        # The mark the other great convention uses for decimals: what a
        # visitor used to it will type instead of ours.
        foreign = "." if decimal == "," else ","
        return cls(decimal, get_group_symbol(locale), foreign)


def parse_number(text: str, locale: Locale, *, whole: bool) -> Decimal | None:
    """Read ``text`` as a number in ``locale``; ``None`` when it is blank.

    Whole numbers may be grouped with the locale's separator; decimals may
    not, so that a mark is never read as the other convention would.

    >>> es = Locale.parse("es")
    >>> parse_number(" 0,5 ", es, whole=False)
    Decimal('0.5')
    >>> parse_number("1.024", es, whole=True)
    Decimal('1024')
    >>> parse_number("", es, whole=True) is None
    True
    >>> try:
    ...     parse_number("0.5", es, whole=False)
    ... except InputProblem as problem:
    ...     print(problem.code, problem.details)
    decimal_mark {'suggestion': Decimal('0.5')}
    """
    stripped = text.strip()
    if not stripped:
        return None
    notation = _Notation.of(locale)
    sign, body = _split_sign(stripped)
    value = _read_whole(body, notation) if whole else _read_decimal(body, notation)
    return -value if sign else value


def _split_sign(text: str) -> tuple[bool, str]:
    if text[0] in _MINUS_SIGNS:
        return True, text[1:].lstrip()
    if text[0] in _PLUS_SIGNS:
        return False, text[1:].lstrip()
    return False, text


def _read_whole(body: str, notation: _Notation) -> Decimal:
    group = re.escape(notation.group)
    if re.fullmatch(r"[0-9]+", body) or re.fullmatch(rf"[0-9]{{1,3}}(?:{group}[0-9]{{3}})+", body):
        return Decimal(body.replace(notation.group, ""))
    marks = re.escape(notation.decimal + notation.group + notation.foreign_decimal)
    if re.fullmatch(rf"[0-9{marks}]*[0-9][0-9{marks}]*", body):
        raise InputProblem("not_whole")
    raise InputProblem("not_a_number")


def _read_decimal(body: str, notation: _Notation) -> Decimal:
    decimal, group, foreign = (re.escape(m) for m in (notation.decimal, notation.group, notation.foreign_decimal))
    match = re.fullmatch(rf"([0-9]*)(?:{decimal}([0-9]*))?", body)
    if match and (match[1] or match[2]):
        return Decimal(f"{match[1] or 0}.{match[2] or 0}")
    # One foreign mark between digits: a decimal written the other way.
    match = re.fullmatch(rf"([0-9]*){foreign}([0-9]+)", body)
    if match:
        raise InputProblem("decimal_mark", suggestion=Decimal(f"{match[1] or 0}.{match[2]}"))
    # Our own grouping, which a decimal field refuses rather than risk
    # reading "1.250" as 1250 when 1,25 was meant.
    match = re.fullmatch(rf"([0-9]{{1,3}}(?:{group}[0-9]{{3}})+)(?:{decimal}([0-9]+))?", body)
    if match:
        digits = match[1].replace(notation.group, "")
        raise InputProblem("grouped_decimal", suggestion=Decimal(f"{digits}.{match[2] or 0}"))
    raise InputProblem("not_a_number")
