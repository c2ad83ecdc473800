"""calc.formulas.activations against PyTorch's own saved tensors, as `make validate` measured them.

``validation/activations.json`` is written by ``tools/validate.py``
(``tools/measure_activations.py`` runs small random models through transformers
and counts what autograd saves); these tests need neither library, only that
file.
"""

import dataclasses
import json
import re
from fractions import Fraction
from gettext import NullTranslations
from pathlib import Path

import pytest
from babel import Locale

from calc.accumulation import CALCULATOR as ACCUMULATION
from calc.activations import CALCULATOR, SHAPE
from calc.evaluation import default_texts, evaluate, restore
from calc.formatting import GIGABYTE, format_names, rounded_up
from calc.formulas.activations import (
    ATTENTIONS,
    FAMILIES,
    PARTS,
    PRECISION_BYTES,
    RECOMPUTATIONS,
    activation_breakdown,
    activation_bytes,
    forward_breakdown,
    recomputation_breakdown,
)
from calc.formulas.step import MOMENTS as STEP_MOMENTS
from calc.formulas.step import PARTS as STEP_PARTS
from calc.formulas.step import Setting, largest_per_sample, moments, saved_breakdown
from calc.i18n import load_translations
from calc.model_inputs import shape_values
from calc.models import PRESETS, ModelShape
from calc.outputs import Names, Quantity, gigabytes
from calc.plan import CALCULATOR as PLAN
from calc.problems import InputProblem
from calc.step_outputs import MOMENT_WORDS, PART_LABELS
from sitebuild.config import LOCALES
from tests.helpers import edited
from tests.test_configs import GEMMA_2_2B, PHI_3_MINI, QWEN2_5_0_5B, QWEN3_30B_A3B

REPORT = json.loads((Path(__file__).parent.parent / "validation" / "activations.json").read_text(encoding="utf-8"))
POINTS = REPORT["points"]
SHAPES = {key: ModelShape(**shape) for key, shape in REPORT["models"].items()}
TOLERANCE = Fraction(1, 10)
MOMENTS = {"": activation_breakdown, "forward_": forward_breakdown, "recomputation_": recomputation_breakdown}


def arguments(point: dict) -> tuple:
    return (
        SHAPES[point["model"]],
        point["sequence_length"],
        point["precision"],
        point["attention"],
        point["recomputation"],
    )


def point_id(point: dict) -> str:
    setting = (point["sequence_length"], point["precision"], point["attention"], point["recomputation"])
    return "-".join(map(str, (point["model"], *setting)))


def measured(point: dict, moment: str = "") -> Fraction:
    return Fraction(point[f"measured_{moment}bytes_per_sample"])


def test_the_grid_is_whole():
    # Llama with and without grouped-query attention, Mistral, Qwen2, Qwen3 (q and k norms), Phi-3 (fused projections),
    # the Gemma family's other habits, and a mixture of experts each way (Mixtral; Qwen3-MoE, with its heads' norms).
    configs = [point["config"] for point in POINTS]
    families = {"llama", "mistral", "qwen2", "qwen3", "phi3", "gemma2", "gemma3_text", "mixtral", "qwen3_moe"}
    assert {config["family"] for config in configs} == families
    assert any(shape.experts_per_token > 1 for shape in SHAPES.values())
    llama = [config for config in configs if config["family"] == "llama"]
    assert {config["kv_heads"] == config["heads"] for config in llama} == {True, False}
    assert any(config["head_dim"] * config["heads"] != config["hidden"] for config in configs)
    settings = {(p["model"], p["sequence_length"], p["precision"], p["attention"], p["recomputation"]) for p in POINTS}
    assert len(settings) == len(POINTS)
    for key, shape in SHAPES.items():
        attentions = ATTENTIONS if FAMILIES[shape.model_type].sdpa else ("eager",)
        for length in (64, 128, 256):
            for precision in ("fp32", "bf16"):
                for attention in attentions:
                    for recomputation in RECOMPUTATIONS:
                        assert (key, length, precision, attention, recomputation) in settings
    assert set(REPORT["versions"]) == {"torch", "transformers"}


