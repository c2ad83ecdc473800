"""The peak memory of one whole training step on one GPU: forward, loss, backward and the optimizer's step.

Weights, gradients and optimizer state (:mod:`calc.formulas.model_states`)
plus ``b`` times the bytes autograd saves per sample
(:mod:`calc.formulas.activations`) is not the peak: other tensors are alive
beside them at some moment of the step. This module counts, term by term,
what is alive at each moment that can hold the most:

1. ``forward``: the loss is being computed; the saved tensors of the whole
   forward pass, the logits and their float32 upcast, the decoder's output.
2. ``loss``: backward starts; the loss's gradients, as large as the
   float32 logits, twice, beside everything saved.
3. the last decoder layer's backward (recomputed first, with
   recomputation), at its MLP's, its second norm's and its attention
   core's backward: the head's gradients and some of the layer's exist,
   every layer's saved tensors are alive but the parts already done, and
   the gradients flowing through the part come on top.
4. the same three for the first decoder layer: every later gradient
   exists, one layer's saved tensors are left.
   Between 3 and 4 the layers' backward passes trade saved tensors for
   gradients one layer at a time, so what is alive is linear in the layer's
   index and the most is at one end: 3 and 4 bound every layer's.
5. ``embeddings``: backward ends; every gradient.
6. ``optimizer``: the optimizer's step; every gradient and the
   optimizer's temporaries.

Each moment is a fixed part plus ``b`` times a per-sample part, both by part
(:data:`PARTS`); the peak at ``b`` is the largest moment at ``b``, and the
largest micro-batch that fits a budget is exact (:func:`limit_of`).
:func:`moments` computes them; :func:`peak_of`, :func:`limit_of` and
:func:`largest_per_sample` read them (:func:`step_peak` is the peak alone,
in one call). The names without an underscore are what pages, tools and
tests use; the rest is this module's own.

``make validate`` measures whole steps with PyTorch's profiler on a CPU
(``tools/measure_steps.py``, ``validation/steps.json``): full fine-tuning
and LoRA, the recipes ``adamw-bf16``, ``adam-fp32``, ``sgd-fp32``,
``autocast-bf16`` and ``autocast-sgd-bf16``, eager and SDPA attention, the three recomputations,
micro-batches of 1, 2 and 4, Llama, Qwen2 (tied), Qwen3, Phi-3, Gemma-2,
Gemma-3, Mixtral and Qwen3-MoE shapes, ZeRO stage 0 on one device;
``tests/test_steps.py`` holds this module to every point within 10% (all
are within 1% but one dense point, a batch of one sample with one key and
value head, 1.4% over, and some of the mixtures', within 4.5%, below, where
the experts' backward holds the peak: docs/validation.md). The optimizers
run PyTorch's ``foreach`` implementations, the default on CUDA. Not measurable there,
and modeled with the same terms: the mixed-precision recipes with an fp32
master copy (``adamw-mixed``, ``adamw-8bit``, ``sgd-momentum``: DeepSpeed's
or FSDP's, on CUDA devices), ZeRO stages above 0 (several devices) and
QLoRA's 4-bit base (bitsandbytes, CUDA).

Not modeled: the CUDA caching allocator's reserve and fragmentation above
what is allocated (``torch.cuda.max_memory_allocated`` is what this
estimates, not ``max_memory_reserved``); the CUDA context; ZeRO's
communication buckets and ZeRO-3's gathered weights of the decoder layer
being computed, and what it prefetches (its whole copy of the output layer,
and of the embeddings where their backward runs, is counted: _gathered);
QLoRA's dequantized weight of the projection being computed;
LoRA under autocast; a mixture of experts under autocast, or with an adapter
on its experts' weights (both refused); LoRA dropout (``lora_dropout`` > 0: dropout's mask per
adapted input, and ``lora_A`` keeps dropout's float32 output in place of the
cast copy, so a float32 model gets one copy per adapted module). Modeled but not measured: gradient
accumulation (``Setting.accumulating``), where the gradients of earlier
micro-batches are alive from the forward pass on, as ZeRO-3's gradient
partitions are in every step. Every value is exact (an
int or a Fraction), in bytes.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache
from types import MappingProxyType
from typing import ClassVar

from calc.formulas import activations
from calc.formulas.activations import FLOAT32_BYTES, PRECISION_BYTES
from calc.formulas.model_states import (
    RECIPES,
    STAGES,
    Computation,
    ModelStates,
    Optimizer,
    TrainingRecipe,
    per_gpu,
)
from calc.formulas.parameters import (
    base_bytes_qlora,
    base_parameters,
    expert_shapes,
    has_bias,
    linear_shapes,
    lora_parameters,
)
from calc.marker import N_
from calc.models import ModelShape

# The breakdown's parts, in the order they are shown.
PARTS = (
    "weights",
    "gradients",
    "optimizer_state",
    "weight_copies",  # autocast's 16-bit copies of the weights
    "activations",  # what autograd saved in the forward pass
    "recomputation",  # what a recomputed layer (or attention core) saves again in backward
    "loss",  # the float32 logits and their gradients
    "backward_temporaries",  # the gradients flowing through a layer's backward
    "optimizer_temporaries",
)
METHODS = ("full", "lora", "qlora")
# A decoder layer's backward, in order: its MLP's, its second norm's (post_attention_layernorm), its attention core's.
LAYER_PARTS = ("MLP", "norm", "attention")
# The moments while the layers' weights are in use: the forward pass, the loss and the layers' backward.
LAYER_MOMENTS = ("forward", "loss", *(f"{layer} layer's {part}" for layer in ("last", "first") for part in LAYER_PARTS))
MOMENTS = (*LAYER_MOMENTS, "embeddings", "optimizer")


@dataclass(frozen=True)
class Recipe:
    """A training recipe computing at one precision: what a step's peak depends on beyond the model."""

    training: TrainingRecipe
    computation: Computation

    @property
    def states(self) -> ModelStates:
        return self.training.states

    @property
    def temporaries(self) -> Fraction:
        return self.training.temporaries

    @property
    def optimizer(self) -> Optimizer:
        return self.training.optimizer

    @property
    def activations(self) -> str:
        return self.computation.activations

    @property
    def autocast(self) -> bool:
        return self.computation.autocast

    @property
    def measured(self) -> bool:
        return self.computation.measured


def _step_recipes() -> dict[str, Recipe]:
    steps: dict[str, Recipe] = {}
    for training in RECIPES.values():
        for computation in training.computes_in.values():
            recipe = Recipe(training, computation)
            if steps.setdefault(computation.step, recipe) != recipe:
                raise ValueError(f"two recipes compute as {computation.step!r}: give each step its own id")
    return steps


