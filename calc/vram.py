"""The training-memory (VRAM) page: a model, a recipe, a ZeRO stage and GPUs in; memory per GPU out.

The recipes and ZeRO's sharding, with their sources, are :mod:`calc.formulas.model_states`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction
from gettext import NullTranslations
from math import floor

from babel import Locale

from calc import gpus
from calc.batch_inputs import GPUS, TARGET_BATCH
from calc.calculator import Calculator, Group
from calc.formatting import GIBIBYTE, GIGABYTE, MEBIBYTE, format_names
from calc.formulas.activations import FAMILIES
from calc.formulas.model_states import RECIPES, STAGES, per_gpu
from calc.formulas.parameters import TARGET_MODULES, base_parameters, expert_shapes
from calc.formulas.step import STEP_RECIPES, Moment, Peak, adapts_experts, limit_of, model_states, moments, peak_of
from calc.i18n import N_
from calc.inputs import Amount, Choice, Input, Option, address_number
from calc.model_inputs import CONFIG, DEFAULT_MODEL, SHAPE_FIELDS, TYPED_SHAPE, model_choice, shape_inputs, shape_of
from calc.models import PRESETS, ModelShape
from calc.outputs import Bar, Citation, Figure, Names, Phrase, Quantity, Table, Text, gigabytes
from calc.presets import CUSTOM, settle_preset
from calc.problems import InputProblem
from calc.step_inputs import (
    ATTENTION,
    METHOD,
    MICRO_BATCH,
    PRECISION,
    RANK,
    RECOMPUTATION,
    SEQUENCE_LENGTH,
    TARGETS,
    step_setting,
    with_targets,
)
from calc.step_outputs import PART_LABELS, moment_phrase, part_rows

GB = 10**9


def gpu_memory(gpu: gpus.GPU) -> Decimal:
    """A card's memory in GB, exactly: MiB × 2^20 bytes has at most nine decimals in units of 10^9.

    >>> gpu_memory(gpus.GPUS_BY_ID["rtx-4090"])
    Decimal('25.757220864')
    """
    return Decimal(gpu.bytes).scaleb(-9)


def billions(shape: ModelShape) -> Decimal:
    """A model's parameter count, in billions as the page's field holds it, exactly.

    >>> billions(PRESETS["meta-llama/Llama-3.1-8B"])
    Decimal('8.030261248')
    """
    return Decimal(base_parameters(shape)).scaleb(-9)


# The model choice's value for a parameter count alone: no shape, so the activations are typed.
COUNT = "count"
# The field's words, in the order the catalogs list them.
_DESCRIPTION = N_("A model whose shape is filled in for you, a shape of your own, or only a parameter count.")
_CUSTOM = N_("Another model: type its shape")
COUNT_OPTION = Option(COUNT, N_("Only a parameter count (and the activation memory)"))


@dataclass(frozen=True)
class ModelChoice(Choice):
    """The model field: it lists every preset, so its hint names the architectures whose step the page models."""

    def accepts(self, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext(
            "The step is modelled for the architectures %(modelled)s; for the other models, enter the activation "
            "memory."
        ) % {"modelled": format_names(FAMILIES, locale)}


MODEL = model_choice(_DESCRIPTION, _CUSTOM, kind=ModelChoice, also=(COUNT_OPTION,))
PARAMETERS = Amount(
    "parameters",
    N_("Parameters, in billions"),
    N_(
        "The model's parameter count, in billions, filled in from its shape. If you type another number, the page "
        "counts the model by that number alone, with every parameter trained, and adds the activation memory you "
        "enter."
    ),
    default=billions(PRESETS[DEFAULT_MODEL]),
    maximum=Decimal(100_000),
    # A billionth of a billion: a single parameter.
    places=9,
)
SHAPE, settle_shape = shape_inputs(*SHAPE_FIELDS)
OPTIMIZER = Choice(
    "optimizer",
    N_("Training recipe"),
    N_(
        "The optimizer, and the precision its weights, gradients and state are kept in: what each trained "
        "parameter costs."
    ),
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
    default="0",
)
ACTIVATION_MEMORY = Amount(
    "activation_memory",
    N_("Peak activation memory per GPU"),
    N_(
        "Leave it blank to compute the activations from the model. A value you type replaces them; use the peak "
        "activation memory per GPU from the gradient accumulation memory calculator."
    ),
    default=None,
    optional=True,
    example=Decimal(2),
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
    default="rtx-4090",
)
GPU_MEMORY = Amount(
    "gpu_memory",
    N_("GPU memory"),
    N_(
        "The memory of one GPU, in gigabytes of a billion bytes. For a listed card, this is its nvidia-smi total, "
        "converted."
    ),
    default=gpu_memory(gpus.GPUS_BY_ID[GPU.default]),
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


@dataclass
class StepNotModelled(InputProblem):
    """A model whose step the calculator does not model; ``modelled`` names the architectures it does."""

    modelled: tuple[str, ...]

    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext(
            "The step's peak is modelled for the architectures %(modelled)s: for this one, enter the activation memory."
        ) % {"modelled": format_names(self.modelled, locale)}


@dataclass
class ExpertsNotModelled(InputProblem):
    """An adapter on a mixture's expert weights, whose step the calculator does not model."""

    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext(
            "An adapter on the experts' weights is not modelled in the step: choose other target modules, or enter "
            "the activation memory."
        )


