"""The shapes of well-known decoder-only models, enough to count their parameters exactly.

Every value is the one in the model's ``config.json`` on its Hugging Face
repository (the URL is the shape's ``source``); a value that the file leaves
out is transformers' default for that architecture, named in the comment
beside it. ``make validate`` builds each shape in transformers and checks
every count that :mod:`calc.formulas.parameters` makes from it (``validation/parameters.json``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelShape:
    """What the parameter count of a Llama-like decoder depends on.

    ``model_type`` is transformers' name for the architecture (``llama``,
    ``mistral``, ``qwen2``, ``gemma2``). ``head_dim`` is given even where
    ``config.json`` leaves it to be ``hidden_size // attention_heads``:
    Gemma-2 is one model where it is not. The attention's biases are split
    because Qwen2 has them on q, k and v but not on o.
    ``norms_per_layer`` counts the RMSNorm weight vectors in one decoder
    layer (the final norm after the last layer is always one more).
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


# Keyed by the Hub's repository id, spelled as the Hub spells it.
PRESETS: dict[str, ModelShape] = {
    "meta-llama/Llama-2-7b-hf": ModelShape(
        model_type="llama",
        layers=32,
        hidden_size=4096,
        attention_heads=32,
        kv_heads=32,  # no grouped-query attention in the 7B
        head_dim=128,  # not in config.json: 4096 // 32
        intermediate_size=11008,
        vocab_size=32000,
        tie_word_embeddings=False,
        qkv_bias=False,  # not in config.json: LlamaConfig's attention_bias default, False
        o_bias=False,
        mlp_bias=False,  # not in config.json: LlamaConfig's default, False
        norms_per_layer=2,  # input_layernorm, post_attention_layernorm (modeling_llama.py)
        source="https://huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json",
    ),
    "meta-llama/Llama-3.1-8B": ModelShape(
        model_type="llama",
        layers=32,
        hidden_size=4096,
        attention_heads=32,
        kv_heads=8,
        head_dim=128,  # not in config.json: 4096 // 32
        intermediate_size=14336,
        vocab_size=128256,
        tie_word_embeddings=False,
        qkv_bias=False,  # attention_bias: false
        o_bias=False,
        mlp_bias=False,  # mlp_bias: false
        norms_per_layer=2,
        source="https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json",
    ),
    "meta-llama/Llama-3.1-70B": ModelShape(
        model_type="llama",
        layers=80,
        hidden_size=8192,
        attention_heads=64,
        kv_heads=8,
        head_dim=128,  # not in config.json: 8192 // 64
        intermediate_size=28672,
        vocab_size=128256,
        tie_word_embeddings=False,
        qkv_bias=False,  # attention_bias: false
        o_bias=False,
        mlp_bias=False,  # mlp_bias: false
        norms_per_layer=2,
        source="https://huggingface.co/meta-llama/Llama-3.1-70B/blob/main/config.json",
    ),
    "mistralai/Mistral-7B-v0.1": ModelShape(
        model_type="mistral",
        layers=32,
        hidden_size=4096,
        attention_heads=32,
        kv_heads=8,
        head_dim=128,  # not in config.json: 4096 // 32
        intermediate_size=14336,
        vocab_size=32000,
        tie_word_embeddings=False,
        # Mistral's projections never have biases (modeling_mistral.py: bias=False).
        qkv_bias=False,
        o_bias=False,
        mlp_bias=False,
        norms_per_layer=2,
        source="https://huggingface.co/mistralai/Mistral-7B-v0.1/blob/main/config.json",
    ),
    "Qwen/Qwen2.5-7B": ModelShape(
        model_type="qwen2",
        layers=28,
        hidden_size=3584,
        attention_heads=28,
        kv_heads=4,
        head_dim=128,  # not in config.json: 3584 // 28
        intermediate_size=18944,
        vocab_size=152064,
        tie_word_embeddings=False,
        # Qwen2 hard-codes bias=True on q, k, v and bias=False on o and the MLP (modeling_qwen2.py).
        qkv_bias=True,
        o_bias=False,
        mlp_bias=False,
        norms_per_layer=2,
        source="https://huggingface.co/Qwen/Qwen2.5-7B/blob/main/config.json",
    ),
    "google/gemma-2-9b": ModelShape(
        model_type="gemma2",
        layers=42,
        hidden_size=3584,
        attention_heads=16,
        kv_heads=8,
        head_dim=256,  # head_dim: 256, not 3584 // 16
        intermediate_size=14336,
        vocab_size=256000,
        tie_word_embeddings=True,  # not in config.json: Gemma2Config's default
        qkv_bias=False,  # attention_bias: false
        o_bias=False,
        mlp_bias=False,  # Gemma2MLP: bias=False
        # input_, post_attention_, pre_feedforward_ and post_feedforward_layernorm (modeling_gemma2.py)
        norms_per_layer=4,
        source="https://huggingface.co/google/gemma-2-9b/blob/main/config.json",
    ),
}
