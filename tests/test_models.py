"""The presets, the shape fields and the LoRA page's model choice, as a reader relies on them."""

import dataclasses
import json
from gettext import NullTranslations

import pytest
from babel import Locale

from calc.evaluation import default_texts, evaluate
from calc.formulas.parameters import active_parameters, base_parameters, target_modules
from calc.i18n import load_translations
from calc.lora import CALCULATOR
from calc.model_inputs import MODEL, PRESET_GROUPS, SHAPE_FIELDS, shape_values, typed_shape
from calc.models import ARCHITECTURES, PRESETS
from sitebuild.config import LOCALES
from tests.expectations import expected
from tests.helpers import edited

EN = Locale.parse("en")

# Each preset's total as its model card or the Hub publishes it: an independent check of the shape's values
# (the exact check is transformers' own count, validation/parameters.json).
PUBLISHED = {
    "meta-llama/Llama-3.2-1B": 1_235_814_400,
    "meta-llama/Llama-3.2-3B": 3_212_749_824,
    "meta-llama/Llama-2-7b-hf": 6_738_415_616,
    "meta-llama/Llama-3.1-8B": 8_030_261_248,
    "meta-llama/Llama-3.1-70B": 70_553_706_496,
    "Qwen/Qwen2.5-0.5B": 494_032_768,
    "Qwen/Qwen2.5-1.5B": 1_543_714_304,
    "Qwen/Qwen2.5-3B": 3_085_938_688,
    "Qwen/Qwen2.5-7B": 7_615_616_512,
    "Qwen/Qwen2.5-14B": 14_770_033_664,
    "Qwen/Qwen2.5-32B": 32_763_876_352,
    "Qwen/Qwen2.5-72B": 72_706_203_648,
    "Qwen/Qwen3-0.6B": 596_049_920,
    "Qwen/Qwen3-4B": 4_022_468_096,
    "Qwen/Qwen3-8B": 8_190_735_360,
    "Qwen/Qwen3-14B": 14_768_307_200,
    "Qwen/Qwen3-32B": 32_762_123_264,
    "google/gemma-2-2b": 2_614_341_888,
    "google/gemma-2-9b": 9_241_705_984,
    "google/gemma-2-27b": 27_227_128_320,
    "google/gemma-3-1b-pt": 999_885_952,
    "mistralai/Mistral-7B-v0.1": 7_241_732_096,
    "mistralai/Mistral-Nemo-Base-2407": 12_247_782_400,
    "microsoft/Phi-3-mini-4k-instruct": 3_821_079_552,
    "mistralai/Mixtral-8x7B-v0.1": 46_702_792_704,
    "Qwen/Qwen3-30B-A3B": 30_532_122_624,
}


@pytest.mark.parametrize("key", PUBLISHED)
def test_each_preset_counts_what_its_model_publishes(key):
    assert base_parameters(PRESETS[key]) == PUBLISHED[key]


def test_qwen3_1_7b_is_tied():
    # Its card says 1.7B with 1.4B outside the embeddings: tied. The Hub's file count, 2.03B, holds lm_head twice.
    shape = PRESETS["Qwen/Qwen3-1.7B"]
    assert shape.tie_word_embeddings
    assert base_parameters(shape) + shape.vocab_size * shape.hidden_size == 2_031_739_904


@pytest.mark.parametrize(
    ("key", "active"), [("mistralai/Mixtral-8x7B-v0.1", 12_879_925_248), ("Qwen/Qwen3-30B-A3B", 3_353_032_704)]
)
def test_a_mixture_uses_a_share_of_its_parameters_per_token(key, active):
    # Mixtral's card: 12.9B active; Qwen3-30B-A3B's: 3.3B activated.
    assert active_parameters(PRESETS[key]) == active


def test_every_preset_is_listed_once_in_a_group():
    listed = [repo for _, repos in PRESET_GROUPS for repo in repos]
    assert sorted(listed) == sorted(PRESETS)
    assert [option.value for option in MODEL.options[:-1]] == listed
    assert {option.group for option in MODEL.options[:-1]} == {group for group, _ in PRESET_GROUPS}


@pytest.mark.parametrize("key", PRESETS)
def test_a_presets_fields_typed_by_hand_are_the_same_model(key):
    # A shape typed field by field, architecture included, counts what the preset does.
    typed = typed_shape(shape_values(PRESETS[key]))
    assert typed == dataclasses.replace(PRESETS[key], source="")


