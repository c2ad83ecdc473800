"""The planner: from a target effective batch and a memory budget to the micro-batch and steps that reach it.

With ``g`` data-parallel GPUs, a target batch ``T`` is reachable only as a
multiple of ``g``: each GPU takes ``T / g`` samples per optimizer step, as
``b`` samples per micro-batch over ``a = (T / g) / b`` accumulation steps.
The plan takes the largest ``b`` that divides ``T / g`` and whose peak
activation memory ``b · A`` fits the budget (``M = b · A``, as on the
accumulation page): the fewest, largest micro-batches, which use a GPU best.

A plan that accumulates (``a > 1``) also holds the gradients that earlier
micro-batches leave behind (torch's AccumulateGrad adds into ``.grad``). The
budget says whether it leaves room for them (``budget_for``): the VRAM page's
does when its own target needs accumulation; otherwise it holds for a step
without accumulation only, and the planner lists no plan that accumulates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction
from gettext import NullTranslations

from babel import Locale

from calc import batch_inputs, gpus
from calc.calculator import Calculator, Group
from calc.formatting import GIGABYTE, PERCENT, format_number, format_quantity
from calc.formulas.batch import plans, reachable
from calc.i18n import N_
from calc.inputs import Choice, Input, Option, address_within
from calc.outputs import (
    Citation,
    Column,
    Fact,
    Figure,
    Names,
    Phrase,
    Quantity,
    Table,
    Text,
    exact_gigabytes,
    typed,
    unit_facts,
)
from calc.problems import InputProblem
from calc.snippets import FRAMEWORKS, SNIPPETS, snippets
from calc.snippets import facts as snippet_facts

# The defaults are the site's default run (calc.batch_inputs); a plan needs a budget.
MEMORY_BUDGET = replace(batch_inputs.MEMORY_BUDGET, description=batch_inputs.BUDGET_MEANING, optional=False)
# Whether the budget leaves room for the gradients of earlier micro-batches, which only a plan that accumulates holds:
# the VRAM page hands over "single" when its target batch needs no accumulation at its largest micro-batch.
BUDGET_FOR = Choice(
    "budget_for",
    N_("Which plans this budget covers"),
    N_(
        "A plan that accumulates also holds the accumulated gradients, the sum over its earlier micro-batches. The "
        "per-GPU training memory calculator counts them in its budget when its target batch needs accumulation. It "
        "sets this field to match when it hands the budget over."
    ),
    options=(
        Option("any", N_("Any plan (the budget includes the accumulated gradients)")),
        Option("single", N_("Only a plan without accumulation")),
    ),
    default="any",
)
# The other pages' field, with their limit, but optional: only the tokens per step need it.
SEQUENCE_LENGTH = replace(
    batch_inputs.SEQUENCE_LENGTH,
    description=N_(
        "Tokens per sample, used only to show the tokens per optimizer step; leave it blank if you do not need that "
        "figure."
    ),
    optional=True,
)


@dataclass
class SampleExceedsBudget(InputProblem):
    """One sample's activations, ``needed``, are more than the budget."""

    needed: Decimal

    @classmethod
    def examples(cls) -> tuple[InputProblem, ...]:
        return (cls(Decimal("7.45")),)

    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        # The planner has no model to check a way out on: it names the page that does, rather than offer unchecked
        # ways (technical review, round 47).
        return translations.gettext(
            "One sample alone needs %(needed)s, more than this budget. The planner knows neither the model nor the "
            "GPU, so it cannot tell what would make room. The per-GPU training memory calculator checks the ways out "
            "for your run: a larger GPU, ZeRO over more GPUs, an adapter, recomputation, fused attention, or shorter "
            "sequences. Where it could help, it also suggests computing the loss in chunks, which it cannot confirm. "
            "On that calculator, the link “Plan this run” brings you back here with the budget and the per-sample "
            "figure it finds."
        ) % {"needed": typed(self.needed, input.unit).text(locale, breakable=False)}  # 30.00 GB, as figures read