# The steps the training recipes compute as (calc.formulas.model_states.RECIPES), by id.
STEP_RECIPES: dict[str, Recipe] = _step_recipes()


def computes_as(recipe: str, method: str) -> tuple[object, ...]:
    """What of the step ``recipe`` this module reads under ``method``: two steps alike in it have the same peak. In
    full fine-tuning, the whole recipe; with an adapter, its optimizer's record for the adapter (model_states and
    foreach_temporaries), the layers' dtype and autocast, and, but under QLoRA's 4-bit base, the frozen weights'
    bytes (model_states, gathered_matrix)."""
    step = STEP_RECIPES[recipe]
    computes = (step.activations, step.autocast)
    if method == "full":
        training = step.training
        temporaries = (training.temporaries, training.temporaries_without_zero, training.foreach_adamw)
        return (training.states, *temporaries, training.embedding_optimizer, *computes)
    return (step.optimizer, *computes, *(() if method == "qlora" else (step.states.weights,)))


def measured(recipe: str, method: str) -> bool:
    """Whether the step ``recipe`` under ``method`` computes exactly as one that tools/measure_steps.py measured:
    under LoRA, peft's fp32 adapter makes the recipes that differ only in what they keep for trained 16-bit weights
    alike (the VRAM page's recipe table says so).

    >>> measured("adamw-mixed", "lora"), measured("adamw-mixed", "full")
    (True, False)
    """
    return any(
        STEP_RECIPES[other].measured and computes_as(other, method) == computes_as(recipe, method)
        for other in STEP_RECIPES
    )


@dataclass(frozen=True)
class Setting:
    """One training step's setting, but the model's shape and the micro-batch.

    ``method`` is ``full`` (every parameter trained), ``lora`` (an adapter
    of ``lora_rank`` on ``lora_targets`` over a frozen base in the recipe's
    weights dtype) or ``qlora`` (the same over a 4-bit NF4 base, computing
    in bf16). ``zero_stage`` and ``gpus`` shard the model states as
    :func:`calc.formulas.model_states.per_gpu` does; activations are each
    GPU's own. ``accumulating``: a micro-batch after the first of an
    accumulation cycle, whose step starts with the earlier micro-batches'
    gradients (not measured: ``tools/measure_steps.py`` takes single steps).
    """

    recipe: str
    sequence_length: int
    attention: str = "flash"
    recomputation: str = "none"
    method: str = "full"
    lora_rank: int = 8
    lora_targets: tuple[str, ...] = ()
    zero_stage: int = 0
    gpus: int = 1
    accumulating: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "lora_targets", tuple(self.lora_targets))


@dataclass(frozen=True)
class Moment:
    """What is alive at one moment of the step: ``fixed`` plus ``b`` times ``per_sample``, in bytes by part."""

    name: str
    fixed: Mapping[str, Fraction | int]
    per_sample: Mapping[str, Fraction | int]

    # Summed from the int 0: the parts are ints where their bytes are whole, and a Fraction start would make every
    # addition a Fraction one, a quarter of an edit's time on the VRAM page.
    @cached_property
    def fixed_total(self) -> Fraction | int:
        return sum(self.fixed.values())

    @cached_property
    def per_sample_total(self) -> Fraction | int:
        return sum(self.per_sample.values())

    def at(self, micro_batch: int) -> Fraction:
        return self.fixed_total + micro_batch * self.per_sample_total


@dataclass(frozen=True)
class Peak:
    """The step's peak at one micro-batch: its bytes, the moment that holds it, and that moment by part."""

    total: Fraction
    moment: str
    parts: dict[str, Fraction]


def _parts(**values: Fraction | int) -> Mapping[str, Fraction | int]:
    # Exact either way; ints, where the bytes are whole, keep the arithmetic fast enough for every keystroke. Read-only:
    # moments() caches its moments for every later edit, so a caller that wrote into one would change them all.
    return MappingProxyType({part: _whole(values.get(part, 0)) for part in PARTS})


def _whole(value: Fraction | int) -> Fraction | int:
    """A whole number of bytes as an int: Fraction arithmetic costs ten times as much."""
    # An int's denominator is 1 too; no isinstance, which on Fraction goes through the numbers ABCs.
    return value.numerator if value.denominator == 1 else value


@dataclass
class Refusal(ValueError):
    """A setting this module refuses though each part exists, training ``method``. Each kind is a subclass: its
    ``reason``, and its words on a form's method field (:class:`calc.step_inputs.Refused` shows them)."""

    method: str
    reason: ClassVar[str]

    def words(self, recipe_field: bool) -> str:
        """The message id that says so, with only the ways out the step accepts and the form offers: another recipe
        only where it has a recipe field (``recipe_field``; else the page assumes AdamW)."""
        raise NotImplementedError

    def __str__(self) -> str:
        return self.reason


@dataclass
class AdapterUnderAutocast(Refusal):
    """An fp32 recipe computing in 16 bits (autocast) under an adapter: only a form with a recipe field gets here."""

    reason = "an adapter over float32 weights under autocast is not modeled"

    def words(self, recipe_field: bool) -> str:
        if self.method == "qlora":
            # The precision fp32 is no way out: QLoRA refuses it too.
            return N_(
                "QLoRA under autocast is not modeled: choose a recipe in 16\u00a0bits. That is also the choice for "
                "the Trainer's bf16=True over a 4-bit base: peft keeps the adapter in fp32 either way."
            )
        return N_(
            "An adapter over fp32 weights under autocast is not modeled: choose a recipe in 16\u00a0bits, or the "
            "precision fp32."
        )


@dataclass
class QuantizedBaseIn16Bits(Refusal):
    """QLoRA computing in fp32, which transformers' BitsAndBytesConfig defaults to but this calculator does not model:
    it models the QLoRA paper's 16 bits, and says it is its choice (technical review, round 79). With a recipe field
    that recipe keeps fp32 weights, which compute in 16 bits only under autocast, refused with an adapter: the recipe
    must change too."""

    reason = "QLoRA is modelled computing in 16 bits: choose a recipe that does"

    def words(self, recipe_field: bool) -> str:
        if recipe_field:
            return N_(
                "This calculator models QLoRA computing in 16\u00a0bits, as in the QLoRA paper: choose a recipe in "
                "16\u00a0bits and the precision bf16 or fp16."
            )
        return N_(
            "This calculator models QLoRA computing in 16\u00a0bits, as in the QLoRA paper: choose the precision bf16 "
            "or fp16."
        )