@pytest.mark.parametrize("point", POINTS, ids=point_id)
def test_point_describes_its_model(point):
    shape = SHAPES[point["model"]]
    assert point["config"] == {
        "family": shape.model_type,
        "layers": shape.layers,
        "hidden": shape.hidden_size,
        "heads": shape.attention_heads,
        "kv_heads": shape.kv_heads,
        "intermediate": shape.intermediate_size,
        "vocab": shape.vocab_size,
        "head_dim": shape.head_dim,
    }
    assert point["gradient_checkpointing"] == (point["recomputation"] == "full")
    assert point["attn_implementation"] == {"eager": "eager", "flash": "sdpa"}[point["attention"]]
    # Per sample is the slope between the two micro-batches.
    small, large = REPORT["batches"]
    peaks = point["measured_peak_bytes"]
    assert measured(point) == Fraction(peaks[str(large)] - peaks[str(small)], large - small)


@pytest.mark.parametrize("point", POINTS, ids=point_id)
def test_estimate_within_ten_percent(point):
    # The peak, and each of the two moments that can hold it.
    for moment, breakdown in MOMENTS.items():
        estimate = sum(breakdown(*arguments(point)).values())
        if measured(point, moment) == 0:
            assert estimate == 0, moment  # no recomputation: backward only releases
        else:
            assert abs(estimate - measured(point, moment)) <= TOLERANCE * measured(point, moment), moment


@pytest.mark.parametrize("point", POINTS, ids=point_id)
def test_recorded_estimate_is_the_current_one(point):
    # Changing calc.formulas.activations without running `make validate` again fails here.
    breakdown = activation_breakdown(*arguments(point))
    assert point["estimated_parts"] == {part: int(value) for part, value in breakdown.items()}
    assert Fraction(point["estimated_bytes_per_sample"]) == activation_bytes(*arguments(point))
    for moment, function in MOMENTS.items():
        assert Fraction(point[f"estimated_{moment}bytes_per_sample"]) == sum(function(*arguments(point)).values())
    error = (activation_bytes(*arguments(point)) - measured(point)) / measured(point)
    assert point["relative_error"] == pytest.approx(float(error), abs=1e-6)


@pytest.mark.parametrize("point", POINTS, ids=point_id)
def test_parts_are_where_they_were_measured(point):
    # Each part's estimate against the bytes saved while that part's modules ran, within a tenth of the whole.
    assert set(point["measured_parts"]) == set(PARTS)
    assert sum(Fraction(value) for value in point["measured_parts"].values()) == measured(point)
    for part, value in activation_breakdown(*arguments(point)).items():
        assert abs(value - Fraction(point["measured_parts"][part])) <= TOLERANCE * measured(point), part


def by_length(**setting) -> dict[int, Fraction]:
    return {p["sequence_length"]: measured(p) for p in POINTS if all(p[k] == v for k, v in setting.items())}


@pytest.mark.parametrize("key", SHAPES)
@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_measured_scaling_in_sequence_length(key, precision):
    for recomputation in RECOMPUTATIONS:
        flash = by_length(model=key, precision=precision, attention="flash", recomputation=recomputation)
        for length, value in flash.items():  # linear: the same bytes per token at every length
            assert value / length == flash[64] / 64
        eager = by_length(model=key, precision=precision, attention="eager", recomputation=recomputation)
        # Faster than linear: the s² scores. With recomputation they are kept only while backward reruns a layer,
        # which may hold less than the forward's end (then the peak is linear).
        assert eager[128] >= 2 * eager[64] and eager[256] >= 2 * eager[128]
        if recomputation == "none":
            assert eager[128] > 2 * eager[64] and eager[256] > 2 * eager[128]


@pytest.mark.parametrize("point", [p for p in POINTS if p["recomputation"] == "none"], ids=point_id)
def test_measured_recomputation_saves(point):
    def twin(recomputation: str) -> Fraction:
        (other,) = [p for p in POINTS if point_id(p) == point_id({**point, "recomputation": recomputation})]
        return measured(other)

    assert twin("full") < twin("selective") <= measured(point)


