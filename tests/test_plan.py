"""The planner: exact plans whenever one exists, the nearest reachable batch otherwise, and configs that parse."""

from __future__ import annotations

import ast
import builtins
import json
import re
from decimal import Decimal
from gettext import NullTranslations
from pathlib import Path

import pytest
import yaml
from babel import Locale

from calc import accumulation, vram
from calc.evaluation import default_texts, evaluate
from calc.formatting import GIGABYTE, format_number, format_quantity, unit_symbol
from calc.formulas.batch import divisors
from calc.i18n import load_translations
from calc.inputs import address_number
from calc.plan import CALCULATOR, compute
from calc.snippets import FRAMEWORKS, LANGUAGES, PLACEHOLDERS, snippets
from sitebuild.config import LOCALES


def plan(target, gpus, budget, per_sample, sequence=None, budget_for="any"):
    return compute(
        {
            "budget_for": budget_for,
            "target_batch": Decimal(target),
            "gpus": Decimal(gpus),
            "memory_budget": Decimal(budget),
            "activation_per_sample": Decimal(per_sample),
            "sequence_length": None if sequence is None else Decimal(sequence),
        }
    )


@pytest.mark.parametrize("target", [1, 7, 64, 250, 256, 1000, 1024, 4096, 12_000])
@pytest.mark.parametrize("gpus", [1, 3, 8, 64])
@pytest.mark.parametrize(("budget", "per_sample"), [("16", "2"), ("80", "0.75"), ("1", "1"), ("40", "0.3")])
def test_the_plan_is_exact_fits_and_uses_the_largest_micro_batch(target, gpus, budget, per_sample):
    result = plan(target, gpus, budget, per_sample)
    b, a, e = (int(result[name].value) for name in ("micro_batch", "accumulation_steps", "effective_batch"))
    assert b * a * gpus == e
    assert b * Decimal(per_sample) <= Decimal(budget)
    # The nearest multiple of the GPUs, and the target itself whenever it is one.
    assert e % gpus == 0 and (2 * abs(e - target) <= gpus or e == gpus > target)
    assert (e == target) == (result["adjustment"] is None)
    # No larger micro-batch divides the share and fits.
    share = e // gpus
    assert not [d for d in divisors(share) if d > b and d * Decimal(per_sample) <= Decimal(budget)]
    # Every plan in the table is exact and fits.
    for row in result["plans"]:
        micro, steps, memory = (cell.value for cell in row)
        assert micro * steps * gpus == e and memory <= Decimal(budget)


def test_tokens_per_step_are_the_effective_batch_times_the_sequence():
    assert plan(256, 8, 16, 2, sequence=4096)["tokens_per_step"].value == 256 * 4096
    assert plan(256, 8, 16, 2)["tokens_per_step"] is None


