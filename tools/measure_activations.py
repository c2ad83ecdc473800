"""Measure activation memory with PyTorch and transformers themselves; run by tools/validate.py inside .venv-validate.

What is measured is what autograd keeps for the backward pass. Every tensor
autograd saves goes through a ``torch.autograd.graph.saved_tensors_hooks``
pair that wraps it in a small holder: made when the tensor is saved, dropped
when autograd lets it go (after its node's backward has run). The live saved
bytes, at any moment, are the bytes of the distinct storages the holders
reference: each storage once, by its ``data_ptr``, whatever number of views
of it are saved, and never a parameter's storage (a linear layer saves its
weight; that is the model, not an activation). Nothing else is counted:
gradients, optimizer state, the logits the output object holds, temporaries.

Gradient checkpointing (``gradient_checkpointing_enable()``, which uses
``torch.utils.checkpoint`` without reentrancy) saves each layer's input
through our hooks and, inside the layer, only placeholders. In backward it
recomputes the layer and keeps what it recomputed until backward has used
it; those tensors never pass through our hooks, so the recomputation's own
hook (torch/utils/checkpoint.py, ``_recomputation_hook``, private to the
pinned torch) is wrapped to count them too, from recomputed to used. The
selective recomputation of Korthikanti et al. 2022, §5 (only the attention
core recomputed) is measured the same way: the model's own attention
function, run under ``torch.utils.checkpoint`` (``selective``, below).

For each point, a small random model (built from a config object, nothing
downloaded) runs forward, ``model(input_ids, labels=input_ids,
use_cache=False)`` with the loss as transformers computes it, and backward.
Recorded are the live saved bytes at three moments: when the forward ends;
the most held once backward has recomputed a checkpointed layer (or
attention core) and used none of it yet; and the peak over forward and
backward, in total and by the part of the model that saved them (the module
running when the storage was first saved). Per sample is the slope between
micro-batches of 2 and 4 samples: a batch of 1 is avoided because
ForCausalLMLoss's shifted labels are then a view of the padded labels
(s + 1 values) instead of a copy (s values).

The accumulation cycle: ``a`` micro-batches of ``b`` samples, each forward
and backward with its loss divided by ``a`` (gradients add up in ``.grad``),
then one optimizer step; recorded is the peak of live saved bytes over the
whole cycle.

Usage: measure_activations.py OUTPUT.json
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
import sys
import time
import warnings
import weakref
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import torch
import torch.utils.checkpoint as torch_checkpoint
import transformers
from transformers import AutoModelForCausalLM
from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]

from measure_parameters import transformers_config  # noqa: E402  (tools/, found through sys.path)

from calc.formulas.activations import (  # noqa: E402
    FAMILIES,
    PARTS,
    activation_breakdown,
    activation_bytes,
    forward_breakdown,
    recomputation_breakdown,
)
from calc.models import ModelShape  # noqa: E402

_TEST_SHAPE = "tools/measure_activations.py: a small test shape"
# Small enough to run in a couple of minutes on two cores, shaped so that no term hides behind another: a vocabulary
# of a few thousand tokens keeps the layers visible next to the logits, and one model has a large one.
MODELS = {
    "test/llama-mha": ModelShape(
        model_type="llama",
        layers=2,
        hidden_size=128,
        attention_heads=4,
        kv_heads=4,  # no grouped-query attention
        head_dim=32,
        intermediate_size=352,
        vocab_size=2048,
        tie_word_embeddings=False,
        qkv_bias=False,
        o_bias=False,
        mlp_bias=False,
        norms_per_layer=2,
        source=_TEST_SHAPE,
    ),
    "test/llama-gqa": ModelShape(
        model_type="llama",
        layers=3,
        hidden_size=128,
        attention_heads=8,
        kv_heads=2,  # four query heads share each key and value head
        head_dim=16,
        intermediate_size=320,
        vocab_size=1024,
        tie_word_embeddings=False,
        qkv_bias=False,
        o_bias=False,
        mlp_bias=False,
        norms_per_layer=2,
        source=_TEST_SHAPE,
    ),
    "test/mistral-mqa-wide-heads": ModelShape(
        model_type="mistral",
        layers=2,
        hidden_size=128,
        attention_heads=4,
        kv_heads=1,  # one key and value head for all
        head_dim=64,  # queries 256 wide, twice the hidden size
        intermediate_size=256,
        vocab_size=4096,
        tie_word_embeddings=False,
        qkv_bias=False,
        o_bias=False,
        mlp_bias=False,
        norms_per_layer=2,
        source=_TEST_SHAPE,
    ),
    "test/qwen2-biases-tied": ModelShape(
        model_type="qwen2",
        layers=2,
        hidden_size=192,
        attention_heads=6,
        kv_heads=2,
        head_dim=32,
        intermediate_size=512,
        vocab_size=32000,  # the logits outweigh the layers, as in real models
        tie_word_embeddings=True,
        qkv_bias=True,  # Qwen2's biases on q, k and v
        o_bias=False,
        mlp_bias=False,
        norms_per_layer=2,
        source=_TEST_SHAPE,
    ),
    "test/gemma2-tied": ModelShape(
        model_type="gemma2",
        layers=4,  # sliding and global attention alternate
        hidden_size=128,
        attention_heads=4,
        kv_heads=2,
        head_dim=48,  # not 128 // 4
        intermediate_size=384,
        vocab_size=3000,
        tie_word_embeddings=True,
        qkv_bias=False,
        o_bias=False,
        mlp_bias=False,
        norms_per_layer=4,
        source=_TEST_SHAPE,
    ),
    "test/mixtral-moe": ModelShape(
        model_type="mixtral",
        layers=2,
        hidden_size=128,
        attention_heads=4,
        kv_heads=2,
        head_dim=32,
        intermediate_size=224,  # Mixtral's experts are intermediate_size wide
        vocab_size=256,  # a small vocabulary: the experts' backward, not the loss, holds the step's peak
        tie_word_embeddings=False,
        qkv_bias=False,
        o_bias=False,
        mlp_bias=False,
        norms_per_layer=2,
        source=_TEST_SHAPE,
        experts=8,
        experts_per_token=2,  # each token's two experts: twice a dense MLP's tensors, and the router's
        expert_intermediate_size=224,
    ),
    "test/qwen3-moe": ModelShape(
        model_type="qwen3_moe",
        layers=2,
        hidden_size=128,
        attention_heads=4,
        kv_heads=2,
        head_dim=48,  # not 128 // 4, as Qwen3-30B-A3B's 128 is not 2048 // 32
        intermediate_size=320,  # a dense MLP's, which no layer has
        vocab_size=512,
        tie_word_embeddings=False,
        qkv_bias=False,
        o_bias=False,
        mlp_bias=False,
        norms_per_layer=2,
        source=_TEST_SHAPE,
        qk_norm=True,  # q_norm and k_norm on every head
        experts=16,
        experts_per_token=4,  # routing weights in the model's dtype, renormalized (norm_topk_prob)
        expert_intermediate_size=64,
    ),
    "test/qwen3-gqa-tied": ModelShape(
        model_type="qwen3",
        layers=2,
        hidden_size=128,
        attention_heads=4,
        kv_heads=2,
        head_dim=48,  # Qwen3's head_dim is its own, not 128 // 4
        intermediate_size=320,
        vocab_size=4000,
        tie_word_embeddings=True,  # as Qwen3 up to 4B
        qkv_bias=False,
        o_bias=False,
        mlp_bias=False,
        norms_per_layer=2,
        source=_TEST_SHAPE,
        qk_norm=True,  # q_norm and k_norm over head_dim
    ),
    "test/phi3-gqa": ModelShape(
        model_type="phi3",
        layers=2,
        hidden_size=128,
        attention_heads=4,
        kv_heads=2,  # q, k and v of unequal widths in the one qkv_proj
        head_dim=32,
        intermediate_size=320,
        vocab_size=32064,  # Phi3Config's pad_token_id, 32000, must be a token of the vocabulary
        tie_word_embeddings=False,
        qkv_bias=False,
        o_bias=False,
        mlp_bias=False,
        norms_per_layer=2,
        source=_TEST_SHAPE,
        fused_projections=True,  # qkv_proj and gate_up_proj
    ),
    "test/gemma3-mqa-tied": ModelShape(
        model_type="gemma3_text",
        layers=6,  # Gemma3TextConfig's pattern: five sliding layers, then a global one
        hidden_size=128,
        attention_heads=4,
        kv_heads=1,  # as Gemma-3-1B
        head_dim=48,  # not 128 // 4
        intermediate_size=256,
        vocab_size=6000,  # the end of the forward pass holds the most at every length: no near tie of the moments
        tie_word_embeddings=True,
        qkv_bias=False,
        o_bias=False,
        mlp_bias=False,
        norms_per_layer=4,
        source=_TEST_SHAPE,
        qk_norm=True,  # q_norm and k_norm, float32 as its other norms
    ),
}
SEQUENCE_LENGTHS = (64, 128, 256)
PRECISIONS = {"fp32": torch.float32, "bf16": torch.bfloat16}
# calc.formulas.activations' attention kinds and transformers' implementations of them on a CPU.
ATTENTIONS = {"eager": "eager", "flash": "sdpa"}
RECOMPUTATIONS = ("none", "selective", "full")
BATCHES = (2, 4)
# The accumulation cycle's grid and model.
ACCUMULATION = {
    "model": "test/llama-gqa",
    "sequence_length": 128,
    "precision": "bf16",
    "attention": "flash",
    "recomputation": "none",
}
MICRO_BATCHES = (1, 2, 4)
ACCUMULATION_STEPS = (1, 2, 4)
SEED = 0


class Ledger:
    """The live saved bytes: each storage counted once while any holder references it."""

    def __init__(self, excluded: set[int]) -> None:
        self.excluded = excluded
        self.storages: dict[int, list] = {}  # data_ptr: [holders, nbytes, part]
        self.parts = dict.fromkeys(PARTS, 0)
        self.live = 0
        self.peak = 0
        self.peak_parts = dict(self.parts)
        # The most held once backward has recomputed a checkpointed part, before using any of it.
        self.recomputed = 0
        self.labels = ["outside"]

    def hold(self, tensor: torch.Tensor, owner: object) -> None:
        """Count ``tensor``'s storage until ``owner`` is garbage."""
        storage = tensor.untyped_storage()
        key = storage.data_ptr()
        if key in self.excluded or storage.nbytes() == 0:
            return
        entry = self.storages.get(key)
        if entry is None:
            entry = self.storages[key] = [0, storage.nbytes(), self.labels[-1]]
            self.parts[entry[2]] += entry[1]
            self.live += entry[1]
            if self.live > self.peak:
                self.peak = self.live
                self.peak_parts = dict(self.parts)
        entry[0] += 1
        weakref.finalize(owner, self._release, key)

    def recomputation_done(self) -> None:
        self.recomputed = max(self.recomputed, self.live)

    def _release(self, key: int) -> None:
        entry = self.storages[key]
        entry[0] -= 1
        if not entry[0]:
            del self.storages[key]
            self.parts[entry[2]] -= entry[1]
            self.live -= entry[1]

    # Module hooks: a hook's value would replace the module's output, so these return None.
    def enter(self, part: str) -> None:
        self.labels.append(part)

    def leave(self) -> None:
        self.labels.pop()

    @contextlib.contextmanager
    def labelled(self, part: str) -> Iterator[None]:
        self.enter(part)
        try:
            yield
        finally:
            self.leave()