# The presets whose architecture the estimate covers (the activation page offers no other).
SHAPES_TO_SCALE = {**{key: shape for key, shape in PRESETS.items() if shape.model_type in FAMILIES}, **SHAPES}


@pytest.mark.parametrize("key", SHAPES_TO_SCALE)
@pytest.mark.parametrize("precision", list(PRECISION_BYTES))
def test_estimated_scaling_laws(key, precision):
    shape = SHAPES_TO_SCALE[key]
    for length in (512, 4096):
        for recomputation in RECOMPUTATIONS:
            flash = [activation_bytes(shape, n, precision, "flash", recomputation) for n in (length, 2 * length)]
            eager = [activation_bytes(shape, n, precision, "eager", recomputation) for n in (length, 2 * length)]
            assert flash[1] == 2 * flash[0]  # every term is linear in s
            assert eager[1] >= 2 * eager[0]  # eager keeps s² per head (with recomputation, only while it reruns)
            if recomputation == "none":
                assert eager[1] > 2 * eager[0]
        for attention in ATTENTIONS:
            none, selective, full = (activation_bytes(shape, length, precision, attention, r) for r in RECOMPUTATIONS)
            assert selective <= none
            if key in PRESETS:
                # keeping one tensor per layer; in the smallest presets the logits, which no recomputation
                # drops, weigh more than in the 7B ones
                assert full * 3 < none
            else:
                assert full < none


def test_precision():
    shape = PRESETS["meta-llama/Llama-3.1-8B"]
    for attention in ATTENTIONS:
        for recomputation in RECOMPUTATIONS:
            fp16, bf16, fp32 = (
                activation_bytes(shape, 1024, p, attention, recomputation) for p in ("fp16", "bf16", "fp32")
            )
            assert fp16 == bf16  # two bytes either way
            assert bf16 < fp32 < 2 * bf16  # the loss, the norms and the eager softmax are float32 already


def test_a_layer_by_hand():
    """One Llama-2-7B layer in 16 bits, without recomputation, counted tensor by tensor.

    Against Korthikanti et al.'s 34·sbh + 5·as²b for a GPT-3 layer: the two
    RMSNorms keep 12·sbh (float32 input, normalized output) where the LayerNorms
    kept 4·sbh; the gated MLP 2·sbh + 8·sbi where GeLU's kept 19·sbh; eager
    attention 6·as²b (float32 and 16-bit probabilities, no dropout) where GPT-3
    kept 5·as²b.
    """
    one = dataclasses.replace(PRESETS["meta-llama/Llama-2-7b-hf"], layers=1)
    two = dataclasses.replace(one, layers=2)
    s, h, a, i = 4096, 4096, 32, 11008
    norms = 2 * (4 * s * h + 4 * s + 2 * s * h)
    attention = 2 * s * h + 3 * 2 * s * h + 2 * s * h  # input; q, k, v; o_proj's input
    mlp = 2 * s * h + 4 * 2 * s * i
    flash = 4 * a * s  # the log-sum-exp
    eager = (4 + 2) * a * s * s
    for kernel, core in (("flash", flash), ("eager", eager)):
        layer = forward_breakdown(two, s, "bf16", kernel, "none")
        layer = {part: value - forward_breakdown(one, s, "bf16", kernel, "none")[part] for part, value in layer.items()}
        assert layer == {"attention": attention + core, "mlp": mlp, "norms": norms, "logits": 0, "outside": 0}
    assert norms + attention + mlp == s * h * 24 + s * i * 8 + 8 * s  # 45.5·sbh at i = 2.6875·h


def test_the_loss_and_the_logits():
    shape = PRESETS["meta-llama/Llama-3.1-8B"]
    s, v, h = 4096, shape.vocab_size, shape.hidden_size
    # lm_head's 16-bit input, the float32 log-probabilities (Korthikanti §4.3: 4sbv), the int64 labels.
    assert forward_breakdown(shape, s, "bf16", "flash", "none")["logits"] == 2 * s * h + 4 * s * v + 8 * s
    # Gemma-2 also keeps its capped logits, in 16 bits.
    gemma = PRESETS["google/gemma-2-9b"]
    logits = 2 * s * gemma.hidden_size + (2 + 4) * s * gemma.vocab_size + 8 * s
    assert forward_breakdown(gemma, s, "bf16", "flash", "none")["logits"] == logits


