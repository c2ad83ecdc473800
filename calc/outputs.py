"""The kinds of result a calculator shows: a figure, a table, a bar, a sentence, code.

A calculator's ``compute`` gives each output its result (a
:class:`Quantity`, rows, segments); the output's kind turns it into what
the page shows, in the page's locale. The view carries, per output:

- a figure: its text;
- a table: ``{"rows": [[cell, …], …]}``, every cell a text (a column whose
  heading names its unit holds bare numbers);
- a bar: ``{"svg": markup}``, drawn by :mod:`calc.charts`;
- a line chart: ``{"svg": markup, "rows": …}``, the picture and its table;
- a sentence or a snippet of code: its text.

While there are no results, each output shows its kind's ``empty`` view.
The page's template draws each kind with the macro named by ``widget``
(in ``templates/widgets.html``), which marks the element with that name as
its ``data-kind``; the browser glue shows a view by that kind
(``OUTPUT_KINDS`` in ``web/app.js``).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from gettext import NullTranslations
from typing import ClassVar

from babel import Locale

from calc.charts import Line, Panel, line_chart, nice_ticks, stacked_bar
from calc.formatting import GIGABYTE, PERCENT, format_names, format_quantity, rounded, rounded_up, sign, unit_symbol
from calc.marker import N_, Nn_


@dataclass(frozen=True)
class Quantity:
    """A computed value, its CLDR unit id (``None`` for a plain count) and how it is shown.

    ``places`` rounds the shown value to that many decimal places (half
    up); ``None`` shows every digit, so the value must then be an exact
    :class:`~decimal.Decimal`.
    """

    value: Decimal | Fraction | int
    unit: str | None = None
    places: int | None = None
    up: bool = False  # rounded up, not half up: a bound that stays true as written (at most 4.41% for 4.4021%)
    signed: bool = False  # a difference: its size after + or − (calc.formatting.sign), unsigned when 0

    def shown(self) -> Decimal:
        """The size shown, rounded to ``places``; a signed quantity's without its sign."""
        value = abs(self.value) if self.signed else self.value
        if self.places is not None:
            return (rounded_up if self.up else rounded)(value, self.places)
        if isinstance(value, Fraction):
            raise ValueError("a fraction is shown rounded: give it places")
        return Decimal(value)

    def text(self, locale: Locale, *, breakable: bool = True) -> str:
        """With all its ``places`` of decimals, trailing zeros included: a figure reads alike wherever it is shown
        (4.20 GB in a table, a sentence and a result), and figures compared side by side show the same digits.

        >>> gigabytes(46_900_000_000, 2).text(Locale.parse("en"), breakable=False)
        '46.90\xa0GB'
        >>> Quantity(Fraction(-1, 3), PERCENT, places=2, signed=True).text(Locale.parse("en"))
        '−0.33%'
        """
        text = format_quantity(self.shown(), self.unit, locale, breakable=breakable, places=self.places)
        return sign(self.value < 0, locale) + text if self.signed and self.value else text

    def number(self, locale: Locale) -> str:
        """The value alone, with all its ``places``, under a table heading that names its unit.

        >>> gigabytes(14_900_000_000, 2).number(Locale.parse("es"))
        '14,90'
        """
        return format_quantity(self.shown(), None, locale, places=self.places)


@dataclass(frozen=True)
class Citation:
    """A source the prose cites, as it reads in every language, and where to read it."""

    text: str
    href: str


@dataclass(frozen=True)
class Names:
    """Names no language changes (architectures, modules), which the prose quotes as a list in its own language."""

    names: tuple[str, ...]
    style: str = "standard"

    def text(self, locale: Locale) -> str:
        return format_names(self.names, locale, style=self.style)


# What a page's prose quotes (Calculator.facts): a quantity or names, written for the locale; a source, linked, or
# several, listed as a question's sources; literal text that no language changes; or message ids by key (a choice's
# labels), which the template translates.
Fact = Quantity | Citation | tuple[Citation, ...] | Names | str | dict[str, str]


@dataclass(frozen=True)
class Phrase:
    """A message id whose ``%(name)s`` placeholders are quantities, or phrases (or lists of them) of their own."""

    message: str
    quantities: dict[str, Quantity | Phrase | Phrases | Counted | Names]

    def text(self, locale: Locale, translations: NullTranslations) -> str:
        filled = {name: written(q, locale, translations) for name, q in self.quantities.items()}
        return translations.gettext(self.message) % filled


