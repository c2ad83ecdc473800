"""The LoRA page: a base model, an adapter and a training run in; the adapter's size and the run's memory out.

The counts and byte sizes, with their sources, are :mod:`calc.formulas.parameters`; the run's peak on one GPU is
:mod:`calc.formulas.step`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
from gettext import NullTranslations

from calc import step_inputs
from calc.batch_inputs import MICRO_BATCH, TARGET_BATCH
from calc.calculator import Calculator, Group
from calc.formatting import GIGABYTE, MEGABYTE, PERCENT
from calc.formulas.activations import FAMILIES
from calc.formulas.parameters import (
    ADAPTER_TRAINING_BYTES_PER_PARAMETER,
    BF16_ADAPTER_TRAINING_BYTES_PER_PARAMETER,
    NF4_BYTES_PER_WEIGHT,
    active_parameters,
    adapter_bytes,
    adapter_training_bytes,
    base_bytes_16bit,
    base_bytes_fp32,
    base_bytes_qlora,
    base_bytes_qlora_prepared,
    base_parameters,
    lora_parameters,
    qlora_preparation,
)
from calc.formulas.step import Peak, adapts_experts, step_peak
from calc.i18n import N_
from calc.model_inputs import CONFIG, MODEL, SHAPE_FIELDS, shape_inputs, shape_of
from calc.models import ARCHITECTURES, ModelShape
from calc.outputs import Citation, Column, Fact, Figure, Names, Phrase, Quantity, Table, Text, gigabytes, unit_facts
from calc.presets import CUSTOM
from calc.step_inputs import (
    ATTENTION,
    PRECISION,
    RANK,
    RECOMPUTATION,
    SEQUENCE_LENGTH,
    STEP_TARGETS,
    TARGETS,
    adamw_recipe,
    checked_targets,
    step_setting,
    with_targets,
)
from calc.step_outputs import (
    EXPERT_QUANTIZATION,
    PREPARE_SOURCE,
    QLORA_CONFIG,
    attention_note,
    experts_in_16_bits,
    moment_phrase,
    part_rows,
    window_note,
)
from calc.transformers_releases import EXPERTS_AS_LINEAR_UNTIL, EXPERTS_AS_PARAMETERS_SINCE

SHAPE, settle_shape = shape_inputs(*SHAPE_FIELDS)
# This page trains an adapter: LoRA over the base in the run's precision, or QLoRA over a 4-bit base.
METHOD = replace(
    step_inputs.METHOD,
    description=N_(
        "LoRA trains an adapter over a base model kept in the run's precision; QLoRA, over a base quantized to NF4."
    ),
    options=tuple(option for option in step_inputs.METHOD.options if option.value != "full"),
    default="lora",
)
# The page's precision is the one the model is loaded in: the run's total (adamw_recipe) counts no autocast.
PAGE_PRECISION = replace(
    PRECISION,
    description=N_(
        "The dtype the model is loaded in and computes in; its activations are in the same dtype. Under autocast (the "
        "Trainer's bf16=True), each adapter keeps a bf16 copy of its input, not the fp32 one counted here, so the "
        "total should not understate the run's peak, and overstates it where the peak holds the adapters' inputs, as "
        "without recomputation. This case was not measured."
    ),
)
# The VRAM page's names for the same run (issue 15's contract), each written as its own field writes it.
RUN = (METHOD, RANK, TARGETS, PAGE_PRECISION, SEQUENCE_LENGTH, MICRO_BATCH, ATTENTION, RECOMPUTATION)


NOT_MODELLED = Phrase(
    N_("The activations of this architecture are not modeled, so neither is the run's total; the counts above hold."),
    {},
)
EXPERTS_NOT_MODELLED = Phrase(
    N_("An adapter on the experts' weights is not modeled, so neither is the run's total; the counts above hold."),
    {},
)
# A dense model's active parameters are all of them, the figure just above (technical review, round 78): said in
# words rather than repeated.
ALL_ACTIVE = Phrase(N_("All of them: this model has no experts"), {})


def run(values: Mapping[str, object], shape: ModelShape) -> Peak | Phrase:
    """The peak of one training step of the run the form describes for the model ``shape``, on one GPU; or why the
    step does not model it: the architecture's activations, or an adapter on a mixture's experts."""
    setting = step_setting(values, shape, adamw_recipe(values["precision"]), recipe_field=False)  # raises on its field
    if shape.model_type not in FAMILIES:
        return NOT_MODELLED
    if adapts_experts(shape, setting):
        return EXPERTS_NOT_MODELLED
    return step_peak(shape, setting, int(values["micro_batch"]))


# The shape in step with the model, and the target modules with the model's own names: as on the VRAM page, choosing a
# mixture brings the projections the step models, so that the run's total, and the VRAM page's link, hold; the
# experts stay for the reader to choose.
settle = with_targets(settle_shape, STEP_TARGETS)


QLORA_BASE = N_(
    "The total counts the base as it is loaded. After peft's prepare_model_for_kbit_training, the base's weights "
    "take %(extra)s more, and the activations can grow too."
)


def compute(values: Mapping[str, object]) -> dict[str, object]:
    # A preset's own shape: it knows what the form does not (Gemma-2's head_dim, tied embeddings, biases).
    shape = shape_of(values)
    checked_targets(values, shape)
    trainable = lora_parameters(shape, int(values["rank"]), values["target_modules"])
    base = base_parameters(shape)

    def megabytes(size: int) -> Quantity:
        return Quantity(Fraction(size, 10**6), MEGABYTE, places=2)

    peak = run(values, shape)
    modelled = isinstance(peak, Peak)
    return {
        "run_memory": gigabytes(peak.total, 2) if modelled else None,
        "peak_moment": moment_phrase(N_("The peak comes %(moment)s."), peak.moment) if modelled else peak,
        "run_breakdown": part_rows(peak.parts) if modelled else [],
        # The sizes table's QLoRA rows keep a mixture's experts in 16 bits: said why, whatever the method.
        "qlora_experts": experts_in_16_bits(shape),
        "qlora_base": Phrase(QLORA_BASE, {"extra": gigabytes(qlora_preparation(shape), 2)})
        if modelled and values["method"] == "qlora"
        else None,
        "attention_note": attention_note(values, shape) if modelled else None,
        "window_note": window_note(values, shape) if modelled else None,
        "trainable_parameters": Quantity(trainable),
        "share": Quantity(Fraction(100 * trainable, base), PERCENT, places=3),
        "base_parameters": Quantity(base),
        "active_parameters": Quantity(active_parameters(shape)) if shape.experts else ALL_ACTIVE,
        # A file of megabytes beside memories of gigabytes: two tables, each column in one unit. The weights alone:
        # the safetensors file adds its header, a few kilobytes of JSON naming each tensor.
        "adapter_files": [
            (N_("Weights in 16\u00a0bits"), megabytes(adapter_bytes(trainable, 16))),
            (N_("Weights in 32\u00a0bits (peft's default)"), megabytes(adapter_bytes(trainable, 32))),
        ],
        "sizes": [
            (
                N_("Training the adapter: weights, gradients, and optimizer state"),
                gigabytes(adapter_training_bytes(trainable), 2),
            ),
            (N_("Base model weights, 16-bit"), gigabytes(base_bytes_16bit(shape), 2)),
            # The base a run at fp32 loads, beside the 16-bit one (technical review, round 79: the run's 32.29 GB of
            # weights had no row).
            *(
                [(N_("Base model weights, fp32 (this run's precision)"), gigabytes(base_bytes_fp32(shape), 2))]
                if values["precision"] == "fp32"
                else []
            ),
            (
                N_("Base model weights under QLoRA (the layers' linear modules in NF4, the rest in 16\u00a0bits)"),
                gigabytes(base_bytes_qlora(shape), 2),
            ),
            (
                N_(
                    "Base model weights under QLoRA after prepare_model_for_kbit_training (the layers' linear "
                    "modules in NF4, the rest in fp32)"
                ),
                gigabytes(base_bytes_qlora_prepared(shape), 2),
            ),
        ],
    }


def summarize(outputs: Mapping[str, str], results: Mapping[str, object], translations: NullTranslations) -> str:
    """The results in two sentences, for the page's live region.

    >>> texts = {"trainable_parameters": "41,943,040", "share": "0.522%", "run_memory": "24.01 GB",
    ...          "peak_moment": "The peak comes at the optimizer step."}
    >>> summarize(texts, {"run_memory": gigabytes(24_010_000_000, 2)}, NullTranslations())
    'Trainable parameters: 41,943,040, 0.522% of the base model. The run takes 24.01 GB on one GPU at its peak.'
    """
    _ = translations.gettext
    counts = _("Trainable parameters: %(trainable)s, %(share)s of the base model.") % {
        "trainable": outputs["trainable_parameters"],
        "share": outputs["share"],
    }
    if results["run_memory"] is None:
        total = outputs["peak_moment"]  # the sentence that says why
    else:
        total = _("The run takes %(memory)s on one GPU at its peak.") % {"memory": outputs["run_memory"]}
    return f"{counts} {total}"


def links(values: Mapping[str, object], results: Mapping[str, object]) -> dict[str, dict[str, str]]:
    """The VRAM page gets the run: the model (its repo id, or its typed shape), the adapter and the step's settings,
    one GPU, and the recipe the run's total is computed with; not a target batch, which is the reader's to set there
    (the prose says what its default's accumulation adds). A run whose total this page does not model gets no link:
    the VRAM page, which models the same step, would open on an error (an adapter on a mixture's experts)."""
    if results["run_memory"] is None:
        return {}
    model = {"model": values["model"]}
    if values["model"] == CUSTOM:
        model |= {
            name: field.to_address(values[name]) for name, field in SHAPE_FIELDS.items() if values[name] is not None
        }
    return {
        "vram": {
            **model,
            **{field.name: field.to_address(values[field.name]) for field in RUN},
            "optimizer": adamw_recipe(values["precision"]),
            # The total is one GPU's, without ZeRO.
            "zero_stage": "0",
            "gpus": "1",
        }
    }


GROUPS = (
    Group(N_("Base model"), (MODEL,)),
    Group(N_("Adapter"), (METHOD, RANK, TARGETS)),
    Group(N_("Training setup"), (PAGE_PRECISION, SEQUENCE_LENGTH, MICRO_BATCH, ATTENTION, RECOMPUTATION)),
    Group(N_("Model shape"), (CONFIG, *SHAPE)),
)

RUN_MEMORY = Figure(
    "run_memory",
    N_("Peak of a training step on one GPU"),
    N_("the base model, the adapter's training state, the activations, and the loss; no overhead"),
    missing=N_("Not modeled"),
)


def facts() -> dict[str, Fact]:
    """What the page's prose quotes, the parts of the run it opens on among them."""
    # The defaults' run, LoRA and QLoRA.
    defaults = CALCULATOR.defaults()
    shape = shape_of(defaults)
    runs = {method: run({**defaults, "method": method}, shape) for method in ("lora", "qlora")}
    # The same run as a micro-batch after the first of an accumulation cycle, as the VRAM page counts it when its target
    # batch needs accumulation: the gradients of the earlier micro-batches are alive from the forward pass on.
    setting = step_setting(defaults, shape, adamw_recipe(defaults["precision"]), recipe_field=False)
    accumulating = step_peak(shape, replace(setting, accumulating=True), int(defaults["micro_batch"]))
    return {
        **unit_facts(),
        "lora_source": Citation("Hu et al., 2021, §4.1", "https://arxiv.org/abs/2106.09685"),
        "experts_since": EXPERTS_AS_PARAMETERS_SINCE,
        "experts_until": EXPERTS_AS_LINEAR_UNTIL,
        # Mixtral's expert layers up to transformers 4.57 (MixtralBlockSparseTop2MLP), names no language changes.
        "mixtral_expert_linears": Names(("w1", "w2", "w3")),
        "qlora_source": Citation("Dettmers et al., 2023, §3", "https://arxiv.org/abs/2305.14314"),
        "qlora_config": QLORA_CONFIG,
        # transformers' names, which no language changes.
        "architectures": Names(tuple(ARCHITECTURES), style="or"),
        "training_bytes": Quantity(ADAPTER_TRAINING_BYTES_PER_PARAMETER),
        "bf16_adapter_bytes": Quantity(BF16_ADAPTER_TRAINING_BYTES_PER_PARAMETER),
        "nf4_bytes": Quantity(NF4_BYTES_PER_WEIGHT, places=3),
        **{
            f"run_{part}": gigabytes(runs["lora"].parts[part], 2)
            for part in ("weights", "optimizer_state", "activations", "loss")
        },
        # The fp32 log-probabilities the loss saves: each of its two gradients is as large (calc.formulas.step,
        # loss_backward), and the prose says so.
        "run_log_probabilities": gigabytes(runs["lora"].parts["loss"] / 2, 2),
        # What the loss holds in all (the log-probabilities and its two gradients) against the layers' saved tensors.
        "run_loss_all": gigabytes(runs["lora"].parts["loss"] * 3 / 2, 2),
        "run_layers": gigabytes(runs["lora"].parts["activations"] - runs["lora"].parts["loss"] / 2, 2),
        "qlora_weights": gigabytes(runs["qlora"].parts["weights"], 2),
        # What peft's preparation adds to the run's QLoRA base, which the total leaves out.
        "qlora_preparation": gigabytes(qlora_preparation(shape), 2),
        "prepare_source": PREPARE_SOURCE,
        # transformers' BitsAndBytesConfig: bnb_4bit_quant_type="fp4", bnb_4bit_use_double_quant=False.
        "bnb_defaults": Citation(
            "BitsAndBytesConfig",
            "https://github.com/huggingface/transformers/blob/v5.24.0/src/transformers/utils/quantization_config.py",
        ),
        # transformers replaces only nn.Linear (and GPT-2's Conv1D) with bitsandbytes' 4-bit layers (Italian review,
        # round 33: the code says so more directly than the issue).
        "bnb_replacement": Citation(
            "transformers: replace_with_bnb_linear",
            "https://github.com/huggingface/transformers/blob/v5.24.0/src/transformers/integrations/bitsandbytes.py"
            "#L162-L189",
        ),
        # transformers v5's fused experts are no nn.Linear: 4-bit loading leaves them as they are.
        "fused_experts_issue": Citation(
            "bitsandbytes#1849", "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1849"
        ),
        "expert_quantization": EXPERT_QUANTIZATION,
        "accumulated_gradients": gigabytes(accumulating.parts["gradients"], 2),
        "vram_target": Quantity(TARGET_BATCH.default),
        # The architectures whose activations, and so whose runs, calc.formulas.step models, where not every one the
        # counts cover (technical review, round 88: the same nine named twice): transformers' names.
        "step_architectures": Names(tuple(FAMILIES)) if set(FAMILIES) != set(ARCHITECTURES) else None,
    }


CALCULATOR = Calculator(
    name="lora",
    groups=GROUPS,
    outputs=(
        RUN_MEMORY,
        Figure("trainable_parameters", N_("Trainable parameters"), N_("in the adapter's A and B matrices")),
        Figure(
            "share", N_("Share of the base model"), N_("trainable parameters as a share of the base model's parameters")
        ),
        Figure("base_parameters", N_("Base model parameters"), N_("frozen while the adapter is trained")),
        Figure(
            "active_parameters",
            N_("Base model parameters active per token"),
            N_("in a mixture of experts, only the experts a token is routed to count"),
        ),
        Text("peak_moment", N_("When the peak comes")),
        Text("qlora_experts", N_("QLoRA's experts")),
        Text("qlora_base", N_("QLoRA's base")),
        Text("attention_note", N_("Attention kernel")),
        Text("window_note", N_("Sliding window")),
        Table("run_breakdown", N_("The run's peak on one GPU, by part"), (N_("Part"), Column(N_("Memory"), GIGABYTE))),
        Table(
            "adapter_files",
            N_("The adapter's file on disk (without its small header)"),
            (N_("Item"), Column(N_("Size"), MEGABYTE)),
        ),
        Table("sizes", N_("Sizes in memory"), (N_("Item"), Column(N_("Size"), GIGABYTE))),
    ),
    compute=compute,
    summarize=summarize,
    settle=settle,
    links=links,
    # The worked example: peft's own printout for Llama-2-7b with r = 8 on q and v.
    examples={
        "llama2": {
            "model": "meta-llama/Llama-2-7b-hf",
            "rank": Decimal(8),
            "target_modules": frozenset({"q_proj", "v_proj"}),
        },
        # The run the page opens on, and the same with QLoRA.
        "run": {},
        "qlora": {"method": "qlora"},
    },
    facts=facts,
)