def test_full_recomputation_keeps_the_layer_inputs():
    shape = PRESETS["meta-llama/Llama-3.1-70B"]
    s = 8192
    forward = forward_breakdown(shape, s, "bf16", "flash", "full")
    # Korthikanti §5: 2·sbhL, beside the token ids.
    assert forward["outside"] == shape.layers * 2 * s * shape.hidden_size + 8 * s
    assert forward["attention"] == forward["mlp"] == 0
    # Backward reruns a layer: one layer's tensors come on top, while the loss is gone.
    backward = recomputation_breakdown(shape, s, "bf16", "flash", "full")
    assert backward["logits"] == 0 and backward["outside"] == forward["outside"]
    none = forward_breakdown(shape, s, "bf16", "flash", "none")
    assert backward["mlp"] * shape.layers == none["mlp"]


def test_breakdown_keys_and_types():
    parts = activation_breakdown(PRESETS["Qwen/Qwen2.5-7B"], 2048, "bf16", "eager", "selective")
    assert list(parts) == ["attention", "mlp", "norms", "logits", "outside"]
    assert all(isinstance(value, Fraction) for value in parts.values())
    assert isinstance(activation_bytes(PRESETS["Qwen/Qwen2.5-7B"], 2048, "bf16", "eager", "selective"), Fraction)


@pytest.mark.parametrize(
    "change",
    [
        {"sequence_length": 0},
        {"sequence_length": True},
        {"sequence_length": 2.0},
        {"precision": "int8"},
        {"attention": "sdpa"},
        {"recomputation": "partial"},
        {"shape": dataclasses.replace(PRESETS["meta-llama/Llama-3.1-8B"], model_type="gpt2")},
    ],
)
def test_bad_arguments(change):
    call = {
        "shape": PRESETS["meta-llama/Llama-3.1-8B"],
        "sequence_length": 1024,
        "precision": "bf16",
        "attention": "flash",
        "recomputation": "none",
    }
    with pytest.raises(ValueError):
        activation_breakdown(**{**call, **change})


def test_accumulation_peak_is_one_micro_batch():
    # Gradient accumulation: a micro-batches forward and backward, gradients added, one optimizer step. The peak of
    # saved bytes is one micro-batch's: flat in a, linear in b (M = b · A).
    accumulation = REPORT["accumulation"]
    peaks = {(c["micro_batch"], c["accumulation_steps"]): c["peak_saved_bytes"] for c in accumulation["cycles"]}
    micro_batches = sorted({b for b, _ in peaks})
    steps = sorted({a for _, a in peaks})
    assert micro_batches == [1, 2, 4] and steps == [1, 2, 4]
    for b in micro_batches:
        assert {peaks[b, a] for a in steps} == {peaks[b, 1]}
    per_sample = [Fraction(peaks[b, 1] - peaks[1, 1], b - 1) for b in micro_batches[1:]]
    assert max(per_sample) - min(per_sample) <= min(per_sample) / 1000
    # And that slope is the estimate's A, within the tolerance (here: exactly up to the labels of a batch of one).
    shape = SHAPES[accumulation["model"]]
    settings = {k: accumulation[k] for k in ("sequence_length", "precision", "attention", "recomputation")}
    estimate = activation_bytes(shape, **settings)
    assert Fraction(accumulation["estimated_bytes_per_sample"]) == estimate
    for b in micro_batches:
        assert abs(peaks[b, 1] - b * estimate) <= TOLERANCE * b * estimate
    assert abs(per_sample[-1] - estimate) <= estimate / 1000


# The page: the saved tensors and the step's per-sample part, as a reader sees them.

DEFAULT = PRESETS["meta-llama/Llama-3.1-8B"]
ALL_SEVEN = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def page_view(translations=None, locale: str = "en", changed: str | None = None, **texts: object):
    """The page as it shows ``texts`` over its defaults, in ``locale`` (English words without ``translations``)."""
    parsed = Locale.parse(locale)
    raw = {**default_texts(CALCULATOR, parsed), **texts}
    return evaluate(CALCULATOR, raw, parsed, translations or NullTranslations(), changed=edited(changed))