@dataclass(frozen=True)
class Counted:
    """A count and its noun, in the plural form the count takes in the language: ``noun`` is a pair of message ids
    (singular, plural) marked with :func:`calc.marker.Nn_`, ``%(count)s`` the count.

    >>> en, words = Locale.parse("en"), NullTranslations()
    >>> Counted(1, TOKENS).text(en, words), Counted(1024, TOKENS).text(en, words)
    ('1\xa0token', '1,024\xa0tokens')
    """

    count: int
    noun: tuple[str, str]

    def text(self, locale: Locale, translations: NullTranslations) -> str:
        return translations.ngettext(*self.noun, self.count) % {"count": Quantity(self.count).text(locale)}


# Counted nouns (a sequence's length, a batch's size), where a bare number would say nothing.
TOKENS = Nn_("%(count)s\u00a0token", "%(count)s\u00a0tokens")
# One sample in words, as the ways' leads say it (technical review, round 81: "a micro-batch of 1 sample" below "a
# micro-batch of one sample").
SAMPLES = Nn_("one sample", "%(count)s\u00a0samples")
# In figures, where a column of them would read "one sample" above "2 samples" (Spanish review, round 83): the
# measurement tables' configurations.
SAMPLES_IN_FIGURES = Nn_("%(count)s\u00a0sample", "%(count)s\u00a0samples")


def written(
    quantity: Quantity | Phrase | Phrases | Counted | Names, locale: Locale, translations: NullTranslations
) -> str:
    """A quantity, a phrase, a count or names as prose quotes them: a number never parted from its unit."""
    if isinstance(quantity, Quantity):
        return quantity.text(locale, breakable=False)
    if isinstance(quantity, Names):
        return quantity.text(locale)
    return quantity.text(locale, translations)


# A list after a negation ("did not cover A or B"): the last two joined, with and without items before them.
# TRANSLATORS: the conjunction after a negation: Spanish "ni", Italian "né".
NOR_TWO = N_("%(others)s or %(last)s")
# TRANSLATORS: as above, after a comma-separated list of the other items.
NOR_MORE = N_("%(others)s, or %(last)s")
# TRANSLATORS: options, three or more, or one of them holding an "or" or an "and" of its own ("choose ZeRO-2 or
# ZeRO-3, or choose a GPU with more memory"; "train QLoRA, use more GPUs, or choose a GPU with more memory"): the last
# set apart as the language does; %(earlier)s is the options before it, joined by commas. Not the
# list after a negation (NOR_MORE), which reads the same in English.
OR_APART = N_("%(earlier)s, or %(last)s")


def _commas(words: list[str], locale: Locale) -> str:
    """``words`` joined by the language's list comma, with no conjunction: the items before a list's last."""
    middle, joined = locale.list_patterns["standard"]["middle"], words[0]
    for word in words[1:]:
        joined = middle.format(joined, word)
    return joined


@dataclass(frozen=True)
class Phrases:
    """Message ids, each translated, joined as the language joins a list ("or" with ``style="or"``, "nor" after a
    negation with ``style="nor"``, clauses of their own with ``style="semicolon"``, sentences of a paragraph with
    ``style="sentences"``): a sentence's
    options, built from those that apply rather than written out for each combination. An option may be a phrase
    with figures of its own, or a list of its own (changes made together).

    >>> Phrases(("shorten the sequences", "train QLoRA"), style="or").text(Locale.parse("en"), NullTranslations())
    'shorten the sequences or train QLoRA'
    >>> shorter = Phrase("shorten the sequences to %(length)s tokens", {"length": Quantity(Decimal(2048))})
    >>> Phrases((shorter, "train QLoRA"), style="or").text(Locale.parse("en"), NullTranslations())
    'shorten the sequences to 2,048 tokens or train QLoRA'
    >>> Phrases(("this recipe", "ZeRO's sharding", "QLoRA"), style="nor").text(Locale.parse("en"), NullTranslations())
    "this recipe, ZeRO's sharding, or QLoRA"
    """

    messages: tuple[str | Phrase | Phrases, ...]
    style: str = "standard"

    def text(self, locale: Locale, translations: NullTranslations) -> str:
        words = [translations.gettext(m) if isinstance(m, str) else m.text(locale, translations) for m in self.messages]
        if self.style == "or" and len(words) > 1:
            # Options, three or more, or one holding an "or" or an "and" of its own: the last set apart as the
            # language does (technical review, round 52: "choose ZeRO-2 or ZeRO-3 or choose a GPU with more memory";
            # Italian reviews, rounds 58 and 60: "addestra un adapter LoRA o QLoRA o usa più GPU", and one list of ways
            # ending in «, oppure» beside another in «o»).
            joints = [format_names(["\0", "\1"], locale, style=style)[1:-1] for style in ("or", "standard")]
            if len(words) > 2 or any(joint in word for joint in joints for word in words):
                return translations.gettext(OR_APART) % {"earlier": _commas(words[:-1], locale), "last": words[-1]}
        if self.style == "semicolon":
            # Notes beside a way out, each a clause of its own.
            return "; ".join(words)
        if self.style == "sentences":
            # Sentences of a paragraph, each of its own note.
            return " ".join(words)
        if self.style == "nor" and len(words) > 1:
            # CLDR has no list after a negation, which Spanish joins with "ni" and Italian with "né" (Spanish review,
            # round 48: "no abarcaron A o B"): the catalogs give the conjunction, CLDR the commas before it.
            pattern = NOR_TWO if len(words) == 2 else NOR_MORE
            return translations.gettext(pattern) % {"others": _commas(words[:-1], locale), "last": words[-1]}
        return format_names(words, locale, style=self.style)


