"""Ready-to-paste configuration for the frameworks people train with, for given batch settings.

Each snippet is valid in its own language (Python, JSON, YAML) and writes
its numbers in plain ASCII digits, whatever the page's locale: code is not
prose. The names are each framework's own:

- Hugging Face Transformers: ``TrainingArguments(per_device_train_batch_size,
  gradient_accumulation_steps)`` (transformers/training_args.py);
- DeepSpeed: ``train_batch_size``, ``train_micro_batch_size_per_gpu`` and
  ``gradient_accumulation_steps``, which DeepSpeed asserts satisfy
  train = micro × steps × world size (deepspeed/runtime/config.py,
  ``_batch_assertion``);
- PyTorch Lightning: ``Trainer(accumulate_grad_batches=…)``, the micro-batch
  being the DataLoader's ``batch_size``;
- Hugging Face Accelerate: ``Accelerator(gradient_accumulation_steps=…)``;
- Axolotl: ``micro_batch_size`` and ``gradient_accumulation_steps`` in its YAML.
"""

from __future__ import annotations

import json

from calc.i18n import N_
from calc.outputs import Code

FRAMEWORKS = ("transformers", "deepspeed", "lightning", "accelerate", "axolotl")


def snippets(micro_batch: int, accumulation_steps: int, gpus: int) -> dict[str, str]:
    """Each framework's configuration for ``micro_batch`` samples per GPU, ``accumulation_steps`` and ``gpus``.

    >>> print(snippets(4, 8, 2)["axolotl"])
    micro_batch_size: 4
    gradient_accumulation_steps: 8
    <BLANKLINE>
    """
    b, a, g = micro_batch, accumulation_steps, gpus
    return {
        "transformers": (
            "from transformers import TrainingArguments\n\n"
            "args = TrainingArguments(\n"
            '    output_dir="output",\n'
            f"    per_device_train_batch_size={b},\n"
            f"    gradient_accumulation_steps={a},\n"
            ")\n"
        ),
        "deepspeed": json.dumps(
            {"train_batch_size": b * a * g, "train_micro_batch_size_per_gpu": b, "gradient_accumulation_steps": a},
            indent=2,
        )
        + "\n",
        "lightning": (
            "from lightning.pytorch import Trainer\n"
            "from torch.utils.data import DataLoader\n\n"
            f"loader = DataLoader(dataset, batch_size={b})\n"
            f"trainer = Trainer(devices={g}, accumulate_grad_batches={a})\n"
        ),
        "accelerate": (
            "from accelerate import Accelerator\n"
            "from torch.utils.data import DataLoader\n\n"
            f"accelerator = Accelerator(gradient_accumulation_steps={a})\n"
            f"loader = accelerator.prepare(DataLoader(dataset, batch_size={b}))\n"
        ),
        "axolotl": f"micro_batch_size: {b}\ngradient_accumulation_steps: {a}\n",
    }


# The outputs that show them, named as the frameworks are (pages mark each with data-snippet).
SNIPPET_LABELS = {
    "transformers": N_("Hugging Face Transformers"),
    "deepspeed": N_("DeepSpeed configuration"),
    "lightning": N_("PyTorch Lightning"),
    "accelerate": N_("Hugging Face Accelerate"),
    "axolotl": N_("Axolotl configuration"),
}
LANGUAGES = {
    "transformers": "python",
    "deepspeed": "json",
    "lightning": "python",
    "accelerate": "python",
    "axolotl": "yaml",
}
SNIPPETS = tuple(Code(name, SNIPPET_LABELS[name], LANGUAGES[name]) for name in FRAMEWORKS)
