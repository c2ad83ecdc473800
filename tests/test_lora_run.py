"""The LoRA page's run: the step's peak on one GPU, as a reader sees it, and the link that carries the run on."""

from __future__ import annotations

import dataclasses
import json
import re
from decimal import Decimal
from fractions import Fraction
from gettext import NullTranslations
from html import unescape
from pathlib import Path
from urllib.parse import parse_qs

import pytest
from babel import Locale

from calc.evaluation import default_texts, evaluate, restore
from calc.formatting import format_number
from calc.formulas.activations import FAMILIES
from calc.formulas.step import MOMENTS, PARTS, Setting, step_peak
from calc.lora import CALCULATOR
from calc.models import PRESETS
from calc.outputs import gigabytes
from calc.step_outputs import MOMENT_WORDS, PART_LABELS
from calc.vram import CALCULATOR as VRAM
from sitebuild.config import LOCALES
from sitebuild.validation import validation_facts
from tests.helpers import edited

EN = Locale.parse("en")
LLAMA = PRESETS["meta-llama/Llama-3.1-8B"]
SEVEN = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
NOT_MODELLED = "Not modeled"


def view(changed=None, **texts):
    """The page's view once ``changed`` (else the first text given) was edited to read ``texts``."""
    raw = {**default_texts(CALCULATOR, EN), **texts}
    return evaluate(CALCULATOR, raw, EN, NullTranslations(), changed=edited(changed, texts))


def test_a_shape_typed_while_another_edit_waited_stays_as_typed():
    """Layers typed while the rank's request waited its turn, which names both: the model is custom and the counts
    follow them (half of Llama-3.1-8B's 32 layers: half its adapter)."""
    raw = {**default_texts(CALCULATOR, EN), "layers": "16"}
    page = evaluate(CALCULATOR, raw, EN, NullTranslations(), changed=frozenset({"rank", "layers"}))
    assert page.texts == {"model": "custom"}
    assert page.outputs["trainable_parameters"] == "20,971,520"


def shown(size) -> str:
    """As the page shows it, with both decimals (4.20 GB)."""
    return gigabytes(size, 2).text(EN, breakable=False)


@pytest.mark.parametrize(
    ("texts", "setting", "micro_batch"),
    [
        # The page's defaults: Llama-3.1-8B, LoRA r = 16 on all seven projections, 4,096 tokens, bf16, fused, full.
        ({}, Setting("adamw-mixed", 4096, "flash", "full", "lora", 16, SEVEN), 1),
        ({"method": "qlora"}, Setting("adamw-mixed", 4096, "flash", "full", "qlora", 16, SEVEN), 1),
        (
            {"precision": "fp32", "micro_batch": "2", "attention": "eager", "recomputation": "none", "rank": "8"},
            Setting("adam-fp32", 4096, "eager", "none", "lora", 8, SEVEN),
            2,
        ),
        (
            {"sequence_length": "1024", "recomputation": "selective", "target_modules": ["q_proj", "v_proj"]},
            Setting("adamw-mixed", 1024, "flash", "selective", "lora", 16, ("q_proj", "v_proj")),
            1,
        ),
    ],
)
def test_the_run_is_the_steps_peak(texts, setting, micro_batch):
    peak = step_peak(LLAMA, setting, micro_batch)
    page = view(**texts)
    assert page.prompt is None
    assert page.outputs["run_memory"] == shown(peak.total)
    assert page.outputs["peak_moment"] == f"The peak comes {MOMENT_WORDS[peak.moment]}."
    # Every part that holds something, in the step's order, and none that holds nothing.
    # In gigabytes, which the heading names: the cells hold the numbers alone.
    assert page.outputs["run_breakdown"]["rows"] == [
        [PART_LABELS[part], gigabytes(size, 2).number(EN)] for part, size in peak.parts.items() if size
    ]
    assert all(row[1] != "0.00" for row in page.outputs["run_breakdown"]["rows"])
    # One column, one number of decimals: 4.20, not 4.2, under 16.23.
    assert all(re.fullmatch(r"[\d,]+\.\d\d", row[1]) for row in page.outputs["run_breakdown"]["rows"])


