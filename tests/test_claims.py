"""What the pages claim and how they write it: no false DeepSpeed claim, quantities on one line, sources linked."""

from __future__ import annotations

import json
import re
from gettext import NullTranslations
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel import Locale

from calc.calculators import NAMES, load
from calc.evaluation import default_texts, evaluate
from calc.formatting import GIBIBYTE, GIGABYTE, MEBIBYTE, MEGABYTE, PERCENT, unit_symbol
from calc.i18n import load_translations
from sitebuild.config import LOCALES, PAGES
from tests.expectations import expected


def split_quantity(locale: str) -> re.Pattern[str]:
    """A number, an ordinary space or line break, then a unit the calculators show as the locale writes it."""
    parsed = Locale.parse(locale)
    symbols = {unit_symbol(unit, parsed) for unit in (GIGABYTE, MEGABYTE, GIBIBYTE, MEBIBYTE, PERCENT)}
    return re.compile(r"\d[ \t\n]+(?:" + "|".join(map(re.escape, sorted(symbols))) + r")(?!\w)")


def pages(site: Path, locale: str) -> dict[str, str]:
    return {name: (site / locale / path / "index.html").read_text(encoding="utf-8") for name, path in PAGES.items()}


@pytest.mark.parametrize("locale", LOCALES)
def test_no_page_says_deepspeed_drops_samples(site, locale):
    """DeepSpeed asserts train = micro × steps × GPUs (runtime/config.py, _batch_assertion): it stops, drops nothing."""
    said = expected(locale).drops_samples
    for name, html in pages(site, locale).items():
        assert not re.search(said, unescape(html), flags=re.I), name
    # And the planner says what DeepSpeed does instead.
    assert "_batch_assertion" in pages(site, locale)["plan"]


@pytest.mark.parametrize("locale", LOCALES)
def test_every_output_keeps_its_number_and_unit_on_one_line(site, locale):
    split = split_quantity(locale)
    for name, html in pages(site, locale).items():
        outputs = re.findall(r"<output\b[^>]*>(.*?)</output>", html, flags=re.S)
        cells = re.findall(r'data-output="[^"]+"[^>]*>(.*?)</(?:table|p|div)>', html, flags=re.S)
        assert outputs, name
        for text in outputs + cells:
            assert not split.search(unescape(re.sub(r"<[^>]+>", "", text))), (name, text)


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("name", sorted(NAMES))
def test_the_live_results_keep_number_and_unit_together(localedir, locale, name):
    """What the worker sends the page: every result, table cell and sentence, for every example."""
    calculator, parsed, split = load(name), Locale.parse(locale), split_quantity(locale)
    translations = load_translations(localedir, locale)
    inputs = {i.name: i for i in calculator.inputs}
    for overrides in [{}, *calculator.examples.values()]:
        # Each value as the page writes it in this locale, so that the example is read as it is meant.
        texts = {**default_texts(calculator, parsed), **{k: inputs[k].text(v, parsed) for k, v in overrides.items()}}
        shown = evaluate(calculator, texts, parsed, translations)
        assert shown.prompt is None, (overrides, shown.prompt)
        for output, value in shown.outputs.items():
            flat = re.sub(r"<[^>]+>", "\u00a0", str(value))
            assert not split.findall(flat), (output, flat)
        assert not split.findall(shown.announcement or ""), shown.announcement


@pytest.mark.parametrize("locale", LOCALES)
def test_the_tables_name_their_unit_in_the_heading_not_in_each_cell(site, locale):
    html = pages(site, locale)
    for name, output, unit in (
        ("accumulation", "tradeoff", GIGABYTE),
        ("plan", "plans", GIGABYTE),
        ("vram", "breakdown", GIGABYTE),
        ("lora", "run_breakdown", GIGABYTE),
        ("lora", "adapter_files", MEGABYTE),
        ("lora", "sizes", GIGABYTE),
        ("activations", "breakdown", GIGABYTE),
    ):
        unit = unit_symbol(unit, Locale.parse(locale))
        table = re.search(rf'<table\b[^>]*data-output="{output}".*?</table>', html[name], flags=re.S)[0]
        head, body = table.split("</thead>")
        assert f"({unit})</th>" in head, (name, head)
        cells = unescape(re.sub(r"<[^>]+>", " ", body))
        assert re.search(r"\d", cells) and unit not in cells, (name, cells)


