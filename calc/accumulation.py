"""Gradient accumulation: the effective batch size and the activation memory it costs.

With micro-batch size *b*, accumulation steps *a*, data-parallel GPUs *g*
and activation memory per sample *A* (in GB):

- effective batch size ``E = b · a · g``;
- peak activation memory per GPU ``M = b · A``.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from gettext import NullTranslations

from calc.evaluation import Calculator, Quantity
from calc.fields import Field

GIGABYTE = "digital-gigabyte"

# Bounds well past any real training run (the largest clusters have about
# 10^5 GPUs), yet small enough that every result stays exact and readable.
FIELDS = (
    Field("micro_batch", default=Decimal(4), maximum=Decimal(1_000_000)),
    Field("accumulation_steps", default=Decimal(8), maximum=Decimal(1_000_000)),
    Field("gpus", default=Decimal(1), maximum=Decimal(1_000_000)),
    Field(
        "activation_per_sample",
        default=Decimal("0.5"),
        maximum=Decimal(10_000),
        whole=False,
        minimum=Decimal(0),
        max_fraction_digits=6,
        unit=GIGABYTE,
    ),
)


def effective_batch_size(micro_batch: Decimal, accumulation_steps: Decimal, gpus: Decimal) -> Decimal:
    """Samples behind one optimizer step: E = b · a · g.

    >>> effective_batch_size(Decimal(4), Decimal(8), Decimal(1))
    Decimal('32')
    """
    return micro_batch * accumulation_steps * gpus


def peak_activation_memory(micro_batch: Decimal, activation_per_sample: Decimal) -> Decimal:
    """Activation memory held at once on each GPU, in GB: M = b · A.

    Accumulation steps do not appear: one micro-batch is alive at a time.

    >>> peak_activation_memory(Decimal(3), Decimal("0.1"))
    Decimal('0.3')
    """
    return micro_batch * activation_per_sample


def compute(values: Mapping[str, Decimal]) -> dict[str, Quantity]:
    b = values["micro_batch"]
    return {
        "effective_batch": Quantity(effective_batch_size(b, values["accumulation_steps"], values["gpus"])),
        "activation_memory": Quantity(peak_activation_memory(b, values["activation_per_sample"]), GIGABYTE),
    }


def summarize(outputs: Mapping[str, str], translations: NullTranslations) -> str:
    """The results as one sentence, for the page's live region.

    >>> summarize({"effective_batch": "32", "activation_memory": "2 GB"}, NullTranslations())
    'Effective batch size: 32. Peak activation memory per GPU: 2 GB.'
    """
    return translations.gettext("Effective batch size: %(effective)s. Peak activation memory per GPU: %(memory)s.") % {
        "effective": outputs["effective_batch"],
        "memory": outputs["activation_memory"],
    }


CALCULATOR = Calculator(
    name="accumulation",
    fields=FIELDS,
    outputs=("effective_batch", "activation_memory"),
    compute=compute,
    summarize=summarize,
    # The page's worked example: the defaults, then the same run on 4 GPUs.
    examples={"single_gpu": {}, "four_gpus": {"gpus": Decimal(4)}},
)
