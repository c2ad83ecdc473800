"""One record per architecture (calc.models.ARCHITECTURES): what reads it covers exactly what it states."""

import dataclasses
import json
from pathlib import Path

import pytest

from calc import activations as activation_page
from calc.formulas.activations import ATTENTIONS, FAMILIES, RECOMPUTATIONS, activation_breakdown
from calc.formulas.step import STEP_RECIPES, Setting, step_peak
from calc.model_inputs import CUSTOM
from calc.models import ARCHITECTURES, PRESETS, ActivationHabits, Architecture, architecture_shape
from calc.step_outputs import SOFTCAPPED_ATTENTION

VALIDATION = Path(__file__).resolve().parent.parent / "validation"
MEASURED = json.loads((VALIDATION / "activations.json").read_text(encoding="utf-8"))
STEPS = json.loads((VALIDATION / "steps.json").read_text(encoding="utf-8"))


def _tiny(model_type: str):
    """A small shape of ``model_type``, with what its architecture fixes."""
    architecture = ARCHITECTURES[model_type]
    experts = {}
    if architecture.experts:
        width = 64 if architecture.experts_as_wide_as_mlp else 32
        experts = {"experts": 4, "experts_per_token": 2, "expert_intermediate_size": width}
    return architecture_shape(
        model_type,
        layers=2,
        hidden_size=64,
        attention_heads=4,
        kv_heads=2,
        head_dim=16,
        intermediate_size=64,
        vocab_size=128,
        tie_word_embeddings=False,
        **experts,
    )


def test_every_architecture_states_every_fact_with_no_default():
    # A new architecture must say whether the activation estimates model it, and if so every habit: none defaults.
    activations = {field.name: field for field in dataclasses.fields(Architecture)}["activations"]
    assert activations.default is dataclasses.MISSING
    assert all(field.default is dataclasses.MISSING for field in dataclasses.fields(ActivationHabits))


@pytest.mark.parametrize("model_type", ARCHITECTURES)
def test_a_mixture_has_a_default_for_each_of_its_keys_and_a_dense_model_none(model_type):
    # What a config.json may leave out: a mixture's keys that are no dense size each have the class's default.
    architecture = ARCHITECTURES[model_type]
    if architecture.experts is None:
        assert (architecture.expert_width, architecture.expert_defaults) == (None, {})
        return
    keys = {architecture.experts, "num_experts_per_tok", architecture.expert_width} - set(architecture.sizes)
    assert set(architecture.expert_defaults) == keys


def test_the_activation_estimate_models_exactly_the_measured_architectures():
    measured = {shape["model_type"] for shape in MEASURED["models"].values()}
    assert set(FAMILIES) == measured
    stepped = {shape["model_type"] for shape in STEPS["models"].values()}
    assert stepped <= set(FAMILIES)


@pytest.mark.parametrize("model_type", FAMILIES)
def test_every_modelled_architecture_has_a_whole_step(model_type):
    # Eager attention with recomputation is the one path that reads the masks.
    shape = _tiny(model_type)
    setting = Setting(recipe=next(iter(STEP_RECIPES)), sequence_length=64, attention="eager", recomputation="selective")
    assert step_peak(shape, setting, 1).total > 0
    for attention in ATTENTIONS:
        for recomputation in RECOMPUTATIONS:
            assert sum(activation_breakdown(shape, 64, "bf16", attention, recomputation).values()) > 0


def test_an_architecture_not_modelled_is_refused_not_guessed():
    # Every architecture read is modelled today: a record without habits stands for the next one read before it is.
    shape = dataclasses.replace(_tiny("llama"), model_type="unmodelled")
    with pytest.raises(ValueError, match="no activation model"):
        activation_breakdown(shape, 64, "bf16", "flash", "none")


def test_the_activation_page_offers_the_presets_of_the_modelled_architectures():
    offered = {option.value for option in activation_page.MODEL.options} - {CUSTOM}
    assert offered == {repo for repo, shape in PRESETS.items() if ARCHITECTURES[shape.model_type].activations}
    assert {PRESETS[repo].model_type for repo in offered} == set(FAMILIES)


def test_the_sdpa_note_is_shown_where_transformers_refuses_sdpa_and_says_why():
    # The note says the model "caps its attention scores": true of every architecture it is shown for.
    refused = {name for name, habits in FAMILIES.items() if not habits.sdpa}
    assert SOFTCAPPED_ATTENTION == refused
    assert refused
    assert all(FAMILIES[name].softcapping for name in refused)
