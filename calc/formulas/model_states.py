"""Training memory per GPU: weights, gradients and optimizer state, sharded by ZeRO; and the training recipes.

A training *recipe* is the bytes each trained parameter costs in weights,
gradients and optimizer state; its record (:class:`TrainingRecipe`, one for
each the VRAM page offers, in :data:`RECIPES`) adds its label and the step
recipes (:data:`calc.formulas.step.STEP_RECIPES`) it computes in. Adding a
recipe is adding its record here, and a step recipe too only if its step
computes as none there does.

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


@dataclass(frozen=True)
class TrainingRecipe:
    """A training recipe the VRAM page offers: its label, what each trained parameter costs, and how its step
    computes."""

    label: str  # the page's option's message id
    states: ModelStates  # bytes per trained parameter
    # The step recipe (calc.formulas.step.STEP_RECIPES) by the precision its layers compute in. fp16 and bf16 both take
    # two bytes, so an fp16 run peaks as its bf16 twin. Float32 weights computing in 16 bits run under autocast; a
    # mixed-precision recipe computes in 16 bits, and a pure-bf16 one in bf16 only.
    computes_in: dict[str, str]


# Stable ids (the page's option values) → recipes, in the order the page lists them.
RECIPES: dict[str, TrainingRecipe] = {
    # Mixed-precision Adam/AdamW: 2 + 2 + 12 = 16 (ZeRO §3.1, "K = 12").
    "adamw-mixed": TrainingRecipe(
        label=N_("AdamW, mixed precision"),
        states=ModelStates(
            weights=Fraction(2),  # fp16/bf16 working copy (ZeRO §3.1)
            gradients=Fraction(2),  # fp16/bf16, like the weights they come from (ZeRO §3.1)
            optimizer=(
                Fraction(4)  # fp32 master copy of the weights (ZeRO §3.1)
                + 2 * Fraction(4)  # fp32 momentum and variance (ZeRO §3.1)
            ),
        ),
        computes_in={"bf16": "adamw-mixed", "fp16": "adamw-mixed"},
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
        computes_in={"fp32": "adam-fp32", "bf16": "autocast-bf16", "fp16": "autocast-bf16"},
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
        computes_in={"bf16": "adamw-bf16-fp32-states"},
    ),
    # Pure bf16 AdamW, no fp32 master copy: 2 + 2 + 4 = 8.
    "adamw-bf16": TrainingRecipe(
        label=N_("AdamW, all in bf16"),
        states=ModelStates(
            weights=Fraction(2),  # bf16
            gradients=Fraction(2),  # bf16
            optimizer=2 * Fraction(2),  # exp_avg, exp_avg_sq in the weights' bf16 (PyTorch torch/optim/adamw.py)
        ),
        computes_in={"bf16": "adamw-bf16"},
    ),
    # bitsandbytes 8-bit AdamW under mixed precision: 2 + 2 + (4 + 2 + 1/32) = 10 1/32. bitsandbytes updates
    # whatever weights it is given, so the fp32 master copy is the mixed-precision trainer's (ZeRO §3.1).
    # Tensors under 4096 elements (min_8bit_size) keep fp32 states, and each tensor's last block and the
    # shared 256-entry quantization maps round up a few bytes: both depend on the model's shapes, left out.
    "adamw-8bit": TrainingRecipe(
        label=N_("8-bit AdamW (bitsandbytes), mixed precision"),
        states=ModelStates(
            weights=Fraction(2),  # fp16/bf16 working copy (ZeRO §3.1)
            gradients=Fraction(2),  # fp16/bf16 (ZeRO §3.1)
            optimizer=Fraction(4) + ADAM_8BIT_STATES,  # fp32 master copy (ZeRO §3.1) and the 8-bit states
        ),
        computes_in={"bf16": "adamw-8bit", "fp16": "adamw-8bit"},
    ),
    # SGD with momentum under mixed precision: 2 + 2 + (4 + 4) = 12.
    "sgd-momentum": TrainingRecipe(
        label=N_("SGD with momentum, mixed precision"),
        states=ModelStates(
            weights=Fraction(2),  # fp16/bf16 working copy (ZeRO §3.1)
            gradients=Fraction(2),  # fp16/bf16 (ZeRO §3.1)
            optimizer=(
                Fraction(4)  # fp32 master copy (ZeRO §3.1)
                + Fraction(4)  # fp32 momentum_buffer, one per parameter (PyTorch torch/optim/sgd.py)
            ),
        ),
        computes_in={"bf16": "sgd-momentum", "fp16": "sgd-momentum"},
    ),
    # SGD with momentum in fp32 throughout: 4 + 4 + 4 = 12.
    "sgd-fp32": TrainingRecipe(
        label=N_("SGD with momentum, all in fp32"),
        states=ModelStates(
            weights=Fraction(4),  # fp32
            gradients=Fraction(4),  # fp32
            optimizer=Fraction(4),  # momentum_buffer, cloned from the gradient (PyTorch torch/optim/sgd.py)
        ),
        computes_in={"fp32": "sgd-fp32", "bf16": "autocast-sgd-bf16", "fp16": "autocast-sgd-bf16"},
    ),
}


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