class _Saved:
    """What autograd keeps instead of a saved tensor: the tensor, and a lifetime the ledger watches."""

    __slots__ = ("tensor", "__weakref__")

    def __init__(self, tensor: torch.Tensor) -> None:
        self.tensor = tensor


LEDGER: Ledger | None = None


def _pack(tensor: torch.Tensor) -> _Saved:
    saved = _Saved(tensor)
    LEDGER.hold(tensor, saved)
    return saved


def _unpack(saved: _Saved) -> torch.Tensor:
    return saved.tensor


class _CountedRecomputation(torch_checkpoint._recomputation_hook):
    """The checkpoint's recomputation hook, also counting what it keeps until backward uses it.

    It files each recomputed tensor under a fresh ``_Handle`` that the
    placeholder saved in forward points to; unpacking drops the handle
    (torch/utils/checkpoint.py, _checkpoint_hook.unpack_hook), so the tensor
    is counted for as long as that handle lives.
    """

    def __init__(self, target_frame_ref: weakref.ReferenceType, gid: object) -> None:
        super().__init__(target_frame_ref, gid)
        pack = self.pack_hook

        def counted(tensor: torch.Tensor) -> torch.Tensor:
            frame = target_frame_ref()
            index = frame.recomp_counter[gid]
            try:
                return pack(tensor)  # raises to stop early once the last saved tensor is back
            finally:
                holder = frame.weak_holders[index]() if index < len(frame.weak_holders) else None
                handle = None if holder is None else holder.handles.get(gid)
                if handle is not None and LEDGER is not None:
                    LEDGER.hold(tensor, handle)
                    if frame.recomp_counter[gid] == len(frame.weak_holders):  # the last one it needed
                        LEDGER.recomputation_done()

        self.pack_hook = counted


