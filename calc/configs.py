"""Reading a model's shape from the text of its ``config.json``, as transformers would build the model.

Pure and Babel-free: text in, a :class:`~calc.models.ModelShape` out, or a
:class:`ConfigProblem` of the kind found, which holds what its message quotes
and the message's id (the page translates and fills it). The
text is parsed as JSON data and nothing else: no value in it is ever
evaluated, and what it names is quoted back only as plain text.

A key the file leaves out takes the default of transformers' config class
for its ``model_type`` (:data:`calc.models.ARCHITECTURES` names them), except
the sizes every real config.json states (layers, widths, heads, vocabulary),
whose class defaults describe no real model: those must be there. A
multimodal config whose own ``model_type`` is not read here is read through
its ``text_config``, the language model, when that one is; a ``text_config``
does rely on its class's sizes (Gemma-3's leaves out its heads and
vocabulary), so there they take the defaults too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import ClassVar

from calc.marker import N_
from calc.models import ARCHITECTURES, ModelShape, architecture_shape

# A config.json is a few kilobytes; a megabyte is far more than any, and little enough to read in a browser.
MAX_BYTES = 1_000_000
# config.json nests two or three levels (rope_scaling, text_config); JSON nested deeper is not one.
MAX_DEPTH = 16
# How much of a value the file holds is quoted back in a message.
QUOTED = 60


@dataclass
class ConfigProblem(ValueError):
    """Why a text is not a config.json the calculator reads. Each kind is a subclass holding what its message quotes
    (a number as an ``int``, names as a tuple) and that message's id, ``words``, with a placeholder per field
    (:class:`calc.model_inputs.ConfigUnreadable` words any kind alike)."""

    words: ClassVar[str]

    def __str__(self) -> str:
        return repr(self)


@dataclass
class TooLong(ConfigProblem):
    limit: int
    words = N_("This is too long to be a config.json: paste one of at most %(limit)s\u00a0bytes.")


@dataclass
class TooDeep(ConfigProblem):
    words = N_("This JSON nests far deeper than a config.json does.")


@dataclass
class NotJson(ConfigProblem):
    line: int
    column: int
    words = N_("This is not valid JSON: look at line %(line)s, character %(column)s.")


@dataclass
class NotAnObject(ConfigProblem):
    words = N_("A config.json holds one JSON object, between braces.")


@dataclass
class UnknownModelType(ConfigProblem):
    model_type: str
    known: tuple[str, ...]
    words = N_("This calculator models the architectures %(known)s, not %(model_type)s.")


@dataclass
class KeyProblem(ConfigProblem):
    """A problem with one key's value: ``key`` is named where it sits in the file (``text_config.hidden_size``)."""

    key: str


@dataclass
class MissingKey(KeyProblem):
    words = N_("The config has no %(key)s.")


@dataclass
class NotACount(KeyProblem):
    value: str
    words = N_("%(key)s is %(value)s: it should be a whole number, at least one.")


@dataclass
class NotABoolean(KeyProblem):
    value: str
    words = N_("%(key)s is %(value)s: it should be true or false.")


@dataclass
class NotAMultiple(KeyProblem):
    """A size that transformers' config class requires to be a multiple of another (validate_architecture)."""

    of: str
    words = N_("%(key)s is not a multiple of %(of)s, and Transformers refuses such a config for this architecture.")


@dataclass
class Unsupported(KeyProblem):
    value: str
    words = N_("This calculator does not model a config with %(key)s set to %(value)s.")


@dataclass(frozen=True)
class Reading:
    """What a config.json says: the model's shape, and whether it came from a multimodal config's ``text_config``."""

    shape: ModelShape
    text_config: bool = field(default=False)


def read_config(text: str) -> Reading:
    """The shape a ``config.json``'s text describes.

    >>> reading = read_config('{"model_type": "qwen2", "num_hidden_layers": 24, "hidden_size": 896,'
    ...     ' "num_attention_heads": 14, "num_key_value_heads": 2, "intermediate_size": 4864,'
    ...     ' "vocab_size": 151936, "tie_word_embeddings": true}')
    >>> reading.shape.model_type, reading.shape.head_dim, reading.shape.qkv_bias
    ('qwen2', 64, True)
    >>> read_config('{"model_type": "gpt2"}')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    calc.configs.UnknownModelType: UnknownModelType(model_type='gpt2', known=('llama', ...))
    """
    if len(text.encode("utf-8", errors="replace")) > MAX_BYTES:
        raise TooLong(MAX_BYTES)
    if _depth(text) > MAX_DEPTH:
        raise TooDeep()
    try:
        config = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotJson(error.lineno, error.colno) from None
    except RecursionError:  # only a nesting _depth missed could get here; it is still not a config
        raise TooDeep() from None
    if not isinstance(config, dict):
        raise NotAnObject()
    model_type = config.get("model_type")
    if model_type is None:
        raise MissingKey("model_type")
    if model_type not in ARCHITECTURES:
        inner = config.get("text_config")
        if isinstance(inner, dict) and inner.get("model_type") in ARCHITECTURES:
            try:
                return Reading(_shape(inner, inner["model_type"], sized=True), text_config=True)
            except KeyProblem as problem:
                problem.key = f"text_config.{problem.key}"
                raise
        raise UnknownModelType(_quoted(model_type), tuple(ARCHITECTURES))
    return Reading(_shape(config, model_type))


