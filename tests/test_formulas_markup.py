"""The formulas' MathML: a subscript of several letters (max, kv) is a word, text, not an identifier."""

import re

import pytest

from sitebuild.config import TEMPLATES
from sitebuild.pages import math_symbol


@pytest.mark.parametrize("template", sorted(TEMPLATES.glob("*.html")), ids=lambda p: p.name)
def test_no_formula_sets_a_word_as_italic_variables(template):
    # An <mi> is one variable; a word or an abbreviation beside it is <mtext>. Greek and single letters stay <mi>.
    assert re.findall(r"<mi>([^<]{2,})</mi>", template.read_text(encoding="utf-8")) == []


def test_an_inline_symbol_s_subscript_of_several_letters_is_a_word():
    assert str(math_symbol("n_kv")) == "<math><msub><mi>n</mi><mtext>kv</mtext></msub></math>"
    assert str(math_symbol("k_w")) == "<math><msub><mi>k</mi><mi>w</mi></msub></math>"


# Every symbol the pages' formulas and prose set in MathML, and the one quantity it stands for, on every page: a new
# symbol takes its place here, where a second meaning would show; a page that reuses one needs nothing.
SYMBOLS = {
    "A": "activation memory per sample (at the moment that limits the micro-batch)",
    "A_t": "activation memory per sample at moment t",
    "B": "activation memory budget per GPU",
    "C": "a GPU's memory",
    "D": "DistributedDataParallel's gradient buckets per GPU",
    "E": "effective batch size",
    "F_t": "memory at moment t that does not grow with the micro-batch",
    "L": "layers",
    "M": "peak activation memory per GPU",
    "O": "overhead per GPU",
    "P": "trainable parameters of a LoRA adapter",
    "S": "the set of adapted projections",
    "T": "target effective batch size",
    "V": "memory per GPU",
    "Z_t": "ZeRO's buffers per GPU at DeepSpeed's defaults, at moment t",
    "a": "accumulation steps",
    "b": "micro-batch size",
    "b_max": "largest micro-batch that fits",
    "d": "a divisor of a GPU's share of the target batch",
    "d_h": "head dimension",
    "d_in": "a projection's inputs",
    "d_out": "a projection's outputs",
    "f": "intermediate size",
    "g": "data-parallel GPUs",
    "h": "hidden size",
    "k_g": "bytes per parameter for the gradients",
    "k_o": "bytes per parameter for the optimizer state",
    "k_t": "bytes per parameter for the optimizer step's temporaries",
    "k_w": "bytes per parameter for the weights",
    "n_h": "attention heads",
    "n_kv": "key and value heads",
    "p": "an adapted projection",
    "r": "LoRA rank",
    "s_g": "shards of the gradients",
    "s_o": "shards of the optimizer state",
    "s_w": "shards of the weights",
    "t": "a moment of the training step",
    "Ψ": "parameters",
}


def symbols(text: str) -> set[str]:
    """The symbols a template sets: inline (math("k_w")) and inside its formulas (<mi>, and <msub> as k_w)."""
    found = set(re.findall(r'math\("([^"]+)"\)', text))
    subscripted = r"<msub><mi>([^<]+)</mi><m(?:i|text)>([^<]+)</m(?:i|text)></msub>"
    for formula in re.findall(r"<math\b.*?</math>", text, flags=re.S):
        found |= {f"{base}_{sub}" for base, sub in re.findall(subscripted, formula)}
        found |= set(re.findall(r"<mi>([^<]+)</mi>", re.sub(subscripted, "", formula)))
    return found


def test_each_symbol_means_one_quantity_site_wide_and_each_quantity_has_one_symbol():
    """The LoRA page's set of adapted projections was T, the planner's target batch; the VRAM page's A, g and M once
    meant other things than the accumulation page's: every symbol on any page is this table's, with its one meaning."""
    used = {symbol for template in TEMPLATES.glob("*.html") for symbol in symbols(template.read_text(encoding="utf-8"))}
    assert used == SYMBOLS.keys()
    assert len(set(SYMBOLS.values())) == len(SYMBOLS)
