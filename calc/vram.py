"""Training memory per GPU: weights, gradients and optimizer state, sharded by ZeRO.

A *recipe* is the bytes each parameter costs in weights, gradients and
optimizer state. With Ψ parameters on N data-parallel GPUs, ZeRO stage
``s`` shards the optimizer state when ``s ≥ 1``, the gradients too when
``s ≥ 2`` and the weights too when ``s = 3`` (Rajbhandari et al. 2019,
"ZeRO: Memory Optimizations Toward Training Trillion Parameter Models",
§5.1–5.3). With mixed-precision Adam (2 + 2 + K bytes, K = 12), per GPU:

- stage 0: (2 + 2 + K)Ψ
- stage 1: 2Ψ + 2Ψ + KΨ/N
- stage 2: 2Ψ + (2 + K)Ψ/N
- stage 3: (2 + 2 + K)Ψ/N

These are model states only: activations, temporary buffers and
fragmentation (the paper's "residual states", §3.2) come on top.

Bytes are :class:`~fractions.Fraction`, not :class:`~decimal.Decimal`:
Ψ/N has no finite decimal expansion for N = 3, 7, 48…, a rounded Decimal
could compare as fitting a card it overflows by a fraction of a byte, and
rounding raises in the exact context calculators compute in
(:mod:`calc.evaluation`). Round only to show a number, with
:func:`calc.formatting.rounded`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from gettext import NullTranslations

from calc import gpus
from calc.accumulation import GPUS_DESCRIPTION
from calc.evaluation import Calculator, Group
from calc.formatting import GIBIBYTE, GIGABYTE, MEBIBYTE
from calc.gpus import cards_that_fit
from calc.i18n import N_
from calc.inputs import Amount, Choice, Count, Option
from calc.lora import base_parameters
from calc.models import CUSTOM, PRESETS, settle_preset
from calc.outputs import Bar, Figure, Phrase, Quantity, Table, gigabytes

STAGES = (0, 1, 2, 3)


@dataclass(frozen=True)
class Recipe:
    """Bytes per parameter for the weights, the gradients and the optimizer state."""

    weights: Fraction
    gradients: Fraction
    optimizer: Fraction

    @property
    def total(self) -> Fraction:
        """Bytes per parameter in all.

        >>> RECIPES["adamw-mixed"].total
        Fraction(16, 1)
        """
        return self.weights + self.gradients + self.optimizer


@dataclass(frozen=True)
class PerGpu:
    """Bytes each GPU holds for the weights, the gradients and the optimizer state."""

    weights: Fraction
    gradients: Fraction
    optimizer: Fraction

    @property
    def total(self) -> Fraction:
        return self.weights + self.gradients + self.optimizer


# Stable ids (the page's option values) → recipes, in the order the page lists them.
RECIPES: dict[str, Recipe] = {
    # Mixed-precision Adam/AdamW: 2 + 2 + 12 = 16 (ZeRO §3.1, "K = 12").
    "adamw-mixed": Recipe(
        weights=Fraction(2),  # fp16/bf16 working copy (ZeRO §3.1)
        gradients=Fraction(2),  # fp16/bf16, like the weights they come from (ZeRO §3.1)
        optimizer=(
            Fraction(4)  # fp32 master copy of the weights (ZeRO §3.1)
            + 2 * Fraction(4)  # fp32 momentum and variance (ZeRO §3.1)
        ),
    ),
    # Adam/AdamW in fp32 throughout: 4 + 4 + 8 = 16.
    "adam-fp32": Recipe(
        weights=Fraction(4),  # fp32, and no second copy to keep
        gradients=Fraction(4),  # the dtype of the weights
        # exp_avg, exp_avg_sq: zeros_like(param), so the weights' dtype (PyTorch torch/optim/adamw.py)
        optimizer=2 * Fraction(4),
    ),
    # Pure bf16 AdamW, no fp32 master copy: 2 + 2 + 4 = 8.
    "adamw-bf16": Recipe(
        weights=Fraction(2),  # bf16
        gradients=Fraction(2),  # bf16
        optimizer=2 * Fraction(2),  # exp_avg, exp_avg_sq in the weights' bf16 (PyTorch torch/optim/adamw.py)
    ),
    # bitsandbytes 8-bit AdamW under mixed precision: 2 + 2 + (4 + 2 + 1/32) = 10 1/32. bitsandbytes updates
    # whatever weights it is given, so the fp32 master copy is the mixed-precision trainer's (ZeRO §3.1).
    # Tensors under 4096 elements (min_8bit_size) keep fp32 states, and each tensor's last block and the
    # shared 256-entry quantization maps round up a few bytes: both depend on the model's shapes, left out.
    "adamw-8bit": Recipe(
        weights=Fraction(2),  # fp16/bf16 working copy (ZeRO §3.1)
        gradients=Fraction(2),  # fp16/bf16 (ZeRO §3.1)
        optimizer=(
            Fraction(4)  # fp32 master copy (ZeRO §3.1)
            # state1, state2: torch.uint8 (bitsandbytes/optim/optimizer.py, Optimizer2State.init_state)
            + 2 * Fraction(1)
            # absmax1, absmax2: one float32 per block of 256 ("blocksize = 256", same function; 2048 before
            # bitsandbytes 0.44.0, CHANGELOG.md)
            + 2 * Fraction(4, 256)
        ),
    ),
    # SGD with momentum under mixed precision: 2 + 2 + (4 + 4) = 12.
    "sgd-momentum": Recipe(
        weights=Fraction(2),  # fp16/bf16 working copy (ZeRO §3.1)
        gradients=Fraction(2),  # fp16/bf16 (ZeRO §3.1)
        optimizer=(
            Fraction(4)  # fp32 master copy (ZeRO §3.1)
            + Fraction(4)  # fp32 momentum_buffer, one per parameter (PyTorch torch/optim/sgd.py)
        ),
    ),
    # SGD with momentum in fp32 throughout: 4 + 4 + 4 = 12.
    "sgd-fp32": Recipe(
        weights=Fraction(4),  # fp32
        gradients=Fraction(4),  # fp32
        optimizer=Fraction(4),  # momentum_buffer, cloned from the gradient (PyTorch torch/optim/sgd.py)
    ),
}


def per_gpu(recipe: Recipe, parameters: int | Decimal | Fraction, stage: int, gpus: int) -> PerGpu:
    """What each of ``gpus`` data-parallel GPUs holds under ZeRO ``stage``, in bytes.

    The ZeRO paper's example (§5.1–5.3, Figure 1): 7.5B parameters, mixed-precision Adam, 64 GPUs.

    >>> adam = RECIPES["adamw-mixed"]
    >>> from calc.formatting import rounded
    >>> [str(rounded(per_gpu(adam, 7_500_000_000, stage, 64).total / 10**9, 6)) for stage in STAGES]
    ['120.000000', '31.406250', '16.640625', '1.875000']
    >>> per_gpu(adam, 10, 1, 3).optimizer
    Fraction(40, 1)
    >>> per_gpu(adam, 1, 1, 3).optimizer
    Fraction(4, 1)
    >>> per_gpu(adam, 1, 2, 3).gradients
    Fraction(2, 3)
    """
    if stage not in STAGES:
        raise ValueError(f"ZeRO stage must be one of {STAGES}, not {stage!r}")
    if gpus < 1:
        raise ValueError(f"need at least one GPU, not {gpus!r}")
    psi = Fraction(parameters)  # exact for a Decimal too
    if psi < 0:
        raise ValueError(f"a parameter count cannot be negative: {parameters!r}")
    # Each stage shards what the one before it did, and one more kind of state (ZeRO §5.1–5.3).
    return PerGpu(
        weights=recipe.weights * psi / (gpus if stage >= 3 else 1),  # P_p, §5.3
        gradients=recipe.gradients * psi / (gpus if stage >= 2 else 1),  # P_g, §5.2
        optimizer=recipe.optimizer * psi / (gpus if stage >= 1 else 1),  # P_os, §5.1
    )


# The page: inputs, outputs and how they are computed.

GB = 10**9

MODEL = Choice(
    "model",
    N_("Model"),
    N_("A model whose parameter count is filled in for you, or your own count."),
    options=(*(Option(repo, repo) for repo in PRESETS), Option(CUSTOM, N_("Another model: type its count"))),
    default="meta-llama/Llama-3.1-8B",
)
PARAMETERS = Amount(
    "parameters",
    N_("Parameters, in billions"),
    N_("The model's parameter count, in billions. Every parameter is counted as trained."),
    default=Decimal(base_parameters(PRESETS["meta-llama/Llama-3.1-8B"])).scaleb(-9),
    maximum=Decimal(100_000),
    # A billionth of a billion: a single parameter.
    places=9,
)
OPTIMIZER = Choice(
    "optimizer",
    N_("Training recipe"),
    N_("The optimizer and the precision of the weights, which set what each parameter costs."),
    options=(
        Option("adamw-mixed", N_("AdamW, mixed precision")),
        Option("adam-fp32", N_("Adam or AdamW, all in fp32")),
        Option("adamw-bf16", N_("AdamW, all in bf16")),
        Option("adamw-8bit", N_("8-bit AdamW (bitsandbytes), mixed precision")),
        Option("sgd-momentum", N_("SGD with momentum, mixed precision")),
        Option("sgd-fp32", N_("SGD with momentum, all in fp32")),
    ),
    default="adamw-mixed",
)
ZERO_STAGE = Choice(
    "zero_stage",
    N_("ZeRO stage"),
    N_(
        "What DeepSpeed ZeRO splits across the GPUs instead of copying to each. PyTorch FSDP's "
        "SHARD_GRAD_OP and FULL_SHARD match stages two and three."
    ),
    options=(
        Option("0", N_("None: every GPU holds everything")),
        Option("1", N_("Stage one: optimizer state split")),
        Option("2", N_("Stage two: optimizer state and gradients split")),
        Option("3", N_("Stage three: optimizer state, gradients and weights split")),
    ),
    default="2",
)
GPUS = Count(
    "gpus",
    N_("Data-parallel GPUs"),
    GPUS_DESCRIPTION,
    default=Decimal(8),
    maximum=Decimal(1_000_000),
)
ACTIVATION_MEMORY = Amount(
    "activation_memory",
    N_("Peak activation memory per GPU"),
    N_("The activations of one micro-batch at their peak, as the gradient accumulation calculator gives them."),
    default=Decimal(2),
    maximum=Decimal(100_000),
    places=6,
    minimum_included=True,
    unit=GIGABYTE,
)

# The breakdown's parts, in the order of the bar and the table.
PARTS = (
    ("weights", N_("Weights")),
    ("gradients", N_("Gradients")),
    ("optimizer", N_("Optimizer state")),
    ("activations", N_("Activations")),
)


def settle(values: Mapping[str, object], changed: str | None) -> dict[str, object]:
    """A preset fills the parameter count; typing another count makes the model custom."""
    return settle_preset(values, changed, lambda shape: {"parameters": Decimal(base_parameters(shape)).scaleb(-9)})


def compute(values: Mapping[str, object]) -> dict[str, object]:
    recipe = RECIPES[values["optimizer"]]
    parameters = Fraction(values["parameters"]) * GB
    state = per_gpu(recipe, parameters, int(values["zero_stage"]), int(values["gpus"]))
    parts = {
        "weights": state.weights,
        "gradients": state.gradients,
        "optimizer": state.optimizer,
        "activations": Fraction(values["activation_memory"]) * GB,
    }
    per_parameter = {"weights": recipe.weights, "gradients": recipe.gradients, "optimizer": recipe.optimizer}
    total = sum(parts.values())

    rows = [
        (label, Quantity(per_parameter[key], places=3) if key in per_parameter else "", gigabytes(parts[key], 2))
        for key, label in PARTS
    ]
    rows.append((N_("Total"), Quantity(recipe.total, places=3), gigabytes(total, 2)))
    fits = [
        (
            gpu.name,
            Quantity(Fraction(gpu.mib, 1024), GIBIBYTE, places=2),
            Phrase(N_("Fits, with %(spare)s to spare"), {"spare": gigabytes(gpu.bytes - total, 2)})
            if gpu in cards_that_fit(total)
            else Phrase(N_("Short by %(missing)s"), {"missing": gigabytes(total - gpu.bytes, 2)}),
        )
        for gpu in gpus.GPUS
    ]
    return {
        "total_memory": gigabytes(total, 2),
        "breakdown_bar": [(label, gigabytes(parts[key], 2)) for key, label in PARTS],
        "breakdown": rows,
        "fits": fits,
    }


def summarize(outputs: Mapping[str, str], translations: NullTranslations) -> str:
    """The result as one sentence, for the page's live region.

    >>> summarize({"total_memory": "32.1 GB"}, NullTranslations())
    'Training memory per GPU: 32.1 GB.'
    """
    return translations.gettext("Training memory per GPU: %(total)s.") % {"total": outputs["total_memory"]}


CALCULATOR = Calculator(
    name="vram",
    groups=(
        Group(N_("Model size"), (MODEL, PARAMETERS)),
        Group(N_("Training"), (OPTIMIZER, ZERO_STAGE, GPUS)),
        Group(N_("Activations"), (ACTIVATION_MEMORY,)),
    ),
    outputs=(
        Figure(
            "total_memory", N_("Training memory per GPU"), N_("weights, gradients, optimizer state and activations")
        ),
        Bar("breakdown_bar", N_("Where the memory goes")),
        Table("breakdown", N_("Memory per GPU, part by part"), (N_("Part"), N_("Bytes per parameter"), N_("Per GPU"))),
        Table("fits", N_("Common GPUs, as nvidia-smi reports their memory"), (N_("GPU"), N_("Memory"), N_("Verdict"))),
    ),
    compute=compute,
    summarize=summarize,
    settle=settle,
    # The worked example: the ZeRO paper's 7.5B-parameter model on 64 GPUs (§5, Figure 1), stage by stage.
    examples={
        f"stage_{stage}": {
            "model": CUSTOM,
            "parameters": Decimal("7.5"),
            "zero_stage": str(stage),
            "gpus": Decimal(64),
            "activation_memory": Decimal(0),
        }
        for stage in STAGES
    },
    facts={
        "adam_weights": Quantity(RECIPES["adamw-mixed"].weights, places=0),
        "adam_gradients": Quantity(RECIPES["adamw-mixed"].gradients, places=0),
        "adam_optimizer": Quantity(RECIPES["adamw-mixed"].optimizer, places=0),
        "adam_total": Quantity(RECIPES["adamw-mixed"].total, places=0),
        "adam_ratio": Quantity(RECIPES["adamw-mixed"].optimizer / RECIPES["adamw-mixed"].weights, places=0),
        "fp32": Quantity(RECIPES["adam-fp32"].weights, places=0),
        "zero_recipe": "Rajbhandari et al. 2019, §3.1",
        "gigabyte": Quantity(GB),
        "h100_nominal": Quantity(80, GIGABYTE),
        "h100_mib": Quantity(gpus.GPUS_BY_ID["h100-80gb"].mib, MEBIBYTE),
        "h100_gib": Quantity(Fraction(gpus.GPUS_BY_ID["h100-80gb"].mib, 1024), GIBIBYTE, places=2),
        "h100_gb": Quantity(Fraction(gpus.GPUS_BY_ID["h100-80gb"].bytes, GB), GIGABYTE, places=2),
    },
)
