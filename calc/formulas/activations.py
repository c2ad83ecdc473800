"""Activation memory per sample: the bytes autograd keeps for the backward pass, from a model's shape.

The start is Korthikanti et al. 2022, "Reducing Activation Recomputation in
Large Transformer Models": a GPT layer keeps ``sbh(34 + 5as/h)`` bytes with
16-bit activations and 1-byte dropout masks (§4.1, Eq. 1); ``34sbh`` when the
attention core is recomputed (selective recomputation, §5); the layer's
input alone, ``2sbh``, when the whole layer is (full recomputation, §5).
Today's decoders, as transformers' reference code runs them, keep other
tensors, so each term below is one tensor that code saves, of the size and
type it has there, with its source beside it. What changes most:

- an RMSNorm keeps its input upcast to float32, a float per token and its
  normalized output, where a LayerNorm kept its 16-bit input;
- the gated MLP keeps four tensors of the intermediate width;
- eager attention keeps its probabilities in float32 (the softmax is upcast)
  and again in the model's dtype, the keys and values copied out to every
  query head (``repeat_kv``), and no dropout mask (``attention_dropout`` is
  0); flash attention (SDPA, flash-attn) keeps no s×s tensor, and the keys
  and values only ``kv_heads`` wide;
- the loss keeps the log-probabilities in float32, ``4·s·V`` bytes (the
  ``4sbv`` of Korthikanti §4.3): at vocabularies of 128k–256k, the largest
  single tensor;
- a mixture of experts (Mixtral, Qwen3-MoE) keeps its router's float32
  probabilities and, for each token, the tensors of its ``k`` experts: the
  ``s·k`` routed copies of the tokens pass through the gated MLPs of the
  experts they were sent to, however the router spreads them, so the bytes
  depend on the routing through ``s·k`` alone (:func:`routed_tensors`).

Two moments can hold the most: the end of the forward pass, and, with
recomputation, the moment backward has recomputed the last layer (or its
attention core) and not yet used any of it. ``make validate`` measures both
with PyTorch (``tools/measure_activations.py``, ``validation/activations.json``)
and ``tests/test_activations.py`` holds this module to every measured point.

Every value is exact (an int or a Fraction), in bytes, per sample: one
sequence of ``sequence_length`` tokens. ``precision`` is the model's dtype,
which is the activations' (``bf16``, ``fp16``, ``fp32``). Not modeled:
autocast over a float32 model; dropout; a padding mask, or a sliding window
no longer than the sequence, with SDPA (transformers then expands the keys
and values with ``repeat_kv``); fused losses that never keep the
log-probabilities; the few tensors a batch of one sample can alias; a
mixture's experts run otherwise than by transformers' default
``experts_implementation``, ``grouped_mm`` (the ``eager`` loop over the
experts keeps per-expert index tensors that do depend on the routing), and
its router's auxiliary loss (``output_router_logits``, off in the configs).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from calc.models import ARCHITECTURES, ModelShape

# Bytes per value of each precision (the model's dtype: its weights' and its activations').
PRECISION_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4}
FLOAT32_BYTES = 4  # what the reference code upcasts to: RMSNorm, the eager softmax, the loss
INDEX_BYTES = 8  # token ids and labels are int64 (torch.long)

ATTENTIONS = ("eager", "flash")
RECOMPUTATIONS = ("none", "selective", "full")
# The breakdown's parts, in the order they are shown.
PARTS = ("attention", "mlp", "norms", "logits", "outside")


# The architectures this estimate models, by transformers' model_type, with what their reference code does that
# changes what it saves (calc.models.ARCHITECTURES).
FAMILIES = {name: a.activations for name, a in ARCHITECTURES.items() if a.activations is not None}


@dataclass(frozen=True)
class SavedTensors:
    """Every tensor kept, in bytes per sample: one decoder layer's, and the model's around them."""

    norm: int  # one RMSNorm
    attention_input: int
    queries: int  # as the attention core keeps them
    keys_values: int  # as the attention core keeps them
    scores: int  # the s×s tensors of eager attention
    softmax_statistics: int  # flash attention's log-sum-exp
    attention_output: int
    core_inputs: int  # what selective recomputation keeps instead of the core
    eager: bool
    mlp: int
    layer_input: int  # what gradient checkpointing keeps of each layer
    layer_input_in_norm: int  # the part of it that the recomputed first norm keeps as it is
    logits: int  # lm_head's input, the loss and the labels
    input_ids: int
    qk_norms: int = 0  # one layer's RMSNorms of head_dim on the queries and the keys (ModelShape.qk_norm)
    core_output: int = 0  # SDPA's output, where o_proj's input is a copy of it (contiguous_queries)
    recomputed_queries: int = 0  # the queries a recomputed eager core keeps again (not when they are contiguous)

    @property
    def core(self) -> int:
        """The attention core's saved tensors: from the queries, keys and values to the attention's output."""
        return self.queries + self.keys_values + self.scores + self.softmax_statistics + self.core_output

    @property
    def recomputed_core(self) -> int:
        """What the core keeps again when selective recomputation reruns it, beside the inputs it keeps anyway."""
        # Eager attention makes its copies of q, k and v again; SDPA keeps the very tensors it is given, and a new
        # output (o_proj's, the same tensor in forward, is gone by then) with its log-sum-exp.
        if self.eager:
            return self.core - self.queries + self.recomputed_queries
        return self.attention_output + self.softmax_statistics


def check_arguments(
    shape: ModelShape, sequence_length: int, precision: str, attention: str, recomputation: str
) -> None:
    if shape.model_type not in FAMILIES:
        raise ValueError(f"no activation model for {shape.model_type!r} (known: {', '.join(FAMILIES)})")
    if isinstance(sequence_length, bool) or not isinstance(sequence_length, int) or sequence_length < 1:
        raise ValueError(f"the sequence length must be a whole number of at least 1, not {sequence_length!r}")
    if precision not in PRECISION_BYTES:
        raise ValueError(f"precision must be one of {', '.join(PRECISION_BYTES)}, not {precision!r}")
    if attention not in ATTENTIONS:
        raise ValueError(f"attention must be one of {', '.join(ATTENTIONS)}, not {attention!r}")
    if recomputation not in RECOMPUTATIONS:
        raise ValueError(f"recomputation must be one of {', '.join(RECOMPUTATIONS)}, not {recomputation!r}")


def saved_tensors(shape: ModelShape, s: int, p: int, attention: str) -> SavedTensors:
    """Each tensor once, for ``s`` tokens of ``p`` bytes a value; sources are transformers' files unless named."""
    family = FAMILIES[shape.model_type]
    h, heads, kv, d, vocab = shape.hidden_size, shape.attention_heads, shape.kv_heads, shape.head_dim, shape.vocab_size
    eager = attention == "eager"
    # RMSNorm (models/llama/modeling_llama.py, LlamaRMSNorm.forward): hidden_states.to(torch.float32) is kept by
    # pow(2) and by the product with the rsqrt (in a float32 model it is the input itself); the rsqrt, a float per
    # token, by that product; the normalized states by the product with the weight, cast back to the model's dtype
    # first (Llama), or still in float32 (Gemma2RMSNorm.forward: output * (1.0 + self.weight.float())).
    upcast_input = FLOAT32_BYTES * s * h
    rsqrt = FLOAT32_BYTES * s
    normalized = (FLOAT32_BYTES if family.norm_output_in_float32 else p) * s * h
    # q_norm and k_norm (Qwen3Attention, models/qwen3/modeling_qwen3.py; Gemma3Attention; Qwen3MoeAttention) are
    # the same RMSNorm over each head's head_dim values, on q_proj's and k_proj's outputs before the rotary embedding:
    # each keeps the same three tensors, per head and token instead of per token.
    normed_heads = s * (heads + kv) if shape.qk_norm else 0
    qk_norms = normed_heads * (
        FLOAT32_BYTES * d + FLOAT32_BYTES + (FLOAT32_BYTES if family.norm_output_in_float32 else p) * d
    )
    # q_proj, k_proj and v_proj keep their one shared input: nn.Linear keeps its input for the weight's gradient
    # (Korthikanti §4.1: 2sbh).
    attention_input = p * s * h
    # The rotary embedding keeps only cos and sin, one table for every sample (apply_rotary_pos_emb: q * cos +
    # rotate_half(q) * sin; a product keeps the factor that needs no gradient), so queries and keys are kept once,
    # after it, by the core. Eager attention (eager_attention_forward) multiplies the keys and values after
    # repeat_kv, which copies the kv_heads out to every query head; its matmuls keep those copies (and a copy of
    # the queries, in the layout bmm needs). SDPA with enable_gqa (integrations/sdpa_attention.py) and flash-attn
    # keep the kv_heads as they are (grouped-query attention: Ainslie et al. 2023, §2.2).
    queries = p * s * heads * d
    # Phi3Attention (models/phi3/modeling_phi3.py) slices q, k and v out of qkv_proj's one output; the rotary
    # embedding makes new queries and keys, but the values stay views of that output, and what keeps them as they are
    # keeps all of it: SDPA, and selective recomputation's checkpoint. Eager attention keeps a copy (repeat_kv, or the
    # matmul's reshape of the strided view).
    values = (heads + 2 * kv if shape.fused_projections else kv) * d  # per token, as the core's input keeps them
    keys_values = 2 * p * s * heads * d if eager else p * s * (kv * d + values)
    # Phi-3's contiguous queries (torch.cat in its apply_rotary_pos_emb): SDPA's output comes out in the queries'
    # layout, so attn_output.transpose(1, 2).contiguous() (integrations/sdpa_attention.py) copies it for o_proj, and
    # SDPA keeps the original; eager attention's matmul keeps the queries as they are, which a recomputed core's
    # checkpoint already holds.
    core_output = p * s * heads * d if family.contiguous_queries and not eager else 0
    recomputed_queries = 0 if family.contiguous_queries else queries
    # Eager scores: the softmax runs in float32 (softmax(..., dtype=torch.float32)) and keeps its output; the matmul
    # with the values keeps the .to(query.dtype) copy, another tensor unless the model is float32; dropout with
    # attention_dropout = 0.0 returns its input, no mask. Gemma-2 caps the scores first (tanh(scores / softcap) *
    # softcap, in its eager_attention_forward): tanh keeps its output. (Korthikanti §4.1: 5as²b, for a 16-bit
    # softmax output, a 1-byte dropout mask and the dropout's output.)
    probabilities = FLOAT32_BYTES * heads * s * s
    probabilities_cast = (p if p != FLOAT32_BYTES else 0) * heads * s * s
    capped_scores = (p if family.softcapping else 0) * heads * s * s
    # Flash attention keeps, beyond q, k, v and its output, the softmax's log-sum-exp: a float32 per head and token
    # (torch's ScaledDotProductFlashAttentionForCpuBackward: logsumexp; flash-attn: softmax_lse).
    softmax_statistics = FLOAT32_BYTES * heads * s
    # o_proj keeps its input, the heads side by side; flash attention's output is that very tensor.
    attention_output = p * s * heads * d
    # Selective recomputation (Korthikanti §5) keeps the core's inputs: queries, and keys and values kv_heads wide
    # (before repeat_kv).
    core_inputs = p * s * ((heads + kv) * d + values)
    # The gated MLP (LlamaMLP.forward: down_proj(act_fn(gate_proj(x)) * up_proj(x)); Shazeer 2020, "GLU Variants
    # Improve Transformer", §2): gate_proj and up_proj keep their shared input; then four tensors as wide as the
    # intermediate size: the activation (SiLU; Gemma-2's GELU-tanh) keeps its input, gate_proj's output; the product
    # both its factors, the activation's output and up_proj's; down_proj its input, the product. (Korthikanti §4.1:
    # 2sbh + 8sbh + 8sbh + a 1-byte dropout mask, for GPT's 4h-wide GeLU MLP.) Phi3MLP's gate_up_proj makes gate and
    # up as the two halves of one output (chunk): the activation keeps its half, the product the other, so the
    # activation and the product keep all of it, the same bytes.
    mlp_input = p * s * h
    intermediates = 4 * p * s * shape.intermediate_size
    if shape.experts:
        intermediates = routed_tensors(shape, s, p, trained=True)  # a mixture's router and experts, in its place
    # Gradient checkpointing keeps each layer's input in the model's dtype (torch.utils.checkpoint saves the
    # checkpointed function's tensor arguments; Korthikanti §5: 2sbhL for the model).
    layer_input = p * s * h
    # lm_head keeps its input, the final norm's output.
    lm_head_input = p * s * h
    # Gemma2ForCausalLM caps the logits (tanh(logits / final_logit_softcapping) * ...): tanh keeps its output.
    capped_logits = p * s * vocab if family.softcapping else 0
    # ForCausalLMLoss (loss/loss_utils.py) upcasts the logits (logits.float()); cross_entropy is log_softmax, then
    # nll_loss, and both keep the float32 log-probabilities (Korthikanti §4.3: 4sbv). The logits in the model's
    # dtype are kept by nothing: the upcast saves no tensor.
    log_probabilities = FLOAT32_BYTES * s * vocab
    labels = INDEX_BYTES * s  # nll_loss keeps its target, the shifted labels
    return SavedTensors(
        norm=upcast_input + rsqrt + normalized,
        attention_input=attention_input,
        queries=queries,
        keys_values=keys_values,
        scores=probabilities + probabilities_cast + capped_scores if eager else 0,
        softmax_statistics=0 if eager else softmax_statistics,
        attention_output=attention_output,
        core_inputs=core_inputs,
        eager=eager,
        mlp=mlp_input + intermediates,
        layer_input=layer_input,
        layer_input_in_norm=layer_input if p == FLOAT32_BYTES else 0,  # a float32 input is upcast to itself
        logits=lm_head_input + capped_logits + log_probabilities + labels,
        input_ids=INDEX_BYTES * s,  # nn.Embedding keeps its indices
        qk_norms=qk_norms,
        core_output=core_output,
        recomputed_queries=recomputed_queries,
    )


