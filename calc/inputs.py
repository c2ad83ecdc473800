"""The kinds of input a calculator has: counts, amounts, a choice, a set of choices.

Each kind owns what is particular to it:

- ``read``: the value in what the page sends (a field's text, a chosen
  option's value, the checked boxes' values), or an :class:`InputProblem`;
- ``check``: the :class:`InputProblem` of a value the kind refuses, which
  ``read`` raises too, for a value no one typed (what ``settle`` writes);
- ``accepts``: what its hint says it takes, after the field's description;
- ``text``: a value written back into its widget, in the page's locale;
- ``to_address`` and ``from_address``: the value in the page's address,
  in one form for every locale (``?parameters=7.5&target_modules=q_proj,v_proj``);
  ``as_entered``: an address's text that ``from_address`` refuses, as the
  widget would send it, to be read as if the reader had entered it;
- ``offered``: the options shown, for a kind that hides some;
- ``widget``: the name of the template macro that draws it (in
  ``templates/widgets.html``), and of the browser glue's way to read and
  write it (``KINDS`` in ``web/app.js``).

A number field may be ``optional``: left blank, its value is ``None``
rather than a reason to withhold the results.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from gettext import NullTranslations
from typing import ClassVar

from babel import Locale

from calc.formatting import format_quantity, unit_symbol
from calc.parsing import field_text, parse_number
from calc.problems import (
    DecimalMark,
    ForeignGrouping,
    InputProblem,
    NoneChosen,
    NotAnOption,
    NotPositive,
    NumberOnly,
    TooLarge,
    TooManyDecimals,
    TooSmall,
)

# What the page sends: a text, an option's value, or the checked boxes' values.
Raw = str | list[str]
Value = Decimal | str | frozenset[str]

# Problems whose suggestion is a rewrite of the same number in our notation.
_REWRITES = (DecimalMark, ForeignGrouping)

# A number followed by a word, as in "0,5 GB" or "4 samples".
_NUMBER_AND_WORD = re.compile(r"(.*[0-9][.,]?)[\s\u00a0\u202f]*([^\W\d_]+)")

# A number as addresses write it: plain digits, a point, no sign or exponent. Links write no zero that changes
# nothing; one typed into an address by hand (25.20) is read as well, except after exactly three decimals, which a
# Spanish or Italian reader may mean as a thousands separator (1.500): that, and anything else, is read as if typed.
_ADDRESS_NUMBER = re.compile(r"(?:0|[1-9][0-9]*)(?:\.[0-9]*[1-9])?|(?:0|[1-9][0-9]*)\.(?![0-9]{2}0$)[0-9]*0")


def address_number(value: Decimal | int) -> str:
    """``value`` as addresses write numbers, in every locale and on every page's links.

    >>> address_number(Decimal("7.50")), address_number(Decimal("1E+3")), address_number(256)
    ('7.5', '1000', '256')
    """
    # Formatted exactly (no context rounds it), then without the zeros that change nothing.
    text = format(Decimal(value), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def address_within(field: Input, value: Value) -> str:
    """``value`` as a link writes it for ``field``, the input of the page it opens, or blank where that field would
    refuse it: the page then asks for the value, rather than refuse one another page handed it (a figure beyond any
    GPU, a batch beyond the field's bounds).

    >>> gpus = Count("gpus", "", "", default=Decimal(1), maximum=Decimal(8))
    >>> address_within(gpus, Decimal(8)), address_within(gpus, Decimal(9))
    ('8', '')
    """
    try:
        field.check(value)
    except InputProblem:
        return ""
    return field.to_address(value)


@dataclass(frozen=True)
class Input(ABC):
    """What every kind has: the name the page and the address use, and its words; and what every kind does (the
    abstract methods below, and a ``default`` field of its own).

    ``label`` and ``description`` are catalog message ids: the field's name,
    and what it stands for, in one message or several that two pages share
    part of (its hint adds what it accepts). ``optional``:
    left blank, the input is ``None`` rather than a reason to withhold the
    results. ``unit``: the CLDR unit id of its value, shown beside the
    field, or ``None``.
    """

    name: str
    label: str
    description: str | tuple[str, ...]

    # Another calculator's page that helps fill this input in: (page name, link text's message id).
    see: tuple[str, str] | None = field(default=None, kw_only=True)
    optional: bool = field(default=False, kw_only=True)
    unit: str | None = field(default=None, kw_only=True)

    widget: ClassVar[str]
    # Whether the page's address carries the input (a pasted text would make it kilobytes long).
    in_address: ClassVar[bool] = True

    @abstractmethod
    def read(self, raw: Raw, locale: Locale) -> Value | None:
        """The value in what the page sends, or the :class:`InputProblem` of it."""

    @abstractmethod
    def text(self, value: Value | None, locale: Locale) -> Raw:
        """``value`` written back into the widget, in the page's locale."""

    @abstractmethod
    def to_address(self, value: Value | None) -> str:
        """``value`` in the page's address, alike in every locale."""

    @abstractmethod
    def from_address(self, text: str) -> Value | None:
        """The value of an address's ``text``; a ``ValueError`` for a text not written as addresses write it."""

    def hint(self, locale: Locale, translations: NullTranslations) -> str:
        """What the field stands for and what it takes, as its hint says it."""
        described = (self.description,) if isinstance(self.description, str) else self.description
        sentences = [translations.gettext(message) for message in described]
        return " ".join(filter(None, [*sentences, self.accepts(locale, translations)]))

    def accepts(self, locale: Locale, translations: NullTranslations) -> str:
        """The hint's second sentence: what the input takes ("" when the widget shows it)."""
        return ""

    def check(self, value: Value) -> None:  # noqa: B027 (a kind without limits refuses nothing)
        """Raise the input problem of a ``value`` (never ``None``) the input refuses."""

    def as_entered(self, text: str) -> Raw:
        return text

    def entered_address(self, raw: Raw) -> str:
        """What the widget sent, refused, as the address keeps it: :meth:`as_entered`'s inverse."""
        return _text(raw)

    def offered(self, values: Mapping[str, object]) -> list[str] | None:
        """The values of the options shown for ``values``, for a kind that hides some (``None``: it has none)."""
        return None


# Whose unit symbols every locale's fields read too.
_ENGLISH = Locale.parse("en")


@dataclass(frozen=True)
class _Number(Input, ABC):
    default: Decimal | None
    maximum: Decimal
    # What "such as …" suggests when the field has no default.
    example: Decimal | None = None

    widget: ClassVar[str] = "number"
    whole: ClassVar[bool]

    def read(self, raw: Raw, locale: Locale) -> Decimal | None:
        """The number typed in ``raw``; ``None`` while the field is blank."""
        text = self._without_unit(_text(raw).strip(), locale)
        try:
            value = parse_number(text, locale, whole=self.whole)
        except _REWRITES as problem:
            # A suggestion that would itself be refused is no help: say
            # what is wrong with it instead.
            self.check(problem.suggestion)
            raise
        if value is not None:
            self.check(value)
        return value

    def _without_unit(self, text: str, locale: Locale) -> str:
        """``text`` without the field's own unit after the number, in the locale's symbol or the English one (a
        French reader types "GB" as often as "Go", and it reads only one way); any other word is refused."""
        match = _NUMBER_AND_WORD.fullmatch(text)
        if not match:
            return text
        number, word = match.groups()
        if self.unit and word.casefold() in {unit_symbol(self.unit, on).casefold() for on in (locale, _ENGLISH)}:
            return number
        raise NumberOnly()

    @abstractmethod
    def check(self, value: Decimal) -> None:
        """Raise the input problem of a ``value`` the kind refuses (out of range, not whole…)."""

    def text(self, value: Decimal | None, locale: Locale) -> str:
        """``value`` as the field shows it, which the field reads back as ``value`` (:func:`~calc.parsing.field_text`).

        >>> Count("gpus", "", "", default=Decimal(1), maximum=Decimal(10**6)).text(Decimal(16384), Locale.parse("en"))
        '16384'
        """
        return "" if value is None else field_text(value, locale)

    def sample(self, locale: Locale) -> str:
        """A value to suggest, as the field would show it."""
        return self.text(self.default if self.default is not None else self.example, locale)

    def to_address(self, value: Decimal | None) -> str:
        return "" if value is None else address_number(value)

    def from_address(self, text: str) -> Decimal | None:
        """The number an address holds, or ``ValueError`` if it is not written as addresses write numbers.

        >>> amount = Amount("a", "", "", default=Decimal(1), maximum=Decimal(9), places=3)
        >>> amount.from_address("7.5"), amount.from_address(""), amount.from_address("25.20")
        (Decimal('7.5'), None, Decimal('25.20'))
        >>> amount.from_address("1.500")
        Traceback (most recent call last):
        ...
        ValueError: not an address number: '1.500'
        """
        if not text:
            return None
        if not _ADDRESS_NUMBER.fullmatch(text):
            raise ValueError(f"not an address number: {text!r}")
        return Decimal(text)

    def bounds(self, locale: Locale) -> dict[str, str]:
        return {
            "minimum": format_quantity(self.minimum, self.unit, locale, breakable=False),
            "maximum": format_quantity(self.maximum, self.unit, locale, breakable=False),
        }


@dataclass(frozen=True)
class Count(_Number):
    """A whole number from ``minimum`` to ``maximum``, both included.

    >>> steps = Count("steps", "Steps", "", default=Decimal(8), maximum=Decimal(1000))
    >>> steps.read("16", Locale.parse("it"))
    Decimal('16')
    >>> try:
    ...     steps.read("0", Locale.parse("it"))
    ... except TooSmall as problem:
    ...     print(repr(problem))
    TooSmall(field=None, minimum=Decimal('1'))
    >>> steps.accepts(Locale.parse("en"), NullTranslations())
    'A whole number from 1 to 1,000.'
    """

    minimum: Decimal = Decimal(1)

    whole: ClassVar[bool] = True

    def check(self, value: Decimal) -> None:
        if value < self.minimum:
            raise TooSmall(self.minimum)
        if value > self.maximum:
            raise TooLarge(self.maximum)

    def accepts(self, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext("A whole number from %(minimum)s to %(maximum)s.") % self.bounds(locale)


@dataclass(frozen=True)
class Amount(_Number):
    """A decimal up to ``maximum``, with at most ``places`` decimal places.

    It must be greater than ``minimum``, or equal to it too when
    ``minimum_included`` (an activation memory of 0 GB per GPU is a real
    case; per sample it is no measurement).

    >>> memory = Amount("memory", "Memory", "", default=Decimal(1), maximum=Decimal(10), places=1,
    ...                 unit="digital-gigabyte")
    >>> memory.read("0,5GB", Locale.parse("es"))
    Decimal('0.5')
    >>> memory.accepts(Locale.parse("en"), NullTranslations())
    'More than 0\\xa0GB and at most 10\\xa0GB.'
    """

    places: int = 0
    minimum: Decimal = Decimal(0)
    minimum_included: bool = False

    whole: ClassVar[bool] = False

    def check(self, value: Decimal) -> None:
        if value < self.minimum or (value == self.minimum and not self.minimum_included):
            raise (TooSmall if self.minimum_included else NotPositive)(self.minimum)
        if value > self.maximum:
            raise TooLarge(self.maximum)
        if -value.normalize().as_tuple().exponent > self.places:
            raise TooManyDecimals(self.places)

    def accepts(self, locale: Locale, translations: NullTranslations) -> str:
        _ = translations.gettext
        if self.minimum_included:
            return _("A number from %(minimum)s to %(maximum)s.") % self.bounds(locale)
        return _("More than %(minimum)s and at most %(maximum)s.") % self.bounds(locale)


@dataclass(frozen=True)
class Option:
    """One of a choice's options: its value (in the page and the address) and its label's message id.

    ``group``: the label of the ``<optgroup>`` it is listed under, if any.
    ``short``: a shorter label's message id, for the site's prose to name
    the option by in a table (sitebuild.validation), if it needs one.
    """

    value: str
    label: str
    group: str | None = None
    short: str | None = None


@dataclass(frozen=True)
class Choice(Input):
    """One option among ``options``: a ``<select>``.

    >>> zero = Choice("zero_stage", "", "", options=(Option("0", ""), Option("1", "")), default="0")
    >>> zero.read("1", Locale.parse("en"))
    '1'
    >>> zero.read("4", Locale.parse("en"))
    Traceback (most recent call last):
    ...
    calc.problems.NotAnOption: NotAnOption(field=None)
    """

    options: tuple[Option, ...]
    default: str

    widget: ClassVar[str] = "choice"

    def read(self, raw: Raw, locale: Locale) -> str:
        value = _text(raw)
        self.check(value)
        return value

    def check(self, value: str) -> None:
        if value not in {option.value for option in self.options}:
            raise NotAnOption()

    def groups(self) -> list[tuple[str | None, list[Option]]]:
        """The options in their order, each run of one ``group`` together.

        >>> options = (Option("a", "", "A"), Option("b", "", "A"), Option("c", ""))
        >>> [(group, [o.value for o in run]) for group, run in Choice("z", "", "", options, "a").groups()]
        [('A', ['a', 'b']), (None, ['c'])]
        """
        runs: list[tuple[str | None, list[Option]]] = []
        for option in self.options:
            if not runs or runs[-1][0] != option.group:
                runs.append((option.group, []))
            runs[-1][1].append(option)
        return runs

    def text(self, value: str, locale: Locale) -> str:
        return value

    def to_address(self, value: str) -> str:
        return value

    def from_address(self, text: str) -> str:
        return text


@dataclass(frozen=True)
class ChoiceSet(Input):
    """Any of ``options``, at least one: a group of checkboxes.

    >>> targets = ChoiceSet("t", "", "", options=(Option("q", ""), Option("v", "")), default=frozenset({"q"}))
    >>> sorted(targets.read(["v", "q"], Locale.parse("en"))), targets.to_address(frozenset({"v", "q"}))
    (['q', 'v'], 'q,v')
    """

    options: tuple[Option, ...]
    default: frozenset[str]
    # The options the form's other values leave, by value (None: every one): a model's own projections.
    offered_by: Callable[[Mapping[str, object]], Collection[str] | None] | None = field(default=None, kw_only=True)

    widget: ClassVar[str] = "choices"

    def offered(self, values: Mapping[str, object]) -> list[str]:
        """The options shown for ``values``: those ``offered_by`` leaves, and any chosen, which the reader can then
        unchoose (its field says why it cannot be).

        >>> targets = ChoiceSet("t", "", "", options=(Option("q", ""), Option("v", ""), Option("o", "")),
        ...     default=frozenset({"q"}), offered_by=lambda values: {"q"} if values["fused"] else None)
        >>> targets.offered({"fused": True, "t": frozenset({"o"})}), targets.offered({"fused": False})
        (['q', 'o'], ['q', 'v', 'o'])
        """
        names = None if self.offered_by is None else self.offered_by(values)
        chosen = values.get(self.name) or frozenset()
        return [o.value for o in self.options if names is None or o.value in names or o.value in chosen]

    def read(self, raw: Raw, locale: Locale) -> frozenset[str]:
        chosen = frozenset([raw] if isinstance(raw, str) else raw) - {""}
        self.check(chosen)
        return chosen

    def check(self, value: frozenset[str]) -> None:
        if not value <= {option.value for option in self.options}:
            raise NotAnOption()
        if not value:
            raise NoneChosen()

    def text(self, value: frozenset[str], locale: Locale) -> list[str]:
        return self._in_order(value)

    def to_address(self, value: frozenset[str]) -> str:
        return ",".join(self._in_order(value))

    def _in_order(self, value: frozenset[str]) -> list[str]:
        return [option.value for option in self.options if option.value in value]

    def from_address(self, text: str) -> frozenset[str]:
        """The names an address lists, or ``ValueError`` if one is no option: a set is never narrowed silently.

        >>> targets = ChoiceSet("t", "", "", options=(Option("q", ""), Option("v", "")), default=frozenset({"q"}))
        >>> sorted(targets.from_address("v,q")), targets.from_address("")
        (['q', 'v'], frozenset())
        >>> targets.from_address("q,x")
        Traceback (most recent call last):
        ...
        ValueError: not among the options: 'q,x'
        """
        chosen = self.as_entered(text)
        if not set(chosen) <= {option.value for option in self.options}:
            raise ValueError(f"not among the options: {text!r}")
        return frozenset(chosen)

    def as_entered(self, text: str) -> list[str]:
        # A list, as the checked boxes are sent: read then refuses a name that is no option.
        return text.split(",") if text else []

    def entered_address(self, raw: Raw) -> str:
        return ",".join(raw) if isinstance(raw, list) else raw


@dataclass(frozen=True)
class Pasted(Input):
    """A text pasted whole, such as a model's config.json: a ``<textarea>``.

    ``parse`` turns the text into the value, or raises :class:`InputProblem`;
    blank is ``None``. The text is no part of the address (a config.json
    would make it kilobytes long): what it says lands in other fields, and
    the calculator's ``settle`` clears it once it has.
    """

    parse: Callable[[str], object]
    default: None = None

    widget: ClassVar[str] = "pasted"
    in_address: ClassVar[bool] = False
    # Left blank, the fields it would fill are the model.
    optional: bool = field(default=True, kw_only=True)

    def read(self, raw: Raw, locale: Locale) -> object:
        text = _text(raw)
        return self.parse(text) if text.strip() else None

    def text(self, value: object, locale: Locale) -> str:
        return ""

    def to_address(self, value: object) -> str:
        return ""

    def from_address(self, text: str) -> None:
        return None


def _text(raw: Raw) -> str:
    # A list where one value was expected is not something this page sends.
    return raw if isinstance(raw, str) else ""


# Every kind a calculator may use.
Field = Count | Amount | Choice | ChoiceSet | Pasted