def refusal(recipe: str, method: str) -> Refusal | None:
    """The refusal that training ``method`` with the step recipe ``recipe`` meets, if any.

    >>> refusal("autocast-bf16", "lora"), refusal("adam-fp32", "qlora"), refusal("adamw-mixed", "qlora")
    (AdapterUnderAutocast(method='lora'), QuantizedBaseIn16Bits(method='qlora'), None)
    """
    if method != "full" and STEP_RECIPES[recipe].autocast:
        return AdapterUnderAutocast(method)
    if method == "qlora" and STEP_RECIPES[recipe].activations != "bf16":
        return QuantizedBaseIn16Bits(method)
    return None


def _check(shape: ModelShape, setting: Setting) -> None:
    if setting.recipe not in STEP_RECIPES:
        raise ValueError(f"recipe must be one of {', '.join(STEP_RECIPES)}, not {setting.recipe!r}")
    if setting.method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {setting.method!r}")
    if refused := refusal(setting.recipe, setting.method):
        raise refused
    if setting.zero_stage not in STAGES:
        raise ValueError(f"ZeRO stage must be one of {STAGES}, not {setting.zero_stage!r}")
    if isinstance(setting.gpus, bool) or not isinstance(setting.gpus, int) or setting.gpus < 1:
        raise ValueError(f"need at least one GPU, not {setting.gpus!r}")
    if setting.method != "full":
        lora_parameters(shape, setting.lora_rank, setting.lora_targets)  # raises on a bad rank or target
    if adapts_experts(shape, setting):
        raise ValueError("LoRA on a mixture's experts is not modeled")
    if shape.experts and STEP_RECIPES[setting.recipe].autocast:
        # grouped_mm is no autocast op: the experts would compute in float32 (integrations/moe.py, _grouped_mm).
        raise ValueError("a mixture of experts under autocast is not modeled")
    precision = STEP_RECIPES[setting.recipe].activations
    activations.check_arguments(shape, setting.sequence_length, precision, setting.attention, setting.recomputation)


def adapts_experts(shape: ModelShape, setting: Setting) -> bool:
    """Whether the adapter targets a mixture's 3-D expert weights: peft's ParamWrapper (target_parameters) adds its
    B·A to them in the forward pass, which the step does not model (nor tools/measure_steps.py measure)."""
    return setting.method != "full" and bool(set(setting.lora_targets) & expert_shapes(shape).keys())


def _lora_terms(
    shape: ModelShape, setting: Setting, terms: activations.SavedTensors, p: int
) -> activations.SavedTensors:
    """What a frozen base with LoRA adapters saves, where full fine-tuning saves ``terms``.

    A frozen ``nn.Linear`` saves only its weight (MmBackward0 keeps ``self``
    for the weight's gradient alone: ``_saved_self`` is None when the weight
    needs none), so the projections' inputs are gone, and so are the RMSNorm's
    normalized output (kept by the product with the now frozen weight),
    lm_head's input and the token ids (nn.Embedding, frozen, records no
    backward). peft's LoRA ``Linear.forward`` (peft/tuners/lora/layer.py)
    casts the input to the adapter's float32 (``_cast_input_dtype``), a copy
    per adapted module unless the model is float32, which ``lora_A`` keeps;
    ``lora_B`` keeps ``lora_A``'s output, ``r`` floats a token
    (``lora_dropout`` = 0: nn.Identity, no mask). Counted as peft's
    ``enable_input_require_grads`` leaves it (gradient checkpointing,
    ``prepare_model_for_kbit_training``): the first layer saves as the others.
    """
    s, h, r = setting.sequence_length, shape.hidden_size, setting.lora_rank
    widths = linear_shapes(shape)
    targets = set(setting.lora_targets)
    f32 = FLOAT32_BYTES

    def adapted(modules: tuple[str, ...], width: int, own: int) -> int:
        """The adapted modules' saved inputs, ``width`` values a token, and lora_A's outputs."""
        names = [m for m in modules if m in targets]
        if not names:
            return 0
        # float32 model: the input itself, one tensor however many modules share it; else a float32 copy each.
        inputs = own if p == f32 else len(names) * f32 * s * width
        return inputs + len(names) * f32 * s * r

    # o_proj's input: SDPA keeps it anyway, as its output, unless it runs under selective recomputation's
    # checkpoint or o_proj's input is a copy of it (Phi-3: core_output); otherwise only an adapted o_proj keeps it.
    by_core = not terms.eager and setting.recomputation != "selective" and not terms.core_output
    attention_output = (terms.attention_output if by_core else 0) + adapted(
        ("o_proj",), widths["o_proj"][0], 0 if by_core else terms.attention_output
    )
    intermediate = p * s * shape.intermediate_size  # one tensor as wide as the MLP
    mlp = (
        adapted(("gate_proj", "up_proj", "gate_up_proj"), h, p * s * h)
        + 3 * intermediate
        + adapted(("down_proj",), shape.intermediate_size, intermediate)
    )
    if shape.experts:
        mlp = activations.routed_tensors(shape, s, p, trained=False)  # a frozen router and experts keep no input
    output_bytes = f32 if activations.FAMILIES[shape.model_type].norm_output_in_float32 else p
    norm_output = output_bytes * s * h
    normed_heads = s * (shape.attention_heads + shape.kv_heads) * shape.head_dim if shape.qk_norm else 0
    return dataclasses.replace(
        terms,
        norm=terms.norm - norm_output,  # an RMSNorm keeps its float32 input and the rsqrt, not its output
        qk_norms=terms.qk_norms - output_bytes * normed_heads,  # so do q_norm and k_norm
        attention_input=adapted(("q_proj", "k_proj", "v_proj", "qkv_proj"), h, terms.attention_input),
        attention_output=attention_output,
        # The activation keeps its input, the product its two factors (LlamaMLP.forward); down_proj's input only if
        # it is adapted.
        mlp=mlp,
        logits=terms.logits - p * s * h,  # lm_head, frozen, keeps no input
        input_ids=0,
    )