def _shape(config: dict, model_type: str, *, sized: bool = False) -> ModelShape:
    """The shape of a ``model_type`` model from its config's keys, with the config class's defaults.

    ``sized``: the sizes too may be left to the class's defaults.
    """
    architecture = ARCHITECTURES[model_type]

    def size(key: str) -> int:
        return _count(config, key, architecture.sizes[key] if sized else None)

    sizes = {
        "layers": size("num_hidden_layers"),
        "hidden_size": size("hidden_size"),
        "attention_heads": size("num_attention_heads"),
        "intermediate_size": size("intermediate_size"),
        "vocab_size": size("vocab_size"),
    }
    # num_key_value_heads: the class's default, or None (LlamaConfig, Phi3Config): as many as the attention heads.
    sizes["kv_heads"] = _count(config, "num_key_value_heads", architecture.kv_heads or sizes["attention_heads"])
    # head_dim: the class's default (Gemma2Config 256, Qwen3Config 128), or None: hidden_size // num_attention_heads
    # (LlamaConfig.__post_init__; getattr(config, "head_dim", ...) in Qwen2Attention, Phi3Attention, Qwen3MoeAttention).
    sizes["head_dim"] = _count(
        config, "head_dim", architecture.head_dim or sizes["hidden_size"] // sizes["attention_heads"]
    )
    # LlamaConfig, Gemma2Config and Gemma3TextConfig refuse it, head_dim or not (technical review, round 88).
    if architecture.heads_divide_width and sizes["hidden_size"] % sizes["attention_heads"]:
        raise NotAMultiple("hidden_size", "num_attention_heads")
    tied = _boolean(config, "tie_word_embeddings", architecture.tie_word_embeddings)
    # Switches the page cannot show are refused rather than dropped: the count would be another model's.
    for switch in ("attention_bias", "mlp_bias"):
        if _boolean(config, switch, False):
            raise Unsupported(switch, "true")
    # Dropout in training adds masks the estimates do not count (technical review, round 81: a Phi-3 config with
    # dropout got the figures of one without).
    for rate in architecture.dropouts:
        value = config.get(rate)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float) or value > 0):
            raise Unsupported(rate, _quoted(value))
    experts = {}
    if architecture.experts is not None:
        defaults = architecture.expert_defaults
        experts = {
            name: _count(config, key, defaults[key])
            for name, key in (("experts", architecture.experts), ("experts_per_token", "num_experts_per_tok"))
        }
        # An expert's width: a key of its own, or the intermediate_size already read with the sizes (Mixtral).
        if architecture.experts_as_wide_as_mlp:
            experts["expert_intermediate_size"] = sizes["intermediate_size"]
        else:
            width = architecture.expert_width
            experts["expert_intermediate_size"] = _count(config, width, defaults[width])
        if experts["experts_per_token"] > experts["experts"]:
            raise Unsupported("num_experts_per_tok", str(experts["experts_per_token"]))
    # sliding_window: null is no window, a key left out the class's default; where a switch governs it (Qwen's
    # use_sliding_window, false by default), none unless the switch is true. It changes no count (ModelShape).
    window = None
    switch = architecture.window_switch
    if architecture.windowed and (switch is None or _boolean(config, switch, False)):
        if "sliding_window" not in config:
            window = architecture.sliding_window
        elif config["sliding_window"] is not None:
            window = _count(config, "sliding_window")
    for key, supported in architecture.supported.items():
        # Compared as the file writes it, so that true is not taken for 1; null, as left out, is the class's default.
        value = config.get(key)
        if value is not None and json.dumps(value) != supported:
            raise Unsupported(key, _quoted(value))
    return architecture_shape(model_type, tie_word_embeddings=tied, sliding_window=window, **sizes, **experts)


def _count(config: dict, key: str, default: int | None = None) -> int:
    """A whole number of at least one, or ``default`` where the key is left out or null."""
    value = config.get(key)
    if value is None:
        if default is None:
            raise MissingKey(key)
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise NotACount(key, _quoted(value))
    return value


def _boolean(config: dict, key: str, default: bool) -> bool:
    """True or false, or ``default`` where the key is left out or null (as :func:`_count` reads a count)."""
    value = config.get(key)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise NotABoolean(key, _quoted(value))
    return value


def _quoted(value: object) -> str:
    """A value as the file writes it, cut short: a message quotes it as plain text."""
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= QUOTED else text[: QUOTED - 1] + "…"


def _depth(text: str) -> int:
    """How deep the text's arrays and objects nest, counted outside strings (before json parses it).

    >>> _depth('{"a": [1, {"b": "[[["}]}')
    3
    """
    depth = deepest = 0
    in_string = escaped = False
    for character in text:
        if in_string:
            if escaped:
                escaped = False
            elif character == "\\":
                escaped = True
            elif character == '"':
                in_string = False
        elif character == '"':
            in_string = True
        elif character in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif character in "]}":
            depth -= 1
    return deepest
