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
- PyTorch Lightning: ``Trainer(devices, num_nodes, accumulate_grad_batches)``,
  the micro-batch being the DataLoader's ``batch_size``; ``devices`` counts
  the GPUs of one node (lightning/pytorch/trainer/trainer.py); and ``precision``,
  whose default, ``"32-true"``, would keep the activations in fp32, twice the
  bytes of the bf16 the pages' runs default to (the pages say which to write);
- Hugging Face Accelerate: ``Accelerator(gradient_accumulation_steps=…)``, which
  accumulates only inside ``with accelerator.accumulate(model):``: outside it
  the optimizer steps on every micro-batch (accelerate/accelerator.py,
  ``accumulate`` and ``_do_sync``);
- Axolotl: ``micro_batch_size`` and ``gradient_accumulation_steps`` in its YAML;
- Megatron-LM: ``--micro-batch-size`` and ``--global-batch-size``, from which it
  derives the accumulation steps as global / (micro × data-parallel size)
  (megatron/core/num_microbatches_calculator.py).

Each also turns on bf16 and full recomputation where its configuration holds them, as the site's default run
has them: an activation memory per sample estimated with them holds only if the run sets them (the pages say what
to change for another estimate). Their names: ``bf16`` and
``activation_checkpointing`` (transformers' TrainingArguments since 5.23, ``ACTIVATION_CHECKPOINTING_SINCE``, the
old name in a comment beside it);
DeepSpeed's ``bf16.enabled``; Accelerate's ``mixed_precision="bf16"`` and the model's
``activation_checkpointing_enable()``; Axolotl's ``bf16`` and ``gradient_checkpointing``; Megatron-LM's ``--bf16``
and ``--recompute-granularity full --recompute-method uniform --recompute-num-layers 1`` (every layer's input kept,
megatron/training/arguments.py). Lightning's recomputation is the model's, inside the reader's LightningModule.