def _autocast_terms(shape: ModelShape, setting: Setting) -> activations.SavedTensors:
    """What a float32 model saves under ``torch.autocast(dtype=torch.bfloat16)``, per sample.

    The linear layers and the attention run in bf16 (torch's autocast op
    lists: linear, matmul, scaled_dot_product_attention); what autocast does
    not list runs in the dtype it is given, so the residual stream stays
    float32 (the embeddings are float32, and float32 + bf16 is float32), and
    the RMSNorms keep float32 tensors as in a float32 model. Each linear layer
    casts its input to bf16 itself (autocast caches only the weights' casts),
    so q, k and v keep three bf16 copies of their input, gate and up two.
    """
    bf16 = activations.saved_tensors(shape, setting.sequence_length, PRECISION_BYTES["bf16"], setting.attention)
    fp32 = activations.saved_tensors(shape, setting.sequence_length, FLOAT32_BYTES, setting.attention)
    return dataclasses.replace(
        bf16,
        norm=fp32.norm,
        attention_input=3 * bf16.attention_input,
        mlp=bf16.mlp + bf16.attention_input,  # gate_proj's and up_proj's own copies of their input
        layer_input=fp32.layer_input,  # the residual stream, float32
        layer_input_in_norm=fp32.layer_input_in_norm,
        # apply_rotary_pos_emb multiplies the queries and keys by float32 cos and sin tables, and autocast leaves
        # products to type promotion: the core's inputs are float32 queries and keys (the attention casts them to
        # bf16 itself, and keeps those casts), which selective recomputation's checkpoint keeps.
        core_inputs=bf16.core_inputs + _rotated_casts(shape, setting),
    )


def _rotated_casts(shape: ModelShape, setting: Setting) -> int:
    """The bytes per sample that the float32 queries and keys of autocast's attention add over bf16 ones."""
    bf16 = PRECISION_BYTES["bf16"]
    return (FLOAT32_BYTES - bf16) * setting.sequence_length * (shape.attention_heads + shape.kv_heads) * shape.head_dim


def _terms(shape: ModelShape, setting: Setting) -> activations.SavedTensors:
    recipe = STEP_RECIPES[setting.recipe]
    p = PRECISION_BYTES[recipe.activations]
    if recipe.autocast:
        terms = _autocast_terms(shape, setting)
    else:
        terms = activations.saved_tensors(shape, setting.sequence_length, p, setting.attention)
    return terms if setting.method == "full" else _lora_terms(shape, setting, terms, p)


# Eager attention masks a model makes per forward pass, one per kind of layer (calc.models.ActivationHabits).
_MASKS = {name: habits.eager_masks for name, habits in activations.FAMILIES.items()}


@dataclass(frozen=True)
class _Groups:
    """Parameter counts, grouped by when backward makes their gradients."""

    head: int  # lm_head and the final norm: backward's first gradients
    layer: int  # one decoder layer's
    embeddings: int  # the token embeddings', backward's last

    def total(self, layers: int) -> int:
        return self.head + layers * self.layer + self.embeddings