@dataclass
class MixtureUnderAutocast(InputProblem):
    """A mixture of experts under autocast: its experts' grouped matrix products are no autocast op."""

    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext(
            "A mixture of experts under autocast is not modelled: choose a recipe in 16 bits, or the precision fp32, "
            "or enter the activation memory."
        )


@dataclass
class CountNeedsActivations(InputProblem):
    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext("With only a parameter count, enter the activation memory too.")


def _settle_model(values: Mapping[str, object], changed: str | None) -> dict[str, object]:
    """A preset or a pasted config fills the shape; typing a shape field makes the model custom, and the count
    follows the shape; typing a count leaves the shape for the count alone."""
    settled = settle_shape(values, changed)
    model = values.get("model")
    # A count typed, or one an address gives with a preset it does not match (?parameters=7.5), is the count mode.
    # An address that gives only the model (another page's link, ?model=Qwen/Qwen3-8B) leaves the default count,
    # which is the default preset's: that is no count of its own.
    given = values.get("parameters")
    typed_count = changed == "parameters" or (
        changed is None and model in PRESETS and given not in (None, billions(PRESETS[model]), PARAMETERS.default)
    )
    if typed_count and model != COUNT:
        settled = {"model": COUNT}
    elif changed in SHAPE_FIELDS and values.get("model") == COUNT:
        settled["model"] = CUSTOM
    current = {**values, **settled}
    model = current.get("model")
    if model not in (None, COUNT) and (model in PRESETS or all(current.get(name) for name in TYPED_SHAPE)):
        try:
            count = billions(shape_of(current))
        except InputProblem:
            count = None  # a shape that cannot be: its field says so
        if count is not None and count != current.get("parameters"):
            settled["parameters"] = count
    return settled


# The step does not model an adapter on a mixture's experts (calc.formulas.step.adapts_experts): choosing a mixture
# brings the projections it does model as targets; the experts stay for the user to choose, and be told.
_EXPERTS = {name for shape in PRESETS.values() for name in expert_shapes(shape)}
_settle_model_and_targets = with_targets(_settle_model, [name for name in TARGET_MODULES if name not in _EXPERTS])


