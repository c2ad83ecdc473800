"""What the pages say of Hugging Face Transformers' releases where a default changed that a run's memory depends on.

The VRAM page's framework table and the snippets' notes (accumulation and planner pages) both quote these, so they
sit here, apart from any calculator.
"""

from calc.outputs import Citation

# The release from which from_pretrained loads a checkpoint in its stored dtype (dtype="auto" by default), where
# 4.x loaded fp32: its notes' "Default dtype update" (huggingface/transformers#42805); read in the 4.57.0 and 5.0.0
# wheels' modeling_utils.py too.
# The version is the link to the notes (technical review, round 88: "transformers 5.0 (transformers v5.0.0)").
AUTO_DTYPE_SINCE = Citation("5.0", "https://github.com/huggingface/transformers/releases/tag/v5.0.0")

# The release from which a mixture's experts are one module of three-dimensional parameters (MixtralExperts,
# Qwen3MoeExperts: gate_up_proj, down_proj), where 4.57 built each expert of nn.Linear layers (Mixtral's w1, w2, w3),
# which bitsandbytes quantizes and peft adapts through target_modules: read in the 4.57.0 and 5.0.0 wheels.
EXPERTS_AS_PARAMETERS_SINCE = Citation(
    "5.0",
    "https://github.com/huggingface/transformers/blob/v5.0.0/src/transformers/models/mixtral/modeling_mixtral.py#L63-L71",
)
EXPERTS_AS_LINEAR_UNTIL = "4.57"

# The release from which from_pretrained sets a mixture's experts to grouped matrix products unless told otherwise
# (PreTrainedModel.get_correct_experts_implementation: "grouped_mm" where none is requested, "eager" where PyTorch
# cannot dispatch it): read in the 5.0.0 wheel's modeling_utils.py (Italian review, round 52: the page cited the
# experts' parameters for it).
GROUPED_EXPERTS_SINCE = Citation(
    "5.0",
    "https://github.com/huggingface/transformers/blob/v5.0.0/src/transformers/modeling_utils.py#L1930-L1948",
)
# Where transformers 5.24 falls back from grouped products to a loop over the experts (_can_use_grouped_mm): under
# torch.compile with experts' weights not in bf16; on CUDA below compute capability 8.0, or 9.x only with PyTorch 2.8.
GROUPED_FALLBACK = Citation(
    "transformers 5.24.0: _can_use_grouped_mm",
    "https://github.com/huggingface/transformers/blob/v5.24.0/src/transformers/integrations/moe.py#L302-L352",
)

# The release from which gradient checkpointing is non-reentrant by default and makes the input embeddings' output
# require gradients for every model that takes input_ids (PreTrainedModel.gradient_checkpointing_enable), where 4.57
# checkpointed reentrantly and did so only under transformers' own PEFT integration: a peft model over a 4-bit base,
# whose frozen embeddings pass on no gradient, then gave its adapters none unless enable_input_require_grads() was
# called, as peft's prepare_model_for_kbit_training does. Read in the 4.57.0 and 5.0.0 wheels (Italian review,
# round 57).
INPUT_GRADIENTS_SINCE = "5.0"

# The release from which Gemma-2 refuses SDPA (Gemma2PreTrainedModel._supports_sdpa = False, "sdpa does not support
# softcapping"), where 5.20 accepted it and its SDPA path dropped the soft-cap: read in the 5.20.0 and 5.21.0 wheels
# (Spanish review, round 60).
SDPA_REFUSED_SINCE = "5.21"