def test_the_defaults_run_is_the_one_the_prose_describes():
    page = view()
    peak = step_peak(LLAMA, Setting("adamw-mixed", 4096, "flash", "full", "lora", 16, SEVEN), 1)
    # "Its peak comes as the backward pass starts: … and … for the two fp32 gradients of the loss, … The loss alone
    # holds more than all the layers' saved tensors together": its gradients alone outweigh every saved activation.
    assert page.outputs["peak_moment"] == f"The peak comes {MOMENT_WORDS['loss']}." and peak.moment == "loss"
    assert peak.parts["loss"] > peak.parts["activations"]
    # "… of weights, almost all of it the frozen base": its bf16 weights beside the adapter's float32 ones.
    assert peak.parts["weights"] == 2 * 8_030_261_248 + 4 * 41_943_040
    assert 2 * 8_030_261_248 > peak.parts["weights"] * 98 / 100
    # The parts the prose lists, in its order, are the whole peak: nothing else holds memory at that moment.
    listed = ("weights", "optimizer_state", "activations", "loss")
    assert sum(peak.parts[part] for part in listed) == peak.total
    assert all(not size for part, size in peak.parts.items() if part not in listed)
    assert page.outputs["trainable_parameters"] == "41,943,040"  # the counts are still shown, unchanged
    assert page.announcement == (
        f"Trainable parameters: 41,943,040, 0.522% of the base model. The run takes {shown(peak.total)} on one GPU "
        "at its peak."
    )


@pytest.mark.parametrize(("precision", "measured"), [("bf16", "adamw-bf16"), ("fp32", "adam-fp32")])
def test_the_pages_run_computes_as_a_measured_recipe(precision, measured):
    """The prose says the run was checked against PyTorch: with an adapter, the page's recipe for a precision
    (adamw-mixed for 16 bits) is counted exactly as the recipe tools/measure_steps.py ran."""
    page = view(precision=precision, recomputation="none", micro_batch="2")
    assert page.outputs["run_memory"] == shown(
        step_peak(LLAMA, Setting(measured, 4096, "flash", "none", "lora", 16, SEVEN), 2).total
    )


def test_every_moment_and_part_of_the_step_is_worded():
    assert set(MOMENT_WORDS) == set(MOMENTS)
    assert set(PART_LABELS) == set(PARTS)


def test_the_page_trains_an_adapter_only():
    method = next(i for i in CALCULATOR.inputs if i.name == "method")
    assert [option.value for option in method.options] == ["lora", "qlora"]
    assert method.default == "lora"
    assert view(method="full").errors["method"]


def test_qlora_in_fp32_is_refused_on_the_method():
    page = view(method="qlora", precision="fp32")
    assert page.errors["method"] == (
        "This calculator models QLoRA computing in 16\u00a0bits, as in the QLoRA paper: choose the precision bf16 "
        "or fp16."
    )
    assert page.outputs["run_memory"] == ""


def test_an_architecture_the_step_does_not_model_says_so_and_keeps_its_counts(monkeypatch):
    # Every preset's architecture is modelled today: one taken out stands for the next architecture read before it is.
    import calc.lora as page

    monkeypatch.setattr(page, "FAMILIES", {name: habits for name, habits in FAMILIES.items() if name != "phi3"})
    page_ = view(model="microsoft/Phi-3-mini-4k-instruct")
    assert page_.prompt is None
    assert page_.outputs["run_memory"] == NOT_MODELLED
    assert page_.outputs["peak_moment"] == (
        "The activations of this architecture are not modeled, so neither is the run's total; the counts above hold."
    )
    assert page_.outputs["run_breakdown"]["rows"] == []
    assert page_.outputs["trainable_parameters"] not in ("", "0")
    assert page_.announcement.endswith("so neither is the run's total; the counts above hold.")


