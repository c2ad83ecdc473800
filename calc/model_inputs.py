"""The part of a form that describes a model: a preset, or its shape typed field by field.

The VRAM, LoRA and activation calculators share it: choosing a preset fills the
shape, editing the shape makes the model custom. A page shows the shape
fields it needs (:func:`shape_inputs`); a custom shape is read as the
architecture the page's ``architecture`` field names, or as a Llama where
the page has none, and a field a page leaves out takes transformers'
default (``head_dim``: hidden size over heads; untied embeddings; no experts).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from decimal import Decimal
from fractions import Fraction
from gettext import NullTranslations

from babel import Locale

from calc.calculator import Changed
from calc.configs import ConfigProblem, Reading, read_config
from calc.formatting import format_names, format_number, rounded
from calc.formulas.parameters import base_parameters
from calc.i18n import N_
from calc.inputs import Amount, Choice, Count, Field, Input, Option, Pasted
from calc.models import ARCHITECTURES, PRESETS, ModelShape, architecture_shape
from calc.presets import CUSTOM, settle_preset
from calc.problems import InputProblem, NamesTheWayOut

DEFAULT_MODEL = "meta-llama/Llama-3.1-8B"


@dataclass
class HeadsDoNotDivide(InputProblem):
    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext("The hidden size must be divisible by the number of attention heads.")


@dataclass
class KvHeadsDoNotDivide(InputProblem):
    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext(
            "The number of attention heads must be divisible by the number of key and value heads."
        )


@dataclass
class ExpertsWithoutMixture(NamesTheWayOut, InputProblem):
    """An expert field filled in for an architecture that has none; ``names``: those that have experts."""

    words = N_("Only a mixture of experts has these: leave the field blank, or choose %(names)s.")
    style = "or"


@dataclass
class WindowWithoutSlidingLayers(NamesTheWayOut, InputProblem):
    """A sliding window typed in for an architecture whose config has none; ``names``: those that have one."""

    words = N_("Only some architectures have a sliding window: leave the field blank, or choose %(names)s.")
    style = "or"


@dataclass
class MixtureNeedsValue(InputProblem):
    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext("A mixture of experts needs this value.")


@dataclass
class MoreExpertsPerTokenThanExperts(InputProblem):
    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext("A token cannot go to more experts than a layer has.")


@dataclass
class ExpertWidthIsIntermediateSize(InputProblem):
    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext(
            "This architecture's experts are as wide as its intermediate size: enter the same value."
        )


# The model choice's groups, by family and size; a family's name is no catalog string, it reads the same everywhere.
PRESET_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "Llama",
        (
            "meta-llama/Llama-3.2-1B",
            "meta-llama/Llama-3.2-3B",
            "meta-llama/Llama-2-7b-hf",
            "meta-llama/Llama-3.1-8B",
            "meta-llama/Llama-3.1-70B",
        ),
    ),
    (
        "Qwen2.5",
        tuple(f"Qwen/Qwen2.5-{size}" for size in ("0.5B", "1.5B", "3B", "7B", "14B", "32B", "72B")),
    ),
    ("Qwen3", tuple(f"Qwen/Qwen3-{size}" for size in ("0.6B", "1.7B", "4B", "8B", "14B", "32B"))),
    ("Gemma-2", ("google/gemma-2-2b", "google/gemma-2-9b", "google/gemma-2-27b")),
    ("Gemma-3", ("google/gemma-3-1b-pt",)),
    ("Mistral", ("mistralai/Mistral-7B-v0.1", "mistralai/Mistral-Nemo-Base-2407")),
    ("Phi-3", ("microsoft/Phi-3-mini-4k-instruct",)),
    (N_("Mixture of experts"), ("mistralai/Mixtral-8x7B-v0.1", "Qwen/Qwen3-30B-A3B")),
)


def model_choice(
    keep: Callable[[ModelShape], bool] = lambda shape: True,
    *,
    description: str = N_("Choose a model to fill in its shape, or type a shape of your own."),
    kind: type[Choice] = Choice,
    also: tuple[Option, ...] = (),
) -> Choice:
    """A ``model`` choice (a ``kind``, for a page whose field words more) of the presets ``keep`` accepts, grouped by
    family, then a custom model, then the options ``also`` gives (which ``description`` then names)."""
    options = [Option(repo, repo, group) for group, repos in PRESET_GROUPS for repo in repos if keep(PRESETS[repo])]
    return kind(
        "model",
        N_("Model from the list"),
        description,
        options=(*options, Option(CUSTOM, N_("Another model: type its shape")), *also),
        default=DEFAULT_MODEL,
    )


MODEL = model_choice()

# The values a true/false field takes, in the page and in the address.
TRUE, FALSE = "true", "false"


@dataclass
class ConfigUnreadable(InputProblem):
    """A pasted text that is no config.json the calculator reads; ``problem`` is the reader's reason."""

    problem: ConfigProblem

    @classmethod
    def examples(cls) -> tuple[InputProblem, ...]:
        # Every kind of reason, each field holding one of what message() words: a count, names or a text.
        held = {"int": 2, "tuple[str, ...]": ("x", "y"), "str": "x"}
        return tuple(cls(kind(*(held[f.type] for f in fields(kind)))) for kind in _leaves(ConfigProblem))

    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        # What the reason holds as the locale writes it: a number grouped, names joined as a list.
        details = {}
        for held in fields(self.problem):
            value = getattr(self.problem, held.name)
            if isinstance(value, int):
                value = format_number(Decimal(value), locale)
            elif isinstance(value, tuple):
                value = format_names(value, locale)
            details[held.name] = value
        return translations.gettext(self.problem.words) % details


