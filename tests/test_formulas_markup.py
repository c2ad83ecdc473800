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


# Every symbol the pages' formulas and prose set in MathML: the one quantity it stands for, and the pages (templates)
# that use it. A new symbol, or an old one on another page, takes its place here, where a second meaning would show.
SYMBOLS = {
    "A": ("activation memory per sample (at the moment that limits the micro-batch)", {"accumulation", "plan", "vram"}),
    "A_t": ("activation memory per sample at moment t", {"vram"}),
    "B": ("activation memory budget per GPU", {"plan"}),
    "C": ("a GPU's memory", {"vram"}),
    "E": ("effective batch size", {"accumulation"}),
    "F_t": ("memory at moment t that does not grow with the micro-batch", {"vram"}),
    "L": ("layers", {"lora"}),
    "M": ("peak activation memory per GPU", {"accumulation", "vram"}),
    "O": ("overhead per GPU", {"vram"}),
    "P": ("trainable parameters of a LoRA adapter", {"lora"}),
    "S": ("the set of adapted projections", {"lora"}),
    "T": ("target effective batch size", {"plan"}),
    "V": ("memory per GPU", {"vram"}),
    "a": ("accumulation steps", {"accumulation", "plan"}),
    "b": ("micro-batch size", {"accumulation", "plan", "vram"}),
    "b_max": ("largest micro-batch that fits", {"vram"}),
    "d": ("a divisor of a GPU's share of the target batch", {"plan"}),
    "d_h": ("head dimension", {"lora"}),
    "d_in": ("a projection's inputs", {"lora"}),
    "d_out": ("a projection's outputs", {"lora"}),
    "f": ("intermediate size", {"lora"}),
    "g": ("data-parallel GPUs", {"accumulation", "plan", "vram"}),
    "h": ("hidden size", {"lora"}),
    "k_g": ("bytes per parameter for the gradients", {"vram"}),
    "k_o": ("bytes per parameter for the optimizer state", {"vram"}),
    "k_w": ("bytes per parameter for the weights", {"vram"}),
    "n_h": ("attention heads", {"lora"}),
    "n_kv": ("key and value heads", {"lora"}),
    "p": ("an adapted projection", {"lora"}),
    "r": ("LoRA rank", {"lora"}),
    "s_g": ("shards of the gradients", {"vram"}),
    "s_o": ("shards of the optimizer state", {"vram"}),
    "s_w": ("shards of the weights", {"vram"}),
    "t": ("a moment of the training step", {"vram"}),
    "Ψ": ("parameters", {"vram"}),
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
    used: dict[str, set[str]] = {}
    for template in sorted(TEMPLATES.glob("*.html")):
        for symbol in symbols(template.read_text(encoding="utf-8")):
            used.setdefault(symbol, set()).add(template.stem)
    assert used == {symbol: pages for symbol, (_, pages) in SYMBOLS.items()}
    assert len({meaning for meaning, _ in SYMBOLS.values()}) == len(SYMBOLS)
