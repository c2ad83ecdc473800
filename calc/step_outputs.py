"""How a page words a step's peak: its parts and the moment that holds it (:mod:`calc.formulas.step`)."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from calc.formulas.activations import FAMILIES
from calc.gpus import GPUS_BY_ID
from calc.i18n import N_
from calc.models import ModelShape
from calc.outputs import Citation, Names, Phrase, Quantity, gigabytes
from calc.transformers_releases import EXPERTS_AS_LINEAR_UNTIL, EXPERTS_AS_PARAMETERS_SINCE, SDPA_REFUSED_SINCE

PART_LABELS = {
    "weights": N_("Weights"),
    "gradients": N_("Gradients"),
    "optimizer_state": N_("Optimizer state"),
    "weight_copies": N_("Autocast's 16-bit copies of the weights"),
    "activations": N_("Activations saved for the backward pass"),
    "recomputation": N_("Recomputed activations"),
    # What the loss holds as the backward pass starts, the moment it peaks at but under autocast (LOSS_LABELS).
    "loss": N_("Loss gradients (fp32, of the log-probabilities and the logits)"),
    "backward_temporaries": N_("Gradients flowing through the backward pass"),
    "optimizer_temporaries": N_("Optimizer step's temporaries"),
}

# Where in the step each moment of calc.formulas.step.MOMENTS falls, to end a sentence that names it.
MOMENT_WORDS = {
    "forward": N_("at the end of the forward pass, while the loss is computed"),
    "loss": N_("as the backward pass starts, with the gradients of the logits"),
    "last layer's MLP": N_("in the last layer's backward pass, at its MLP"),
    "last layer's norm": N_("in the last layer's backward pass, at its second norm"),
    "last layer's attention": N_("in the last layer's backward pass, at its attention core"),
    "first layer's MLP": N_("in the first layer's backward pass, at its MLP"),
    "first layer's norm": N_("in the first layer's backward pass, at its second norm"),
    "first layer's attention": N_("in the first layer's backward pass, at its attention core"),
    "embeddings": N_("as the backward pass ends, once every gradient exists"),
    "optimizer": N_("during the optimizer step"),
}


# The loss part holds tensors at two moments only (calc.formulas.step.moments), each its own: as the loss is
# computed, the logits, their float32 copy and, under autocast (the only recipes whose step peaks there,
# tests/test_vram.py), the decoder's float32 output; as the backward pass starts, the two float32 gradients. The
# float32 log-probabilities are kept for the loss's backward, so they sit in "activations".
LOSS_LABELS = {
    "forward": N_("Loss tensors (the logits, their fp32 copy, the decoder's output)"),
    "loss": PART_LABELS["loss"],
}


def labels_at(moment: str, labels: dict[str, str] = PART_LABELS) -> dict[str, str]:
    """``labels`` with the loss's as it is at ``moment`` (where the loss part holds nothing, either will do)."""
    return {**labels, "loss": LOSS_LABELS.get(moment, labels["loss"])}


def moment_phrase(sentence: str, moment: str) -> Phrase:
    """``sentence`` (a message id with a ``%(moment)s``) naming where in the step ``moment`` falls."""
    return Phrase(sentence, {"moment": Phrase(MOMENT_WORDS[moment], {})})


def part_rows(
    parts: dict[str, Fraction], labels: dict[str, str] = PART_LABELS, places: int = 2
) -> list[tuple[str, Quantity]]:
    """The parts that hold any memory, labelled, in gigabytes: a breakdown's rows or a bar's segments."""
    return [(labels[part], gigabytes(size, places)) for part, size in parts.items() if size]


