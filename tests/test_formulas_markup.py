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
