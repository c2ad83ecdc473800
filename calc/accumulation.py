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

from calc.evaluation import Calculator, Group
from calc.formatting import GIGABYTE
from calc.i18n import N_
from calc.inputs import Amount, Count
from calc.outputs import Figure, Quantity
from calc.snippets import SNIPPETS, snippets

# Bounds well past any real training run (the largest clusters have about
# 10^5 GPUs), yet small enough that every result stays exact and readable.
MICRO_BATCH = Count(
    "micro_batch",
    N_("Micro-batch size"),
    N_("Samples each GPU runs through one forward and backward pass."),
    default=Decimal(4),
    maximum=Decimal(1_000_000),
)
ACCUMULATION_STEPS = Count(
    "accumulation_steps",
    N_("Accumulation steps"),
    N_("Micro-batches whose gradients are added up before each optimizer step."),
    default=Decimal(8),
    maximum=Decimal(1_000_000),
)
GPUS_DESCRIPTION = N_(
    "Model replicas that each process their own micro-batch: your number of GPUs, divided by the "
    "tensor- and pipeline-parallel degrees if you use them."
)
GPUS = Count(
    "gpus",
    N_("Data-parallel GPUs"),
    GPUS_DESCRIPTION,
    default=Decimal(1),
    maximum=Decimal(1_000_000),
)
ACTIVATION_PER_SAMPLE = Amount(
    "activation_per_sample",
    N_("Activation memory per sample"),
    N_("Activations one sample keeps in memory for the backward pass."),
    default=Decimal("0.5"),
    maximum=Decimal(10_000),
    places=6,
    unit=GIGABYTE,
    see=("activations", N_("Don't know it? Estimate it from the model.")),
)


def effective_batch_size(micro_batch: Decimal, accumulation_steps: Decimal, gpus: Decimal) -> Decimal:
    """Samples per optimizer step: E = b · a · g.

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


def compute(values: Mapping[str, Decimal]) -> dict[str, object]:
    b, a, g = values["micro_batch"], values["accumulation_steps"], values["gpus"]
    return {
        "effective_batch": Quantity(effective_batch_size(b, a, g)),
        "activation_memory": Quantity(peak_activation_memory(b, values["activation_per_sample"]), GIGABYTE),
        **snippets(int(b), int(a), int(g)),
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


def links(values: Mapping[str, Decimal], results: Mapping[str, Quantity]) -> dict[str, dict[str, str]]:
    """The training-VRAM page gets this page's peak activation memory per GPU."""
    return {"vram": {"activation_memory": format(results["activation_memory"].value.normalize(), "f")}}


CALCULATOR = Calculator(
    name="accumulation",
    groups=(
        Group(N_("Batching"), (MICRO_BATCH, ACCUMULATION_STEPS, GPUS)),
        Group(N_("Memory"), (ACTIVATION_PER_SAMPLE,)),
    ),
    outputs=(
        Figure("effective_batch", N_("Effective batch size"), N_("samples per optimizer step")),
        Figure("activation_memory", N_("Peak activation memory per GPU"), N_("activations held at once on each GPU")),
        *SNIPPETS,
    ),
    compute=compute,
    summarize=summarize,
    links=links,
    # The page's worked example: the defaults, then the same run on 4 GPUs.
    examples={"single_gpu": {}, "four_gpus": {"gpus": Decimal(4)}},
)
