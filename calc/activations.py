"""The activation estimator's page: a model and a training setup in, the bytes kept per sample out.

The arithmetic, tensor by tensor and with its sources, is
:mod:`calc.formulas.activations`.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from gettext import NullTranslations

from calc.calculator import Calculator, Group
from calc.formatting import PERCENT, rounded
from calc.formulas.activations import FAMILIES, PRECISION_BYTES, activation_breakdown
from calc.i18n import N_
from calc.inputs import Choice, Count, Option, address_number
from calc.model_inputs import SHAPE, model_choice, settle_shape, shape_of
from calc.outputs import Bar, Citation, Figure, Phrase, Quantity, Table, Text, gigabytes

# Only the presets whose architecture the estimate covers.
MODEL = model_choice(
    N_("A model whose shape is filled in for you, or a shape of your own."),
    N_("Another model: type its shape"),
    keep=lambda shape: shape.model_type in FAMILIES,
)
SEQUENCE_LENGTH = Count(
    "sequence_length",
    N_("Sequence length"),
    N_("Tokens in each sample."),
    default=Decimal(4096),
    maximum=Decimal(10_000_000),
)
PRECISION = Choice(
    "precision",
    N_("Precision"),
    N_("The model's dtype, which its activations share."),
    options=tuple(Option(name, name) for name in PRECISION_BYTES),
    default="bf16",
)
ATTENTION = Choice(
    "attention",
    N_("Attention kernel"),
    N_("Whether the attention probabilities are kept for the backward pass."),
    options=(
        Option("eager", N_("Eager: keeps the attention probabilities")),
        Option("flash", N_("Fused (FlashAttention, or a fused SDPA backend): recomputes them")),
    ),
    default="flash",
)
RECOMPUTATION = Choice(
    "recomputation",
    N_("Recomputation"),
    N_("What the backward pass recomputes instead of keeping."),
    options=(
        Option("none", N_("None")),
        Option("selective", N_("Selective (Megatron-LM, NeMo): the attention core")),
        Option("full", N_("Full: every layer (gradient checkpointing)")),
    ),
    default="none",
)
LABELS = {
    "attention": N_("Attention"),
    "mlp": N_("MLP"),
    "norms": N_("Norms"),
    "logits": N_("Logits and loss"),
    "outside": N_("Outside the layers"),
}


# transformers refuses SDPA for the models whose attention caps its scores with a tanh (calc.models.ActivationHabits),
# and accepts FlashAttention there (_supports_flash_attn = True). The fused estimate has been measured with SDPA only.
SOFTCAPPED_ATTENTION = frozenset(name for name, habits in FAMILIES.items() if not habits.sdpa)
NO_SDPA = Phrase(
    N_(
        "Transformers refuses SDPA for this model, which caps its attention scores; it takes eager attention or "
        "FlashAttention. The fused estimate stands for FlashAttention, which has not been measured on this model."
    ),
    {},
)


def compute(values: Mapping[str, object]) -> dict[str, object]:
    shape = shape_of(values)
    parts = activation_breakdown(
        shape,
        int(values["sequence_length"]),
        values["precision"],
        values["attention"],
        values["recomputation"],
    )
    total = sum(parts.values(), Fraction(0))

    return {
        "activation_per_sample": gigabytes(total, 3),
        "breakdown_bar": [(LABELS[part], gigabytes(size, 3)) for part, size in parts.items()],
        "breakdown": [
            (LABELS[part], gigabytes(size, 3), Quantity(100 * size / total, PERCENT, places=1))
            for part, size in parts.items()
        ],
        "attention_note": NO_SDPA
        if values["attention"] == "flash" and shape.model_type in SOFTCAPPED_ATTENTION
        else None,
    }


def summarize(outputs: Mapping[str, str], translations: NullTranslations) -> str:
    """The result as one sentence, for the page's live region.

    >>> summarize({"activation_per_sample": "28.56 GB"}, NullTranslations())
    'Activation memory per sample: 28.56 GB.'
    """
    return translations.gettext("Activation memory per sample: %(memory)s.") % {
        "memory": outputs["activation_per_sample"]
    }


def links(values: Mapping[str, object], results: Mapping[str, object]) -> dict[str, dict[str, str]]:
    """The accumulation page and the planner get the estimate, to the six decimals their field takes."""
    # A tiny model can round to nothing, which no page takes as a measurement: the smallest step instead.
    estimate = max(rounded(results["activation_per_sample"].value, 6), Decimal("0.000001"))
    return {page: {"activation_per_sample": address_number(estimate)} for page in ("accumulation", "plan")}


CALCULATOR = Calculator(
    name="activations",
    groups=(
        Group(N_("Model"), (MODEL,)),
        Group(N_("Training setup"), (SEQUENCE_LENGTH, PRECISION, ATTENTION, RECOMPUTATION)),
        Group(N_("Model shape"), SHAPE),
    ),
    outputs=(
        Figure(
            "activation_per_sample", N_("Activation memory per sample"), N_("kept for the backward pass, at its peak")
        ),
        Bar("breakdown_bar", N_("Where the activation memory goes")),
        Table(
            "breakdown", N_("Activation memory per sample, by component"), (N_("Part"), N_("Per sample"), N_("Share"))
        ),
        Text("attention_note", N_("Attention kernel")),
    ),
    compute=compute,
    summarize=summarize,
    settle=settle_shape,
    links=links,
    examples={"llama": {}, "llama_full": {"recomputation": "full"}},
    facts={"korthikanti": Citation("Korthikanti et al. (2022, §4–5)", "https://arxiv.org/abs/2205.05198")},
)
