"""The shapes of well-known decoder-only models, enough to count their parameters exactly.

Every value is the one in the model's ``config.json`` on its Hugging Face
repository (the URL is the shape's ``source``); a value that the file leaves
out is transformers' default for that architecture, named in the comment
beside it. ``make validate`` builds each shape in transformers and checks
every count that :mod:`calc.formulas.parameters` makes from it (``validation/parameters.json``).

Nothing can be downloaded from the Hub here, so each preset's values were
read from public code that copies them: Lightning-AI/litgpt, ``litgpt/config.py``
(which cites each config.json), unless its comment names another source; and
each total is cross-checked against the count the model's card publishes,
where it publishes one (``tests/test_models.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class ModelShape:
    """What the parameter count of a decoder-only transformer depends on.

    ``model_type`` is transformers' name for the architecture (one of
    ``ARCHITECTURES``). ``head_dim`` is given even where ``config.json``
    leaves it to be ``hidden_size // attention_heads``: Gemma-2, Qwen3 and
    Mistral-Nemo are models where it is not. The attention's biases are split
    because Qwen2 has them on q, k and v but not on o.
    ``norms_per_layer`` counts the RMSNorm weight vectors of the hidden size
    in one decoder layer (the final norm after the last layer is always one more).
    ``fused_projections``: q, k and v are one ``qkv_proj`` and gate and up
    one ``gate_up_proj`` (Phi-3). ``qk_norm``: an RMSNorm of ``head_dim`` on
    the queries and one on the keys in every layer (Qwen3).
    ``experts`` > 0 makes every layer's MLP a mixture of that many experts,
    each ``expert_intermediate_size`` wide, of which ``experts_per_token``
    run for each token, chosen by a router; ``intermediate_size`` is then
    the width of a dense MLP, which such a model has in no layer.
    ``sliding_window``: how many tokens back the sliding layers attend, as
    transformers reads config.json; ``None`` where no layer slides. No count
    depends on it: it only tells whether the activation estimate's figures
    hold (:func:`calc.step_outputs.window_note`).
    """

    model_type: str
    layers: int
    hidden_size: int
    attention_heads: int
    kv_heads: int
    head_dim: int
    intermediate_size: int
    vocab_size: int
    tie_word_embeddings: bool
    qkv_bias: bool
    o_bias: bool
    mlp_bias: bool
    norms_per_layer: int
    source: str
    fused_projections: bool = False
    qk_norm: bool = False
    experts: int = 0
    experts_per_token: int = 0
    expert_intermediate_size: int = 0
    sliding_window: int | None = None


@dataclass(frozen=True)
class ActivationHabits:
    """What one architecture's modeling code does that changes the tensors autograd keeps.

    :mod:`calc.formulas.activations` and :mod:`calc.formulas.step` read these;
    ``make validate`` measures every architecture that has them.
    """

    norm_output_in_float32: bool  # the RMSNorm multiplies by its weight in float32
    softcapping: bool  # tanh caps the attention scores and the final logits
    eager_masks: int  # the 4D masks eager attention makes per forward pass: one per kind of layer
    sdpa: bool  # transformers runs it with SDPA (the model class's _supports_sdpa)
    # A mixture of experts' router: its top-k weights stay float32 (Mixtral) or are cast to the model's dtype
    # (Qwen3-MoE), and are divided by their sum (Mixtral always; Qwen3-MoE when config.json's norm_topk_prob is true).
    routing_weights_in_float32: bool
    routing_weights_renormalized: bool
    # apply_rotary_pos_emb ends in torch.cat (Phi-3's, for its partial rotary factor): the queries come out contiguous,
    # so SDPA's output is not o_proj's input, and eager attention's matmul keeps the queries themselves, not a copy.
    contiguous_queries: bool


@dataclass(frozen=True)
class Architecture:
    """What transformers' modeling code fixes for one ``model_type``, and its config class's defaults.

    ``qkv_bias``: the bias q, k and v always have (Qwen2), else what the
    config's ``attention_bias`` says where the config has one
    (``attention_bias``) and none where it has not. ``head_dim``: the config
    class's default when config.json leaves it out; ``None`` for
    ``hidden_size // num_attention_heads``. ``kv_heads``: likewise, ``None``
    for as many as the attention heads. ``tie_word_embeddings``: the
    config class's default. ``experts``: the config's key for the number of
    experts, ``None`` for a dense model; ``expert_width``: its key for an
    expert's width, ``intermediate_size`` where the experts are as wide as a
    dense MLP (Mixtral). ``expert_defaults``: the class's defaults for the
    mixture's keys that are not among the sizes (the number of experts,
    ``num_experts_per_tok``, an expert's own width). ``sizes``: the class's
    defaults for the sizes, by config key, which a multimodal config's
    ``text_config`` may rely on. ``supported``: config keys the counts
    describe at one value only, the class's default, as config.json writes
    it; a config that sets another is refused. ``activations``: what changes
    the saved tensors, for the architectures the activation and step
    estimates model; ``None`` for the others. ``windowed``: the config has a
    ``sliding_window`` key (null: no window), whose class default is
    ``sliding_window``; ``window_switch``: a key that must be true for the
    window to apply (Qwen's ``use_sliding_window``, false by default).
    ``dropouts``: the config's rates of dropout and of other noise applied
    in training, which add tensors the estimates do not count: a config that
    sets one above zero is refused. ``heads_divide_width``: the config class
    refuses a ``hidden_size`` that is not a multiple of
    ``num_attention_heads``, even where ``head_dim`` is set
    (``validate_architecture``).
    """

    norms_per_layer: int
    tie_word_embeddings: bool
    sizes: Mapping[str, int]
    activations: ActivationHabits | None
    head_dim: int | None = None
    kv_heads: int | None = None
    qkv_bias: bool = False
    attention_bias: bool = False
    mlp_bias: bool = False
    fused_projections: bool = False
    qk_norm: bool = False
    experts: str | None = None
    expert_width: str | None = None
    expert_defaults: Mapping[str, int] = field(default_factory=dict)
    supported: Mapping[str, str] = field(default_factory=dict)
    windowed: bool = False
    sliding_window: int | None = None
    window_switch: str | None = None
    # Every class here has attention_dropout, 0.0 by default (LlamaConfig and the others, transformers 5.24).
    dropouts: tuple[str, ...] = ("attention_dropout",)
    heads_divide_width: bool = False

    @property
    def experts_as_wide_as_mlp(self) -> bool:
        """Whether an expert is ``intermediate_size`` wide, as a dense MLP, rather than as a key of its own says."""
        return self.expert_width == "intermediate_size"


def _sizes(layers: int, hidden: int, heads: int, intermediate: int, vocabulary: int) -> dict[str, int]:
    """A config class's defaults for the layers, width, heads, intermediate size and vocabulary."""
    return {
        "num_hidden_layers": layers,
        "hidden_size": hidden,
        "num_attention_heads": heads,
        "intermediate_size": intermediate,
        "vocab_size": vocabulary,
    }


# Llama, Mistral and Qwen2 keep alike: LlamaRMSNorm casts its output back to the model's dtype before the weight,
# nothing is softcapped, eager attention takes one causal mask (no sliding layers by default), and SDPA is accepted.
# Qwen2's q, k and v biases add nothing (a linear layer keeps its input, bias or not).
_LLAMA_HABITS = ActivationHabits(
    norm_output_in_float32=False,
    softcapping=False,
    eager_masks=1,
    sdpa=True,
    routing_weights_in_float32=False,  # no router
    routing_weights_renormalized=False,
    contiguous_queries=False,
)

# Each from transformers 5.24's models/<model_type>/configuration_<model_type>.py and modeling_<model_type>.py.
ARCHITECTURES: dict[str, Architecture] = {
    # LlamaConfig: head_dim None → hidden // heads, num_key_value_heads None → heads, attention_bias and
    # mlp_bias switches (False), tie False. Two RMSNorms a layer: input_layernorm, post_attention_layernorm.
    "llama": Architecture(
        activations=_LLAMA_HABITS,
        sizes=_sizes(32, 4096, 32, 11008, 32000),
        norms_per_layer=2,
        tie_word_embeddings=False,
        attention_bias=True,
        mlp_bias=True,
        heads_divide_width=True,
    ),
    # MistralConfig: num_key_value_heads 8, sliding_window 4096; every projection bias=False (modeling_mistral.py).
    "mistral": Architecture(
        activations=_LLAMA_HABITS,
        sizes=_sizes(32, 4096, 32, 14336, 32000),
        norms_per_layer=2,
        tie_word_embeddings=False,
        kv_heads=8,
        windowed=True,
        sliding_window=4096,
    ),
    # Qwen2Config: num_key_value_heads 32; Qwen2Attention hard-codes bias=True on q, k, v, False on o. Its
    # sliding_window (4096) applies only where use_sliding_window is true (false by default), as Qwen3's and
    # Qwen3-MoE's do.
    "qwen2": Architecture(
        activations=_LLAMA_HABITS,
        sizes=_sizes(32, 4096, 32, 22016, 151936),
        norms_per_layer=2,
        tie_word_embeddings=False,
        kv_heads=32,
        qkv_bias=True,
        windowed=True,
        sliding_window=4096,
        window_switch="use_sliding_window",
    ),
    # Qwen3Config: head_dim 128, num_key_value_heads 32; Qwen3Attention's q_norm and k_norm. It keeps as Llama does
    # (Qwen3RMSNorm is LlamaRMSNorm; no qkv bias unless attention_bias), but for the q and k norms (ModelShape.qk_norm).
    "qwen3": Architecture(
        activations=_LLAMA_HABITS,
        sizes=_sizes(32, 4096, 32, 22016, 151936),
        norms_per_layer=2,
        tie_word_embeddings=False,
        head_dim=128,
        kv_heads=32,
        attention_bias=True,
        qk_norm=True,
        windowed=True,
        sliding_window=4096,
        window_switch="use_sliding_window",
    ),
    # Gemma2Config: head_dim 256, num_key_value_heads 4, tie True, sliding_window 4096; input_, post_attention_,
    # pre_feedforward_ and post_feedforward_layernorm (modeling_gemma2.py). What it keeps differs from Llama's:
    # Gemma2RMSNorm.forward multiplies in float32 (output * (1.0 + self.weight.float())); eager_attention_forward
    # and Gemma2ForCausalLM cap the scores and the logits with a tanh; eager attention takes one mask for the global
    # layers and one for the sliding ones (create_causal_mask, create_sliding_window_causal_mask); and SDPA is
    # refused (Gemma2PreTrainedModel: _supports_sdpa = False, "sdpa does not support softcapping"), FlashAttention
    # accepted.
    "gemma2": Architecture(
        activations=ActivationHabits(
            norm_output_in_float32=True,
            softcapping=True,
            eager_masks=2,
            sdpa=False,
            routing_weights_in_float32=False,  # no router
            routing_weights_renormalized=False,
            contiguous_queries=False,
        ),
        sizes=_sizes(26, 2304, 8, 9216, 256000),
        norms_per_layer=4,
        tie_word_embeddings=True,
        head_dim=256,
        kv_heads=4,
        attention_bias=True,
        windowed=True,
        sliding_window=4096,
        heads_divide_width=True,
    ),
    # Gemma3TextConfig: head_dim 256, num_key_value_heads 4, tie True, sliding_window 4096; Gemma-2's four norms a
    # layer and Gemma3Attention's q_norm and k_norm (models/gemma3/modeling_gemma3.py). It keeps as Gemma-2 does but
    # for the softcapping: Gemma3RMSNorm multiplies in float32 (q_norm and k_norm too); attn_logit_softcapping and
    # final_logit_softcapping are None by default; eager attention takes a mask for the global layers and one for the
    # sliding ones (Gemma3TextModel.forward makes both, whatever layer_types holds); SDPA is accepted
    # (Gemma3PreTrainedModel: _supports_sdpa = True). Gemma3TextScaledWordEmbedding's scale keeps a constant only.
    "gemma3_text": Architecture(
        activations=ActivationHabits(
            norm_output_in_float32=True,
            softcapping=False,
            eager_masks=2,
            sdpa=True,
            routing_weights_in_float32=False,  # no router
            routing_weights_renormalized=False,
            contiguous_queries=False,
        ),
        sizes=_sizes(26, 2304, 8, 9216, 262208),
        norms_per_layer=4,
        tie_word_embeddings=True,
        head_dim=256,
        kv_heads=4,
        attention_bias=True,
        qk_norm=True,
        windowed=True,
        sliding_window=4096,
        heads_divide_width=True,
    ),
    # Phi3Config: num_key_value_heads None → heads; Phi3Attention.qkv_proj and Phi3MLP.gate_up_proj, no biases.
    # Phi3RMSNorm is LlamaRMSNorm, nothing is softcapped, one mask (sliding where sliding_window, None by default, is
    # set), SDPA accepted, dropouts 0
    # (resid_pdrop, embd_pdrop, attention_dropout); its apply_rotary_pos_emb concatenates the rotated part with the
    # rest (partial_rotary_factor, 1.0 by default). What the fused projections' views keep: calc.formulas.activations.
    "phi3": Architecture(
        activations=ActivationHabits(
            norm_output_in_float32=False,
            softcapping=False,
            eager_masks=1,
            sdpa=True,
            routing_weights_in_float32=False,  # no router
            routing_weights_renormalized=False,
            contiguous_queries=True,
        ),
        sizes=_sizes(32, 3072, 32, 8192, 32064),
        norms_per_layer=2,
        tie_word_embeddings=False,
        fused_projections=True,
        windowed=True,
        # Phi3Config's resid_pdrop, 0.0 by default: Phi3DecoderLayer's resid_attn_dropout and resid_mlp_dropout (its
        # embd_pdrop no module reads).
        dropouts=("attention_dropout", "resid_pdrop"),
    ),
    # MixtralConfig: num_key_value_heads 8, num_local_experts 8, num_experts_per_tok 2, sliding_window None;
    # MixtralExperts are num_local_experts experts of intermediate_size.
    # Llama's habits, and MixtralTopKRouter's: softmax in float32, the top-k weights divided by their sum in place
    # and left in float32 (router_top_value /= router_top_value.sum(...)).
    "mixtral": Architecture(
        activations=ActivationHabits(
            norm_output_in_float32=False,
            softcapping=False,
            eager_masks=1,
            sdpa=True,
            routing_weights_in_float32=True,
            routing_weights_renormalized=True,
            contiguous_queries=False,
        ),
        sizes=_sizes(32, 4096, 32, 14336, 32000),
        norms_per_layer=2,
        tie_word_embeddings=False,
        kv_heads=8,
        experts="num_local_experts",
        expert_width="intermediate_size",
        expert_defaults={"num_local_experts": 8, "num_experts_per_tok": 2},
        windowed=True,
        # MixtralConfig's router_jitter_noise, 0.0 by default: in training, MixtralSparseMoeBlock multiplies its
        # input, the router's and the experts', by noise.
        dropouts=("attention_dropout", "router_jitter_noise"),
        # output_router_logits, false by default: in training, the router's auxiliary loss, which no estimate counts
        # (technical review, round 83).
        supported={"output_router_logits": "false"},
    ),
    # Qwen3MoeConfig: num_key_value_heads 4, num_experts 128, num_experts_per_tok 8, moe_intermediate_size 768;
    # Qwen3MoeAttention's q_norm and k_norm; Qwen3MoeExperts are num_experts experts of moe_intermediate_size, in every
    # layer but those of mlp_only_layers (default []) and those off the decoder_sparse_step (default 1), whose MLP is
    # dense (Qwen3MoeDecoderLayer): the counts have no dense layer, hence supported. No head_dim in the class:
    # getattr(config, "head_dim", hidden_size // num_attention_heads) in Qwen3MoeAttention. Llama's habits, and
    # Qwen3MoeTopKRouter's: the top-k weights cast to the model's dtype (router_top_value.to(router_logits.dtype)),
    # divided by their sum first when norm_topk_prob is true, as every released Qwen3-MoE's config.json has it (the
    # class's default is false: the division's two small tensors, 4·(1 + k) bytes a token and layer, are then counted
    # and not kept).
    "qwen3_moe": Architecture(
        activations=ActivationHabits(
            norm_output_in_float32=False,
            softcapping=False,
            eager_masks=1,
            sdpa=True,
            routing_weights_in_float32=False,
            routing_weights_renormalized=True,
            contiguous_queries=False,
        ),
        sizes=_sizes(24, 2048, 32, 6144, 151936),
        norms_per_layer=2,
        tie_word_embeddings=False,
        kv_heads=4,
        attention_bias=True,
        qk_norm=True,
        experts="num_experts",
        expert_width="moe_intermediate_size",
        expert_defaults={"num_experts": 128, "num_experts_per_tok": 8, "moe_intermediate_size": 768},
        supported={"decoder_sparse_step": "1", "mlp_only_layers": "[]", "output_router_logits": "false"},
        windowed=True,
        sliding_window=4096,
        window_switch="use_sliding_window",
    ),
}


def counted(shape: ModelShape) -> ModelShape:
    """``shape`` as its counts see it: without its sliding window, which changes none, so that a shape measured
    before it carried its window (``validation/parameters.json``) still stands for it."""
    return replace(shape, sliding_window=None)


def architecture_shape(
    model_type: str,
    *,
    layers: int,
    hidden_size: int,
    attention_heads: int,
    kv_heads: int,
    head_dim: int,
    intermediate_size: int,
    vocab_size: int,
    tie_word_embeddings: bool,
    experts: int = 0,
    experts_per_token: int = 0,
    expert_intermediate_size: int = 0,
    attention_bias: bool = False,
    mlp_bias: bool = False,
    sliding_window: int | None = None,
    source: str = "",
) -> ModelShape:
    """The shape of a ``model_type`` model of these sizes, with what its modeling code fixes.

    ``attention_bias`` and ``mlp_bias`` are the config's switches, for the
    architectures that have them. A dense architecture has no experts; a
    mixture of experts has at least one, and where the architecture says so
    (:attr:`Architecture.experts_as_wide_as_mlp`) they are ``intermediate_size`` wide.

    >>> shape = architecture_shape("qwen2", layers=24, hidden_size=896, attention_heads=14, kv_heads=2,
    ...     head_dim=64, intermediate_size=4864, vocab_size=151936, tie_word_embeddings=True)
    >>> shape.qkv_bias, shape.o_bias, shape.norms_per_layer
    (True, False, 2)
    """
    architecture = ARCHITECTURES[model_type]
    if attention_bias and not architecture.attention_bias:
        raise ValueError(f"{model_type} has no attention_bias switch")
    if mlp_bias and not architecture.mlp_bias:
        raise ValueError(f"{model_type} has no mlp_bias switch")
    if architecture.experts is None and (experts or experts_per_token or expert_intermediate_size):
        raise ValueError(f"{model_type} has no experts")
    if architecture.experts is not None and not 1 <= experts_per_token <= experts:
        raise ValueError(f"{experts_per_token} experts per token of {experts}")
    if architecture.experts_as_wide_as_mlp and expert_intermediate_size != intermediate_size:
        raise ValueError(f"{model_type}'s experts are intermediate_size wide")
    if sliding_window is not None and not architecture.windowed:
        raise ValueError(f"{model_type} has no sliding window")
    return ModelShape(
        model_type=model_type,
        layers=layers,
        hidden_size=hidden_size,
        attention_heads=attention_heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        intermediate_size=intermediate_size,
        vocab_size=vocab_size,
        tie_word_embeddings=tie_word_embeddings,
        qkv_bias=architecture.qkv_bias or attention_bias,
        o_bias=attention_bias,
        mlp_bias=mlp_bias,
        norms_per_layer=architecture.norms_per_layer,
        source=source,
        fused_projections=architecture.fused_projections,
        qk_norm=architecture.qk_norm,
        experts=experts,
        experts_per_token=experts_per_token,
        expert_intermediate_size=expert_intermediate_size,
        sliding_window=sliding_window,
    )


def _hub(repo: str) -> str:
    return f"https://huggingface.co/{repo}/blob/main/config.json"


def _preset(repo: str, model_type: str, **sizes: int | bool | None) -> tuple[str, ModelShape]:
    return repo, architecture_shape(model_type, source=_hub(repo), **sizes)


# Keyed by the Hub's repository id, spelled as the Hub spells it. A comment says which values
# config.json leaves out (the config class's default applies) and where a value was read.
PRESETS: dict[str, ModelShape] = dict(
    [
        # Llama: config.json has head_dim (64, 128) and tie_word_embeddings true for 3.2; none for 2 and 3.1,
        # whose head_dim is LlamaConfig's hidden_size // num_attention_heads. All: attention_bias, mlp_bias false.
        _preset(
            "meta-llama/Llama-3.2-1B",
            "llama",
            layers=16,
            hidden_size=2048,
            attention_heads=32,
            kv_heads=8,
            head_dim=64,
            intermediate_size=8192,
            vocab_size=128256,
            tie_word_embeddings=True,
        ),
        _preset(
            "meta-llama/Llama-3.2-3B",
            "llama",
            layers=28,
            hidden_size=3072,
            attention_heads=24,
            kv_heads=8,
            head_dim=128,
            intermediate_size=8192,
            vocab_size=128256,
            tie_word_embeddings=True,
        ),
        _preset(
            # no grouped-query attention in the 7B: num_key_value_heads 32
            "meta-llama/Llama-2-7b-hf",
            "llama",
            layers=32,
            hidden_size=4096,
            attention_heads=32,
            kv_heads=32,
            head_dim=128,
            intermediate_size=11008,
            vocab_size=32000,
            tie_word_embeddings=False,
        ),
        _preset(
            "meta-llama/Llama-3.1-8B",
            "llama",
            layers=32,
            hidden_size=4096,
            attention_heads=32,
            kv_heads=8,
            head_dim=128,
            intermediate_size=14336,
            vocab_size=128256,
            tie_word_embeddings=False,
        ),
        _preset(
            "meta-llama/Llama-3.1-70B",
            "llama",
            layers=80,
            hidden_size=8192,
            attention_heads=64,
            kv_heads=8,
            head_dim=128,
            intermediate_size=28672,
            vocab_size=128256,
            tie_word_embeddings=False,
        ),
        # Qwen2.5: no head_dim in config.json (hidden_size // num_attention_heads, Qwen2Attention's getattr);
        # tie_word_embeddings true up to 3B, false from 7B; use_sliding_window false, so no window whatever
        # sliding_window says. vocab_size is litgpt's padded_vocab_size.
        _preset(
            "Qwen/Qwen2.5-0.5B",
            "qwen2",
            layers=24,
            hidden_size=896,
            attention_heads=14,
            kv_heads=2,
            head_dim=64,
            intermediate_size=4864,
            vocab_size=151936,
            tie_word_embeddings=True,
        ),
        _preset(
            "Qwen/Qwen2.5-1.5B",
            "qwen2",
            layers=28,
            hidden_size=1536,
            attention_heads=12,
            kv_heads=2,
            head_dim=128,
            intermediate_size=8960,
            vocab_size=151936,
            tie_word_embeddings=True,
        ),
        _preset(
            "Qwen/Qwen2.5-3B",
            "qwen2",
            layers=36,
            hidden_size=2048,
            attention_heads=16,
            kv_heads=2,
            head_dim=128,
            intermediate_size=11008,
            vocab_size=151936,
            tie_word_embeddings=True,
        ),
        _preset(
            "Qwen/Qwen2.5-7B",
            "qwen2",
            layers=28,
            hidden_size=3584,
            attention_heads=28,
            kv_heads=4,
            head_dim=128,
            intermediate_size=18944,
            vocab_size=152064,
            tie_word_embeddings=False,
        ),
        _preset(
            "Qwen/Qwen2.5-14B",
            "qwen2",
            layers=48,
            hidden_size=5120,
            attention_heads=40,
            kv_heads=8,
            head_dim=128,
            intermediate_size=13824,
            vocab_size=152064,
            tie_word_embeddings=False,
        ),
        _preset(
            "Qwen/Qwen2.5-32B",
            "qwen2",
            layers=64,
            hidden_size=5120,
            attention_heads=40,
            kv_heads=8,
            head_dim=128,
            intermediate_size=27648,
            vocab_size=152064,
            tie_word_embeddings=False,
        ),
        _preset(
            "Qwen/Qwen2.5-72B",
            "qwen2",
            layers=80,
            hidden_size=8192,
            attention_heads=64,
            kv_heads=8,
            head_dim=128,
            intermediate_size=29568,
            vocab_size=152064,
            tie_word_embeddings=False,
        ),
        # Qwen3: head_dim 128 in every config.json, whatever hidden_size // num_attention_heads is; attention_bias
        # false; tie_word_embeddings true up to 4B, false from 8B; use_sliding_window false (no window; Qwen3-MoE too).
        _preset(
            "Qwen/Qwen3-0.6B",
            "qwen3",
            layers=28,
            hidden_size=1024,
            attention_heads=16,
            kv_heads=8,
            head_dim=128,
            intermediate_size=3072,
            vocab_size=151936,
            tie_word_embeddings=True,
        ),
        _preset(
            "Qwen/Qwen3-1.7B",
            "qwen3",
            layers=28,
            hidden_size=2048,
            attention_heads=16,
            kv_heads=8,
            head_dim=128,
            intermediate_size=6144,
            vocab_size=151936,
            tie_word_embeddings=True,
        ),
        _preset(
            "Qwen/Qwen3-4B",
            "qwen3",
            layers=36,
            hidden_size=2560,
            attention_heads=32,
            kv_heads=8,
            head_dim=128,
            intermediate_size=9728,
            vocab_size=151936,
            tie_word_embeddings=True,
        ),
        _preset(
            "Qwen/Qwen3-8B",
            "qwen3",
            layers=36,
            hidden_size=4096,
            attention_heads=32,
            kv_heads=8,
            head_dim=128,
            intermediate_size=12288,
            vocab_size=151936,
            tie_word_embeddings=False,
        ),
        _preset(
            "Qwen/Qwen3-14B",
            "qwen3",
            layers=40,
            hidden_size=5120,
            attention_heads=40,
            kv_heads=8,
            head_dim=128,
            intermediate_size=17408,
            vocab_size=151936,
            tie_word_embeddings=False,
        ),
        _preset(
            "Qwen/Qwen3-32B",
            "qwen3",
            layers=64,
            hidden_size=5120,
            attention_heads=64,
            kv_heads=8,
            head_dim=128,
            intermediate_size=25600,
            vocab_size=151936,
            tie_word_embeddings=False,
        ),
        # Gemma-2: head_dim in config.json (256, 256, 128: not hidden_size // heads); no tie_word_embeddings key,
        # so Gemma2Config's default, true; attention_bias false; sliding_window 4096 (every other layer).
        _preset(
            "google/gemma-2-2b",
            "gemma2",
            layers=26,
            hidden_size=2304,
            attention_heads=8,
            kv_heads=4,
            head_dim=256,
            intermediate_size=9216,
            vocab_size=256000,
            tie_word_embeddings=True,
            sliding_window=4096,
        ),
        _preset(
            "google/gemma-2-9b",
            "gemma2",
            layers=42,
            hidden_size=3584,
            attention_heads=16,
            kv_heads=8,
            head_dim=256,
            intermediate_size=14336,
            vocab_size=256000,
            tie_word_embeddings=True,
            sliding_window=4096,
        ),
        _preset(
            "google/gemma-2-27b",
            "gemma2",
            layers=46,
            hidden_size=4608,
            attention_heads=32,
            kv_heads=16,
            head_dim=128,
            intermediate_size=36864,
            vocab_size=256000,
            tie_word_embeddings=True,
            sliding_window=4096,
        ),
        # Gemma-3-1B, the text-only Gemma-3: head_dim 256, one key and value head; tie_word_embeddings left out
        # (Gemma3TextConfig's default, true); sliding_window 512, not the class's 4096 (five layers in six). litgpt
        # cites google/gemma-3-1b-it, whose shape the -pt model shares.
        _preset(
            "google/gemma-3-1b-pt",
            "gemma3_text",
            layers=26,
            hidden_size=1152,
            attention_heads=4,
            kv_heads=1,
            head_dim=256,
            intermediate_size=6912,
            vocab_size=262144,
            tie_word_embeddings=True,
            sliding_window=512,
        ),
        # Mistral: 7B's config.json has no head_dim (4096 // 32); Nemo's has head_dim 128, not 5120 // 32. 7B's
        # sliding_window is 4096 (every layer); Nemo's is null, no window. Nemo is not in litgpt: its config.json is
        # copied whole in kevinstephano/thunder_model_blocks, thunder_model_blocks/mistral/mistral_config.py.
        _preset(
            "mistralai/Mistral-7B-v0.1",
            "mistral",
            layers=32,
            hidden_size=4096,
            attention_heads=32,
            kv_heads=8,
            head_dim=128,
            intermediate_size=14336,
            vocab_size=32000,
            tie_word_embeddings=False,
            sliding_window=4096,
        ),
        _preset(
            "mistralai/Mistral-Nemo-Base-2407",
            "mistral",
            layers=40,
            hidden_size=5120,
            attention_heads=32,
            kv_heads=8,
            head_dim=128,
            intermediate_size=14336,
            vocab_size=131072,
            tie_word_embeddings=False,
        ),
        # Phi-3-mini: num_key_value_heads 32, no head_dim (3072 // 32), vocab_size 32064 (litgpt's padded_vocab_size);
        # sliding_window 2047 (every layer), read from copies of the config.json (transformers_version 4.40.2) quoted
        # in public code: litgpt's sliding_window_size, 2048, counts otherwise.
        _preset(
            "microsoft/Phi-3-mini-4k-instruct",
            "phi3",
            layers=32,
            hidden_size=3072,
            attention_heads=32,
            kv_heads=32,
            head_dim=96,
            intermediate_size=8192,
            vocab_size=32064,
            tie_word_embeddings=False,
            sliding_window=2047,
        ),
        # Mixtral: 8 experts of intermediate_size, 2 a token; no head_dim (4096 // 32); no sliding window (litgpt sets
        # none, as MixtralConfig's default is None).
        _preset(
            "mistralai/Mixtral-8x7B-v0.1",
            "mixtral",
            layers=32,
            hidden_size=4096,
            attention_heads=32,
            kv_heads=8,
            head_dim=128,
            intermediate_size=14336,
            vocab_size=32000,
            tie_word_embeddings=False,
            experts=8,
            experts_per_token=2,
            expert_intermediate_size=14336,
        ),
        # Qwen3-30B-A3B: 128 experts of moe_intermediate_size 768, 8 a token, in every layer (decoder_sparse_step 1,
        # mlp_only_layers []); head_dim 128, not 2048 // 32; intermediate_size 6144 is a dense MLP's, used by none.
        _preset(
            "Qwen/Qwen3-30B-A3B",
            "qwen3_moe",
            layers=48,
            hidden_size=2048,
            attention_heads=32,
            kv_heads=4,
            head_dim=128,
            intermediate_size=6144,
            vocab_size=151936,
            tie_word_embeddings=False,
            experts=128,
            experts_per_token=8,
            expert_intermediate_size=768,
        ),
    ]
)
