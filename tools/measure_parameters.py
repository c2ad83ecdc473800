"""Count parameters with transformers and peft themselves; run by tools/validate.py inside .venv-validate.

For every preset in calc.models.PRESETS, and a few small shapes per
architecture that exercise what no preset does (biases on o and the MLP, a
tied Qwen2 or Qwen3, an untied Gemma-2, a head_dim that is not
hidden_size // heads, fewer key and value heads in Phi-3, small mixtures of
experts), it builds the model on the meta device from a config object (no
weights, nothing downloaded) and records:

- ``parameters``: ``sum(p.numel() for p in model.parameters())``;
- ``quantized_weights``: the weights of the ``nn.Linear`` modules that
  transformers' 4-bit bitsandbytes loading replaces, selected as
  transformers/integrations/bitsandbytes.py, replace_with_bnb_linear, does;
- ``targets``: what a LoRA adapter can target in a decoder layer: the names
  of its ``nn.Linear`` modules and, in a mixture of experts, ``experts.``
  and the name of each of the experts' 3-D parameters;
- for each rank and set of those targets, peft's ``get_nb_trainable_parameters()``
  with ``LoraConfig(r=rank, target_modules=[modules], target_parameters=[experts' parameters])``.

It imports only calc.models from the repository. Usage: measure_parameters.py OUTPUT.json
"""

from __future__ import annotations

import dataclasses
import json
import sys
import warnings
from pathlib import Path

import peft
import torch
import transformers
from peft import LoraConfig, get_peft_model
from torch import nn
from transformers import AutoConfig, AutoModelForCausalLM
from transformers.quantizers.base import get_keys_to_not_convert
from transformers.quantizers.quantizers_utils import should_convert_module

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from calc.models import ARCHITECTURES, PRESETS, ModelShape  # noqa: E402  (the repository's own package)

# LoRA's count is linear in the rank: three ranks show it, and hold the published printouts (r = 8 and 16).
RANKS = (1, 8, 16)

_TEST_SHAPE = "tools/measure_parameters.py: a small test shape"
_TINY = {
    "layers": 2,
    "hidden_size": 64,
    "attention_heads": 4,
    "kv_heads": 2,
    "head_dim": 16,
    "intermediate_size": 96,
    "vocab_size": 100,
    "qkv_bias": False,
    "o_bias": False,
    "mlp_bias": False,
    "norms_per_layer": 2,
    "source": _TEST_SHAPE,
}
TEST_SHAPES = {
    "test/llama-biases-tied": ModelShape(
        **{**_TINY, "head_dim": 24, "qkv_bias": True, "o_bias": True, "mlp_bias": True},
        model_type="llama",
        tie_word_embeddings=True,
    ),
    "test/mistral-wide-heads": ModelShape(
        **{**_TINY, "kv_heads": 1, "head_dim": 32}, model_type="mistral", tie_word_embeddings=False
    ),
    "test/qwen2-tied": ModelShape(**{**_TINY, "qkv_bias": True}, model_type="qwen2", tie_word_embeddings=True),
    "test/qwen3-tied-wide-heads": ModelShape(
        **{**_TINY, "head_dim": 32}, model_type="qwen3", tie_word_embeddings=True, qk_norm=True
    ),
    "test/qwen3-biases": ModelShape(
        **{**_TINY, "qkv_bias": True, "o_bias": True}, model_type="qwen3", tie_word_embeddings=False, qk_norm=True
    ),
    "test/gemma2-untied": ModelShape(
        **{**_TINY, "head_dim": 8, "norms_per_layer": 4}, model_type="gemma2", tie_word_embeddings=False
    ),
    "test/gemma3-text-biases-untied": ModelShape(
        **{**_TINY, "head_dim": 8, "norms_per_layer": 4, "qkv_bias": True, "o_bias": True},
        model_type="gemma3_text",
        tie_word_embeddings=False,
        qk_norm=True,
    ),
    # Phi3Config's pad_token_id, 32000, must be a token of the vocabulary.
    "test/phi3-gqa-tied": ModelShape(
        **{**_TINY, "vocab_size": 32064}, model_type="phi3", tie_word_embeddings=True, fused_projections=True
    ),
    "test/mixtral-4-experts": ModelShape(
        **_TINY,
        model_type="mixtral",
        tie_word_embeddings=False,
        experts=4,
        experts_per_token=2,
        expert_intermediate_size=96,
    ),
    "test/qwen3-moe-tied": ModelShape(
        **{**_TINY, "head_dim": 32},
        model_type="qwen3_moe",
        tie_word_embeddings=True,
        qk_norm=True,
        experts=6,
        experts_per_token=3,
        expert_intermediate_size=40,
    ),
}