def routed_tensors(shape: ModelShape, s: int, p: int, trained: bool) -> int:
    """What a mixture of experts' block keeps for ``s`` tokens, but its router's input: the router's tensors and
    those of the ``s·k`` routed copies of the tokens. ``trained``: the router's and the experts' weights need
    gradients (not so under LoRA, whose frozen ``grouped_mm`` keeps no input).

    Sources: transformers' models/mixtral/modeling_mixtral.py (MixtralTopKRouter, MixtralSparseMoeBlock),
    models/qwen3_moe/modeling_qwen3_moe.py (Qwen3MoeTopKRouter) and integrations/moe.py
    (grouped_mm_experts_forward, the default experts_implementation: modeling_utils.py,
    get_correct_experts_implementation). ``grouped_mm`` also keeps the offsets of each expert's rows, ``4·E``
    bytes a layer for the whole micro-batch, whatever its size: not per sample, so not counted.
    """
    family = FAMILIES[shape.model_type]
    k, h, width = shape.experts_per_token, shape.hidden_size, shape.expert_intermediate_size
    routed = s * k  # every token goes to k experts, whichever they are
    # The router: softmax(router_logits, dtype=float32) keeps its float32 output, topk its indices (int64).
    router = FLOAT32_BYTES * s * shape.experts + INDEX_BYTES * routed
    if family.routing_weights_renormalized:
        # router_top_value /= router_top_value.sum(...): the in-place division keeps the float32 divisor and the
        # dividend as it was (torch derivatives.yaml, div_.Tensor: the original self, cloned).
        router += FLOAT32_BYTES * s + FLOAT32_BYTES * routed
    # Sorting the routed copies by expert: hidden_states[perm // k] and sample_weights[perm] keep their int64
    # indices, and so does weighted_out[inv_perm], which restores the tokens' order.
    dispatch = 3 * INDEX_BYTES * routed
    # Each expert is a gated MLP (LlamaMLP's) on its routed rows: grouped_mm keeps its input, the gathered copies,
    # for the weights' gradient; the activation keeps gate_up's output (gate and up are halves of one tensor,
    # 2·width wide), the product the activation's output, down's grouped_mm its input, the product.
    gathered = p * routed * h if trained else 0
    intermediates = p * routed * (2 * width + width + (width if trained else 0))
    # proj_out * sample_weights_g: the product with the routing weights keeps both factors, the experts' outputs
    # and the weights, float32 (Mixtral) or cast to the model's dtype (Qwen3-MoE).
    weights = (FLOAT32_BYTES if family.routing_weights_in_float32 else p) * routed
    return router + dispatch + gathered + intermediates + p * routed * h + weights