def _leaves(base: type) -> list[type]:
    """The kinds under ``base`` that no other kind derives from."""
    return [leaf for kind in base.__subclasses__() for leaf in (_leaves(kind) or [kind])]


def _reading(text: str) -> Reading:
    """The config.json's shape, or the reason it is not one, for the field to show."""
    try:
        return read_config(text)
    except ConfigProblem as problem:
        raise ConfigUnreadable(problem) from None


CONFIG = Pasted(
    "config",
    N_("Paste a config.json"),
    N_(
        "The model's config.json, as its repository holds it. It fills in the shape below; the precision stays the "
        "one chosen here, whatever dtype the file names, since how you load and train the model decides it. For a "
        "multimodal model, the text_config is read as the language model, and the vision encoder and the image "
        "tokens are not counted. Since peft matches target_modules by name across the whole model, it also adapts the "
        "vision encoder's modules of those names, unless target_modules is a regular expression that names the "
        "language model's alone."
    ),
    parse=_reading,
)


def _size(name: str, label: str, description: str, maximum: int, *, optional: bool = False) -> Count:
    default = getattr(PRESETS[DEFAULT_MODEL], name)
    return Count(
        name,
        label,
        description,
        default=Decimal(default) if default else None,
        maximum=Decimal(maximum),
        optional=optional,
        example=Decimal(8) if optional else None,
    )


_SHAPE_FIELDS: tuple[Field, ...] = (
    Choice(
        "architecture",
        N_("Architecture"),
        N_("The model_type in its config.json, which fixes its biases, norms, and projections."),
        options=tuple(Option(name, name) for name in ARCHITECTURES),
        default=PRESETS[DEFAULT_MODEL].model_type,
    ),
    _size("layers", N_("Layers"), N_("Decoder layers (num_hidden_layers)."), 1_000),
    _size("hidden_size", N_("Hidden size"), N_("Width of the residual stream (hidden_size)."), 1_000_000),
    _size("attention_heads", N_("Attention heads"), N_("Query heads per layer (num_attention_heads)."), 10_000),
    _size(
        "kv_heads",
        N_("Key and value heads"),
        N_("As many as the attention heads, or fewer with grouped-query attention (num_key_value_heads)."),
        10_000,
    ),
    _size(
        "head_dim",
        N_("Head dimension"),
        N_("Width of each attention head (head_dim): often the hidden size over the heads, but not always."),
        100_000,
    ),
    _size(
        "intermediate_size",
        N_("Intermediate size"),
        N_("Width of the MLP's gate and up projections (intermediate_size)."),
        10_000_000,
    ),
    _size("vocab_size", N_("Vocabulary"), N_("Tokens in the vocabulary (vocab_size)."), 10_000_000),
    Choice(
        "tie_word_embeddings",
        N_("Tied embeddings"),
        N_("Whether the output layer, lm_head, is the embedding matrix itself (tie_word_embeddings)."),
        options=(Option(TRUE, N_("Yes: one matrix, counted once")), Option(FALSE, N_("No: two matrices"))),
        default=TRUE if PRESETS[DEFAULT_MODEL].tie_word_embeddings else FALSE,
    ),
    _size(
        "experts",
        N_("Experts"),
        N_("In a mixture of experts, the experts in each layer (num_local_experts, num_experts); blank otherwise."),
        100_000,
        optional=True,
    ),
    _size(
        "experts_per_token",
        N_("Experts per token"),
        N_("How many experts each token is sent to (num_experts_per_tok); blank without experts."),
        100_000,
        optional=True,
    ),
    _size(
        "expert_intermediate_size",
        N_("Expert intermediate size"),
        N_("Width of each expert's MLP (moe_intermediate_size; in Mixtral, intermediate_size)."),
        10_000_000,
        optional=True,
    ),
    # Read only to tell whether the activation estimate holds (calc.step_outputs.window_note): no count depends on it.
    _size(
        "sliding_window",
        N_("Sliding window"),
        N_(
            "How many tokens, itself included, each token sees in the sliding-window layers (sliding_window); blank if "
            "no layer uses a sliding window, as when Qwen's use_sliding_window is false."
        ),
        10_000_000,
        optional=True,
    ),
)
SHAPE_FIELDS = {field.name: field for field in _SHAPE_FIELDS}