@pytest.mark.parametrize("locale", LOCALES)
def test_the_plans_table_names_its_unit_in_the_heading_and_its_cells_hold_the_numbers(localedir, locale):
    parsed, translations = Locale.parse(locale), load_translations(localedir, locale)
    texts = {**default_texts(CALCULATOR, parsed), "memory_budget": "30"}
    rows = evaluate(CALCULATOR, texts, parsed, translations).outputs["plans"]["rows"]
    # One format down the column: 29.80 above 7.45, not 29.8.
    assert rows == [
        [format_number(Decimal(b), parsed), str(64 // b), format_quantity(b * Decimal("7.45"), None, parsed, places=2)]
        for b in (4, 2, 1)
    ]
    table = next(output for output in CALCULATOR.outputs if output.name == "plans")
    memory = table.headings(parsed, translations)[-1]
    assert memory.startswith(translations.gettext("Peak activation memory per GPU"))
    assert memory.endswith(f"({unit_symbol(GIGABYTE, parsed)})")


@pytest.mark.parametrize("locale", LOCALES)
def test_one_sample_over_the_budget_is_said_on_the_budget(localedir, locale):
    parsed = Locale.parse(locale)
    texts = {**default_texts(CALCULATOR, parsed), "activation_per_sample": "20"}
    shown = evaluate(CALCULATOR, texts, parsed, load_translations(localedir, locale))
    assert shown.errors["memory_budget"] and shown.prompt
    assert [name for name, error in shown.errors.items() if error] == ["memory_budget"]


@pytest.mark.parametrize(("b", "a", "g"), [(1, 1, 1), (4, 8, 2), (8, 4, 8), (3, 1000, 1024)])
def test_every_snippet_parses_and_carries_the_plan(b, a, g):
    code = snippets(b, a, g)
    assert set(code) == set(FRAMEWORKS)
    assert json.loads(code["deepspeed"]) == {
        "train_batch_size": b * a * g,
        "train_micro_batch_size_per_gpu": b,
        "gradient_accumulation_steps": a,
        "bf16": {"enabled": True},
    }
    # Each turns on bf16 and full recomputation where its configuration holds them, as the default run has them: an
    # activation memory estimated with them holds only with them (round 16, item 1).
    assert yaml.safe_load(code["axolotl"]) == {
        "micro_batch_size": b,
        "gradient_accumulation_steps": a,
        "bf16": True,
        "gradient_checkpointing": True,
    }
    expected = {
        "transformers": {
            "per_device_train_batch_size": b,
            "gradient_accumulation_steps": a,
            "bf16": True,
            "activation_checkpointing": True,
        },
        # Lightning's default precision, "32-true", would double the bf16 activations the pages count.
        "lightning": {"batch_size": b, "accumulate_grad_batches": a, "precision": "bf16-mixed"},
        "accelerate": {"gradient_accumulation_steps": a, "batch_size": b, "mixed_precision": "bf16"},
    }
    for framework, keywords in expected.items():
        given = {
            node.arg: node.value.value
            for node in ast.walk(ast.parse(code[framework]))
            if isinstance(node, ast.keyword) and isinstance(node.value, ast.Constant)
        }
        assert {name: given.get(name) for name in keywords} == keywords, framework
    # Megatron-LM takes the micro-batch and the global batch, and derives the steps from them.
    megatron = dict(re.findall(r"--(micro-batch-size|global-batch-size) (\d+)", code["megatron"]))
    assert megatron == {"micro-batch-size": str(b), "global-batch-size": str(b * a * g)}
    # Full recomputation: every layer recomputed, one at a time (megatron/training/arguments.py).
    flags = code["megatron"].split()
    assert "--bf16" in flags and " ".join(flags).count("--recompute-granularity full --recompute-method uniform ") == 1
    assert flags[flags.index("--recompute-num-layers") + 1] == "1"
    # Lightning's devices are one node's GPUs: devices × num_nodes makes the plan's GPUs.
    lightning = {
        node.arg: node.value.value
        for node in ast.walk(ast.parse(code["lightning"]))
        if isinstance(node, ast.keyword) and node.arg in ("devices", "num_nodes")
    }
    assert set(lightning) == {"devices", "num_nodes"} and lightning["devices"] * lightning["num_nodes"] == g
    # The launch lines start one process per GPU, g in all.
    torchrun = re.search(r"torchrun(?: --nnodes=(\d+))? --nproc_per_node=(\d+) ", code["transformers"])
    assert int(torchrun[1] or 1) * int(torchrun[2]) == g
    assert "accelerate launch" in code["accelerate"] and f"--num_processes={g} " in code["accelerate"]
    # Plain ASCII digits, whatever the locale.
    assert all(text.isascii() for text in code.values())


def undefined_names(code: str) -> set[str]:
    """Names a module reads but neither imports, assigns, loops over nor gets from builtins."""
    tree = ast.parse(code)
    bound = set(dir(builtins))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - bound


@pytest.mark.parametrize(("b", "a", "g"), [(1, 1, 1), (4, 8, 2), (8, 4, 16)])
def test_every_python_snippet_runs_as_pasted_up_to_the_readers_placeholders(b, a, g):
    """Pasted into a file, a Python snippet compiles, opens with its launch line and reads no undefined name.

    What only the reader has is a `...` placeholder the page asks them to replace.
    """
    code = snippets(b, a, g)
    for framework in (name for name in FRAMEWORKS if LANGUAGES[name] == "python"):
        compile(code[framework], f"{framework}.py", "exec")
        launch = code[framework].splitlines()[0]
        assert launch.startswith("# ") and launch.endswith(" train.py"), framework
        assert not undefined_names(code[framework]), framework
        given = {
            node.targets[0].id
            for node in ast.parse(code[framework]).body
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value is ...
        }
        assert given == set(PLACEHOLDERS.get(framework, ())), framework
    # Lightning trains: the loader goes to trainer.fit with the model.
    calls = {ast.unparse(node) for node in ast.walk(ast.parse(code["lightning"])) if isinstance(node, ast.Call)}
    assert "trainer.fit(model, loader)" in calls
    # Lightning starts its own processes on one node; on several, torchrun starts one per GPU on each.
    launch = code["lightning"].splitlines()[0]
    if g <= 8:
        assert launch == "# python train.py"
    else:
        torchrun = re.fullmatch(r"# torchrun --nnodes=(\d+) --nproc_per_node=(\d+) train.py", launch)
        assert int(torchrun[1]) > 1 and int(torchrun[1]) * int(torchrun[2]) == g


@pytest.mark.parametrize(("b", "a", "g"), [(1, 1, 1), (4, 8, 2), (8, 4, 16)])
def test_the_megatron_block_is_one_launch_command_ending_on_the_readers_arguments(b, a, g):
    """One shell command, g processes in all, every line but the last continued, the last the `...` the page asks the
    reader to replace with the model, data and tokenizer arguments pretrain_gpt.py cannot start without."""
    lines = snippets(b, a, g)["megatron"].splitlines()
    assert all(line.endswith(" \\") for line in lines[:-1]) and lines[-1].strip() == "..."
    torchrun = re.fullmatch(r"torchrun(?: --nnodes=(\d+))? --nproc_per_node=(\d+) pretrain_gpt.py \\", lines[0])
    assert int(torchrun[1] or 1) * int(torchrun[2]) == g


def test_the_accelerate_model_is_one_whose_output_has_the_loss_the_loop_reads():
    """`model(**batch).loss` needs a transformers model (a torch.nn.Module returns no .loss): its comment says so."""
    code = snippets(1, 2, 1)["accelerate"]
    assert "model(**batch).loss" in {ast.unparse(n) for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Attribute)}
    assert "model = ...  # transformers.PreTrainedModel" in code.splitlines()


def test_undefined_names_finds_a_name_no_line_defines():
    assert undefined_names("loader = DataLoader(dataset)\n") == {"DataLoader", "dataset"}
    assert undefined_names("from x import DataLoader\ndataset = ...\nloader = DataLoader(dataset)\n") == set()


@pytest.mark.parametrize(("b", "a", "g"), [(1, 1, 1), (4, 8, 2), (3, 1000, 1024)])
def test_the_accelerate_loop_accumulates(b, a, g):
    """Accelerate accumulates only inside accelerator.accumulate(model): the loop's body must sit in it."""
    tree = ast.parse(snippets(b, a, g)["accelerate"])
    (loop,) = [node for node in ast.walk(tree) if isinstance(node, ast.For)]
    (block,) = loop.body
    assert isinstance(block, ast.With)
    (context,) = block.items
    assert ast.unparse(context.context_expr) == "accelerator.accumulate(model)"
    called = {ast.unparse(node.func) for node in ast.walk(block) if isinstance(node, ast.Call)}
    assert {"accelerator.backward", "optimizer.step", "optimizer.zero_grad"} <= called
    # Nothing steps the optimizer outside it.
    outside = [node for node in tree.body if node is not loop]
    assert not [n for top in outside for n in ast.walk(top) if isinstance(n, ast.Attribute) and n.attr == "step"]


@pytest.mark.parametrize(("b", "a", "g"), [(1, 1, 1), (4, 8, 2)])
def test_the_accelerate_loop_trains_the_model_in_training_mode_on_collated_batches(b, a, g):
    """from_pretrained returns a model in evaluation mode, where transformers skips gradient checkpointing (the step
    then needs the memory of a run without recomputation) and prepare() leaves the mode alone: the loop calls
    model.train() before it runs. A tokenized dataset's samples are lists, which the default collate cannot give the
    model even one at a time: the DataLoader takes the reader's collator (review 7, technical items 1 and 15)."""
    tree = ast.parse(snippets(b, a, g)["accelerate"])
    statements = [ast.unparse(node) for node in tree.body]
    loop = next(i for i, node in enumerate(tree.body) if isinstance(node, ast.For))
    assert statements[loop - 1] == "model.train()"
    prepared = statements.index("model, optimizer, loader = accelerator.prepare(model, optimizer, loader)")
    assert prepared < loop - 1
    # Recomputation is the model's, turned on before prepare() wraps it.
    assert statements.index("model.activation_checkpointing_enable()") < prepared
    (loader,) = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == "DataLoader"]
    assert {k.arg: ast.unparse(k.value) for k in loader.keywords} == {
        "batch_size": str(b),
        "shuffle": "True",
        "collate_fn": "collator",
    }
    assert "collator = ...  # transformers.DataCollatorForLanguageModeling" in snippets(b, a, g)["accelerate"]