def _parts(attention: int, mlp: int, norms: int, logits: int, outside: int) -> dict[str, Fraction]:
    return dict(zip(PARTS, map(Fraction, (attention, mlp, norms, logits, outside)), strict=True))


def forward_breakdown(
    shape: ModelShape, sequence_length: int, precision: str, attention: str, recomputation: str
) -> dict[str, Fraction]:
    """What autograd holds per sample when the forward pass ends, in bytes by part.

    ``norms`` counts the final norm's; ``logits`` lm_head's input, the loss's and the labels'; ``outside`` the
    token ids and, with full recomputation, the layers' inputs that gradient checkpointing keeps.

    >>> from calc.models import PRESETS
    >>> mib = lambda parts: {part: round(value / 2**20) for part, value in parts.items()}
    >>> mib(forward_breakdown(PRESETS["meta-llama/Llama-3.1-8B"], 4096, "bf16", "flash", "none"))
    {'attention': 3600, 'mlp': 15360, 'norms': 6241, 'logits': 2036, 'outside': 0}
    >>> mib(forward_breakdown(PRESETS["meta-llama/Llama-3.1-8B"], 4096, "bf16", "flash", "full"))
    {'attention': 0, 'mlp': 0, 'norms': 96, 'logits': 2036, 'outside': 1024}
    """
    check_arguments(shape, sequence_length, precision, attention, recomputation)
    return forward_parts(
        shape, saved_tensors(shape, sequence_length, PRECISION_BYTES[precision], attention), recomputation
    )