def gigabytes(size: int | Decimal | Fraction, places: int) -> Quantity:
    """``size`` bytes shown in gigabytes (10^9 bytes, as everywhere on the site), to ``places`` decimals.

    >>> gigabytes(1_875_000_000, 2).shown()
    Decimal('1.88')
    """
    return Quantity(Fraction(size) / 10**9, GIGABYTE, places=places)


def unit_facts() -> dict[str, Quantity]:
    """What every page says of its memory figures' unit (technical review, round 75: only the VRAM page said it): the
    gigabyte of 10^9 bytes, and how much smaller the same bytes read in the binary units PyTorch and nvidia-smi use.

    >>> facts = unit_facts()
    >>> facts["gib_smaller"].text(Locale.parse("en")), facts["mib_smaller"].text(Locale.parse("en"))
    ('6.87%', '4.63%')
    """
    return {
        "gigabyte": Quantity(10**9),
        "gibibyte": Quantity(2**30),
        "mebibyte": Quantity(2**20),
        "gib_smaller": percent(1 - Fraction(10**9, 2**30)),
        "mib_smaller": percent(1 - Fraction(10**6, 2**20)),
    }


def exact_gigabytes(size: Decimal, per: Decimal) -> Quantity:
    """``size`` GB, a whole multiple of ``per`` (b·A: samples times the memory of one, or a typed figure itself), shown
    exactly, with as many decimals as ``per`` has and at least two, so that figures set side by side in a column or a
    sentence read alike (14.90 GB beside 7.45 GB, not 14.9 GB) and none is rounded.

    >>> exact_gigabytes(Decimal(2) * Decimal("7.45"), Decimal("7.45")).text(Locale.parse("en"), breakable=False)
    '14.90\xa0GB'
    >>> exact_gigabytes(Decimal(2) * Decimal("7.125"), Decimal("7.125")).number(Locale.parse("en"))
    '14.250'
    """
    return Quantity(size, GIGABYTE, places=max(2, -per.normalize().as_tuple().exponent))


def percent(share: Fraction, *, up: bool = False) -> Quantity:
    """``share`` (0.01 is 1%) in hundredths of a percent: rounded half up, as a measured point's value reads, or up,
    ``up``, as a bound reads.

    >>> en, es = Locale.parse("en"), Locale.parse("es")
    >>> percent(Fraction(44021, 10**6), up=True).text(en), percent(Fraction(1, 3)).text(es)
    ('4.41%', '33,33\xa0%')
    """
    return Quantity(abs(share) * 100, PERCENT, places=2, up=up)


def difference(share: Fraction) -> Quantity:
    """How far an estimate is from a measurement, as a share of it, signed (− under it, + over), rounded away from zero
    as the prose's bounds are (:func:`percent`, ``up``), so that the worst row reads as the bound the prose states
    (−4.41% beside "at most 4.41%", not −4.40%): none at all is exact and reads "0%", unsigned; one below two places
    gets the places that show its first digit, so that it keeps its sign and a size (the reviews found "0.00%", a
    gap without its sign, and "−< 0.01%" each misread).

    >>> shares = (Fraction(0), Fraction(1, 10**6), Fraction(-7, 10**5), Fraction(-1, 8), Fraction(-44021, 10**6))
    >>> [written(difference(share), Locale.parse("en"), NullTranslations()) for share in shares]
    ['0%', '+0.0001%', '−0.007%', '−12.50%', '−4.41%']
    """
    if not share:
        return Quantity(Decimal(0), PERCENT)
    places = 2
    while abs(share) * 100 < Fraction(1, 10**places):
        places += 1
    return Quantity(share * 100, PERCENT, places=places, signed=True, up=True)