@dataclass
class AccumulationNotBudgeted(InputProblem):
    """The budget holds for a step without accumulation only, and the whole ``share`` of each of the ``gpus`` in one
    micro-batch needs ``needed``, more than it: any plan left accumulates, which the budget does not cover."""

    share: int
    needed: Decimal
    budget: Decimal
    gpus: int
    reached: int | None = None  # the target the GPUs share evenly, where it is not the one asked for

    @classmethod
    def examples(cls) -> tuple[InputProblem, ...]:
        return (
            cls(64, Decimal("481.28"), Decimal("20.89"), 1),
            cls(8, Decimal("60.16"), Decimal("20.89"), 8),
            cls(33, Decimal("42.9"), Decimal("20"), 3, 99),
        )

    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        # The field is a choice, without the budget's unit; at least two decimals, as every figure in GB.
        def gigabytes(size: Decimal) -> str:
            return format_quantity(size, GIGABYTE, locale, breakable=False, places=max(2, -size.as_tuple().exponent))

        if self.reached is not None:
            # Where the share comes from a target the GPUs share evenly, not the one typed (Spanish review, round 40).
            refused = translations.gettext(
                "This budget holds only for a plan without accumulation, but putting all %(share)s\u00a0samples of "
                "each GPU in one micro-batch (of an effective batch of %(reached)s, the nearest to the target that the "
                "GPUs can share evenly) would need %(needed)s, more than the budget of %(budget)s."
            )
        elif self.gpus == 1:
            # One GPU's share is the whole target (Spanish review, round 79: "each GPU" of one).
            refused = translations.gettext(
                "This budget holds only for a plan without accumulation, but putting the whole target batch, "
                "%(share)s\u00a0samples, in one micro-batch would need %(needed)s, more than the budget of %(budget)s."
            )
        else:
            refused = translations.gettext(
                "This budget holds only for a plan without accumulation, but putting all %(share)s\u00a0samples of "
                "each GPU in one micro-batch would need %(needed)s, more than the budget of %(budget)s."
            )
        refused %= {
            "share": format_number(Decimal(self.share), locale),
            "reached": format_number(Decimal(self.reached or 0), locale),
            "needed": gigabytes(self.needed),
            "budget": gigabytes(self.budget),
        }
        instead = translations.gettext(
            "A plan that accumulates also holds the accumulated gradients, the sum over its earlier micro-batches. "
            "Take the budget for such a plan from the per-GPU training memory calculator, with this target batch."
        )
        return f"{refused} {instead}"


