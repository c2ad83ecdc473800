"""What `make validate` checked, as the pages quote it: library versions, counts, and every measured point.

The results are committed under ``validation/``; the tests hold calc to
them, and the pages say what they were checked against.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from gettext import NullTranslations

from babel import Locale

from calc.formatting import format_names
from calc.formulas.model_states import RECIPES, chosen_as
from calc.formulas.parameters import TARGET_MODULES
from calc.i18n import N_
from calc.inputs import Choice
from calc.outputs import SAMPLES_IN_FIGURES, TOKENS, Counted, Phrase, Quantity, difference, percent, written
from calc.step_inputs import ATTENTION, METHOD, RECOMPUTATION
from sitebuild.config import ROOT

VALIDATION = ROOT / "validation"


def _short(field: Choice, value: str) -> str:
    """How a measurement's setting is named in its table: the short label of the form's option."""
    return next(option.short for option in field.options if option.value == value and option.short is not None)


@cache
def _read(name: str) -> dict:
    """A file of ``validation/``, read once a build and shared: never changed."""
    return json.loads((VALIDATION / name).read_text(encoding="utf-8"))


def validation_facts(locale: Locale, translations: NullTranslations) -> dict[str, object]:
    """The versions, counts and measured points of ``validation/``, written for ``locale``: what every page's
    prose may quote, under one name (``validation``) in the templates."""
    words = _Words(locale, translations)
    return {**parameter_facts(words), **activation_facts(words), **step_facts(words)}


@dataclass(frozen=True)
class _Words:
    """The facts' quantities written for one locale (calc.outputs), and the words they share."""

    locale: Locale
    translations: NullTranslations

    def translated(self, message: str) -> str:
        # Not "_": the extractor would take the keys below for messages.
        return self.translations.gettext(message)

    def __call__(self, quantity: Quantity | Phrase | Counted) -> str:
        return written(quantity, self.locale, self.translations)

    def number(self, count: int) -> str:
        return self(Quantity(count))

    def tokens(self, count: int) -> str:
        # The sequence length, labelled: a bare number in the configuration would say nothing.
        return self(Counted(count, TOKENS))

    def samples(self, count: int) -> str:
        return self(Counted(count, SAMPLES_IN_FIGURES))

    def percent(self, share: Fraction, *, up: bool = False) -> str:
        return self(percent(share, up=up))

    def difference(self, error: Fraction) -> str:
        # A table cell, signed as the prose counts them (− under the measurement, + over).
        return self(difference(error))

    def names(self, names: Iterable[str]) -> str:
        """Names, or numbers already written, joined as the locale joins a list."""
        return format_names(names, self.locale)

    def sides(self, errors: list[Fraction]) -> dict[str, object]:
        # On which side of the measurement the model falls, and how far at most: what a "fits" verdict leans on. Each
        # bound rounded up, true of every point as written.
        below, above = [-e for e in errors if e < 0], [e for e in errors if e > 0]
        return {
            "below": len(below),
            "above": len(above),
            "below_count": self.number(len(below)),
            "above_count": self.number(len(above)),
            "below_worst": self.percent(max(below, default=Fraction(0)), up=True),
            "above_worst": self.percent(max(above, default=Fraction(0)), up=True),
        }

    def recipe(self, recipe: str) -> str:
        """A step recipe (calc.formulas.step.STEP_RECIPES) as the VRAM page's fields choose it: the training
        recipe's own label (its option's), and the precision the layers compute in."""
        training, precision = chosen_as(recipe)
        return self.translated(N_("“%(recipe)s” at %(precision)s precision")) % {
            "recipe": self.translated(RECIPES[training].label),
            "precision": precision,
        }


def parameter_facts(words: _Words) -> dict[str, object]:
    """The library versions and counts of the parameter and adapter measurements (``parameters.json``)."""
    parameters = _read("parameters.json")
    return {
        "peft": parameters["versions"]["peft"],
        "transformers": parameters["versions"]["transformers"],
        "lora_configurations": words.number(parameters["configurations"]["lora"]),
        "models": words.number(parameters["configurations"]["models"]),
    }