def gigabytes_text(size: Fraction) -> str:
    """A size as the page shows it: two decimals, rounded half up."""
    return gigabytes(size, 2).text(Locale.parse("en"), breakable=False)


def per_sample_text(size: Fraction) -> str:
    """The activation memory per sample as the page shows and carries it: two decimals, rounded up."""
    return Quantity(rounded_up(size / 10**9, 2), GIGABYTE, places=2).text(Locale.parse("en"), breakable=False)


def parse(text: str) -> Fraction:
    return Fraction(text.removesuffix("\u00a0GB").replace(",", ""))


def step_setting(recipe: str = "adamw-mixed", **change) -> Setting:
    """The site's scenario: LoRA r = 16 on all seven projections, 4,096 tokens, fused, full recomputation."""
    setting = {"sequence_length": 4096, "attention": "flash", "recomputation": "full", "method": "lora"}
    setting |= {"lora_rank": 16, "lora_targets": ALL_SEVEN} | change
    if setting["method"] == "full":
        setting |= {"lora_rank": 8, "lora_targets": ()}
    return Setting(recipe, **setting)


def test_the_page_opens_on_the_site_scenario():
    defaults = CALCULATOR.defaults()
    assert defaults["model"] == "meta-llama/Llama-3.1-8B"
    assert (defaults["method"], defaults["rank"], defaults["target_modules"]) == ("lora", 16, frozenset(ALL_SEVEN))
    assert (defaults["sequence_length"], defaults["precision"]) == (4096, "bf16")
    assert (defaults["attention"], defaults["recomputation"]) == ("flash", "full")


@pytest.mark.parametrize(
    ("texts", "recipe", "change"),
    [
        ({}, "adamw-mixed", {}),
        ({"precision": "fp16", "recomputation": "none"}, "adamw-mixed", {"recomputation": "none"}),
        ({"precision": "fp32", "attention": "eager"}, "adam-fp32", {"attention": "eager"}),
        ({"method": "full", "recomputation": "selective"}, "adamw-mixed",
         {"method": "full", "recomputation": "selective"}),
        ({"method": "qlora", "rank": "8", "target_modules": ["q_proj", "v_proj"]}, "adamw-mixed",
         {"method": "qlora", "lora_rank": 8, "lora_targets": ("q_proj", "v_proj")}),
        ({"method": "full", "precision": "fp32", "sequence_length": "16384", "attention": "eager"}, "adam-fp32",
         {"method": "full", "sequence_length": 16384, "attention": "eager"}),
    ],
)  # fmt: skip
def test_the_step_figure_is_the_per_sample_part_of_the_step(texts, recipe, change):
    setting = step_setting(recipe, **change)
    outputs = page_view(**texts).outputs
    step = largest_per_sample(moments(DEFAULT, setting)).per_sample_total
    assert outputs["step_per_sample"] == per_sample_text(step)
    # Rounded up, never down: what it shows is at least what a sample adds, and by less than a hundredth of a GB.
    shown = parse(outputs["step_per_sample"]) * 10**9
    assert step <= shown < step + Fraction(10**9, 100)
    assert outputs["activation_per_sample"] == gigabytes_text(sum(saved_breakdown(DEFAULT, setting).values()))
    where = MOMENT_WORDS[largest_per_sample(moments(DEFAULT, setting)).name]
    assert outputs["step_moment"] == f"The activation memory per sample is largest {where}."


def test_the_page_says_when_the_step_peaks():
    opening = page_view().outputs["step_moment"]
    assert opening.startswith("The activation memory per sample is largest as the backward pass")
    # At 16,384 tokens eager attention's s² scores outweigh the loss: the last layer's backward holds the most.
    long = page_view(method="full", sequence_length="16384", attention="eager").outputs["step_moment"]
    assert long == (
        "The activation memory per sample is largest in the last layer's backward pass, at its attention core."
    )