def nearby_target(target: int, gpus: int, micro_batch: int, largest: int) -> Phrase | None:
    """Where the share per GPU has no divisor near ``largest``, the most samples that fit, the target nearest the one
    asked for that a micro-batch of ``largest`` reaches on ``gpus`` (a prime target's only plan is one sample at a
    time); None where the plan's micro-batch is more than half of ``largest``.

    >>> nearby_target(97, 1, 1, 10).quantities["near"].value, nearby_target(64, 1, 2, 3)
    (100, None)
    >>> nearby_target(250, 12, 3, 6).quantities["near"].value  # 216, not 288: nearer the 250 asked for
    216
    >>> nearby_target(999_999_999, 3, 1, 80_000).quantities["near"].value  # 1,000,080,000 would be over the maximum
    999840000
    >>> nearby_target(7, 1, 1, 6).message == NEARBY_FAR  # 6 is a seventh below 7
    True
    """
    largest = int(largest)
    if 2 * micro_batch > largest:
        return None
    # The target over what one step of a micro-batch of ``largest`` on every GPU takes, to the nearest (halves up):
    # from the target asked for, not the one reached (technical review, round 28: 288 was offered for 250 on 12 GPUs,
    # where 216 is nearer).
    step = gpus * largest
    steps = max(1, (2 * target + step) // (2 * step))
    # Never a target the field would refuse: the nearest below its maximum.
    steps = min(steps, int(batch_inputs.TARGET_BATCH.maximum) // step)
    if steps == 0:
        return None
    near = gpus * largest * steps
    figures = {"micro_batch": Quantity(micro_batch), "largest": Quantity(largest), "near": Quantity(near)}
    # As far from the target as an adjusted batch that asks for a new learning rate, it asks for one too (technical
    # review, round 87: 6 offered for 7 as a throughput tip alone).
    if abs(near - target) > FAR * target:
        return Phrase(NEARBY_FAR, {**figures, "far": FAR_SHOWN})
    return Phrase(NEARBY, figures)


NEARBY = N_(
    "No micro-batch larger than %(micro_batch)s both divides each GPU's share and fits the budget, though the budget "
    "holds up to %(largest)s\u00a0samples. A target of %(near)s would allow a micro-batch of %(largest)s."
)
NEARBY_FAR = N_(
    "No micro-batch larger than %(micro_batch)s both divides each GPU's share and fits the budget, though the budget "
    "holds up to %(largest)s\u00a0samples. A target of %(near)s would allow a micro-batch of %(largest)s, but it "
    "differs by more than %(far)s from yours: if you take it, retune the learning rate."
)


def compute(values: Mapping[str, object]) -> dict[str, object]:
    target, gpus = int(values["target_batch"]), int(values["gpus"])
    budget, per_sample = values["memory_budget"], values["activation_per_sample"]
    if per_sample > budget:
        raise SampleExceedsBudget(per_sample, field="memory_budget")
    reached = reachable(target, gpus)
    share = reached // gpus
    options = plans(share, budget, per_sample)
    single = values["budget_for"] == "single"
    if single:
        # The budget does not cover the earlier micro-batches' gradients: only the plan without accumulation is one.
        options = [(b, a) for b, a in options if a == 1]
        if not options:
            evenly = reached if reached != target else None
            raise AccumulationNotBudgeted(share, share * per_sample, budget, gpus, evenly, field="budget_for")
    micro_batch, steps = options[0]
    sequence = values["sequence_length"]
    fitting = min(share, budget // per_sample)  # the most samples a micro-batch of this share can hold
    return {
        "micro_batch": Quantity(micro_batch),
        "accumulation_steps": Quantity(steps),
        "effective_batch": Quantity(reached),
        "per_gpu": Quantity(reached // gpus),
        "activation_memory": exact_gigabytes(micro_batch * per_sample, per_sample),
        "tokens_per_step": None if sequence is None else Quantity(reached * sequence),
        "adjustment": adjustment(target, gpus, reached),
        "plans": [(Quantity(b), Quantity(a), exact_gigabytes(b * per_sample, per_sample)) for b, a in options],
        "nearby_target": None if single else nearby_target(target, gpus, micro_batch, fitting),
        # For the worked example's prose: what fits, whether or not it divides the share.
        "fitting": Quantity(int(fitting)),
        **snippets(micro_batch, steps, gpus),
    }


# How the plan's batch differs from the target: the nearest the GPUs share evenly (calc.formulas.batch.reachable),
# the larger of two as near, and a note where it is far from the batch the learning rate was tuned for.
NEAREST = N_(
    "The target batch of %(target)s is not a multiple of the number of GPUs (%(gpus)s): this plan reaches "
    "%(reached)s, the nearest batch they can share evenly."
)
LARGER_OF_TWO = N_(
    "The target batch of %(target)s is not a multiple of the number of GPUs (%(gpus)s): this plan reaches "
    "%(reached)s, the larger of the two nearest batches they can share evenly (%(other)s is as near)."
)
# Fewer samples than GPUs: one sample on each is the smallest batch they share, not the nearest (technical review,
# round 84).
ONE_EACH = N_(
    "The target batch of %(target)s is smaller than the number of GPUs (%(gpus)s): this plan reaches %(reached)s, one "
    "sample on each GPU."
)
FAR_FROM_TARGET = N_(
    "%(adjustment)s That batch differs by more than %(far)s from the one your learning rate was tuned for: retune "
    "it, or use a number of GPUs that divides the target."
)
# Beyond a twentieth of the target, the change is more than a learning rate tuned for the target can be assumed to take.
FAR = Fraction(1, 20)
FAR_SHOWN = Quantity(FAR * 100, PERCENT, places=0)


def adjustment(target: int, gpus: int, reached: int) -> Phrase | None:
    """Why the plan reaches ``reached`` rather than ``target``; None where it is the target.

    >>> adjustment(256, 8, 256) is None, adjustment(250, 8, 248).message == NEAREST
    (True, True)
    >>> adjustment(252, 8, 256).quantities["other"].value, adjustment(4, 8, 8).message == FAR_FROM_TARGET
    (248, True)
    >>> adjustment(4, 8, 8).quantities["adjustment"].message == ONE_EACH
    True
    """
    if reached == target:
        return None
    figures = {"target": Quantity(target), "gpus": Quantity(gpus), "reached": Quantity(reached)}
    other = 2 * target - reached
    if target < gpus:
        said = Phrase(ONE_EACH, figures)
    elif other > 0 and other % gpus == 0:
        said = Phrase(LARGER_OF_TWO, {**figures, "other": Quantity(other)})
    else:
        said = Phrase(NEAREST, figures)
    far = abs(reached - target) > FAR * target
    return Phrase(FAR_FROM_TARGET, {"adjustment": said, "far": FAR_SHOWN}) if far else said


def summarize(outputs: Mapping[str, str], results: Mapping[str, object], translations: NullTranslations) -> str:
    """The plan as one sentence, for the page's live region.

    >>> summarize({"micro_batch": "8", "accumulation_steps": "4", "effective_batch": "256"}, {}, NullTranslations())
    'Micro-batch size: 8. Accumulation steps: 4. Effective batch size: 256.'
    """
    return translations.gettext(
        "Micro-batch size: %(micro_batch)s. Accumulation steps: %(steps)s. Effective batch size: %(effective)s."
    ) % {
        "micro_batch": outputs["micro_batch"],
        "steps": outputs["accumulation_steps"],
        "effective": outputs["effective_batch"],
    }


def links(values: Mapping[str, object], results: Mapping[str, object]) -> dict[str, dict[str, str]]:
    """The accumulation page gets the plan, to check it or change it there, each value held to its field's limits
    (a micro-batch or steps past them go blank)."""
    return {
        "accumulation": {
            "micro_batch": address_within(batch_inputs.MICRO_BATCH, results["micro_batch"].value),
            "accumulation_steps": address_within(batch_inputs.ACCUMULATION_STEPS, results["accumulation_steps"].value),
            "gpus": address_within(batch_inputs.GPUS, values["gpus"]),
            "activation_per_sample": address_within(
                batch_inputs.ACTIVATION_PER_SAMPLE, values["activation_per_sample"]
            ),
            "memory_budget": address_within(batch_inputs.MEMORY_BUDGET, values["memory_budget"]),
        }
    }


def facts() -> dict[str, Fact]:
    """What the page's prose quotes."""
    return {
        **unit_facts(),
        **snippet_facts(),
        "frameworks": Names(tuple(FRAMEWORKS.values())),
        "far_from_target": FAR_SHOWN,
        "example_gpu": gpus.GPUS_BY_ID["a100-40gb"].name,
        # data_parallel_size = world_size // (tensor × pipeline × context-parallel sizes), at Megatron Core 0.19.0.
        "megatron_data_parallel": Citation(
            "megatron/training/arguments.py",
            "https://github.com/NVIDIA/Megatron-LM/blob/core_v0.19.0/megatron/training/arguments.py#L440-L446",
        ),
    }


CALCULATOR = Calculator(
    name="plan",
    groups=(
        Group(N_("Batching"), (batch_inputs.TARGET_BATCH, batch_inputs.GPUS)),
        Group(N_("Memory"), (MEMORY_BUDGET, BUDGET_FOR, batch_inputs.ACTIVATION_PER_SAMPLE)),
        Group(N_("Tokens"), (SEQUENCE_LENGTH,)),
    ),
    outputs=(
        Figure("micro_batch", N_("Micro-batch size"), N_("in samples, per GPU and per forward and backward pass")),
        Figure("accumulation_steps", N_("Accumulation steps"), N_("micro-batches per optimizer step")),
        Figure("effective_batch", N_("Effective batch size"), N_("samples per optimizer step")),
        Figure("activation_memory", N_("Peak activation memory per GPU"), N_("within the budget")),
        Figure(
            "tokens_per_step",
            N_("Tokens per optimizer step"),
            N_("effective batch size times sequence length"),
            missing=N_("Enter a sequence length to see them"),
        ),
        Text("adjustment", N_("Adjusted target")),
        Text("nearby_target", N_("A nearby target")),
        Table(
            "plans",
            N_("Every plan within the budget that reaches the planned batch exactly"),
            (N_("Micro-batch size"), N_("Accumulation steps"), Column(N_("Peak activation memory per GPU"), GIGABYTE)),
        ),
        *SNIPPETS,
    ),
    compute=compute,
    summarize=summarize,
    links=links,
    examples={
        # The default run on an A100 40GB, as the training memory page hands it over: three samples fit. A copy, held
        # to that page's figure by tests/test_plan.py: examples are data the page's module declares, and it imports
        # no other calculator.
        "a100": {"memory_budget": Decimal("25.20")},
        "uneven": {"target_batch": Decimal(250), "gpus": Decimal(8)},
    },
    facts=facts,
)
