"""What a reader of the English pages sees."""

from tests.expectations import Expectations

EXPECTED = Expectations(
    title="Gradient accumulation memory calculator",
    example="the effective batch size rises to 256, while the peak activation memory per GPU stays at 7.45 GB",
    formulas=("E = b ⋅ a ⋅ g", "M = b ⋅ A", "E = 1 ⋅ 64 ⋅ 1 = 64", "M = 1 ⋅ 7.45 = 7.45\u00a0GB"),
    ready="Results update as you type.",
    failed="The live calculator could not start in this browser.",
    prompt_empty="Fill in the field “Accumulation steps” to see the results.",
    prompt_two_empty="Fill in the fields “Accumulation steps” and “Data-parallel GPUs” to see the results.",
    prompt_invalid="Correct the highlighted value to see the results.",
    prompt_two_invalid="Correct the 2 highlighted values to see the results.",
    defaults={
        "micro_batch": "1",
        "accumulation_steps": "64",
        "gpus": "1",
        "activation_per_sample": "7.45",
        "memory_budget": "8.01",
    },
    results=(
        ({}, "64", "7.45\u00a0GB"),
        ({"micro_batch": "8"}, "512", "59.60\u00a0GB"),
        ({"accumulation_steps": "16"}, "16", "7.45\u00a0GB"),
        ({"gpus": "4"}, "256", "7.45\u00a0GB"),
        ({"gpus": "1,024"}, "65,536", "7.45\u00a0GB"),
        ({"gpus": "1 024"}, "65,536", "7.45\u00a0GB"),
        ({"micro_batch": "10", "accumulation_steps": "100"}, "1,000", "74.50\u00a0GB"),
        ({"activation_per_sample": "1.25"}, "64", "1.25\u00a0GB"),
        ({"micro_batch": "3", "activation_per_sample": "0.1"}, "192", "0.30\u00a0GB"),
        ({"activation_per_sample": "0.5 GB"}, "64", "0.50\u00a0GB"),
        ({"activation_per_sample": "0.5gb"}, "64", "0.50\u00a0GB"),
        ({"activation_per_sample": "1,250.5"}, "64", "1,250.50\u00a0GB"),
        ({"micro_batch": "999999", "activation_per_sample": "0.999999"}, "63,999,936", "999,998.000001\u00a0GB"),
        (
            {"micro_batch": "1,000,000", "accumulation_steps": "1,000,000", "gpus": "1,000,000"},
            "1,000,000,000,000,000,000",
            "7,450,000.00\u00a0GB",
        ),
    ),
    errors=(
        ("micro_batch", "abc", "Enter a whole number, such as 1."),
        ("micro_batch", "4.5", "Enter a whole number, without decimals."),
        ("accumulation_steps", "1,5", "Enter a whole number, without decimals."),
        ("gpus", "4 GPUs", "Type the number only."),
        ("micro_batch", "0", "Enter at least 1."),
        ("gpus", "-3", "Enter at least 1."),
        ("gpus", "2000000", "Enter at most 1,000,000."),
        ("gpus", "9" * 5000, "Enter at most 1,000,000."),
        ("activation_per_sample", "x", "Enter a number, such as 7.45."),
        ("activation_per_sample", "0,5", "Use a decimal point: 0.5."),
        ("activation_per_sample", "1.250,5", "Use a decimal point: 1250.5."),
        ("activation_per_sample", "1.000.000", "Enter at most 10,000\u00a0GB."),
        ("activation_per_sample", "1,500", "Did you mean 1500 or 1.5? Type the one you mean as shown."),
        ("activation_per_sample", "10,000", "Did you mean 10000 or 10? Type the one you mean as shown."),
        # Three decimals read as grouping too: the reading offered has a fourth, which reads as one number only.
        ("activation_per_sample", "1.125", "Did you mean 1.1250 or 1125? Type the one you mean as shown."),
        ("activation_per_sample", "0.5 MB", "Type the number only, in GB."),
        ("activation_per_sample", "0", "Enter a value greater than 0\u00a0GB."),
        ("activation_per_sample", "-0.5", "Enter a value greater than 0\u00a0GB."),
        ("activation_per_sample", "20000", "Enter at most 10,000\u00a0GB."),
        ("activation_per_sample", "0.0000001", "Use at most 6 decimal places."),
        # The other decimal mark, whose rewrite would be refused too: say why.
        ("activation_per_sample", "0,0000001", "Use at most 6 decimal places."),
        ("activation_per_sample", "0," + "5" * 5000, "Use at most 6 decimal places."),
    ),
    announcements=(
        ({}, "Effective batch size: 64. Peak activation memory per GPU: 7.45\u00a0GB."),
        ({"micro_batch": "128"}, "Effective batch size: 8,192. Peak activation memory per GPU: 953.60\u00a0GB."),
        ({"gpus": "0"}, "Data-parallel GPUs: Enter at least 1."),
        (
            {"micro_batch": "0", "activation_per_sample": "0,5", "memory_budget": "12"},
            "Micro-batch size: Enter at least 1. Activation memory per sample: Use a decimal point: 0.5.",
        ),
        ({"gpus": ""}, "Fill in the field “Data-parallel GPUs” to see the results."),
    ),
    numbers=(
        ("0", "0", "0 GB"),
        ("1", "1", "1 GB"),
        ("999", "999", "999 GB"),
        ("1000", "1,000", "1,000 GB"),
        ("16384", "16,384", "16,384 GB"),
        ("1234567", "1,234,567", "1,234,567 GB"),
        ("0.5", "0.5", "0.5 GB"),
        ("0.50", "0.5", "0.5 GB"),
        ("2.0", "2", "2 GB"),
        ("0.3", "0.3", "0.3 GB"),
        ("0.000001", "0.000001", "0.000001 GB"),
        ("12345.678901", "12,345.678901", "12,345.678901 GB"),
    ),
    gigabyte="GB",
    parallel_degrees="With tensor, pipeline, or context parallelism",
    drops_samples=r"drop(?:s|ped)? samples|silently",
    not_modelled=(
        "The step's peak is modeled for the architectures {modelled}: for this one, enter the activation memory."
    ),
    expert_width="This architecture's experts are as wide as its intermediate size: enter the same value.",
    not_one_sample=(
        "Not even one sample fits. To make room, compute the loss in chunks (the Trainer's use_liger_kernel=True; the "
        "form has no field for it, so this calculator cannot confirm it), "
        "shorten the sequences to 2,944\u00a0tokens (with room to spare), train QLoRA, train on several GPUs with "
        "ZeRO-3, or choose a GPU with more memory."
    ),
)
