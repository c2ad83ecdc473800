"""The activation estimator's page: a model and a training setup in, two figures per sample out.

The bytes autograd saves per sample, by part, and the activation memory per
sample at the whole training step's peak, which adds the loss's gradients, a
recomputed layer and the gradients flowing through backward: the second
decides out-of-memory, and is what the links carry. The arithmetic, tensor by
tensor and with its sources, is :mod:`calc.formulas.activations` and
:mod:`calc.formulas.step`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from gettext import NullTranslations

from babel import Locale

from calc.batch_inputs import ACTIVATION_PER_SAMPLE
from calc.calculator import Calculator, Group
from calc.configs import Reading
from calc.formatting import GIGABYTE, PERCENT, rounded_up
from calc.formulas.activations import FAMILIES
from calc.formulas.model_states import RECIPES, chosen_as
from calc.formulas.parameters import target_modules
from calc.formulas.step import adapts_experts, largest_per_sample, moments, saved_breakdown
from calc.i18n import N_
from calc.inputs import Input, address_number, address_within
from calc.model_inputs import CONFIG, SHAPE_FIELDS, model_choice, shape_inputs, shape_of
from calc.models import PRESETS
from calc.outputs import (
    Bar,
    Citation,
    Column,
    Fact,
    Figure,
    Names,
    Phrase,
    Quantity,
    Table,
    Text,
    at_least_shown,
    gigabytes,
    unit_facts,
)
from calc.problems import InputProblem
from calc.snippets import ACTIVATION_CHECKPOINTING_SINCE
from calc.step_inputs import (
    ATTENTION,
    EXPERT_TARGETS,
    METHOD,
    PRECISION,
    RANK,
    RECOMPUTATION,
    SEQUENCE_LENGTH,
    STEP_TARGET_MODULES,
    ExpertsNotModelled,
    adamw_recipe,
    step_setting,
    with_targets,
)
from calc.step_outputs import attention_note, moment_phrase, window_note
from calc.transformers_releases import EXPERTS_AS_LINEAR_UNTIL, GROUPED_EXPERTS_SINCE, GROUPED_FALLBACK

# Only the presets whose architecture the estimate covers.
MODEL = model_choice(keep=lambda shape: shape.model_type in FAMILIES)
COVERED = Names(tuple(FAMILIES))  # transformers' model_type names, which no language changes


@dataclass
class NotCovered(InputProblem):
    """A config.json of an architecture the estimate does not cover."""

    model_type: str

    @classmethod
    def examples(cls) -> tuple[InputProblem, ...]:
        return (cls("x"),)

    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext("This estimate covers %(covered)s, not %(model_type)s.") % {
            "covered": COVERED.text(locale),
            "model_type": self.model_type,
        }


def _covered(text: str) -> Reading:
    """The pasted config.json's shape, refused on its field when the estimate does not cover its architecture."""
    reading = CONFIG.parse(text)
    if reading.shape.model_type not in FAMILIES:
        raise NotCovered(reading.shape.model_type)
    return reading


_SHAPE, settle_shape = shape_inputs(
    "architecture",
    "layers",
    "hidden_size",
    "attention_heads",
    "kv_heads",
    "head_dim",
    "intermediate_size",
    "vocab_size",
    "tie_word_embeddings",
    "experts",
    "experts_per_token",
    "expert_intermediate_size",
    "sliding_window",
)
ARCHITECTURE = SHAPE_FIELDS["architecture"]
SHAPE = tuple(
    replace(field, options=tuple(o for o in ARCHITECTURE.options if o.value in FAMILIES))
    if field is ARCHITECTURE
    else field
    for field in _SHAPE
)
# What the covered architectures can adapt, each model showing its own, a mixture's 3-D expert weights included: the
# step does not model an adapter on those (calc.formulas.step.adapts_experts), which is refused on its field as the
# VRAM and LoRA pages refuse it. Choosing a model brings the targets the step models.
COVERED_TARGETS = {name for shape in PRESETS.values() if shape.model_type in FAMILIES for name in target_modules(shape)}
PAGE_TARGETS = replace(
    STEP_TARGET_MODULES, options=tuple(o for o in STEP_TARGET_MODULES.options if o.value in COVERED_TARGETS)
)
# This page computes in the model's own dtype: autocast over an fp32 model is not modelled here (its Limitations), but
# the VRAM page's recipe "Adam or AdamW, all in fp32" at bf16 is.
PAGE_PRECISION = replace(
    PRECISION,
    description=N_(
        "The dtype the model is loaded in and computes in; its activations are in the same dtype. Autocast over an "
        "fp32 model is not modeled here; the per-GPU training memory calculator models it in full fine-tuning."
    ),
)
PAGE_CONFIG = replace(CONFIG, parse=_covered)

