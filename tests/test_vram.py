"""Training memory per GPU: recipes, ZeRO sharding against the paper's Table 1, and the cards a total fits."""

from decimal import Decimal
from fractions import Fraction

import pytest

from calc.formatting import rounded
from calc.formulas.model_states import RECIPES, STAGES, ModelStates, per_gpu
from calc.gpus import GPUS, GPUS_BY_ID, MIB, cards_that_fit

GB = 10**9
PSI = 7_500_000_000  # the ZeRO paper's 7.5B-parameter example (Table 1, Figure 1)

# ZeRO (Rajbhandari et al. 2019), Table 1, 7.5B model, GB per device as printed: DP degree → (P_os, P_os+g,
# P_os+g+p). The 4, 16 and 64 columns are also in §5.1–5.3 and Figure 1 (31.4, 16.6, 1.9 GB at 64); Table 1
# is an image in the paper, and the 256 and 1024 columns come from two transcriptions that agree.
TABLE_1 = {
    1: ("120", "120", "120"),
    4: ("52.5", "41.3", "30"),
    16: ("35.6", "21.6", "7.5"),
    64: ("31.4", "16.6", "1.88"),
    256: ("30.4", "15.4", "0.47"),
    1024: ("30.1", "15.1", "0.12"),
}


def printed(value: Fraction, as_printed: str) -> Decimal:
    """``value`` rounded to as many decimal places as the paper printed."""
    places = -Decimal(as_printed).as_tuple().exponent
    return rounded(value, places)


@pytest.mark.parametrize("gpus", sorted(TABLE_1))
@pytest.mark.parametrize("stage", [1, 2, 3])
def test_zero_table_1(stage, gpus):
    expected = TABLE_1[gpus][stage - 1]
    total = per_gpu(RECIPES["adamw-mixed"], PSI, stage, gpus).total
    assert printed(total / GB, expected) == Decimal(expected)


@pytest.mark.parametrize("gpus", [1, 4, 16, 64, 1024])
def test_stage_0_is_the_baseline_whatever_the_gpus(gpus):
    assert per_gpu(RECIPES["adamw-mixed"], PSI, 0, gpus).total == 120 * GB


def test_zero_formulas_exactly():
    # §5.1–5.3: 4Ψ + 12Ψ/N, 2Ψ + 14Ψ/N, 16Ψ/N; the breakdown is exact, not rounded.
    psi, n = 7, 3
    adam = RECIPES["adamw-mixed"]
    assert per_gpu(adam, psi, 1, n) == ModelStates(Fraction(14), Fraction(14), Fraction(84, 3))
    assert per_gpu(adam, psi, 2, n) == ModelStates(Fraction(14), Fraction(14, 3), Fraction(84, 3))
    assert per_gpu(adam, psi, 3, n) == ModelStates(Fraction(14, 3), Fraction(14, 3), Fraction(84, 3))
    assert per_gpu(adam, psi, 2, n).total == 2 * psi + Fraction(14 * psi, n)


@pytest.mark.parametrize(
    ("recipe", "weights", "gradients", "optimizer"),
    [
        ("adamw-mixed", 2, 2, 12),
        ("adam-fp32", 4, 4, 8),
        ("adamw-bf16", 2, 2, 4),
        ("adamw-8bit", 2, 2, 4 + 2 + Fraction(2 * 4, 256)),
        ("sgd-momentum", 2, 2, 8),
        ("sgd-fp32", 4, 4, 4),
    ],
)
def test_recipe_bytes_per_parameter(recipe, weights, gradients, optimizer):
    r = RECIPES[recipe]
    assert (r.weights, r.gradients, r.optimizer) == (weights, gradients, optimizer)
    assert r.total == weights + gradients + optimizer


def test_recipe_totals():
    totals = {key: recipe.total for key, recipe in RECIPES.items()}
    assert totals == {
        "adamw-mixed": 16,
        "adam-fp32": 16,
        "adamw-bf16": 8,
        "adamw-8bit": Fraction(321, 32),  # 10 + 1/32: the absmax of two states, one float32 per 256
        "sgd-momentum": 12,
        "sgd-fp32": 12,
    }