def paragraphs(html: str) -> list[str]:
    return re.findall(r"<p\b[^>]*>(.*?)</p>", html, flags=re.S)


def links(html: str) -> list[tuple[str, str]]:
    """Each link's address and text."""
    return [(href, unescape(text)) for href, text in re.findall(r'<a href="([^"]+)"[^>]*>(.*?)</a>', html, flags=re.S)]


@pytest.mark.parametrize("locale", LOCALES)
def test_the_batch_pages_link_what_their_prose_names_to_the_lines_that_say_it(site, locale):
    html = pages(site, locale)
    # Source files are linked at a release, to the lines meant, never at a branch that moves.
    for name in ("accumulation", "plan"):
        for href, _ in links(html[name]):
            if "/blob/" in href:
                ref = href.split("/blob/")[1].split("/")[0]
                assert ref not in ("main", "master") and "#L" in href, (name, href)
        # The PyTorch pages named after no_sync open at no_sync.
        for href, text in links(html[name]):
            if text.startswith("PyTorch:") and "no_sync" in text:
                assert href.endswith(".no_sync"), (name, href)
    # FSDP's MixedPrecision and DeepSpeed's grad_accum_dtype, each with its source.
    (bf16,) = [p for p in paragraphs(html["accumulation"]) if "grad_accum_dtype" in p]
    named = [href for href, _ in links(bf16)]
    assert [h for h in named if h.endswith("fsdp.MixedPrecision")] and [h for h in named if "config-json" in h]
    assert [h for h in named if "DeepSpeed/blob/" in h and "engine.py" in h]
    # The parallel degrees: all three, with Megatron-LM's division linked where the planner asks for the GPUs, and
    # DeepSpeed's world size beside the settings of both pages (technical review, round 88: the accumulation page,
    # which prints the same DeepSpeed settings, did not say it).
    (gpus,) = [p for p in paragraphs(html["plan"]) if "megatron/training/arguments.py" in p]
    assert expected(locale).parallel_degrees in unescape(re.sub(r"\s+", " ", gpus))
    assert [href for href, _ in links(gpus) if "Megatron-LM/blob/" in href]
    for name in ("accumulation", "plan"):
        (degrees,) = [p for p in paragraphs(html[name]) if "sequence_parallel_size" in p]
        assert expected(locale).parallel_degrees in unescape(re.sub(r"\s+", " ", degrees))
        assert [href for href, _ in links(degrees) if "DeepSpeed/blob/" in href and "config.py" in href]


@pytest.mark.parametrize("locale", LOCALES)
def test_the_batch_pages_set_code_as_code(site, locale):
    """JSON's "auto", the padding collator and Accelerate's way to leave no_sync off, in every language."""
    html = pages(site, locale)
    for name in ("accumulation", "plan"):
        prose = re.sub(r"<(script|style|code|pre)\b.*?</\1>", "", html[name], flags=re.S)
        assert not re.search(r"[\"“”«»]auto[\"“”«»]", unescape(prose)), name
        assert "<code>DataCollatorForLanguageModeling(tokenizer, mlm=False)</code>" in html[name]
    assert '<code>"auto"</code>' in html["plan"]
    accelerate = "GradientAccumulationPlugin(num_steps=…, sync_each_batch=True)</code>"
    assert accelerate in html["accumulation"]


class _Citations(HTMLParser):
    """Each 'et al.' and 'arXiv:' in the visible text, and whether it sits inside a link."""

    def __init__(self) -> None:
        super().__init__()
        self.links = 0
        self.hidden = 0
        self.found: list[tuple[str, bool]] = []

    def handle_starttag(self, tag, attrs):
        self.links += tag == "a"
        self.hidden += tag in ("script", "style", "code", "pre")

    def handle_endtag(self, tag):
        self.links -= tag == "a"
        self.hidden -= tag in ("script", "style", "code", "pre")

    def handle_data(self, data):
        if not self.hidden:
            self.found += [(match, self.links > 0) for match in re.findall(r"\w+ et al\.|arXiv:\S+", data)]