def activation_facts(words: _Words) -> dict[str, object]:
    """The saved bytes per sample measured (``activations.json``): every point, and over accumulation cycles."""
    activations = _read("activations.json")
    points = activations["points"]
    cycles = activations["accumulation"]["cycles"]
    steps = sorted({cycle["accumulation_steps"] for cycle in cycles})
    peaks = {(cycle["micro_batch"], cycle["accumulation_steps"]): cycle["peak_saved_bytes"] for cycle in cycles}
    return {
        # The peak of saved bytes over accumulation cycles: a row per micro-batch, a column per number of steps.
        "accumulation_steps": [{"count": a, "text": words.number(a)} for a in steps],
        "accumulation_rows": [
            {"micro_batch": words.number(b), "peaks": [words.number(peaks[b, a]) for a in steps]}
            for b in sorted({cycle["micro_batch"] for cycle in cycles})
        ],
        "accumulation_tokens": words.number(activations["accumulation"]["sequence_length"]),
        "torch": activations["versions"]["torch"],
        "activation_points": words.number(len(points)),
        # Per sample is a slope: the saved bytes' peak at the larger batch less that at the smaller, over their
        # difference (tools/measure_activations.py), so what a batch holds whatever its size is left out.
        "activation_batches": _slope_batches(words, activations["batches"]),
        "activation_worst": words.percent(max(abs(_activation_error(point)) for point in points), up=True),
        # Every point to the byte: only then may the page say the estimate matches them all.
        "activation_exact": all(
            point["estimated_bytes_per_sample"] == point["measured_bytes_per_sample"] for point in points
        ),
        "activation_rows": [
            {
                # A table cell naming a measurement's settings, as a key is written, not a list in a sentence.
                "configuration": ", ".join(
                    [
                        point["model"].removeprefix("test/"),
                        words.tokens(point["sequence_length"]),
                        point["precision"],
                        words.translated(_short(ATTENTION, point["attention"])),
                        words.translated(_short(RECOMPUTATION, point["recomputation"])),
                    ]
                ),
                "measured": words.number(point["measured_bytes_per_sample"]),
                "estimated": words.number(point["estimated_bytes_per_sample"]),
                "error": words.difference(_activation_error(point)),
            }
            for point in points
        ],
    }


def _activation_error(point: dict) -> Fraction:
    """How far a point's estimate per sample is from the measurement, as a share of it: from the bytes, exactly."""
    measured = point["measured_bytes_per_sample"]
    return Fraction(point["estimated_bytes_per_sample"] - measured, measured)


def step_error(point: dict) -> Fraction:
    """How far a step's estimated peak is from the measured one, as a share of it: from the bytes, exactly (the
    file's relative_error is rounded to six places, which a bound rounded up from it could miss)."""
    measured = point["measured_peak_bytes"]
    return Fraction(point["estimated_peak_bytes"] - measured, measured)


def _slope_batches(words: _Words, batches: list[int]) -> dict[str, str]:
    """The two batch sizes whose difference gives a measurement per sample, and that difference."""
    small, large = batches
    return {"small": words.number(small), "large": words.number(large), "difference": words.number(large - small)}


def _adapters(words: _Words, steps: list[dict], models: dict[str, dict]) -> str:
    """The adapters measured, each with the architectures it was measured on (Phi-3 has qkv_proj for q_proj and
    v_proj, and the mixtures took the attention's alone): the most measured first, as peft's target_modules
    names them. Semicolons part them, whose lists have commas of their own."""
    architectures: dict[tuple[str, ...], set[str]] = {}
    for point in steps:
        targets = tuple(name for name in TARGET_MODULES if name in point["lora_targets"])
        architectures.setdefault(targets, set()).add(models[point["model"]]["model_type"])
    return "; ".join(
        words.translated(N_("%(targets)s in %(architectures)s"))
        % {"targets": words.names(targets), "architectures": words.names(sorted(types))}
        for targets, types in sorted(architectures.items(), key=lambda item: (-len(item[1]), item[0]))
    )


