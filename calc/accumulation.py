"""Gradient accumulation: the effective batch size and the activation memory it costs.

With micro-batch size *b*, accumulation steps *a*, data-parallel GPUs *g*
and activation memory per sample *A* (in GB):

- effective batch size ``E = b · a · g``;
- peak activation memory per GPU ``M = b · A``.

With an activation memory budget per GPU, its chart shows the trade-off:
as the steps grow, ``E`` rises while ``M`` stays flat, and the memory the
same batch would need per GPU without accumulation, one micro-batch of
``b · a`` samples, climbs through the budget.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from gettext import NullTranslations

from calc import deepspeed
from calc.batch_inputs import ACCUMULATION_STEPS, ACTIVATION_PER_SAMPLE, GPUS, MEMORY_BUDGET, MICRO_BATCH, TARGET_BATCH
from calc.calculator import Calculator, Group
from calc.formatting import GIGABYTE
from calc.formulas.batch import effective_batch_size, peak_activation_memory
from calc.i18n import N_
from calc.inputs import address_within
from calc.outputs import (
    Chart,
    Citation,
    Fact,
    Figure,
    Phrase,
    Plot,
    Quantity,
    Series,
    Text,
    exact_gigabytes,
    unit_facts,
)
from calc.snippets import SNIPPETS, snippets
from calc.snippets import facts as snippet_facts


def compute(values: Mapping[str, Decimal | None]) -> dict[str, object]:
    b, a, g = values["micro_batch"], values["accumulation_steps"], values["gpus"]
    per_sample, budget = values["activation_per_sample"], values["memory_budget"]
    return {
        "effective_batch": Quantity(effective_batch_size(b, a, g)),
        "activation_memory": exact_gigabytes(peak_activation_memory(b, per_sample), per_sample),
        "tradeoff_note": tradeoff_note(b, a, per_sample, budget),
        "tradeoff": tradeoff(b, a, g, per_sample, budget),
        **snippets(int(b), int(a), int(g)),
    }


def tradeoff(micro_batch: Decimal, steps: Decimal, gpus: Decimal, per_sample: Decimal, budget: Decimal | None) -> Plot:
    """The chart's lines, from 1 to 4 times the current steps.

    Its rows: 1, the current steps and their multiples up to 4, and the most
    steps whose whole batch would still fit the budget in one pass.

    >>> plot = tradeoff(Decimal(4), Decimal(8), Decimal(1), Decimal("0.5"), Decimal(12))
    >>> plot.x
    (1, 6, 8, 16, 24, 32)
    >>> [q.value for q in plot.values[1][1]]
    [Decimal('2.0'), Decimal('12.0'), Decimal('16.0'), Decimal('32.0'), Decimal('48.0'), Decimal('64.0')]
    """
    a = int(steps)
    ticks = tuple(sorted({1, a, 2 * a, 3 * a, 4 * a}))
    rows = set(ticks)
    if budget is not None:
        fitting = int(budget // peak_activation_memory(micro_batch, per_sample))
        if 1 <= fitting < 4 * a:
            rows.add(fitting)
    x = tuple(sorted(rows))
    return Plot(
        x=x,
        ticks=ticks,
        values=(
            (tuple(Quantity(effective_batch_size(micro_batch, Decimal(s), gpus)) for s in x),),
            (
                tuple(exact_gigabytes(peak_activation_memory(micro_batch, per_sample), per_sample) for _ in x),
                # Without accumulation the same batch is one micro-batch of b · a samples.
                tuple(exact_gigabytes(peak_activation_memory(micro_batch * s, per_sample), per_sample) for s in x),
                None if budget is None else exact_gigabytes(budget, budget),
            ),
        ),
        mark=a,
    )


def tradeoff_note(micro_batch: Decimal, steps: Decimal, per_sample: Decimal, budget: Decimal | None) -> Phrase:
    """What the chart shows for these settings, in one sentence.

    >>> tradeoff_note(Decimal(4), Decimal(8), Decimal("0.5"), Decimal(12)).message.startswith("Without accumulation")
    True
    """
    held = exact_gigabytes(peak_activation_memory(micro_batch, per_sample), per_sample)
    whole = exact_gigabytes(peak_activation_memory(micro_batch * steps, per_sample), per_sample)
    quantities = {"batch": Quantity(micro_batch * steps), "without": whole, "with": held}
    if budget is not None:
        quantities["budget"] = exact_gigabytes(budget, budget)
    over = budget is not None and held.value > budget
    if over and per_sample > budget:
        # Whatever the micro-batch: no smaller one fits (Italian review, round 74: "lower the micro-batch size" where
        # one sample alone passed the budget).
        quantities["with"] = exact_gigabytes(peak_activation_memory(Decimal(1), per_sample), per_sample)
        message = N_(
            "A single sample already needs %(with)s, more than the budget of %(budget)s: lower the activation "
            "memory per sample (with recomputation or shorter sequences, for example), or make more room for it, as "
            "the per-GPU training memory calculator's ways out do for your run."
        )
    elif over:
        message = N_(
            "A single micro-batch already needs %(with)s, more than the budget of %(budget)s: lower the micro-batch "
            "size, or the activation memory per sample (with recomputation or shorter sequences, for example)."
        )
    elif steps == 1 and budget is None:
        # Nothing to compare: the batch is one micro-batch.
        message = N_(
            "With one accumulation step, nothing accumulates: each GPU takes its share of the batch in one "
            "micro-batch, with %(with)s of activation memory per GPU."
        )
    elif steps == 1:
        message = N_(
            "With one accumulation step, nothing accumulates: each GPU takes its share of the batch in one "
            "micro-batch, with %(with)s of activation memory per GPU, within the budget of %(budget)s."
        )
    elif budget is None:
        message = N_(
            "Without accumulation, the same batch would need a micro-batch size of %(batch)s and %(without)s of "
            "activation memory per GPU at once; accumulation keeps it at %(with)s."
        )
    elif whole.value > budget:
        message = N_(
            "Without accumulation, the same batch would need a micro-batch size of %(batch)s and %(without)s of "
            "activation memory per GPU at once, more than the budget of %(budget)s. Accumulation keeps the activation "
            "memory at %(with)s."
        )
    else:
        message = N_(
            "Without accumulation, the same batch would need a micro-batch size of %(batch)s and %(without)s of "
            "activation memory per GPU at once, which also fits the budget of %(budget)s: memory does not call for "
            "accumulation here."
        )
    return Phrase(message, quantities)


def summarize(outputs: Mapping[str, str], results: Mapping[str, object], translations: NullTranslations) -> str:
    """The results as one sentence, for the page's live region.

    >>> summarize({"effective_batch": "32", "activation_memory": "2 GB"}, {}, NullTranslations())
    'Effective batch size: 32. Peak activation memory per GPU: 2 GB.'
    """
    return translations.gettext("Effective batch size: %(effective)s. Peak activation memory per GPU: %(memory)s.") % {
        "effective": outputs["effective_batch"],
        "memory": outputs["activation_memory"],
    }


def links(values: Mapping[str, Decimal | None], results: Mapping[str, object]) -> dict[str, dict[str, str]]:
    """The planner gets this page's batch and memory; the training-VRAM page its GPUs (which shard the model states
    under ZeRO), micro-batch and effective batch, so that it shows this run, not its own defaults.

    Not the activation memory: this page knows no model, and the VRAM page would add a figure estimated for one
    model to the model state of the model it shows (its default, unless the reader chose another). Without it, the
    VRAM page computes the activations of the model the reader chooses there, at this micro-batch. Each value is
    held to the receiving field's limits (an effective batch past the target's maximum goes blank)."""
    budget = values["memory_budget"]
    plan = {
        "target_batch": address_within(TARGET_BATCH, results["effective_batch"].value),
        "gpus": address_within(GPUS, values["gpus"]),
        "activation_per_sample": address_within(ACTIVATION_PER_SAMPLE, values["activation_per_sample"]),
        # Blank when this page has none, so that the planner asks for it rather than plan with its own default.
        "memory_budget": "" if budget is None else address_within(MEMORY_BUDGET, budget),
    }
    vram = {
        "gpus": address_within(GPUS, values["gpus"]),
        "micro_batch": address_within(MICRO_BATCH, values["micro_batch"]),
        "target_batch": address_within(TARGET_BATCH, results["effective_batch"].value),
    }
    return {"vram": vram, "plan": plan}


def facts() -> dict[str, Fact]:
    """What the page's prose quotes."""
    # The Transformers release whose Trainer passes the cycle's token count to the loss (PR #34191).
    return {
        **unit_facts(),
        **snippet_facts(),
        "token_count_version": "4.46",
        # TrainingArguments.average_tokens_across_devices: default=False in 4.53.0, True from 4.54.0 (#39395), read
        # in both wheels; linked where the pages give the version.
        "average_tokens_version": Citation(
            "4.54",
            "https://github.com/huggingface/transformers/blob/v4.54.0/src/transformers/training_args.py#L1558-L1565",
        ),
        # param_dtype: "the dtype for forward and backward computation".
        "fsdp_mixed_precision": Citation(
            "PyTorch: MixedPrecision", "https://pytorch.org/docs/stable/fsdp.html#torch.distributed.fsdp.MixedPrecision"
        ),
        # grad_accum_dtype: "the data type in which to do gradient accumulation"; None matches the model's.
        "deepspeed_data_types": Citation(
            "DeepSpeed: data_types", "https://www.deepspeed.ai/docs/config-json/#data-type-options"
        ),
        # get_data_types: grad_accum_dtype is the model's dtype (bf16 with bf16 on) unless the configuration sets it.
        "deepspeed_get_data_types": Citation(
            "deepspeed/runtime/engine.py, get_data_types",
            "https://github.com/deepspeedai/DeepSpeed/blob/v0.19.5/deepspeed/runtime/engine.py#L1444-L1455",
        ),
        # _do_optimizer_sanity_check: with ZeRO off, a model dtype other than grad_accum_dtype raises
        # NotImplementedError("unsupported mix of ..."); with ZeRO on, bf16 with fp32 accumulation is accepted.
        "deepspeed_sanity_check": Citation(
            "deepspeed/runtime/engine.py, _do_optimizer_sanity_check",
            "https://github.com/deepspeedai/DeepSpeed/blob/v0.19.5/deepspeed/runtime/engine.py#L1934-L1977",
        ),
        # The release whose engine refuses fp32 accumulation without ZeRO (0.17.6 still ran it: Italian review,
        # round 32, read in both sdists); the VRAM page gives the earlier defaults.
        "deepspeed_version": deepspeed.VERSION,
        "fp32_accumulation_until": deepspeed.FP32_ACCUMULATION_UNTIL,
        "deepspeed_reduction_sources": deepspeed.REDUCTION_SOURCES,
    }


