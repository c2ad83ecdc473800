"""The LoRA page: a base model, a rank and target modules in; the adapter's size and memory out.

The counts and byte sizes, with their sources, are :mod:`calc.formulas.parameters`.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from gettext import NullTranslations

from calc.calculator import Calculator, Group
from calc.formatting import MEGABYTE, PERCENT
from calc.formulas.parameters import (
    ADAPTER_TRAINING_BYTES_PER_PARAMETER,
    NF4_BYTES_PER_WEIGHT,
    active_parameters,
    adapter_bytes,
    adapter_training_bytes,
    base_bytes_16bit,
    base_bytes_qlora,
    base_bytes_qlora_prepared,
    base_parameters,
    lora_parameters,
)
from calc.i18n import N_
from calc.model_inputs import CONFIG, MODEL, SHAPE_FIELDS, shape_inputs, shape_of, shape_values
from calc.models import ARCHITECTURES, PRESETS
from calc.outputs import Citation, Figure, Quantity, Table, gigabytes
from calc.step_inputs import RANK, TARGETS, checked_targets, settle_targets

SHAPE, settle_shape = shape_inputs(*SHAPE_FIELDS)


def settle(values: Mapping[str, object], changed: str | None) -> dict[str, object]:
    """The shape in step with the model, and the target modules with the model's own names.

    >>> sorted(settle({"model": "microsoft/Phi-3-mini-4k-instruct", "target_modules": {"q_proj", "v_proj"}},
    ...               "model")["target_modules"])
    ['qkv_proj']
    """
    settled = settle_shape(values, changed)
    if "model" not in values:
        return settled  # a model the form could not read: its field says so, and the targets wait
    # A pasted config.json changes the model as choosing one does.
    changed = "architecture" if values.get("config") is not None else changed
    return settled | settle_targets({**values, **settled}, changed)


def compute(values: Mapping[str, object]) -> dict[str, object]:
    # A preset's own shape: it knows what the form does not (Gemma-2's head_dim, tied embeddings, biases).
    shape = shape_of(values)
    checked_targets(values)
    trainable = lora_parameters(shape, int(values["rank"]), values["target_modules"])
    base = base_parameters(shape)

    def megabytes(size: int) -> Quantity:
        return Quantity(Fraction(size, 10**6), MEGABYTE, places=2)

    return {
        "trainable_parameters": Quantity(trainable),
        "share": Quantity(Fraction(100 * trainable, base), PERCENT, places=3),
        "base_parameters": Quantity(base),
        "active_parameters": Quantity(active_parameters(shape)),
        "sizes": [
            (N_("Adapter file, 16-bit"), megabytes(adapter_bytes(trainable, 16))),
            (N_("Adapter file, 32-bit (peft's default)"), megabytes(adapter_bytes(trainable, 32))),
            (
                N_("Training the adapter: weights, gradients and optimizer state"),
                gigabytes(adapter_training_bytes(trainable), 2),
            ),
            (N_("Base model weights, 16-bit"), gigabytes(base_bytes_16bit(shape), 2)),
            (
                N_("Base model weights, QLoRA: NF4, the rest in 16\u00a0bits"),
                gigabytes(base_bytes_qlora(shape), 2),
            ),
            (
                N_("Base model weights, QLoRA: NF4, the rest in fp32 after peft's preparation"),
                gigabytes(base_bytes_qlora_prepared(shape), 2),
            ),
        ],
    }


def summarize(outputs: Mapping[str, str], translations: NullTranslations) -> str:
    """The results as one sentence, for the page's live region.

    >>> summarize({"trainable_parameters": "41,943,040", "share": "0.522%"}, NullTranslations())
    'Trainable parameters: 41,943,040, 0.522% of the base model.'
    """
    return translations.gettext("Trainable parameters: %(trainable)s, %(share)s of the base model.") % {
        "trainable": outputs["trainable_parameters"],
        "share": outputs["share"],
    }


CALCULATOR = Calculator(
    name="lora",
    groups=(
        Group(N_("Base model"), (MODEL,)),
        Group(N_("Adapter"), (RANK, TARGETS)),
        Group(N_("Model shape"), (CONFIG, *SHAPE)),
    ),
    outputs=(
        Figure("trainable_parameters", N_("Trainable parameters"), N_("in the adapter's A and B matrices")),
        Figure("share", N_("Share of the base model"), N_("trainable parameters as a share of the base model's")),
        Figure("base_parameters", N_("Base model parameters"), N_("frozen while the adapter is trained")),
        Figure(
            "active_parameters",
            N_("Active parameters per token"),
            N_("in a mixture of experts, all but the experts a token is not sent to"),
        ),
        Table("sizes", N_("Sizes"), (N_("Item"), N_("Size"))),
    ),
    compute=compute,
    summarize=summarize,
    settle=settle,
    # The worked example: peft's own printout for Llama-2-7b with r = 8 on q and v.
    examples={
        "llama2": {
            "model": "meta-llama/Llama-2-7b-hf",
            **shape_values(PRESETS["meta-llama/Llama-2-7b-hf"]),
            "rank": Decimal(8),
            "target_modules": frozenset({"q_proj", "v_proj"}),
        }
    },
    facts={
        "lora_source": Citation("Hu et al., 2021, §4.1", "https://arxiv.org/abs/2106.09685"),
        "qlora_source": Citation("Dettmers et al., 2023, §3", "https://arxiv.org/abs/2305.14314"),
        "qlora_config": (
            'BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", '
            "bnb_4bit_use_double_quant=True, bnb_4bit_compute_dtype=torch.bfloat16)"
        ),
        # transformers' names, which no language changes.
        "architectures": ", ".join(ARCHITECTURES),
        "training_bytes": Quantity(ADAPTER_TRAINING_BYTES_PER_PARAMETER),
        "nf4_bytes": Quantity(NF4_BYTES_PER_WEIGHT, places=3),
    },
)