@contextlib.contextmanager
def counting(model: torch.nn.Module) -> Iterator[Ledger]:
    """Count saved bytes inside this block, labelled by the part of ``model`` saving them."""
    global LEDGER
    ledger = Ledger({p.untyped_storage().data_ptr() for p in model.parameters()})
    handles = []
    for name, module in model.named_modules():
        part = _part(name, module)
        if part is not None:
            handles.append(module.register_forward_pre_hook(lambda *_, part=part: ledger.enter(part)))
            handles.append(module.register_forward_hook(lambda *_: ledger.leave(), always_call=True))
    original = torch_checkpoint._recomputation_hook
    torch_checkpoint._recomputation_hook = _CountedRecomputation
    LEDGER = ledger
    try:
        with torch.autograd.graph.saved_tensors_hooks(_pack, _unpack):
            yield ledger
    finally:
        LEDGER = None
        torch_checkpoint._recomputation_hook = original
        for handle in handles:
            handle.remove()


def _part(name: str, module: torch.nn.Module) -> str | None:
    """The part of calc.formulas.activations' breakdown that a module's saved tensors belong to."""
    if name == "":
        return "logits"  # the causal-LM head's own code: softcapping, ForCausalLMLoss
    if name == "model":
        return "outside"  # rotary tables, masks, the checkpoints' saved layer inputs
    leaf = name.rsplit(".", 1)[-1]
    if leaf == "embed_tokens":
        return "outside"
    if type(module).__name__.endswith("RMSNorm"):
        return "norms"
    if leaf == "self_attn":
        return "attention"
    if leaf == "mlp":
        return "mlp"
    if leaf == "lm_head":
        return "logits"
    return None


