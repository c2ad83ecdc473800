"""What `make validate` checked, as the pages quote it: library versions, counts, and every measured point.

The results are committed under ``validation/``; the tests hold calc to
them, and the pages say what they were checked against.
"""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from gettext import NullTranslations

from babel import Locale

from calc.formatting import format_number, format_quantity, rounded
from calc.formulas.parameters import TARGET_MODULES
from calc.i18n import N_
from sitebuild.config import ROOT

VALIDATION = ROOT / "validation"

# How the activation measurements name their settings, as the page words them.
_ATTENTION = {"eager": N_("eager"), "flash": N_("fused")}
_RECOMPUTATION = {"none": N_("no recomputation"), "selective": N_("selective"), "full": N_("full")}
# How the step measurements name their methods and recipes (calc.formulas.step.STEP_RECIPES).
_METHOD = {"full": N_("full fine-tuning"), "lora": "LoRA", "qlora": "QLoRA"}
_RECIPE = {
    "adamw-bf16": N_("AdamW in bf16"),
    "adam-fp32": N_("AdamW in fp32"),
    "sgd-fp32": N_("SGD in fp32"),
    "autocast-bf16": N_("AdamW in fp32 under bf16 autocast"),
    "autocast-sgd-bf16": N_("SGD in fp32 under bf16 autocast"),
}


def _read(name: str) -> dict:
    return json.loads((VALIDATION / name).read_text(encoding="utf-8"))


