"""Whether a training step fits a GPU, and what to do where it does not: the verdict on a card, the spare under which a
fit is tight, the ways to make room, and the figures the batch planner is handed.

The VRAM page's (:mod:`calc.vram`); the step's bytes are :mod:`calc.formulas.step`'s.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from decimal import Decimal
from fractions import Fraction
from functools import cache

from calc.batch_inputs import GPUS
from calc.formatting import GIGABYTE, PERCENT, rounded, rounded_down, rounded_up
from calc.formulas.batch import steps_reaching
from calc.formulas.model_states import RECIPES, zero_twin
from calc.gpus import GPU, GPUS_BY_ID
from calc.i18n import N_
from calc.model_inputs import COUNT
from calc.outputs import LESS_THAN, Names, Phrase, Phrases, Quantity, percent

GB = 10**9
HUNDREDTH = Quantity(Decimal("0.01"), GIGABYTE, 2)  # the last place of the figures a verdict subtracts
# The least room a way out must leave: what a verdict shows as 0.01 GB, rounded half up. Less shows as none, a GPU
# filled exactly, which no estimate can promise (technical review, round 73: a length so offered as "a tight fit").
LEAST_ROOM = Fraction(GB, 200)


def has_room(left: bool | Fraction | None) -> bool:
    """Whether a check of a way out found room: its answer, or the room it leaves (negative where none, None where the
    page refuses the setup).

    >>> has_room(True), has_room(Fraction(0)), has_room(Fraction(-1)), has_room(None)
    (True, True, False, False)
    """
    return left if isinstance(left, bool) else left is not None and left >= 0


# How a verdict is worded: in the table of cards, and as the sentence about the reader's own; a fit is tight with less
# to spare than the estimate may fall short by (and, under ZeRO, its buffers: calc.vram).
CELL = (N_("Fits, with %(spare)s to spare"), N_("Tight fit, with %(spare)s to spare"), N_("Short by %(missing)s"))
SENTENCE = (
    N_("By this estimate, the run fits on your GPU, with %(spare)s to spare."),
    N_(
        "By this estimate, the run fits on your GPU, with %(spare)s to spare, but the fit is tight: it holds only "
        "if this estimate is %(covered)s below the step's true peak (the estimate and the true peak both without "
        "the overhead). %(measured)s"
    ),
    N_("Your GPU is %(missing)s short."),
)

# A listed card without bf16 (calc.gpus.GPU.bf16) when the precision is bf16: in the table, and about the reader's own.
# Where the recipe computes in fp16 too, that takes the same memory (calc.formulas.model_states, _in_16_bits); QLoRA's
# 4-bit layers compute in the dtype BitsAndBytesConfig names, bf16 in the configuration the pages quote
# (calc.step_outputs.QLORA_CONFIG), which must change too (technical review, round 26). Each tuple's words: where the
# recipe can compute in fp16, where it cannot, and where it can under QLoRA (the table's cell is the first's).
FP16_COMPUTE = Names(("bnb_4bit_compute_dtype=torch.float16",))
NO_BF16_CELL = (
    N_("%(verdict)s; no bf16 on this card: choose fp16"),
    N_("%(verdict)s; no bf16 on this card"),
    N_("%(verdict)s; no bf16 on this card: choose fp16"),
)
NO_BF16_SENTENCE = (
    N_("%(verdict)s This card has no bf16: choose fp16, which takes the same memory."),
    # With the total of the recipe's fp16 twin, which the card runs (Spanish review, round 80: "choose another recipe"
    # named none, beside a fit the card cannot run).
    N_(
        "%(verdict)s This card has no bf16, which this recipe needs. With “%(twin)s” in fp16, which "
        "the card runs, the total is %(total)s: choose both to see whether that run fits."
    ),
    N_(
        "%(verdict)s This card has no bf16: choose fp16, which takes the same memory, and set %(setting)s in "
        "BitsAndBytesConfig."
    ),
)


def without_bf16(
    verdict: Phrase,
    values: Mapping[str, object],
    gpu: GPU | None,
    words: tuple[str, str, str],
    twin: Callable[[], Mapping[str, object]] = dict,
) -> Phrase:
    """``verdict``, and where ``gpu`` is a listed card without bf16 and the precision is bf16, that it has none; where
    the recipe computes in bf16 only, with what ``twin`` says of its fp16 twin, where the words name it."""
    if gpu is None or gpu.bf16 or values["precision"] != "bf16":
        return verdict
    if "fp16" not in RECIPES[values["optimizer"]].computes_in:
        return Phrase(words[1], {"verdict": verdict, **twin()})
    if values["method"] == "qlora":
        return Phrase(words[2], {"verdict": verdict, "setting": FP16_COMPUTE})
    return Phrase(words[0], {"verdict": verdict})


# The most the step's estimate fell short of PyTorch's measured peak, as a share of that peak, in
# validation/steps.json (4.4021%, a mixture's LoRA step), rounded up to a hundredth of a percent as the pages state it
# (tests/test_vram.py holds it to the data).
WORST_SHORTFALL = Fraction(441, 10000)
# The most it fell short on the dense models among them (0.9955%, a Llama-style LoRA step), rounded up alike: a verdict
# says which kind of model the worst came from (tests/test_validation_bounds.py holds both to the data).
WORST_DENSE_SHORTFALL = Fraction(1, 100)
# The tight-fit rule's bound: that, rounded up to a tenth of a percent, so that no measured shortfall exceeds it.
SHORTFALL = Fraction(math.ceil(WORST_SHORTFALL * 1000), 1000)


def shortfall(estimate: Fraction) -> Fraction:
    """What the true peak may exceed ``estimate`` by, were the estimate as far below as the worst measured: a peak
    ``P`` estimated ``SHORTFALL·P`` low is ``P = estimate / (1 − SHORTFALL)``."""
    return estimate * SHORTFALL / (1 - SHORTFALL)


# The most the estimate fell below the measured peak, on models of the reader's kind: dense, mixtures of experts, or,
# for a parameter count, either (technical review, round 40: a dense model's verdict quoted the mixtures' error).
MEASURED = {
    False: N_(
        "On the small dense models measured, the estimate was up to %(dense)s below the measured peak. This "
        "calculator calls a fit tight when the memory to spare would not cover a shortfall of %(shortfall)s of the "
        "true peak, a bound set to include the %(worst)s measured on mixtures of experts."
    ),
    True: N_("On the small mixtures of experts measured, the estimate was up to %(worst)s below the measured peak."),
    None: N_(
        "On the small models measured, the estimate was up to %(dense)s below the measured peak for the dense models "
        "and up to %(worst)s below it for the mixtures of experts."
    ),
}


# Less than the last place shown, as a sentence says it (a cell keeps calc.outputs.LESS_THAN's symbol).
LESS_THAN_IN_WORDS = N_("less than %(least)s")
# How far below the true peak an estimate may fall for the margin to cover it: the share, or less than the last place.
AT_MOST = N_("at most %(share)s")
UNDER_A_HUNDREDTH = Phrase(N_("less than %(share)s"), {"share": Quantity(Decimal("0.01"), PERCENT, places=2)})


def coverage(margin: Fraction, estimate: Fraction, experts: bool | None) -> dict[str, Quantity | Phrase]:
    """How far below the true peak ``estimate`` may fall for ``margin`` to cover the difference, rounded down, beside
    the most it fell below in the measurements on models of its kind (``experts``: a mixture's, ``None``: not
    known): a peak ``P`` estimated ``s·P`` low is covered while ``s·P ≤ margin``, that is
    ``s ≤ margin / (estimate + margin)``.

    >>> covered = coverage(Fraction(57, 100), Fraction(2418, 100), False)
    >>> covered["covered"].quantities["share"].shown(), covered["measured"].quantities["dense"].shown()
    (Decimal('2.30'), Decimal('1.00'))
    >>> coverage(Fraction(1, 10**6), Fraction(2418, 100), False)["covered"] == UNDER_A_HUNDREDTH
    True
    >>> coverage(Fraction(-1, 100), Fraction(2418, 100), True)["measured"].quantities["worst"].shown()
    Decimal('4.41')
    """
    # Figures as shown may put a margin a hundredth below nothing (the spare less buffers each rounded): it covers none.
    margin = max(margin, Fraction(0))
    covered = rounded_down(100 * margin / (estimate + margin), 2)
    # A share that rounds down to nothing is less than the last place shown, not "at most 0.00%" (technical review,
    # round 49).
    within = Phrase(AT_MOST, {"share": Quantity(covered, PERCENT, places=2)}) if covered else UNDER_A_HUNDREDTH
    worst = {
        "worst": percent(WORST_SHORTFALL),
        "dense": percent(WORST_DENSE_SHORTFALL),
        # The rule's bound in as many places as the shares beside it (Spanish review, round 64: 4.5% beside 4.41%).
        "shortfall": Quantity(SHORTFALL * 100, PERCENT, places=2),
    }
    return {"covered": within, "measured": Phrase(MEASURED[experts], worst)}


class Need:
    """``total`` bytes to fit, with what every verdict on them shares, computed once however many cards are judged: the
    total as the page shows it, and ``tight``, the spare under which a fit is tight (:func:`shortfall`, and under ZeRO
    its buffers with DeepSpeed's defaults, which the total leaves out)."""

    def __init__(self, total: Fraction, tight: Fraction = Fraction(0)) -> None:
        self.total, self.tight, self.shown = total, tight, rounded(total / GB, 2)

    def verdict(self, capacity: Fraction, words: tuple[str, str, str] = CELL, shown: Decimal | None = None) -> Phrase:
        """Whether the total fits in ``capacity`` bytes (total ≤ capacity), and by how much. The margin is the
        difference of the two figures as the page shows them, in hundredths of a GB, so that it reads as their
        subtraction (two cards shown with 24.15 GB are short by the same amount); a capacity typed with more decimals
        may round onto the total, a margin of 0.00 GB. ``shown``: the capacity's figure, where known (a listed
        card's)."""
        fits, tight_fit, short = words
        margin = abs((rounded(capacity / GB, 2) if shown is None else shown) - self.shown)
        if self.total <= capacity:
            spare = {"spare": Quantity(margin, GIGABYTE, 2)}
            if capacity - self.total >= self.tight:
                return Phrase(fits, spare)
            return Phrase(tight_fit, spare)
        # Short by less than the figures show (both rounded onto one value): less than their last place, not "0.00";
        # in words in a sentence, where a symbol reads as notation (technical review, round 88).
        less = LESS_THAN if words == CELL else LESS_THAN_IN_WORDS
        missing = Quantity(margin, GIGABYTE, 2) if margin else Phrase(less, {"least": HUNDREDTH})
        return Phrase(short, {"missing": missing})


# The ways to make room, each offered only where the form has not chosen it already and it can help.
RECOMPUTE = N_("turn on full recomputation")
# Where the step that does not fit is the optimizer's, with PyTorch AdamW's foreach temporaries, which the fused AdamW
# (the Hugging Face Trainer's default with PyTorch 2.8 or later) does not allocate.
FUSED_ADAMW = N_("use PyTorch's fused AdamW")
# Where ZeRO's buffers at DeepSpeed's defaults (calc.vram.zero_buffers) are what leaves no room: smaller settings,
# said where even the smallest leave a tight fit (Italian review, round 50: the verdict asked for them, the ways out
# left them out).
SMALLER_BUFFERS = N_("lower ZeRO's buffer settings")
SMALLER_BUFFERS_TIGHT = N_("lower ZeRO's buffer settings (a tight fit, even at their smallest)")
FUSE = N_("choose fused attention")
# The switches that shrink a sample without changing the run's data, and the settings each turns on.
SWITCHES = {RECOMPUTE: {"recomputation": "full"}, FUSE: {"attention": "flash"}}
# Shorter sequences, at a length the page found (technical and Italian reviews, round 43); alone, the longest with
# room to spare, or where none has, the longest that fits, said so (technical review, round 48: the
# length read as the longest that fits, where longer ones fitted tightly).
SHORTEN_TO = N_("shorten the sequences to %(length)s\u00a0tokens")
SHORTEN_TO_SPARE = N_("shorten the sequences to %(length)s\u00a0tokens (with room to spare)")
SHORTEN_TO_TIGHT = N_("shorten the sequences to %(length)s\u00a0tokens (a tight fit)")
# Where one sample is what does not fit: the sequence split across GPUs, which the page does not model.
# Listed apart, as a way this calculator cannot check (UNCHECKED): the note says only what it is.
SPLIT_SEQUENCE = N_(
    "split each sequence across several GPUs (sequence or context parallelism, such as DeepSpeed Ulysses or ring "
    "attention)"
)
# Where DistributedDataParallel's gradient buckets (calc.vram.ddp_buckets) are what leaves no room: without them.
BUCKET_VIEW = N_("create DistributedDataParallel with gradient_as_bucket_view=True")
# Said beside it, in the parenthesis that says whether it is tight too (Spanish review, round 51: two in a row).
BUCKET_VIEW_HOW = Phrase(N_("in Accelerate, through DistributedDataParallelKwargs"), {})
# Where the moment that limits the micro-batch is the loss's: its fp32 tensors over the vocabulary, which a fused
# linear cross entropy computes a chunk of tokens at a time (the activations page's FAQ cites Liger Kernel's).
# The form has no field for it, so this calculator cannot show the step with it (Spanish review, round 53).
CHUNKED_LOSS = N_("compute the loss in chunks (the Trainer's use_liger_kernel=True, which the form has no field for)")
# In full fine-tuning, where another recipe keeps fewer bytes per parameter and that makes room: the weights, gradients
# and optimizer state shrink with it. Named, the first of those that do in the page's order (AdamW's before SGD's),
# and under ZeRO one that DeepSpeed runs as it is (Spanish review, round 48: a 16-bit recipe, which ZeRO runs with
# a master copy, led back to the form's own).
LEANER_RECIPE = N_("choose the training recipe “%(recipe)s”")
# QLoRA is LoRA over a 4-bit base, not an adapter of its own (Spanish review, round 84).
ADAPT = {"full": N_("train with LoRA or QLoRA"), "lora": N_("train QLoRA")}
# An adapter over a base kept in fp32: the base in 16 bits halves its weights.
BASE_IN_16_BITS = N_("load the base model in %(precision)s")
# In a mixture of experts QLoRA quantizes the attention projections only (calc.formulas.parameters.quantized_weights):
# the experts, most of the weights, stay in 16 bits, so it saves little over LoRA.
ADAPT_EXPERTS = {"full": N_("train LoRA")}
# The stages that make room on several GPUs, named where one below ZeRO-3 does (Spanish review, round 45), each of
# them rather than "at least" the lowest, which held only up to the GPUs checked (Spanish review, round 48).
SEVERAL_GPUS_FROM = N_("train on several GPUs with %(stages)s")
SEVERAL_GPUS_ANY_STAGE = N_("train on several GPUs with ZeRO at any stage")
MOST_GPUS = int(GPUS.maximum)  # as many as the form takes: what sharding leaves once it shares all it can


def most_gpus(values: Mapping[str, object]) -> int:
    """The most GPUs a way out may ask for: no more than the target batch, since each GPU takes at least one of its
    samples (technical review, round 42: ZeRO-2 was offered where it fitted only on about a thousand GPUs, for a
    target batch of 64), and no fewer than the form has."""
    return max(int(values["gpus"]), min(MOST_GPUS, int(values["target_batch"])))


# What QLoRA's base needs for ZeRO-3 or FSDP to shard it: peft's and bitsandbytes' guides set the storage to the
# model's dtype, since both shard floating-point tensors only.
QUANT_STORAGE = "bnb_4bit_quant_storage=torch.bfloat16"


def quant_storage(precision: str) -> str:
    """The storage setting for a base loaded in ``precision``: torch.float16 in fp16 (Italian review, round 44: the
    note gave bf16 on cards without it)."""
    return QUANT_STORAGE.replace("bfloat16", "float16") if precision == "fp16" else QUANT_STORAGE


# A way to ZeRO-3 for QLoRA names that setting (technical review, round 48: offered without it, the base would stay
# whole on every GPU).
QLORA_ZERO_3 = N_("set %(storage)s in BitsAndBytesConfig so that ZeRO-3 can shard the 4-bit base")


def for_qlora(way: str | Phrase, values: Mapping[str, object], **change: object) -> str | Phrase:
    """``way``, which ``change`` makes, with the setting QLoRA needs where the run it leads to is QLoRA under ZeRO-3
    on several GPUs."""
    run = {**values, **change}
    if run["method"] != "qlora" or int(run["zero_stage"]) < 3 or int(run["gpus"]) < 2:
        return way
    storage = Names((quant_storage(on_card(str(run["precision"]), values)),))
    return noted(way, Phrase(QLORA_ZERO_3, {"storage": storage}))


# What a way needs, or how much room it leaves, said beside it in one parenthesis (Spanish review, round 51: two
# parentheses in a row).
NOTED = N_("%(way)s (%(notes)s)")


def noted(way: str | Phrase, note: Phrase) -> Phrase:
    """``way`` with ``note`` beside its others."""
    if isinstance(way, Phrase) and way.message == NOTED:
        notes = sorted((*way.quantities["notes"].messages, note), key=_note_order)
        return Phrase(NOTED, {"way": way.quantities["way"], "notes": Phrases(tuple(notes), "semicolon")})
    return Phrase(NOTED, {"way": _phrase(way), "notes": Phrases((note,), "semicolon")})


def _note_order(note: Phrase) -> int:
    """Notes in one order whichever was added first (technical review, round 57: QLoRA's storage came before or after
    its recipe): how the way was checked, the recipe, what ZeRO-3 needs to shard QLoRA's base, the GPUs it takes
    (technical review, round 79), the other settings it needs, and how much room it leaves last (Italian review, round
    57: "a tight fit; with zero_allow_untested_optimizer" read as one note); why peft's preparation is left out after
    the fit it leaves (Spanish review, round 65: "would not fit; a tight fit")."""
    checked = (QLORA_PREPARED, QLORA_PREPARED_RECOMPUTING)
    order = {
        **{each.message: 0 for each in checked},
        WITH_SIXTEEN: 1,
        QLORA_ZERO_3: 2,
        ROOM_FROM: 3,
        ROOM_AT_TARGET: 3,
        ROOM_BY_STAGE: 3,
        FROM_GPUS: 3,
        AT_TARGET: 3,
    }
    order[TIGHT_NOTE.message] = 9
    order[UNPREPARED_WHY.message] = 10
    return order.get(note.message, 5)


# Where only ZeRO-3 can help, as with a frozen base, which only it shards.
SEVERAL_GPUS_ZERO_3 = N_("train on several GPUs with ZeRO-3")
ZERO_3 = N_("choose ZeRO-3")
# At the form's ZeRO stage, said so beside a way to more GPUs under ZeRO-3 (Spanish and Italian reviews, round 75).
MORE_GPUS = N_("use more GPUs at the same ZeRO stage")
ZERO_3_MORE_GPUS = N_("use more GPUs under ZeRO-3")
# The fewest GPUs on which a way to more of them leaves room to spare (technical review, round 65: "use more GPUs"
# left room only on 128, a tight fit on 13 to 127).
ROOM_FROM = N_("with room to spare from %(count)s\u00a0GPUs")
# Where that is as many GPUs as the target batch has samples, one each (Italian review, round 70: "from 64 GPUs" read
# as how memory scales with them); not said to be for want of accumulation, one reason of several (technical review,
# round 71).
ROOM_AT_TARGET = N_("with room to spare only on %(count)s\u00a0GPUs, with one sample on each")
# The same for each stage a way names, where they differ: a small model's ZeRO-3 buffers may outweigh what it shards,
# or its sharding needs fewer GPUs than a lower stage's (technical and Spanish reviews, round 66: one count, a lower
# stage's, said for all).
ROOM_BY_STAGE = N_("with room to spare %(counts)s")
# TRANSLATORS: one item of that list: a count of GPUs under a ZeRO stage ("from 8 GPUs under ZeRO-1"), each item
# saying "from", since the items are alternatives (technical review, round 74).
GPUS_UNDER = N_("from %(count)s\u00a0GPUs under %(stage)s")
# TRANSLATORS: the last item of that list, where a stage leaves room only with one sample on each GPU, as many as the
# target batch has ("only on 64 GPUs under ZeRO-1, with one sample on each").
GPUS_UNDER_AT_TARGET = N_("only on %(count)s\u00a0GPUs under %(stage)s, with one sample on each")
LARGER_GPU = N_("choose a GPU with more memory")
# For QLoRA, where a listed card holds the base as loaded but not as peft prepares it (Italian review, round 51: no
# card was offered where the H200 held Mixtral as loaded, while LoRA's ways offered QLoRA so).
WITHOUT_PREPARATION = Phrase(
    N_("the listed cards that hold the step do so only if you skip peft's prepare_model_for_kbit_training"), {}
)
LOWER_TYPED = N_("lower the activation memory you typed (through %(how)s)")
# What lowers it, each only where the form has not chosen it already (Spanish review, round 54: a micro-batch of one,
# full recomputation and fused attention were offered where they were the form's); a count's form shows neither
# recomputation nor attention, so both are named.
TYPED_HOW = {
    "micro_batch": N_("a smaller micro-batch"),
    "recomputation": N_("full recomputation"),
    "attention": N_("fused attention"),
    "sequence_length": N_("shorter sequences"),
}


def lower_typed(values: Mapping[str, object]) -> Phrase:
    """Lowering a typed activation memory, through what the form has not chosen already."""
    count = values["model"] == COUNT
    chosen = {
        "micro_batch": int(values["micro_batch"]) <= 1,
        "recomputation": not count and values["recomputation"] == "full",
        "attention": not count and values["attention"] == "flash",
        "sequence_length": int(values["sequence_length"]) <= 1,
    }
    how = Phrases(tuple(words for name, words in TYPED_HOW.items() if not chosen[name]), style="or")
    return Phrase(LOWER_TYPED, {"how": how})


FEWER_PARAMETERS = N_(
    "train fewer parameters (not even ZeRO-3 on as many GPUs as the target batch has samples makes room for them "
    "beside its buffers)"
)
# An adapter's: its frozen base takes the room, not what it trains (technical review, round 71).
SMALLER_BASE = N_(
    "choose a smaller base model (not even ZeRO-3 on as many GPUs as the target batch has samples makes room for this "
    "one's weights beside its buffers)"
)
# The ways this calculator cannot check, which a page lists apart from those it has (Italian review, round 67: a
# sequence split under "do one of these" read as checked like the rest).
UNCHECKED = (SPLIT_SEQUENCE, CHUNKED_LOSS, LOWER_TYPED)


def checked(way: str | Phrase) -> bool:
    """Whether this calculator checked that ``way`` makes room: a set of changes, where it checked each (technical
    review, round 71: a set with a lower typed figure was listed among the checked ways)."""
    bare = _bare_way(way)
    if isinstance(bare, Phrase) and bare.message in LISTED_SETS:
        return all(map(checked, bare.quantities["changes"].messages))
    return (bare.message if isinstance(bare, Phrase) else bare) not in UNCHECKED


# Where nothing the page tries, alone or together, makes room on the GPUs it may ask for.
NOTHING_TRIED = N_(
    "change more at once than this calculator checks (an adapter, ZeRO-3 on up to as many GPUs as the target batch has "
    "samples, full recomputation, fused attention, and shorter sequences, alone or together)"
)


def ways_out(
    values: Mapping[str, object],
    samples: bool,
    fixed_helps: bool = True,
    experts: bool = False,
    fused: str | Phrase = "",
    buffers: str = "",
    buckets: str | Phrase = "",
    fits: Callable[..., bool] = lambda **change: True,
    loss: bool = False,
    larger_gpu: bool = True,
    split: bool = True,
    typed: str = "",
    combine: bool = True,
    nothing: str = NOTHING_TRIED,
    larger: str | Phrase = LARGER_GPU,
    roomy: bool = True,
    room: Callable[..., Fraction | None] | None = None,
    switches: Mapping[str, dict] = SWITCHES,
) -> Phrases:
    """What may make room for the step, of what the form has not chosen: with ``samples`` (the fixed part fits, one
    sample does not), what shrinks a sample too; and what shrinks the fixed part (weights, gradients, optimizer state),
    unless one sample alone is more than the GPU holds (not ``fixed_helps``); QLoRA not for a mixture of ``experts``
    (:data:`ADAPT_EXPERTS`); in full fine-tuning, a leaner recipe where there is one; first, where the ``fused`` AdamW
    would drop the temporaries of the moment that does not fit, or where ZeRO's ``buffers`` or DDP's ``buckets`` are
    what leave no room, smaller ones or none (each the way to offer, roomy or tight); where one sample alone is more
    than the GPU holds, the sequence split across GPUs, where a sample shared by as many as the target batch allows
    could fit (``split``, the best case of a split the page does not model); where the ``loss`` in chunks would make
    room, computing it so; a larger GPU only where one holds the step (``larger_gpu``). With one GPU ZeRO shares
    nothing; with several, a higher stage shares more, and each GPU's share of what is shared shrinks with their number.
    Each way that changes the form is offered only where ``fits`` (the form's values it changes) says the step would
    then fit: a recipe or a method on these GPUs, a ZeRO stage on them or on up to :func:`most_gpus`. Where none does,
    the fewest changes that do together (:func:`_together`), or, where none do either, ``nothing``. Where the caller
    can say how much ``room`` a change leaves (negative where it falls short, None where the page refuses it), that
    stands for ``fits``, and the fewest GPUs with room are aimed at rather than halved for. ``switches``: those of
    :data:`SWITCHES` the card runs as the estimate counts them.

    >>> values = {"recomputation": "full", "attention": "flash", "sequence_length": 1, "method": "lora",
    ...     "optimizer": "adamw-mixed", "zero_stage": "1", "gpus": 8, "target_batch": 64}
    >>> def fits(zero_stage="1", gpus=8, **rest):
    ...     return zero_stage == 3 and gpus > 8
    >>> from babel import Locale
    >>> from gettext import NullTranslations
    >>> more, larger = ways_out(values, samples=False, fits=fits).messages
    >>> more.text(Locale.parse("en"), NullTranslations()), larger
    ('use more GPUs under ZeRO-3 (with room to spare from 9\xa0GPUs)', 'choose a GPU with more memory')
    >>> ways_out(values, samples=False, fits=lambda zero_stage="1", **rest: zero_stage == 3).messages
    ('choose ZeRO-3', 'choose a GPU with more memory')
    """
    checked: dict[tuple[tuple[str, str], ...], bool | Fraction | None] = {}

    def modelled_once(**change: object) -> bool | Fraction | None:
        # Each check models a whole step: a change asked twice, or one that changes only what the form already
        # holds (the base in bf16 where it is), is modelled once.
        key = tuple(sorted((name, str(value)) for name, value in change.items() if str(values.get(name)) != str(value)))
        if key not in checked:
            checked[key] = fits(**change) if room is None else room(**change)
        return checked[key]

    def fits_once(**change: object) -> bool:
        return has_room(modelled_once(**change))

    def judged(way: str | Phrase, change: Mapping[str, object], judge: bool = True) -> str | Phrase:
        """``way``, which ``change`` makes, said to be tight where it leaves no room beyond the estimate's error
        (Italian review, round 52; technical review, round 50), where ``fits`` can ``judge`` room to spare."""
        return way if fits_once(**change, comfortable=judge) else noted(way, TIGHT_NOTE)

    ways = [fused] if fused else []
    if buffers:
        ways.append(buffers)
    if buckets:
        ways.append(buckets)
    pair = False  # full recomputation and fused attention, offered together
    if samples:
        # Each where it alone makes room for a sample, or both together where neither alone does (technical review,
        # round 39: both were offered where only the pair fit).
        off = {way: change for way, change in switches.items() if any(values[k] != v for k, v in change.items())}
        alone = [way for way, change in off.items() if fits_once(**change)]
        # Each said to be tight where it leaves no room beyond the estimate's error (Italian review, round 52).
        ways.extend(judged(way, off[way], roomy) for way in alone)
        # The pair as a set, like any other (technical review, round 63: its "and" ran into the list's "or").
        pair = len(off) == 2 and not alone and fits_once(**off[RECOMPUTE], **off[FUSE])
        if pair:
            ways.append(_set((RECOMPUTE, judged(FUSE, {**off[RECOMPUTE], **off[FUSE]}, roomy))))
        if loss:
            ways.append(CHUNKED_LOSS)
        length = int(values["sequence_length"])

        def shortened(**change: object) -> tuple[int, bool] | None:
            """The longest length that fits with ``change``, and whether it fits with room to spare (else tightly):
            with room where a length has it, lest the way out be tight (technical review, round 47); only a length
            the page found (technical and Italian reviews, round 49: offered where none fitted), and one a run might
            train at, not a few tokens (technical review, round 52: 16 tokens were offered)."""
            spare = roomy

            def at(judge: bool) -> Callable[[int], bool | Fraction | None]:
                judged = {"comfortable": True} if judge else {}
                return lambda each: modelled_once(**change, **judged, sequence_length=each)

            shorter = longest_length(length, at(roomy))
            if not shorter:
                shorter, spare = longest_length(length, at(False)), False
            return (shorter, spare) if shorter and shorter >= min(SHORTEST_OFFERED, length // 4) else None

        plain = shortened() if length > 1 else None
        if plain:
            # Where ``fits`` cannot judge room to spare (a sample alone on a card), the length alone is named.
            words = SHORTEN_TO_SPARE if plain[1] else SHORTEN_TO if not roomy else SHORTEN_TO_TIGHT
            ways.append(Phrase(words, {"length": Quantity(Decimal(plain[0]))}))
        # Where the switches make no room, alone or together: the switches with the longest length that then fits,
        # where it is longer than shortening alone allows, or shortening alone allows none (Italian reviews, round
        # 57: 512 tokens were offered where full recomputation let 3,968 fit; round 62: none where it let 640 fit).
        switched = {name: value for way in off for name, value in off[way].items()}
        if (
            length > 1
            and off
            and not alone
            and not fits_once(**switched)
            and (longer := shortened(**switched))
            and longer[0] > (plain[0] if plain else 0)
        ):
            to = Phrase(SHORTEN_TO, {"length": Quantity(Decimal(longer[0]))})
            ways.append(_set((*off, to if longer[1] or not roomy else noted(to, TIGHT_NOTE))))
        if not fixed_helps and split:
            ways.append(SPLIT_SEQUENCE)
    stage, gpus, most = int(values["zero_stage"]), int(values["gpus"]), most_gpus(values)
    adapters = _adapters(values, experts)
    if not fixed_helps:
        # One sample alone is more than the GPU holds: what shrinks a sample, alone or with what shrinks the rest
        # (technical review, round 50: a larger card was offered where none was, and QLoRA with recomputation, which
        # fitted, was not).
        offered = list(map(_bare_way, ways))
        shortened_to = [each for each in map(_length_of, offered) if each < UNSHORTENED]
        # A set's sequences longer than those of a length offered alone, else it adds nothing (Spanish review, round
        # 53: "train LoRA and shorten to 4,096 tokens" beside "shorten to 4,096 tokens").
        longer = max(shortened_to, default=0) if ways else 0
        together = _together(values, fits_once, adapters, most, longer, switches) if combine else ()
        # Nor the pair with shorter sequences, which the pair alone already makes room for (technical review, round
        # 90: "... and shorten the sequences to 32,640 tokens" beside the pair at 32,768).
        within_pair = pair and all(_bare(way) in (RECOMPUTE, FUSE) or _length_of(way) < UNSHORTENED for way in together)
        if ways and together and (within_pair or any(_bare_way(way) in offered for way in together)):
            together = ()
        # Of the ways, only those that shorten count there: a sequence split keeps the length (Italian review, round
        # 62: it dropped a set that fitted on the reader's card).
        if ways and together:
            # Beside the ways that shrink a sample alone, a set that keeps the sequences longer (Italian review,
            # round 52: only 384 tokens were offered where QLoRA with recomputation fitted at 4,096), unless one of
            # its changes already makes room alone.
            ways, together = [*ways, _set(together)], ()
        return _or_else(together, ways, larger_gpu, nothing, larger)

    def said(way: str | Phrase, change: dict) -> str | Phrase:
        """``way``, which ``change`` makes, with the recipe it needs where it is not the form's (technical review,
        round 50: an adapter was offered that the form's fp32 recipe refuses), said to be tight where it is."""
        return judged(with_sixteen(way, values, change), change)

    # A change of recipe or method is offered where it alone makes room, on these GPUs as they are sharded: the first
    # with room to spare, or the first that fits.
    recipe = RECIPES[values["optimizer"]]
    leaner = [key for key, other in RECIPES.items() if other.states.total < recipe.states.total]
    run = [key for key in leaner if not stage or zero_twin(key) == key]
    if values["method"] == "full":
        roomy_keys = (key for key in run if fits_once(optimizer=key, comfortable=True))
        if found := next(roomy_keys, None) or next((key for key in run if fits_once(optimizer=key)), None):
            # Whether it is tight first, lest it read as a consequence of what follows (Spanish review, round 56).
            way = said(Phrase(LEANER_RECIPE, {"recipe": Phrase(RECIPES[found].label, {})}), {"optimizer": found})
            # From fp32 weights, kept as a master copy or trained as they are, to bf16 ones kept alone (Italian review,
            # round 53: said only from a master copy).
            fp32_weights = recipe.master_copy or recipe.states.weights >= 4
            if fp32_weights and not RECIPES[found].master_copy and RECIPES[found].states.weights < 4:
                way = noted(way, Phrase(WITHOUT_MASTER, {}))
            if stage and not RECIPES[found].optimizer.foreach_adamw:
                way = noted(way, Phrase(UNTESTED_UNDER_ZERO, {}))
            ways.append(way)
    mixed = sixteen(values)
    qlora_note, qlora_change = prepared_qlora(values)
    if values["method"] == "lora" and recipe.states.weights > 2 and fits_once(**mixed):
        # The way names the recipe itself: only whether it is tight is said.
        words = {"precision": Names((mixed["precision"],))}
        # With the recipe it was checked with named, as QLoRA's is (technical review, round 76: "a 16-bit recipe",
        # which the form has not, beside an fp16 that the bf16 recipes refuse).
        ways.append(judged(with_sixteen(Phrase(BASE_IN_16_BITS, words), values, mixed), mixed))
    adapt = ADAPT_EXPERTS if experts else ADAPT

    def backing(base: dict) -> dict | None:
        """The change that makes room with ``base`` (a method, and what goes with it): in the form's recipe or, where
        that one is refused or does not fit (QLoRA is modelled in 16 bits), in mixed precision."""
        return next((change for change in (base, {**base, **mixed}) if fits_once(**change)), None)

    # QLoRA as loaded, or as peft prepares it where the recomputation the preparation turns on is what makes room.
    fitting = {
        method: change
        for method in adapters
        if (change := backing({"method": method}) or (backing(qlora_change) if method == "qlora" else None))
    }
    if values["method"] in adapt and fitting:
        # LoRA named only where it makes room, not only QLoRA (Spanish review, round 41); QLoRA as most recipes run
        # it, with peft's preparation, or said to be without it (Italian review, round 41).
        prepared = backing(qlora_change) if "qlora" in adapters else None
        # Said to be judged with peft's preparation, and the recomputation it turns on where the form has none, as in a
        # set (technical reviews, rounds 76 and 77: "a tight fit" beside a verdict, once switched, that opened with
        # room as loaded).
        qlora_way = noted(TRAIN["qlora"], qlora_note)
        if values["method"] == "full" and "lora" in fitting:
            # One way for both adapters where they need the same change and fit alike; else each said apart, with
            # what it needs (Spanish review, round 52: "(a tight fit)" read as QLoRA's too, which left 10.93 GB;
            # Italian review, round 53: QLoRA lost the 16-bit recipe it needed).
            lora_change = fitting["lora"]
            alike = prepared is not None and {**prepared, "method": "lora", "prepared": None} == {
                **lora_change,
                "prepared": None,
            }
            both = alike and fits_once(**prepared, comfortable=True) == fits_once(**lora_change, comfortable=True)
            if both or prepared is None:
                ways.append(said(adapt["full"] if both else TRAIN["lora"], lora_change))
            else:
                ways.append(said(for_qlora(qlora_way, values, method="qlora"), prepared))
                ways.append(said(TRAIN["lora"], lora_change))
        elif prepared:
            # QLoRA turns on the recomputation the form lacks, so it is two changes: LoRA with that recomputation too,
            # where it makes room, beside it (Italian review, round 82: only QLoRA was offered where LoRA and full
            # recomputation left 38 GB).
            recomputed = None
            if values["method"] == "full" and "lora" in adapters and "recomputation" in prepared:
                recomputed = backing({"method": "lora", "recomputation": "full"})
            if recomputed is not None:
                ways.append(_set((with_sixteen(TRAIN["lora"], values, recomputed), judged(RECOMPUTE, recomputed))))
            ways.append(said(for_qlora(qlora_way, values, method="qlora"), prepared))
        elif "qlora" in fitting:
            unprepared = noted(QLORA_UNPREPARED, UNPREPARED_WHY)
            ways.append(said(for_qlora(unprepared, values, method="qlora"), fitting["qlora"]))

    # The lowest stage from ``start`` that would make room on ``count`` GPUs, with room to spare (Italian review, round
    # 49: more GPUs under ZeRO-2 were offered for LoRA, whose frozen base it does not shard, where 0.01 GB was left).
    # ZeRO-3 shards the most, so where it makes none no lower stage does, and it is asked first: one step's model
    # where nothing helps. Then downwards: ZeRO-2 shards what ZeRO-1 does, and the gradients too, with the same
    # bucket, so where ZeRO-2 makes no room ZeRO-1 makes none.
    def lowest(start: int, count: int) -> int | None:
        if start > 3 or not fits_once(zero_stage=3, gpus=count, comfortable=True):
            return None
        found = 3
        for lower in (2, 1):
            if lower < start or not fits_once(zero_stage=lower, gpus=count, comfortable=True):
                break
            found = lower
        return found

    @cache  # asked again where a way under ZeRO-3 is weighed against one at the form's stage
    def roomy_from(named: int) -> int:
        """The fewest GPUs on which stage ``named`` leaves room to spare, as it does on ``most`` (ZeRO shards more on
        more GPUs, so each count above leaves room too). Where only whether there is room is known, doubling from the
        form's count first, since few are usually enough."""

        def left(count: int) -> bool | Fraction | None:
            return modelled_once(zero_stage=named, gpus=count, comfortable=True)

        fits, short = most, gpus
        while room is None and short * 2 < fits:
            if left(short * 2):
                fits = short * 2
                break
            short *= 2
        return crossing(short, fits, left, reciprocal=True)

    def counted(way: str | Phrase, stages: range) -> Phrase:
        """``way`` to more GPUs, judged on ``most`` of them, with the fewest on which each stage it names leaves room
        to spare: one count where they agree, else each stage's."""
        counts = {named: roomy_from(named) for named in stages}
        target = int(values["target_batch"])
        if len(set(counts.values())) == 1:
            count = counts[stages[0]]
            words = ROOM_AT_TARGET if count >= target else ROOM_FROM
            return noted(way, Phrase(words, {"count": Quantity(Decimal(count))}))
        # The stages that share a count named together (technical review, round 67: "4 GPUs under ZeRO-2, and 4 GPUs
        # under ZeRO-3").
        sharing = {
            count: tuple(f"ZeRO-{named}" for named in stages if counts[named] == count) for count in counts.values()
        }
        # The fewest first (technical review, round 75), and a count that gives each GPU one sample last, said so
        # (Italian review, round 70).
        each = tuple(
            Phrase(
                GPUS_UNDER_AT_TARGET if count >= target else GPUS_UNDER,
                {"count": Quantity(Decimal(count)), "stage": Names(named)},
            )
            for count, named in sorted(sharing.items(), key=lambda pair: (pair[0] >= target, pair[0]))
        )
        # Alternatives, joined so; the stages of one count with "and" (Spanish and technical reviews, round 74: "from 3
        # GPUs under ZeRO-2 or ZeRO-3 and only on 64 GPUs under ZeRO-1" read as one condition).
        return noted(way, Phrase(ROOM_BY_STAGE, {"counts": Phrases(each, style="or")}))

    if gpus == 1:
        # On one GPU no stage shares anything: a stage on several, as many as it takes.
        several = lowest(max(stage, 1), most) if most > 1 else None
        if several is not None:
            way = {3: SEVERAL_GPUS_ZERO_3, 1: SEVERAL_GPUS_ANY_STAGE}.get(
                several, Phrase(SEVERAL_GPUS_FROM, {"stages": _stages_from(several)})
            )
            ways.append(as_twin(for_qlora(counted(way, range(several, 4)), values, zero_stage=3, gpus=most), values))
    else:
        # A higher stage on the form's GPUs; where it makes room only on more of them, the two together (technical
        # and Spanish reviews, round 41: a higher stage was offered that fitted only on more GPUs).
        higher = lowest(stage + 1, gpus)
        more = stage > 0 and most > gpus and fits_once(zero_stage=stage, gpus=most, comfortable=True)
        if higher is not None:
            # The stages named, lest "a higher stage" be read as the next one, which may not fit (technical review,
            # round 50).
            stage_words = {3: ZERO_3, 1: CHOOSE_ANY_STAGE}
            higher_words = stage_words.get(higher, Phrase(CHOOSE_STAGES, {"stages": _stages_from(higher)}))
            ways.append(as_twin(for_qlora(higher_words, values, zero_stage=3), values))
        elif most > gpus and stage < 3 and lowest(stage + 1, most) is not None:
            # A higher stage and more GPUs, where more GPUs at this stage would not do (technical review, round 44),
            # or would take more of them (technical review, round 70: ZeRO-1 from 64 GPUs, where ZeRO-3 took 5).
            if not more or roomy_from(3) < roomy_from(stage):
                ways.append(as_twin(for_qlora(counted(ZERO_3_MORE_GPUS, range(3, 4)), values, zero_stage=3), values))
        if more:
            ways.append(counted(MORE_GPUS, range(stage, stage + 1)))
    lower = lower_typed(values) if typed else None
    if "activations" in typed:
        # The typed figure is what does not fit: what would lower it, which the page cannot check (technical review,
        # round 48: a 38 GB figure was offered only a larger card).
        ways.append(lower)
    if not ways and not typed and (together := _together(values, fits_once, adapters, most, switches=switches)):
        # Changes made together, before a larger card where one holds the step (Spanish review, round 43: only a
        # larger card was offered where a set of changes fitted the reader's own).
        return _or_else(together, ways, larger_gpu, nothing, larger)
    # With the activations typed, where the model state itself is too large, fewer parameters, or an adapter's smaller
    # base (technical review, round 48: lower activations were offered for an optimizer step, which holds none).
    adapted = typed and values["method"] != "full" and values["model"] != COUNT
    fewer = SMALLER_BASE if adapted else FEWER_PARAMETERS
    if "state" in typed and ways in ([], [lower]):
        # The state too large, and nothing alone making room: ZeRO-3 where it holds the state with no activations at
        # all, beside a lower typed figure (technical review, round 49: "more GPUs than the target batch has samples"
        # was said where 8 held it; round 71: fewer parameters were offered where ZeRO-3 on 8 GPUs held the state
        # and only the typed figure beside it did not fit).
        empty = {"activation_memory": Decimal(0)}
        sharding = [(ZERO_3, {"zero_stage": 3})] if gpus > 1 and stage < 3 else []
        if most > gpus:
            words = SEVERAL_GPUS_ZERO_3 if gpus == 1 else ZERO_3_MORE_GPUS if stage < 3 else MORE_GPUS
            sharding.append((words, {"zero_stage": 3, "gpus": most}))
        shard = next((words for words, change in sharding if fits_once(**empty, **change, comfortable=True)), None)
        if shard or ways:
            return _or_else((shard, lower) if shard else (lower, fewer), [], larger_gpu, nothing, larger)
    return _or_else((), ways, larger_gpu, fewer if typed else nothing, larger)


def _stages_from(lowest: int) -> Names:
    """The ZeRO stages from ``lowest`` up, as a list with "or"."""
    return Names(tuple(f"ZeRO-{each}" for each in range(lowest, 4)), style="or")


def changes_together(
    values: Mapping[str, object], fits: Callable[..., bool], experts: bool, switches: Mapping[str, dict] = SWITCHES
) -> Phrases | None:
    """The fewest changes that together make room (:func:`_together`), or None: for a step whose fixed part and
    single sample are each more than a card holds, checked on the whole step before each is made room for apart
    (Italian review, round 52: a length was offered for the sample that no way for the fixed part fitted beside)."""
    together = _together(values, fits, _adapters(values, experts), most_gpus(values), switches=switches)
    if not together:
        return None
    return Phrases((_set(together),))


def _or_else(together: tuple, ways: list, larger_gpu: bool, nothing: str, larger: str | Phrase = LARGER_GPU) -> Phrases:
    """The set of changes made ``together``, grouped apart from a larger card (technical review, round 45: the "and"
    of the set ran into the "or"); or the ``ways`` found, then a larger card; a larger card only where one holds the
    step (technical review, round 43: one was offered that no listed card is), and where nothing makes room,
    ``nothing``; ``larger``, the words for a larger card."""
    if together:
        # A larger card before the list of changes, introduced by a colon, which anything after would join (technical
        # review, round 53).
        return Phrases((larger, _set(together)) if larger_gpu else (_set(together),), style="or")
    # A set of changes introduced by a colon last, which any way after it would join (technical review, round 53).
    listed = sorted(ways, key=lambda way: isinstance(way, Phrase) and way.message in LISTED_SETS)
    if larger_gpu:
        listed = sorted([*listed, larger], key=lambda way: isinstance(way, Phrase) and way.message in LISTED_SETS)
    return Phrases(tuple(listed) or (nothing,), style="or")


def with_sixteen(way: str | Phrase, values: Mapping[str, object], change: Mapping[str, object]) -> str | Phrase:
    """``way``, naming the mixed-precision recipe where ``change`` switches the form's to it (before its notes)."""
    mixed = sixteen(values)
    if change.get("optimizer") != mixed["optimizer"] or values["optimizer"] == mixed["optimizer"]:
        return way
    recipe = {"recipe": Phrase(RECIPES[mixed["optimizer"]].label, {}), "precision": Names((mixed["precision"],))}
    return noted(way, Phrase(WITH_SIXTEEN, recipe))


def _set(together: tuple) -> Phrase:
    """Changes to make together, said so before a colon, lest the list read as alternatives or its "and" run into the
    "or" of the ways around it (technical review, round 52; Spanish and Italian reviews, rounds 58 and 59); a set
    that fits only tightly (its last change noted so by :func:`_together`) said so there too, where the note cannot
    read as its last change's (technical review, round 57)."""
    if len(together) == 1:
        return _phrase(together[0])
    *rest, last = together
    both = len(together) == 2
    if isinstance(last, Phrase) and last.message == NOTED and TIGHT_NOTE in last.quantities["notes"].messages:
        notes = tuple(note for note in last.quantities["notes"].messages if note != TIGHT_NOTE)
        way = last.quantities["way"]
        last = Phrase(NOTED, {"way": way, "notes": Phrases(notes, "semicolon")}) if notes else way
        return Phrase(BOTH_TIGHT if both else ALL_TIGHT, {"changes": Phrases((*rest, last))})
    return Phrase(BOTH_TOGETHER if both else ALL_TOGETHER, {"changes": Phrases(together)})


# A way to ZeRO from a recipe without a master copy, which ZeRO runs with one (calc.vram._changed): said (Italian
# review, round 55: ZeRO-3 on 8 GPUs read as a fit for the form's recipe, where DeepSpeed's needed 16).
AS_TWIN = N_("judged with “%(twin)s”, which DeepSpeed's ZeRO runs for this recipe")


def as_twin(way: str | Phrase, values: Mapping[str, object]) -> str | Phrase:
    """``way``, which turns ZeRO on, with the recipe it was judged in where ZeRO runs the form's with a master copy;
    not where a card without bf16 has every way judged in that recipe, which the sentence after them says (Spanish
    review, round 80: the recipe named twice in two lines)."""
    if int(values["zero_stage"]):
        return way
    twin = zero_twin(str(values["optimizer"]))
    if (values["method"] != "full" and values["model"] != COUNT) or twin == values["optimizer"]:
        return way
    card = GPUS_BY_ID.get(str(values["gpu"]))
    if card is not None and not card.bf16 and set(RECIPES[str(values["optimizer"])].computes_in) <= {"bf16"}:
        return way
    return noted(way, Phrase(AS_TWIN, {"twin": Phrase(RECIPES[twin].label, {})}))


def _adapters(values: Mapping[str, object], experts: bool) -> list[str]:
    """The adapters a way out may switch the form's method to: QLoRA not for a mixture of experts."""
    methods = {"full": ("lora", "qlora"), "lora": ("qlora",)}.get(str(values["method"]), ())
    return [method for method in methods if method != "qlora" or not experts]


# The length of a way, or set, that shortens nothing: longer than any.
UNSHORTENED = 2**62


def _length_of(ways: tuple | str | Phrase) -> int:
    """The sequence length a way, or a set of them, shortens to; a very long one where none is shortened."""
    if isinstance(ways, Phrase) and ways.message in LISTED_SETS:
        ways = ways.quantities["changes"]
    ways = ways.messages if isinstance(ways, Phrases) else ways if isinstance(ways, tuple) else (ways,)
    lengths = [
        int(way.quantities["length"].value)
        for way in map(_bare_way, ways)
        if isinstance(way, Phrase) and way.message in (SHORTEN_TO, SHORTEN_TO_SPARE, SHORTEN_TO_TIGHT)
    ]
    return min(lengths, default=UNSHORTENED)


def _bare_way(way: str | Phrase) -> str | Phrase:
    """A way without its notes."""
    return _bare_way(way.quantities["way"]) if isinstance(way, Phrase) and way.message == NOTED else way


def _phrase(way: str | Phrase) -> Phrase:
    """A way, as a phrase another wraps."""
    return way if isinstance(way, Phrase) else Phrase(way, {})


# The recipe an adapter falls back on where the form's is refused for it or does not fit (QLoRA is modelled in 16 bits).


def on_card(precision: str, values: Mapping[str, object]) -> str:
    """``precision`` as the form's card runs it: fp16 for bf16 on a card without bf16, which takes the same memory
    (technical reviews, rounds 53 and 57: bf16 named beside the verdict's "choose fp16").

    >>> on_card("bf16", {"gpu": "t4"}), on_card("bf16", {"gpu": "h100-80gb"}), on_card("fp32", {"gpu": "t4"})
    ('fp16', 'bf16', 'fp32')
    """
    card = GPUS_BY_ID.get(str(values.get("gpu")))
    return "fp16" if precision == "bf16" and card is not None and not card.bf16 else precision


def sixteen(values: Mapping[str, object]) -> dict[str, str]:
    """The mixed-precision recipe a way out may switch to, at the 16-bit precision the card runs."""
    return {"optimizer": "adamw-mixed", "precision": on_card("bf16", values)}


# A way out that needs that recipe too, and one that fits only within the estimate's measured error (technical
# review, round 50: an adapter was offered that the form's fp32 recipe refuses; recipes and methods that fitted only
# tightly were not said to).
WITH_SIXTEEN = N_("with the recipe “%(recipe)s” at precision %(precision)s")
TIGHT_NOTE = Phrase(N_("a tight fit"), {})
# A leaner recipe that drops the fp32 master copy, whose small updates bf16 weights can lose (Italian review, round
# 51); one whose optimizer is not PyTorch's Adam or AdamW, which ZeRO refuses unless told (DeepSpeed 0.19.5,
# runtime/engine.py, _do_optimizer_sanity_check, and zero/utils.py, ZERO_SUPPORTED_OPTIMIZERS; the Hugging Face Trainer
# sets the flag itself, integrations/deepspeed.py; Italian review, round 51).
WITHOUT_MASTER = N_("no fp32 master copy: small updates can be lost to bf16's rounding")
# What the way needs, not a condition already met (Italian review, round 65: «con …» read as either).
UNTESTED_UNDER_ZERO = N_(
    'it needs "zero_allow_untested_optimizer": true in the DeepSpeed configuration, which the Hugging Face Trainer '
    "sets itself"
)
# The ZeRO stages that make room, named (technical review, round 50: "a higher stage" read as the next one).
CHOOSE_STAGES = N_("choose %(stages)s")
# Every stage: not a list of three inside the list of ways (technical review, round 54).
CHOOSE_ANY_STAGE = N_("choose ZeRO at any stage")
# Where no one change shrinks a sample that no listed card holds.
SAMPLE_NOTHING_TRIED = N_(
    "combine several of full recomputation, fused attention, shorter sequences, and a sequence split across GPUs, "
    "which this calculator does not check together"
)

# The adapters, each named alone, where a way out combines one with other changes.
TRAIN = {"lora": ADAPT_EXPERTS["full"], "qlora": ADAPT["lora"]}
# QLoRA where its base fits as loaded but not as peft's prepare_model_for_kbit_training leaves it (calc.vram).
QLORA_UNPREPARED = N_("train QLoRA without peft's prepare_model_for_kbit_training")
# Why, in the way's parenthesis (Italian review, round 58: as a relative clause, it ran into the next way).
# The step with them, not the copies alone (Italian review, round 84).
UNPREPARED_WHY = Phrase(N_("with its fp32 copies of the rest of the base, the step would not fit"), {})
# QLoRA in a set of changes, checked as most recipes run it, and said so (technical review, round 45) as a note: it
# was checked with the fp32 copies peft's preparation adds, not the activations it may grow (Spanish review, round 52:
# "with" read as a call to make, and as more than was checked).
QLORA_PREPARED = Phrase(N_("counting the fp32 copies that peft's prepare_model_for_kbit_training adds"), {})
# What the form must say too, for its verdict to be the way's (technical review, round 81: switched to QLoRA alone, the
# form still had no recomputation and the verdict was short).
QLORA_PREPARED_RECOMPUTING = Phrase(
    N_(
        "also choose full recomputation here, which peft's prepare_model_for_kbit_training turns on; counting the "
        "fp32 copies that call adds"
    ),
    {},
)


def prepared_qlora(values: Mapping[str, object]) -> tuple[Phrase, dict[str, object]]:
    """QLoRA as most recipes run it, its base prepared by peft, whose prepare_model_for_kbit_training also turns on
    full recomputation (use_gradient_checkpointing=True by default, peft/utils/other.py at v0.21.2): the note that
    says what the way was checked with, and the change (Spanish review, round 61: 512 tokens were offered, counted
    without the recomputation the call turns on, where 3,072 fitted with it)."""
    if values["recomputation"] == "full":
        return QLORA_PREPARED, {"method": "qlora", "prepared": True}
    return QLORA_PREPARED_RECOMPUTING, {"method": "qlora", "prepared": True, "recomputation": "full"}


ALL_TOGETHER = N_("make all these changes together: %(changes)s")
BOTH_TOGETHER = N_("make both changes together: %(changes)s")
BOTH_TIGHT = N_("make both changes together, which leave only a tight fit: %(changes)s")
ALL_TIGHT = N_("make all these changes together, which leave only a tight fit: %(changes)s")
LISTED_SETS = (ALL_TOGETHER, BOTH_TOGETHER, BOTH_TIGHT, ALL_TIGHT)


def _together(
    values: Mapping[str, object],
    fits: Callable[..., bool],
    adapters: list[str],
    most: int,
    longer: int = 0,
    switches: Mapping[str, dict] = SWITCHES,
) -> tuple[str | Phrase, ...]:
    """Where no one change makes room, the first set of changes that does (Spanish review, round 40: a full fine-tuning
    of 8B parameters on one 24 GB card was offered only a larger GPU, which none listed is): what shrinks the fixed
    part (an adapter, ZeRO-3 on these GPUs or on up to ``most``, or both), with what shrinks a sample (full
    recomputation, fused attention, both, or sequences of a half, a quarter, ... a 64th the length, ``longer`` than
    a length offered alone), fewest first;
    one that fits with room to spare before one that fits tightly (Italian review, round 42: LoRA was offered with
    0.07 GB to spare where QLoRA left 10 GB)."""
    off = [(way, change) for way, change in switches.items() if any(values[k] != v for k, v in change.items())]
    samples: list[tuple[tuple[str | Phrase, ...], dict]] = [((), {})] + [((way,), change) for way, change in off]
    if len(off) == 2:
        samples.append(((off[0][0], off[1][0]), {**off[0][1], **off[1][1]}))
    length = int(values["sequence_length"])
    # As short as a single way goes (technical review, round 72: a set at a 28th of the length was not found), and
    # with every switch the form has off turned on first, which cost no data (Italian review, round 82: sequences cut
    # to 2,432 tokens where full recomputation and fused attention left 35,200).
    switched = tuple(way for way, _ in off), {key: value for _, change in off for key, value in change.items()}
    samples += [
        (
            (*switched[0], Phrase(SHORTEN_TO, {"length": Quantity(Decimal(length // part))})),
            {**switched[1], "sequence_length": length // part},
        )
        for part in (2, 4, 8, 16, 32, 64)
        if length // part >= max(min(SHORTEST_OFFERED, length // 4), 1) and length // part > longer
    ]
    stage, gpus = int(values["zero_stage"]), int(values["gpus"])
    sharding: list[tuple[tuple[str, ...], dict]] = [((), {})]
    if gpus > 1 and stage < 3:
        sharding.append(((ZERO_3,), {"zero_stage": 3}))
    if most > gpus:
        words = SEVERAL_GPUS_ZERO_3 if gpus == 1 else ZERO_3_MORE_GPUS if stage < 3 else MORE_GPUS
        sharding.append(((words,), {"zero_stage": 3, "gpus": most}))
    # QLoRA as most recipes run it, its base prepared by peft; an adapter in mixed precision, where the set needs it,
    # says so (technical review, round 51: "train LoRA" fitted only with a recipe it did not name).
    note, qlora = prepared_qlora(values)
    mixed = sixteen(values)
    methods: list[tuple[tuple[str | Phrase, ...], dict]] = [((), {})] + [
        (
            (with_sixteen(noted(TRAIN["qlora"], note) if method == "qlora" else TRAIN[method], values, change),),
            change,
        )
        for method in adapters
        for base in (qlora if method == "qlora" else {"method": method},)
        for change in (base, {**base, **mixed})
    ]

    # Not the recomputation peft's preparation already turns on: a set that only adds it is none, and a set that adds
    # more does not name it.
    def beside(method: dict, sample: tuple[tuple[str | Phrase, ...], dict]) -> tuple[str | Phrase, ...] | None:
        if "recomputation" not in method or "recomputation" not in sample[1]:
            return sample[0]
        rest = tuple(way for way in sample[0] if way != RECOMPUTE)
        return rest or None

    candidates = [
        (
            (*_shared(method, shard, values), *words),
            {**method[1], **shard[1], **sample[1]},
        )
        for method in methods
        for shard in sharding
        for sample in samples
        if (words := beside(method[1], sample)) is not None
    ]

    # The fewest changes first: the pairs, then the threes; an adapter before sharding over many GPUs. The switches
    # that come with shorter sequences count only among sets of as many other changes: they are there so that the
    # length is cut no further.
    def cost(candidate: tuple[tuple[str | Phrase, ...], dict]) -> tuple[int, bool, int]:
        words, change = candidate
        bundled = sum(way in tuple(SWITCHES) for way in words) if "sequence_length" in change else 0
        return len(words) - bundled, "zero_stage" in change, bundled

    # Single changes too: the ways for a sample no card holds have not asked them (changes_together), and one may be
    # more than one setting, as QLoRA with the recomputation peft's preparation turns on (Spanish review, round 61);
    # elsewhere most were asked already, and fits_once answers them again without a step.
    ordered = [candidate for candidate in sorted(candidates, key=cost) if candidate[0]]
    shortest = min((change["sequence_length"] for _, change in samples if "sequence_length" in change), default=None)

    def sets_fit(change: dict, roomy: bool) -> bool:
        # A set whose shortest length leaves no room leaves none at a longer one: asked once for all its lengths.
        if change.get("sequence_length", shortest) != shortest:
            if not fits(**{**change, "sequence_length": shortest}, comfortable=roomy):
                return False
        return fits(**change, comfortable=roomy)

    for roomy in (True, False):
        found = next(((words, change) for words, change in ordered if sets_fit(change, roomy)), None)
        if found:
            words, change = _longest_in(found, values, fits, roomy)
            words = _gpus_in_set(words, change, values, fits, roomy)
            # A set that fits only within the estimate's error says so, after its last change (Italian review, round
            # 52).
            return words if roomy else (*words[:-1], noted(words[-1], TIGHT_NOTE))
    return ()


# The ways of a set that add GPUs, which it was judged with on as many as the target batch has samples.
ADDING_GPUS = (SEVERAL_GPUS_ZERO_3, ZERO_3_MORE_GPUS, MORE_GPUS)
# Where the set fits only tightly, the fewest GPUs on which it does so, without "room to spare".
FROM_GPUS = N_("from %(count)s\u00a0GPUs")
AT_TARGET = N_("only on %(count)s\u00a0GPUs, with one sample on each")


def _gpus_in_set(
    words: tuple, change: dict, values: Mapping[str, object], fits: Callable[..., bool], roomy: bool
) -> tuple:
    """A set's words, its way to more GPUs with the fewest on which the set, as worded, fits as it was found to (with
    room to spare where ``roomy``), as a way to more GPUs alone says (technical review, round 88: "train on several
    GPUs" was judged on 32, where 2 to 28 did not do)."""
    gpus = int(values["gpus"])
    if int(change.get("gpus", gpus)) <= gpus:
        return words
    count = crossing(gpus, int(change["gpus"]), lambda each: fits(**{**change, "gpus": each}, comfortable=roomy))
    at_target = count >= int(values["target_batch"])
    said = ((FROM_GPUS, AT_TARGET), (ROOM_FROM, ROOM_AT_TARGET))[roomy][at_target]
    note = Phrase(said, {"count": Quantity(Decimal(count))})
    return tuple(noted(way, note) if _bare(way) in ADDING_GPUS else way for way in words)


def _bare(way: str | Phrase) -> str:
    """A way's message id, without its notes."""
    bare = _bare_way(way)
    return bare.message if isinstance(bare, Phrase) else bare


def _longest_in(
    found: tuple[tuple, dict], values: Mapping[str, object], fits: Callable[..., bool], roomy: bool
) -> tuple:
    """A set's words and change, its shorter sequences the longest that fit with its other changes, to 128 tokens,
    rather than the half, quarter or eighth the set was found at (Italian review, round 53: 4,096 tokens where 6,144
    fitted); without a switch that came with them where the sequences are no shorter without it."""
    words, change = found
    if "sequence_length" not in change:
        return words, change
    length = int(values["sequence_length"])

    def longest(change: dict) -> int:
        """The longest length that fits with ``change``, 0 where none does."""
        rest = {name: value for name, value in change.items() if name != "sequence_length"}
        return longest_length(length, lambda each: fits(**rest, sequence_length=each, comfortable=roomy)) or 0

    # The set was found at its length, so it fits there at least.
    best = longest(change) or change["sequence_length"]
    for switch, settings in SWITCHES.items():
        if switch in words and longest(without := {**change, **{key: values[key] for key in settings}}) >= best:
            words, change = tuple(way for way in words if way != switch), without
    shorter = Phrase(SHORTEN_TO, {"length": Quantity(Decimal(best))})
    words = tuple(shorter if isinstance(way, Phrase) and way.message == SHORTEN_TO else way for way in words)
    return words, {**change, "sequence_length": best}


def _shared(method: tuple[tuple, dict], shard: tuple[tuple, dict], values: Mapping[str, object]) -> tuple:
    """A set's change of method and of sharding, with QLoRA's setting for ZeRO-3 said once where the set leads to
    both: beside QLoRA where the set chooses it, else beside the sharding."""
    change = {**method[1], **shard[1]}
    if method[0]:
        return (*(for_qlora(way, values, **change) for way in method[0]), *shard[0])
    # In full fine-tuning, with the recipe ZeRO runs, as the same way alone says (technical review, round 90).
    return tuple(as_twin(for_qlora(way, values, **change), values) for way in shard[0])


# The shortest sequence offered as a way out, unless the form's own is short: a quarter of it then.
SHORTEST_OFFERED = 256


def longest_length(length: int, fits: Callable[[int], bool | Fraction | None], step: int = 128) -> int | None:
    """The longest sequence, below ``length``, that ``fits`` (or leaves room, as :func:`crossing` reads it): a half, a
    quarter, ... of it, the first that does, then the longest multiple of ``step`` between that and the one before
    (technical review, round 45: the length was not named; Italian review, round 46: a half where three quarters fit).
    None where not even a 64th of it fits.

    >>> longest_length(4096, lambda length: length <= 3000)
    2944
    >>> longest_length(4096, lambda length: length <= 100), longest_length(4096, lambda length: False)
    (64, None)
    >>> longest_length(3800, lambda length: length <= 3712)  # the multiple below a length that is not one
    3712
    """

    halves = [length // 2**k for k in range(1, 7) if length // 2**k >= 1]
    found = next((index for index, each in enumerate(halves) if has_room(fits(each))), None)
    if found is None:
        return None
    # The length above is known not to fit: every multiple of ``step`` below it may.
    low, high = halves[found] // step, -(-(halves[found - 1] if found else length) // step)
    if high - low <= 1:
        return halves[found]
    # The multiples as such: the room left at the one above and the half that fits, where the page says how much.
    ends = {low: halves[found], high: halves[found - 1] if found else length}
    fitting = crossing(high, low, lambda multiple: fits(ends.get(multiple, multiple * step)))
    return max(halves[found], fitting * step)


def crossing(short: int, fits: int, left: Callable[[int], bool | Fraction | None], reciprocal: bool = False) -> int:
    """Of the whole numbers from ``short``, which leaves no room, to ``fits``, which does, the first with room, room
    growing from the one to the other. ``left`` says whether a number leaves room, or how much (negative where none,
    None where the page refuses it). Where it says how much at both ends, the next number tried is where the room
    would run out were it linear in the number, or in its ``reciprocal`` (what ZeRO shards over that many GPUs), each
    end's room halved where the other end moved twice running (the Illinois rule), so that few are tried; else the
    one halfway.

    >>> crossing(1, 64, lambda gpus: gpus >= 24)
    24
    >>> crossing(1, 64, lambda gpus: Fraction(100) - Fraction(2300, gpus), reciprocal=True)
    23
    >>> crossing(43, 21, lambda multiple: Fraction(30 - multiple))  # the shorter, the more room
    30
    """
    ends = {False: left(short), True: left(fits)}
    aim = all(isinstance(room, Fraction) for room in ends.values()) and ends[False] < 0 <= ends[True]
    moved = None  # the end the last number tried replaced
    while abs(fits - short) > 1:
        count = (short + fits) // 2
        if aim:
            share = -ends[False] / (ends[True] - ends[False])
            if reciprocal:
                at = 1 / (Fraction(1, short) + (Fraction(1, fits) - Fraction(1, short)) * share)
            else:
                at = short + (fits - short) * share
            low, high = sorted((short, fits))
            count = min(max(math.ceil(at) if fits > short else math.floor(at), low + 1), high - 1)
        room = left(count)
        side = has_room(room)
        fits, short = (count, short) if side else (fits, count)
        aim = aim and isinstance(room, Fraction)
        if aim:
            ends[side] = room
            if moved == side:
                ends[not side] /= 2
            moved = side
    return fits


def accumulates(values: Mapping[str, object], micro_batch: int) -> bool:
    """Whether micro-batches of this size reach the target batch, or the nearest the GPUs share evenly, only by
    accumulating several per step: a step of no samples, the fixed part alone, is counted as one that does."""
    return not micro_batch or steps_reaching(int(values["target_batch"]), int(values["gpus"]), micro_batch) > 1


# The decimals the figures handed to the planner may have: the two the pages show, or more where two would lose the
# largest micro-batch (a sample of a few megabytes); never three, which a field would read as a thousands separator
# and ask which was meant; at most the planner's fields' six.
CARRIED_PLACES = (2, 4, 5, 6)


def carried(left: Fraction, per_sample: Fraction, count: int) -> tuple[Decimal, Decimal, int]:
    """What the planner is handed, in GB, and the largest micro-batch it then plans: ``left`` rounded down, so that
    the budget never promises a byte your GPU lacks; ``per_sample`` rounded up, so that a sample never needs more than
    the figure says; in the fewest decimals in which the planner's largest micro-batch, budget // per sample, is
    ``count``, this page's, the budget in the fewest that keep it so beside the sample's. Where six decimals are too
    few for that (less than a kilobyte to spare per sample), the largest micro-batch is the one the figures allow: it
    fits, and the plan is this page's.

    >>> carried(Fraction(2344, 100), Fraction(2412, 10**4), 97)  # 23.44 // 0.25 would be 93
    (Decimal('23.44'), Decimal('0.2412'), 97)
    >>> carried(Fraction(819, 100), Fraction(18, 10**4) + Fraction(1, 10**10), 4549)  # 0.001801 GB: 4547 fit
    (Decimal('8.19'), Decimal('0.001801'), 4547)
    """
    for places in CARRIED_PLACES:
        budget, sample = rounded_down(left, places), rounded_up(per_sample, places)
        if budget // sample == count:
            break
    count = min(count, int(budget // sample))
    # The budget's own decimals: the fewest in which the planner still plans this count (never more than the sample's).
    budget = next(shorter for shorter in (rounded_down(left, p) for p in CARRIED_PLACES) if shorter // sample == count)
    return budget, sample, count


def places_of(value: Decimal) -> int:
    """The decimals ``value`` was rounded to (:func:`carried`), to show it with them, at least two and no trailing zero
    beyond them (8.19 GB, not 8.190000 GB)."""
    return max(2, -int(value.normalize().as_tuple().exponent))
