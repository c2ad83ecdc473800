"""calc.formulas.parameters' counts against transformers' and peft's, as `make validate` measured them.

``validation/parameters.json`` is written by ``tools/validate.py``, which
builds every preset with transformers and adapts it with peft; these tests
need neither library, only that file.
"""

import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from calc.formulas.parameters import (
    NF4_BYTES_PER_WEIGHT,
    active_parameters,
    adapter_bytes,
    adapter_training_bytes,
    base_bytes_16bit,
    base_bytes_qlora,
    base_parameters,
    lora_parameters,
    quantized_weights,
    target_modules,
)
from calc.models import PRESETS, ModelShape, counted

REPORT = json.loads((Path(__file__).parent.parent / "validation" / "parameters.json").read_text(encoding="utf-8"))
MODELS = REPORT["models"]
POINTS = [(key, point) for key, measured in MODELS.items() for point in measured["lora"]]


def shape_of(key: str) -> ModelShape:
    return ModelShape(**MODELS[key]["shape"])


def test_every_preset_was_validated_as_it_is():
    # A preset added or edited without running `make validate` fails here (but for its window, which no count reads).
    assert sorted(REPORT["presets"]) == sorted(PRESETS)
    for key, shape in PRESETS.items():
        assert counted(ModelShape(**MODELS[key]["shape"])) == counted(shape), key


def test_the_grid_is_whole():
    assert REPORT["configurations"] == {"models": len(MODELS), "lora": len(POINTS)}
    assert set(REPORT["versions"]) == {"peft", "torch", "transformers"}
    for key, measured in MODELS.items():
        # Every rank, each target alone or with its part of the layer, and all of them together.
        points = {(point["rank"], tuple(point["targets"])) for point in measured["lora"]}
        assert {(rank, tuple(measured["targets"])) for rank in REPORT["ranks"]} <= points, key
        assert len(points) == len(measured["lora"]), key


@pytest.mark.parametrize("key", MODELS)
def test_the_targets_offered_are_the_models_own(key):
    # What a page offers is what peft finds in the model: nothing it lacks, nothing left out.
    assert sorted(target_modules(shape_of(key))) == sorted(MODELS[key]["targets"])


@pytest.mark.parametrize("key", MODELS)
def test_base_parameters(key):
    assert base_parameters(shape_of(key)) == MODELS[key]["parameters"]
    assert quantized_weights(shape_of(key)) == MODELS[key]["quantized_weights"]


@pytest.mark.parametrize(
    ("key", "point"), POINTS, ids=[f"{key}-r{point['rank']}-{','.join(point['targets'])}" for key, point in POINTS]
)
def test_lora_parameters(key, point):
    assert point["bias"] == "none"
    trainable = lora_parameters(shape_of(key), point["rank"], point["targets"])
    assert trainable == point["trainable"]
    assert MODELS[key]["parameters"] + trainable == point["all_parameters"]


@pytest.mark.parametrize(
    ("key", "rank", "targets", "trainable", "total"),
    [
        # peft's print_trainable_parameters() for these, as published:
        ("meta-llama/Llama-2-7b-hf", 8, ["q_proj", "v_proj"], 4_194_304, 6_742_609_920),
        (
            "meta-llama/Llama-3.1-8B",
            16,
            ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
            41_943_040,
            8_072_204_288,
        ),
    ],
)
def test_published_peft_printouts(key, rank, targets, trainable, total):
    assert lora_parameters(PRESETS[key], rank, targets) == trainable
    assert base_parameters(PRESETS[key]) + trainable == total
    measured = [p for p in MODELS[key]["lora"] if p["rank"] == rank and p["targets"] == targets]
    assert [(p["trainable"], p["all_parameters"]) for p in measured] == [(trainable, total)]


def test_targets_are_a_set():
    shape = PRESETS["meta-llama/Llama-2-7b-hf"]
    assert lora_parameters(shape, 8, ["v_proj", "q_proj", "q_proj"]) == lora_parameters(shape, 8, ["q_proj", "v_proj"])


@pytest.mark.parametrize(
    ("rank", "targets"),
    [(0, ["q_proj"]), (True, ["q_proj"]), (Decimal(8), ["q_proj"]), (8, []), (8, ["lm_head"]), (8, ["qkv_proj"])],
)
def test_bad_lora_arguments(rank, targets):
    with pytest.raises(ValueError):
        lora_parameters(PRESETS["meta-llama/Llama-2-7b-hf"], rank, targets)


@pytest.mark.parametrize(
    ("key", "total", "active"),
    [
        # The totals the models' cards publish; the active count, "A3B" and Mixtral's 12.9B, from the same shape.
        ("meta-llama/Llama-3.2-1B", 1_235_814_400, 1_235_814_400),
        ("Qwen/Qwen2.5-0.5B", 494_032_768, 494_032_768),
        ("mistralai/Mixtral-8x7B-v0.1", 46_702_792_704, 12_879_925_248),
        ("Qwen/Qwen3-30B-A3B", 30_532_122_624, 3_353_032_704),
    ],
)
def test_published_totals(key, total, active):
    assert base_parameters(PRESETS[key]) == total == MODELS[key]["parameters"]
    assert active_parameters(PRESETS[key]) == active


def test_adapter_bytes():
    assert adapter_bytes(41_943_040, 16) == 83_886_080
    assert adapter_bytes(41_943_040, 32) == 167_772_160
    # float32 weights, gradients and Adam's two moments: 16 bytes a parameter.
    assert adapter_training_bytes(41_943_040) == 671_088_640
    with pytest.raises(ValueError):
        adapter_bytes(41_943_040, 8)


@pytest.mark.parametrize("key", MODELS)
def test_base_bytes(key):
    shape = shape_of(key)
    parameters, quantized = MODELS[key]["parameters"], MODELS[key]["quantized_weights"]
    assert base_bytes_16bit(shape) == 2 * parameters
    # QLoRA §3: 4 + 8/64 + 32/(64·256) bits a quantized weight; the rest stays in 16 bits.
    expected = Fraction(quantized * (4 * 64 * 256 + 8 * 256 + 32), 64 * 256 * 8) + 2 * (parameters - quantized)
    qlora = base_bytes_qlora(shape)
    assert isinstance(qlora, Decimal)
    assert Fraction(qlora) == expected


def test_nf4_is_about_half_a_byte():
    assert NF4_BYTES_PER_WEIGHT == Fraction(2113, 4096)
    assert Decimal("0.515") < Decimal(2113) / Decimal(4096) < Decimal("0.516")
