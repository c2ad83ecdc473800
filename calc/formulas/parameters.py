"""Parameter counts: the base model's, a LoRA adapter's, and the bytes each takes.

All counts are exact integers and every byte count is exact: a value that is
not whole is a :class:`~decimal.Decimal` made from an exact fraction, never
a float. ``make validate`` checks the counts against transformers' and peft's
own (``validation/parameters.json``); ``tests/test_lora_counts.py`` holds
this module to them.

The shapes are decoder-only transformers (:class:`calc.models.ModelShape`):
token embeddings, then per layer an attention block (q, k, v, o projections,
or Phi-3's fused qkv_proj) and an MLP (gate, up, down projections, or Phi-3's
fused gate_up_proj; or a mixture of experts with its router) with their
RMSNorms, a final RMSNorm and the output projection ``lm_head``.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from fractions import Fraction

from calc.formulas.model_states import ADAMW, RECIPES
from calc.models import ModelShape

# Every name a LoRA adapter may target in these models, in the order a page lists them: the module names
# peft's LoraConfig(target_modules=[...]) matches, then the experts' 3-D parameters, which peft adapts
# through LoraConfig(target_parameters=[...]) (peft 0.21: peft/tuners/lora/layer.py, ParamWrapper).
TARGET_MODULES = (
    "q_proj",
    "k_proj",
    "v_proj",
    "qkv_proj",
    "o_proj",
    "gate_proj",
    "up_proj",
    "gate_up_proj",
    "down_proj",
    "experts.gate_up_proj",
    "experts.down_proj",
)

# Bytes per base-model parameter held in bfloat16 or float16, and in float32.
HALF_PRECISION_BYTES = 2
SINGLE_PRECISION_BYTES = 4

# QLoRA's NormalFloat4 with double quantization (Dettmers et al. 2023, "QLoRA",
# §3, Double Quantization): each weight is 4 bits; each block of 64 weights
# has an absmax constant, itself quantized to 8 bits; each block of 256 of
# those has a 32-bit float constant.
NF4_BITS_PER_WEIGHT = Fraction(4) + Fraction(8, 64) + Fraction(32, 64 * 256)  # 4.127 bits (2113/512)
NF4_BYTES_PER_WEIGHT = NF4_BITS_PER_WEIGHT / 8  # 0.515869140625 bytes (2113/4096)

# Training the adapter with Adam keeps, per trainable parameter, its float32 weight and gradient and Adam's two
# moments (calc.formulas.model_states.ADAMW, which the step's AdamW adapter reads too).
ADAPTER_TRAINING_BYTES_PER_PARAMETER = int(ADAMW.adapter.total)
# An adapter cast to bf16 with no fp32 copy (Lightning's "bf16-true"): AdamW's weight, gradient and moments all in
# bf16, as the recipe "adamw-bf16" keeps a full model's. Not modeled: the pages quote it.
BF16_ADAPTER_TRAINING_BYTES_PER_PARAMETER = int(RECIPES["adamw-bf16"].states.total)


def linear_shapes(shape: ModelShape) -> dict[str, tuple[int, int]]:
    """``(in_features, out_features)`` of each ``nn.Linear`` in one decoder layer.

    >>> from calc.models import PRESETS
    >>> projections = linear_shapes(PRESETS["meta-llama/Llama-3.1-8B"])
    >>> projections["q_proj"], projections["k_proj"], projections["o_proj"], projections["down_proj"]
    ((4096, 4096), (4096, 1024), (4096, 4096), (14336, 4096))
    >>> linear_shapes(PRESETS["microsoft/Phi-3-mini-4k-instruct"])
    {'qkv_proj': (3072, 9216), 'o_proj': (3072, 3072), 'gate_up_proj': (3072, 16384), 'down_proj': (8192, 3072)}
    >>> list(linear_shapes(PRESETS["mistralai/Mixtral-8x7B-v0.1"]))
    ['q_proj', 'k_proj', 'v_proj', 'o_proj']
    """
    # Widths as transformers' LlamaAttention and LlamaMLP (models/llama/modeling_llama.py) and their
    # Mistral, Qwen2, Qwen3, Gemma-2 and MoE counterparts build them.
    queries = shape.attention_heads * shape.head_dim  # q_proj: hidden → heads·head_dim
    keys_values = shape.kv_heads * shape.head_dim  # k_proj, v_proj: fewer heads (GQA, Ainslie et al. 2023, §2.2)
    if shape.fused_projections:
        # Phi3Attention.qkv_proj: hidden → heads·head_dim + 2·kv_heads·head_dim (models/phi3/modeling_phi3.py)
        attention = {"qkv_proj": (shape.hidden_size, queries + 2 * keys_values)}
    else:
        attention = {
            "q_proj": (shape.hidden_size, queries),
            "k_proj": (shape.hidden_size, keys_values),
            "v_proj": (shape.hidden_size, keys_values),
        }
    attention["o_proj"] = (queries, shape.hidden_size)  # o_proj: heads·head_dim → hidden
    if shape.experts:
        return attention  # the experts are 3-D parameters and the router no nn.Linear: expert_shapes
    if shape.fused_projections:
        # Phi3MLP.gate_up_proj: hidden → 2·intermediate, gate and up side by side
        mlp = {"gate_up_proj": (shape.hidden_size, 2 * shape.intermediate_size)}
    else:
        mlp = {
            "gate_proj": (shape.hidden_size, shape.intermediate_size),  # gated MLP (Shazeer 2020, "GLU Variants", §2)
            "up_proj": (shape.hidden_size, shape.intermediate_size),
        }
    mlp["down_proj"] = (shape.intermediate_size, shape.hidden_size)
    return attention | mlp


def expert_shapes(shape: ModelShape) -> dict[str, tuple[int, int, int]]:
    """``(experts, in_features, out_features)`` of each 3-D expert parameter in one decoder layer.

    transformers 5 stores a layer's experts as two ``nn.Parameter`` of
    ``(experts, 2·width, hidden)`` and ``(experts, hidden, width)``
    (models/mixtral/modeling_mixtral.py, MixtralExperts; models/qwen3_moe/modeling_qwen3_moe.py,
    Qwen3MoeExperts). A dense model has none.

    >>> from calc.models import PRESETS
    >>> expert_shapes(PRESETS["Qwen/Qwen3-30B-A3B"])
    {'experts.gate_up_proj': (128, 2048, 1536), 'experts.down_proj': (128, 768, 2048)}
    """
    if not shape.experts:
        return {}
    width = shape.expert_intermediate_size
    return {
        "experts.gate_up_proj": (shape.experts, shape.hidden_size, 2 * width),
        "experts.down_proj": (shape.experts, width, shape.hidden_size),
    }


def target_modules(shape: ModelShape) -> tuple[str, ...]:
    """The names a LoRA adapter can target in this model, in ``TARGET_MODULES``' order.

    >>> from calc.models import PRESETS
    >>> target_modules(PRESETS["microsoft/Phi-3-mini-4k-instruct"])
    ('qkv_proj', 'o_proj', 'gate_up_proj', 'down_proj')
    """
    names = linear_shapes(shape).keys() | expert_shapes(shape).keys()
    return tuple(name for name in TARGET_MODULES if name in names)


def has_bias(shape: ModelShape, module: str) -> bool:
    if module in ("q_proj", "k_proj", "v_proj"):
        return shape.qkv_bias
    if module == "o_proj":
        return shape.o_bias
    return shape.mlp_bias


def quantized_weights(shape: ModelShape) -> int:
    """The weights of every decoder layer's ``nn.Linear`` projections: what 4-bit loading quantizes.

    transformers replaces each ``nn.Linear`` by bitsandbytes' ``Linear4bit``
    except the output embeddings and any tied weight
    (transformers/integrations/bitsandbytes.py, replace_with_bnb_linear:
    ``type(module) is nn.Linear``; transformers/quantizers/base.py,
    get_keys_to_not_convert). Embeddings and norms are no ``nn.Linear``, nor
    are a mixture's router and its experts' 3-D parameters, which stay in
    16 bits; a ``Linear4bit`` keeps its bias unquantized.

    >>> from calc.models import PRESETS
    >>> quantized_weights(PRESETS["meta-llama/Llama-2-7b-hf"])
    6476005376
    """
    return shape.layers * sum(d_in * d_out for d_in, d_out in linear_shapes(shape).values())


def _expert_weights(shape: ModelShape) -> int:
    """One layer's experts, all of them."""
    return sum(experts * d_in * d_out for experts, d_in, d_out in expert_shapes(shape).values())