def settle(values: Mapping[str, object], changed: str | None) -> dict[str, object]:
    """The shape, the count and the targets in step with the model, and a listed GPU's memory with the GPU."""
    return {
        **_settle_model_and_targets(values, changed),
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


# The count mode's parts and the typed activations': the model states, the activations typed, the overhead.
LABELS = {**PART_LABELS, "activations": N_("Activations"), "overhead": N_("Overhead")}
NEEDS_MODEL = Phrase(N_("Needs the model's activations: choose a model and leave the activation memory blank."), {})
NOT_ONE = Phrase(
    N_(
        "Not even one sample fits: recompute activations, shorten the sequences, train LoRA or QLoRA, or shard "
        "with ZeRO."
    ),
    {},
)


def accumulates(values: Mapping[str, object], micro_batch: int) -> bool:
    """Whether micro-batches of this size reach the target batch only by accumulating several per step."""
    return int(values["target_batch"]) > int(values["gpus"]) * micro_batch


def _modelled_step(values: Mapping[str, object], free: Fraction) -> tuple[Peak, Moment, int]:
    """The step's peak at the form's micro-batch, then the moment that limits the micro-batch within ``free`` bytes
    and the largest micro-batch that fits: the page with a model and no activation memory typed."""
    shape = shape_of(values)
    setting = step_setting(
        values, shape, values["optimizer"], zero_stage=int(values["zero_stage"]), gpus=int(values["gpus"])
    )
    if shape.model_type not in FAMILIES:
        raise StepNotModelled(tuple(FAMILIES), field="activation_memory")
    if adapts_experts(shape, setting):
        raise ExpertsNotModelled(field="target_modules")
    if shape.experts and STEP_RECIPES[setting.recipe].autocast:
        raise MixtureUnderAutocast(field="precision")

    def step_moments(accumulating: bool) -> tuple[Moment, ...]:
        return moments(shape, replace(setting, accumulating=accumulating))

    micro_batch = int(values["micro_batch"])
    step = peak_of(step_moments(accumulates(values, micro_batch)), micro_batch)
    binding, count = limit_of(step_moments(False), free)
    if accumulates(values, count):
        # Even the largest micro-batch reaches the target only by accumulating: count the earlier gradients.
        binding, count = limit_of(step_moments(True), free)
    return step, binding, count


def _typed_parts(values: Mapping[str, object]) -> dict[str, Fraction]:
    """The model states, of a parameter count or of a model, and the activation memory typed: the page without the
    step's model."""
    stage, replicas = int(values["zero_stage"]), int(values["gpus"])
    typed = values["activation_memory"]
    if values["model"] == COUNT:
        if typed is None:
            raise CountNeedsActivations(field="activation_memory")
        states = per_gpu(RECIPES[values["optimizer"]], Fraction(values["parameters"]) * GB, stage, replicas)
    else:
        shape = shape_of(values)
        setting = step_setting(values, shape, values["optimizer"], zero_stage=stage, gpus=replicas)
        states = model_states(shape, setting)[0]
    return {
        "weights": states.weights,
        "gradients": states.gradients,
        "optimizer_state": states.optimizer,
        "activations": Fraction(typed) * GB,
    }


def compute(values: Mapping[str, object]) -> dict[str, object]:
    capacity = Fraction(values["gpu_memory"]) * GB
    overhead = Fraction(values["overhead"]) * GB
    free = capacity - overhead
    if values["model"] != COUNT and values["activation_memory"] is None:
        step, binding, count = _modelled_step(values, free)
        parts = dict(step.parts)
        left = free - binding.fixed_total
        largest = Quantity(count) if count else NOT_ONE
        moment = moment_phrase(
            # The LoRA page shows the same run's single step: say why this peak holds more.
            N_("The peak comes %(moment)s. It includes the gradients that earlier micro-batches leave behind.")
            if accumulates(values, int(values["micro_batch"]))
            else N_("The peak comes %(moment)s."),
            step.moment,
        )
    else:
        step = None
        parts = _typed_parts(values)
        left = free - (sum(parts.values()) - parts["activations"])
        largest, moment = NEEDS_MODEL, None
    parts["overhead"] = overhead
    total = sum(parts.values())

    # What the planner is handed, in the two decimals the pages show: the budget rounded down, so that it never
    # promises a byte your GPU lacks, the memory per sample rounded up.
    budget = per_sample = None
    if left > 0:
        budget = _hundredths_down(left / GB)
    if step is not None and count:
        # Where not even one sample fits, no per-sample figure is a limit: none is shown, and none is handed on.
        per_sample = -_hundredths_down(-binding.per_sample_total / GB)
        if budget is not None:
            # Rounding may lose the last sample's few bytes of slack: give the plan exactly what that many need.
            budget = max(budget, per_sample * count)
    rows = part_rows(parts, LABELS)
    return {
        "total_memory": gigabytes(total, 2),
        "your_gpu": verdict(capacity, total, SENTENCE),
        "largest_micro_batch": largest,
        "peak_moment": moment,
        # What the planner takes as its budget: what is left beside the memory that does not grow with the batch.
        "activation_budget": Quantity(budget, GIGABYTE) if budget is not None else None,
        # The per-sample part of the moment that limits the micro-batch: what the planner multiplies by b.
        "per_sample": None if per_sample is None else Quantity(per_sample, GIGABYTE),
        "breakdown_bar": rows,
        "breakdown": [*rows, (N_("Total"), gigabytes(total, 2))],
        "fits": [(gpu.name, gigabytes(gpu.bytes, 2), verdict(Fraction(gpu.bytes), total)) for gpu in gpus.GPUS],
    }


def _hundredths_down(value: Fraction) -> Decimal:
    """Gigabytes rounded down to two decimals, as the pages show them: never a byte your GPU lacks.

    (Three decimals would read as a thousands separator, and the field would ask which was meant.)
    """
    return Decimal(floor(value * 100)).scaleb(-2)


def links(values: Mapping[str, object], results: Mapping[str, object]) -> dict[str, dict[str, str]]:
    """The planner gets the target batch, the GPUs, and what your GPU leaves for the micro-batch.

    With a model, it also gets the per-sample memory of the moment that limits the micro-batch, rounded up to two
    decimals, and a budget the largest micro-batch that fits just fits, so that the plan's micro-batch is this page's.
    """
    plan = {
        "target_batch": address_number(values["target_batch"]),
        "gpus": address_number(values["gpus"]),
        "sequence_length": address_number(values["sequence_length"]),
    }
    budget = results["activation_budget"]
    if budget is None:
        return {"plan": plan}
    if (per_sample := results["per_sample"]) is not None:
        plan["activation_per_sample"] = address_number(per_sample.value)
    plan["memory_budget"] = address_number(budget.value)
    return {"plan": plan}


def summarize(outputs: Mapping[str, str], results: Mapping[str, object], translations: NullTranslations) -> str:
    """The result as one sentence, for the page's live region; where no micro-batch is given, its own sentence.

    >>> summarize({"total_memory": "32.1 GB", "largest_micro_batch": "3"}, {}, NullTranslations())
    'Training memory per GPU: 32.1 GB. Largest micro-batch that fits: 3.'
    >>> summarize({"total_memory": "32.1 GB", "largest_micro_batch": "Not even one sample fits."},
    ...           {"largest_micro_batch": NOT_ONE}, NullTranslations())
    'Training memory per GPU: 32.1 GB. Not even one sample fits.'
    """
    total = outputs["total_memory"]
    if isinstance(results.get("largest_micro_batch"), Phrase):
        return translations.gettext("Training memory per GPU: %(total)s. %(why)s") % {
            "total": total,
            "why": outputs["largest_micro_batch"],
        }
    return translations.gettext("Training memory per GPU: %(total)s. Largest micro-batch that fits: %(largest)s.") % {
        "total": total,
        "largest": outputs["largest_micro_batch"],
    }


CALCULATOR = Calculator(
    name="vram",
    groups=(
        Group(N_("Model"), (MODEL, CONFIG, PARAMETERS)),
        Group(N_("Method"), (METHOD, RANK, TARGETS)),
        Group(N_("Training"), (OPTIMIZER, PRECISION, ZERO_STAGE, GPUS)),
        Group(N_("Training step"), (SEQUENCE_LENGTH, MICRO_BATCH, ATTENTION, RECOMPUTATION, ACTIVATION_MEMORY)),
        Group(N_("GPU"), (GPU, GPU_MEMORY, OVERHEAD)),
        Group(N_("Batch"), (TARGET_BATCH,)),
        Group(N_("Model shape"), SHAPE),
    ),
    outputs=(
        Figure("total_memory", N_("Training memory per GPU"), N_("the step's peak plus the overhead")),
        Text("your_gpu", N_("Your GPU")),
        Figure(
            "largest_micro_batch",
            N_("Largest micro-batch that fits your GPU"),
            N_("in samples, per GPU and per forward and backward pass"),
        ),
        Text("peak_moment", N_("When the peak comes")),
        Figure(
            "activation_budget",
            N_("Left for the micro-batch on your GPU"),
            N_("the GPU's memory less the overhead and what does not grow with the micro-batch"),
            missing=N_("Nothing: even without samples, the step does not fit"),
        ),
        Figure(
            "per_sample",
            N_("Memory per sample at the limiting moment"),
            N_("what each additional sample adds at the moment that limits the micro-batch"),
            missing=N_("not known without the model"),
        ),
        Bar("breakdown_bar", N_("Where the memory goes")),
        Table("breakdown", N_("Memory per GPU at the step's peak, by part"), (N_("Part"), N_("Per GPU"))),
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
    examples={
        # The default run: the total, its largest micro-batch and the link to the planner.
        "default": {},
        # The ZeRO paper's 7.5B-parameter model on 64 GPUs (§5, Figure 1), stage by stage: the model states alone.
        **{
            f"stage_{stage}": {
                "model": COUNT,
                "parameters": Decimal("7.5"),
                "method": "full",
                "zero_stage": str(stage),
                "gpus": Decimal(64),
                "activation_memory": Decimal(0),
                "overhead": Decimal(0),
            }
            for stage in STAGES
        },
    },
    facts={
        "adam_weights": Quantity(RECIPES["adamw-mixed"].weights, places=0),
        "adam_gradients": Quantity(RECIPES["adamw-mixed"].gradients, places=0),
        "adam_optimizer": Quantity(RECIPES["adamw-mixed"].optimizer, places=0),
        "adam_total": Quantity(RECIPES["adamw-mixed"].total, places=0),
        "adam_ratio": Quantity(RECIPES["adamw-mixed"].optimizer / RECIPES["adamw-mixed"].weights, places=0),
        "fp32": Quantity(RECIPES["adam-fp32"].weights, places=0),
        # What FSDP's fp32 gradient shards take beyond this recipe's 16-bit gradients, a parameter.
        "fsdp_gradient_extra": Quantity(RECIPES["adam-fp32"].gradients - RECIPES["adamw-mixed"].gradients, places=0),
        # The recipe the page opens with, as the field shows it (a message id).
        "default_recipe": next(option.label for option in OPTIMIZER.options if option.value == OPTIMIZER.default),
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
        "default_gpu": gpus.GPUS_BY_ID[GPU.default].name,
        "default_gpu_gb": Quantity(Fraction(gpus.GPUS_BY_ID[GPU.default].bytes, GB), GIGABYTE, places=2),
        # transformers' model_type names, which no language changes.
        "modelled_architectures": Names(tuple(FAMILIES)),
        # The model field's option the Limitations name, as the field shows it (a message id).
        "count_option": COUNT_OPTION.label,
    },
)
