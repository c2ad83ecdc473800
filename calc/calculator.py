"""What a calculator declares: its inputs in groups, its outputs, and the functions that compute and word them.

The pipeline that reads a form and shows the results is :mod:`calc.evaluation`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Context, DivisionByZero, Inexact, InvalidOperation, Overflow, Rounded, localcontext
from gettext import NullTranslations
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from calc.inputs import Field, Value
    from calc.outputs import Fact, Shown

# Results must be exact: any rounding would raise instead of showing a
# value that differs from the formula's. (Outputs round only to be shown.)
# The page reads these signals as "cannot be computed exactly" (calc.evaluation).
NOT_EXACT = (Inexact, Rounded, Overflow, InvalidOperation, DivisionByZero)
_EXACT = Context(prec=100, traps=list(NOT_EXACT))

# The inputs the reader edited since the page last read the form (edits made while
# an answer was on its way are read together), or None while the page opens: on its
# defaults or its address, nothing edited.
Changed = frozenset[str] | None


@dataclass(frozen=True)
class Group:
    """Inputs shown together under a legend (a message id)."""

    legend: str
    inputs: tuple[Field, ...]


@dataclass(frozen=True)
class Calculator:
    """A calculator: its inputs in groups, its outputs, and its formulas.

    - ``compute`` receives every input's value by name (``None`` for a
      blank optional one) and returns every output's result by name; it
      may raise :class:`InputProblem` with a ``field`` for a combination
      of values that cannot be (heads that do not divide the width).
    - ``summarize`` words the figures' texts as one sentence for a screen reader;
      it is given the results too, to decide by them (a figure with no value)
      rather than by what their texts read.
    - ``settle`` keeps linked inputs in step: given the values and the
      inputs the reader changed (:data:`Changed`), it returns inputs to set
      (a preset fills a model's shape; editing the shape makes it custom),
      each replacing a refused text unless the reader has just typed it,
      each held to its field's limits as a typed value is, but those named in
      ``derived``: a figure settle computes from other inputs (the VRAM page's
      count of a shape), which the limits of what a reader types must not refuse.
    - ``links`` gives, for another calculator's page, the values to carry there; a page it leaves out is not
      offered, for a run that page would refuse.
    - ``examples`` are named sets of values (over the defaults) that the
      page's prose works through; ``facts()`` gives the named quantities it
      quotes (a recipe's bytes, a card's memory), so that every number in prose
      comes from here, formatted for the locale, or literal text that no
      language changes; a :class:`~calc.outputs.Citation` is a linked source.
      Only the build calls it (:class:`sitebuild.pages.Prose`), so the
      browser, which imports the same module, computes none of them.
    """

    name: str
    groups: tuple[Group, ...]
    outputs: tuple[Shown, ...]
    compute: Callable[[Mapping[str, Value | None]], Mapping[str, object]]
    summarize: Callable[[Mapping[str, str], Mapping[str, object], NullTranslations], str]
    settle: Callable[[Mapping[str, Value | None], Changed], Mapping[str, Value]] = lambda values, changed: {}
    links: Callable[[Mapping[str, Value | None], Mapping[str, object]], Mapping[str, Mapping[str, str]]] = (
        lambda values, results: {}
    )
    derived: frozenset[str] = frozenset()
    examples: Mapping[str, Mapping[str, Value]] = field(default_factory=dict)
    facts: Callable[[], Mapping[str, Fact]] = lambda: {}

    @property
    def inputs(self) -> tuple[Field, ...]:
        return tuple(i for group in self.groups for i in group.inputs)

    def defaults(self) -> dict[str, Value | None]:
        return {i.name: i.default for i in self.inputs}

    def results(self, values: Mapping[str, Value | None]) -> Mapping[str, object]:
        """The outputs for ``values``, computed exactly."""
        with localcontext(_EXACT):
            return self.compute(values)