def shape_values(shape: ModelShape, names: Iterable[str] = SHAPE_FIELDS) -> dict[str, object]:
    """A shape's values for the fields ``names``, as the fields hold them."""
    values = {
        "architecture": shape.model_type,
        "tie_word_embeddings": TRUE if shape.tie_word_embeddings else FALSE,
        **{
            name: Decimal(getattr(shape, name)) if getattr(shape, name) else None
            for name in SHAPE_FIELDS
            if name not in ("architecture", "tie_word_embeddings")
        },
    }
    return {name: values[name] for name in names}


def shape_inputs(*names: str) -> tuple[tuple[Field, ...], Callable[[Mapping[str, object], Changed], dict]]:
    """The shape fields ``names``, in the order given, and the ``settle`` that keeps them in step with ``model``.

    >>> fields, settle = shape_inputs("layers", "head_dim")
    >>> [field.name for field in fields]
    ['layers', 'head_dim']
    >>> settle({"model": "Qwen/Qwen3-0.6B", "layers": Decimal(4), "head_dim": Decimal(8)}, frozenset({"model"}))
    {'layers': Decimal('28'), 'head_dim': Decimal('128')}
    """
    fields = tuple(SHAPE_FIELDS[name] for name in names)

    def settle(values: Mapping[str, object], changed: Changed) -> dict[str, object]:
        """A preset or a pasted config.json fills the shape; editing the shape makes the model custom."""
        if (reading := values.get("config")) is not None:
            # The config becomes the custom shape it describes, and leaves its field empty for the next.
            return {"model": CUSTOM, **shape_values(reading.shape, names), "config": None}
        return settle_preset(
            values, changed, choice="model", presets=PRESETS, fill=lambda shape: shape_values(shape, names)
        )

    return fields, settle


# The fields a typed shape cannot do without; the others have transformers' defaults.
TYPED_SHAPE = ("layers", "hidden_size", "attention_heads", "kv_heads", "intermediate_size", "vocab_size")