def test_every_moment_and_part_of_the_step_is_worded():
    assert set(MOMENT_WORDS) == set(STEP_MOMENTS)
    assert set(PART_LABELS) == set(STEP_PARTS)


@pytest.mark.parametrize("key", [key for key, shape in PRESETS.items() if shape.model_type in FAMILIES])
def test_in_full_fine_tuning_the_saved_figure_is_the_measured_estimate(key):
    """What the page saves per sample in full fine-tuning is calc.formulas.activations', held to PyTorch above."""
    shape = PRESETS[key]
    for precision, recipe in (("bf16", "adamw-mixed"), ("fp16", "adamw-mixed"), ("fp32", "adam-fp32")):
        for attention in ATTENTIONS:
            for recomputation in RECOMPUTATIONS:
                setting = Setting(recipe, 2048, attention=attention, recomputation=recomputation)
                saved = saved_breakdown(shape, setting)
                assert saved == activation_breakdown(shape, 2048, precision, attention, recomputation)
                # The step's figure counts the saved tensors and more, as the page's note says.
                assert largest_per_sample(moments(shape, setting)).per_sample_total > sum(saved.values())


@pytest.mark.parametrize("method", ["lora", "qlora"])
def test_lora_saves_less_than_full_fine_tuning_in_the_site_scenario(method):
    full, adapter = page_view(method="full").outputs, page_view(method=method).outputs
    for figure in ("activation_per_sample", "step_per_sample"):
        assert parse(adapter[figure]) < parse(full[figure])
    assert parse(adapter["activation_per_sample"]) < parse(adapter["step_per_sample"])


def test_lora_without_recomputation_keeps_peft_s_float32_copies():
    """peft casts each adapted projection's bf16 input to float32 and keeps it: on all seven, more than full."""
    lora, full = page_view(recomputation="none").outputs, page_view(method="full", recomputation="none").outputs
    assert parse(lora["activation_per_sample"]) > parse(full["activation_per_sample"])
    fewer = page_view(recomputation="none", target_modules=["q_proj", "v_proj"]).outputs
    assert parse(fewer["activation_per_sample"]) < parse(full["activation_per_sample"])


def test_qlora_in_fp32_is_refused_on_the_method():
    view = page_view(method="qlora", precision="fp32")
    assert view.errors["method"] == (
        "This calculator models QLoRA computing in 16\u00a0bits, as in the QLoRA paper: choose the precision bf16 "
        "or fp16."
    )
    assert view.outputs["step_per_sample"] == ""


def test_the_links_carry_the_step_figure_as_the_page_shows_it():
    view = page_view()
    step = rounded_up(largest_per_sample(moments(DEFAULT, step_setting())).per_sample_total / 10**9, 2)
    expected = f"activation_per_sample={step}&memory_budget="
    assert view.links == {"accumulation": expected, "plan": f"{expected}&sequence_length=4096"}
    assert page_view(sequence_length="8192").links["plan"].endswith("&sequence_length=8192")
    assert parse(view.outputs["activation_per_sample"]) < step


@pytest.mark.parametrize("page", ["plan", "accumulation"])
def test_the_links_leave_the_budget_to_the_reader(page):
    """This page knows no GPU: the planner asks for a budget rather than plan against its default run's, and the
    accumulation page compares with none."""
    view, en = page_view(method="full", recomputation="none"), Locale.parse("en")
    target = {"plan": PLAN, "accumulation": ACCUMULATION}[page]
    opened = evaluate(target, restore(target, view.links[page], en), en, NullTranslations(), restoring=True)
    assert opened.texts["memory_budget"] == ""
    assert "budget" not in json.dumps(opened.outputs)


@pytest.mark.parametrize("texts", [{}, {"sequence_length": "8192", "recomputation": "selective"}])
def test_the_accumulation_page_opened_at_the_link_reads_the_same_digits(texts):
    """Its field and its results, the batch taken at once included: 7.45 GB and 476.80 GB, not 7.444939 GB and
    476.476096 GB."""
    view, en = page_view(**texts), Locale.parse("en")
    opened = evaluate(
        ACCUMULATION, restore(ACCUMULATION, view.links["accumulation"], en), en, NullTranslations(), restoring=True
    )
    assert opened.prompt is None, opened.errors
    assert f"{opened.texts['activation_per_sample']}\xa0GB" == view.outputs["step_per_sample"]
    assert opened.outputs["activation_memory"] == view.outputs["step_per_sample"]
    assert not re.search(r"\.\d{3}", opened.outputs["tradeoff_note"]), opened.outputs["tradeoff_note"]