def validation_facts(locale: Locale, translations: NullTranslations) -> dict[str, object]:
    """The versions, counts and measured points of ``validation/``, written for ``locale``."""
    # Not "_": the extractor would take the keys below for messages.
    translated = translations.gettext
    parameters, activations = _read("parameters.json"), _read("activations.json")
    whole_steps = _read("steps.json")
    points = activations["points"]
    adapted_steps = [point for point in whole_steps["points"] if point["method"] == "lora"]

    def tokens(count: int) -> str:
        # The sequence length, labelled: a bare number in the configuration would say nothing.
        return translations.ngettext("%(count)s\u00a0token", "%(count)s\u00a0tokens", count) % {
            "count": format_number(Decimal(count), locale)
        }

    def samples(count: int) -> str:
        return translations.ngettext("%(count)s\u00a0sample", "%(count)s\u00a0samples", count) % {
            "count": format_number(Decimal(count), locale)
        }

    def percent(error: float | Decimal) -> str:
        return format_quantity(
            rounded(abs(Fraction(Decimal(str(error)))) * 100, 2), "concentr-percent", locale, breakable=False
        )

    def sides(errors: list[float]) -> dict[str, object]:
        # On which side of the measurement the model falls, and how far at most: what a "fits" verdict leans on.
        below, above = [-e for e in errors if e < 0], [e for e in errors if e > 0]
        return {
            "below": len(below),
            "above": len(above),
            "below_count": format_number(Decimal(len(below)), locale),
            "above_count": format_number(Decimal(len(above)), locale),
            "below_worst": percent(max(below, default=0)),
            "above_worst": percent(max(above, default=0)),
        }

    def difference(error: float) -> str:
        # A table cell: a difference that rounds to nothing but is not nothing says so, rather than "0%".
        smallest = Decimal("0.0001")
        if error and abs(Decimal(str(error))) < smallest / 2:
            return translated(N_("< %(least)s")) % {"least": percent(smallest)}
        return percent(error)

    cycles = activations["accumulation"]["cycles"]
    steps = sorted({cycle["accumulation_steps"] for cycle in cycles})
    peaks = {(cycle["micro_batch"], cycle["accumulation_steps"]): cycle["peak_saved_bytes"] for cycle in cycles}
    return {
        # The peak of saved bytes over accumulation cycles: a row per micro-batch, a column per number of steps.
        "accumulation_steps": [{"count": a, "text": format_number(Decimal(a), locale)} for a in steps],
        "accumulation_rows": [
            {
                "micro_batch": format_number(Decimal(b), locale),
                "peaks": [format_number(Decimal(peaks[b, a]), locale) for a in steps],
            }
            for b in sorted({cycle["micro_batch"] for cycle in cycles})
        ],
        "accumulation_tokens": format_number(Decimal(activations["accumulation"]["sequence_length"]), locale),
        "peft": parameters["versions"]["peft"],
        "transformers": parameters["versions"]["transformers"],
        "torch": activations["versions"]["torch"],
        "lora_configurations": format_number(Decimal(parameters["configurations"]["lora"]), locale),
        "models": format_number(Decimal(parameters["configurations"]["models"]), locale),
        # The whole training steps measured with a LoRA adapter.
        "lora_step_points": format_number(Decimal(len(adapted_steps)), locale),
        "lora_step_worst": percent(max(abs(point["relative_error"]) for point in adapted_steps)),
        "lora_step_rank": format_number(Decimal(whole_steps["lora"]["rank"]), locale),
        # Each model's adapter on those of these names it has (Phi-3 has qkv_proj for q_proj and v_proj), as peft's
        # target_modules takes them.
        "lora_step_targets": ", ".join(
            name for name in TARGET_MODULES if any(name in point["lora_targets"] for point in adapted_steps)
        ),
        "lora_step_architectures": ", ".join(
            sorted({whole_steps["models"][point["model"]]["model_type"] for point in adapted_steps})
        ),
        "activation_points": format_number(Decimal(len(points)), locale),
        "activation_worst": percent(max(abs(point["relative_error"]) for point in points)),
        # Every point to the byte: only then may the page say the estimate matches them all.
        "activation_exact": all(
            point["estimated_bytes_per_sample"] == point["measured_bytes_per_sample"] for point in points
        ),
        "activation_rows": [
            {
                "configuration": ", ".join(
                    [
                        point["model"].removeprefix("test/"),
                        tokens(point["sequence_length"]),
                        point["precision"],
                        translated(_ATTENTION[point["attention"]]),
                        translated(_RECOMPUTATION[point["recomputation"]]),
                    ]
                ),
                "measured": format_number(Decimal(point["measured_bytes_per_sample"]), locale),
                "estimated": format_number(Decimal(point["estimated_bytes_per_sample"]), locale),
                "error": difference(point["relative_error"]),
            }
            for point in points
        ],
        "step_points": format_number(Decimal(len(whole_steps["points"])), locale),
        "step_sides": sides([point["relative_error"] for point in whole_steps["points"]]),
        # The recipes measured, in the order the measurements take them.
        "step_recipes": "; ".join(
            translated(_RECIPE[recipe]) for recipe in dict.fromkeys(point["recipe"] for point in whole_steps["points"])
        ),
        "step_lengths": ", ".join(
            format_number(Decimal(length), locale)
            for length in sorted({point["sequence_length"] for point in whole_steps["points"]})
        ),
        "step_batches": ", ".join(format_number(Decimal(batch), locale) for batch in whole_steps["batches"]),
        "step_architectures": ", ".join(sorted({model["model_type"] for model in whole_steps["models"].values()})),
        "step_torch": whole_steps["versions"]["torch"],
        "step_transformers": whole_steps["versions"]["transformers"],
        "step_peft": whole_steps["versions"]["peft"],
        "step_rows": [
            {
                "configuration": ", ".join(
                    [
                        point["model"].removeprefix("test/"),
                        translated(_METHOD[point["method"]]),
                        translated(_RECIPE[point["recipe"]]),
                        tokens(point["sequence_length"]),
                        samples(point["micro_batch"]),
                        translated(_ATTENTION[point["attention"]]),
                        translated(_RECOMPUTATION[point["recomputation"]]),
                    ]
                ),
                "measured": format_number(Decimal(point["measured_peak_bytes"]), locale),
                "estimated": format_number(Decimal(point["estimated_peak_bytes"]), locale),
                "error": difference(point["relative_error"]),
            }
            for point in whole_steps["points"]
        ],
    }
