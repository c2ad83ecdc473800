"""Common GPUs and the memory each really has, as ``nvidia-smi`` reports it.

A vendor's "80 GB" is about 80 GiB, and not all of it: the driver keeps
some back. The total that ``nvidia-smi`` prints (``Memory-Usage`` column,
or ``--query-gpu=memory.total``) is what a program can ever hold, so each
card is stored in MiB as printed there, and read in bytes (MiB × 2^20).

The printed total depends on the driver: before the R5xx drivers, A100s and
V100s showed less (A100-SXM4-40GB: 40536 MiB in
https://github.com/facebookresearch/vissl/issues/422, 40960 MiB with driver
580 below). Each value below comes from a printout in a public issue, with
the driver that printed it.
"""

from __future__ import annotations

from dataclasses import dataclass

MIB = 2**20


@dataclass(frozen=True)
class GPU:
    """A card: a stable id (for HTML option values), its product name as
    the driver reports it, its total memory in MiB as ``nvidia-smi``
    prints it, and the printout the total is read from (a public issue's
    address) with the driver that printed it, where the paste shows it:
    the page links each; and whether it computes in bf16, which takes
    compute capability 8.0 (Ampere) or later: torch.cuda.is_bf16_supported
    tests ``major >= 8``, and below that, unless asked not to, only whether a
    bf16 tensor can be made, which it can, emulated."""

    id: str
    name: str
    mib: int
    printout: str
    driver: str | None
    bf16: bool = True

    @property
    def bytes(self) -> int:
        """Total memory in bytes.

        >>> GPUS_BY_ID["h100-80gb"].bytes
        85520809984
        """
        return self.mib * MIB


# Smallest first, as the page lists them. The printout each total is read from, with its driver; a second printout
# that agrees, or a note on the first, in a comment.
GPUS: tuple[GPU, ...] = (
    # Turing, compute capability 7.5: no bf16.
    GPU("t4", "Tesla T4", 15360, "https://github.com/robbyant-research/MagicQuill/issues/57", "535.183.01", bf16=False),
    # Shown as "Tesla V100-SXM2...": an older driver's figure, as no printout from an R5xx driver was found.
    GPU(
        "v100-16gb",
        "Tesla V100-SXM2-16GB",
        16160,
        "https://github.com/huggingface/text-generation-inference/issues/533",
        "470.182.03",
        bf16=False,  # Volta, compute capability 7.0
    ),
    GPU("a10g", "NVIDIA A10G", 23028, "https://github.com/NVIDIA/DCGM/issues/232", "535.247.01"),
    # Also driver 550.127.05: https://github.com/NVIDIA/TensorRT-LLM/issues/2398
    GPU("l4", "NVIDIA L4", 23034, "https://github.com/speaches-ai/speaches/pull/438", "570.133.20"),
    # Also driver 535.54.03: https://github.com/vllm-project/vllm/issues/7553
    GPU("rtx-4090", "NVIDIA GeForce RTX 4090", 24564, "https://github.com/RLinf/RLinf/issues/255", "550.163.01"),
    # Also driver 610.43.03: https://github.com/noonghunna/club-3090/issues/745
    GPU("rtx-3090", "NVIDIA GeForce RTX 3090", 24576, "https://github.com/noonghunna/club-3090/issues/1106", "595.84"),
    # Shown as "Tesla V100-SXM2..."; the PCIe 32 GB board, --query-gpu memory.total, also:
    # https://github.com/akash-network/provider-configs/pull/90
    GPU(
        "v100-32gb",
        "Tesla V100-SXM2-32GB",
        32768,
        "https://github.com/Wan-Video/Wan2.1/issues/5",
        "525.105.17",
        bf16=False,  # Volta, compute capability 7.0
    ),
    GPU(
        "a100-40gb",
        "NVIDIA A100-SXM4-40GB",
        40960,
        "https://github.com/bottlerocket-os/bottlerocket-core-kit/pull/834",
        "580.126.09",
    ),
    # --query-gpu memory.total.
    GPU("l40s", "NVIDIA L40S", 46068, "https://github.com/akash-network/provider-configs/pull/99", "595.71.05"),
    # Also driver 550.90.07: https://github.com/wilicc/gpu-burn/issues/114
    GPU("h100-80gb", "NVIDIA H100 80GB HBM3", 81559, "https://github.com/NVIDIA/nccl/issues/1264", "550.54.15"),
    # The driver is not in the paste.
    GPU("a100-80gb", "NVIDIA A100-SXM4-80GB", 81920, "https://github.com/NVIDIA/nccl-tests/issues/228", None),
    GPU("h200", "NVIDIA H200", 143771, "https://github.com/sgl-project/sglang/issues/3196", "550.144.03"),
)

GPUS_BY_ID: dict[str, GPU] = {gpu.id: gpu for gpu in GPUS}