def base_parameters(shape: ModelShape) -> int:
    """Every parameter of the model, as ``sum(p.numel() for p in model.parameters())`` counts them.

    A tied ``lm_head`` is the embedding matrix itself, so it is counted once.

    >>> from calc.models import PRESETS
    >>> base_parameters(PRESETS["meta-llama/Llama-2-7b-hf"])
    6738415616
    >>> base_parameters(PRESETS["google/gemma-2-9b"])
    9241705984
    >>> base_parameters(PRESETS["mistralai/Mixtral-8x7B-v0.1"])
    46702792704
    """
    projections = linear_shapes(shape)
    embeddings = shape.vocab_size * shape.hidden_size  # embed_tokens = nn.Embedding(vocab, hidden)
    biases = sum(d_out for name, (_, d_out) in projections.items() if has_bias(shape, name))  # a bias per output
    norms = shape.norms_per_layer * shape.hidden_size  # LlamaRMSNorm, Gemma2RMSNorm: a weight of hidden, no bias
    # Qwen3Attention's q_norm and k_norm: RMSNorm(head_dim) each, shared by the heads (models/qwen3/modeling_qwen3.py)
    head_norms = 2 * shape.head_dim if shape.qk_norm else 0
    # MixtralTopKRouter, Qwen3MoeTopKRouter: one nn.Parameter(experts, hidden), no bias
    router = shape.experts * shape.hidden_size
    final_norm = shape.hidden_size  # model.norm, after the last layer
    lm_head = 0 if shape.tie_word_embeddings else shape.vocab_size * shape.hidden_size  # nn.Linear(hidden, vocab)
    per_layer = biases + norms + head_norms + router + _expert_weights(shape)
    return embeddings + quantized_weights(shape) + shape.layers * per_layer + final_norm + lm_head