def typed_shape(values: Mapping[str, object]) -> ModelShape:
    """The shape typed in the form, as the architecture it names (a Llama where the form has no such field).

    Raises :class:`InputProblem` on the field at fault when the heads do
    not divide the width (where the form has no head dimension, or the
    architecture's config class refuses it anyway), the key and value heads
    do not divide the heads, or the experts' or the sliding window's fields
    do not fit the architecture.
    """
    model_type = values.get("architecture", "llama")
    hidden, heads, kv_heads = (int(values[name]) for name in ("hidden_size", "attention_heads", "kv_heads"))
    if ("head_dim" not in values or ARCHITECTURES[model_type].heads_divide_width) and hidden % heads:
        raise HeadsDoNotDivide(field="attention_heads")
    if heads % kv_heads:
        raise KvHeadsDoNotDivide(field="kv_heads")
    # LlamaConfig's default head_dim where the form has none.
    head_dim = int(values.get("head_dim") or hidden // heads)
    intermediate = int(values["intermediate_size"])
    experts = {
        name: int(values.get(name) or 0) for name in ("experts", "experts_per_token", "expert_intermediate_size")
    }
    if ARCHITECTURES[model_type].experts is None:
        for name, value in experts.items():
            if value:
                mixtures = tuple(key for key, architecture in ARCHITECTURES.items() if architecture.experts)
                raise ExpertsWithoutMixture(mixtures, field=name)
    else:
        for name, value in experts.items():
            if not value:
                raise MixtureNeedsValue(field=name)
        if experts["experts_per_token"] > experts["experts"]:
            raise MoreExpertsPerTokenThanExperts(field="experts_per_token")
        if ARCHITECTURES[model_type].experts_as_wide_as_mlp and experts["expert_intermediate_size"] != intermediate:
            raise ExpertWidthIsIntermediateSize(field="expert_intermediate_size")
    window = int(values.get("sliding_window") or 0) or None
    if window and not ARCHITECTURES[model_type].windowed:
        raise WindowWithoutSlidingLayers(
            tuple(key for key, architecture in ARCHITECTURES.items() if architecture.windowed), field="sliding_window"
        )
    return architecture_shape(
        model_type,
        layers=int(values["layers"]),
        hidden_size=hidden,
        attention_heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        intermediate_size=intermediate,
        vocab_size=int(values["vocab_size"]),
        tie_word_embeddings=values.get("tie_word_embeddings") == TRUE,
        sliding_window=window,
        **experts,
    )


def shape_of(values: Mapping[str, object]) -> ModelShape:
    """The model the form describes: a preset's own shape, which knows what the form may not
    (Gemma-2's head_dim, tied embeddings, biases), or the typed one."""
    return PRESETS.get(values["model"]) or typed_shape(values)


# The model choice's value for a model known by its parameter count alone (the VRAM page's): no shape.
COUNT = "count"


def billions(shape: ModelShape) -> Decimal:
    """A model's parameter count, in billions as a count field holds it: to hundredths, what a reader would type
    (8.03, not 8.030261248), or to two significant digits below a hundredth, so that a small test model is never 0
    (4,212,992 is 0.0042). A preset's step counts its shape's own parameters; the field's figure is read only in the
    count mode, where it is the reader's.

    >>> billions(PRESETS["meta-llama/Llama-3.1-8B"])
    Decimal('8.03')
    """
    count = base_parameters(shape)
    # Two significant digits of a count below ten million; at most nine places, a single parameter, as the field takes.
    places = min(9, max(2, 11 - len(str(count))))
    return rounded(Fraction(count, 10**9), places)


def _exact_billions(shape: ModelShape) -> Decimal:
    return Decimal(base_parameters(shape)).scaleb(-9)


def count_mode(
    settle_shape: Callable[[Mapping[str, object], Changed], dict], count: Amount
) -> Callable[[Mapping[str, object], Changed], dict]:
    """The ``settle`` of a model that may also be known by its parameter count alone, typed in ``count`` (billions),
    around the shape's (:func:`shape_inputs`): a preset or a pasted config fills the shape; typing a shape field makes
    the model custom, and the count follows the shape; typing a count makes the model :data:`COUNT` and leaves the
    shape aside."""

    def shapes_count(values: Mapping[str, object]) -> tuple[Decimal, ...]:
        """The count of the shape the form names, a preset's or one typed in full, as the field shows it (8.03) and as
        an older address carries it exactly (8.030261248); none where the shape is incomplete or cannot be."""
        model = values.get("model")
        try:
            if model in PRESETS or (model == CUSTOM and all(values.get(name) for name in TYPED_SHAPE)):
                shape = shape_of(values)
                return billions(shape), _exact_billions(shape)
        except InputProblem:
            pass  # its field says so
        return ()

    def counted(values: Mapping[str, object], changed: Changed) -> bool:
        """Whether the count is one of the reader's own, which makes the count mode: an address's count beside another
        model's shape, a custom one's too (Italian review, round 65: ?model=custom&parameters=13 was dropped in
        silence for the default shape's 8.03)."""
        given = values.get(count.name)
        own = shapes_count(values)
        if changed is None:
            # An address's count that is not its preset's (?parameters=7.5). A link that gives only the model (another
            # page's, ?model=Qwen/Qwen3-8B) leaves the default count, the default preset's: that is none of its own.
            return bool(own) and given not in (None, *own, count.default)
        # Typed, unless the preset's own count was typed again.
        return count.name in changed and given not in own

    def settle(values: Mapping[str, object], changed: Changed) -> dict[str, object]:
        settled = settle_shape(values, changed)
        model = values.get("model")
        if counted(values, changed):
            # Whatever was edited with the count: the shape settles as ever, and is left aside.
            return settled if settled.get("model", model) == COUNT else {**settled, "model": COUNT}
        if changed and changed & SHAPE_FIELDS.keys() and model == COUNT:
            settled["model"] = CUSTOM
        current = {**values, **settled}
        model = current.get("model")
        if model not in (None, COUNT) and (model in PRESETS or all(current.get(name) for name in TYPED_SHAPE)):
            try:
                shown = billions(shape_of(current))
            except InputProblem:
                shown = None  # a shape that cannot be: its field says so
            if shown is not None and shown != current.get(count.name):
                settled[count.name] = shown
        return settled

    return settle