def typed(value: Decimal, unit: str | None) -> Quantity:
    """A field's value as prose quotes it beside the results: a memory with its own decimals and at least two, as the
    results show memories (a budget of 25.20 GB beside 14.90 GB, not 25.2 GB).

    >>> typed(Decimal("25.2"), GIGABYTE).text(Locale.parse("en")), typed(Decimal(4096), None).text(Locale.parse("en"))
    ('25.20 GB', '4,096')
    """
    return exact_gigabytes(value, value) if unit == GIGABYTE else Quantity(value, unit)


# A size or share too small for the places it is shown with, as less than the smallest they show.
LESS_THAN = N_("<\u00a0%(least)s")


def at_least_shown(quantity: Quantity, *, in_column: bool = False) -> Quantity | Phrase:
    """``quantity``, or, where it is not zero but rounds to zero, less than the smallest figure its places show
    ("< 0.01 GB"): a 0.00 beside a share of 39.6% reads as nothing. In a column headed in its unit, the bound is the
    bare number.

    >>> at_least_shown(gigabytes(3_000_000, 2)).text(Locale.parse("en"), NullTranslations())
    '<\xa00.01\xa0GB'
    >>> at_least_shown(gigabytes(0, 2)) == gigabytes(0, 2)
    True
    """
    if quantity.value == 0 or quantity.shown() != 0:
        return quantity
    least = Quantity(Decimal(1).scaleb(-quantity.places), None if in_column else quantity.unit, quantity.places)
    return Phrase(LESS_THAN, {"least": least})


# A table's cell: a quantity, a phrase, or text: a catalog message id, or a
# name that no catalog translates (a model's, a GPU's), which gettext leaves as it is.
Cell = Quantity | Phrase | str


@dataclass(frozen=True)
class Column:
    """A table's column whose quantities share one unit (a CLDR unit id): its heading names the unit once, and its
    cells show the bare numbers, in the locale's notation.

    >>> from gettext import NullTranslations
    >>> Column("Memory", GIGABYTE).heading(Locale.parse("it"), NullTranslations())
    'Memory (GB)'
    """

    label: str
    unit: str | None = None

    def heading(self, locale: Locale, translations: NullTranslations) -> str:
        _ = translations.gettext
        if self.unit is None:
            return _(self.label)
        # TRANSLATORS: a table column's heading, then the unit symbol of the numbers under it (GB).
        return _("%(heading)s (%(unit)s)") % {"heading": _(self.label), "unit": unit_symbol(self.unit, locale)}


def _column(column: str | Column) -> Column:
    # A plain message id: a column of words, or of quantities that each show their own unit.
    return column if isinstance(column, Column) else Column(column)


@dataclass(frozen=True)
class Output:
    """What every kind has: the name the page uses, and its label's message id."""

    name: str
    label: str

    widget: ClassVar[str]
    # What it shows while there are no results (never changed: every view shares it).
    empty: ClassVar[object]

    def headings(self, locale: Locale, translations: NullTranslations) -> list[str] | None:
        """Its table's column headings, for a kind drawn with one (``None``: it has none)."""
        return None


@dataclass(frozen=True)
class Figure(Output):
    """One number, large, with a short note under it (a message id, or "").

    A result of ``None`` shows ``missing`` (a message id) instead: an
    optional input left blank; a :class:`Phrase` says why there is no number.
    A figure without ``missing`` refuses a result of ``None``.
    """

    note: str = ""
    missing: str = ""

    widget: ClassVar[str] = "figure"
    empty: ClassVar[str] = ""

    @staticmethod
    def worded(result: Quantity | Phrase | None) -> bool:
        """Whether ``result`` shows as words rather than a number: the page sets those in the prose's type, not the
        figure's (a sentence in a figure's large bold type read as a headline; review round 37).

        >>> [Figure.worded(r) for r in (gigabytes(10**9, 2), at_least_shown(gigabytes(1, 2)), None)]
        [False, False, True]
        >>> Figure.worded(Phrase(N_("Leave the activation memory blank to compute it from the model."), {}))
        True
        """
        return not isinstance(result, Quantity) and not (isinstance(result, Phrase) and result.message == LESS_THAN)

    def render(self, result: Quantity | Phrase | None, locale: Locale, translations: NullTranslations) -> str:
        if result is None:
            if not self.missing:
                # gettext("") is the catalog's header, which would show in the figure's place.
                raise ValueError(f"figure {self.name!r}: no result, and no 'missing' words to show instead")
            return translations.gettext(self.missing)
        if isinstance(result, Phrase):
            return result.text(locale, translations)
        return result.text(locale, breakable=False)