def test_a_mixture_runs_with_an_adapter_on_its_attention_and_says_so_on_its_experts():
    mixtral = PRESETS["mistralai/Mixtral-8x7B-v0.1"]
    page = view(model="mistralai/Mixtral-8x7B-v0.1", target_modules=["q_proj", "v_proj"])
    setting = Setting("adamw-mixed", 4096, "flash", "full", "lora", 16, ("q_proj", "v_proj"))
    assert page.outputs["run_memory"] == shown(step_peak(mixtral, setting, 1).total)
    # Choosing the model brings the projections the step models, as on the VRAM page, so the run has a total.
    page = view(model="mistralai/Mixtral-8x7B-v0.1")
    assert page.texts["target_modules"] == ["q_proj", "k_proj", "v_proj", "o_proj"]
    assert page.outputs["run_memory"] not in ("", NOT_MODELLED)
    # The experts, chosen: their adapter is not modelled, the counts stay.
    chosen = [*page.texts["target_modules"], *EXPERTS]
    page = view("target_modules", **{**page.texts, "model": "mistralai/Mixtral-8x7B-v0.1", "target_modules": chosen})
    assert page.outputs["run_memory"] == NOT_MODELLED
    assert page.outputs["peak_moment"] == (
        "An adapter on the experts' weights is not modeled, so neither is the run's total; the counts above hold."
    )
    assert page.outputs["trainable_parameters"] not in ("", "0")
    assert page.announcement.endswith("so neither is the run's total; the counts above hold.")
    # Nor is the VRAM page, which models the same step, offered: it would refuse the run.
    assert page.links == {}


EXPERTS = ["experts.gate_up_proj", "experts.down_proj"]


@pytest.mark.parametrize("model", ["mistralai/Mixtral-8x7B-v0.1", "Qwen/Qwen3-30B-A3B"])
def test_a_mixture_chosen_opens_a_run_the_vram_page_totals(model):
    """The two pages bring the same targets with a mixture: the link opens the same run, not an error."""
    from calc.evaluation import restore
    from calc.vram import CALCULATOR as VRAM

    page = view(model=model)
    opened = evaluate(VRAM, restore(VRAM, page.links["vram"], EN), EN, NullTranslations(), restoring=True)
    assert opened.prompt is None
    assert not any(opened.errors.values()), opened.errors
    assert opened.texts["target_modules"] == page.texts["target_modules"]
    assert opened.outputs["total_memory"] not in ("", None)


def test_every_preset_s_run_is_modelled():
    assert {shape.model_type for shape in PRESETS.values()} - set(FAMILIES) == set()


def carried(page) -> dict[str, str]:
    """The VRAM page's address, as its fields read it: each name once."""
    query = parse_qs(page.links["vram"], keep_blank_values=True, strict_parsing=True)
    assert all(len(values) == 1 for values in query.values()), query
    return {name: values[0] for name, values in query.items()}


RUN = {
    "method": "lora",
    "rank": "16",
    "target_modules": ",".join(SEVEN),
    "precision": "bf16",
    "sequence_length": "4096",
    "micro_batch": "1",
    "attention": "flash",
    "recomputation": "full",
    "optimizer": "adamw-mixed",
    # One GPU, without ZeRO: the run the page totals. No target batch: the VRAM page's own applies.
    "zero_stage": "0",
    "gpus": "1",
}


def test_the_link_carries_the_run_to_the_vram_page():
    assert carried(view()) == {"model": "meta-llama/Llama-3.1-8B", **RUN}
    page = view(
        method="qlora",
        rank="64",
        target_modules=["v_proj", "q_proj"],
        precision="fp16",
        sequence_length="2048",
        micro_batch="3",
        attention="eager",
        recomputation="selective",
    )
    assert carried(page) == {
        "model": "meta-llama/Llama-3.1-8B",
        **RUN,
        "method": "qlora",
        "rank": "64",
        "target_modules": "q_proj,v_proj",  # in the checkboxes' order, as the page's own address writes them
        "precision": "fp16",
        "sequence_length": "2048",
        "micro_batch": "3",
        "attention": "eager",
        "recomputation": "selective",
    }
    assert carried(view(precision="fp32"))["optimizer"] == "adam-fp32"


