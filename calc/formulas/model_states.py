"""Training memory per GPU: weights, gradients and optimizer state, sharded by ZeRO; and the training recipes.

A training *recipe* is one record (:class:`TrainingRecipe`, one for each
the VRAM page offers, in :data:`RECIPES`): its label, the bytes each trained
parameter costs in weights, gradients and optimizer state, its optimizer
(:class:`Optimizer`: what it keeps for a LoRA adapter), its step's
temporaries, and how its layers compute at each precision
(:class:`Computation`), from which :mod:`calc.formulas.step` derives the
steps it models. Adding a recipe is adding its record here.

With Ψ parameters on N data-parallel GPUs, ZeRO stage ``s`` shards the
optimizer state when ``s ≥ 1``, the gradients too when ``s ≥ 2`` and the
weights too when ``s = 3`` (Rajbhandari et al. 2019, "ZeRO: Memory
Optimizations Toward Training Trillion Parameter Models", §5.1–5.3). With
mixed-precision Adam (2 + 2 + K bytes, K = 12), per GPU:

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
(:mod:`calc.calculator`). Round only to show a number.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from calc.marker import N_

STAGES = (0, 1, 2, 3)


@dataclass(frozen=True)
class ModelStates:
    """Bytes for the weights, the gradients and the optimizer state: per parameter (a recipe's), or per GPU."""

    weights: Fraction
    gradients: Fraction
    optimizer: Fraction

    @property
    def total(self) -> Fraction:
        """The three together.

        >>> RECIPES["adamw-mixed"].states.total
        Fraction(16, 1)
        """
        return self.weights + self.gradients + self.optimizer


# bitsandbytes' 8-bit AdamW state per parameter, whatever the weights' dtype: state1 and state2 in torch.uint8
# (bitsandbytes/optim/optimizer.py, Optimizer2State.init_state), and absmax1, absmax2, one float32 per block of 256
# ("blocksize = 256", same function; 2048 before bitsandbytes 0.44.0, CHANGELOG.md).
ADAM_8BIT_STATES = 2 * Fraction(1) + 2 * Fraction(4, 256)

# A LoRA adapter's parameter, whatever the recipe, keeps:
# - its weight in float32: peft makes it in the base layer's dtype, then upcasts
#   float16/bfloat16 to float32 since get_peft_model's autocast_adapter_dtype is True
#   by default (peft 0.21: peft/tuners/tuners_utils.py, _move_adapter_to_device_of_base_layer
#   and cast_adapter_dtype; peft/mapping_func.py, get_peft_model);
ADAPTER_WEIGHT_BYTES = 4
# - its gradient, which PyTorch keeps in the parameter's dtype (Tensor.grad_dtype
#   "defaults to the tensor's dtype": assigning another dtype to .grad raises);
ADAPTER_GRADIENT_BYTES = 4
# - with Adam, its two moments, exp_avg and exp_avg_sq, each torch.zeros_like(param)
#   (torch/optim/adam.py, Adam._init_group; AdamW subclasses Adam).
ADAM_MOMENT_BYTES = 4


@dataclass(frozen=True)
class Optimizer:
    """What an optimizer keeps and allocates for a LoRA adapter, whose parameters are float32 whatever the recipe:
    bytes per adapter parameter."""

    adapter: ModelStates  # the adapter's weight, gradient and optimizer state
    adapter_temporaries: Fraction  # the optimizer step's temporaries
    # Whether those temporaries are PyTorch AdamW's foreach list, which its fused implementation does not allocate.
    foreach_adamw: bool = False


def _adapter(optimizer: Fraction) -> ModelStates:
    return ModelStates(Fraction(ADAPTER_WEIGHT_BYTES), Fraction(ADAPTER_GRADIENT_BYTES), optimizer)


ADAMW = Optimizer(
    adapter=_adapter(2 * Fraction(ADAM_MOMENT_BYTES)),
    # The foreach step's exp_avg_sq_sqrt (torch/optim/adam.py, _multi_tensor_adam), as large as one moment.
    adapter_temporaries=Fraction(ADAM_MOMENT_BYTES),
    foreach_adamw=True,
)
# bitsandbytes' 8-bit states and their block constants, updated in its kernel.
ADAMW_8BIT = Optimizer(
    adapter=_adapter(ADAM_8BIT_STATES),
    adapter_temporaries=Fraction(0),
)
# momentum_buffer, a clone of the gradient on the first step (torch/optim/sgd.py, _multi_tensor_sgd:
# device_grads[i].detach().clone()), updated in place.
SGD = Optimizer(
    adapter=_adapter(Fraction(ADAPTER_GRADIENT_BYTES)),
    adapter_temporaries=Fraction(0),
)


@dataclass(frozen=True)
class Computation:
    """How a recipe's layers compute at one precision: the step that :mod:`calc.formulas.step` models."""

    step: str  # its id: Setting.recipe in calc.formulas.step, tools/measure_steps.py and validation/steps.json
    activations: str  # the dtype the layers compute in (calc.formulas.activations.PRECISION_BYTES)
    autocast: bool = False  # float32 weights, the layers run under torch.autocast(dtype=torch.bfloat16)
    measured: bool = False  # tools/measure_steps.py runs it on a CPU


def _in_16_bits(computation: Computation) -> dict[str, Computation]:
    # fp16 and bf16 both take two bytes, so an fp16 run peaks as its bf16 twin.
    return {"bf16": computation, "fp16": computation}


@dataclass(frozen=True)
class TrainingRecipe:
    """A training recipe the VRAM page offers: its label, what each trained parameter costs, its optimizer, and how
    its layers compute at each precision it supports (the page's precision field)."""

    label: str  # the page's option's message id
    states: ModelStates  # bytes per trained parameter; a frozen base keeps its weights' bytes
    optimizer: Optimizer  # what it keeps for a LoRA adapter instead
    temporaries: Fraction  # the optimizer step's temporaries in full fine-tuning, bytes per trained parameter
    computes_in: dict[str, Computation]
    # Whether those temporaries are PyTorch AdamW's foreach list (exp_avg_sq_sqrt), its default when created on CUDA;
    # with fused=True (_fused_adamw, which updates in place), the step allocates none.
    foreach_adamw: bool = False
    # Whether it keeps an fp32 master copy of the weights in the optimizer state, as DeepSpeed and FSDP train
    # (ZeRO §3.1): no plain DistributedDataParallel run, so no DDP gradient buckets (calc.vram.ddp_buckets).
    master_copy: bool = False
    # Optimizer state per parameter of the token embeddings, where the recipe keeps theirs apart from the rest (None:
    # as every other parameter's); counted in full fine-tuning, which trains them.
    embedding_optimizer: Fraction | None = None
    # The optimizer step's temporaries without ZeRO, where they differ from ``temporaries`` (those under ZeRO).
    temporaries_without_zero: Fraction | None = None
    # Bytes per parameter of DeepSpeed's own fp32 partition of the weights under ZeRO-1 and 2 where the recipe's
    # optimizer state has no master copy to be it: stage_1_and_2.py (v0.19.5) clones each GPU's share of the weights
    # to single_partition_of_fp32_groups even when they are fp32 already; stage3.py reuses the fp32 shard ("we don't
    # need another copy"). Sharded as the optimizer state (technical review, round 88).
    zero_partition_copy: Fraction = Fraction(0)

    def states_at(self, stage: int) -> ModelStates:
        """Bytes per trained parameter at ZeRO ``stage``: under ZeRO-1 and 2, DeepSpeed's fp32 partition of the
        weights in the optimizer state, where the recipe keeps no master copy.

        >>> RECIPES["adam-fp32"].states_at(0).optimizer, RECIPES["adam-fp32"].states_at(2).optimizer
        (Fraction(8, 1), Fraction(12, 1))
        >>> RECIPES["adam-fp32"].states_at(3) == RECIPES["adam-fp32"].states
        True
        """
        if stage in (1, 2) and self.zero_partition_copy:
            return ModelStates(
                self.states.weights, self.states.gradients, self.states.optimizer + self.zero_partition_copy
            )
        return self.states

    def step_temporaries(self, stage: int) -> Fraction:
        """The optimizer step's temporaries in full fine-tuning at ZeRO ``stage``, bytes per trained parameter.

        >>> RECIPES["adamw-mixed"].step_temporaries(0), RECIPES["adamw-mixed"].step_temporaries(2)
        (Fraction(8, 1), Fraction(6, 1))
        """
        return self.temporaries if stage or self.temporaries_without_zero is None else self.temporaries_without_zero


# The mixed-precision recipes keep bf16 weights for the layers and an fp32 master copy in the optimizer state
# (ZeRO §3.1), as DeepSpeed and FSDP train. Their step casts the gradients to float32 for the master update, by way of
# a flat 16-bit copy (DeepSpeed 0.19.5: zero/stage_1_and_2.py, flatten(averaged_gradients).to(fp32) into
# single_partition_of_fp32_groups[i].grad; zero/stage3.py, _prepare_fp32_grad_for_sub_group): 2 + 4 bytes per
# parameter, sharded as the optimizer state. Without ZeRO, DeepSpeed's FP16_Optimizer casts each gradient to fp32 and
# joins the copies into one flat tensor (fp16/fused_optimizer.py: _flatten_dense_tensors([p.grad.to(fp32) ...])):
# 4 + 4. Either updates with a fused kernel (FusedAdam, bitsandbytes' 8-bit kernel, a fused SGD) that allocates
# nothing more. Not measured: they need a CUDA device. FP16_Optimizer is what DeepSpeed builds for its own FusedAdam,
# the Adam or AdamW a configuration names; any other optimizer (bitsandbytes' 8-bit AdamW, SGD, a PyTorch optimizer
# passed in) gets FP16_UnfusedOptimizer, which only casts each gradient to fp32 (engine.py,
# _configure_fp16_optimizer; fp16/unfused_optimizer.py, step): 4 (Spanish review, round 32).
_MASTER_UPDATE = Fraction(2) + Fraction(4)
_MASTER_UPDATE_WITHOUT_ZERO = Fraction(4) + Fraction(4)
_CAST_WITHOUT_ZERO = Fraction(4)

# Stable ids (the page's option values) → recipes, in the order the page lists them.
RECIPES: dict[str, TrainingRecipe] = {
    # Mixed-precision Adam/AdamW: 2 + 2 + 12 = 16 (ZeRO §3.1, "K = 12").
    "adamw-mixed": TrainingRecipe(
        master_copy=True,
        label=N_("AdamW, mixed precision"),
        states=ModelStates(
            weights=Fraction(2),  # fp16/bf16 working copy (ZeRO §3.1)
            gradients=Fraction(2),  # fp16/bf16, like the weights they come from (ZeRO §3.1)
            optimizer=(
                Fraction(4)  # fp32 master copy of the weights (ZeRO §3.1)
                + 2 * Fraction(4)  # fp32 momentum and variance (ZeRO §3.1)
            ),
        ),
        optimizer=ADAMW,
        temporaries=_MASTER_UPDATE,
        temporaries_without_zero=_MASTER_UPDATE_WITHOUT_ZERO,
        computes_in=_in_16_bits(Computation("adamw-mixed", "bf16")),
    ),
    # Adam/AdamW in fp32 throughout: 4 + 4 + 8 = 16.
    "adam-fp32": TrainingRecipe(
        label=N_("Adam or AdamW, all in fp32"),
        states=ModelStates(
            weights=Fraction(4),  # fp32, and no second copy to keep
            gradients=Fraction(4),  # the dtype of the weights
            # exp_avg, exp_avg_sq: zeros_like(param), so the weights' dtype (PyTorch torch/optim/adamw.py)
            optimizer=2 * Fraction(4),
        ),
        optimizer=ADAMW,
        temporaries=Fraction(4),  # the foreach step's exp_avg_sq_sqrt, in float32 (as adamw-bf16's below)
        zero_partition_copy=Fraction(4),
        computes_in={
            "fp32": Computation("adam-fp32", "fp32", measured=True),
            # Autocast casts each weight to bf16 once per forward pass and keeps the copy in its cache while the
            # forward pass runs; the matmuls save it for backward (calc.formulas.step, weight copies).
            **_in_16_bits(Computation("autocast-bf16", "bf16", autocast=True, measured=True)),
        },
        foreach_adamw=True,
    ),
    # bf16 weights and gradients with AdamW's moments in fp32, and no master copy: 2 + 2 + 8 = 12. PyTorch's
    # AdamW makes its moments in the weights' dtype (torch/optim/adamw.py), so this takes an optimizer that
    # allocates them in fp32 itself; the weights' updates are still rounded to bf16.
    "adamw-bf16-fp32-states": TrainingRecipe(
        label=N_("AdamW, bf16 weights and gradients, moments in fp32"),
        states=ModelStates(
            weights=Fraction(2),  # bf16
            gradients=Fraction(2),  # bf16
            optimizer=2 * Fraction(4),  # exp_avg, exp_avg_sq in fp32
        ),
        optimizer=ADAMW,
        temporaries=Fraction(4),  # the square roots of the float32 second moments; not measured (see above)
        computes_in={"bf16": Computation("adamw-bf16-fp32-states", "bf16")},
    ),
    # Pure bf16 AdamW, no fp32 master copy: 2 + 2 + 4 = 8.
    "adamw-bf16": TrainingRecipe(
        label=N_("AdamW, all in bf16"),
        states=ModelStates(
            weights=Fraction(2),  # bf16
            gradients=Fraction(2),  # bf16
            optimizer=2 * Fraction(2),  # exp_avg, exp_avg_sq in the weights' bf16 (PyTorch torch/optim/adamw.py)
        ),
        optimizer=ADAMW,
        # With foreach, PyTorch's default on CUDA, _multi_tensor_adam (torch/optim/adam.py) updates the states in
        # place and allocates one list: exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs), as large as the
        # state, in its dtype.
        temporaries=Fraction(2),
        computes_in={"bf16": Computation("adamw-bf16", "bf16", measured=True)},
        foreach_adamw=True,
    ),
    # bitsandbytes 8-bit AdamW under mixed precision: 2 + 2 + (4 + 2 + 1/32) = 10 1/32. bitsandbytes updates
    # whatever weights it is given, so the fp32 master copy is the mixed-precision trainer's (ZeRO §3.1).
    # Tensors under 4096 elements (min_8bit_size) keep fp32 states, and each tensor's last block and the
    # shared 256-entry quantization maps round up a few bytes: both depend on the model's shapes, left out.
    "adamw-8bit": TrainingRecipe(
        master_copy=True,
        label=N_("8-bit AdamW (bitsandbytes), mixed precision"),
        states=ModelStates(
            weights=Fraction(2),  # fp16/bf16 working copy (ZeRO §3.1)
            gradients=Fraction(2),  # fp16/bf16 (ZeRO §3.1)
            optimizer=Fraction(4) + ADAM_8BIT_STATES,  # fp32 master copy (ZeRO §3.1) and the 8-bit states
        ),
        optimizer=ADAMW_8BIT,
        temporaries=_MASTER_UPDATE,
        temporaries_without_zero=_CAST_WITHOUT_ZERO,
        computes_in=_in_16_bits(Computation("adamw-8bit", "bf16")),
    ),
    # bitsandbytes 8-bit AdamW on a model loaded in bf16, as the Hugging Face Trainer runs optim="adamw_bnb_8bit"
    # without DeepSpeed or FSDP: 2 + 2 + (2 + 1/32), no master copy. bitsandbytes updates the bf16 weights in its
    # kernel (Optimizer2State.update_step, optimizer_update_8bit_blockwise), allocating nothing per parameter. The
    # same exceptions as above (small tensors' fp32 states, the last block) are left out. The Trainer registers every
    # nn.Embedding's weight for 32-bit states (transformers 5.23.0, trainer.py, create_optimizer:
    # GlobalOptimManager.register_module_override(module, "weight", {"optim_bits": 32})): two float32 moments, 8 bytes
    # per embedding parameter, once for tied embeddings, whose lm_head shares that weight.
    "adamw-8bit-bf16": TrainingRecipe(
        label=N_("8-bit AdamW (bitsandbytes), bf16 weights and gradients"),
        states=ModelStates(
            weights=Fraction(2),  # bf16
            gradients=Fraction(2),  # bf16, the weights' dtype
            optimizer=ADAM_8BIT_STATES,
        ),
        optimizer=ADAMW_8BIT,
        temporaries=Fraction(0),
        computes_in={"bf16": Computation("adamw-8bit-bf16", "bf16")},
        embedding_optimizer=2 * Fraction(4),
    ),
    # SGD with momentum under mixed precision: 2 + 2 + (4 + 4) = 12.
    "sgd-momentum": TrainingRecipe(
        master_copy=True,
        label=N_("SGD with momentum, mixed precision"),
        states=ModelStates(
            weights=Fraction(2),  # fp16/bf16 working copy (ZeRO §3.1)
            gradients=Fraction(2),  # fp16/bf16 (ZeRO §3.1)
            optimizer=(
                Fraction(4)  # fp32 master copy (ZeRO §3.1)
                + Fraction(4)  # fp32 momentum_buffer, one per parameter (PyTorch torch/optim/sgd.py)
            ),
        ),
        optimizer=SGD,
        temporaries=_MASTER_UPDATE,
        temporaries_without_zero=_CAST_WITHOUT_ZERO,
        computes_in=_in_16_bits(Computation("sgd-momentum", "bf16")),
    ),
    # SGD with momentum in fp32 throughout: 4 + 4 + 4 = 12.
    "sgd-fp32": TrainingRecipe(
        label=N_("SGD with momentum, all in fp32"),
        states=ModelStates(
            weights=Fraction(4),  # fp32
            gradients=Fraction(4),  # fp32
            optimizer=Fraction(4),  # momentum_buffer, cloned from the gradient (PyTorch torch/optim/sgd.py)
        ),
        optimizer=SGD,
        # _multi_tensor_sgd (torch/optim/sgd.py) updates the momentum buffers and the weights in place
        # (torch._foreach_add_(device_params, device_grads, alpha=-lr)): no temporary.
        temporaries=Fraction(0),
        zero_partition_copy=Fraction(4),
        computes_in={
            "fp32": Computation("sgd-fp32", "fp32", measured=True),
            **_in_16_bits(Computation("autocast-sgd-bf16", "bf16", autocast=True, measured=True)),
        },
    ),
}


def zero_twin(key: str) -> str:
    """The recipe DeepSpeed's ZeRO runs for ``key``: a 16-bit recipe with no master copy, which ZeRO does not run
    (technical review, round 22), as the first recipe with a master copy and the same optimizer (8-bit AdamW's for
    8-bit AdamW); any other as it is."""
    recipe = RECIPES[key]
    if recipe.master_copy or recipe.states.weights != RECIPES["adamw-mixed"].states.weights:
        return key
    return next(name for name, other in RECIPES.items() if other.master_copy and other.optimizer == recipe.optimizer)


def chosen_as(step: str) -> tuple[str, str]:
    """The recipe and the precision, the first in the page's order, that compute as ``step``: how the VRAM page's
    fields choose it.

    >>> chosen_as("autocast-bf16")
    ('adam-fp32', 'bf16')
    """
    return next(
        (key, precision)
        for key, recipe in RECIPES.items()
        for precision, computation in recipe.computes_in.items()
        if computation.step == step
    )


def per_gpu(recipe: ModelStates, parameters: int | Decimal | Fraction, stage: int, gpus: int) -> ModelStates:
    """What each of ``gpus`` data-parallel GPUs holds under ZeRO ``stage``, in bytes.

    The ZeRO paper's example (§5.1–5.3, Figure 1): 7.5B parameters, mixed-precision Adam, 64 GPUs.

    >>> adam = RECIPES["adamw-mixed"].states
    >>> [float(per_gpu(adam, 7_500_000_000, stage, 64).total / 10**9) for stage in STAGES]
    [120.0, 31.40625, 16.640625, 1.875]
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
    return ModelStates(
        weights=recipe.weights * psi / (gpus if stage >= 3 else 1),  # P_p, §5.3
        gradients=recipe.gradients * psi / (gpus if stage >= 2 else 1),  # P_g, §5.2
        optimizer=recipe.optimizer * psi / (gpus if stage >= 1 else 1),  # P_os, §5.1
    )
