"""The inputs of a batch that several pages share: the micro-batch, the accumulation steps, the target batch,
data-parallel GPUs, the sequence length, activation memory per sample, a budget.

They live here, not in one calculator's module, so that a page's worker
imports only its own calculator (:func:`calc.calculators.load`). Their defaults
are the site's default run as the training memory page hands it over:
Llama-3.1-8B with LoRA at 4,096 tokens on one RTX 4090 (calc.vram;
tests/test_plan.py holds them to that page's link).
"""

from __future__ import annotations

from decimal import Decimal

from calc.formatting import GIGABYTE
from calc.i18n import N_
from calc.inputs import Amount, Count

SEQUENCE_LENGTH = Count(
    "sequence_length",
    N_("Sequence length"),
    N_("Tokens in each sample."),
    default=Decimal(4096),
    maximum=Decimal(10_000_000),
)
MICRO_BATCH = Count(
    "micro_batch",
    N_("Micro-batch size"),
    N_("Samples per GPU in each forward and backward pass."),
    default=Decimal(1),
    maximum=Decimal(1_000_000),
)
GPUS_DESCRIPTION = N_(
    "The GPUs that each process their own micro-batch (under ZeRO-3 or FSDP each holds a shard of the model rather "
    "than a whole copy). This is your number of GPUs divided by the product of the tensor-, pipeline-, and "
    "context-parallel degrees, if you use them."
)
GPUS = Count(
    "gpus",
    N_("Data-parallel GPUs"),
    GPUS_DESCRIPTION,
    default=Decimal(1),
    maximum=Decimal(1_000_000),
)
ACTIVATION_PER_SAMPLE = Amount(
    "activation_per_sample",
    N_("Activation memory per sample"),
    N_(
        "What each sample adds to the training step's peak, including the gradients of the loss and, with "
        "recomputation, the layer being recomputed. The activation memory estimator gives it as “Activation memory "
        "per sample, at the step's peak”."
    ),
    # The VRAM page's per-sample figure for its default run. A copy, which
    # tests/test_plan.py::test_the_defaults_are_the_default_run_the_training_memory_page_hands_over holds to it: a
    # default is read in the browser too, and a page's worker imports no other calculator (test_extension_points).
    default=Decimal("7.45"),
    maximum=Decimal(10_000),
    places=6,
    unit=GIGABYTE,
    see=("activations", N_("Not sure? Estimate it from the model.")),
)
# What the budget stands for, which the planner's field says too.
BUDGET_MEANING = N_(
    "Memory left on each GPU for what grows with the micro-batch, after the weights, gradients, optimizer state, "
    "overhead, and any ZeRO buffers or DistributedDataParallel buckets. The per-GPU training memory calculator gives "
    "it as “Left for the micro-batch on your GPU”."
)
MEMORY_BUDGET = Amount(
    "memory_budget",
    N_("Activation memory budget per GPU"),
    (
        BUDGET_MEANING,
        # Technical review, round 74: the single-pass figures judged against a budget that paid for accumulation.
        N_(
            "When that calculator's target batch needs accumulation, its figure also sets aside the accumulated "
            "gradients. A single pass holds none, so comparing a single pass with that budget here errs slightly on "
            "the safe side."
        ),
        N_("The chart draws the budget as a line. Leave it blank if you have none in mind."),
    ),
    # What the VRAM page's default run leaves for activations: a copy, as above.
    default=Decimal("8.01"),
    optional=True,
    maximum=Decimal(100_000),
    places=6,
    unit=GIGABYTE,
)
TARGET_BATCH = Count(
    "target_batch",
    N_("Target effective batch size"),
    N_("The batch size your learning rate was tuned for: samples per optimizer step."),
    default=Decimal(64),
    maximum=Decimal(1_000_000_000),
)
# Bounds well past any real training run (the largest clusters have about
# 10^5 GPUs), yet small enough that every result stays exact and readable.
# The default is the planner's plan for the site's default run, a target
# batch of 64 (calc.plan; tests/test_plan.py holds it to its link).
ACCUMULATION_STEPS = Count(
    "accumulation_steps",
    N_("Accumulation steps"),
    N_("Micro-batches whose gradients are added up before each optimizer step."),
    default=Decimal(64),
    maximum=Decimal(1_000_000),
)
