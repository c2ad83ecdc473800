"""Reading config.json: real files as their repositories hold them, and text that is not one."""

import json
from gettext import NullTranslations

import pytest
from babel import Locale

from calc.calculators import load
from calc.configs import (
    MAX_BYTES,
    ConfigProblem,
    MissingKey,
    NotABoolean,
    NotACount,
    NotAMultiple,
    NotAnObject,
    NotJson,
    TooDeep,
    TooLong,
    UnknownModelType,
    Unsupported,
    read_config,
)
from calc.evaluation import default_texts, evaluate
from calc.formulas.parameters import active_parameters, base_parameters
from calc.models import PRESETS

# Each config.json as its Hub repository holds it, rebuilt from the sources calc/models.py names for its preset
# (litgpt's litgpt/config.py, a copy in public code); the keys that do not shape the model are kept, as a reader
# pastes them.
LLAMA_3_2_1B = {
    "architectures": ["LlamaForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "bos_token_id": 128000,
    "eos_token_id": 128001,
    "head_dim": 64,
    "hidden_act": "silu",
    "hidden_size": 2048,
    "initializer_range": 0.02,
    "intermediate_size": 8192,
    "max_position_embeddings": 131072,
    "mlp_bias": False,
    "model_type": "llama",
    "num_attention_heads": 32,
    "num_hidden_layers": 16,
    "num_key_value_heads": 8,
    "pretraining_tp": 1,
    "rms_norm_eps": 1e-05,
    "rope_scaling": {
        "factor": 32.0,
        "high_freq_factor": 4.0,
        "low_freq_factor": 1.0,
        "original_max_position_embeddings": 8192,
        "rope_type": "llama3",
    },
    "rope_theta": 500000.0,
    "tie_word_embeddings": True,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.45.0.dev0",
    "use_cache": True,
    "vocab_size": 128256,
}
QWEN2_5_0_5B = {
    "architectures": ["Qwen2ForCausalLM"],
    "attention_dropout": 0.0,
    "bos_token_id": 151643,
    "eos_token_id": 151643,
    "hidden_act": "silu",
    "hidden_size": 896,
    "initializer_range": 0.02,
    "intermediate_size": 4864,
    "max_position_embeddings": 32768,
    "max_window_layers": 24,
    "model_type": "qwen2",
    "num_attention_heads": 14,
    "num_hidden_layers": 24,
    "num_key_value_heads": 2,
    "rms_norm_eps": 1e-06,
    "rope_theta": 1000000.0,
    "sliding_window": 32768,
    "tie_word_embeddings": True,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.40.1",
    "use_cache": True,
    "use_sliding_window": False,
    "vocab_size": 151936,
}
PHI_3_MINI = {
    "_name_or_path": "Phi-3-mini-4k-instruct",
    "architectures": ["Phi3ForCausalLM"],
    "attention_dropout": 0.0,
    "auto_map": {
        "AutoConfig": "configuration_phi3.Phi3Config",
        "AutoModelForCausalLM": "modeling_phi3.Phi3ForCausalLM",
    },
    "bos_token_id": 1,
    "embd_pdrop": 0.0,
    "eos_token_id": 32000,
    "hidden_act": "silu",
    "hidden_size": 3072,
    "initializer_range": 0.02,
    "intermediate_size": 8192,
    "max_position_embeddings": 4096,
    "model_type": "phi3",
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 32,
    "original_max_position_embeddings": 4096,
    "pad_token_id": 32000,
    "resid_pdrop": 0.0,
    "rms_norm_eps": 1e-05,
    "rope_scaling": None,
    "rope_theta": 10000.0,
    "sliding_window": 2047,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.40.2",
    "use_cache": True,
    "attention_bias": False,
    "vocab_size": 32064,
}
MIXTRAL_8X7B = {
    "architectures": ["MixtralForCausalLM"],
    "attention_dropout": 0.0,
    "bos_token_id": 1,
    "eos_token_id": 2,
    "hidden_act": "silu",
    "hidden_size": 4096,
    "initializer_range": 0.02,
    "intermediate_size": 14336,
    "max_position_embeddings": 32768,
    "model_type": "mixtral",
    "num_attention_heads": 32,
    "num_experts_per_tok": 2,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "num_local_experts": 8,
    "output_router_logits": False,
    "rms_norm_eps": 1e-05,
    "rope_theta": 1000000.0,
    "router_aux_loss_coef": 0.02,
    "sliding_window": None,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.36.0.dev0",
    "use_cache": True,
    "vocab_size": 32000,
}
QWEN3_30B_A3B = {
    "architectures": ["Qwen3MoeForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "bos_token_id": 151643,
    "decoder_sparse_step": 1,
    "eos_token_id": 151645,
    "head_dim": 128,
    "hidden_act": "silu",
    "hidden_size": 2048,
    "initializer_range": 0.02,
    "intermediate_size": 6144,
    "max_position_embeddings": 40960,
    "max_window_layers": 48,
    "mlp_only_layers": [],
    "model_type": "qwen3_moe",
    "moe_intermediate_size": 768,
    "norm_topk_prob": True,
    "num_attention_heads": 32,
    "num_experts": 128,
    "num_experts_per_tok": 8,
    "num_hidden_layers": 48,
    "num_key_value_heads": 4,
    "output_router_logits": False,
    "rms_norm_eps": 1e-06,
    "rope_scaling": None,
    "rope_theta": 1000000.0,
    "router_aux_loss_coef": 0.001,
    "sliding_window": None,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.51.0",
    "use_cache": True,
    "use_sliding_window": False,
    "vocab_size": 151936,
}
# No tie_word_embeddings key: Gemma2Config's default, true.
GEMMA_2_2B = {
    "architectures": ["Gemma2ForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "attn_logit_softcapping": 50.0,
    "bos_token_id": 2,
    "cache_implementation": "hybrid",
    "eos_token_id": 1,
    "final_logit_softcapping": 30.0,
    "head_dim": 256,
    "hidden_act": "gelu_pytorch_tanh",
    "hidden_activation": "gelu_pytorch_tanh",
    "hidden_size": 2304,
    "initializer_range": 0.02,
    "intermediate_size": 9216,
    "max_position_embeddings": 8192,
    "model_type": "gemma2",
    "num_attention_heads": 8,
    "num_hidden_layers": 26,
    "num_key_value_heads": 4,
    "pad_token_id": 0,
    "query_pre_attn_scalar": 256,
    "rms_norm_eps": 1e-06,
    "rope_theta": 10000.0,
    "sliding_window": 4096,
    "torch_dtype": "float32",
    "transformers_version": "4.42.4",
    "use_cache": True,
    "vocab_size": 256000,
}


@pytest.mark.parametrize(
    ("config", "preset", "parameters"),
    [
        (LLAMA_3_2_1B, "meta-llama/Llama-3.2-1B", 1_235_814_400),
        (QWEN2_5_0_5B, "Qwen/Qwen2.5-0.5B", 494_032_768),
        (PHI_3_MINI, "microsoft/Phi-3-mini-4k-instruct", 3_821_079_552),
        (MIXTRAL_8X7B, "mistralai/Mixtral-8x7B-v0.1", 46_702_792_704),
        (QWEN3_30B_A3B, "Qwen/Qwen3-30B-A3B", 30_532_122_624),
        (GEMMA_2_2B, "google/gemma-2-2b", 2_614_341_888),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_a_real_config_reads_as_its_model(config, preset, parameters):
    reading = read_config(json.dumps(config, indent=2))
    assert not reading.text_config
    assert reading.shape == PRESETS[preset].__class__(**{**PRESETS[preset].__dict__, "source": ""})
    assert base_parameters(reading.shape) == parameters


@pytest.mark.parametrize("page", ["lora", "vram", "activations"])
def test_a_pasted_size_beyond_its_field_s_limit_is_refused_on_that_field_as_if_typed(page):
    calculator, en = load(page), Locale.parse("en")
    texts = default_texts(calculator, en)
    config = json.dumps({**LLAMA_3_2_1B, "num_hidden_layers": 10**15})
    pasted = evaluate(calculator, {**texts, "config": config}, en, NullTranslations(), changed=frozenset({"config"}))
    assert pasted.texts["layers"] == "1000000000000000"
    typed = evaluate(calculator, {**texts, **pasted.texts}, en, NullTranslations(), changed=frozenset({"layers"}))
    assert pasted.errors["layers"] == typed.errors["layers"] == "Enter at most 1,000."
    # No results for a shape its own field refuses, now or after the next edit.
    assert pasted.outputs == typed.outputs == {output.name: output.empty for output in calculator.outputs}


def test_a_mixture_reads_its_experts():
    shape = read_config(json.dumps(QWEN3_30B_A3B)).shape
    assert (shape.experts, shape.experts_per_token, shape.expert_intermediate_size) == (128, 8, 768)
    assert active_parameters(shape) == 3_353_032_704


def test_keys_left_out_take_the_config_class_defaults():
    # Mistral-7B's config.json has no head_dim; LlamaConfig derives it, and num_key_value_heads None is the heads.
    llama = {key: value for key, value in LLAMA_3_2_1B.items() if key not in ("head_dim", "num_key_value_heads")}
    shape = read_config(json.dumps(llama)).shape
    assert (shape.head_dim, shape.kv_heads) == (64, 32)
    # MixtralConfig: eight experts, two a token.
    mixtral = {key: v for key, v in MIXTRAL_8X7B.items() if key not in ("num_local_experts", "num_experts_per_tok")}
    assert read_config(json.dumps(mixtral)).shape == read_config(json.dumps(MIXTRAL_8X7B)).shape
    # Qwen3MoeConfig: 128 experts of 768, eight a token, in every layer (mlp_only_layers null is transformers' []).
    left_out = ("num_experts", "num_experts_per_tok", "moe_intermediate_size", "decoder_sparse_step")
    qwen3_moe = {key: v for key, v in QWEN3_30B_A3B.items() if key not in left_out} | {"mlp_only_layers": None}
    assert read_config(json.dumps(qwen3_moe)).shape == read_config(json.dumps(QWEN3_30B_A3B)).shape
    # Qwen3Config's head_dim is 128 whatever the width.
    qwen3 = {**QWEN2_5_0_5B, "model_type": "qwen3"}
    assert read_config(json.dumps(qwen3)).shape.head_dim == 128
    # Gemma2Config ties the embeddings unless told otherwise.
    assert not read_config(json.dumps({**GEMMA_2_2B, "tie_word_embeddings": False})).shape.tie_word_embeddings
    # A null boolean is left out too, as a null count is: it takes the class's default.
    assert read_config(json.dumps({**GEMMA_2_2B, "tie_word_embeddings": None})).shape.tie_word_embeddings
    untied = {key: v for key, v in LLAMA_3_2_1B.items() if key != "tie_word_embeddings"}
    assert read_config(json.dumps({**LLAMA_3_2_1B, "tie_word_embeddings": None})) == read_config(json.dumps(untied))


def test_a_multimodal_config_is_read_through_its_text_config():
    # A Mistral-Small-3.1-like config: a vision tower and a projector around a mistral language model.
    llava = {
        "model_type": "mistral3",
        "text_config": {**{k: v for k, v in MIXTRAL_8X7B.items() if "expert" not in k}, "model_type": "mistral"},
        "vision_config": {"model_type": "pixtral", "hidden_size": 1024},
    }
    reading = read_config(json.dumps(llava))
    assert reading.text_config
    assert reading.shape.model_type == "mistral"
    with pytest.raises(ConfigProblem) as raised:
        read_config(json.dumps({**llava, "text_config": {"model_type": "mistral", "hidden_size": "wide"}}))
    assert raised.value == NotACount("text_config.hidden_size", "wide")


def test_a_text_config_relies_on_its_class_for_what_it_leaves_out():
    # Gemma-3-4B's config.json: its text_config states a few sizes; Gemma3TextConfig gives the heads
    # (8, 4 of key and value, 256 wide), the vocabulary (262,208) and tied embeddings.
    gemma3 = {
        "architectures": ["Gemma3ForConditionalGeneration"],
        "model_type": "gemma3",
        "text_config": {
            "hidden_size": 2560,
            "intermediate_size": 10240,
            "model_type": "gemma3_text",
            "num_hidden_layers": 34,
            "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
            "sliding_window": 1024,
        },
        "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 1152},
    }
    shape = read_config(json.dumps(gemma3)).shape
    assert (shape.layers, shape.attention_heads, shape.kv_heads, shape.head_dim) == (34, 8, 4, 256)
    assert (shape.vocab_size, shape.tie_word_embeddings, shape.qk_norm, shape.norms_per_layer) == (
        262208,
        True,
        True,
        4,
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", NotJson(line=1, column=1)),
        ('{"model_type": "llama",\n "hidden_size": }', NotJson(line=2, column=17)),
        ("[1, 2]", NotAnObject()),
        ('"llama"', NotAnObject()),
        ("{}", MissingKey(key="model_type")),
        (
            '{"model_type": "gpt2"}',
            UnknownModelType(
                model_type="gpt2",
                known=(
                    "llama",
                    "mistral",
                    "qwen2",
                    "qwen3",
                    "gemma2",
                    "gemma3_text",
                    "phi3",
                    "mixtral",
                    "qwen3_moe",
                ),
            ),
        ),
        ('{"model_type": "llama"}', MissingKey(key="num_hidden_layers")),
        (
            json.dumps({**LLAMA_3_2_1B, "num_hidden_layers": 0}),
            NotACount(key="num_hidden_layers", value="0"),
        ),
        (
            json.dumps({**LLAMA_3_2_1B, "hidden_size": "2048"}),
            NotACount(key="hidden_size", value="2048"),
        ),
        (
            json.dumps({**LLAMA_3_2_1B, "hidden_size": 2048.5}),
            NotACount(key="hidden_size", value="2048.5"),
        ),
        (
            json.dumps({**LLAMA_3_2_1B, "layers": True, "num_hidden_layers": True}),
            NotACount(key="num_hidden_layers", value="true"),
        ),
        (
            json.dumps({**LLAMA_3_2_1B, "tie_word_embeddings": "yes"}),
            NotABoolean(key="tie_word_embeddings", value="yes"),
        ),
        (
            json.dumps({**LLAMA_3_2_1B, "attention_bias": True}),
            Unsupported(key="attention_bias", value="true"),
        ),
        # LlamaConfig refuses a width the heads do not divide, head_dim or not (technical review, round 88).
        (
            json.dumps({**LLAMA_3_2_1B, "hidden_size": 2050}),
            NotAMultiple(key="hidden_size", of="num_attention_heads"),
        ),
        # Dropout, and Mixtral's router noise, add tensors in training that no estimate counts (technical review,
        # round 81): refused above zero.
        (
            json.dumps({**PHI_3_MINI, "resid_pdrop": 0.1}),
            Unsupported(key="resid_pdrop", value="0.1"),
        ),
        (
            json.dumps({**LLAMA_3_2_1B, "attention_dropout": 0.05}),
            Unsupported(key="attention_dropout", value="0.05"),
        ),
        (
            json.dumps({**MIXTRAL_8X7B, "router_jitter_noise": 0.01}),
            Unsupported(key="router_jitter_noise", value="0.01"),
        ),
        # The router's auxiliary loss, computed in training where the config asks for the router's logits (technical
        # review, round 83).
        (
            json.dumps({**QWEN3_30B_A3B, "output_router_logits": True}),
            Unsupported(key="output_router_logits", value="true"),
        ),
        (
            json.dumps({**QWEN3_30B_A3B, "mlp_only_layers": [0, 1]}),
            Unsupported(key="mlp_only_layers", value="[0, 1]"),
        ),
        (
            json.dumps({**QWEN3_30B_A3B, "decoder_sparse_step": 2}),
            Unsupported(key="decoder_sparse_step", value="2"),
        ),
        (
            json.dumps({**QWEN3_30B_A3B, "decoder_sparse_step": True}),
            Unsupported(key="decoder_sparse_step", value="true"),
        ),
        (
            json.dumps({**MIXTRAL_8X7B, "num_experts_per_tok": 9}),
            Unsupported(key="num_experts_per_tok", value="9"),
        ),
        ("[" * 10_000 + "]" * 10_000, TooDeep()),
        ('{"a": ' * 17 + "1" + "}" * 17, TooDeep()),
        (" " * (MAX_BYTES + 1), TooLong(limit=MAX_BYTES)),
    ],
)
def test_text_that_is_no_config_we_read_says_why(text, problem):
    with pytest.raises(ConfigProblem) as raised:
        read_config(text)
    assert raised.value == problem


def test_what_the_file_names_is_quoted_short_and_as_text():
    with pytest.raises(ConfigProblem) as raised:
        read_config(json.dumps({"model_type": "<script>alert(1)</script>" * 10}))
    quoted = raised.value.model_type
    assert len(quoted) == 60 and quoted.endswith("…")
    assert quoted.startswith("<script>")  # plain text: the page escapes it like any message


def test_brackets_inside_strings_are_no_nesting():
    config = {**LLAMA_3_2_1B, "_name_or_path": "[" * 100 + "{" * 100}
    assert read_config(json.dumps(config)).shape.layers == 16


def test_a_config_reads_its_sliding_window_as_transformers_does():
    def window(config: dict) -> int | None:
        return read_config(json.dumps(config)).shape.sliding_window

    # config.json's own, where the architecture has one: Gemma-2's 4,096, Phi-3-mini's 2,047.
    assert (window(GEMMA_2_2B), window(PHI_3_MINI)) == (4096, 2047)
    # Null is no window (Mixtral's); a key left out is the class's default (MistralConfig, Gemma2Config: 4,096).
    assert window(MIXTRAL_8X7B) is None
    mistral = {**{k: v for k, v in MIXTRAL_8X7B.items() if "expert" not in k}, "model_type": "mistral"}
    assert window(mistral) is None
    assert window({k: v for k, v in mistral.items() if k != "sliding_window"}) == 4096
    assert window({k: v for k, v in GEMMA_2_2B.items() if k != "sliding_window"}) == 4096
    # Qwen's window applies only where use_sliding_window is true (false, or left out, in every released config).
    assert window(QWEN2_5_0_5B) is None
    assert window({k: v for k, v in QWEN2_5_0_5B.items() if k != "use_sliding_window"}) is None
    assert window({**QWEN2_5_0_5B, "use_sliding_window": True}) == 32768
    assert window({**QWEN3_30B_A3B, "use_sliding_window": True}) is None  # its sliding_window is null
    # LlamaConfig has no window: the key means nothing there.
    assert window({**LLAMA_3_2_1B, "sliding_window": 4096}) is None
    # It is a size like any other, and no count depends on it.
    with pytest.raises(ConfigProblem) as raised:
        read_config(json.dumps({**GEMMA_2_2B, "sliding_window": 0}))
    assert raised.value == NotACount("sliding_window", "0")
    assert base_parameters(read_config(json.dumps({**GEMMA_2_2B, "sliding_window": None})).shape) == 2_614_341_888