def test_a_typed_shape_is_carried_field_by_field():
    llama = view(layers="16")  # typing a shape field makes the model custom
    assert llama.texts["model"] == "custom"
    assert carried(llama) == {
        "model": "custom",
        "architecture": "llama",
        "layers": "16",
        "hidden_size": "4096",
        "attention_heads": "32",
        "kv_heads": "8",
        "head_dim": "128",
        "intermediate_size": "14336",
        "vocab_size": "128256",
        "tie_word_embeddings": "false",
        **RUN,
    }
    # A mixture's experts, which only it has.
    mixtral = view(model="mistralai/Mixtral-8x7B-v0.1").texts
    fields = carried(view("experts", **{**mixtral, "model": "custom", "experts": "4"}))
    assert (fields["model"], fields["architecture"]) == ("custom", "mixtral")
    assert {name: fields[name] for name in ("experts", "experts_per_token", "expert_intermediate_size")} == {
        "experts": "4",
        "experts_per_token": "2",
        "expert_intermediate_size": "14336",
    }
    assert fields["target_modules"] == "q_proj,k_proj,v_proj,o_proj"


@pytest.mark.parametrize("locale", LOCALES)
def test_the_prose_quotes_the_defaults_run_and_what_was_measured(site, locale):
    """The numbers the details give are the page's own result and validation/steps.json's LoRA points."""
    html = unescape((site / locale / "lora" / "index.html").read_text(encoding="utf-8"))
    details = html[html.index('id="details-heading"') :]
    parsed = Locale.parse(locale)
    lora = step_peak(LLAMA, Setting("adamw-mixed", 4096, "flash", "full", "lora", 16, SEVEN), 1)
    qlora = step_peak(LLAMA, Setting("adamw-mixed", 4096, "flash", "full", "qlora", 16, SEVEN), 1)
    prepared = CALCULATOR.facts()["qlora_preparation"].value * 10**9
    parts = (lora.parts[part] for part in ("weights", "optimizer_state", "activations", "loss"))
    for size in (lora.total, *parts, qlora.total, prepared):
        assert gigabytes(size, 2).text(parsed, breakable=False) in details, size
    report = json.loads((Path(__file__).parent.parent / "validation" / "steps.json").read_text(encoding="utf-8"))
    measured = [point for point in report["points"] if point["method"] == "lora"]
    # A count stands apart from its noun, by a no-break space where the catalog joins them.
    assert re.search(rf"\s{re.escape(format_number(Decimal(len(measured)), parsed))}\s", details)
    if locale == "en":
        # On which side, how far at most, and the adapters each architecture was measured with (Phi-3's qkv_proj).
        below = sum(point["estimated_peak_bytes"] < point["measured_peak_bytes"] for point in measured)
        above = sum(point["estimated_peak_bytes"] > point["measured_peak_bytes"] for point in measured)
        facts = validation_facts(parsed, NullTranslations())
        sides = facts["lora_step_sides"]
        # One step above is said as one: its own margin, not a bound.
        exceeded = f"one, by {sides['above_worst']}" if above == 1 else f"{above}, by at most {sides['above_worst']}"
        assert (
            f"fell short of the measured peak in {below} of the {len(measured)} configurations, by at most "
            f"{sides['below_worst']}, and exceeded it in {exceeded}"
        ) in " ".join(details.split())
        assert "qkv_proj and down_proj in phi3" in facts["lora_step_adapters"]
        assert facts["lora_step_adapters"] in details


