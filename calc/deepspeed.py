"""What the pages say of DeepSpeed's releases: the one whose code they were read in, and where its defaults changed.

The accumulation page and the VRAM page both quote these, so they sit here, apart from either calculator (a page's
worker imports no other calculator).
"""

from calc.outputs import Citation

# The release whose code the buffers, the framework table and the accumulation page's links were read in.
VERSION = "0.19.5"

# "Enable non-ZeRO mode" (deepspeedai/DeepSpeed#7515), first released in 0.17.6: without ZeRO, a bf16 model's
# gradients are summed in bf16 by default (get_data_types, read in the 0.17.6 sdist), and fp32 accumulation stops
# with an error. Up to 0.17.5, get_data_types made it fp32 without ZeRO (the model's dtype under ZeRO, as since),
# which the BF16_Optimizer keeps in an fp32 buffer of the whole flattened model (bf16_optimizer.py,
# fp32_groups_gradients_flat), while it partitions the fp32 master weights and the optimizer state across the
# data-parallel GPUs as ZeRO-1 does (fp32_groups_flat_partition); bf16 accumulation without ZeRO raised.
BF16_ACCUMULATION_SINCE = Citation(
    "0.17.6", "https://github.com/deepspeedai/DeepSpeed/blob/v0.17.6/deepspeed/runtime/engine.py#L1089-L1100"
)
FP32_ACCUMULATION_UNTIL = "0.17.5"
FP32_ACCUMULATION_SOURCE = Citation(
    "deepspeed/runtime/engine.py v0.17.5, get_data_types",
    "https://github.com/deepspeedai/DeepSpeed/blob/v0.17.5/deepspeed/runtime/engine.py#L1085-L1100",
)
# Where the engine reduces the gradients under accumulation: after every micro-batch at ZeRO-2 and ZeRO-3, only at
# the boundary below (allreduce_gradients), and no_sync() refuses the stages that partition the gradients. The
# accumulation page's synchronization FAQ and the VRAM page's ZeRO-stage FAQ cite them, with the opt-in that defers it.
REDUCTION_SOURCES = (
    Citation(
        f"DeepSpeed: engine.py v{VERSION} (allreduce_gradients)",
        f"https://github.com/deepspeedai/DeepSpeed/blob/v{VERSION}/deepspeed/runtime/engine.py#L2846-L2870",
    ),
    Citation(
        f"DeepSpeed: engine.py v{VERSION} (no_sync)",
        f"https://github.com/deepspeedai/DeepSpeed/blob/v{VERSION}/deepspeed/runtime/engine.py#L2987-L2997",
    ),
    # The opt-in that defers ZeRO's reduction to the end of the accumulation, keeping whole gradients meanwhile
    # (technical review, round 88).
    Citation(
        f"DeepSpeed: engine.py v{VERSION} (coalesce_grad_reduction)",
        f"https://github.com/deepspeedai/DeepSpeed/blob/v{VERSION}/deepspeed/runtime/engine.py#L3007-L3067",
    ),
)
BF16_OPTIMIZER_PARTITIONS = Citation(
    "deepspeed/runtime/bf16_optimizer.py v0.17.5",
    "https://github.com/deepspeedai/DeepSpeed/blob/v0.17.5/deepspeed/runtime/bf16_optimizer.py#L150-L160",
)
