"""Measure the peak memory of whole training steps with PyTorch; run by tools/validate.py inside .venv-validate.

A training step is what a trainer runs for one micro-batch: forward with
the loss as transformers computes it (``model(input_ids, labels=input_ids,
use_cache=False).loss``, the output object dropped, as the Trainer's
``compute_loss`` drops it), backward, the optimizer's step and
``zero_grad(set_to_none=True)``. For each point a small random model (from a
config object, nothing downloaded) takes one warm-up step, so that the
optimizer's state exists, then one step under
``torch.profiler.profile(profile_memory=True)``.

On a CPU the allocator is plain malloc (no cache), and while memory is
profiled it keeps a running total of the bytes allocated since profiling
began and not yet freed (c10/core/CPUAllocator.cpp,
ProfiledCPUMemoryReporter): every ``[memory]`` event of the exported Chrome
trace carries it as "Total Allocated". The step's peak is the largest total
of the step, less the total before it, plus the bytes live when the step
starts: the distinct storages of the parameters, the buffers and the
optimizer's state. Each ``[memory]`` event falls in one phase of the step
(``record_function`` ranges: forward, backward, optimizer), so the peak of
each phase is recorded too. On a CUDA device ``torch.cuda.max_memory_allocated``
gives the same figure directly (``_cuda_peak``; not run here).

The optimizers are built with ``foreach=True``: that is PyTorch's default on
CUDA (torch/optim/optimizer.py, _default_to_fused_or_foreach), whose
temporaries the estimate models; on a CPU the default is the per-tensor loop.

Usage: measure_steps.py [OUTPUT.json]   (default validation/steps.json)
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
import os
import sys
import tempfile
import time
import warnings
from fractions import Fraction
from pathlib import Path

import peft
import torch
import transformers
from peft import LoraConfig, get_peft_model

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]

from measure_activations import MODELS, build, dumps, recomputing, tokens  # noqa: E402

from calc.formulas.parameters import target_modules  # noqa: E402
from calc.formulas.step import Setting, step_peak  # noqa: E402

OUTPUT = ROOT / "validation" / "steps.json"
# calc.formulas.step's recipes as PyTorch runs them: the model's dtype, autocast, the optimizer.
RECIPES = {
    "adamw-bf16": (torch.bfloat16, False, "adamw"),
    "adam-fp32": (torch.float32, False, "adamw"),
    "sgd-fp32": (torch.float32, False, "sgd"),
    "autocast-bf16": (torch.float32, True, "adamw"),
    "autocast-sgd-bf16": (torch.float32, True, "sgd"),
}
LORA = {"rank": 8, "targets": ("q_proj", "v_proj", "down_proj")}
# The models without those modules, and what they are trained on instead: Phi-3's fused qkv_proj.
LORA_TARGETS = {"test/phi3-gqa": ("qkv_proj", "down_proj")}
RECOMPUTATIONS = ("none", "selective", "full")
# Each model's grid: (methods, recipes, attentions, recomputations, sequence lengths); micro-batches are BATCHES.
GRID = {
    "test/llama-gqa": [
        (("full",), tuple(RECIPES), ("eager", "flash"), RECOMPUTATIONS, (64, 128)),
        (("lora",), ("adamw-bf16", "adam-fp32", "sgd-fp32"), ("eager", "flash"), RECOMPUTATIONS, (128,)),
    ],
    # A vocabulary of 32000 tied to the embeddings: the loss and the tied gradient dominate.
    "test/qwen2-biases-tied": [
        (("full", "lora"), ("adamw-bf16", "sgd-fp32"), ("flash",), ("none", "full"), (64,)),
    ],
    # Four norms a layer, softcapped scores and logits, float32 norm outputs; eager only (no SDPA in Gemma-2).
    "test/gemma2-tied": [
        (("full", "lora"), ("adamw-bf16",), ("eager",), RECOMPUTATIONS, (64,)),
    ],
    # A mixture of experts: every expert's weights, gradients and state; two experts' tensors a token. LoRA adapts
    # its attention (it has no down_proj module).
    "test/mixtral-moe": [
        (("full", "lora"), ("adamw-bf16", "sgd-fp32"), ("flash",), RECOMPUTATIONS, (128,)),
    ],
    # Routing weights in the model's dtype, four of sixteen experts a token, and q_norm and k_norm on every head.
    "test/qwen3-moe": [
        (("full", "lora"), ("adamw-bf16",), ("eager", "flash"), ("none", "full"), (128,)),
    ],
    # Qwen3's q_norm and k_norm, tied.
    "test/qwen3-gqa-tied": [
        (("full", "lora"), ("adamw-bf16",), ("eager", "flash"), ("none", "full"), (64,)),
    ],
    # Phi-3's fused qkv_proj and gate_up_proj, and the views of them that attention keeps.
    "test/phi3-gqa": [
        (("full", "lora"), ("adamw-bf16",), ("eager", "flash"), ("none", "full"), (64,)),
    ],
    # Gemma-3: Gemma-2's four float32 norms with q_norm and k_norm, no softcapping, SDPA, two eager masks.
    "test/gemma3-mqa-tied": [
        (("full", "lora"), ("adamw-bf16",), ("eager", "flash"), ("none", "full"), (64,)),
    ],
}
BATCHES = (1, 2, 4)
SEED = 0


def targets(key: str) -> tuple[str, ...]:
    """The model's own targets where it has them (LORA_TARGETS), else LORA's that it has (a mixture of experts has no
    down_proj module)."""
    if key in LORA_TARGETS:
        return LORA_TARGETS[key]
    return tuple(name for name in LORA["targets"] if name in target_modules(MODELS[key]))


def optimizer_for(model: torch.nn.Module, kind: str) -> torch.optim.Optimizer:
    trainable = [p for p in model.parameters() if p.requires_grad]
    if kind == "sgd":
        return torch.optim.SGD(trainable, lr=1e-3, momentum=0.9, foreach=True)
    return torch.optim.AdamW(trainable, lr=1e-3, foreach=True)


def live_bytes(model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> int:
    """The distinct storages of the parameters, the buffers and the optimizer's state."""
    storages = {}
    tensors = [*model.parameters(), *model.buffers()]
    tensors += [t for state in optimizer.state.values() for t in state.values() if torch.is_tensor(t)]
    for tensor in tensors:
        storage = tensor.untyped_storage()
        storages[storage.data_ptr()] = storage.nbytes()
    return sum(storages.values())