The Python snippets open with the launch line their per-GPU numbers assume, as
a comment: one process per GPU, on nodes of ``GPUS_PER_NODE`` GPUs at most. On
one node Lightning starts those processes itself from a plain ``python``; on
several it runs under torchrun (Lightning's "Run with Torch Distributed" guide).
What only the reader has (model, optimizer, dataset) is a ``...`` placeholder
named in ``PLACEHOLDERS``, so a pasted snippet defines every name it uses.
Accelerate's loop reads the loss from the model's output, as a transformers
``PreTrainedModel`` returns it for a batch of dicts with labels, which the
reader's collator makes of a tokenized dataset's samples (lists, which
PyTorch's default collate cannot give the model, even one at a time). It puts
the model in training mode first: ``from_pretrained`` returns it in evaluation
mode (``model.eval()``), in which transformers' ``GradientCheckpointingLayer``
does not recompute (``if self.gradient_checkpointing and self.training``) and
``prepare`` leaves the mode as it is. Megatron-LM's
block is the launch command itself, its last line a ``...`` for the model,
data and tokenizer arguments ``pretrain_gpt.py`` also needs.
"""

from __future__ import annotations

import json

from calc.formulas.model_states import RECIPES
from calc.i18n import N_
from calc.outputs import Citation, Code, Fact, Quantity
from calc.transformers_releases import AUTO_DTYPE_SINCE

# The frameworks the pages write settings for, in their order, and the names the prose gives them.
FRAMEWORKS = {
    "transformers": "Transformers",
    "deepspeed": "DeepSpeed",
    "lightning": "Lightning",
    "accelerate": "Accelerate",
    "axolotl": "Axolotl",
    "megatron": "Megatron-LM",
}

# The page knows only the total of data-parallel GPUs; the snippets assume nodes of up to 8 GPUs
# (as in DGX and HGX servers) and the most GPUs per node that share the total evenly. The pages say so.
GPUS_PER_NODE = 8
# The transformers release that renamed gradient checkpointing's switches (TrainingArguments.activation_checkpointing,
# PreTrainedModel.activation_checkpointing_enable), keeping the old names as deprecated aliases until v6: read from
# the wheels of 5.22.2 and 5.23.0. Cited where a reader sees both names: the release's TrainingArguments fields, and
# the model's deprecated method.
ACTIVATION_CHECKPOINTING_SINCE = Citation(
    "5.23", "https://github.com/huggingface/transformers/blob/v5.23.0/src/transformers/training_args.py#L905-L933"
)
ACTIVATION_CHECKPOINTING_METHOD_SINCE = Citation(
    "5.23", "https://github.com/huggingface/transformers/blob/v5.23.0/src/transformers/modeling_utils.py#L3191-L3199"
)
# The snippets name the old switch beside the new one, in a comment that travels with the paste: most installed
# transformers are older than the rename (technical review, round 26).
RENAMED_IN = ACTIVATION_CHECKPOINTING_SINCE.text


def facts() -> dict[str, Fact]:
    """What the notes beside the snippets quote, on every page that shows them."""
    return {
        "gpus_per_node": Quantity(GPUS_PER_NODE),
        # Lightning 2.6.6 keeps each submodule's mode at the start of fit and only warns of those in eval mode, so a
        # from_pretrained model, returned in eval mode, trains so unless the reader calls train() (technical review,
        # round 89: the recomputation turned on in __init__ never ran).
        "lightning_eval_mode": Citation(
            "Lightning 2.6.6: fit_loop.py",
            "https://github.com/Lightning-AI/pytorch-lightning/blob/2.6.6/src/lightning/pytorch/loops/fit_loop.py#L532-L543",
        ),
        # The world size _batch_assertion multiplies by: the data-parallel size from an mpu or a device mesh, the
        # processes over sequence_parallel_size, or else every process (DeepSpeed 0.19.5).
        "deepspeed_world_size": Citation(
            "deepspeed/runtime/config.py",
            "https://github.com/deepspeedai/DeepSpeed/blob/v0.19.5/deepspeed/runtime/config.py#L697-L715",
        ),
        "checkpointing_since": ACTIVATION_CHECKPOINTING_SINCE,
        "checkpointing_method_since": ACTIVATION_CHECKPOINTING_METHOD_SINCE,
        # When the old names go: the deprecation warnings of 5.23 say they "will be removed in v6".
        "checkpointing_removal": "v6",
        # The recipe the Trainer alone runs on a model loaded in bf16, as the VRAM page's field names it (a message id).
        "bf16_recipe": RECIPES["adamw-bf16"].label,
        # And on a model loaded in fp32, under autocast (the VRAM page's framework table says the same).
        "fp32_recipe": RECIPES["adam-fp32"].label,
        "transformers_auto_dtype": AUTO_DTYPE_SINCE,
        # A tokenizer that reserves a padding token: Llama 3.1's tokenizer_config.json, id 128004.
        "reserved_pad_model": "Llama-3.1",
        # Both divide every micro-batch's loss by the accumulation steps: Accelerator.backward (unless DeepSpeed's
        # engine, which divides it in its own backward), and Lightning's automatic optimization
        # (ClosureResult.from_training_step_output, normalize=accumulate_grad_batches). Read in the 1.16.0 and
        # 2.6.6 wheels.
        "accelerate_divides": Citation(
            "accelerate 1.16.0: Accelerator.backward",
            "https://github.com/huggingface/accelerate/blob/v1.16.0/src/accelerate/accelerator.py#L2755-L2757",
        ),
        "lightning_divides": Citation(
            "Lightning 2.6.6: automatic.py",
            "https://github.com/Lightning-AI/pytorch-lightning/blob/2.6.6/src/lightning/pytorch/loops/optimization/automatic.py#L80-L83",
        ),
    }


def nodes(gpus: int) -> tuple[int, int]:
    """``(nodes, GPUs per node)`` for ``gpus`` in all: the most GPUs per node, up to ``GPUS_PER_NODE``, that divide it.

    >>> nodes(1), nodes(8), nodes(64), nodes(12), nodes(11)
    ((1, 1), (1, 8), (8, 8), (2, 6), (11, 1))
    """
    per_node = max(d for d in range(1, min(gpus, GPUS_PER_NODE) + 1) if gpus % d == 0)
    return gpus // per_node, per_node


# What the reader supplies, each left as `...` with the type it must be (class names, not prose).
PLACEHOLDERS = {
    "lightning": {
        "model": "lightning.pytorch.LightningModule",
        "dataset": "torch.utils.data.Dataset",
        # A tokenized dataset's lists need one to become a batch, as Accelerate's do.
        "collator": "transformers.DataCollatorForLanguageModeling",
    },
    "accelerate": {
        # The loop reads model(**batch).loss: a transformers model's output, given a batch of dicts with labels.
        "model": "transformers.PreTrainedModel",
        "optimizer": "torch.optim.Optimizer",
        "dataset": "torch.utils.data.Dataset",
        # Pads, makes tensors, adds the labels: DataCollatorForLanguageModeling(tokenizer, mlm=False), for example.
        "collator": "transformers.DataCollatorForLanguageModeling",
    },
}


def placeholders(framework: str) -> str:
    """The lines that define ``framework``'s placeholders, then a blank line."""
    return "".join(f"{name} = ...  # {kind}\n" for name, kind in PLACEHOLDERS[framework].items()) + "\n"


def snippets(micro_batch: int, accumulation_steps: int, gpus: int) -> dict[str, str]:
    """Each framework's configuration for ``micro_batch`` samples per GPU, ``accumulation_steps`` and ``gpus``.

    >>> print(snippets(4, 8, 2)["axolotl"])
    # accelerate launch --num_processes=2 -m axolotl.cli.train config.yml
    micro_batch_size: 4
    gradient_accumulation_steps: 8
    bf16: true
    gradient_checkpointing: true
    <BLANKLINE>
    """
    b, a, g = micro_batch, accumulation_steps, gpus
    n, per_node = nodes(g)
    machines = f" --nnodes={n}" if n > 1 else ""
    accelerate_machines = f" --num_machines={n}" if n > 1 else ""
    return {
        "transformers": (
            f"# torchrun{machines} --nproc_per_node={per_node} train.py\n"
            "from transformers import TrainingArguments\n\n"
            "args = TrainingArguments(\n"
            '    output_dir="output",\n'
            f"    per_device_train_batch_size={b},\n"
            f"    gradient_accumulation_steps={a},\n"
            "    bf16=True,\n"
            f"    activation_checkpointing=True,  # transformers<{RENAMED_IN}: gradient_checkpointing=True\n"
            ")\n"
        ),
        "deepspeed": json.dumps(
            {
                "train_batch_size": b * a * g,
                "train_micro_batch_size_per_gpu": b,
                "gradient_accumulation_steps": a,
                "bf16": {"enabled": True},
            },
            indent=2,
        )
        + "\n",
        "lightning": (
            (f"# torchrun --nnodes={n} --nproc_per_node={per_node} train.py\n" if n > 1 else "# python train.py\n")
            + "from lightning.pytorch import Trainer\n"
            "from torch.utils.data import DataLoader\n\n"
            + placeholders("lightning")
            + f"loader = DataLoader(dataset, batch_size={b}, shuffle=True, collate_fn=collator)\n"
            "trainer = Trainer(\n"
            f'    devices={per_node}, num_nodes={n}, precision="bf16-mixed", accumulate_grad_batches={a}\n'
            ")\n"
            "trainer.fit(model, loader)\n"
        ),
        "accelerate": (
            f"# accelerate launch{accelerate_machines} --num_processes={g} train.py\n"
            "from accelerate import Accelerator\n"
            "from torch.utils.data import DataLoader\n\n"
            + placeholders("accelerate")
            + f'accelerator = Accelerator(gradient_accumulation_steps={a}, mixed_precision="bf16")\n'
            f"loader = DataLoader(dataset, batch_size={b}, shuffle=True, collate_fn=collator)\n"
            f"model.activation_checkpointing_enable()  # transformers<{RENAMED_IN}: gradient_checkpointing_enable()\n"
            "model, optimizer, loader = accelerator.prepare(model, optimizer, loader)\n\n"
            "model.train()\n"
            "for batch in loader:\n"
            "    with accelerator.accumulate(model):\n"
            "        loss = model(**batch).loss\n"
            "        accelerator.backward(loss)\n"
            "        optimizer.step()\n"
            "        optimizer.zero_grad()\n"
        ),
        # Launched through Accelerate, which without a count starts one process per visible GPU (technical review,
        # round 81: a one-GPU plan could train with eight times its batch).
        "axolotl": f"# accelerate launch{accelerate_machines} --num_processes={g} -m axolotl.cli.train config.yml\n"
        f"micro_batch_size: {b}\ngradient_accumulation_steps: {a}\n"
        "bf16: true\ngradient_checkpointing: true\n",
        "megatron": (
            f"torchrun{machines} --nproc_per_node={per_node} pretrain_gpt.py \\\n"
            f"    --micro-batch-size {b} \\\n"
            f"    --global-batch-size {b * a * g} \\\n"
            "    --bf16 \\\n"
            "    --recompute-granularity full --recompute-method uniform --recompute-num-layers 1 \\\n"
            "    ...\n"
        ),
    }


# The outputs that show them, named as the frameworks are (pages mark each with data-snippet).
SNIPPET_LABELS = {
    "transformers": N_("Hugging Face Transformers"),
    "deepspeed": N_("DeepSpeed configuration"),
    "lightning": N_("PyTorch Lightning"),
    "accelerate": N_("Hugging Face Accelerate"),
    "axolotl": N_("Axolotl configuration"),
    "megatron": N_("Megatron-LM arguments"),
}
LANGUAGES = {
    "transformers": "python",
    "deepspeed": "json",
    "lightning": "python",
    "accelerate": "python",
    "axolotl": "yaml",
    "megatron": "shell",
}
SNIPPETS = tuple(Code(name, SNIPPET_LABELS[name], LANGUAGES[name]) for name in FRAMEWORKS)