def transformers_config(shape: ModelShape) -> transformers.PretrainedConfig:
    """The config object for ``shape``, with the keys its config.json would have."""
    architecture = ARCHITECTURES[shape.model_type]
    kwargs = {
        "num_hidden_layers": shape.layers,
        "hidden_size": shape.hidden_size,
        "num_attention_heads": shape.attention_heads,
        "num_key_value_heads": shape.kv_heads,
        "intermediate_size": shape.intermediate_size,
        "vocab_size": shape.vocab_size,
        "tie_word_embeddings": shape.tie_word_embeddings,
        # Always stated: Gemma2Config's and Qwen3Config's defaults (256, 128) are not derived from the width.
        "head_dim": shape.head_dim,
    }
    # Only some configs have bias switches (the others fix theirs in the modeling code); a shape whose flags the
    # architecture cannot have will show as a count that differs from calc.formulas.parameters'.
    if architecture.attention_bias:
        if shape.qkv_bias != shape.o_bias:
            raise ValueError(f"{shape.model_type}'s attention_bias is one switch for q, k, v and o")
        kwargs["attention_bias"] = shape.o_bias
    if architecture.mlp_bias:
        kwargs["mlp_bias"] = shape.mlp_bias
    if architecture.experts:
        kwargs[architecture.experts] = shape.experts
        kwargs["num_experts_per_tok"] = shape.experts_per_token
        if architecture.experts_as_wide_as_mlp and shape.expert_intermediate_size != shape.intermediate_size:
            raise ValueError(f"{shape.model_type}'s experts are intermediate_size wide")
        kwargs[architecture.expert_width] = shape.expert_intermediate_size
    # The one value of each such key that the counts describe (Qwen3-MoE: experts in every layer).
    kwargs |= {key: json.loads(value) for key, value in architecture.supported.items()}
    if shape.model_type == "qwen3_moe":
        # The top-k weights renormalized, as every released Qwen3-MoE's config.json sets it (Qwen3MoeConfig: False);
        # calc.formulas.activations counts the division's saved tensors.
        kwargs["norm_topk_prob"] = True
    return AutoConfig.for_model(shape.model_type, **kwargs)


def build(shape: ModelShape) -> transformers.PreTrainedModel:
    with torch.device("meta"):
        return AutoModelForCausalLM.from_config(transformers_config(shape))


def quantized_weights(model: transformers.PreTrainedModel) -> int:
    """The weights 4-bit loading would quantize: as replace_with_bnb_linear chooses its modules."""
    skip = get_keys_to_not_convert(model) + list(getattr(model, "_keep_in_fp32_modules", None) or [])
    return sum(
        module.weight.numel()
        for name, module in model.named_modules()
        if should_convert_module(name, skip) and type(module) is nn.Linear
    )


def targets(model: transformers.PreTrainedModel) -> dict[str, list[str]]:
    """What LoRA can target in the first decoder layer, by part: the nn.Linear modules, the experts' parameters."""
    layer = model.model.layers[0]
    parts: dict[str, list[str]] = {}
    for name, module in layer.named_modules():
        if type(module) is nn.Linear:
            parts.setdefault(name.split(".")[0], []).append(name.rsplit(".", 1)[-1])
    experts = getattr(layer.mlp, "experts", None)
    if experts is not None:
        parts["experts"] = [f"experts.{name}" for name, _ in experts.named_parameters()]
    return parts


def lora_config(rank: int, names: list[str]) -> LoraConfig:
    modules = [name for name in names if not name.startswith("experts.")]
    parameters = [name for name in names if name.startswith("experts.")]
    return LoraConfig(r=rank, target_modules=modules or None, target_parameters=parameters or None)


def measure(shape: ModelShape) -> dict:
    model = build(shape)
    parts = targets(model)
    sets = parts | {"all": [n for names in parts.values() for n in names]}
    if {"q_proj", "v_proj"} <= set(sets["all"]):
        sets["q_v"] = ["q_proj", "v_proj"]
    result = {
        "class": type(model).__name__,
        "parameters": sum(p.numel() for p in model.parameters()),
        "quantized_weights": quantized_weights(model),
        "shape": dataclasses.asdict(shape),
        "targets": sets["all"],
        "lora": [],
    }
    for rank in RANKS:
        for names in sets.values():
            config = lora_config(rank, names)
            # The adapter's matrices are made on the meta device too: a 70B model's would take gigabytes.
            with torch.device("meta"):
                peft_model = get_peft_model(build(shape), config)
            trainable, total = peft_model.get_nb_trainable_parameters()
            result["lora"].append(
                {"rank": rank, "targets": names, "bias": config.bias, "trainable": trainable, "all_parameters": total}
            )
    return result


def main(output: Path) -> None:
    # Deprecation notices from transformers' own calls are no part of the measurement.
    warnings.filterwarnings("ignore", category=FutureWarning)
    models = {}
    for key, shape in [*PRESETS.items(), *TEST_SHAPES.items()]:
        models[key] = measure(shape)
        print(f"  measured {key}", flush=True)
    report = {
        "configurations": {"models": len(models), "lora": sum(len(m["lora"]) for m in models.values())},
        "models": models,
        "presets": sorted(PRESETS),
        "ranks": list(RANKS),
        "versions": {"peft": peft.__version__, "torch": torch.__version__, "transformers": transformers.__version__},
    }
    output.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.rsplit("Usage: ", 1)[1])
    main(Path(sys.argv[1]))
