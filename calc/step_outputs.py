"""How a page words a step's peak: its parts and the moment that holds it (:mod:`calc.formulas.step`)."""

from __future__ import annotations

from fractions import Fraction

from calc.formulas.step import Peak
from calc.i18n import N_
from calc.outputs import Phrase, Quantity, gigabytes

PART_LABELS = {
    "weights": N_("Weights"),
    "gradients": N_("Gradients"),
    "optimizer_state": N_("Optimizer state"),
    "weight_copies": N_("Autocast's 16-bit copies of the weights"),
    "activations": N_("Activations saved for the backward pass"),
    "recomputation": N_("Recomputed activations"),
    "loss": N_("Loss: logits in fp32 and their gradients"),
    "backward_temporaries": N_("Gradients flowing through the backward pass"),
    "optimizer_temporaries": N_("Optimizer step's temporaries"),
}

# Where in the step each moment of calc.formulas.step.MOMENTS falls, as a sentence's end.
MOMENT_WORDS = {
    "forward": N_("The peak comes at the end of the forward pass, while the loss is computed."),
    "loss": N_("The peak comes as the backward pass starts, with the loss's gradients."),
    "last layer's MLP": N_("The peak comes in the backward pass of the last layer, at its MLP."),
    "last layer's norm": N_("The peak comes in the backward pass of the last layer, at its second norm."),
    "last layer's attention": N_("The peak comes in the backward pass of the last layer, at its attention."),
    "first layer's MLP": N_("The peak comes in the backward pass of the first layer, at its MLP."),
    "first layer's norm": N_("The peak comes in the backward pass of the first layer, at its second norm."),
    "first layer's attention": N_("The peak comes in the backward pass of the first layer, at its attention."),
    "embeddings": N_("The peak comes at the end of the backward pass, once every gradient exists."),
    "optimizer": N_("The peak comes in the optimizer step."),
}


def moment_phrase(peak: Peak) -> Phrase:
    return Phrase(MOMENT_WORDS[peak.moment], {})


def part_rows(
    parts: dict[str, Fraction], labels: dict[str, str] = PART_LABELS, places: int = 2
) -> list[tuple[str, Quantity]]:
    """The parts that hold any memory, labelled, in gigabytes: a breakdown's rows or a bar's segments."""
    return [(labels[part], gigabytes(size, places)) for part, size in parts.items() if size]
