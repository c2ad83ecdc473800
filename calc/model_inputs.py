"""The part of a form that describes a model: a preset, or its shape typed field by field.

The LoRA and activation calculators share it: choosing a preset fills the
shape, editing the shape makes the model custom, and a custom shape is read
as a Llama-like decoder.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from gettext import NullTranslations

from babel import Locale

from calc.i18n import N_
from calc.inputs import Choice, Count, Input, Option
from calc.models import PRESETS, ModelShape
from calc.presets import CUSTOM, settle_preset
from calc.problems import InputProblem

DEFAULT_MODEL = "meta-llama/Llama-3.1-8B"


@dataclass
class HeadsDoNotDivide(InputProblem):
    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext("The hidden size must be divisible by the number of attention heads.")


@dataclass
class KvHeadsDoNotDivide(InputProblem):
    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext("The attention heads must be divisible by the number of key and value heads.")


def _shape_input(name: str, label: str, description: str, maximum: int) -> Count:
    return Count(
        name, label, description, default=Decimal(getattr(PRESETS[DEFAULT_MODEL], name)), maximum=Decimal(maximum)
    )


MODEL = Choice(
    "model",
    N_("Model"),
    N_("A model whose shape is filled in for you, or a shape of your own."),
    options=(*(Option(repo, repo) for repo in PRESETS), Option(CUSTOM, N_("Another model: type its shape"))),
    default=DEFAULT_MODEL,
)
SHAPE = (
    _shape_input("layers", N_("Layers"), N_("Decoder layers (num_hidden_layers)."), 1_000),
    _shape_input("hidden_size", N_("Hidden size"), N_("Width of the residual stream (hidden_size)."), 1_000_000),
    _shape_input("attention_heads", N_("Attention heads"), N_("Query heads per layer (num_attention_heads)."), 10_000),
    _shape_input(
        "kv_heads",
        N_("Key and value heads"),
        N_("As many as the attention heads, or fewer with grouped-query attention (num_key_value_heads)."),
        10_000,
    ),
    _shape_input(
        "intermediate_size",
        N_("Intermediate size"),
        N_("Width of the MLP's gate and up projections (intermediate_size)."),
        10_000_000,
    ),
    _shape_input("vocab_size", N_("Vocabulary"), N_("Tokens in the vocabulary (vocab_size)."), 10_000_000),
)


def shape_values(shape: ModelShape) -> dict[str, Decimal]:
    return {i.name: Decimal(getattr(shape, i.name)) for i in SHAPE}


def settle_shape(values: Mapping[str, object], changed: str | None) -> dict[str, object]:
    """A preset fills the shape; editing the shape makes the model custom."""
    return settle_preset(values, changed, choice="model", presets=PRESETS, fill=shape_values)


def typed_shape(values: Mapping[str, object]) -> ModelShape:
    """The shape typed in the form, as a Llama-like decoder: untied, no biases, two norms a layer.

    Raises an :class:`InputProblem` on the field at fault when the heads do
    not divide the width, or the key and value heads the heads.
    """
    hidden, heads, kv_heads = (int(values[name]) for name in ("hidden_size", "attention_heads", "kv_heads"))
    if hidden % heads:
        raise HeadsDoNotDivide(field="attention_heads")
    if heads % kv_heads:
        raise KvHeadsDoNotDivide(field="kv_heads")
    return ModelShape(
        model_type="llama",
        layers=int(values["layers"]),
        hidden_size=hidden,
        attention_heads=heads,
        kv_heads=kv_heads,
        head_dim=hidden // heads,  # LlamaConfig's default head_dim
        intermediate_size=int(values["intermediate_size"]),
        vocab_size=int(values["vocab_size"]),
        tie_word_embeddings=False,
        qkv_bias=False,
        o_bias=False,
        mlp_bias=False,
        norms_per_layer=2,
        source="",
    )


def shape_of(values: Mapping[str, object]) -> ModelShape:
    """The model the form describes: a preset's own shape, which knows what the form does not
    (Gemma-2's head_dim, tied embeddings, biases), or the typed one."""
    return PRESETS.get(values["model"]) or typed_shape(values)