@pytest.mark.parametrize("framework", ["accelerate", "lightning"])
def test_the_loops_written_out_shuffle_their_data_as_the_trainer_does(framework):
    """A DataLoader keeps the file's order unless told to shuffle; Accelerate and Lightning keep the sampler's choice
    when they shard it, so a pasted loop would train in file order every epoch (technical review, round 21, D5)."""
    tree = ast.parse(snippets(4, 8, 2)[framework])
    (loader,) = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == "DataLoader"]
    assert {k.arg: ast.unparse(k.value) for k in loader.keywords}["shuffle"] == "True"


def test_the_defaults_are_the_default_run_the_training_memory_page_hands_over():
    values = {**vram.CALCULATOR.defaults(), **vram.settle(vram.CALCULATOR.defaults(), None)}
    carried = vram.links(values, vram.CALCULATOR.results(values))["plan"]
    fields = {field.name: field for field in CALCULATOR.inputs}
    assert {name: fields[name].to_address(CALCULATOR.defaults()[name]) for name in carried} == carried


def test_the_worked_example_s_budget_is_the_one_the_training_memory_page_hands_over_for_its_card():
    """The prose's A100 40GB example plans with the budget the VRAM page gives the default run on that card."""
    values = {**vram.CALCULATOR.defaults(), "gpu": "a100-40gb"}
    values = {**values, **vram.settle(values, frozenset({"gpu"}))}
    carried = vram.links(values, vram.CALCULATOR.results(values))["plan"]
    assert address_number(CALCULATOR.examples["a100"]["memory_budget"]) == carried["memory_budget"]


