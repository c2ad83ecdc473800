"""The training-memory (VRAM) page: a model, a recipe, a ZeRO stage and GPUs in; memory per GPU out.

The recipes and ZeRO's sharding, with their sources, are :mod:`calc.formulas.model_states`.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from gettext import NullTranslations
from math import floor

from calc import gpus
from calc.batch_inputs import GPUS_DESCRIPTION
from calc.calculator import Calculator, Group
from calc.formatting import GIBIBYTE, GIGABYTE, MEBIBYTE
from calc.formulas.model_states import RECIPES, STAGES, per_gpu
from calc.formulas.parameters import base_parameters
from calc.i18n import N_
from calc.inputs import Amount, Choice, Count, Option, address_number
from calc.model_inputs import model_choice
from calc.models import PRESETS
from calc.outputs import Bar, Citation, Figure, Phrase, Quantity, Table, Text, gigabytes
from calc.presets import CUSTOM, settle_preset

GB = 10**9


def gpu_memory(gpu: gpus.GPU) -> Decimal:
    """A card's memory in GB, exactly: MiB × 2^20 bytes has at most nine decimals in units of 10^9.

    >>> gpu_memory(gpus.GPUS_BY_ID["rtx-4090"])
    Decimal('25.757220864')
    """
    return Decimal(gpu.bytes).scaleb(-9)


MODEL = model_choice(
    N_("A model whose parameter count is filled in for you, or your own count."), N_("Custom (enter parameter count)")
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
    N_("Optimizer and precision"),
    N_("The optimizer and the precision of the weights, which set what each parameter costs."),
    options=(
        Option("adamw-mixed", N_("AdamW, mixed precision")),
        Option("adam-fp32", N_("Adam or AdamW, all in fp32")),
        Option("adamw-bf16-fp32-states", N_("AdamW, bf16 weights and gradients, moments in fp32")),
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
        "What DeepSpeed ZeRO partitions across the GPUs instead of replicating on each. PyTorch FSDP's "
        "SHARD_GRAD_OP and FULL_SHARD roughly correspond to ZeRO-2 and ZeRO-3."
    ),
    options=(
        Option("0", N_("None: every GPU holds everything")),
        Option("1", N_("ZeRO-1: optimizer state partitioned")),
        Option("2", N_("ZeRO-2: optimizer state and gradients partitioned")),
        Option("3", N_("ZeRO-3: optimizer state, gradients and weights partitioned")),
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
    N_("The activations of one micro-batch at their peak, as the gradient accumulation memory calculator gives them."),
    default=Decimal(2),
    maximum=Decimal(100_000),
    places=6,
    minimum_included=True,
    unit=GIGABYTE,
)
GPU = Choice(
    "gpu",
    N_("Your GPU"),
    N_("The card the run is for, with its memory as nvidia-smi reports it, or a capacity of your own."),
    options=(*(Option(gpu.id, gpu.name) for gpu in gpus.GPUS), Option(CUSTOM, N_("Custom (enter its memory)"))),
    default="h100-80gb",
)
GPU_MEMORY = Amount(
    "gpu_memory",
    N_("GPU memory"),
    N_("What one GPU can hold, in gigabytes of a billion bytes: a listed card's nvidia-smi total, converted."),
    default=gpu_memory(gpus.GPUS_BY_ID["h100-80gb"]),
    maximum=Decimal(100_000),
    # A billionth of a gigabyte: a single byte, so that any card's MiB total is exact.
    places=9,
    unit=GIGABYTE,
)
OVERHEAD = Amount(
    "overhead",
    N_("Overhead per GPU"),
    N_(
        "Memory that no tensor of the model holds: the CUDA context, the libraries' workspaces, "
        "communication buffers and the allocator's fragmentation. Zero leaves it out."
    ),
    default=Decimal(1),
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
    ("overhead", N_("Overhead")),
)


def settle(values: Mapping[str, object], changed: str | None) -> dict[str, object]:
    """A preset fills the parameter count and a listed GPU its memory; typing another value makes either custom."""
    return {
        **settle_preset(
            values,
            changed,
            choice="model",
            presets=PRESETS,
            fill=lambda shape: {"parameters": Decimal(base_parameters(shape)).scaleb(-9)},
        ),
        **settle_preset(
            values, changed, choice="gpu", presets=gpus.GPUS_BY_ID, fill=lambda gpu: {"gpu_memory": gpu_memory(gpu)}
        ),
    }


# How a verdict is worded: in the table of cards, and as the sentence about the reader's own.
CELL = (N_("Fits, with %(spare)s to spare"), N_("Short by %(missing)s"))
SENTENCE = (N_("Your GPU holds it, with %(spare)s to spare."), N_("Your GPU is short by %(missing)s."))


def verdict(capacity: Fraction, total: Fraction, words: tuple[str, str] = CELL) -> Phrase:
    """Whether ``total`` bytes fit in ``capacity`` (total ≤ capacity), and by how much."""
    fits, short = words
    if total <= capacity:
        return Phrase(fits, {"spare": gigabytes(capacity - total, 2)})
    return Phrase(short, {"missing": gigabytes(total - capacity, 2)})


def compute(values: Mapping[str, object]) -> dict[str, object]:
    recipe = RECIPES[values["optimizer"]]
    parameters = Fraction(values["parameters"]) * GB
    state = per_gpu(recipe, parameters, int(values["zero_stage"]), int(values["gpus"]))
    parts = {
        "weights": state.weights,
        "gradients": state.gradients,
        "optimizer": state.optimizer,
        "activations": Fraction(values["activation_memory"]) * GB,
        "overhead": Fraction(values["overhead"]) * GB,
    }
    per_parameter = {"weights": recipe.weights, "gradients": recipe.gradients, "optimizer": recipe.optimizer}
    total = sum(parts.values())

    rows = [
        (label, Quantity(per_parameter[key], places=3) if key in per_parameter else "", gigabytes(parts[key], 2))
        for key, label in PARTS
    ]
    rows.append((N_("Total"), Quantity(recipe.total, places=3), gigabytes(total, 2)))
    fits = [(gpu.name, gigabytes(gpu.bytes, 2), verdict(Fraction(gpu.bytes), total)) for gpu in gpus.GPUS]
    capacity = Fraction(values["gpu_memory"]) * GB
    left = capacity - (total - parts["activations"])
    return {
        "total_memory": gigabytes(total, 2),
        "your_gpu": verdict(capacity, total, SENTENCE),
        # What the planner takes as its activation budget; nothing when the rest alone does not fit.
        "activation_budget": gigabytes(left, 2) if left > 0 else None,
        "breakdown_bar": [(label, gigabytes(parts[key], 2)) for key, label in PARTS],
        "breakdown": rows,
        "fits": fits,
    }


def links(values: Mapping[str, object], results: Mapping[str, object]) -> dict[str, dict[str, str]]:
    """The planner gets the data-parallel GPUs and, where there is any, what your GPU has left for activations.

    The budget is rounded down to the planner's six decimals, so that it never promises a byte your GPU lacks.
    """
    plan = {"gpus": address_number(values["gpus"])}
    if (budget := results["activation_budget"]) is not None:
        plan["memory_budget"] = address_number(Decimal(floor(Fraction(budget.value) * 10**6)).scaleb(-6))
    return {"plan": plan}


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
        Group(N_("GPU"), (GPU, GPU_MEMORY, OVERHEAD)),
    ),
    outputs=(
        Figure(
            "total_memory",
            N_("Training memory per GPU"),
            N_("weights, gradients, optimizer state, activations and overhead"),
        ),
        Text("your_gpu", N_("Your GPU")),
        Figure(
            "activation_budget",
            N_("Left for activations on your GPU"),
            N_("its memory less the weights, gradients, optimizer state and overhead"),
            missing=N_("Nothing: the rest alone does not fit"),
        ),
        Bar("breakdown_bar", N_("Where the memory goes")),
        Table("breakdown", N_("Memory per GPU, by component"), (N_("Part"), N_("Bytes per parameter"), N_("Per GPU"))),
        Table(
            "fits",
            N_("Common GPUs, with the memory nvidia-smi reports, in the same gigabytes as the total"),
            (N_("GPU"), N_("Memory"), N_("Verdict")),
        ),
    ),
    compute=compute,
    summarize=summarize,
    settle=settle,
    links=links,
    # The worked example: the ZeRO paper's 7.5B-parameter model on 64 GPUs (§5, Figure 1), stage by stage.
    examples={
        f"stage_{stage}": {
            "model": CUSTOM,
            "parameters": Decimal("7.5"),
            "zero_stage": str(stage),
            "gpus": Decimal(64),
            "activation_memory": Decimal(0),
            "overhead": Decimal(0),
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
        "zero_recipe": Citation("Rajbhandari et al., 2019, §3.1", "https://arxiv.org/abs/1910.02054"),
        "one": Quantity(1),
        # The release from which from_pretrained loads a checkpoint in its stored dtype (dtype="auto" by default).
        "transformers_auto_dtype": "5.0",
        "gigabyte": Quantity(GB),
        # nvidia-smi's figure for a process that only initialised CUDA (https://github.com/pytorch/pytorch/issues/34323).
        "cuda_context": Quantity(781, MEBIBYTE),
        "overhead": Quantity(OVERHEAD.default, GIGABYTE),
        "h100_nominal": Quantity(80, GIGABYTE),
        "h100_mib": Quantity(gpus.GPUS_BY_ID["h100-80gb"].mib, MEBIBYTE),
        "h100_gib": Quantity(Fraction(gpus.GPUS_BY_ID["h100-80gb"].mib, 1024), GIBIBYTE, places=2),
        "h100_gb": Quantity(Fraction(gpus.GPUS_BY_ID["h100-80gb"].bytes, GB), GIGABYTE, places=2),
    },
)