CALCULATOR = Calculator(
    name="accumulation",
    groups=(
        Group(N_("Batching"), (MICRO_BATCH, ACCUMULATION_STEPS, GPUS)),
        Group(N_("Memory"), (ACTIVATION_PER_SAMPLE, MEMORY_BUDGET)),
    ),
    outputs=(
        Figure("effective_batch", N_("Effective batch size"), N_("samples per optimizer step")),
        Figure(
            "activation_memory",
            N_("Peak activation memory per GPU"),
            N_("memory that grows with the micro-batch, on each GPU"),
        ),
        Text("tradeoff_note", N_("Without accumulation")),
        Chart(
            "tradeoff",
            N_("Effective batch size and activation memory per GPU as the accumulation steps grow"),
            x=N_("Accumulation steps"),
            panels=(
                (N_("Effective batch size"), (Series(N_("Effective batch size")),)),
                (
                    N_("Activation memory per GPU"),
                    (
                        Series(N_("With accumulation"), unit=GIGABYTE),
                        Series(N_("Same batch in one pass, without accumulation"), unit=GIGABYTE),
                        Series(N_("Budget"), limit=True),
                    ),
                ),
            ),
            mark=N_("your setting"),
            # The rows jump from one step to the reader's (technical review, round 38): say which they are.
            rows=N_(
                "The table lists a single accumulation step, the number of steps you chose, its multiples up to four "
                "times that number, and, with a budget, the largest number of steps whose whole batch would still fit "
                "in that budget in a single pass, where that is fewer than four times yours."
            ),
        ),
        *SNIPPETS,
    ),
    compute=compute,
    summarize=summarize,
    links=links,
    # The page's worked example: the defaults, then the same run on 4 GPUs.
    examples={"single_gpu": {}, "four_gpus": {"gpus": Decimal(4)}},
    facts=facts,
)
