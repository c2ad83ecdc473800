"""Every calculator page as a reader uses it: presets, shared addresses, links between pages, layout.

Pages are loaded once per session and started over between tests (each
load starts Python); only the tests of addresses load pages of their own.
The numbers are CPython's (each calculator's own tests) and Pyodide's alike
(test_pyodide.py); here, in one locale, the page shows what it is given:
what CPython's view of the form says (expect_shown_as_cpython_shows), and
nothing typed in by hand but what the reader types.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal

import pytest
from babel import Locale

from calc.calculators import load
from calc.evaluation import default_texts, evaluate
from calc.formatting import format_number, format_quantity, rounded, rounded_up
from calc.i18n import load_translations
from calc.parsing import field_text
from sitebuild.config import LOCALES, PAGES
from tests.helpers import (
    A_LOCALE,
    expect,
    expect_shown_as_cpython_shows,
    start_over,
    visit,
    wait_until_ready,
)
from tests.holding import Held

pytestmark = pytest.mark.browser

MODULES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def gigabytes(value: str, locale: str, places: int | None = 2) -> str:
    """A figure as a page shows it: rounded ones with all their decimals (120.00 GB), exact ones as they are."""
    return format_quantity(Decimal(value), "digital-gigabyte", Locale.parse(locale), places=places)


def number(value: str, locale: str) -> str:
    return format_number(Decimal(value), Locale.parse(locale))


def field(value: str, locale: str) -> str:
    """A number as the page writes it into a field (ungrouped, read back as itself)."""
    return field_text(Decimal(value), Locale.parse(locale))


def answer(name: str, locale: str, localedir, **typed: str):
    """CPython's answer to the page's request once ``typed`` is entered over the defaults, in one request."""
    calculator = load(name)
    parsed = Locale.parse(locale)
    texts = {**default_texts(calculator, parsed), **typed}
    return evaluate(calculator, texts, parsed, load_translations(localedir, locale), changed=frozenset(typed))


def shown(page) -> list[str]:
    """Every result the page shows, as text: figures, then table cells."""
    return page.locator("[data-role=outcome] output, [data-role=outcome] td").all_inner_texts()


def test_the_zero_papers_table_through_the_vram_page(ready_pages, localedir, locale=A_LOCALE):
    """ZeRO (Rajbhandari et al. 2019), 7.5B parameters on 64 GPUs, each stage (test_vram.py holds the paper's 120,
    31.4, 16.6 and 1.88 GB per GPU)."""
    page = start_over(ready_pages, locale, "vram")
    page.select_option("[name=model]", "count")
    page.fill("[name=parameters]", number("7.5", locale))
    page.fill("[name=gpus]", "64")
    page.fill("[name=activation_memory]", "0")
    page.fill("[name=overhead]", "0")
    for stage in ("0", "1", "2", "3"):
        page.select_option("[name=zero_stage]", stage)
        expect_shown_as_cpython_shows(page, localedir, "total_memory")


def test_a_preset_fills_the_count_and_typing_one_counts_by_it_alone(ready_pages, localedir, locale=A_LOCALE):
    page = start_over(ready_pages, locale, "vram")
    page.select_option("[name=model]", "meta-llama/Llama-2-7b-hf")
    # The preset's count, in billions as a reader would type them, as Python settles it.
    settled = answer("vram", locale, localedir, model="meta-llama/Llama-2-7b-hf").texts["parameters"]
    expect(page.locator("[name=parameters]")).to_have_value(settled)
    page.fill("[name=parameters]", "7")
    expect(page.locator("[name=model]")).to_have_value("count")
    # A count trains every parameter: the method field says so rather than keep LoRA on display.
    expect(page.locator("[name=method]")).to_have_value("full")
    # A count alone has no activations to derive: the page asks for them.
    expect(page.locator("[name=activation_memory]")).to_have_attribute("aria-invalid", "true")
    page.fill("[name=activation_memory]", "2")
    expect_shown_as_cpython_shows(page, localedir, "total_memory")


def test_a_listed_gpu_fills_its_memory_and_the_verdict_follows(ready_pages, localedir, locale=A_LOCALE):
    page = start_over(ready_pages, locale, "vram")
    page.select_option("[name=gpu]", "a100-40gb")
    expect(page.locator("[name=gpu_memory]")).to_have_value(
        answer("vram", locale, localedir, gpu="a100-40gb").texts["gpu_memory"]
    )
    verdict = ("total_memory", "your_gpu", "largest_micro_batch")
    expect_shown_as_cpython_shows(page, localedir, *verdict)
    page.fill("[name=overhead]", "0")
    expect_shown_as_cpython_shows(page, localedir, *verdict)
    page.fill("[name=gpu_memory]", "40")
    expect(page.locator("[name=gpu]")).to_have_value("custom")
    expect_shown_as_cpython_shows(page, localedir, *verdict)
    # Too small for the fixed part: the largest micro-batch is a sentence, read as one; the ways follow, listed.
    page.fill("[name=gpu_memory]", "10")
    shown = expect_shown_as_cpython_shows(page, localedir, *verdict, "ways_out")
    assert "largest_micro_batch" in shown.worded and shown.outputs["ways_out"]["blocks"]


def test_the_vram_page_hands_the_planner_the_run(ready_pages, localedir, locale=A_LOCALE):
    page = start_over(ready_pages, locale, "vram")
    expect_shown_as_cpython_shows(page, localedir, "largest_micro_batch", "activation_budget")


@pytest.mark.parametrize("address", ["", "?gpu=a100-40gb"])
def test_following_the_plan_link_opens_the_run_on_the_planner(context, base_url, localedir, address):
    """The default run, and on an A100 40GB, where more than one sample fits."""
    page = visit(context, f"{base_url}{LOCALES[0]}/vram/{address}")
    plan = expect_shown_as_cpython_shows(page, localedir).links["plan"]
    page.locator('a[data-role="plan-this-run"]').click()
    expect(page).to_have_url(f"{base_url}{LOCALES[0]}/plan/?{plan}")
    wait_until_ready(page)
    expect_shown_as_cpython_shows(page, localedir, "micro_batch", "accumulation_steps")


def test_lora_counts_a_preset_and_a_shape_changed_from_it(ready_pages, localedir, locale=A_LOCALE):
    """Llama-2-7b, r = 8 on q_proj and v_proj (peft's printout, held in test_lora_counts.py), then half its layers."""
    page = start_over(ready_pages, locale, "lora")
    page.select_option("[name=model]", "meta-llama/Llama-2-7b-hf")
    page.fill("[name=rank]", "8")
    for module in ("k_proj", "o_proj", "gate_proj", "up_proj", "down_proj"):
        page.uncheck(f"[name=target_modules][value={module}]")
    expect_shown_as_cpython_shows(page, localedir, "trainable_parameters")
    page.fill("[name=layers]", "16")
    expect(page.locator("[name=model]")).to_have_value("custom")
    expect_shown_as_cpython_shows(page, localedir, "trainable_parameters")


def test_lora_totals_the_run_and_carries_it_to_the_vram_page(ready_pages, localedir, locale=A_LOCALE):
    page = start_over(ready_pages, locale, "lora")
    expect_shown_as_cpython_shows(page, localedir, "run_memory")
    page.select_option("[name=method]", "qlora")
    expect_shown_as_cpython_shows(page, localedir, "run_memory")
    page.fill("[name=micro_batch]", "2")
    page.fill("[name=sequence_length]", "2048")
    expect_shown_as_cpython_shows(page, localedir, "run_memory")
    # An adapter on a mixture's experts, which the step does not model: said so, and the counts stay.
    page.select_option("[name=model]", "mistralai/Mixtral-8x7B-v0.1")
    page.check("[name=target_modules][value='experts.down_proj']")
    words = load_translations(localedir, locale).gettext
    expect(page.locator("output[name=run_memory]")).to_have_text(words("Not modeled"))
    expect_shown_as_cpython_shows(page, localedir, "base_parameters")


def test_following_the_lora_link_opens_the_run_on_the_vram_page(context, base_url, localedir):
    page = visit(context, f"{base_url}{LOCALES[0]}/lora/?method=qlora")
    carried = expect_shown_as_cpython_shows(page, localedir, "run_memory").links["vram"]
    page.locator('a[data-role="check-on-gpu"]').click()
    expect(page).to_have_url(f"{base_url}{LOCALES[0]}/vram/?{carried}")
    wait_until_ready(page)
    expect(page.locator("[name=method]")).to_have_value("qlora")
    expect_shown_as_cpython_shows(page, localedir, "total_memory")


def test_the_lora_page_offers_no_link_to_a_run_the_vram_page_refuses(context, base_url, localedir):
    """An adapter on a mixture's experts: neither page models the step, so the link, which would open on an error
    there, is not offered."""
    targets = "q_proj,v_proj,experts.gate_up_proj,experts.down_proj"
    page = visit(context, f"{base_url}{LOCALES[0]}/lora/?model=mistralai/Mixtral-8x7B-v0.1&target_modules={targets}")
    assert "vram" not in expect_shown_as_cpython_shows(page, localedir, "run_memory").links
    expect(page.locator('a[data-role="check-on-gpu"]')).to_be_hidden()


def test_lora_explains_a_shape_or_a_choice_that_cannot_be(ready_pages, locale=A_LOCALE):
    page = start_over(ready_pages, locale, "lora")
    page.fill("[name=kv_heads]", "3")
    expect(page.locator("#kv_heads-error")).to_be_visible()
    expect(page.locator("[name=kv_heads]")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("[data-role=outcome]")).to_be_hidden()
    for module in MODULES:
        page.uncheck(f"[name=target_modules][value={module}]")
    expect(page.locator("#target_modules-error")).to_be_visible()
    page.fill("[name=kv_heads]", "8")
    page.check("[name=target_modules][value=q_proj]")
    expect(page.locator("[data-role=outcome]")).to_be_visible()
    expect(page.locator("[aria-invalid]")).to_have_count(0)


@pytest.mark.parametrize("name", ["lora", "vram"])
def test_the_target_boxes_show_only_the_chosen_model_s_own_modules(ready_pages, name, locale=A_LOCALE):
    page = start_over(ready_pages, locale, name)
    shown = page.locator("#target_modules label:visible input")
    phi3 = ["qkv_proj", "o_proj", "gate_up_proj", "down_proj"]
    llama = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
    page.select_option("[name=model]", "microsoft/Phi-3-mini-4k-instruct")
    expect(shown).to_have_count(len(phi3))
    assert [box.get_attribute("value") for box in shown.all()] == phi3
    page.select_option("[name=model]", "meta-llama/Llama-3.2-1B")
    expect(shown).to_have_count(len(llama))
    assert [box.get_attribute("value") for box in shown.all()] == llama
    expect(page.locator("[aria-invalid]")).to_have_count(0)


def test_lora_reads_a_pasted_config_json(ready_pages, localedir, locale=A_LOCALE):
    """Qwen2.5-0.5B's config.json (its published count held in test_configs.py) fills the shape."""
    from tests.test_configs import QWEN2_5_0_5B

    page = start_over(ready_pages, locale, "lora")
    page.fill("[name=config]", json.dumps(QWEN2_5_0_5B, indent=2))
    expect(page.locator("[name=model]")).to_have_value("custom")
    expect_shown_as_cpython_shows(page, localedir, "base_parameters")
    expect(page.locator("[name=architecture]")).to_have_value("qwen2")
    expect(page.locator("[name=head_dim]")).to_have_value("64")
    expect(page.locator("[name=tie_word_embeddings]")).to_have_value("true")
    expect(page.locator("[name=config]")).to_have_value("")
    page.fill("[name=config]", '{"model_type": "gpt2"}')
    expect(page.locator("#config-error")).to_be_visible()
    expect(page.locator("[name=config]")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("[data-role=outcome]")).to_be_hidden()


@pytest.mark.parametrize("name", PAGES)
def test_a_shared_address_reproduces_what_its_sender_saw(ready_pages, browser, name):
    page = start_over(ready_pages, LOCALES[-1], name)
    first = page.locator("input[type=text]").first
    first.fill("3")
    expect(page).to_have_url(re.compile(rf"[?&]{first.get_attribute('name')}=3(&|$)"))
    expect(page.locator(".results")).not_to_have_attribute("aria-busy", "true")
    texts = page.locator("input[type=text]").evaluate_all("(inputs) => inputs.map((i) => i.value)")
    results = shown(page)
    receiver = browser.new_context()
    shared = visit(receiver, page.url)
    # Ready is not yet read: the address's values arrive with the first view, which may show the same first figure
    # as the defaults' (a rank of 3 or 16 alike), so every field and every result is waited for.
    fields = shared.locator("input[type=text]")
    expect(fields).to_have_count(len(texts))
    for index, text in enumerate(texts):
        expect(fields.nth(index)).to_have_value(text)
    outcome = shared.locator("[data-role=outcome] output, [data-role=outcome] td")
    expect(outcome).to_have_text(results, use_inner_text=True)
    receiver.close()


def test_until_python_reads_the_address_the_defaults_do_not_pass_as_its_results(context, base_url):
    held = Held(context, "**/pyodide.asm.wasm")
    page = context.new_page()
    page.goto(f"{base_url}{LOCALES[0]}/?gpus=4")
    expect(page.locator(".status[data-status=busy]")).to_be_visible()
    expect(page.locator(".results")).to_have_attribute("aria-busy", "true")
    expect(page.locator("output[name=effective_batch]")).to_have_text("64")  # the defaults', shown as stale
    held.release(page)
    expect(page.locator("output[name=effective_batch]")).to_have_text("256")
    expect(page.locator("[name=gpus]")).to_have_value("4")
    expect(page.locator(".results")).not_to_have_attribute("aria-busy", "true")


def test_an_odd_address_is_plain_bad_input(context, base_url):
    page = visit(context, f'{base_url}{LOCALES[0]}/?gpus=<img src=x onerror="window.owned=1">&micro_batch=-')
    expect(page.locator("#gpus-error")).to_be_visible()
    expect(page.locator("#micro_batch-error")).to_be_visible()
    assert page.locator("img").count() == 0
    assert page.evaluate("window.owned") is None


def test_a_bug_keeps_the_readers_address_to_report_it_with(context, base_url):
    # A request Python cannot read (its values a number) stands in for a bug, once the page asks it to.
    context.add_init_script(
        """{
            const post = Worker.prototype.postMessage;
            Worker.prototype.postMessage = function (message, ...rest) {
                if (message.type === "evaluate" && self.breakNext) message = { ...message, request: { values: 5 } };
                return post.call(this, message, ...rest);
            };
        }"""
    )
    # An address the page writes as it is (one that leaves out the budget would have it blank, and say so).
    page = visit(context, f"{base_url}{LOCALES[0]}/?gpus=4&memory_budget=8.01")
    page.evaluate("self.breakNext = true")
    page.fill("[name=micro_batch]", "2")
    expect(page.locator("[data-role=placeholder]")).to_have_text(
        "Something went wrong with these values. Change one of them to try again."
    )
    page.evaluate("dispatchEvent(new Event('pagehide'))")  # writes an address the page is waiting to write
    assert page.url == f"{base_url}{LOCALES[0]}/?gpus=4&memory_budget=8.01"


def carried_to_vram(localedir) -> str:
    """Where the accumulation page's link goes from its run at micro-batch 2, as CPython's view says."""
    return "vram/?" + answer("accumulation", LOCALES[0], localedir, micro_batch="2").links["vram"]


def test_the_accumulation_page_carries_its_memory_to_the_vram_page(ready_pages, localedir, locale=A_LOCALE):
    page = start_over(ready_pages, locale)
    page.fill("[name=micro_batch]", "2")
    expect_shown_as_cpython_shows(page, localedir, "activation_memory")


def test_following_a_link_fills_the_next_page(context, base_url, localedir):
    page = visit(context, f"{base_url}{LOCALES[0]}/?micro_batch=2")
    expect_shown_as_cpython_shows(page, localedir)  # the address's answer, links included
    page.locator("a[data-link=vram]").click()
    expect(page).to_have_url(f"{base_url}{LOCALES[0]}/{carried_to_vram(localedir)}")
    wait_until_ready(page)
    # The activation memory is left to the VRAM page, which computes it for the model chosen there.
    expect(page.locator("[name=activation_memory]")).to_have_value("")
    expect(page.locator("[name=micro_batch]")).to_have_value("2")
    expect_shown_as_cpython_shows(page, localedir, "total_memory")


def test_back_from_a_linked_page_returns_to_the_last_edit(context, base_url, localedir):
    # The address is written once the reader pauses: leaving sooner must not lose it.
    page = visit(context, f"{base_url}{LOCALES[0]}/")
    page.fill("[name=micro_batch]", "2")
    expect_shown_as_cpython_shows(page, localedir)
    page.locator("a[data-link=vram]").click()
    expect(page).to_have_url(f"{base_url}{LOCALES[0]}/{carried_to_vram(localedir)}")
    page.go_back()
    # The address CPython writes for that edit (with the budget, which an address describing a run names).
    expect(page).to_have_url(
        f"{base_url}{LOCALES[0]}/?{answer('accumulation', LOCALES[0], localedir, micro_batch='2').address}"
    )


def test_the_copy_button_copies_the_address(browser, base_url):
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = visit(context, f"{base_url}{LOCALES[0]}/lora/?rank=4")
    page.locator("[data-role=copy-link]").click()
    expect(page.locator("[data-role=copied]")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == page.url
    context.close()


@pytest.mark.parametrize("name", PAGES)
def test_on_a_laptop_the_results_sit_beside_the_inputs_without_scrolling(ready_pages, name):
    page = start_over(ready_pages, LOCALES[0], name)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.evaluate("window.scrollTo(0, 0)")
    inputs = page.locator(".inputs").bounding_box()
    figure = page.locator(".figure output").first.bounding_box()
    assert figure["x"] > inputs["x"] + inputs["width"] / 2, "the results are not beside the inputs"
    assert figure["y"] + figure["height"] <= 800, "the main result is below the fold"


@pytest.mark.parametrize("name", PAGES)
@pytest.mark.parametrize("locale", LOCALES)
def test_no_page_scrolls_sideways_at_320_pixels(ready_pages, locale, name):
    # The reflow width (WCAG 1.4.10): a wide table scrolls in its own box.
    page = start_over(ready_pages, locale, name)
    page.set_viewport_size({"width": 320, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth") <= 320


@pytest.mark.parametrize("name", PAGES)
def test_on_a_phone_the_results_follow_the_inputs(ready_pages, name):
    page = start_over(ready_pages, LOCALES[0], name)
    page.set_viewport_size({"width": 390, "height": 844})
    inputs = page.locator(".inputs").bounding_box()
    results = page.locator(".results").bounding_box()
    assert 0 <= results["y"] - (inputs["y"] + inputs["height"]) <= 48
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_the_planner_plans_says_when_it_cannot_and_hands_over(ready_pages, localedir, locale=A_LOCALE):
    page = start_over(ready_pages, locale, "plan")
    expect_shown_as_cpython_shows(page, localedir, "micro_batch", "accumulation_steps")
    page.fill("[name=gpus]", "8")
    page.fill("[name=target_batch]", "250")  # not a multiple of 8: the nearest batch, said so
    view = expect_shown_as_cpython_shows(page, localedir, "effective_batch", "adjustment")
    expect(page.locator("[data-snippet=deepspeed]")).to_have_text(view.outputs["deepspeed"])
    page.fill("[name=activation_per_sample]", "20")
    expect(page.locator("#memory_budget-error")).to_be_visible()
    expect(page.locator("[data-role=outcome]")).to_be_hidden()


def test_a_snippet_is_copied_as_it_reads(browser, base_url):
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = visit(context, f"{base_url}{LOCALES[0]}/plan/?target_batch=512")
    page.locator(".snippets summary").click()
    page.locator("[data-copy=axolotl-snippet]").click()
    expect(page.locator("[data-role=copied]")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == page.locator("[data-snippet=axolotl]").text_content()
    context.close()


def test_from_a_model_to_the_effective_batch_without_knowing_anything_else(ready_pages, locale=A_LOCALE):
    """Llama-3.1-8B, LoRA r = 16 on all seven projections, 4096 tokens, bf16, fused attention, full recomputation:
    the activation memory per sample at the step's peak, then E and M on the accumulation page, in the same digits."""
    from calc.formulas.step import Setting, largest_per_sample, moments, saved_breakdown
    from calc.models import PRESETS

    shape = PRESETS["meta-llama/Llama-3.1-8B"]
    lora = Setting("adamw-mixed", 4096, "flash", "full", method="lora", lora_rank=16, lora_targets=MODULES)
    full = Setting("adamw-mixed", 4096, "flash", "full")

    def per_sample(setting: Setting):
        return largest_per_sample(moments(shape, setting)).per_sample_total

    def in_gb(size, rounding=rounded) -> str:
        return format_quantity(rounding(size / 10**9, 2), "digital-gigabyte", Locale.parse(locale), places=2)

    page = start_over(ready_pages, locale, "activations")
    expect(page.locator("output[name=activation_per_sample]")).to_have_text(
        in_gb(sum(saved_breakdown(shape, lora).values()))
    )
    page.select_option("[name=method]", "full")
    # Rounded up, as shown and as carried.
    expect(page.locator("output[name=step_per_sample]")).to_have_text(in_gb(per_sample(full), rounded_up))
    page.select_option("[name=method]", "lora")
    estimate = per_sample(lora) / 10**9
    expect(page.locator("output[name=step_per_sample]")).to_have_text(in_gb(per_sample(lora), rounded_up))
    href = page.locator("a[data-role=use-estimate]").get_attribute("href")
    accumulation = page.context.new_page()
    accumulation.goto(page.url.split("activations/")[0] + href.removeprefix("../"))
    wait_until_ready(accumulation)
    a = rounded_up(estimate, 2)
    expect(accumulation.locator("[name=activation_per_sample]")).to_have_value(field(str(a), locale))
    expect(accumulation.locator("output[name=effective_batch]")).to_have_text("64")
    expect(accumulation.locator("output[name=activation_memory]")).to_have_text(gigabytes(str(a), locale))
    accumulation.close()


def test_the_estimator_reads_a_pasted_config_json_of_an_architecture_it_covers(ready_pages, locale=A_LOCALE):
    """Qwen2.5-0.5B's config.json fills the shape, tied and with its head_dim; a model type no page reads is refused."""
    from tests.test_configs import PHI_3_MINI, QWEN2_5_0_5B

    page = start_over(ready_pages, locale, "activations")
    page.fill("[name=config]", json.dumps(QWEN2_5_0_5B, indent=2))
    expect(page.locator("[name=model]")).to_have_value("custom")
    expect(page.locator("[name=architecture]")).to_have_value("qwen2")
    expect(page.locator("[name=head_dim]")).to_have_value("64")
    expect(page.locator("[name=tie_word_embeddings]")).to_have_value("true")
    expect(page.locator("[name=config]")).to_have_value("")
    custom = page.locator("output[name=step_per_sample]").inner_text()
    page.select_option("[name=model]", "Qwen/Qwen2.5-0.5B")
    expect(page.locator("output[name=step_per_sample]")).to_have_text(custom)
    page.fill("[name=config]", json.dumps({**PHI_3_MINI, "model_type": "falcon"}))
    expect(page.locator("#config-error")).to_contain_text("falcon")
    expect(page.locator("[name=config]")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("[data-role=outcome]")).to_be_hidden()