def test_a_figure_too_small_to_show_is_carried_as_the_smallest_shown():
    """Rounded up, a tiny model's figure reads 0.01 GB, never 0, which no page takes as a measurement."""
    view = page_view(
        model="custom", layers="1", hidden_size="64", attention_heads="1", kv_heads="1", head_dim="64",
        intermediate_size="64", vocab_size="64", sequence_length="16", changed="layers",
    )  # fmt: skip
    assert view.outputs["step_per_sample"] == "0.01\xa0GB"
    assert view.links["accumulation"] == "activation_per_sample=0.01&memory_budget="
    # What it saves is no 0.00 GB beside shares of 40%: less than the smallest figure shown, in the table too.
    assert view.outputs["activation_per_sample"] == "<\xa00.01\xa0GB"
    rows = view.outputs["breakdown"]["rows"]
    assert rows and all(size != "0.00" or share == "0.0" for _, size, share in rows), rows
    assert any(size == "<\xa00.01" for _, size, _ in rows)


@pytest.mark.parametrize(("config", "preset"), [(QWEN2_5_0_5B, "Qwen/Qwen2.5-0.5B"), (GEMMA_2_2B, "google/gemma-2-2b")])
def test_a_pasted_config_fills_the_shape(config, preset):
    view = page_view(config=json.dumps(config), changed="config")
    names = [field.name for field in SHAPE]
    assert {"architecture", "head_dim", "tie_word_embeddings"} <= set(names)
    inputs = {i.name: i for i in CALCULATOR.inputs}
    values = shape_values(PRESETS[preset], names)
    assert view.texts["model"] == "custom" and view.texts["config"] == ""
    assert {name: view.texts[name] for name in names} == {
        name: inputs[name].text(value, Locale.parse("en")) for name, value in values.items()
    }
    # The figures are the preset's own: its head_dim, tied embeddings and biases read exactly.
    assert view.outputs == page_view(model=preset, changed="model").outputs


@pytest.mark.parametrize("locale", LOCALES)
def test_a_config_of_another_architecture_is_refused_naming_it(localedir, locale, monkeypatch):
    # Every architecture read is covered today: one taken out stands for the next architecture read before it is.
    import calc.activations as page

    covered = {name: habits for name, habits in page.FAMILIES.items() if name != "phi3"}
    monkeypatch.setattr(page, "FAMILIES", covered)
    monkeypatch.setattr(page, "COVERED", Names(tuple(covered)))
    view = page_view(load_translations(localedir, locale), locale, config=json.dumps(PHI_3_MINI), changed="config")
    # The covered architectures, joined as the locale joins a list.
    assert "phi3" in view.errors["config"]
    assert format_names(covered, Locale.parse(locale)) in view.errors["config"]
    assert view.outputs["step_per_sample"] == ""


def test_a_mixture_of_experts_is_estimated_with_an_adapter_on_its_attention_only():
    view = page_view(model="mistralai/Mixtral-8x7B-v0.1", changed="model")
    assert not any(view.errors.values())
    # Choosing it brings the targets the step models, its attention projections; its experts are not offered.
    targets = frozenset({"q_proj", "k_proj", "v_proj", "o_proj"})
    assert set(view.texts["target_modules"]) == targets
    assert set(view.offered["target_modules"]) == targets
    setting = step_setting("adamw-mixed", lora_targets=tuple(sorted(targets)))
    saved = sum(saved_breakdown(PRESETS["mistralai/Mixtral-8x7B-v0.1"], setting).values())
    assert view.outputs["activation_per_sample"] == gigabytes_text(saved)