def test_llama_3_2_1b_typed_by_hand():
    """The issue's example: tied embeddings and head_dim typed in give the published count."""
    values = {
        "architecture": "llama",
        "layers": 16,
        "hidden_size": 2048,
        "attention_heads": 32,
        "kv_heads": 8,
        "head_dim": 64,
        "intermediate_size": 8192,
        "vocab_size": 128256,
        "tie_word_embeddings": "true",
    }
    assert base_parameters(typed_shape(values)) == 1_235_814_400


def lora(changed=None, **texts):
    """The LoRA page's view once ``changed`` (else the first text given) was edited to read ``texts``."""
    raw = {**default_texts(CALCULATOR, EN), **texts}
    return evaluate(CALCULATOR, raw, EN, NullTranslations(), changed=edited(changed, texts))


def test_the_lora_page_offers_the_shape_fields():
    names = {i.name for i in CALCULATOR.inputs}
    assert set(SHAPE_FIELDS) <= names
    assert {"model", "rank", "target_modules"} <= names


@pytest.mark.parametrize(("architecture", "refused"), [("llama", True), ("gemma2", True), ("qwen2", False)])
def test_a_width_the_heads_do_not_divide_is_refused_where_transformers_refuses_it(architecture, refused):
    """LlamaConfig, Gemma2Config and Gemma3TextConfig refuse it even with head_dim set (validate_architecture,
    transformers 5.24; technical review, round 88); Qwen2Config builds it."""
    view = lora("hidden_size", model="custom", architecture=architecture, hidden_size="500", attention_heads="7",
                kv_heads="7", head_dim="128")  # fmt: skip
    error = "The hidden size must be divisible by the number of attention heads."
    assert (view.errors["attention_heads"] == error) is refused
    assert bool(view.outputs["trainable_parameters"]) is not refused


def test_choosing_phi3_fills_its_shape_and_its_own_modules():
    view = lora(model="microsoft/Phi-3-mini-4k-instruct")
    assert view.texts["head_dim"] == "96"
    assert view.texts["architecture"] == "phi3"
    # Llama's seven projections become Phi-3's four.
    assert view.texts["target_modules"] == ["qkv_proj", "o_proj", "gate_up_proj", "down_proj"]
    assert view.outputs["base_parameters"] == "3,821,079,552"
    # A dense model uses all of them per token: said, not the same number again.
    assert view.outputs["active_parameters"] == "All of them: this model has no experts"
    assert "active_parameters" in view.worded


def test_choosing_a_mixture_offers_its_experts():
    view = lora(model="mistralai/Mixtral-8x7B-v0.1")
    assert view.texts["experts"] == "8"
    assert view.texts["experts_per_token"] == "2"
    # Choosing it brings the projections the step models, as on the VRAM page; the experts are offered, to choose.
    assert view.texts["target_modules"] == ["q_proj", "k_proj", "v_proj", "o_proj"]
    chosen = [*view.texts["target_modules"], "experts.gate_up_proj", "experts.down_proj"]
    view = lora("target_modules", **{**view.texts, "model": "mistralai/Mixtral-8x7B-v0.1", "target_modules": chosen})
    assert view.errors["target_modules"] is None
    assert view.outputs["base_parameters"] == "46,702,792,704"
    assert view.outputs["active_parameters"] == "12,879,925,248"
    # peft's ParamWrapper: experts · r · (d_in + d_out) per layer, here 32 · 16 · 8 · (4096·2 + 14336·3).
    attention = 32 * 16 * (2 * (4096 + 4096) + 2 * (4096 + 1024))
    experts = 32 * 8 * 16 * ((4096 + 2 * 14336) + (14336 + 4096))
    assert view.outputs["trainable_parameters"] == f"{attention + experts:,}"


def test_a_module_the_model_lacks_is_refused_beside_the_field():
    phi3 = lora(model="microsoft/Phi-3-mini-4k-instruct").texts
    view = lora(
        "target_modules",
        **{**phi3, "model": "microsoft/Phi-3-mini-4k-instruct", "target_modules": ["q_proj", "o_proj"]},
    )
    assert view.errors["target_modules"] == (
        "This model lacks q_proj. Its projections are qkv_proj, o_proj, gate_up_proj, and down_proj."
    )
    assert view.outputs["trainable_parameters"] == ""