@contextlib.contextmanager
def selective(model: torch.nn.Module, implementation: str) -> Iterator[None]:
    """Recompute only the attention core (Korthikanti et al. 2022, §5), as ``full`` recomputes a layer.

    The model's own attention function (its module's ``eager_attention_forward``
    or transformers' ``sdpa_attention_forward``) runs under
    ``torch.utils.checkpoint``, which keeps its inputs (queries, keys and values
    after the rotary embedding) and recomputes the rest in backward.
    """
    default = sys.modules[type(model).__module__].eager_attention_forward
    core = ALL_ATTENTION_FUNCTIONS.get_interface(implementation, default)

    def attention(module, query, key, value, attention_mask, **kwargs):
        def run(query, key, value):
            with LEDGER.labelled("attention") if LEDGER is not None else contextlib.nullcontext():
                return core(module, query, key, value, attention_mask, **kwargs)[0]

        return torch_checkpoint.checkpoint(run, query, key, value, use_reentrant=False), None

    ALL_ATTENTION_FUNCTIONS[implementation] = attention  # a local override, removed below
    try:
        yield
    finally:
        del ALL_ATTENTION_FUNCTIONS[implementation]


def build(shape: ModelShape, precision: str, attention: str) -> transformers.PreTrainedModel:
    torch.manual_seed(SEED)
    config = transformers_config(shape)
    model = AutoModelForCausalLM.from_config(config, attn_implementation=ATTENTIONS[attention])
    return model.to(PRECISIONS[precision]).train()