def test_the_vram_page_names_every_recipe_whose_fp32_partition_zero_copies(site):
    """Technical review, round 88: the recipes all in fp32 get DeepSpeed's fp32 partition under ZeRO-1 and 2; the
    paragraph that says so names each of them, and only them."""
    from calc.formulas.model_states import RECIPES

    (paragraph,) = [p for p in paragraphs(pages(site, "en")["vram"]) if "a second copy of that share" in p]
    named = {key for key, recipe in RECIPES.items() if f"“{recipe.label}”" in unescape(paragraph)}
    assert named == {key for key, recipe in RECIPES.items() if recipe.zero_partition_copy}


@pytest.mark.parametrize("locale", LOCALES)
def test_every_citation_is_a_link(site, locale):
    for name, html in pages(site, locale).items():
        parser = _Citations()
        parser.feed(html)
        unlinked = [text for text, linked in parser.found if not linked]
        assert not unlinked, (name, unlinked)


# templates/caveats.html: what the activation model leaves out, worded once.
PADDING_AND_WINDOW = (
    "Under SDPA, the estimate models neither a padding mask nor a sequence at least as long as the model's "
    "sliding window (as in some Gemma and Mistral models). With either, Transformers passes SDPA a mask and, "
    "where the model has fewer key and value heads than query heads, repeats the keys and values for every query "
    "head (repeat_kv); the estimate counts neither. Nor does it model the mask of packed sequences whose position "
    "ids restart with each document. Its figures hold for unpadded sequences shorter than any such window."
)


@pytest.mark.parametrize("locale", LOCALES)
def test_every_page_that_totals_activations_says_what_their_model_leaves_out(site, localedir, locale):
    """The VRAM and LoRA totals use the activation page's model, so they carry its padding and window caveat too
    (review 7, item 8)."""
    said = load_translations(localedir, locale).gettext(PADDING_AND_WINDOW)
    assert said != PADDING_AND_WINDOW or locale == "en"
    for name in ("activations", "vram", "lora"):
        text = " ".join(unescape(re.sub(r"<[^>]+>", " ", pages(site, locale)[name])).split())
        assert said in text, (locale, name)


def test_the_cited_papers_are_linked_where_they_are_cited(site):
    """ZeRO, Korthikanti et al., LoRA and QLoRA, each from the page that quotes it."""
    html = pages(site, "en")
    assert "arxiv.org/abs/1910.02054" in html["vram"]
    assert "arxiv.org/abs/2205.05198" in html["activations"]
    assert "arxiv.org/abs/2106.09685" in html["lora"] and "arxiv.org/abs/2305.14314" in html["lora"]


@pytest.mark.parametrize("page", ["activations", "vram", "lora"])
@pytest.mark.parametrize(
    ("model", "attention", "noted"),
    [
        ("google/gemma-2-9b", "flash", True),
        ("google/gemma-2-2b", "flash", True),
        ("google/gemma-2-9b", "eager", False),
        ("meta-llama/Llama-3.1-8B", "flash", False),
    ],
)
def test_gemma_2_is_told_that_transformers_refuses_sdpa(page, model, attention, noted):
    """transformers 5.24: Gemma2PreTrainedModel._supports_sdpa = False (soft-capping), so asking for SDPA raises and
    the default is eager; _supports_flash_attn and _supports_flex_attn = True. Every page whose figures take the fused
    estimate for such a model says so."""
    calculator = load(page)
    parsed = Locale.parse("en")
    texts = {**default_texts(calculator, parsed), "model": model, "attention": attention}
    note = evaluate(calculator, texts, parsed, NullTranslations()).outputs["attention_note"]
    assert ("this model cannot be loaded with SDPA" in note) == noted
    assert ("FlashAttention and FlexAttention" in note) == noted


