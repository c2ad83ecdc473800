"""A choice among presets that fills other inputs: a model fills its shape or count, a GPU its memory.

Choosing a preset fills the inputs it describes (when chosen, or when a page
opens with it); editing one of them so that it no longer matches makes the
choice ``custom``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar

# The choice's value for values typed by hand.
CUSTOM = "custom"

Preset = TypeVar("Preset")


def settle_preset(
    values: Mapping[str, object],
    changed: str | None,
    *,
    choice: str,
    presets: Mapping[str, Preset],
    fill: Callable[[Preset], Mapping[str, object]],
) -> dict[str, object]:
    """Keep the ``choice`` input and the inputs its presets fill in step.

    ``fill`` gives a preset's values for those inputs.

    >>> sizes = {"small": 4, "large": 32}
    >>> layers = lambda preset: {"layers": preset}
    >>> settle_preset({"model": "large", "layers": 4}, "model", choice="model", presets=sizes, fill=layers)
    {'layers': 32}
    >>> settle_preset({"model": "large", "layers": 4}, "layers", choice="model", presets=sizes, fill=layers)
    {'model': 'custom'}
    >>> settle_preset({"model": "custom", "layers": 4}, "layers", choice="model", presets=sizes, fill=layers)
    {}
    """
    preset = presets.get(values.get(choice))
    if preset is None:
        return {}
    expected = fill(preset)
    differing = {name: value for name, value in expected.items() if values.get(name) != value}
    if changed in expected and differing:
        return {choice: CUSTOM}
    return differing