def train_step(model, optimizer, input_ids: torch.Tensor, autocast: bool, phase=contextlib.nullcontext) -> None:
    with phase("forward"):
        with torch.autocast("cpu", dtype=torch.bfloat16) if autocast else contextlib.nullcontext():
            loss = model(input_ids, labels=input_ids, use_cache=False).loss
    with phase("backward"):
        loss.backward()
        del loss
    with phase("optimizer"):
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


def _cuda_peak(model, optimizer, input_ids, autocast: bool) -> int:
    """The same measurement on a CUDA device: the caching allocator's own peak (not run on a CPU)."""
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    train_step(model, optimizer, input_ids, autocast)
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated()


def profiled_peak(model, optimizer, input_ids: torch.Tensor, autocast: bool) -> dict:
    """The step's peak, in all and by phase, from the profiler's running total of live bytes."""
    start = live_bytes(model, optimizer)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], profile_memory=True) as profiler:
        torch.empty(1, dtype=torch.uint8)  # a first event: the running total before the step, plus this byte
        train_step(model, optimizer, input_ids, autocast, torch.profiler.record_function)
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "trace.json")
        profiler.export_chrome_trace(path)
        with open(path, encoding="utf-8") as file:
            events = json.load(file)["traceEvents"]
    memory = sorted((e for e in events if e.get("name") == "[memory]"), key=lambda e: e["ts"])
    before = memory[0]["args"]["Total Allocated"] - memory[0]["args"]["Bytes"]
    phases = {
        e["name"]: (e["ts"], e["ts"] + e["dur"])
        for e in events
        if e.get("ph") == "X" and e.get("name") in ("forward", "backward", "optimizer")
    }
    peaks = dict.fromkeys(phases, 0)
    for event in memory[1:]:
        for name, (begin, end) in phases.items():
            if begin <= event["ts"] <= end:
                peaks[name] = max(peaks[name], event["args"]["Total Allocated"] - before)
    return {"start": start, "peak": start + max(peaks.values()), **{n: start + v for n, v in peaks.items()}}