def _dense_shortfall(words: _Words, points: list[dict], models: dict[str, dict]) -> str:
    """How far short of the measured peak the steps of the dense models fell at most, rounded up (docs/validation.md:
    the mixtures' shortfalls are the larger)."""
    dense = [step_error(point) for point in points if not models[point["model"]]["experts"]]
    return words.percent(max((-e for e in dense if e < 0), default=Fraction(0)), up=True)


def _recipes(words: _Words, steps: list[dict]) -> str:
    """The recipes ``steps`` were measured with, in the order the measurements take them, as the VRAM page's fields
    choose them."""
    return words.names(words.recipe(recipe) for recipe in dict.fromkeys(point["recipe"] for point in steps))


def step_facts(words: _Words) -> dict[str, object]:
    """The whole training steps measured (``steps.json``): every point, and those with a LoRA adapter."""
    whole_steps = _read("steps.json")
    models = whole_steps["models"]
    adapted_steps = [point for point in whole_steps["points"] if point["method"] == "lora"]
    if not adapted_steps:
        raise ValueError("validation/steps.json has no LoRA step, which the LoRA page quotes: run make validate")
    return {
        # The whole training steps measured with a LoRA adapter: on which side of the measurement and how far, and how
        # far short at most in the dense models.
        "lora_step_points": words.number(len(adapted_steps)),
        "lora_step_sides": words.sides([step_error(point) for point in adapted_steps]),
        "lora_step_dense_shortfall": _dense_shortfall(words, adapted_steps, models),
        "lora_step_rank": words.number(whole_steps["lora"]["rank"]),
        "lora_step_adapters": _adapters(words, adapted_steps, models),
        # The recipes of those steps, which the LoRA page, counting AdamW alone, names (technical review, round 34).
        "lora_step_recipes": _recipes(words, adapted_steps),
        "step_points": words.number(len(whole_steps["points"])),
        "step_sides": words.sides([step_error(point) for point in whole_steps["points"]]),
        "step_dense_shortfall": _dense_shortfall(words, whole_steps["points"], models),
        "step_recipes": _recipes(words, whole_steps["points"]),
        "step_lengths": words.names(
            words.number(length) for length in sorted({point["sequence_length"] for point in whole_steps["points"]})
        ),
        "step_batches": words.names(words.number(batch) for batch in whole_steps["batches"]),
        # How small the measured models and sequences were, which the tight-fit rule's prose states beside it.
        "step_widest": words.number(max(model["hidden_size"] for model in models.values())),
        "step_largest_vocabulary": words.number(max(model["vocab_size"] for model in models.values())),
        "step_longest": words.number(max(point["sequence_length"] for point in whole_steps["points"])),
        "step_architectures": words.names(sorted({model["model_type"] for model in whole_steps["models"].values()})),
        "step_torch": whole_steps["versions"]["torch"],
        "step_transformers": whole_steps["versions"]["transformers"],
        "step_peft": whole_steps["versions"]["peft"],
        "step_rows": [
            {
                # A key, as the activations' rows write theirs.
                "configuration": ", ".join(
                    [
                        point["model"].removeprefix("test/"),
                        words.translated(_short(METHOD, point["method"])),
                        words.recipe(point["recipe"]),
                        words.tokens(point["sequence_length"]),
                        words.samples(point["micro_batch"]),
                        words.translated(_short(ATTENTION, point["attention"])),
                        words.translated(_short(RECOMPUTATION, point["recomputation"])),
                    ]
                ),
                "measured": words.number(point["measured_peak_bytes"]),
                "estimated": words.number(point["estimated_peak_bytes"]),
                "error": words.difference(step_error(point)),
            }
            for point in whole_steps["points"]
        ],
    }