@contextlib.contextmanager
def recomputing(model: transformers.PreTrainedModel, recomputation: str, attention: str) -> Iterator[None]:
    if recomputation == "full":
        model.gradient_checkpointing_enable()
        try:
            yield
        finally:
            model.gradient_checkpointing_disable()
    elif recomputation == "selective":
        with selective(model, ATTENTIONS[attention]):
            yield
    else:
        yield


def tokens(shape: ModelShape, batch: int, sequence_length: int) -> torch.Tensor:
    generator = torch.Generator().manual_seed(SEED)
    return torch.randint(0, shape.vocab_size, (batch, sequence_length), generator=generator)


def step(model: transformers.PreTrainedModel, shape: ModelShape, batch: int, sequence_length: int) -> dict:
    """One forward and backward: the live saved bytes when the forward ends, after recomputation, at their peak."""
    input_ids = tokens(shape, batch, sequence_length)
    with counting(model) as ledger:
        # use_cache=False, as training runs: otherwise transformers fills a DynamicCache with every layer's keys
        # and values (kept by the output, not by autograd; it changes which saved tensors are views of which).
        loss = model(input_ids, labels=input_ids, use_cache=False).loss
        forward = ledger.live
        loss.backward()
        del loss
        left = ledger.live
    model.zero_grad(set_to_none=True)
    if left:
        raise AssertionError(f"{left} saved bytes still held after backward")
    return {
        "forward": forward,
        "recomputation": ledger.recomputed,
        "peak": ledger.peak,
        "peak_parts": ledger.peak_parts,
    }


def per_sample(small: int, large: int) -> int | str:
    """The slope between the two micro-batches."""
    return _number(Fraction(large - small, BATCHES[1] - BATCHES[0]))


def _number(value: Fraction) -> int | str:
    """A whole number as itself, any other fraction as its exact text (JSON has no fractions)."""
    return value.numerator if value.denominator == 1 else str(value)


def relative_error(estimated: Fraction, measured: int | str) -> float:
    return round(float((estimated - Fraction(measured)) / Fraction(measured)), 6)


def measure_point(model: transformers.PreTrainedModel, key: str, setting: dict) -> dict:
    """One point: the peak per sample (the headline), and the two moments that can hold it.

    ``setting`` holds calc.formulas.activations' arguments but the shape: sequence_length, precision,
    attention, recomputation.
    """
    shape = MODELS[key]
    with recomputing(model, setting["recomputation"], setting["attention"]):
        runs = [step(model, shape, batch, setting["sequence_length"]) for batch in BATCHES]
    estimated = activation_breakdown(shape, **setting)
    point = {
        "model": key,
        "config": config_of(shape),
        **setting,
        "attn_implementation": ATTENTIONS[setting["attention"]],
        "gradient_checkpointing": setting["recomputation"] == "full",
        "measured_bytes_per_sample": per_sample(runs[0]["peak"], runs[1]["peak"]),
        "estimated_bytes_per_sample": _number(sum(estimated.values())),
        "measured_parts": {p: per_sample(runs[0]["peak_parts"][p], runs[1]["peak_parts"][p]) for p in PARTS},
        "estimated_parts": {p: _number(estimated[p]) for p in PARTS},
        "measured_peak_bytes": {str(b): run["peak"] for b, run in zip(BATCHES, runs, strict=True)},
    }
    point["relative_error"] = relative_error(sum(estimated.values()), point["measured_bytes_per_sample"])
    for moment, breakdown in (("forward", forward_breakdown), ("recomputation", recomputation_breakdown)):
        point[f"measured_{moment}_bytes_per_sample"] = per_sample(runs[0][moment], runs[1][moment])
        point[f"estimated_{moment}_bytes_per_sample"] = _number(sum(breakdown(shape, **setting).values()))
    return point