def forward_parts(shape: ModelShape, terms: SavedTensors, recomputation: str) -> dict[str, Fraction]:
    """:func:`forward_breakdown` from its terms (calc.formulas.step gives others: autocast's, LoRA's)."""
    layers = shape.layers
    if recomputation == "full":
        return _parts(0, 0, terms.norm, terms.logits, terms.input_ids + layers * terms.layer_input)
    core = terms.core_inputs if recomputation == "selective" else terms.core
    return _parts(
        layers * (terms.attention_input + core + terms.attention_output),
        layers * terms.mlp,
        # the final norm, model.norm, after the last layer
        (layers * shape.norms_per_layer + 1) * terms.norm + layers * terms.qk_norms,
        terms.logits,
        terms.input_ids,
    )


def recomputation_breakdown(
    shape: ModelShape, sequence_length: int, precision: str, attention: str, recomputation: str
) -> dict[str, Fraction]:
    """What autograd holds per sample once backward has recomputed the last layer, or its attention core.

    By then the loss, the logits, the final norm and (selective) the last
    layer's MLP, its later norms and o_proj's input are released; the
    recomputed tensors join what the forward kept. Earlier layers are
    recomputed with less around them (the later ones' tensors are released
    as backward passes them), so this is the most recomputation holds.
    Without recomputation, nothing: backward only releases.

    >>> from calc.models import PRESETS
    >>> shape = PRESETS["meta-llama/Llama-3.1-8B"]
    >>> mib = lambda parts: {part: round(value / 2**20) for part, value in parts.items()}
    >>> mib(recomputation_breakdown(shape, 4096, "bf16", "flash", "full"))
    {'attention': 112, 'mlp': 480, 'norms': 192, 'logits': 0, 'outside': 1024}
    >>> mib(recomputation_breakdown(shape, 4096, "bf16", "eager", "full"))
    {'attention': 3232, 'mlp': 480, 'norms': 192, 'logits': 0, 'outside': 1024}
    >>> sum(recomputation_breakdown(shape, 4096, "bf16", "flash", "none").values())
    Fraction(0, 1)
    """
    check_arguments(shape, sequence_length, precision, attention, recomputation)
    return recomputation_parts(
        shape, saved_tensors(shape, sequence_length, PRECISION_BYTES[precision], attention), recomputation
    )


