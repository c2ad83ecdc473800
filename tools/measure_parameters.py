"""Count parameters with transformers and peft themselves; run by tools/validate.py inside .venv-validate.

For every preset in calc.models.PRESETS, and a few small shapes that
exercise what no preset does (biases on o and the MLP, a tied Qwen2, an
untied Gemma-2, a head_dim that is not hidden_size // heads), it builds the
model on the meta device from a config object (no weights, nothing
downloaded) and records:

- ``parameters``: ``sum(p.numel() for p in model.parameters())``;
- ``quantized_weights``: the weights of the ``nn.Linear`` modules that
  transformers' 4-bit bitsandbytes loading replaces, selected as
  transformers/integrations/bitsandbytes.py, replace_with_bnb_linear, does;
- for each rank and set of target modules, peft's
  ``get_nb_trainable_parameters()`` with ``LoraConfig(r=rank, target_modules=...)``.

Usage: measure_parameters.py OUTPUT.json
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

from calc.models import PRESETS, ModelShape  # noqa: E402  (the repository's own package, found through ROOT)

RANKS = (1, 8, 16, 64)
TARGET_SETS = {
    "q_v": ("q_proj", "v_proj"),
    "attention": ("q_proj", "k_proj", "v_proj", "o_proj"),
    "mlp": ("gate_proj", "up_proj", "down_proj"),
    "all": ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"),
}

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
    "test/gemma2-untied": ModelShape(
        **{**_TINY, "head_dim": 8, "norms_per_layer": 4}, model_type="gemma2", tie_word_embeddings=False
    ),
}


def transformers_config(shape: ModelShape) -> transformers.PretrainedConfig:
    """The config object for ``shape``, with the keys its config.json would have."""
    kwargs = {
        "num_hidden_layers": shape.layers,
        "hidden_size": shape.hidden_size,
        "num_attention_heads": shape.attention_heads,
        "num_key_value_heads": shape.kv_heads,
        "intermediate_size": shape.intermediate_size,
        "vocab_size": shape.vocab_size,
        "tie_word_embeddings": shape.tie_word_embeddings,
    }
    # config.json states head_dim where it is not hidden_size // heads; Gemma2Config's default (256) is not derived.
    if shape.model_type == "gemma2" or shape.head_dim != shape.hidden_size // shape.attention_heads:
        kwargs["head_dim"] = shape.head_dim
    # Only these configs have bias switches (Mistral and Qwen2 fix theirs in the modeling code); a shape whose
    # flags the architecture cannot have will show as a count that differs from calc.formulas.parameters'.
    if shape.model_type in ("llama", "gemma2"):
        if shape.qkv_bias != shape.o_bias:
            raise ValueError(f"{shape.model_type}'s attention_bias is one switch for q, k, v and o")
        kwargs["attention_bias"] = shape.qkv_bias
    if shape.model_type == "llama":
        kwargs["mlp_bias"] = shape.mlp_bias
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


def measure(shape: ModelShape) -> dict:
    model = build(shape)
    result = {
        "class": type(model).__name__,
        "parameters": sum(p.numel() for p in model.parameters()),
        "quantized_weights": quantized_weights(model),
        "shape": dataclasses.asdict(shape),
        "lora": [],
    }
    for rank in RANKS:
        for name, targets in TARGET_SETS.items():
            config = LoraConfig(r=rank, target_modules=list(targets))
            # The adapter's matrices are made on the meta device too: a 70B model's would take gigabytes.
            with torch.device("meta"):
                peft_model = get_peft_model(build(shape), config)
            trainable, total = peft_model.get_nb_trainable_parameters()
            result["lora"].append(
                {"rank": rank, "targets": name, "bias": config.bias, "trainable": trainable, "all_parameters": total}
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
        "target_sets": {name: list(targets) for name, targets in TARGET_SETS.items()},
        "versions": {"peft": peft.__version__, "torch": torch.__version__, "transformers": transformers.__version__},
    }
    output.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.rsplit("Usage: ", 1)[1])
    main(Path(sys.argv[1]))
