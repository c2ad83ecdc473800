"""The inputs of a training step that several pages share, and the :class:`~calc.formulas.step.Setting` they describe.

The method (full fine-tuning, LoRA or QLoRA, with the adapter's rank and
target modules), the precision the layers compute in, the sequence length,
the attention kernel and the recomputation: the VRAM, LoRA and activation
pages take them under the same names, so that a link from one page fills the
other (the micro-batch too, which the accumulation page shares:
:mod:`calc.batch_inputs`). The arithmetic is :mod:`calc.formulas.step`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from gettext import NullTranslations

from babel import Locale

from calc import batch_inputs
from calc.calculator import Changed
from calc.formatting import format_names
from calc.formulas.activations import PRECISION_BYTES
from calc.formulas.model_states import RECIPES
from calc.formulas.parameters import TARGET_MODULES, expert_shapes, linear_shapes, target_modules
from calc.formulas.step import Refusal, Setting, refusal
from calc.i18n import N_
from calc.inputs import Choice, ChoiceSet, Count, Input, Option
from calc.model_inputs import DEFAULT_MODEL, TYPED_SHAPE, shape_of
from calc.models import ARCHITECTURES, PRESETS, ModelShape, architecture_shape
from calc.problems import InputProblem, NamesTheWayOut, quantity

METHOD = Choice(
    "method",
    N_("Method"),
    N_(
        "What the run trains: every parameter, or a LoRA adapter over a frozen base model, kept in the run's precision "
        "or, with QLoRA, with its projections in 4\u00a0bits."
    ),
    options=(
        Option("full", N_("Full fine-tuning: every parameter"), short=N_("full fine-tuning")),
        Option("lora", N_("LoRA: an adapter over a frozen base"), short="LoRA"),
        Option("qlora", N_("QLoRA: an adapter over a frozen 4-bit base"), short="QLoRA"),
    ),
    default="lora",
)


def _smallest(model_type: str) -> ModelShape:
    """A model of ``model_type`` with every size one: what it has to target follows from the architecture alone."""
    mixture = {"experts": 1, "experts_per_token": 1, "expert_intermediate_size": 1}
    sizes = dict.fromkeys(("layers", "hidden_size", "attention_heads", "kv_heads", "head_dim", "intermediate_size"), 1)
    return architecture_shape(
        model_type,
        **sizes,
        vocab_size=1,
        tie_word_embeddings=False,
        **(mixture if ARCHITECTURES[model_type].experts else {}),
    )


def architecture_targets(model_type: str) -> tuple[str, ...]:
    """What LoRA can target in any model of ``model_type``: the names follow from the architecture alone (fused
    projections, experts), whatever the sizes.

    >>> architecture_targets("phi3")
    ('qkv_proj', 'o_proj', 'gate_up_proj', 'down_proj')
    >>> architecture_targets("qwen3")
    ('q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj')
    """
    return target_modules(_smallest(model_type))


def _model_targets(values: Mapping[str, object]) -> tuple[str, ...] | None:
    """The chosen model's own target modules: a preset's, or those of the architecture typed (a Llama where the page
    has no such field, as calc.model_inputs.typed_shape reads it); ``None`` while the architecture is refused."""
    preset = PRESETS.get(values.get("model"))
    model_type = preset.model_type if preset else values.get("architecture", "llama")
    return None if model_type is None else architecture_targets(model_type)


# The bound below is the page's; the model's own, each chosen projection's smaller size, is checked with the model
# (technical review, round 75: the hint promised 65,536 where 4,096 was the most).
RANK = Count(
    "rank",
    N_("Rank"),
    N_(
        "The adapter's rank r: at most the highest rank any chosen projection can have (the smaller of its input and "
        "output sizes). A narrower projection accepts that rank too, which adds parameters and nothing else."
    ),
    default=Decimal(16),
    maximum=Decimal(65_536),
)
TARGETS = ChoiceSet(
    "target_modules",
    N_("Target modules"),
    N_(
        "The projections that get an adapter, named as in peft's target_modules. In a mixture of experts, the "
        "experts can get one too, named as in peft's target_parameters. Names the model does not have are rejected."
    ),
    options=tuple(Option(name, name) for name in TARGET_MODULES),
    default=frozenset(target_modules(PRESETS[DEFAULT_MODEL])),
    offered_by=_model_targets,
)
# The targets that are a mixture's expert weights, in any architecture, preset or typed: the step does not model an
# adapter on them (calc.formulas.step.adapts_experts), so choosing a model never brings them (with_targets' offered).
EXPERT_TARGETS = frozenset(name for model_type in ARCHITECTURES for name in expert_shapes(_smallest(model_type)))
# The targets a model brings when chosen, on every page that totals the step: the same run on the LoRA and VRAM pages.
STEP_TARGETS = tuple(name for name in TARGET_MODULES if name not in EXPERT_TARGETS)


def _step_model_targets(values: Mapping[str, object]) -> tuple[str, ...] | None:
    targets = _model_targets(values)
    return None if targets is None else tuple(name for name in targets if name not in EXPERT_TARGETS)


# The target modules on the pages whose results are the step's (VRAM, activations): a mixture's experts are not
# offered, as no adapter on them is modelled; the LoRA page, which counts one, offers them (TARGETS).
STEP_TARGET_MODULES = replace(
    TARGETS,
    description=N_(
        "The projections that get an adapter, named as in peft's target_modules. This calculator does not model the "
        "step with an adapter on the experts of a mixture, so it does not offer them. The LoRA parameter calculator "
        "counts the parameters of such an adapter. Names the model does not have are rejected."
    ),
    offered_by=_step_model_targets,
)
PRECISION = Choice(
    "precision",
    N_("Precision"),
    N_("The dtype the layers compute in, which their activations share: the model's own, or the one autocast uses."),
    options=tuple(Option(name, name) for name in PRECISION_BYTES),
    default="bf16",
)
SEQUENCE_LENGTH = batch_inputs.SEQUENCE_LENGTH
ATTENTION = Choice(
    "attention",
    N_("Attention kernel"),
    N_("Whether the attention probabilities are kept for the backward pass."),
    options=(
        Option("eager", N_("Eager: keeps the attention probabilities"), short=N_("eager")),
        Option("flash", N_("Fused (FlashAttention, or a fused SDPA backend): recomputes them"), short=N_("fused")),
    ),
    default="flash",
)
RECOMPUTATION = Choice(
    "recomputation",
    N_("Recomputation"),
    N_(
        "What the backward pass recomputes instead of keeping. Selective recomputation is Megatron-LM's and NeMo's: "
        "Hugging Face Transformers does not offer it, so with its models choose none or full."
    ),
    options=(
        Option("none", N_("None"), short=N_("no recomputation")),
        Option("selective", N_("Selective (Megatron-LM, NeMo): recomputes the attention core"), short=N_("selective")),
        Option("full", N_("Full: every layer (gradient checkpointing)"), short=N_("full")),
    ),
    default="full",
)


@dataclass
class NotInModel(InputProblem):
    """Target modules the model lacks: ``missing``, and the projections it has, ``available``."""

    missing: tuple[str, ...]
    available: tuple[str, ...]

    @classmethod
    def examples(cls) -> tuple[InputProblem, ...]:
        return (cls(("x",), ("y", "z")), cls(("x", "y"), ("z",)))

    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        # "lacks" and a plain list: a negated "or" list reads wrongly in Spanish and Italian, which want "ni" and "né".
        return translations.gettext("This model lacks %(missing)s. Its projections are %(available)s.") % {
            "missing": format_names(self.missing, locale),
            "available": format_names(self.available, locale),
        }


@dataclass
class RecipeComputesIn(NamesTheWayOut, InputProblem):
    """A precision the chosen recipe does not compute in; ``names``: those it does."""

    words = N_("Choose %(names)s: this recipe supports no other precision.")
    style = "or"


@dataclass
class ExpertsNotModelled(InputProblem):
    """An adapter on a mixture's expert weights, whose step the page does not model; the ways out say whether the page
    takes the activation memory typed instead (``activation_field``)."""

    activation_field: bool

    @classmethod
    def examples(cls) -> tuple[InputProblem, ...]:
        return (cls(True), cls(False))

    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        if self.activation_field:
            return translations.gettext(
                "An adapter on the experts' weights is not modeled in the step: choose other target modules, or "
                "enter the activation memory."
            )
        return translations.gettext("An adapter on the experts' weights is not modeled: choose other target modules.")


@dataclass
class Refused(InputProblem):
    """A setting calc.formulas.step refuses (:func:`~calc.formulas.step.refusal`), in its own words on the method's
    field: whether the page has a recipe field (``recipe_field``; the others assume AdamW, adamw_recipe) decides
    the ways out."""

    refusal: Refusal
    recipe_field: bool

    @classmethod
    def examples(cls) -> tuple[InputProblem, ...]:
        # Every kind of refusal, for each adapter, on a form with a recipe field and without.
        return tuple(
            cls(kind(method), field)
            for kind in Refusal.__subclasses__()
            for method in ("lora", "qlora")
            for field in (True, False)
        )

    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext(self.refusal.words(self.recipe_field))


def checked_targets(values: Mapping[str, object], shape: ModelShape, *, experts: bool = True) -> frozenset[str]:
    """The chosen target modules, refused on their field when the model, ``shape``, lacks one (the refusal lists its
    projections, its experts only where the page offers them, ``experts``); and the rank, refused where no chosen
    projection's update B·A could have that rank, above the largest of their smaller sides (Hu et al., 2021, §4.1:
    r ≪ min(d, k))."""
    missing = values["target_modules"] - set(target_modules(shape))
    if missing:
        available = [name for name in target_modules(shape) if experts or name not in EXPERT_TARGETS]
        raise NotInModel(
            tuple(name for name in TARGET_MODULES if name in missing), tuple(available), field="target_modules"
        )
    sizes = {**linear_shapes(shape), **{name: size[1:] for name, size in expert_shapes(shape).items()}}
    highest = max((min(sizes[name]) for name in values["target_modules"]), default=None)
    if highest is not None and int(values["rank"]) > highest:
        raise RankAboveWidth(Decimal(highest), field="rank")
    return values["target_modules"]


@dataclass
class RankAboveWidth(InputProblem):
    """A rank above ``width``, the highest rank any chosen projection's update can have: the adapter would add
    parameters, not rank."""

    width: Decimal

    @classmethod
    def examples(cls) -> tuple[InputProblem, ...]:
        return (cls(Decimal(512)),)

    def message(self, input: Input, locale: Locale, translations: NullTranslations) -> str:
        return translations.gettext(
            "Enter at most %(width)s. No update of a chosen projection can have a higher rank, so a higher one adds "
            "parameters and nothing else."
        ) % {"width": quantity(self.width, input, locale)}


def step_recipe(optimizer: str, precision: str, method: str, *, recipe_field: bool) -> str:
    """The step recipe (:data:`calc.formulas.step.STEP_RECIPES`) of a recipe computing in ``precision``; a refusal
    words its ways out by whether the page has a recipe field.

    >>> step_recipe("adam-fp32", "bf16", "full", recipe_field=True)
    'autocast-bf16'
    """
    precisions = RECIPES[optimizer].computes_in
    if precision not in precisions:
        raise RecipeComputesIn(tuple(precisions), field="precision")
    recipe = precisions[precision].step
    if refused := refusal(recipe, method):
        raise Refused(refused, recipe_field, field="method")
    return recipe


def adamw_recipe(precision: str) -> str:
    """The recipe a page without an optimizer field assumes: AdamW, in mixed precision (the adapter in peft's fp32,
    a frozen base in 16 bits), or all in fp32. Each computes in its precision (calc.formulas.model_states.RECIPES).

    >>> adamw_recipe("fp16"), adamw_recipe("fp32")
    ('adamw-mixed', 'adam-fp32')
    """
    return "adam-fp32" if precision == "fp32" else "adamw-mixed"


def step_setting(
    values: Mapping[str, object],
    shape: ModelShape,
    optimizer: str,
    *,
    recipe_field: bool,
    zero_stage: int = 0,
    gpus: int = 1,
) -> Setting:
    """The step the form describes for the model ``shape`` (:func:`calc.model_inputs.shape_of`, which the page has
    already read), trained with ``optimizer`` (a :data:`calc.formulas.model_states.RECIPES` id).

    ``recipe_field``: whether ``optimizer`` is the page's recipe field's (else :func:`adamw_recipe`'s choice), so
    that a refusal offers another recipe as a way out only where the reader can choose one.
    """
    method = values["method"]
    # Full fine-tuning has no adapter: its fields are left to Setting's defaults.
    adapter = (
        {"lora_rank": int(values["rank"]), "lora_targets": tuple(sorted(checked_targets(values, shape, experts=False)))}
        if method != "full"
        else {}
    )
    return Setting(
        step_recipe(optimizer, values["precision"], method, recipe_field=recipe_field),
        int(values["sequence_length"]),
        attention=values["attention"],
        recomputation=values["recomputation"],
        method=method,
        **adapter,
        zero_stage=zero_stage,
        gpus=gpus,
    )


# What does the same job under another architecture's names: Phi-3 fuses q, k, v and gate, up;
# a mixture of experts has its MLP in the experts' 3-D parameters.
COUNTERPARTS = {
    "q_proj": ("qkv_proj",),
    "k_proj": ("qkv_proj",),
    "v_proj": ("qkv_proj",),
    "qkv_proj": ("q_proj", "k_proj", "v_proj"),
    "gate_proj": ("gate_up_proj", "experts.gate_up_proj"),
    "up_proj": ("gate_up_proj", "experts.gate_up_proj"),
    "gate_up_proj": ("gate_proj", "up_proj", "experts.gate_up_proj"),
    "experts.gate_up_proj": ("gate_proj", "up_proj", "gate_up_proj"),
    "down_proj": ("experts.down_proj",),
    "experts.down_proj": ("down_proj",),
}


def with_targets(
    settle_shape: Callable[[Mapping[str, object], Changed], dict[str, object]],
    offered: Collection[str] = TARGET_MODULES,
) -> Callable[[Mapping[str, object], Changed], dict[str, object]]:
    """A page's ``settle``: its shape settled (:func:`calc.model_inputs.shape_inputs`), then the target modules
    under the settled model's names, of those the page ``offered``. A pasted config.json changes the model as
    choosing one does."""

    def settle(values: Mapping[str, object], changed: Changed) -> dict[str, object]:
        settled = settle_shape(values, changed)
        model_changed = frozenset({"architecture"}) if values.get("config") is not None else changed
        return settled | settle_targets({**values, **settled}, model_changed, offered)

    return settle


def settle_targets(
    values: Mapping[str, object], changed: Changed, offered: Collection[str] = TARGET_MODULES
) -> dict[str, object]:
    """The target modules under the model's own names, once the model (``values``, settled) has changed.

    Choosing another model or architecture keeps the chosen targets the new
    model has, each under its own name (q_proj becomes Phi-3's qkv_proj), or
    all of its targets when none is left; so do the default targets when the
    page opens on another model (an address may name only the model).

    >>> sorted(settle_targets({"model": "microsoft/Phi-3-mini-4k-instruct", "target_modules": {"q_proj", "v_proj"}},
    ...                       frozenset({"model"}))["target_modules"])
    ['qkv_proj']
    """
    opening = changed is None and values.get("target_modules") == TARGETS.default
    if not opening and not (changed and changed & {"model", "architecture"}):
        return {}
    model = values.get("model")
    if model is None or (model not in PRESETS and any(values.get(name) is None for name in TYPED_SHAPE)):
        return {}  # a model or a typed shape with a field blank or refused: the field says so, and the targets wait
    try:
        available = [name for name in target_modules(shape_of(values)) if name in offered]
    except InputProblem:
        return {}  # a shape that cannot be: its field says so, and the targets wait
    chosen = values.get("target_modules") or frozenset()
    kept = {name for name in chosen if name in available} | {
        other for name in chosen for other in COUNTERPARTS.get(name, ()) if other in available
    }
    return {"target_modules": frozenset(kept or available)}