# The architectures whose attention caps its scores with a tanh and which transformers will not run with SDPA
# (calc.models.ActivationHabits). In transformers 5.24, Gemma2PreTrainedModel has _supports_sdpa = False ("sdpa does
# not support softcapping"): attn_implementation="sdpa" raises a ValueError (PreTrainedModel._sdpa_can_dispatch),
# and with none asked for the model loads with eager attention (get_correct_attn_implementation falls back to it);
# _supports_flash_attn and _supports_flex_attn are True. The fused estimate has been measured with SDPA only.
SOFTCAPPED_ATTENTION = frozenset(name for name, habits in FAMILIES.items() if not habits.sdpa)
NO_SDPA = Phrase(
    N_(
        "Since transformers %(since)s, this model cannot be loaded with SDPA, which cannot soft-cap the attention "
        "scores as the model does: asking for SDPA raises an error, and with no attention implementation asked "
        "for, the model loads with eager attention. Earlier releases accept SDPA and leave the scores uncapped. The "
        "model accepts FlashAttention and FlexAttention. The fused estimate stands for FlashAttention, which has not "
        "been measured on this model."
    ),
    {"since": Names((SDPA_REFUSED_SINCE,))},
)
# Axolotl's option that quantizes any 3-D expert parameter to NF4 after loading, which its documentation calls
# required for QLoRA on a mixture: the LoRA page's prose and the VRAM page's limitations cite it.
EXPERT_QUANTIZATION = Citation(
    "Axolotl: MoE expert quantization", "https://docs.axolotl.ai/docs/expert_quantization.html"
)
# FlashAttention 2, what transformers runs for attn_implementation="flash_attention_2", runs on Ampere cards and later
# (the cards calc.gpus marks with bf16); the notes name its version, since FlashAttention 1 ran on Turing (Spanish
# review, round 35).
FLASH_2 = Names(("FlashAttention 2",))
# On an older card such a model has eager attention to run with (Spanish review, round 22).
NO_SDPA_OLDER = Phrase(
    N_("%(note)s %(flash)s does not run on a card older than Ampere, such as this one: choose eager attention."),
    {"note": NO_SDPA, "flash": FLASH_2},
)


# Where the model shares its key and value heads (grouped-query attention), transformers 5.24 asks SDPA to share them
# too (integrations/sdpa_attention.py, use_gqa_in_sdpa: enable_gqa on CUDA without a mask). PyTorch's memory-efficient
# backend does not take enable_gqa and its flash backend needs fp16 or bf16 on an Ampere card or later (the cards
# calc.gpus marks with bf16), so in fp32, or on an older card, the call may fall to the math backend, which keeps the
# attention probabilities as eager attention does. Not measured: the measurements ran on the CPU.
GQA_MATH = Phrase(
    N_(
        "This model has fewer key and value heads than query heads, and, when Transformers passes SDPA no mask, it "
        "asks SDPA to share them (enable_gqa). In fp32, or on a card older than Ampere, PyTorch may serve that call "
        "only with its math backend, which keeps the attention probabilities as eager attention does. The fused "
        "estimate leaves them out: choose eager attention to count them."
    ),
    {},
)


# FlashAttention needs an Ampere card or later, the fused choice's other kernel on such a card: where the card is older,
# the note says so, so that attn_implementation="flash_attention_2" is not pasted for it (technical review, round 32).
FLASH_OLDER = Phrase(
    N_(
        "%(flash)s does not run on a card older than Ampere, such as this one; there the fused estimate stands for "
        "SDPA."
    ),
    {"flash": FLASH_2},
)
FLASH_OLDER_GQA = N_("%(flash)s does not run on a card older than Ampere, such as this one. %(note)s")


def grouped_unfused(values: Mapping[str, object], shape: ModelShape) -> bool:
    """Whether fused attention may run as PyTorch's math backend for this model (GQA_MATH): its key and value heads
    shared, in fp32 or on a listed card without bf16, so that the fused estimate leaves out what the kernel keeps."""
    gpu = GPUS_BY_ID.get(values.get("gpu"))
    before_ampere = gpu is not None and not gpu.bf16
    return (values["precision"] == "fp32" or before_ampere) and shape.kv_heads < shape.attention_heads


def attention_note(values: Mapping[str, object], shape: ModelShape) -> Phrase | None:
    """What the fused estimate stands for where transformers refuses SDPA for the model, or where PyTorch may run its
    grouped-query call unfused (in fp32, or on a listed card without bf16); None otherwise."""
    if values["attention"] != "flash":
        return None
    gpu = GPUS_BY_ID.get(values.get("gpu"))
    before_ampere = gpu is not None and not gpu.bf16
    if shape.model_type in SOFTCAPPED_ATTENTION:
        return NO_SDPA_OLDER if before_ampere else NO_SDPA
    grouped = GQA_MATH if grouped_unfused(values, shape) else None
    if before_ampere:
        return Phrase(FLASH_OLDER_GQA, {"note": grouped, "flash": FLASH_2}) if grouped else FLASH_OLDER
    return grouped


