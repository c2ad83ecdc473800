"""``make validate``: check calc.lora's counts against transformers' and peft's own.

1. Makes the virtual environment ``.venv-validate`` with this Python's
   ``venv`` and installs ``validation/requirements.txt`` into it (again
   whenever that file changes).
2. Runs ``tools/measure_parameters.py`` inside it, which builds every preset
   (and a few small test shapes) on the meta device and writes
   ``validation/parameters.json``.
3. Compares every count in that file with :mod:`calc.lora`'s and prints a
   summary; exits with 1 if any differs, or if a preset was not measured.

The tests (``tests/test_lora_counts.py``) make the same comparisons against
the committed file, without torch.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from calc.lora import base_parameters, lora_parameters, quantized_weights  # noqa: E402
from calc.models import PRESETS, ModelShape  # noqa: E402

VENV = ROOT / ".venv-validate"
REQUIREMENTS = ROOT / "validation" / "requirements.txt"
OUTPUT = ROOT / "validation" / "parameters.json"
MEASURE = ROOT / "tools" / "measure_parameters.py"
# The requirements the environment was last installed from.
STAMP = VENV / ".installed"


def ensure_environment() -> Path:
    python = VENV / "bin" / "python"
    wanted = REQUIREMENTS.read_text(encoding="utf-8")
    if python.exists() and STAMP.exists() and STAMP.read_text(encoding="utf-8") == wanted:
        return python
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    pip = [str(python), "-m", "pip", "--disable-pip-version-check"]
    subprocess.run([*pip, "install", "--quiet", "-r", str(REQUIREMENTS)], check=True)
    subprocess.run([*pip, "check"], check=True)
    STAMP.write_text(wanted, encoding="utf-8")
    return python


def compare(report: dict) -> list[str]:
    """Every difference between the measured counts and calc.lora's, as sentences."""
    problems = []
    missing = sorted(set(PRESETS) - set(report["models"]))
    if missing:
        problems.append(f"presets never measured: {', '.join(missing)}")
    for key in report["presets"]:
        if key in PRESETS and ModelShape(**report["models"][key]["shape"]) != PRESETS[key]:
            problems.append(f"{key}: the preset changed since it was measured")
    for key, measured in report["models"].items():
        shape = ModelShape(**measured["shape"])
        if base_parameters(shape) != measured["parameters"]:
            problems.append(f"{key}: {base_parameters(shape)} parameters, transformers {measured['parameters']}")
        if quantized_weights(shape) != measured["quantized_weights"]:
            problems.append(
                f"{key}: {quantized_weights(shape)} quantized weights, transformers {measured['quantized_weights']}"
            )
        for point in measured["lora"]:
            ours = lora_parameters(shape, point["rank"], report["target_sets"][point["targets"]])
            if ours != point["trainable"] or measured["parameters"] + ours != point["all_parameters"]:
                problems.append(
                    f"{key}, r={point['rank']} on {point['targets']}: {ours} trainable, "
                    f"peft {point['trainable']} of {point['all_parameters']}"
                )
    return problems


def summary(report: dict) -> str:
    width = max(map(len, report["models"]))
    lines = [f"{'model':<{width}}  {'parameters':>16}  {'quantized':>16}  {'LoRA points':>11}"]
    for key, measured in sorted(report["models"].items()):
        lines.append(
            f"{key:<{width}}  {measured['parameters']:>16,}  {measured['quantized_weights']:>16,}"
            f"  {len(measured['lora']):>11}"
        )
    versions = report["versions"]
    lines.append(
        f"{report['configurations']['models']} models ({len(report['presets'])} presets), "
        f"{report['configurations']['lora']} LoRA configurations; "
        f"transformers {versions['transformers']}, peft {versions['peft']}, torch {versions['torch']}"
    )
    return "\n".join(lines)


def main() -> int:
    start = time.monotonic()
    python = ensure_environment()
    installed = time.monotonic()
    subprocess.run([str(python), str(MEASURE), str(OUTPUT)], check=True)
    measured = time.monotonic()
    report = json.loads(OUTPUT.read_text(encoding="utf-8"))
    print(summary(report))
    print(f"environment {installed - start:.0f} s, measurement {measured - installed:.0f} s")
    problems = compare(report)
    for problem in problems:
        print(f"DIFFERS: {problem}")
    if problems:
        print(f"{len(problems)} counts differ from calc.lora's")
        return 1
    print(f"every count equals calc.lora's; wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