def active_parameters(shape: ModelShape) -> int:
    """The parameters one token's forward pass uses: all but the experts the router leaves out.

    Each token runs ``experts_per_token`` of each layer's experts (the
    routers' top-k, MixtralTopKRouter and Qwen3MoeTopKRouter); the router,
    attention, norms and embeddings run for every token. A dense model uses
    all of its parameters.

    >>> from calc.models import PRESETS
    >>> active_parameters(PRESETS["mistralai/Mixtral-8x7B-v0.1"])
    12879925248
    """
    if not shape.experts:
        return base_parameters(shape)
    unused = shape.experts - shape.experts_per_token
    return base_parameters(shape) - shape.layers * _expert_weights(shape) // shape.experts * unused


def lora_parameters(shape: ModelShape, rank: int, targets: Iterable[str]) -> int:
    """The adapter's trainable parameters: ``r · (d_in + d_out)`` per adapted projection per layer.

    LoRA adds ``B·A`` to a frozen ``d_out × d_in`` weight, with ``A`` of
    ``r × d_in`` and ``B`` of ``d_out × r`` (Hu et al. 2021, "LoRA", §4.1);
    peft builds them as ``lora_A = nn.Linear(d_in, r, bias=False)`` and
    ``lora_B = nn.Linear(r, d_out, bias=False)`` (peft/tuners/lora/layer.py,
    LoraLayer.update_layer; ``lora_bias`` is off by default). With
    ``bias="none"``, peft's default, no base bias is trained. An experts'
    3-D parameter gets one ``A`` of ``experts·r × d_in`` and one ``B`` of
    ``d_out × experts·r`` (peft/tuners/lora/layer.py, ParamWrapper.update_layer):
    ``experts · r · (d_in + d_out)``.

    >>> from calc.models import PRESETS
    >>> lora_parameters(PRESETS["meta-llama/Llama-2-7b-hf"], 8, ["q_proj", "v_proj"])
    4194304
    >>> lora_parameters(PRESETS["meta-llama/Llama-3.1-8B"], 16, ["q_proj", "k_proj", "v_proj", "o_proj",
    ...                                                           "gate_proj", "up_proj", "down_proj"])
    41943040
    >>> lora_parameters(PRESETS["microsoft/Phi-3-mini-4k-instruct"], 8, ["q_proj"])
    Traceback (most recent call last):
    ...
    ValueError: not in this model: q_proj
    """
    if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
        raise ValueError(f"the rank must be a whole number of at least 1, not {rank!r}")
    # A set, as peft matches module names: naming one twice adapts it once.
    names = frozenset(targets)
    if not names:
        raise ValueError("no target modules")
    unknown = names.difference(target_modules(shape))
    if unknown:
        raise ValueError(f"not in this model: {', '.join(sorted(unknown))}")
    widths = {name: (1, d_in, d_out) for name, (d_in, d_out) in linear_shapes(shape).items()} | expert_shapes(shape)
    per_layer = sum(widths[name][0] * rank * (widths[name][1] + widths[name][2]) for name in names)
    return shape.layers * per_layer


def adapter_bytes(parameters: int, bits: int) -> int:
    """The adapter's size on disk or in memory with ``bits`` per parameter (16 or 32).

    >>> adapter_bytes(4194304, 16), adapter_bytes(4194304, 32)
    (8388608, 16777216)
    """
    if bits not in (16, 32):
        raise ValueError(f"adapters are stored in 16 or 32 bits, not {bits}")
    return parameters * bits // 8


def adapter_training_bytes(parameters: int) -> int:
    """Memory to train the adapter with Adam: float32 weights, gradients and two moments.

    16 bytes per trainable parameter (see ``ADAPTER_TRAINING_BYTES_PER_PARAMETER``);
    activations and the frozen base are not included.

    >>> adapter_training_bytes(4194304)
    67108864
    """
    return parameters * ADAPTER_TRAINING_BYTES_PER_PARAMETER