@pytest.mark.parametrize("page", ["activations", "vram", "lora"])
@pytest.mark.parametrize(
    ("model", "attention", "length", "noted"),
    [
        ("google/gemma-3-1b-pt", "flash", "4096", True),  # a 512-token window
        ("google/gemma-3-1b-pt", "flash", "512", True),  # transformers masks from a sequence as long as the window
        ("google/gemma-3-1b-pt", "flash", "511", False),
        ("google/gemma-3-1b-pt", "eager", "4096", False),  # eager attention keeps its masks and copies, counted
        ("mistralai/Mistral-7B-v0.1", "flash", "8192", True),  # 4,096
        ("mistralai/Mistral-7B-v0.1", "flash", "4096", True),
        ("mistralai/Mistral-7B-v0.1", "flash", "4095", False),
        ("microsoft/Phi-3-mini-4k-instruct", "flash", "4096", True),  # 2,047
        ("google/gemma-2-9b", "flash", "8192", False),  # no SDPA at all: the attention note says so
        ("mistralai/Mistral-Nemo-Base-2407", "flash", "8192", False),  # sliding_window null
        ("Qwen/Qwen2.5-7B", "flash", "8192", False),  # use_sliding_window false
        ("meta-llama/Llama-3.1-8B", "flash", "8192", False),
    ],
)
def test_the_results_say_when_the_fused_estimate_runs_past_a_sliding_window(page, model, attention, length, noted):
    """The caveat templates/caveats.html words for the page, in the results: under SDPA, a sliding window no longer
    than the sequence makes transformers pass a mask and copy the keys and values out to every query head, which
    the fused estimate does not count (transformers 5.24, masking_utils._ignore_causal_mask_sdpa: kv_length <
    local_attention_size)."""
    calculator = load(page)
    parsed = Locale.parse("en")
    texts = {**default_texts(calculator, parsed), "model": model, "attention": attention, "sequence_length": length}
    note = evaluate(calculator, texts, parsed, NullTranslations()).outputs["window_note"]
    assert bool(note) == noted
    if noted:
        window = {"google/gemma-3-1b-pt": "512", "mistralai/Mistral-7B-v0.1": "4,096"}.get(model, "2,047")
        assert f"the last {window}\u00a0tokens, and a sequence here holds {int(length):,}." in note


@pytest.mark.parametrize("page", ["activations", "vram", "lora"])
def test_a_pasted_config_s_sliding_window_reaches_the_results_through_its_field(page):
    calculator, en = load(page), Locale.parse("en")
    texts = default_texts(calculator, en)
    # google/gemma-3-1b-pt's config.json, its shape's keys (calc/models.py).
    config = {
        "model_type": "gemma3_text",
        "num_hidden_layers": 26,
        "hidden_size": 1152,
        "num_attention_heads": 4,
        "num_key_value_heads": 1,
        "head_dim": 256,
        "intermediate_size": 6912,
        "vocab_size": 262144,
        "sliding_window": 512,
    }
    pasted = evaluate(
        calculator, {**texts, "config": json.dumps(config)}, en, NullTranslations(), changed=frozenset({"config"})
    )
    assert pasted.texts["sliding_window"] == "512"
    assert "the last 512\u00a0tokens" in pasted.outputs["window_note"]
    # Typed as a custom shape, a window is the architecture's: a Llama has none.
    llama = {**texts, **pasted.texts, "architecture": "llama"}
    typed = evaluate(calculator, llama, en, NullTranslations(), changed=frozenset({"architecture"}))
    assert typed.errors["sliding_window"].startswith("Only some architectures have a sliding window")
    cleared = evaluate(
        calculator, {**llama, "sliding_window": ""}, en, NullTranslations(), changed=frozenset({"sliding_window"})
    )
    assert cleared.errors["sliding_window"] is None
    assert any(cleared.outputs.values()) and not cleared.outputs["window_note"]


def test_the_framework_table_maps_the_trainer_s_8_bit_adamw_to_the_recipe_without_a_master_copy(site):
    """optim="adamw_bnb_8bit" on a bf16 model keeps no fp32 master copy: its row names the recipe that counts none,
    not the mixed-precision one (Spanish and Italian reviews, round 22: 113.67 GB instead of 56.94 GB for
    Llama-3.1-8B)."""
    from calc.formulas.model_states import RECIPES

    html = unescape(pages(site, "en")["vram"])
    (row,) = [row for row in re.findall(r"<tr>.*?</tr>", html, flags=re.S) if "adamw_bnb_8bit" in row]
    named = [key for key, recipe in RECIPES.items() if f"“{recipe.label}”" in row]
    assert named == ["adamw-8bit-bf16"]
    assert not RECIPES["adamw-8bit-bf16"].master_copy and RECIPES["adamw-8bit-bf16"].states.weights == 2