def config_of(shape: ModelShape) -> dict:
    return {
        "family": shape.model_type,
        "layers": shape.layers,
        "hidden": shape.hidden_size,
        "heads": shape.attention_heads,
        "kv_heads": shape.kv_heads,
        "intermediate": shape.intermediate_size,
        "vocab": shape.vocab_size,
        "head_dim": shape.head_dim,
    }


def supported(shape: ModelShape, attention: str) -> bool:
    # transformers refuses SDPA for some architectures (Gemma-2 cannot softcap the scores with it).
    return attention != "flash" or FAMILIES[shape.model_type].sdpa


def accumulation_cycle(model: transformers.PreTrainedModel, micro_batch: int, steps: int) -> dict:
    """The peak of live saved bytes over ``steps`` micro-batches and one optimizer step."""
    shape = MODELS[ACCUMULATION["model"]]
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    with counting(model) as ledger:
        for index in range(steps):
            input_ids = (tokens(shape, micro_batch, ACCUMULATION["sequence_length"]) + index) % shape.vocab_size
            loss = model(input_ids, labels=input_ids, use_cache=False).loss
            (loss / steps).backward()  # the gradients add up in .grad; the saved tensors are released
            del loss
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if ledger.live:
            raise AssertionError(f"{ledger.live} saved bytes outlived the accumulation cycle")
    return {"micro_batch": micro_batch, "accumulation_steps": steps, "peak_saved_bytes": ledger.peak}


def dumps(report: dict) -> str:
    """The report as JSON, keys sorted, one line per point: a point that changes is a line that changes."""
    points = report["points"]
    text = json.dumps({**report, "points": [f"@{i}@" for i in range(len(points))]}, indent=1, sort_keys=True)
    for index, point in enumerate(points):
        text = text.replace(f'"@{index}@"', json.dumps(point, sort_keys=True), 1)
    return text + "\n"


def main(output: Path) -> None:
    # Deprecation notices from transformers' own calls are no part of the measurement.
    warnings.filterwarnings("ignore", category=FutureWarning)
    started = time.monotonic()
    points = []
    for key, shape in MODELS.items():
        for precision, attention in itertools.product(PRECISIONS, ATTENTIONS):
            if not supported(shape, attention):
                continue
            model = build(shape, precision, attention)
            for sequence_length, recomputation in itertools.product(SEQUENCE_LENGTHS, RECOMPUTATIONS):
                setting = {
                    "sequence_length": sequence_length,
                    "precision": precision,
                    "attention": attention,
                    "recomputation": recomputation,
                }
                points.append(measure_point(model, key, setting))
            print(f"  measured {key}, {precision}, {ATTENTIONS[attention]}", flush=True)
    setting = {key: ACCUMULATION[key] for key in ("sequence_length", "precision", "attention", "recomputation")}
    model = build(MODELS[ACCUMULATION["model"]], ACCUMULATION["precision"], ACCUMULATION["attention"])
    cycles = [accumulation_cycle(model, b, a) for b, a in itertools.product(MICRO_BATCHES, ACCUMULATION_STEPS)]
    report = {
        "accumulation": {
            **ACCUMULATION,
            "config": config_of(MODELS[ACCUMULATION["model"]]),
            "estimated_bytes_per_sample": _number(activation_bytes(MODELS[ACCUMULATION["model"]], **setting)),
            "cycles": cycles,
        },
        "batches": list(BATCHES),
        "models": {key: dataclasses.asdict(shape) for key, shape in MODELS.items()},
        "points": points,
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__},
    }
    output.write_text(dumps(report), encoding="utf-8")
    print(f"  {len(points)} points and {len(cycles)} accumulation cycles in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.rsplit("Usage: ", 1)[1])
    main(Path(sys.argv[1]))