@dataclass(frozen=True)
class Text(Output):
    """A sentence, or nothing: the result is a :class:`Phrase` or ``None``."""

    widget: ClassVar[str] = "text"
    empty: ClassVar[str] = ""

    def render(self, result: Phrase | None, locale: Locale, translations: NullTranslations) -> str:
        return "" if result is None else result.text(locale, translations)


@dataclass(frozen=True)
class Listing(Output):
    """Paragraphs and lists, or nothing: the result is a tuple of blocks, each a :class:`Phrase` (a paragraph) or
    :class:`Phrases` (a list, one item each), or ``None``: options a reader picks one of, each on a line of its own
    rather than in a sentence that grows with them (Italian reviews, rounds 63 and 65: eight ways out, with notes in
    parentheses, in one sentence).

    >>> shorter = Phrase("shorten the sequences to %(length)s tokens", {"length": Quantity(Decimal(2048))})
    >>> blocks = (Phrase("To make room, do one of these:", {}), Phrases((shorter, "train QLoRA"), style="or"))
    >>> Listing("ways", "Ways").render(blocks, Locale.parse("en"), NullTranslations())["blocks"][1]
    {'items': ['shorten the sequences to 2,048 tokens', 'train QLoRA']}
    """

    widget: ClassVar[str] = "listing"
    empty: ClassVar[dict] = {"blocks": []}

    def render(
        self, result: tuple[Phrase | Phrases, ...] | None, locale: Locale, translations: NullTranslations
    ) -> dict:
        def item(option: str | Phrase | Phrases) -> str:
            return translations.gettext(option) if isinstance(option, str) else option.text(locale, translations)

        return {
            "blocks": [
                {"items": [item(option) for option in block.messages]}
                if isinstance(block, Phrases)
                else {"text": block.text(locale, translations)}
                for block in result or ()
            ]
        }


@dataclass(frozen=True)
class Code(Output):
    """A snippet of code in ``language`` (the result, as it is: code is not translated), which the page's markup
    names as HTML suggests (``class="language-python"``)."""

    language: str = ""

    widget: ClassVar[str] = "code"
    empty: ClassVar[str] = ""

    def render(self, result: str, locale: Locale, translations: NullTranslations) -> str:
        return result


@dataclass(frozen=True)
class Table(Output):
    """Rows under column headings (message ids, or a :class:`Column` for a unit); the first cell of a row is its
    heading."""

    columns: tuple[str | Column, ...] = ()

    widget: ClassVar[str] = "table"
    empty: ClassVar[dict] = {"rows": []}

    def headings(self, locale: Locale, translations: NullTranslations) -> list[str]:
        return [_column(column).heading(locale, translations) for column in self.columns]

    def render(self, result: list[tuple[Cell, ...]], locale: Locale, translations: NullTranslations) -> dict:
        columns = [_column(column) for column in self.columns]
        return {
            "rows": [
                [_cell(cell, column.unit, locale, translations) for cell, column in zip(row, columns, strict=True)]
                for row in result
            ]
        }


@dataclass(frozen=True)
class Bar(Output):
    """A bar split into its parts, in proportion: the result is ``(label, quantity)`` pairs.

    The label is the chart's accessible name; a table beside it gives the
    same numbers as text.
    """

    widget: ClassVar[str] = "bar"
    empty: ClassVar[dict] = {"svg": ""}

    def render(self, result: list[tuple[str, Quantity]], locale: Locale, translations: NullTranslations) -> dict:
        parts = [(translations.gettext(label), Fraction(quantity.value)) for label, quantity in result]
        return {"svg": stacked_bar(translations.gettext(self.label), parts)}


