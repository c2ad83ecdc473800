"""What a reader types stays typed, however late Python's answers come.

The worker answers in its own time; a reader who edits several fields
while an answer is on its way must find them as typed, and results for
them. Here the worker's answers are held back in the page (its messages
queued, then delivered in order, each in a task of its own) while the
reader edits, so the race is the same on a fast machine and a slow one.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from babel import Locale

from calc.formatting import format_quantity
from sitebuild.config import LOCALES, PAGES
from tests.helpers import expect, expect_shown_as_cpython_shows, wait_until_ready

pytestmark = pytest.mark.browser

# Run before the page's scripts: the worker's messages to the page wait
# while held, and are delivered in their order once released: all of them,
# or (releaseAnswer) those up to the first answer to a request, still holding
# what comes next. Each of the page's listeners holds its own copy of a message.
HOLD_WORKER_ANSWERS = """(() => {
    const held = [];
    let holding = false;
    window.holdWorker = () => { holding = true; };
    window.heldAnswers = () => held.filter(({ event }) => event.data.id !== undefined).length;
    window.releaseWorker = () => {
        const drain = () => {
            if (held.length === 0) { holding = false; return; }
            held.shift().deliver();
            setTimeout(drain);
        };
        setTimeout(drain);
    };
    window.releaseAnswer = () => {
        let answer;
        while (held.length > 0 && (answer === undefined || held[0].event === answer)) {
            const { event, deliver } = held.shift();
            deliver();
            if (event.data.id !== undefined) answer = event;
        }
    };
    window.Worker = class extends Worker {
        addEventListener(type, listener, options) {
            if (type !== "message") return super.addEventListener(type, listener, options);
            const deliver = (event) => listener.call(this, event);
            return super.addEventListener(
                type,
                (event) => (holding ? held.push({ event, deliver: () => deliver(event) }) : deliver(event)),
                options,
            );
        }
    };
})()"""

LOCALE = LOCALES[0]


@pytest.fixture
def vram(context, base_url):
    page = context.new_page()
    page.add_init_script(HOLD_WORKER_ANSWERS)
    page.goto(f"{base_url}{LOCALE}/{PAGES['vram']}")
    wait_until_ready(page)
    return page


def enter(page, name: str, text: str) -> None:
    """Type ``text`` in the field ``name``, or choose it if the field is a list of options."""
    control = page.locator(f"[name={name}]")
    if control.evaluate("control => control.tagName") == "SELECT":
        control.select_option(text)
    else:
        control.fill(text)


def edit_while_an_answer_is_held(page, first, *typed: tuple[str, str]) -> None:
    """Make the ``first`` edit, enter ``typed`` (field, text) while its answer is held, then let it come."""
    page.evaluate("holdWorker()")
    first()
    for name, text in typed:
        enter(page, name, text)
    # The first edit's answer came back after the typing.
    page.wait_for_function("() => heldAnswers() > 0")
    page.evaluate("releaseWorker()")
    expect_typed(page, typed)


def expect_typed(page, typed: tuple[tuple[str, str], ...]) -> None:
    expect(page.locator(".results")).not_to_have_attribute("aria-busy", "true")
    for name, text in typed:
        expect(page.locator(f"[name={name}]")).to_have_value(text)


def expect_results_of_the_form(page, localedir) -> None:
    """The total shown is CPython's for the texts the form now holds."""
    expect_shown_as_cpython_shows(page, localedir, "total_memory")


def test_fields_typed_after_choosing_a_recipe_keep_their_text(vram, localedir):
    """The count typed makes the model a count alone, though the field typed last is another one."""
    edit_while_an_answer_is_held(
        vram,
        lambda: vram.select_option("[name=optimizer]", "adam-fp32"),
        ("parameters", "5"),
        ("gpus", "4"),
        ("activation_memory", "3"),
        ("overhead", "0"),
    )
    expect(vram.locator("[name=model]")).to_have_value("count")
    expect(vram.locator("[name=optimizer]")).to_have_value("adam-fp32")
    expect_results_of_the_form(vram, localedir)
    # 5B in fp32, 16 bytes each, no ZeRO on each of 4 GPUs: 80 GB, DistributedDataParallel's 20 GB copy of the
    # gradients, and the larger of 3 GB of activations and the optimizer step's 20 GB of temporaries; no overhead.
    expect(vram.locator("output[name=total_memory]")).to_have_text(
        format_quantity(Decimal("120"), "digital-gigabyte", Locale.parse(LOCALE), places=2)
    )


def test_a_count_typed_after_choosing_a_preset_is_not_replaced_by_the_presets(vram, localedir):
    edit_while_an_answer_is_held(
        vram,
        lambda: vram.select_option("[name=model]", "meta-llama/Llama-2-7b-hf"),
        ("parameters", "5"),
        ("activation_memory", "2"),
    )
    expect(vram.locator("[name=model]")).to_have_value("count")
    expect_results_of_the_form(vram, localedir)


def test_a_count_typed_after_a_recipe_chosen_while_an_answer_was_held_stays(vram, localedir):
    """The first edit's answer held, the recipe chosen next waits its turn, and the count is typed while it waits:
    the request that reads them names both, and the count stays the reader's."""
    edit_while_an_answer_is_held(
        vram,
        lambda: vram.fill("[name=sequence_length]", "2048"),
        ("optimizer", "adam-fp32"),
        ("parameters", "5"),
        ("activation_memory", "3"),
        ("overhead", "0"),
    )
    expect(vram.locator("[name=model]")).to_have_value("count")
    expect_results_of_the_form(vram, localedir)
    # 5B in fp32 with Adam, 16 bytes each: 80 GB, and the larger of 3 GB of activations and the optimizer step's
    # 20 GB of temporaries.
    expect(vram.locator("output[name=total_memory]")).to_have_text(
        format_quantity(Decimal("100"), "digital-gigabyte", Locale.parse(LOCALE), places=2)
    )


def test_fields_typed_while_a_later_answer_is_held_keep_their_text(vram, localedir):
    """Not only the first answer: the recipe chosen while the first was held is read once that answer is in, and the
    count typed while the answer to that second read is held stays the reader's, as the results say."""
    vram.evaluate("holdWorker()")
    vram.fill("[name=sequence_length]", "2048")
    vram.select_option("[name=optimizer]", "adam-fp32")  # waits its turn
    vram.wait_for_function("() => heldAnswers() > 0")
    vram.evaluate("releaseAnswer()")  # the first answer: the recipe's request goes, and its answer is held
    vram.wait_for_function("() => heldAnswers() > 0")
    typed = (("parameters", "5"), ("activation_memory", "3"), ("overhead", "0"))
    for name, text in typed:
        enter(vram, name, text)
    vram.evaluate("releaseWorker()")
    expect_typed(vram, typed)
    expect(vram.locator("[name=optimizer]")).to_have_value("adam-fp32")
    expect(vram.locator("[name=model]")).to_have_value("count")
    expect_results_of_the_form(vram, localedir)