def base_bytes_16bit(shape: ModelShape) -> int:
    """The frozen base model's weights, all in bfloat16 or float16.

    >>> from calc.models import PRESETS
    >>> base_bytes_16bit(PRESETS["meta-llama/Llama-2-7b-hf"])
    13476831232
    """
    return base_parameters(shape) * HALF_PRECISION_BYTES


def base_bytes_fp32(shape: ModelShape) -> int:
    """The frozen base model's weights, all in float32: a LoRA run at precision fp32.

    >>> from calc.models import PRESETS
    >>> base_bytes_fp32(PRESETS["meta-llama/Llama-2-7b-hf"])
    26953662464
    """
    return base_parameters(shape) * SINGLE_PRECISION_BYTES


def base_bytes_qlora(shape: ModelShape) -> Decimal:
    """The frozen base in QLoRA: projections in 4-bit NF4, everything else in 16 bits.

    The projections' weights (:func:`quantized_weights`) take
    ``NF4_BYTES_PER_WEIGHT``, about 0.516 bytes each; embeddings, ``lm_head``,
    norms and biases stay at 2 bytes. (peft's ``prepare_model_for_kbit_training``
    would upcast those to float32; this assumes it is not called.)

    >>> from calc.models import PRESETS
    >>> base_bytes_qlora(PRESETS["meta-llama/Llama-2-7b-hf"])
    Decimal('3865591808')
    >>> base_bytes_qlora(PRESETS["google/gemma-2-9b"])
    Decimal('6130105856')
    """
    return _qlora_bytes(shape, HALF_PRECISION_BYTES)


def _exact_decimal(value: Fraction) -> Decimal:
    """A fraction whose denominator divides a power of ten, as the equal Decimal.

    Built from digits and an exponent, so no context precision can round it.

    >>> _exact_decimal(Fraction(2113, 4096))
    Decimal('0.515869140625')
    >>> _exact_decimal(Fraction(1, 3))
    Traceback (most recent call last):
    ...
    ValueError: 1/3 has no exact decimal
    """
    places = 0
    while (10**places) % value.denominator:
        places += 1
        if places > value.denominator.bit_length():  # 2^a·5^b divides 10^max(a, b), and a, b < bit_length
            raise ValueError(f"{value} has no exact decimal")
    digits = value.numerator * (10**places // value.denominator)
    return Decimal(f"{digits}E-{places}") if places else Decimal(digits)


# --- QLoRA with peft's prepare_model_for_kbit_training -------------------------------------------------------------
# The QLoRA reference script (artidoro/qlora, qlora.py) and most recipes call it before get_peft_model. It casts
# every float16/bfloat16 parameter that is not a bitsandbytes Params4bit to float32 (peft 0.21,
# peft/utils/other.py, prepare_model_for_kbit_training: "cast all non INT8 parameters to fp32"): the embeddings,
# lm_head, the norms and any bias, which 4-bit loading left in 16 bits (see quantized_weights).
KBIT_PREPARED_BYTES = 4


def base_bytes_qlora_prepared(shape: ModelShape) -> Decimal:
    """The frozen base in QLoRA after ``prepare_model_for_kbit_training``: projections in NF4, the rest in fp32.

    Loaded with ``BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4",
    bnb_4bit_use_double_quant=True, bnb_4bit_compute_dtype=torch.bfloat16)``, as the
    QLoRA paper does; the compute dtype changes no stored byte.

    >>> from calc.models import PRESETS
    >>> base_bytes_qlora_prepared(PRESETS["meta-llama/Llama-3.1-8B"])
    Decimal('7804174336')
    >>> base_bytes_qlora(PRESETS["meta-llama/Llama-3.1-8B"])
    Decimal('5702295552')
    """
    return _qlora_bytes(shape, KBIT_PREPARED_BYTES)


def qlora_preparation(shape: ModelShape) -> Decimal:
    """What ``prepare_model_for_kbit_training`` adds to a QLoRA base's weights (its 16-bit parts cast to fp32), which
    the step's QLoRA, counting the base as loaded, leaves out.

    >>> from calc.models import PRESETS
    >>> qlora_preparation(PRESETS["meta-llama/Llama-3.1-8B"])
    Decimal('2101878784')
    """
    return base_bytes_qlora_prepared(shape) - base_bytes_qlora(shape)


def _qlora_bytes(shape: ModelShape, kept_bytes: int) -> Decimal:
    """The projections' weights in NF4, every other parameter at ``kept_bytes``."""
    quantized = quantized_weights(shape)
    kept = base_parameters(shape) - quantized
    return _exact_decimal(quantized * NF4_BYTES_PER_WEIGHT + kept * kept_bytes)