def test_the_accumulation_page_opens_on_the_plan_of_the_default_run():
    """Micro-batch 1 over 64 steps on one GPU, with the planner's memory: the plan it hands over, as the defaults."""
    defaults = CALCULATOR.defaults()
    handed = CALCULATOR.links(defaults, CALCULATOR.results(defaults))["accumulation"]
    opened = accumulation.CALCULATOR.defaults()
    assert {name: address_number(opened[name]) for name in handed} == handed
    assert set(handed) == set(opened)


def test_a_target_whose_share_has_no_divisor_near_what_fits_gets_a_nearby_target():
    """97 samples on one GPU with room for 10: the only exact plan is one sample over 97 steps, and the page says that
    a target of 100 would allow micro-batches of 10 (review 7, technical item 24); a plan near what fits gets no
    hint."""
    result = plan(97, 1, 80, "7.45")
    assert (result["micro_batch"].value, result["accumulation_steps"].value) == (1, 97)
    hint = result["nearby_target"]
    assert {name: q.value for name, q in hint.quantities.items()} == {"micro_batch": 1, "largest": 10, "near": 100}
    # On 8 GPUs the nearby target is shared by them: 8 × 10 × 10.
    assert plan(97 * 8, 8, 80, "7.45")["nearby_target"].quantities["near"].value == 800
    assert plan(64, 1, "25.2", "7.45")["nearby_target"] is None  # 2 of the 3 that fit
    assert plan(64, 1, 80, "7.45")["nearby_target"] is None  # 8 of 10


def test_a_budget_for_a_step_without_accumulation_lists_no_plan_that_accumulates():
    """It does not count the gradients earlier micro-batches leave behind: the plan is each GPU's whole share at once,
    or none, said on the field (review 7, technical item 4)."""
    from calc.plan import AccumulationNotBudgeted

    result = plan(16, 8, "20.89", "7.52", budget_for="single")
    assert [(b.value, a.value) for b, a, _ in result["plans"]] == [(2, 1)]
    assert plan(16, 8, "20.89", "7.52")["plans"][-1][1].value == 2  # any plan: one sample over two steps too
    with pytest.raises(AccumulationNotBudgeted) as refused:
        plan(512, 8, "121.64", "7.52", budget_for="single")
    assert refused.value.field == "budget_for" and refused.value.needed == 64 * Decimal("7.52")
    # Two decimals, as every figure in GB on the site (review 8, item 8).
    words = AccumulationNotBudgeted(64, Decimal("476.8"), Decimal("20"), 8).message(
        None, Locale.parse("en"), NullTranslations()
    )
    assert (
        "all 64\u00a0samples of each GPU in one micro-batch would need 476.80\u00a0GB, more than the budget of "
        "20.00\u00a0GB." in words
    )
    # One GPU's share is the whole target batch, and the words say so (Spanish review, round 79).
    with pytest.raises(AccumulationNotBudgeted) as alone:
        plan(64, 1, "20", "7.52", budget_for="single")
    words = alone.value.message(None, Locale.parse("en"), NullTranslations())
    assert "putting the whole target batch, 64\u00a0samples, in one micro-batch would need 481.28\u00a0GB" in words
    assert "each GPU" not in words
    # A target the GPUs do not share evenly: the share is of the nearest one that they do, which the words name
    # (Spanish review, round 40: "33 samples" of a target of 100 on 3 GPUs).
    with pytest.raises(AccumulationNotBudgeted) as uneven:
        plan(100, 3, "20", "1.3", budget_for="single")
    assert (uneven.value.share, uneven.value.reached) == (33, 99)
    words = uneven.value.message(None, Locale.parse("en"), NullTranslations())
    assert (
        "all 33\u00a0samples of each GPU in one micro-batch (of an effective batch of 99, the nearest to the target"
        in words
    )


