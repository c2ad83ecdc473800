"""What a reader sees in each locale: one table per locale, in a module named by its code.

Every test that checks wording or notation reads the locale list
(``sitebuild.config.LOCALES``) and takes each locale's table from here, so
adding a locale to the tests is adding its module, with an
``EXPECTED = Expectations(...)`` written in that language.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

# Field texts, as typed into the accumulation page.
Texts = dict[str, str]


@dataclass(frozen=True)
class Expectations:
    # The accumulation page's title, as its <h1> reads.
    title: str
    # The sentence of the worked example that scales to four GPUs (an excerpt).
    example: str
    # The worked example's formulas, as MathML text (symbols joined by spaces).
    formulas: tuple[str, ...]
    # The status line once Python is ready, and when it failed to start.
    ready: str
    failed: str
    # What replaces the results: a blank field (the accumulation steps), two (and the GPUs), one invalid field, two.
    prompt_empty: str
    prompt_two_empty: str
    prompt_invalid: str
    prompt_two_invalid: str
    # The fields' default texts.
    defaults: Texts
    # Field texts (over the defaults) and the effective batch and memory they give.
    results: tuple[tuple[Texts, str, str], ...]
    # A field, a text typed into it, and the message shown beside it.
    errors: tuple[tuple[str, str, str], ...]
    # Field texts (over the defaults) and what the live region announces.
    announcements: tuple[tuple[Texts, str], ...]
    # Numbers as the locale writes them: (value, plain, in gigabytes).
    numbers: tuple[tuple[str, str, str], ...]
    # The gigabyte's symbol, as CLDR writes it for the locale (French would write "Go").
    gigabyte: str
    # The planner's three model-parallel degrees, by which the GPUs are divided first, as its prose names them.
    parallel_degrees: str
    # What no page may say in this language: that DeepSpeed drops samples (it asserts the product and stops).
    drops_samples: str
    # The VRAM page's words beside its activation memory for a model whose step it does not model; {modelled}: the
    # modelled architectures, listed as the language lists names.
    not_modelled: str
    # The words beside a typed shape's expert width where the architecture's experts are as wide as its intermediate
    # size (Mixtral) and the two differ.
    expert_width: str
    # The VRAM page's largest micro-batch where not one sample of the default run fits an A10G, and the ways out left,
    # listed under their lead.
    # The verdict, the ways' lead, the ways, and the one this calculator cannot check, in a sentence of its own.
    not_one_sample: tuple[str, str, tuple[str, ...], str]

    def figures(self, **texts: str) -> tuple[str, str]:
        """The effective batch and the memory shown for ``texts`` (over the defaults), as ``results`` gives them."""
        shown = [(effective, memory) for given, effective, memory in self.results if given == texts]
        assert shown, f"no case of results is typed as {texts}"
        return shown[0]


def expected(locale: str) -> Expectations:
    """The table of ``locale``; a locale without one fails the tests that need it."""
    return importlib.import_module(f"{__name__}.{locale}").EXPECTED