def recomputation_parts(shape: ModelShape, terms: SavedTensors, recomputation: str) -> dict[str, Fraction]:
    """:func:`recomputation_breakdown` from its terms."""
    layers = shape.layers
    if recomputation == "none":
        return _parts(0, 0, 0, 0, 0)
    if recomputation == "full":
        return _parts(
            terms.attention_input + terms.core + terms.attention_output,
            terms.mlp,
            # the layer input that the first norm keeps is counted once, in ``outside``
            shape.norms_per_layer * terms.norm + terms.qk_norms - terms.layer_input_in_norm,
            0,
            terms.input_ids + layers * terms.layer_input,
        )
    kept = terms.attention_input + terms.core_inputs  # the last layer's, up to its core
    return _parts(
        (layers - 1) * (kept + terms.attention_output) + kept + terms.recomputed_core,
        (layers - 1) * terms.mlp,
        # the last layer's first norm, input_layernorm, and every layer's q and k norms (before the core)
        ((layers - 1) * shape.norms_per_layer + 1) * terms.norm + layers * terms.qk_norms,
        0,
        terms.input_ids,
    )


def activation_breakdown(
    shape: ModelShape, sequence_length: int, precision: str, attention: str, recomputation: str
) -> dict[str, Fraction]:
    """The most autograd holds per sample over one forward and backward pass, in bytes by part.

    The larger of :func:`forward_breakdown` and :func:`recomputation_breakdown`,
    each as it is at its moment: the activation memory per sample, ``A``,
    that a micro-batch of ``b`` samples multiplies. ``attention`` is
    ``eager`` (the s×s scores kept) or ``flash`` (SDPA or flash-attn: not
    kept); ``recomputation`` is ``none``, ``selective`` (the attention core
    recomputed, Korthikanti §5) or ``full`` (gradient checkpointing: every
    layer recomputed). Keys are :data:`PARTS`, in that order.

    >>> from calc.models import PRESETS
    >>> shape = PRESETS["meta-llama/Llama-3.1-8B"]
    >>> mib = lambda parts: {part: round(value / 2**20) for part, value in parts.items()}
    >>> mib(activation_breakdown(shape, 4096, "bf16", "eager", "none"))
    {'attention': 103424, 'mlp': 15360, 'norms': 6241, 'logits': 2036, 'outside': 0}
    >>> mib(activation_breakdown(shape, 4096, "bf16", "eager", "selective"))  # backward's moment: one layer's s²
    {'attention': 6720, 'mlp': 14880, 'norms': 6049, 'logits': 0, 'outside': 0}
    >>> mib(activation_breakdown(shape, 4096, "bf16", "flash", "full"))  # the end of the forward pass
    {'attention': 0, 'mlp': 0, 'norms': 96, 'logits': 2036, 'outside': 1024}
    >>> activation_breakdown(shape, 4096, "int8", "flash", "full")
    Traceback (most recent call last):
    ...
    ValueError: precision must be one of bf16, fp16, fp32, not 'int8'
    """
    forward = forward_breakdown(shape, sequence_length, precision, attention, recomputation)
    backward = recomputation_breakdown(shape, sequence_length, precision, attention, recomputation)
    return forward if sum(forward.values()) >= sum(backward.values()) else backward


def activation_bytes(
    shape: ModelShape, sequence_length: int, precision: str, attention: str, recomputation: str
) -> Fraction:
    """The activation memory per sample, in bytes: the sum of :func:`activation_breakdown`'s parts.

    >>> from calc.models import PRESETS
    >>> shape = PRESETS["meta-llama/Llama-3.1-8B"]
    >>> [round(activation_bytes(shape, 4096, "bf16", "flash", r) / 2**20) for r in RECOMPUTATIONS]  # MiB
    [27237, 27221, 3156]
    >>> [round(activation_bytes(shape, 4096, "bf16", "eager", r) / 2**20) for r in RECOMPUTATIONS]
    [127061, 27649, 4928]
    """
    return sum(activation_breakdown(shape, sequence_length, precision, attention, recomputation).values(), Fraction(0))