@pytest.mark.parametrize(
    ("texts", "shape", "setting", "micro_batch"),
    [
        ({}, LLAMA, Setting("adamw-mixed", 4096, "flash", "full", "lora", 16, SEVEN), 1),
        (
            {"method": "qlora", "micro_batch": "2", "precision": "fp16", "target_modules": ["q_proj", "v_proj"]},
            LLAMA,
            Setting("adamw-mixed", 4096, "flash", "full", "qlora", 16, ("q_proj", "v_proj")),
            2,
        ),
        (
            {"precision": "fp32", "recomputation": "none", "attention": "eager", "rank": "8"},
            LLAMA,
            Setting("adam-fp32", 4096, "eager", "none", "lora", 8, SEVEN),
            1,
        ),
        (
            # A preset other than the VRAM page's default: the link gives the model, not its count.
            {"model": "Qwen/Qwen3-8B"},
            PRESETS["Qwen/Qwen3-8B"],
            Setting("adamw-mixed", 4096, "flash", "full", "lora", 16, SEVEN),
            1,
        ),
        (
            {"layers": "16", "sequence_length": "2048"},  # a typed shape
            dataclasses.replace(LLAMA, layers=16),
            Setting("adamw-mixed", 2048, "flash", "full", "lora", 16, SEVEN),
            1,
        ),
    ],
)
def test_the_vram_page_opened_at_the_link_totals_the_same_run(texts, shape, setting, micro_batch):
    """Following the link gives the same step there, plus the VRAM page's own overhead (issue 15, item 6), under the
    VRAM page's own target batch: the reader's, not one the link sets. Its default needs accumulation, so the step
    also holds the earlier micro-batches' gradients, as the prose says."""
    page = view(**texts)
    opened = evaluate(VRAM, restore(VRAM, page.links["vram"], EN), EN, NullTranslations(), restoring=True)
    assert opened.prompt is None, opened.errors
    assert opened.texts["target_batch"] == default_texts(VRAM, EN)["target_batch"]
    overhead = Fraction(VRAM.defaults()["overhead"]) * 10**9
    assert page.outputs["run_memory"] == shown(step_peak(shape, setting, micro_batch).total)
    accumulating = step_peak(shape, dataclasses.replace(setting, accumulating=True), micro_batch).total
    assert opened.outputs["total_memory"] == shown(accumulating + overhead)
    # And the planner it links to plans that target, not a batch of one micro-batch.
    assert f"target_batch={VRAM.defaults()['target_batch']}" in opened.links["plan"]


def test_the_gradients_the_prose_names_are_what_the_vram_page_adds_to_the_same_run():
    """'This is a single step … the adapter's gradients …, 0.17 GB here': the VRAM page's default, which accumulates,
    holds this page's default run plus exactly those gradients, and its overhead."""
    from calc import vram

    values = {**vram.CALCULATOR.defaults(), **vram.settle(vram.CALCULATOR.defaults(), None)}
    accumulating = Fraction(vram.CALCULATOR.results(values)["total_memory"].value) - Fraction(values["overhead"])
    single = Fraction(CALCULATOR.results(CALCULATOR.defaults())["run_memory"].value)
    facts = CALCULATOR.facts()
    assert accumulating - single == facts["accumulated_gradients"].value > 0
    assert vram.CALCULATOR.defaults()["target_batch"] == facts["vram_target"].value > 1


def test_a_qlora_run_says_which_base_its_total_counts():
    """The base as loaded, its embeddings, output layer and norms in 16 bits: what peft's preparation would add to the
    weights, cast to fp32, is said beside the total, for the model chosen."""
    from calc.formulas.parameters import base_bytes_qlora, base_bytes_qlora_prepared, lora_parameters

    for model in ("meta-llama/Llama-3.1-8B", "google/gemma-2-9b"):
        shape = PRESETS[model]
        extra = base_bytes_qlora_prepared(shape) - base_bytes_qlora(shape)
        page = view(model=model, method="qlora")
        assert page.outputs["qlora_base"] == (
            "The total counts the base as it is loaded. After peft's prepare_model_for_kbit_training, the base's "
            f"weights take {shown(extra)} more, and the activations can grow too."
        )
        # The total is the loaded base's: the step's weights are the first QLoRA row and the adapter's fp32 weights.
        peak = step_peak(shape, Setting("adamw-mixed", 4096, "flash", "full", "qlora", 16, SEVEN), 1)
        assert peak.parts["weights"] == base_bytes_qlora(shape) + 4 * lora_parameters(shape, 16, SEVEN)
    assert view().outputs["qlora_base"] == ""


def test_a_rank_no_chosen_projection_can_have_is_refused():
    """Qwen2.5-0.5B's key and value projections are 128 wide, its others 896 and more: a rank up to 896 still raises
    the rank of some update, one above it raises none and is refused (Italian review, round 12, item 1; Spanish
    review, round 10, item 17)."""
    model = {"model": "Qwen/Qwen2.5-0.5B"}
    assert view(**model, rank="896").errors["rank"] is None
    refused = view(**model, rank="897").errors["rank"]
    assert refused and refused.startswith("Enter at most 896. ")