def test_a_custom_qwen2_counts_its_biases():
    preset = dict(lora(model="Qwen/Qwen2.5-0.5B").texts)
    view = lora(**{**preset, "model": "custom"})
    assert view.outputs["base_parameters"] == "494,032,768"
    view = lora(**{**preset, "model": "custom", "architecture": "llama"})
    assert view.outputs["base_parameters"] == f"{494_032_768 - 24 * (896 + 2 * 128):,}"


@pytest.mark.parametrize(
    ("texts", "field", "message"),
    [
        (
            {"experts": "8"},
            "experts",
            "Only a mixture of experts has these: leave the field blank, or choose mixtral or qwen3_moe.",
        ),
        ({"architecture": "mixtral", "model": "custom"}, "experts", "A mixture of experts needs this value."),
    ],
)
def test_the_experts_fields_must_fit_the_architecture(texts, field, message):
    view = lora(**{"model": "custom", **texts})
    assert view.errors[field] == message


@pytest.mark.parametrize("locale", LOCALES)
def test_experts_as_wide_as_the_mlp_must_be_typed_so(localedir, locale):
    # Mixtral's experts are its intermediate_size wide: the words hold for any architecture whose experts are.
    parsed, translations = Locale.parse(locale), load_translations(localedir, locale)
    texts = {**default_texts(CALCULATOR, parsed), "model": "mistralai/Mixtral-8x7B-v0.1"}
    mixtral = {**texts, **evaluate(CALCULATOR, texts, parsed, translations, changed=frozenset({"model"})).texts}
    typed = {**mixtral, "model": "custom", "expert_intermediate_size": "1024"}
    view = evaluate(CALCULATOR, typed, parsed, translations, changed=frozenset({"expert_intermediate_size"}))
    assert view.errors["expert_intermediate_size"] == expected(locale).expert_width


def test_more_experts_per_token_than_experts():
    preset = dict(lora(model="Qwen/Qwen3-30B-A3B").texts)
    view = lora(**{**preset, "model": "custom", "experts_per_token": "200"})
    assert view.errors["experts_per_token"] == "A token cannot go to more experts than a layer has."


def test_every_architecture_is_offered_and_counted():
    assert [o.value for o in SHAPE_FIELDS["architecture"].options] == list(ARCHITECTURES)
    for key, shape in PRESETS.items():
        assert target_modules(shape), key


def test_pasting_a_config_fills_the_shape_and_makes_the_model_custom():
    from tests.test_configs import QWEN2_5_0_5B

    view = lora(config=json.dumps(QWEN2_5_0_5B, indent=2))
    assert view.errors["config"] is None
    assert view.texts["model"] == "custom"
    assert view.texts["config"] == ""  # read, and emptied for the next
    assert {name: view.texts[name] for name in ("architecture", "layers", "head_dim", "tie_word_embeddings")} == {
        "architecture": "qwen2",
        "layers": "24",
        "head_dim": "64",
        "tie_word_embeddings": "true",
    }
    assert view.outputs["base_parameters"] == "494,032,768"
    assert "config" not in view.address


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "This is not valid JSON: look at line 1, character 2."),
        (
            '{"model_type": "gpt2"}',
            "This calculator models the architectures llama, mistral, qwen2, qwen3, gemma2, gemma3_text, phi3, "
            "mixtral, and qwen3_moe, not gpt2.",
        ),
        ('{"model_type": "llama"}', "The config has no num_hidden_layers."),
    ],
)
def test_a_config_that_cannot_be_read_says_why_beside_its_field(text, message):
    view = lora(config=text)
    assert view.errors["config"] == message
    assert view.texts.get("model", "meta-llama/Llama-3.1-8B") == "meta-llama/Llama-3.1-8B"
    assert "config" not in view.address


@pytest.mark.parametrize("page", ["lora", "vram", "activations"])
@pytest.mark.parametrize("model", ["mistralai/Mixtral-8x7B-v0.1", "Qwen/Qwen3-30B-A3B"])
def test_a_mixture_typed_by_hand_brings_the_targets_its_preset_does(page, model):
    """Which targets are experts follows from the architecture, not from the presets: a shape typed without one gets
    no expert targets either."""
    from calc.calculators import load

    calculator = load(page)
    fields = {field.name: field for field in calculator.inputs if field.name in SHAPE_FIELDS}
    typed = {name: fields[name].text(value, EN) for name, value in shape_values(PRESETS[model], fields).items()}

    def targets(**texts):
        raw = {**default_texts(calculator, EN), **texts}
        return evaluate(calculator, raw, EN, NullTranslations(), changed=frozenset(texts)).texts["target_modules"]

    assert targets(model=model) == targets(model="custom", **typed)
    assert not any(name.startswith("experts.") for name in targets(model="custom", **typed))