# The fused estimate's queries, keys and values are those of a causal kernel (calc.formulas.activations): under SDPA,
# transformers 5.24 lets the kernel mask causally by itself (masking_utils._ignore_causal_mask_sdpa: kv_length <
# local_attention_size) only while the sequence is shorter than the sliding window; from a sequence as long, even where
# the window then masks nothing more, create_sliding_window_causal_mask builds the mask (local_size), and
# sdpa_attention_forward, given a mask, repeats the keys and values for every query head (use_gqa_in_sdpa; repeat_kv,
# a no-op where there are as many). Eager attention keeps those anyway, and counts its masks; and where transformers
# refuses SDPA (Gemma-2), NO_SDPA says what the fused estimate stands for. templates/caveats.html words it for the page.
WINDOW = N_(
    "In the layers with a sliding window, each token attends to at most the last %(window)s\u00a0tokens, and a "
    "sequence here holds %(length)s. Under SDPA, once a sequence is as long as the window, Transformers passes SDPA a "
    "mask, and, since this model has fewer key and value heads than query heads, repeats the keys and values for "
    "every query head (repeat_kv). The estimate counts neither the mask nor those copies, so the peak may be higher. "
    "FlashAttention applies the window inside its kernel and needs neither."
)
# The same without the copies, for a model with as many key and value heads as query heads (repeat_kv a no-op).
WINDOW_ALL_HEADS = N_(
    "In the layers with a sliding window, each token attends to at most the last %(window)s\u00a0tokens, and a "
    "sequence here holds %(length)s. Under SDPA, once a sequence is as long as the window, Transformers passes SDPA a "
    "mask, which the estimate does not count, so the peak may be higher. FlashAttention applies the window inside "
    "its kernel and needs no mask."
)


def window_note(values: Mapping[str, object], shape: ModelShape) -> Phrase | None:
    """The fused estimate's caveat where the model may run with SDPA and its sliding window is no longer than the
    sequence, or None.

    >>> from calc.models import PRESETS
    >>> gemma = PRESETS["google/gemma-3-1b-pt"]
    >>> window_note({"attention": "flash", "sequence_length": 4096}, gemma).quantities["window"].value
    512
    >>> window_note({"attention": "flash", "sequence_length": 511}, gemma) is None
    True
    """
    length = int(values["sequence_length"])
    if (
        values["attention"] != "flash"
        or shape.model_type in SOFTCAPPED_ATTENTION
        or shape.sliding_window is None
        or shape.sliding_window > length
    ):
        return None
    words = WINDOW if shape.kv_heads < shape.attention_heads else WINDOW_ALL_HEADS
    return Phrase(words, {"window": Quantity(shape.sliding_window), "length": Quantity(length)})


# How the step's QLoRA loads its base (the QLoRA paper's setting), and peft's preparation that most recipes add, which
# the step leaves out (calc.formulas.parameters.qlora_preparation): what the LoRA and VRAM pages quote.
QLORA_CONFIG = (
    'BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", '
    "bnb_4bit_use_double_quant=True, bnb_4bit_compute_dtype=torch.bfloat16)"
)
PREPARE_SOURCE = Citation(
    "prepare_model_for_kbit_training",
    "https://github.com/huggingface/peft/blob/v0.21.2/src/peft/utils/other.py#L158",
)


# bitsandbytes replaces only nn.Linear modules (calc.formulas.parameters.quantized_weights); transformers 5 keeps a
# mixture's experts as 3-D parameters, which stay in 16 bits, and peft's preparation casts them to fp32 with the rest.
# Axolotl's quantize_moe_experts quantizes them after loading (the LoRA page cites its documentation): not modeled.
QLORA_EXPERTS = N_(
    "In a mixture of experts, only the attention projections are loaded in NF4. The experts stay in 16\u00a0bits: "
    "Transformers has kept them as plain three-dimensional parameters since %(since)s, and its bitsandbytes "
    "integration quantizes only nn.Linear modules (up to transformers %(until)s, each expert was made of nn.Linear "
    "layers, quantized with the rest). "
    "Axolotl's quantize_moe_experts: true quantizes the experts to NF4 as well; this calculator does not model that "
    "option, with which the experts take about a quarter of what is counted here."
)


def experts_in_16_bits(shape: ModelShape) -> Phrase | None:
    """For a mixture of experts, why QLoRA leaves its experts in 16 bits: said wherever a page counts a QLoRA base
    (Italian review, round 69: the LoRA page's QLoRA row for Mixtral saved 2 GB with no word of why)."""
    if not shape.experts:
        return None
    since, until = Names((EXPERTS_AS_PARAMETERS_SINCE.text,)), Names((EXPERTS_AS_LINEAR_UNTIL,))
    return Phrase(QLORA_EXPERTS, {"since": since, "until": until})
