"""What each input field accepts: whole numbers or decimals, and their bounds."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from babel import Locale

from calc.parsing import InputProblem, parse_number

# Problems whose suggestion is a rewrite of the same number in our notation.
_REWRITES = frozenset({"decimal_mark", "grouped_decimal"})


@dataclass(frozen=True)
class Field:
    """One input of a calculator.

    ``minimum`` is inclusive for whole numbers; decimals must be strictly
    greater than it (a memory of 0 GB per sample is no measurement).
    ``unit`` is a CLDR unit id such as ``digital-gigabyte``.
    """

    name: str
    default: Decimal
    maximum: Decimal
    whole: bool = True
    minimum: Decimal = Decimal(1)
    max_fraction_digits: int = 0
    unit: str | None = None

    def read(self, text: str, locale: Locale) -> Decimal | None:
        """The value typed in ``text``; ``None`` while the field is blank.

        >>> steps = Field("steps", default=Decimal(8), maximum=Decimal(1000))
        >>> steps.read("16", Locale.parse("it"))
        Decimal('16')
        >>> try:
        ...     steps.read("0", Locale.parse("it"))
        ... except InputProblem as problem:
        ...     print(problem.code, problem.details)
        too_small {'minimum': Decimal('1')}
        """
        try:
            value = parse_number(text, locale, whole=self.whole)
        except InputProblem as problem:
            if problem.code in _REWRITES:
                # A suggestion that would itself be refused is no help: say
                # what is wrong with it instead.
                self.check(problem.details["suggestion"])
            raise
        if value is not None:
            self.check(value)
        return value

    def check(self, value: Decimal) -> None:
        """Raise :class:`InputProblem` unless ``value`` is within bounds."""
        if self.whole and value < self.minimum:
            raise InputProblem("too_small", minimum=self.minimum)
        if not self.whole and value <= self.minimum:
            raise InputProblem("not_positive", minimum=self.minimum)
        if value > self.maximum:
            raise InputProblem("too_large", maximum=self.maximum)
        if -value.normalize().as_tuple().exponent > self.max_fraction_digits:
            raise InputProblem("too_many_decimals", count=Decimal(self.max_fraction_digits))