LABELS = {
    "attention": N_("Attention"),
    "mlp": N_("MLP"),
    "norms": N_("Norms"),
    "logits": N_("Logits and loss"),
    "outside": N_("Token ids"),
}
# Under full recomputation the row is almost all the layers' inputs, the token ids a few kilobytes of it (technical
# review, round 26).
RECOMPUTED_OUTSIDE = N_("Each layer's input, kept for recomputation (and, in full fine-tuning, the token ids)")


# The shape in step with the model, and the target modules with the model's own names.
settle = with_targets(settle_shape, COVERED_TARGETS - EXPERT_TARGETS)


# The figures are for QLoRA's base as loaded, the activations' prepared base is not modelled here: said beside them,
# since they are carried to the batch pages (Spanish review, round 79: the caveat was in the details only).
QLORA_AS_LOADED = Phrase(
    N_(
        "These figures are for the 4-bit base as loaded. Most QLoRA recipes then call peft's "
        "prepare_model_for_kbit_training, which casts everything that is not quantized to fp32, in a mixture of "
        "experts the experts and the router as well. The tensors computed from those parts can then be in fp32 too, "
        "and the activations larger than shown here."
    ),
    {},
)


def compute(values: Mapping[str, object]) -> dict[str, object]:
    shape = shape_of(values)
    # The per-sample part of the step does not depend on the optimizer: any recipe computing in the precision will do.
    setting = step_setting(values, shape, adamw_recipe(values["precision"]), recipe_field=False)
    if adapts_experts(shape, setting):
        raise ExpertsNotModelled(activation_field=False, field="target_modules")
    # The parts that hold something at that moment: under full recomputation the layers keep only their inputs, and
    # an empty row would read as a fault.
    parts = {part: size for part, size in saved_breakdown(shape, setting).items() if size}
    total = sum(parts.values(), Fraction(0))
    labels = {**LABELS, "outside": RECOMPUTED_OUTSIDE} if setting.recomputation == "full" else LABELS
    # The moment with the largest per-sample part, and that part: what each more sample adds to the step's peak.
    moment = largest_per_sample(moments(shape, setting))
    # Rounded up to the hundredths the pages show and the links carry, as the VRAM page rounds its own: a plan made
    # from it never fits more samples than the unrounded figure would.
    step = Quantity(rounded_up(moment.per_sample_total / 10**9, 2), GIGABYTE, places=2)

    return {
        "activation_per_sample": at_least_shown(gigabytes(total, 2)),
        "step_per_sample": step,
        "step_moment": moment_phrase(N_("The activation memory per sample is largest %(moment)s."), moment.name),
        "breakdown_bar": [(labels[part], gigabytes(size, 2)) for part, size in parts.items()],
        "breakdown": [
            (
                labels[part],
                at_least_shown(gigabytes(size, 2), in_column=True),
                at_least_shown(Quantity(100 * size / total, PERCENT, places=1), in_column=True),
            )
            for part, size in parts.items()
        ],
        "carried_note": None
        if step.value <= ACTIVATION_PER_SAMPLE.maximum
        else Phrase(
            N_(
                "At %(size)s per sample, this run fits on no GPU. The gradient accumulation memory calculator and the "
                "batch size planner take at most %(maximum)s, so their links leave the figure blank."
            ),
            {"size": step, "maximum": Quantity(ACTIVATION_PER_SAMPLE.maximum, GIGABYTE, places=0)},
        ),
        "qlora_note": QLORA_AS_LOADED if values["method"] == "qlora" else None,
        "attention_note": attention_note(values, shape),
        "window_note": window_note(values, shape),
    }


def summarize(outputs: Mapping[str, str], results: Mapping[str, object], translations: NullTranslations) -> str:
    """The result as one sentence, for the page's live region.

    >>> summarize({"activation_per_sample": "3.24 GB", "step_per_sample": "7.45 GB"}, {}, NullTranslations())
    "Saved for the backward pass, per sample: 3.24 GB. Activation memory per sample, at the step's peak: 7.45 GB."
    """
    return translations.gettext(
        "Saved for the backward pass, per sample: %(saved)s. Activation memory per sample, at the step's peak: "
        "%(step)s."
    ) % {"saved": outputs["activation_per_sample"], "step": outputs["step_per_sample"]}