def _trainable(shape: ModelShape, setting: Setting) -> _Groups:
    if setting.method != "full":
        # peft trains the adapters only, the same in every layer (calc.formulas.parameters.lora_parameters).
        return _Groups(0, lora_parameters(shape, setting.lora_rank, setting.lora_targets) // shape.layers, 0)
    embeddings = shape.vocab_size * shape.hidden_size  # nn.Embedding(vocab, hidden)
    lm_head = 0 if shape.tie_word_embeddings else embeddings  # nn.Linear(hidden, vocab)
    head = lm_head + shape.hidden_size  # and the final norm's weight
    layer = (base_parameters(shape) - embeddings - head) // shape.layers
    if shape.tie_word_embeddings:
        # The shared matrix's gradient is made by lm_head's backward, the first; the embeddings' is added to it.
        return _Groups(head + embeddings, layer, 0)
    return _Groups(head, layer, embeddings)


def model_states(shape: ModelShape, setting: Setting) -> tuple[ModelStates, ModelStates, Fraction]:
    """Per GPU: the model states (a frozen base's weights included); the bytes per trainable parameter; the
    optimizer step's temporaries. Any architecture: only the parameters are counted, no activation."""
    recipe, stage, gpus = STEP_RECIPES[setting.recipe], setting.zero_stage, setting.gpus
    trainable = _trainable(shape, setting).total(shape.layers)
    if setting.method == "full":
        per_parameter, temporaries = recipe.training.states_at(stage), recipe.training.step_temporaries(stage)
        frozen = Fraction(0)
    else:
        per_parameter, temporaries = recipe.optimizer.adapter, recipe.optimizer.adapter_temporaries
        base = base_parameters(shape)
        if setting.method == "qlora":
            # The projections in NF4 with double quantization, the rest (embeddings, norms, lm_head) in bf16.
            frozen = Fraction(base_bytes_qlora(shape))
        else:
            frozen = base * recipe.states.weights  # kept as the recipe keeps the weights it trains
    states = per_gpu(per_parameter, trainable, stage, gpus)
    if setting.method == "full" and recipe.training.embedding_optimizer is not None:
        # The token embeddings' own optimizer state, in place of the recipe's (TrainingRecipe.embedding_optimizer),
        # sharded as the optimizer state is (ZeRO §5.1).
        extra = (recipe.training.embedding_optimizer - per_parameter.optimizer) * shape.vocab_size * shape.hidden_size
        states = dataclasses.replace(states, optimizer=states.optimizer + extra / (gpus if stage >= 1 else 1))
    # ZeRO-3 shards every weight, frozen or not (Rajbhandari et al. 2019, §5.3).
    states = dataclasses.replace(states, weights=states.weights + frozen / (gpus if stage >= 3 else 1))
    stepped = stepped_elements(trainable, stage, gpus, _largest_trained(shape, setting))
    return states, per_parameter, temporaries * stepped


def stepped_elements(trainable: int | Fraction, stage: int, gpus: int, largest: int) -> Fraction:
    """The trained elements whose optimizer step one GPU holds temporaries for at once: the step's temporaries are the
    optimizer's, sharded with its state (Rajbhandari et al. 2019, §5.1), and under ZeRO-3 those of one sub-group at a
    time, at most ``SUB_GROUP_SIZE`` plus the share of the ``largest`` parameter (its elements).

    >>> stepped_elements(7_500_000_000, 0, 64, 0), stepped_elements(7_500_000_000, 1, 64, 0)
    (Fraction(7500000000, 1), Fraction(117187500, 1))
    >>> stepped_elements(70_000_000_000, 3, 8, 1_048_576_000)
    Fraction(1131072000, 1)
    """
    stepped = Fraction(trainable) / (gpus if stage >= 1 else 1)
    if stage >= 3:
        stepped = min(stepped, Fraction(SUB_GROUP_SIZE + math.ceil(Fraction(largest) / gpus)))
    return stepped


# DeepSpeed's ZeRO-3 steps the optimizer one sub-group at a time and frees its fp32 gradient before the next: a
# sub-group gathers this GPU's partitions of parameters until they reach sub_group_size elements, so it holds fewer
# than that plus the largest partition (deepspeed/runtime/zero/stage3.py at v0.19.5: _create_fp16_sub_groups, step,
# _release_sub_group; config.py: sub_group_size, 1e9 by default). An upper bound: the last parameter may fall short.
SUB_GROUP_SIZE = 1_000_000_000


def _largest_trained(shape: ModelShape, setting: Setting) -> int:
    """The elements of the largest trained parameter: the embeddings, a projection or a layer's experts in full
    fine-tuning; an adapter's larger matrix (A, rank × in, or B, out × rank) with LoRA."""
    projections = linear_shapes(shape)
    if setting.method != "full":
        adapted = (max(projections[name]) for name in setting.lora_targets if name in projections)
        return setting.lora_rank * max(adapted, default=0)
    experts = [count * rows * columns for count, rows, columns in expert_shapes(shape).values()]
    return max(
        shape.vocab_size * shape.hidden_size, *(rows * columns for rows, columns in projections.values()), *experts
    )


def foreach_temporaries(setting: Setting) -> bool:
    """Whether the optimizer step's temporaries (:func:`model_states`) are PyTorch AdamW's foreach list, which the
    fused AdamW, the Hugging Face Trainer's default (``optim="adamw_torch_fused"`` with PyTorch 2.8 or later,
    transformers' TrainingArguments.default_optim), does not allocate."""
    recipe = STEP_RECIPES[setting.recipe]
    return recipe.training.foreach_adamw if setting.method == "full" else recipe.optimizer.foreach_adamw


# Remembered: most of a page's edits (the micro-batch, the GPU, the target batch) leave the model and the setting as
# they were, and the moments are most of an edit's work. Their parts are read-only (_parts).
@lru_cache(maxsize=32)
def moments(shape: ModelShape, setting: Setting) -> tuple[Moment, ...]:
    """Every moment that can hold the step's peak (:data:`MOMENTS`), each as a fixed part plus a per-sample part."""
    _check(shape, setting)
    recipe, layers = STEP_RECIPES[setting.recipe], shape.layers
    s, h = setting.sequence_length, shape.hidden_size
    p = PRECISION_BYTES[recipe.activations]
    terms = _terms(shape, setting)
    recomputation = setting.recomputation

    # Saved per sample at the end of the forward pass (calc.formulas.activations).
    forward = sum(activations.forward_parts(shape, terms, recomputation).values())
    # The last layer's backward at each of its parts; the first layer's, with the other layers' tensors released.
    last, kept = _layer_backward(shape, setting, terms, p)

    loss_forward, loss_backward = _loss_tensors(shape, setting)
    # The decoder's output (last_hidden_state) is alive too, held by the model's output while the loss is computed
    # (LlamaForCausalLM.forward): the very tensor lm_head keeps in full fine-tuning, but not when lm_head is frozen
    # (LoRA), nor under autocast, where it is float32 and lm_head keeps a bf16 cast.
    if recipe.autocast or setting.method != "full":
        loss_forward += _residual_bytes(recipe, p) * s * h

    # The gradient of the embeddings' output, in the residual stream's dtype.
    residual = _residual_bytes(recipe, p) * s * h
    # Eager attention takes transformers' 4D mask (masking_utils.py, eager_mask: batch × 1 × s × s, in the
    # embeddings' dtype), one per kind of layer; a recomputed layer's (or core's) checkpoint keeps it as an input
    # until that layer's backward. Without recomputation it dies as the decoder returns, before the loss.
    mask = 0
    if setting.attention == "eager" and recomputation != "none":
        mask = _MASKS[shape.model_type] * _residual_bytes(recipe, p) * s * s

    states, per_parameter, optimizer_temporaries = model_states(shape, setting)
    groups = _trainable(shape, setting)
    sharded = setting.gpus if setting.zero_stage >= 2 else 1  # ZeRO-2 and 3 keep a shard of each gradient (§5.2)

    def gradients(count: int) -> Fraction:
        """The gradients of ``count`` parameters, as this GPU keeps them."""
        return per_parameter.gradients * count / sharded

    def alive(count: int) -> Fraction:
        """The gradients alive once backward has made those of ``count`` parameters; accumulating, every gradient
        exists from the start, since backward adds into .grad (torch AccumulateGrad); under ZeRO-3 too, whose
        gradient partitions DeepSpeed allocates once, as it sets up the optimizer, and keeps (runtime/zero/stage3.py
        at v0.19.5, _setup_for_real_optimizer: grad_partitions_flat_buffer)."""
        return states.gradients if setting.accumulating or setting.zero_stage == 3 else gradients(count)

    last = [(name, own, {**part, "activations": part["activations"] + mask}) for name, own, part in last]
    first = [
        (name, own, {**part, "activations": part["activations"] - (layers - 1) * kept}) for name, own, part in last
    ]
    forward += mask

    copies = _weight_copies(shape, setting)
    fixed = {"weights": states.weights, "optimizer_state": states.optimizer}
    gathered = _gathered(shape, setting, states)
    # Tied, the shared matrix's two gradients, lm_head's and the one embedding_dense_backward writes (aten::zeros),
    # meet before AccumulateGrad and are added out of place (an aten::add, as profiled for validation/steps.json):
    # two more gradients of the matrix beside every other gradient.
    matrix = shape.vocab_size * shape.hidden_size
    tied = 2 * gradients(matrix) if shape.tie_word_embeddings and setting.method == "full" else 0
    return (
        Moment(
            "forward",
            _parts(**gathered["head"], gradients=alive(0), weight_copies=copies["forward"]),
            _parts(activations=forward, loss=loss_forward),
        ),
        Moment(
            "loss",
            _parts(**gathered["head"], gradients=alive(0), weight_copies=copies["loss"]),
            _parts(activations=forward, loss=loss_backward),
        ),
        *(
            Moment(
                f"{layer} layer's {name}",
                _parts(**fixed, gradients=alive(before + own), weight_copies=copies[f"{layer} layer's {name}"]),
                _parts(**part),
            )
            for layer, before, parts in (
                ("last", groups.head, last),
                ("first", groups.head + (layers - 1) * groups.layer, first),
            )
            for name, own, part in parts
        ),
        Moment(
            "embeddings",
            _parts(**gathered["embeddings"], gradients=states.gradients + tied),
            _parts(backward_temporaries=residual),  # the gradient of the embeddings' output
        ),
        Moment(
            "optimizer",
            _parts(**fixed, gradients=states.gradients, optimizer_temporaries=optimizer_temporaries),
            _parts(),
        ),
    )


def _loss_tensors(shape: ModelShape, setting: Setting) -> tuple[int, int]:
    """Per sample, the logits alive as the loss is computed, and the loss's gradients as backward starts."""
    p = PRECISION_BYTES[STEP_RECIPES[setting.recipe].activations]
    over_vocabulary = setting.sequence_length * shape.vocab_size
    # The loss (transformers/loss/loss_utils.py, ForCausalLMLoss): logits.float() makes a float32 copy of the
    # logits unless they are float32, while cross_entropy's log_softmax writes its float32 output (kept: counted in
    # the activations); the logits themselves are alive until the loss is computed.
    logits = FLOAT32_BYTES * over_vocabulary + (p * over_vocabulary if p != FLOAT32_BYTES else 0)
    # Backward starts: nll_loss_backward writes a float32 gradient as large as the log-probabilities, and
    # _log_softmax_backward_data another for the logits, while the log-probabilities are still kept (torch
    # derivatives.yaml: nll_loss_forward, _log_softmax).
    return logits, 2 * FLOAT32_BYTES * over_vocabulary


def over_vocabulary(shape: ModelShape, setting: Setting) -> dict[str, int]:
    """What each moment holds per sample over the whole vocabulary: the logits, the log-probabilities and the
    loss's gradients, which a loss computed in chunks (Liger Kernel's fused linear cross entropy) never holds whole."""
    logits, gradients_of_loss = _loss_tensors(shape, setting)
    log_probabilities = _terms(shape, setting).logits
    return {"forward": logits + log_probabilities, "loss": gradients_of_loss + log_probabilities}


def _gathered(shape: ModelShape, setting: Setting, states: ModelStates) -> dict[str, dict[str, Fraction]]:
    """The fixed weights and optimizer state at the moments that use the output layer (``head``: as the loss is
    computed and as backward starts) and the token embeddings (``embeddings``: their backward), with ZeRO-3's whole
    copy of that matrix beside this GPU's shard.

    ZeRO-3 gathers a module's partitioned parameters before its forward and its backward and frees them after
    (DeepSpeed v0.19.5, runtime/zero/parameter_offload.py: pre_sub_module_forward_function and
    pre_sub_module_backward_function fetch_sub_module; post_sub_module_* release_sub_module), but keeps those it will
    use again within stage3_max_reuse_distance parameters (partitioned_param_coordinator.py, __params_to_release;
    1e9 by default): lm_head, used again by the first backward, stays whole from its forward through the loss. Its
    backward hook makes the embeddings' whole too where backward reaches them (full fine-tuning). What the layers
    gather, and what prefetching brings ahead, stay out (the pages say so): a lower bound.
    """
    base = {"weights": states.weights, "optimizer_state": states.optimizer}
    matrix = gathered_matrix(shape, setting)
    if not matrix:
        return {"head": base, "embeddings": base}
    # The whole matrix beside this GPU's shard of it, which stays allocated: the gather writes into a buffer of its own
    # (partition_parameters.py, _allgather_params_coalesced: param_buffer; param.ds_tensor kept). Italian review,
    # round 28: the shard had been taken as part of the gathered copy.
    head = {**base, "weights": base["weights"] + matrix}
    return {"head": head, "embeddings": head if holds_gathered_matrix("embeddings", setting) else base}


def holds_gathered_matrix(moment: str, setting: Setting) -> bool:
    """Whether the moment named ``moment`` holds the output layer's whole matrix where ZeRO-3 gathers it
    (:func:`_gathered`): as the loss is computed and as backward starts, and, in full fine-tuning, as it ends.

    >>> full, lora = Setting("adamw-bf16", 8), Setting("adamw-bf16", 8, method="lora")
    >>> [holds_gathered_matrix(moment, full) for moment in ("loss", "last layer's MLP", "embeddings")]
    [True, False, True]
    >>> holds_gathered_matrix("embeddings", lora)
    False
    """
    return moment in ("forward", "loss") or (moment == "embeddings" and setting.method == "full")


def gathered_matrix(shape: ModelShape, setting: Setting) -> Fraction:
    """The bytes of the output layer's whole matrix as ZeRO-3 gathers it (:func:`_gathered`): none where nothing
    shards it, below ZeRO-3 or on one GPU."""
    if setting.zero_stage < 3 or setting.gpus == 1:
        return Fraction(0)
    if setting.method == "qlora":
        element = Fraction(PRECISION_BYTES["bf16"])  # 4-bit loading leaves the embeddings and lm_head in 16 bits
    else:
        element = STEP_RECIPES[setting.recipe].states.weights  # trained or frozen, as the recipe keeps its weights
    return element * shape.vocab_size * shape.hidden_size


def _residual_bytes(recipe: Recipe, p: int) -> int:
    """Bytes per element of the residual stream (the embeddings' output and each layer's, and their gradients): the
    layers' precision, but float32 under autocast, whose float32 embeddings and additions stay out of its casts."""
    return FLOAT32_BYTES if recipe.autocast else p


def _layer_backward(
    shape: ModelShape, setting: Setting, terms: activations.SavedTensors, p: int
) -> tuple[list[tuple[str, int, dict[str, Fraction]]], int]:
    """The last layer's backward at each of :data:`LAYER_PARTS`: the part's name, the layer's trainable parameters
    whose gradients exist by then, and per sample the saved tensors still alive, those recomputed and the gradients
    flowing through (``backward_temporaries``); and what each layer keeps until its backward, per sample.

    Backward runs a layer's parts last first, and each part's saved tensors are released once its backward has run
    (torch/csrc/autograd/engine.cpp releases a node's saved variables after it runs, retain_graph being False).
    """
    s, h, heads, layers = setting.sequence_length, shape.hidden_size, shape.attention_heads, shape.layers
    recomputation = setting.recomputation
    # The gradient of the residual stream, in its dtype, alive from one layer to the next.
    residual = _residual_bytes(STEP_RECIPES[setting.recipe], p) * s * h
    kept = terms.attention_input + terms.core + terms.attention_output + terms.mlp + shape.norms_per_layer * terms.norm
    kept += terms.qk_norms  # released after the core's backward, with the projections' inputs
    if recomputation == "selective":
        kept += terms.core_inputs - terms.core
    saved = layers * kept + terms.input_ids  # every layer's, as the forward pass left them
    recomputed = Fraction(0)
    if recomputation == "full":
        # The checkpoints keep each layer's input; the last layer, recomputed, keeps all its tensors again (its first
        # norm's float32 input is the checkpoint itself in a float32 model).
        saved = layers * terms.layer_input + terms.input_ids
        recomputed = Fraction(kept - terms.layer_input_in_norm)
    # What the attention core's backward has released by then: the MLP, the norms after the attention, o_proj's
    # input (SDPA keeps it: it is its output) and, eager, the probabilities' cast that the product with the values kept.
    eager = terms.eager
    rotated = _rotated_casts(shape, setting) // 2 if STEP_RECIPES[setting.recipe].autocast else 0  # bf16 casts of q, k
    cast = p * heads * s * s if eager and p != FLOAT32_BYTES else 0
    # o_proj's input is released with o_proj's backward where it is not the core's output (eager; Phi-3's SDPA).
    separate_output = terms.attention_output if eager or terms.core_output else 0
    after_core = terms.mlp + (shape.norms_per_layer - 1) * terms.norm + separate_output + cast
    # The gated MLP's backward (LlamaMLP.forward): the gradient of down_proj's input, then those of the activation's
    # output and of up_proj's, then of gate_proj's; down_proj's input is released after its backward, the product's
    # factors after theirs: two intermediate-wide gradients beyond the saved tensors at most.
    mlp = 2 * p * s * shape.intermediate_size
    routing = 0
    if shape.experts:
        routing, mlp = _routed_backward(shape, setting, p)
    # RMSNorm's backward, in float32 (LlamaRMSNorm.forward upcasts): the gradient of the normalized states, of the
    # upcast input through the product and through pow, and the reductions' broadcast: five float32 s×h tensors.
    norm = 5 * FLOAT32_BYTES * s * h
    if eager:
        # The gradient of the probabilities, float32 (the cast's backward, or the matmul's in a float32 model), and
        # softmax's backward's float32 output (torch: _softmax_backward_data).
        core = 2 * FLOAT32_BYTES * heads * s * s
    else:
        # SDPA's backward writes the gradients of the queries and of the keys and values, kv_heads wide.
        core = p * s * (heads + 2 * shape.kv_heads) * shape.head_dim
    if recomputation == "selective":
        # The core is recomputed after the MLP's backward and o_proj's: their saved tensors are gone by then.
        released = terms.mlp + (shape.norms_per_layer - 1) * terms.norm + terms.attention_output
        mlp_part = {"activations": saved, "recomputation": 0, "backward_temporaries": mlp + residual}
        norm_part = {"activations": saved - terms.mlp, "recomputation": 0, "backward_temporaries": norm + residual}
        core_part = {
            "activations": saved - released,
            # Recomputed under autocast, SDPA casts the float32 queries and keys to bf16 again, and keeps the casts.
            "recomputation": terms.recomputed_core - cast + (rotated if not eager else 0),
            "backward_temporaries": core + residual,
        }
        parts = (mlp_part, norm_part, core_part)
        return _routing_first(shape, setting, parts, routing + residual), kept
    split = "recomputation" if recomputation == "full" else "activations"
    whole = {"activations": saved, "recomputation": recomputed}

    def less(released: Fraction | int, temporaries: int) -> dict[str, Fraction]:
        return {**whole, split: whole[split] - released, "backward_temporaries": temporaries + residual}

    parts = (less(0, mlp), less(terms.mlp, norm), less(after_core, core))
    return _routing_first(shape, setting, parts, routing + residual), (
        terms.layer_input if recomputation == "full" else kept
    )


def _routing_first(
    shape: ModelShape, setting: Setting, parts: tuple[dict[str, Fraction], ...], routing: int
) -> list[tuple[str, int, dict[str, Fraction]]]:
    """Each of :data:`LAYER_PARTS` with the gradients it has made; a mixture of experts' MLP backward starts with a
    moment of its own, before any of its gradients: its routing's (:func:`_routed_backward`)."""
    named = list(zip(LAYER_PARTS, _own_gradients(shape, setting), parts, strict=True))
    if shape.experts:
        named.insert(0, (LAYER_PARTS[0], 0, {**parts[0], "backward_temporaries": routing}))
    return named


def _routed_backward(shape: ModelShape, setting: Setting, p: int) -> tuple[int, int]:
    """The gradients flowing through a mixture of experts' backward beyond its saved tensors, per sample, at its two
    largest: undoing the routing, before any gradient of the block's weights; and in the experts' gated MLPs.

    integrations/moe.py, grouped_mm_experts_forward, run backward (profiled: tools/measure_steps.py's grid). The
    routed copies' weighted outputs are float32 when the routing weights are (Mixtral): the gradient of the sum over
    each token's copies is expanded to s·k rows, reordered by inv_perm (a new tensor), and the product with the
    weights writes two more, one per factor, and casts the experts' to the model's dtype: three s·k×hidden tensors
    and the cast, while every saved tensor is alive. Then the experts' gated MLPs, as a dense one's on s·k rows
    (LlamaMLP's backward, below), with the experts' outputs already released: down's input gradient, then the
    gradients of the product's two factors; a frozen down (LoRA) kept no input to release.
    """
    routed = setting.sequence_length * shape.experts_per_token
    h, width = shape.hidden_size, shape.expert_intermediate_size
    weighted = FLOAT32_BYTES if activations.FAMILIES[shape.model_type].routing_weights_in_float32 else p
    routing = 3 * weighted * routed * h + (p * routed * h if weighted != p else 0)
    experts = (2 if setting.method == "full" else 3) * p * routed * width - p * routed * h
    return routing, experts


def _own_gradients(shape: ModelShape, setting: Setting) -> tuple[int, int, int]:
    """A layer's trainable parameters whose gradients exist at its MLP's, its second norm's and its attention core's
    backward: down_proj's (made first, while the MLP's other gradients flow); the MLP's and the later norms'; and
    o_proj's too."""
    if setting.method == "full":
        count = {
            name: d_in * d_out + (d_out if has_bias(shape, name) else 0)
            for name, (d_in, d_out) in linear_shapes(shape).items()
        }
        norm = shape.hidden_size
    else:
        targets = set(setting.lora_targets)
        r = setting.lora_rank
        count = {name: r * (d_in + d_out) * (name in targets) for name, (d_in, d_out) in linear_shapes(shape).items()}
        norm = 0
    if shape.experts:
        # The experts' 3-D weights, down's first, and the router's nn.Parameter(experts, hidden); LoRA adapts none.
        experts = {name: e * d_in * d_out for name, (e, d_in, d_out) in expert_shapes(shape).items()}
        trained = setting.method == "full"
        down = experts["experts.down_proj"] if trained else 0
        rest = experts["experts.gate_up_proj"] + shape.experts * shape.hidden_size if trained else 0
    else:
        down = count["down_proj"]
        rest = sum(count[name] for name in _MLP if name in count and name != "down_proj")
    mlp = down + rest + (shape.norms_per_layer - 1) * norm
    return down, mlp, mlp + count["o_proj"]


_MLP = ("gate_proj", "up_proj", "gate_up_proj", "down_proj")  # the MLP's projections, Phi-3's fused one included


def _weight_copies(shape: ModelShape, setting: Setting) -> dict[str, Fraction]:
    """Autocast's bf16 copies of the weights alive in the forward pass, the loss, and the last and the first layer's
    backward at each of :data:`LAYER_PARTS` (none without autocast).

    torch.autocast casts each float32 weight that requires gradients once, and
    keeps the copy in its cache until the autocast region ends
    (aten/src/ATen/autocast_mode.cpp, cached_cast); the matmul saves it to
    compute its input's gradient, so each copy lives on until its layer's
    backward. Under gradient checkpointing the layers save nothing in forward:
    their copies die with the cache, as the forward pass and the loss end,
    and the recomputation casts the layer's weights again. In a layer's
    backward a copy is released with its matmul's saved tensors: down_proj's
    by the MLP's moment, the MLP's by the norm's, o_proj's too by the core's.
    """
    if not STEP_RECIPES[setting.recipe].autocast:
        return dict.fromkeys(LAYER_MOMENTS, Fraction(0))
    bf16 = PRECISION_BYTES["bf16"]
    weights = {name: bf16 * d_in * d_out for name, (d_in, d_out) in linear_shapes(shape).items()}
    layer = sum(weights.values())  # one layer's projections
    mlp = sum(weights[name] for name in _MLP if name in weights)
    released = dict(zip(LAYER_PARTS, (weights["down_proj"], mlp, mlp + weights["o_proj"]), strict=True))
    lm_head = bf16 * shape.vocab_size * shape.hidden_size  # lm_head's weight (the embeddings' when tied)
    everything = shape.layers * layer + lm_head
    full = setting.recomputation == "full"
    # Before the last layer's backward every layer's copies are alive, or only the recomputed one's.
    later = 0 if full else (shape.layers - 1) * layer
    return {
        "forward": Fraction(everything),
        "loss": Fraction(lm_head if full else everything),
        **{f"last layer's {part}": Fraction(later + layer - released[part]) for part in LAYER_PARTS},
        **{f"first layer's {part}": Fraction(layer - released[part]) for part in LAYER_PARTS},
    }


def step_peak(shape: ModelShape, setting: Setting, micro_batch: int) -> Peak:
    """The peak of one training step of ``micro_batch`` samples, in bytes, on one GPU.

    >>> from calc.models import PRESETS
    >>> shape = PRESETS["meta-llama/Llama-3.1-8B"]
    >>> peak = step_peak(shape, Setting("adamw-bf16", 4096, recomputation="full"), 1)
    >>> peak.moment, round(float(peak.total / 2**30), 2)  # GiB: 2 + 2 + 4 bytes a parameter, and the square roots
    ('optimizer', 74.79)
    >>> peak = step_peak(shape, Setting("adamw-bf16", 4096, recomputation="none"), 2)
    >>> peak.moment, round(float(peak.total / 2**30), 2)
    ('loss', 105.9)

    The peak alone; a page that needs more of the step (its largest micro-batch, its per-sample part) computes
    :func:`moments` once and asks :func:`peak_of`, :func:`limit_of` and :func:`largest_per_sample`.
    """
    return peak_of(moments(shape, setting), micro_batch)


def peak_of(candidates: tuple[Moment, ...], micro_batch: int) -> Peak:
    """:func:`step_peak` of moments already computed."""
    _check_micro_batch(micro_batch)
    top = max(candidates, key=lambda moment: moment.at(micro_batch))  # the first of equals: the earliest
    parts = {part: top.fixed[part] + micro_batch * top.per_sample[part] for part in PARTS}
    return Peak(top.at(micro_batch), top.name, parts)


def _bound(moment: Moment, budget: Fraction) -> Fraction | float:
    """The micro-batch at which ``moment`` reaches ``budget``: it fits while ``b`` is at most this."""
    if not moment.per_sample_total:
        return float("-inf") if moment.fixed_total > budget else float("inf")
    return (budget - moment.fixed_total) / moment.per_sample_total


def largest_per_sample(candidates: tuple[Moment, ...]) -> Moment:
    """The moment with the largest per-sample part, the earliest of equals: its ``per_sample_total`` is what one
    more sample adds to the step's peak at large micro-batches.

    Not the bytes autograd saves per sample (calc.formulas.activations): the loss's gradients, a recomputed layer's
    tensors and a layer's backward working set are counted too.

    >>> from calc.models import PRESETS
    >>> setting = Setting("adamw-bf16", 4096, recomputation="full")
    >>> largest_per_sample(moments(PRESETS["meta-llama/Llama-3.1-8B"], setting)).name
    'loss'
    """
    return max(candidates, key=lambda moment: moment.per_sample_total)


def saved_breakdown(shape: ModelShape, setting: Setting) -> dict[str, Fraction]:
    """The most autograd holds per sample, by part (:data:`calc.formulas.activations.PARTS`), as the setting's
    recipe and method save: :func:`calc.formulas.activations.activation_breakdown` for full fine-tuning in the
    model's dtype; under LoRA the frozen projections keep no input (:func:`_lora_terms`).

    The saved tensors alone: not the step's per-sample part (:func:`largest_per_sample`), which adds the loss's
    gradients, a recomputed layer's working set and the gradients flowing through backward.
    """
    _check(shape, setting)
    terms = _terms(shape, setting)
    forward = activations.forward_parts(shape, terms, setting.recomputation)
    backward = activations.recomputation_parts(shape, terms, setting.recomputation)
    return forward if sum(forward.values()) >= sum(backward.values()) else backward


def limit_of(candidates: tuple[Moment, ...], budget: int | Fraction) -> tuple[Moment, int]:
    """The moment that limits the micro-batch within ``budget`` bytes, the first to reach it as ``b`` grows, and
    the largest micro-batch whose step's peak is within ``budget`` (0 when not even one sample fits).

    Each moment is linear in the micro-batch, so it fits while ``fixed + b·per_sample ≤ budget``: the answer is
    the smallest of those bounds, exact. That moment's fixed part and per-sample part are what a plan needs.

    >>> from calc.models import PRESETS
    >>> setting = Setting("adamw-bf16", 4096, recomputation="full")
    >>> moment, fits = limit_of(moments(PRESETS["meta-llama/Llama-3.1-8B"], setting), 80 * 2**30)  # 80 GiB
    >>> moment.name, fits
    ('loss', 5)
    """
    budget = Fraction(budget)
    bound, moment = min(((_bound(candidate, budget), candidate) for candidate in candidates), key=lambda pair: pair[0])
    return moment, 0 if bound < 0 else math.floor(bound)


def _check_micro_batch(micro_batch: int) -> None:
    if isinstance(micro_batch, bool) or not isinstance(micro_batch, int) or micro_batch < 1:
        raise ValueError(f"the micro-batch must be a whole number of at least 1, not {micro_batch!r}")