@pytest.mark.parametrize("recipe", sorted(RECIPES))
def test_every_recipe_shards_the_same_way(recipe):
    r = RECIPES[recipe]
    one = per_gpu(r, 1024, 0, 8)
    assert one == ModelStates(r.weights * 1024, r.gradients * 1024, r.optimizer * 1024)
    assert per_gpu(r, 1024, 1, 8) == ModelStates(one.weights, one.gradients, one.optimizer / 8)
    assert per_gpu(r, 1024, 2, 8) == ModelStates(one.weights, one.gradients / 8, one.optimizer / 8)
    assert per_gpu(r, 1024, 3, 8) == ModelStates(one.weights / 8, one.gradients / 8, one.optimizer / 8)


def test_one_gpu_shards_nothing():
    adam = RECIPES["adamw-mixed"]
    assert {per_gpu(adam, PSI, stage, 1) for stage in STAGES} == {per_gpu(adam, PSI, 0, 1)}


def test_decimal_parameter_counts_are_exact():
    adam = RECIPES["adamw-mixed"]
    assert per_gpu(adam, Decimal("7.5E9"), 3, 64) == per_gpu(adam, PSI, 3, 64)


@pytest.mark.parametrize(("stage", "gpus", "parameters"), [(4, 1, 1), (-1, 1, 1), (1, 0, 1), (1, 1, -1)])
def test_rejects_impossible_inputs(stage, gpus, parameters):
    with pytest.raises(ValueError):
        per_gpu(RECIPES["adamw-mixed"], parameters, stage, gpus)


def test_rounded_rounds_half_up_once():
    assert rounded(Fraction(1875, 1000), 2) == Decimal("1.88")
    assert rounded(Fraction(2, 3), 0) == 1
    # Just under a half stays down, however many 9s follow.
    assert rounded(Fraction(10**30 // 2 - 1, 10**30), 0) == 0


# nvidia-smi totals, MiB (each printout is cited in calc/gpus.py).
NVIDIA_SMI_MIB = {
    "t4": 15360,
    "v100-16gb": 16160,
    "a10g": 23028,
    "l4": 23034,
    "rtx-4090": 24564,
    "rtx-3090": 24576,
    "v100-32gb": 32768,
    "a100-40gb": 40960,
    "l40s": 46068,
    "h100-80gb": 81559,
    "a100-80gb": 81920,
    "h200": 143771,
}


def test_gpu_capacities():
    assert {gpu.id: gpu.mib for gpu in GPUS} == NVIDIA_SMI_MIB
    assert all(gpu.bytes == gpu.mib * 2**20 == gpu.mib * MIB for gpu in GPUS)
    assert GPUS_BY_ID["h100-80gb"].bytes == 85_520_809_984


def test_gpus_are_listed_smallest_first_with_unique_ids():
    assert [gpu.mib for gpu in GPUS] == sorted(gpu.mib for gpu in GPUS)
    assert len(GPUS_BY_ID) == len(GPUS)


def test_cards_that_fit_compare_exactly_and_keep_the_order():
    h100 = GPUS_BY_ID["h100-80gb"]
    assert h100 in cards_that_fit(h100.bytes)
    assert h100 not in cards_that_fit(Fraction(h100.bytes) + Fraction(1, 3))
    assert cards_that_fit(0) == GPUS
    assert cards_that_fit(10**15) == ()
    # The paper's 7.5B model with ZeRO-1 on 64 GPUs: 31.4 GB per GPU, more than a 24 GB card's 25.8 GB.
    needed = per_gpu(RECIPES["adamw-mixed"], PSI, 1, 64).total
    assert [gpu.id for gpu in cards_that_fit(needed)] == [
        "v100-32gb",
        "a100-40gb",
        "l40s",
        "h100-80gb",
        "a100-80gb",
        "h200",
    ]