def links(values: Mapping[str, object], results: Mapping[str, object]) -> dict[str, dict[str, str]]:
    """The accumulation page and the planner get the activation memory per sample at the step's peak, which decides
    out-of-memory, as this page shows it (never 0: it is rounded up); the planner also the sequence length, for its
    tokens per step. The budget goes blank: this page does not know the GPU, and the target pages' default budget is
    another run's (the planner then asks for it). A figure past what their field takes goes blank too, as the page
    says (``carried_note``): no GPU holds such a sample."""
    carried = {
        "activation_per_sample": address_within(ACTIVATION_PER_SAMPLE, results["step_per_sample"].value),
        "memory_budget": "",
    }
    return {"accumulation": carried, "plan": carried | {"sequence_length": address_number(values["sequence_length"])}}


def facts() -> dict[str, Fact]:
    """What the page's prose quotes."""
    recipe, precision = chosen_as("autocast-bf16")
    return {
        **unit_facts(),
        "checkpointing_since": ACTIVATION_CHECKPOINTING_SINCE,
        "grouped_experts_since": GROUPED_EXPERTS_SINCE,
        "grouped_fallback": GROUPED_FALLBACK,
        "experts_until": EXPERTS_AS_LINEAR_UNTIL,
        # transformers 5.24, integrations/moe.py (_can_use_grouped_mm): torch._grouped_mm, which PyTorch added in 2.8,
        # runs there on Hopper only (compute capability 9.x), from 2.9 on Ampere or later; without it, the loop
        # (Italian review, round 64: the page read as if Hopper ran them before 2.8).
        "grouped_mm_since": "2.8",
        # How the VRAM page's fields choose autocast over a model loaded in fp32, which this page does not model: the
        # recipe's label (a message id) and the precision.
        "autocast_recipe": RECIPES[recipe].label,
        "autocast_precision": precision,
        "korthikanti": Citation("Korthikanti et al. (2022, §4–5)", "https://arxiv.org/abs/2205.05198"),
        # Megatron Core's recompute_granularity, which the --recompute-granularity flag sets: "selective" recomputes
        # the submodules of --recompute-modules, "core_attn" unless told otherwise.
        "megatron_selective": Citation(
            "--recompute-granularity selective",
            "https://github.com/NVIDIA/Megatron-LM/blob/core_v0.19.0/megatron/core/transformer/transformer_config.py#L518",
        ),
        # "Self-attention Recomputation": activations_checkpoint_granularity=selective.
        "nemo_selective": Citation(
            "NeMo",
            "https://docs.nvidia.com/nemo-framework/user-guide/24.07/nemotoolkit/features/optimizations/"
            "activation_recomputation.html",
        ),
        # ActivationCheckpoint: mode "selective", with selective_ac_option an integer (every n-th layer) or "op".
        "torchtitan_selective": Citation(
            "torchtitan", "https://github.com/pytorch/torchtitan/blob/v0.2.2/torchtitan/config/job_config.py#L651"
        ),
        "covered": COVERED,
    }


CALCULATOR = Calculator(
    name="activations",
    groups=(
        Group(N_("Model"), (MODEL,)),
        Group(N_("Method and adapter"), (METHOD, RANK, PAGE_TARGETS)),
        Group(N_("Training setup"), (SEQUENCE_LENGTH, PAGE_PRECISION, ATTENTION, RECOMPUTATION)),
        Group(N_("Model shape"), (PAGE_CONFIG, *SHAPE)),
    ),
    outputs=(
        Figure(
            "step_per_sample",
            N_("Activation memory per sample, at the step's peak"),
            N_(
                "what each additional sample adds to the step's peak, rounded up; this is the figure that decides "
                "whether a micro-batch fits"
            ),
        ),
        Figure(
            "activation_per_sample",
            N_("Saved for the backward pass, per sample"),
            # The most autograd holds (calc.formulas.step.saved_breakdown): at the end of the forward pass or as the
            # backward pass recomputes a layer, which need not be the moment of the step's peak (step_moment).
            N_(
                "the most autograd holds at once (at the end of the forward pass, or while the backward pass "
                "recomputes a layer); this need not be at the step's peak"
            ),
        ),
        Text("step_moment", N_("When the peak comes")),
        Bar("breakdown_bar", N_("Where the saved tensors go")),
        Table(
            "breakdown",
            N_("Saved for the backward pass per sample, by part, at the moment it is largest"),
            (N_("Part"), Column(N_("Per sample"), GIGABYTE), Column(N_("Share"), PERCENT)),
        ),
        Text("qlora_note", N_("QLoRA's base")),
        Text("attention_note", N_("Attention kernel")),
        Text("window_note", N_("Sliding window")),
        Text("carried_note", N_("Other calculators")),
    ),
    compute=compute,
    summarize=summarize,
    settle=settle,
    links=links,
    examples={
        "llama": {},
        "llama_none": {"recomputation": "none"},
        "llama_full": {"method": "full"},
        "llama_full_none": {"method": "full", "recomputation": "none"},
    },
    facts=facts,
)