def test_the_notes_name_the_lightning_precision_and_a_padding_token_that_keeps_eos_in_the_loss():
    """Lightning's snippet sets a precision (its default, "32-true", keeps a model loaded in fp32 in fp32): the notes
    name it and say how to turn on recomputation there, by transformers' name since 5.23 and the one before.
    DataCollatorForLanguageModeling masks every label equal to the padding token, so the notes advise a padding token
    of its own rather than EOS."""
    notes = (Path(__file__).resolve().parent.parent / "templates" / "snippets.html").read_text(encoding="utf-8")
    precision = next(
        node.value.value
        for node in ast.walk(ast.parse(snippets(1, 1, 1)["lightning"]))
        if isinstance(node, ast.keyword) and node.arg == "precision"
    )
    assert f"{{% trans mixed='\"{precision}\"'" in notes and "<code>precision={{ mixed }}</code>" in notes
    assert "model.activation_checkpointing_enable()</code>" in notes and "gradient_checkpointing_enable()" in notes
    assert "add_special_tokens" in notes and "resize_token_embeddings" in notes
    # EOS as the padding token is named only to be advised against.
    assert notes.count("tokenizer.pad_token = tokenizer.eos_token") == 1
    assert "do not set <code>tokenizer.pad_token = tokenizer.eos_token</code>" in notes
    # A tokenizer may pad with its EOS already, and a resize may shrink a matrix with spare rows (technical review,
    # round 27): the notes say to compare the two ids, and to resize only a matrix the tokenizer outgrew.
    assert "<code>tokenizer.pad_token_id</code> differs from <code>tokenizer.eos_token_id</code>" in notes
    assert "<code>model.get_input_embeddings().num_embeddings</code>" in notes


def test_the_snippets_give_the_old_recomputation_switch_where_they_set_the_new_one():
    """activation_checkpointing came with transformers 5.23; on an older release the new name fails as pasted (a
    TypeError, an AttributeError), so the line that sets it says the old one in a comment (technical review, round
    26, item 1)."""
    code = snippets(2, 4, 8)
    for framework, new, old in (
        ("transformers", "activation_checkpointing=True,", "gradient_checkpointing=True"),
        ("accelerate", "model.activation_checkpointing_enable()", "gradient_checkpointing_enable()"),
    ):
        (line,) = [line for line in code[framework].splitlines() if new in line]
        assert line.endswith(f"# transformers<5.23: {old}"), framework


@pytest.mark.parametrize("locale", LOCALES)
def test_the_budget_s_hint_says_the_same_on_the_planner_and_the_accumulation_page(localedir, locale):
    """Both pages' budget fields say what the budget stands for in one shared sentence (ZeRO's buffers and DDP's
    buckets named on both: technical review, round 34), and only the accumulation page, whose field may be left
    blank, says so, after what its single-pass figures assume (technical review, round 74)."""
    parsed, translations = Locale.parse(locale), load_translations(localedir, locale)
    planner = next(i for i in CALCULATOR.inputs if i.name == "memory_budget").hint(parsed, translations)
    accumulating = next(i for i in accumulation.CALCULATOR.inputs if i.name == "memory_budget")
    shared = translations.gettext(
        "Memory left on each GPU for what grows with the micro-batch, after the weights, gradients, optimizer state, "
        "overhead, and any ZeRO buffers or DistributedDataParallel buckets. The per-GPU training memory calculator "
        "gives it as “Left for the micro-batch on your GPU”."
    )
    blank = translations.gettext("The chart draws the budget as a line. Leave it blank if you have none in mind.")
    assert planner.startswith(shared) and blank not in planner
    single = translations.gettext(
        "When that calculator's target batch needs accumulation, its figure also sets aside the accumulated "
        "gradients. A single pass holds none, so comparing a single pass with that budget here errs slightly on the "
        "safe side."
    )
    assert accumulating.hint(parsed, translations).startswith(f"{shared} {single} {blank}")