@dataclass(frozen=True)
class Series:
    """A line of a chart: its label (a message id); a ``limit`` is flat, dashed, and not a column of the table.

    ``unit``: the unit of its values, which the table's heading names (its cells then show bare numbers), or ``None``
    for cells that show their own.
    """

    label: str
    limit: bool = False
    unit: str | None = None


@dataclass(frozen=True)
class Plot:
    """A line chart's result.

    ``x``: the values along the shared axis, ascending, one row of the
    table each; ``ticks``: those that the axis labels. ``values``: per
    panel, per series, a quantity for each ``x`` (a limit: one quantity,
    or ``None`` when it is not set). ``mark``: the ``x`` to point out.
    """

    x: tuple[int, ...]
    ticks: tuple[int, ...]
    values: tuple[tuple[tuple[Quantity, ...] | Quantity | None, ...], ...]
    mark: int


@dataclass(frozen=True)
class Chart(Output):
    """Lines over one shared axis, in panels stacked one above the other, with a table of the same numbers.

    ``x`` is the shared axis' title, ``panels`` each panel's title and
    series, ``mark`` the words beside the marked value, ``rows`` which
    values of ``x`` the table lists, where they are not evenly spaced
    (message ids).
    """

    x: str = ""
    panels: tuple[tuple[str, tuple[Series, ...]], ...] = ()
    mark: str = ""
    rows: str = ""

    widget: ClassVar[str] = "chart"
    empty: ClassVar[dict] = {"svg": "", "rows": []}

    @property
    def series(self) -> tuple[Series, ...]:
        return tuple(series for _, panel in self.panels for series in panel)

    @property
    def columns(self) -> tuple[Column, ...]:
        return (Column(self.x), *(Column(series.label, series.unit) for series in self.series if not series.limit))

    def headings(self, locale: Locale, translations: NullTranslations) -> list[str]:
        return [column.heading(locale, translations) for column in self.columns]

    def render(self, result: Plot, locale: Locale, translations: NullTranslations) -> dict:
        _ = translations.gettext
        rows = [[Quantity(x).text(locale, breakable=False)] for x in result.x]
        panels, index = [], 0
        for (title, series), values in zip(self.panels, result.values, strict=True):
            lines, unit = [], None
            for one, shown in zip(series, values, strict=True):
                index += 1
                if shown is None:
                    continue
                unit = (shown if one.limit else shown[0]).unit
                if one.limit:
                    points = (
                        (Fraction(result.x[0]), Fraction(shown.value)),
                        (Fraction(result.x[-1]), Fraction(shown.value)),
                    )
                else:
                    points = tuple((Fraction(x), Fraction(q.value)) for x, q in zip(result.x, shown, strict=True))
                    for row, q in zip(rows, shown, strict=True):
                        row.append(_cell(q, one.unit, locale, translations))
                lines.append(Line(_(one.label), points, index, one.limit))
            top = max(y for line in lines for _, y in line.points)
            ticks = tuple((t, _tick(t, unit, locale)) for t in nice_ticks(top))
            panels.append(Panel(_(title), ticks, tuple(lines)))
        x_ticks = tuple((Fraction(x), Quantity(x).text(locale, breakable=False)) for x in result.ticks)
        svg = line_chart(_(self.label), _(self.x), x_ticks, tuple(panels), (Fraction(result.mark), _(self.mark)))
        return {"svg": svg, "rows": rows}


def _tick(value: Fraction, unit: str | None, locale: Locale) -> str:
    # A round step (1, 2 or 5 times a power of ten) is a terminating decimal: shown exactly.
    return Quantity(Decimal(value.numerator) / Decimal(value.denominator), unit).text(locale, breakable=False)


def _cell(cell: Cell, unit: str | None, locale: Locale, translations: NullTranslations) -> str:
    """``cell`` as its column shows it: under a heading that names ``unit``, a quantity is its bare number."""
    if isinstance(cell, Quantity) and unit is not None:
        if cell.unit != unit:
            raise ValueError(f"a quantity in {cell.unit} in a column headed in {unit}")
        return cell.number(locale)
    if isinstance(cell, Quantity):
        # A narrow column may wrap, but never between a number and its unit; its numbers show the same decimals.
        return cell.text(locale, breakable=False)
    if isinstance(cell, Phrase):
        return cell.text(locale, translations)
    # gettext("") is the catalog's header, not an empty cell.
    return translations.gettext(cell) if cell else ""


# Every kind a calculator may show.
Shown = Figure | Table | Bar | Chart | Text | Code
