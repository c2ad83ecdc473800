"""Batch arithmetic: the effective batch, the activation memory one micro-batch holds, and the plans that reach a batch.

Gradient accumulation runs ``a`` micro-batches of ``b`` samples on each of
``g`` data-parallel GPUs before one optimizer step; only one micro-batch's
activations are alive at a time.
"""

from __future__ import annotations

from decimal import Decimal
from math import isqrt


def effective_batch_size(micro_batch: Decimal, accumulation_steps: Decimal, gpus: Decimal) -> Decimal:
    """Samples per optimizer step: E = b · a · g.

    >>> effective_batch_size(Decimal(4), Decimal(8), Decimal(1))
    Decimal('32')
    """
    return micro_batch * accumulation_steps * gpus


def peak_activation_memory(micro_batch: Decimal, activation_per_sample: Decimal) -> Decimal:
    """Activation memory held at once on each GPU, in GB: M = b · A.

    Accumulation steps do not appear: one micro-batch is alive at a time.

    >>> peak_activation_memory(Decimal(3), Decimal("0.1"))
    Decimal('0.3')
    """
    return micro_batch * activation_per_sample


def reachable(target: int, gpus: int) -> int:
    """The batch nearest ``target`` that ``gpus`` can reach: a multiple of them, at least one sample each.

    Halfway between two multiples, the larger one: a learning rate tuned for
    a batch is usually safer with a slightly larger one than a smaller one.

    >>> reachable(256, 8), reachable(250, 8), reachable(252, 8), reachable(3, 8)
    (256, 248, 256, 8)
    """
    below = target // gpus * gpus
    above = below + gpus
    if below == 0:
        return gpus
    return below if target - below < above - target else above


def steps_reaching(target: int, gpus: int, micro_batch: int) -> int:
    """The fewest accumulation steps in which ``gpus`` micro-batches of ``micro_batch`` reach the batch nearest
    ``target`` that the GPUs share evenly, the one the planner plans for (Italian review, round 79: on 48 GPUs, for a
    target of 64, the VRAM page judged 96 samples in two steps where the planner planned 48 in one):
    a = ⌈reachable(T, g) / (b·g)⌉.

    >>> steps_reaching(64, 2, 4), steps_reaching(6, 1, 4), steps_reaching(2, 1, 4), steps_reaching(64, 48, 1)
    (8, 2, 1, 1)
    """
    return -(-reachable(target, gpus) // (gpus * micro_batch))


def divisors(n: int) -> list[int]:
    """Every divisor of ``n``, smallest first.

    >>> divisors(32)
    [1, 2, 4, 8, 16, 32]
    """
    small = [d for d in range(1, isqrt(n) + 1) if n % d == 0]
    return sorted({*small, *(n // d for d in small)})


def plans(share: int, budget: Decimal, per_sample: Decimal) -> list[tuple[int, int]]:
    """Every (micro-batch, steps) pair that gives ``share`` samples per GPU within ``budget``, largest first.

    >>> plans(32, Decimal(16), Decimal(2))
    [(8, 4), (4, 8), (2, 16), (1, 32)]
    """
    return [(b, share // b) for b in reversed(divisors(share)) if b * per_sample <= budget]
