"""The training-memory (VRAM) page: a model, a recipe, a ZeRO stage and GPUs in; memory per GPU out.

The recipes and ZeRO's sharding, with their sources, are :mod:`calc.formulas.model_states`.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from gettext import NullTranslations

from calc import gpus
from calc.accumulation import GPUS_DESCRIPTION
from calc.calculator import Calculator, Group
from calc.formatting import GIBIBYTE, GIGABYTE, MEBIBYTE
from calc.formulas.model_states import RECIPES, STAGES, per_gpu
from calc.formulas.parameters import base_parameters
from calc.gpus import cards_that_fit
from calc.i18n import N_
from calc.inputs import Amount, Choice, Count, Option
from calc.model_inputs import model_choice
from calc.models import CUSTOM, PRESETS, settle_preset
from calc.outputs import Bar, Figure, Phrase, Quantity, Table, gigabytes

GB = 10**9

MODEL = model_choice(
    N_("A model whose parameter count is filled in for you, or your own count."), N_("Another model: type its count")
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