@pytest.mark.parametrize("model", ["mistralai/Mixtral-8x7B-v0.1", "Qwen/Qwen3-30B-A3B"])
@pytest.mark.parametrize("expert", ["experts.gate_up_proj", "experts.down_proj"])
def test_an_adapter_on_a_mixture_s_experts_is_refused_as_the_vram_and_lora_pages_refuse_it(model, expert):
    """calc.formulas.step.adapts_experts decides on all three pages; here, as on the VRAM page, on the field."""
    from calc import lora, vram

    chosen = {"model": model, "method": "lora", "target_modules": frozenset({"q_proj", expert})}
    settled = page_view(model=model, changed="model").texts  # the texts the choice changed
    view = page_view(**{"model": model, **settled, "target_modules": ["q_proj", expert]}, changed="target_modules")
    assert view.errors["target_modules"] == (
        "An adapter on the experts' weights is not modeled: choose other target modules."
    )
    assert view.outputs["step_per_sample"] == "" and view.links == {}
    # The same setting on the other two pages: refused on the VRAM page's field, said in the LoRA page's results.
    with pytest.raises(InputProblem) as refused:
        vram.CALCULATOR.results({**vram.CALCULATOR.defaults(), **chosen})
    assert refused.value.field == "target_modules"
    assert lora.CALCULATOR.results({**lora.CALCULATOR.defaults(), **chosen})["peak_moment"] is lora.EXPERTS_NOT_MODELLED


def test_a_pasted_qwen3_moe_config_is_estimated_as_its_preset():
    view = page_view(config=json.dumps(QWEN3_30B_A3B), changed="config")
    assert not any(view.errors.values())
    assert view.outputs == page_view(model="Qwen/Qwen3-30B-A3B", changed="model").outputs


def test_the_architecture_field_offers_only_what_the_estimate_covers():
    (architecture,) = [field for field in SHAPE if field.name == "architecture"]
    assert [option.value for option in architecture.options] == list(FAMILIES)
    assert page_view(model="custom", architecture="falcon").errors["architecture"]


def test_a_figure_past_what_the_other_pages_take_is_left_blank_and_the_page_says_why():
    """Qwen3-30B-A3B trained in full at 32,768 tokens with eager attention and no recomputation: 10,425.80 GB a sample,
    past the 10,000 GB the accumulation page and the planner take. The links leave it blank, which those pages ask
    for, rather than carry a figure they refuse, and the page says why (review 7, technical item 11)."""
    view = page_view(
        model="Qwen/Qwen3-30B-A3B", method="full", attention="eager", recomputation="none",
        sequence_length="32768", changed="model",
    )  # fmt: skip
    assert view.outputs["step_per_sample"] == "10,425.80\xa0GB"
    assert view.links["accumulation"] == "activation_per_sample=&memory_budget="
    assert view.outputs["carried_note"] == (
        "At 10,425.80\xa0GB per sample, this run fits on no GPU. The gradient accumulation memory calculator and the "
        "batch size planner take at most 10,000\xa0GB, so their links leave the figure blank."
    )
    assert page_view().outputs["carried_note"] == ""


def test_the_row_outside_the_layers_names_what_holds_its_bytes():
    """Under full recomputation the row is each layer's input (1.07 GB for Llama-3.1-8B at 4096 tokens), the token
    ids a few kilobytes of it: it leads with the inputs (technical review, round 26, item 5). Under selective
    recomputation only the token ids are left outside the layers."""
    rows = {row[0]: row[1] for row in page_view().outputs["breakdown"]["rows"]}
    assert rows["Each layer's input, kept for recomputation (and, in full fine-tuning, the token ids)"] == "1.07"
    selective = [row[0] for row in page_view(recomputation="selective").outputs["breakdown"]["rows"]]
    assert not any("recomputation" in label for label in selective)


def test_qlora_s_figures_say_they_are_for_the_base_as_loaded():
    """Spanish review, round 79: the figure carried to the batch pages had no word, beside it, of peft's preparation,
    which most QLoRA recipes run and which can make the activations larger."""
    assert "prepare_model_for_kbit_training" in page_view(method="qlora").outputs["qlora_note"]
    assert page_view(method="lora").outputs["qlora_note"] == ""
