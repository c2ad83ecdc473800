"""A choice among presets that fills other inputs: a model fills its shape or count, a GPU its memory.

Choosing a preset fills the inputs it describes (when chosen, or when a page
opens with it); typing one of them makes the choice ``custom``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from calc.calculator import Changed

# The choice's value for values typed by hand.
CUSTOM = "custom"

Preset = TypeVar("Preset")


def settle_preset(
    values: Mapping[str, object],
    changed: Changed,
    *,
    choice: str,
    presets: Mapping[str, Preset],
    fill: Callable[[Preset], Mapping[str, object]],
) -> dict[str, object]:
    """Keep the ``choice`` input and the inputs its presets fill in step.

    ``fill`` gives a preset's values for those inputs. A value ``changed``
    names (the inputs edited since the form was read) that differs from the
    preset's was typed, and makes the choice custom; any other that differs
    is the preset's to fill (when the page opens, the preset is chosen, or
    after an answer that failed was never applied to the form).

    >>> sizes = {"small": 4, "large": 32}
    >>> layers = lambda preset: {"layers": preset, "heads": preset}
    >>> def settled(changed, **values):
    ...     return settle_preset(values, changed, choice="model", presets=sizes, fill=layers)
    >>> settled(frozenset({"model"}), model="large", layers=4, heads=4), settled(None, model="large", layers=4, heads=4)
    ({'layers': 32, 'heads': 32}, {'layers': 32, 'heads': 32})
    >>> settled(frozenset({"layers"}), model="large", layers=4, heads=32)
    {'model': 'custom'}
    >>> settled(frozenset({"rank"}), model="large", layers=4, heads=32)
    {'layers': 32}
    >>> settled(frozenset({"model", "layers"}), model="large", layers=4, heads=4)
    {'heads': 32, 'model': 'custom'}
    >>> settled(frozenset({"layers"}), model="custom", layers=4, heads=4)
    {}
    """
    preset = presets.get(values.get(choice))
    if preset is None:
        return {}
    expected = fill(preset)
    differing = {name: value for name, value in expected.items() if values.get(name) != value}
    typed = differing.keys() & (changed or ())
    if typed and choice not in (changed or ()):
        return {choice: CUSTOM}
    filled = {name: value for name, value in differing.items() if name not in typed}
    return {**filled, choice: CUSTOM} if typed else filled