def prepare(key: str, recipe: str, attention: str, method: str):
    dtype, _, kind = RECIPES[recipe]
    model = build(MODELS[key], "fp32", attention).to(dtype)
    if method == "lora":
        torch.manual_seed(SEED)
        config = LoraConfig(r=LORA["rank"], target_modules=list(targets(key)), lora_dropout=0.0)
        model = get_peft_model(model, config)
        # As gradient checkpointing and prepare_model_for_kbit_training leave it: the embeddings' output requires
        # gradients, so the first layer saves what the others do (calc.formulas.step, _lora_terms).
        model.get_base_model().enable_input_require_grads()
    model.train()
    return model, optimizer_for(model, kind)


def measure_point(model, optimizer, key: str, setting: dict, batch: int) -> dict:
    shape = MODELS[key]
    autocast = RECIPES[setting["recipe"]][1]
    input_ids = tokens(shape, batch, setting["sequence_length"])
    base = model.get_base_model() if setting["method"] == "lora" else model
    with recomputing(base, setting["recomputation"], setting["attention"]):
        measured = profiled_peak(model, optimizer, input_ids, autocast)
    estimate = step_peak(shape, Setting(**setting), batch)
    return {
        "model": key,
        **setting,
        "micro_batch": batch,
        "measured_start_bytes": measured["start"],
        "measured_peak_bytes": measured["peak"],
        "measured_phase_peaks": {n: measured[n] for n in ("forward", "backward", "optimizer")},
        "estimated_peak_bytes": int(estimate.total),
        "estimated_moment": estimate.moment,
        "relative_error": round(float((estimate.total - measured["peak"]) / Fraction(measured["peak"])), 6),
    }


def models():
    """Each model to build, with the settings to measure on it."""
    for key, blocks in GRID.items():
        for methods, recipes, attentions, recomputations, lengths in blocks:
            for method, recipe, attention in itertools.product(methods, recipes, attentions):
                lora = {"lora_rank": LORA["rank"], "lora_targets": list(targets(key))} if method == "lora" else {}
                yield (
                    key,
                    [
                        {
                            "method": method,
                            "recipe": recipe,
                            "attention": attention,
                            "recomputation": r,
                            "sequence_length": s,
                            **lora,
                        }
                        for r, s in itertools.product(recomputations, lengths)
                    ],
                )


def main(output: Path) -> None:
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
    torch.set_num_threads(1)
    started = time.monotonic()
    points = []
    for key, settings in models():
        first = settings[0]
        model, optimizer = prepare(key, first["recipe"], first["attention"], first["method"])
        # A warm-up step: the optimizer's state exists from here on, as in every step but a run's first.
        train_step(model, optimizer, tokens(MODELS[key], 1, first["sequence_length"]), RECIPES[first["recipe"]][1])
        for setting in settings:
            errors = [measure_point(model, optimizer, key, setting, batch) for batch in BATCHES]
            points += errors
            print(f"  {key} {setting}: {[p['relative_error'] for p in errors]}", flush=True)
    report = {
        "lora": {"rank": LORA["rank"], "targets": list(LORA["targets"])},
        "batches": list(BATCHES),
        "models": {key: dataclasses.asdict(MODELS[key]) for key in GRID},
        "points": points,
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__, "peft": peft.__version__},
    }
    output.write_text(dumps(report), encoding="utf-8")
    print(f"  {len(points)} steps in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUTPUT)
