"""calc.formulas.parameters' counts against transformers' and peft's, as `make validate` measured them.

``validation/parameters.json`` is written by ``tools/validate.py``, which
builds every preset with transformers and adapts it with peft; these tests
need neither library, only that file.
"""

import dataclasses
import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from calc.formulas.parameters import (
    NF4_BYTES_PER_WEIGHT,
    TARGET_MODULES,
    adapter_bytes,
    adapter_training_bytes,
    base_bytes_16bit,
    base_bytes_qlora,
    base_parameters,
    lora_parameters,
    quantized_weights,
)
from calc.models import PRESETS, ModelShape

REPORT = json.loads((Path(__file__).parent.parent / "validation" / "parameters.json").read_text(encoding="utf-8"))
MODELS = REPORT["models"]
POINTS = [(key, point) for key, measured in MODELS.items() for point in measured["lora"]]


def shape_of(key: str) -> ModelShape:
    return ModelShape(**MODELS[key]["shape"])


def test_every_preset_was_validated_as_it_is():
    # A preset added or edited without running `make validate` fails here.
    assert sorted(REPORT["presets"]) == sorted(PRESETS)
    for key, shape in PRESETS.items():
        assert MODELS[key]["shape"] == dataclasses.asdict(shape), key


def test_the_grid_is_whole():
    assert REPORT["configurations"] == {"models": len(MODELS), "lora": len(POINTS)}
    assert set(REPORT["versions"]) == {"peft", "torch", "transformers"}
    grid = {(rank, targets) for rank in REPORT["ranks"] for targets in REPORT["target_sets"]}
    assert {"q_v", "all"} <= set(REPORT["target_sets"])
    assert REPORT["target_sets"]["all"] == list(TARGET_MODULES)
    for key, measured in MODELS.items():
        points = [(point["rank"], point["targets"]) for point in measured["lora"]]
        assert sorted(points) == sorted(grid), key


@pytest.mark.parametrize("key", MODELS)
def test_base_parameters(key):
    assert base_parameters(shape_of(key)) == MODELS[key]["parameters"]
    assert quantized_weights(shape_of(key)) == MODELS[key]["quantized_weights"]


@pytest.mark.parametrize(
    ("key", "point"), POINTS, ids=[f"{key}-r{point['rank']}-{point['targets']}" for key, point in POINTS]
)
def test_lora_parameters(key, point):
    assert point["bias"] == "none"
    trainable = lora_parameters(shape_of(key), point["rank"], REPORT["target_sets"][point["targets"]])
    assert trainable == point["trainable"]
    assert MODELS[key]["parameters"] + trainable == point["all_parameters"]


@pytest.mark.parametrize(
    ("key", "rank", "targets", "trainable", "total"),
    [
        # peft's print_trainable_parameters() for these, as published:
        ("meta-llama/Llama-2-7b-hf", 8, ["q_proj", "v_proj"], 4_194_304, 6_742_609_920),
        ("meta-llama/Llama-3.1-8B", 16, list(TARGET_MODULES), 41_943_040, 8_072_204_288),
    ],
)
def test_published_peft_printouts(key, rank, targets, trainable, total):
    assert lora_parameters(PRESETS[key], rank, targets) == trainable
    assert base_parameters(PRESETS[key]) + trainable == total
    measured = [p for p in MODELS[key]["lora"] if p["rank"] == rank and REPORT["target_sets"][p["targets"]] == targets]
    assert [(p["trainable"], p["all_parameters"]) for p in measured] == [(trainable, total)]


def test_targets_are_a_set():
    shape = PRESETS["meta-llama/Llama-2-7b-hf"]
    assert lora_parameters(shape, 8, ["v_proj", "q_proj", "q_proj"]) == lora_parameters(shape, 8, ["q_proj", "v_proj"])


@pytest.mark.parametrize(
    ("rank", "targets"), [(0, ["q_proj"]), (True, ["q_proj"]), (Decimal(8), ["q_proj"]), (8, []), (8, ["lm_head"])]
)
def test_bad_lora_arguments(rank, targets):
    with pytest.raises(ValueError):
        lora_parameters(PRESETS["meta-llama/Llama-2-7b-hf"], rank, targets)


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