def test_an_address_naming_only_a_mixture_opens_with_its_own_targets():
    from calc.evaluation import restore

    texts = restore(CALCULATOR, "?model=mistralai/Mixtral-8x7B-v0.1", EN)
    view = evaluate(CALCULATOR, texts, EN, NullTranslations(), restoring=True)
    assert view.errors["target_modules"] is None
    assert view.texts["target_modules"] == ["q_proj", "k_proj", "v_proj", "o_proj"]
    assert view.outputs["base_parameters"] == "46,702,792,704"
    # Targets the address names are the reader's: one the model lacks is said so, never replaced.
    texts = restore(CALCULATOR, "?model=microsoft/Phi-3-mini-4k-instruct&target_modules=q_proj", EN)
    assert evaluate(CALCULATOR, texts, EN, NullTranslations(), restoring=True).errors["target_modules"]


PHI3_MODULES = ["qkv_proj", "o_proj", "gate_up_proj", "down_proj"]
LLAMA_MODULES = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


@pytest.mark.parametrize("page", ["lora", "vram", "activations"])
def test_the_target_boxes_offer_only_the_model_s_own_modules(page):
    from calc.calculators import load

    calculator = load(page)

    def offered(changed=None, base=None, **texts):
        raw = {**(base or default_texts(calculator, EN)), **texts}
        view = evaluate(calculator, raw, EN, NullTranslations(), changed=edited(changed, texts))
        return view, view.offered["target_modules"]

    view, shown = offered()
    assert shown == LLAMA_MODULES  # the default model, a Llama
    phi3, shown = offered(model="microsoft/Phi-3-mini-4k-instruct")
    assert shown == PHI3_MODULES
    # Back to a Llama-like preset (Qwen3), from Phi-3's form.
    base = {**default_texts(calculator, EN), **phi3.texts, "model": "microsoft/Phi-3-mini-4k-instruct"}
    assert offered(base=base, model="Qwen/Qwen3-8B")[1] == LLAMA_MODULES
    # A typed architecture, and a pasted config.json, change them as a preset does.
    assert offered(model="custom", architecture="phi3", changed="architecture")[1] == PHI3_MODULES
    config = {"model_type": "phi3", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4}
    config |= {"intermediate_size": 128, "vocab_size": 32064}
    assert offered(config=json.dumps(config))[1] == PHI3_MODULES


def test_a_chosen_module_the_model_lacks_stays_shown_to_be_unchosen():
    from calc.evaluation import restore

    texts = restore(CALCULATOR, "?model=microsoft/Phi-3-mini-4k-instruct&target_modules=q_proj", EN)
    view = evaluate(CALCULATOR, texts, EN, NullTranslations(), restoring=True)
    assert view.errors["target_modules"]
    assert view.offered["target_modules"] == ["q_proj", *PHI3_MODULES]


@pytest.mark.parametrize("names", ["q_proj,bogus", "bogus"])
def test_an_address_naming_a_module_that_is_no_option_is_refused_as_a_choice_is(names):
    """Never narrowed to the names it knows: the field says what a single choice says of an unknown option."""
    from calc.evaluation import restore

    def opened(address):
        return evaluate(CALCULATOR, restore(CALCULATOR, address, EN), EN, NullTranslations(), restoring=True)

    view, choice = opened(f"?target_modules={names}"), opened("?precision=bogus")
    assert view.errors["target_modules"] == choice.errors["precision"] == "Choose one of the listed options."
    assert view.texts["target_modules"] == names.split(",")
    assert "bogus" in view.address and view.outputs["trainable_parameters"] == ""


def test_the_presets_carry_their_config_json_s_sliding_window():
    # Gemma-2's every other layer, Gemma-3-1B's five in six (not Gemma3TextConfig's 4,096), every layer of
    # Mistral-7B and Phi-3-mini; Nemo's and Mixtral's are null, Qwen's off (use_sliding_window false), Llama has none.
    windows = {key: shape.sliding_window for key, shape in PRESETS.items() if shape.sliding_window is not None}
    assert windows == {
        "google/gemma-2-2b": 4096,
        "google/gemma-2-9b": 4096,
        "google/gemma-2-27b": 4096,
        "google/gemma-3-1b-pt": 512,
        "mistralai/Mistral-7B-v0.1": 4096,
        "microsoft/Phi-3-mini-4k-instruct": 2047,
    }
