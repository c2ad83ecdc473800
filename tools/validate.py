"""``make validate``: check calc.formulas.parameters' counts and calc.formulas.activations' bytes against PyTorch's own.

1. Makes the virtual environment ``.venv-validate`` with this Python's
   ``venv`` and installs ``validation/requirements.txt`` into it (again
   whenever that file changes).
2. Runs ``tools/measure_parameters.py`` inside it, which builds every preset
   (and a few small test shapes) on the meta device and writes
   ``validation/parameters.json``.
3. Compares every count in that file with :mod:`calc.formulas.parameters`'s and prints a
   summary.
4. Runs ``tools/measure_activations.py`` inside it, which trains small random
   models for a step on the CPU, counts the bytes autograd saves, and writes
   ``validation/activations.json``.
5. Compares every point in that file with :mod:`calc.formulas.activations`' estimate
   and prints them; checks the accumulation cycles.
6. Runs ``tools/measure_steps.py`` inside it, which profiles whole training
   steps (forward, loss, backward, optimizer) of small random models on the
   CPU and writes ``validation/steps.json``; compares every step's peak with
   :mod:`calc.formulas.step`'s and prints them.

Exits with 1 if any count differs, if a preset was not measured, if an
estimate is off by more than ``TOLERANCE``, or if the accumulation peak is
not flat in the accumulation steps and linear in the micro-batch.

The tests (``tests/test_lora_counts.py``, ``tests/test_activations.py``, ``tests/test_steps.py``)
make the same comparisons against the committed files, without torch.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from calc.formulas.activations import activation_bytes  # noqa: E402
from calc.formulas.parameters import (  # noqa: E402
    base_parameters,
    lora_parameters,
    quantized_weights,
    target_modules,
)
from calc.formulas.step import Setting, step_peak  # noqa: E402
from calc.models import PRESETS, ModelShape, counted  # noqa: E402

VENV = ROOT / ".venv-validate"
REQUIREMENTS = ROOT / "validation" / "requirements.txt"
OUTPUT = ROOT / "validation" / "parameters.json"
MEASURE = ROOT / "tools" / "measure_parameters.py"
ACTIVATIONS = ROOT / "validation" / "activations.json"
MEASURE_ACTIVATIONS = ROOT / "tools" / "measure_activations.py"
STEPS = ROOT / "validation" / "steps.json"
MEASURE_STEPS = ROOT / "tools" / "measure_steps.py"
# calc.formulas.step.Setting's fields, as a measured step records them.
STEP_FIELDS = ("recipe", "sequence_length", "attention", "recomputation", "method", "lora_rank", "lora_targets")
# How far calc.formulas.activations' estimate may be from a measured point, relatively.
TOLERANCE = Fraction(1, 10)
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
    """Every difference between the measured counts and calc.formulas.parameters', as sentences."""
    problems = []
    missing = sorted(set(PRESETS) - set(report["models"]))
    if missing:
        problems.append(f"presets never measured: {', '.join(missing)}")
    for key in report["presets"]:
        if key in PRESETS and counted(ModelShape(**report["models"][key]["shape"])) != counted(PRESETS[key]):
            problems.append(f"{key}: the preset changed since it was measured")
    for key, measured in report["models"].items():
        shape = ModelShape(**measured["shape"])
        if base_parameters(shape) != measured["parameters"]:
            problems.append(f"{key}: {base_parameters(shape)} parameters, transformers {measured['parameters']}")
        if quantized_weights(shape) != measured["quantized_weights"]:
            problems.append(
                f"{key}: {quantized_weights(shape)} quantized weights, transformers {measured['quantized_weights']}"
            )
        if sorted(target_modules(shape)) != sorted(measured["targets"]):
            problems.append(f"{key}: targets {target_modules(shape)}, the model has {measured['targets']}")
        for point in measured["lora"]:
            ours = lora_parameters(shape, point["rank"], point["targets"])
            if ours != point["trainable"] or measured["parameters"] + ours != point["all_parameters"]:
                problems.append(
                    f"{key}, r={point['rank']} on {','.join(point['targets'])}: {ours} trainable, "
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


def activation_error(point: dict, models: dict) -> Fraction:
    """calc.formulas.activations' estimate for a measured point, as it stands now, less the measurement, relatively."""
    settings = {key: point[key] for key in ("sequence_length", "precision", "attention", "recomputation")}
    measured = Fraction(point["measured_bytes_per_sample"])
    return (activation_bytes(ModelShape(**models[point["model"]]), **settings) - measured) / measured


def compare_activations(report: dict) -> list[str]:
    """Every point off by more than TOLERANCE, and any accumulation peak out of line, as sentences."""
    problems = []
    for point in report["points"]:
        error = activation_error(point, report["models"])
        if abs(error) > TOLERANCE:
            problems.append(
                f"{point['model']} s={point['sequence_length']} {point['precision']} {point['attention']}"
                f" {point['recomputation']}: estimate off by {float(error):+.1%}"
            )
    peaks = {
        (c["micro_batch"], c["accumulation_steps"]): c["peak_saved_bytes"] for c in report["accumulation"]["cycles"]
    }
    for (b, a), peak in peaks.items():
        if peak != peaks[b, 1]:
            problems.append(f"accumulation: {a} steps of {b} samples peak at {peak} bytes, one step at {peaks[b, 1]}")
    # Linear in b: from the smallest micro-batch on, the same bytes per added sample, within 0.1%.
    smallest, *larger = sorted({b for b, _ in peaks})
    slopes = [Fraction(peaks[b, 1] - peaks[smallest, 1], b - smallest) for b in larger]
    if max(slopes) - min(slopes) > min(slopes) / 1000:
        problems.append(f"accumulation: the peak is not linear in the micro-batch ({slopes} bytes per sample)")
    return problems


def activation_summary(report: dict) -> str:
    """The points as a table: bytes per sample measured, and the estimate's error, by sequence length."""
    lengths = sorted({point["sequence_length"] for point in report["points"]})
    rows: dict[tuple, dict[int, str]] = {}
    for point in report["points"]:
        row = (point["model"], point["precision"], point["attention"], point["recomputation"])
        error = activation_error(point, report["models"])
        cell = f"{int(Fraction(point['measured_bytes_per_sample'])):>11,} {float(error):+7.2%}"
        rows.setdefault(row, {})[point["sequence_length"]] = cell
    width = max(len(row[0]) for row in rows)
    lines = [
        f"{'model':<{width}}  prec  attn   recompute" + "".join(f"  {f's={n}: bytes, error':>19}" for n in lengths)
    ]
    for (model, precision, attention, recomputation), cells in rows.items():
        lines.append(
            f"{model:<{width}}  {precision:<4}  {attention:<5}  {recomputation:<9}"
            + "".join(f"  {cells[n]}" for n in lengths)
        )
    largest = max(abs(activation_error(point, report["models"])) for point in report["points"])
    cycles = ", ".join(
        f"{c['micro_batch']}×{c['accumulation_steps']}: {c['peak_saved_bytes']:,}"
        for c in report["accumulation"]["cycles"]
    )
    lines.append(f"{len(report['points'])} points, largest error {float(largest):.2%}")
    lines.append(f"accumulation peaks, bytes (micro-batch × steps): {cycles}")
    lines.append(f"transformers {report['versions']['transformers']}, torch {report['versions']['torch']}")
    return "\n".join(lines)


def step_setting(point: dict) -> Setting:
    """The calc.formulas.step setting of a measured step."""
    return Setting(**{field: point[field] for field in STEP_FIELDS if field in point})


def step_error(point: dict, models: dict) -> Fraction:
    """calc.formulas.step's peak for a measured step, as it stands now, less the measurement, relatively."""
    measured = Fraction(point["measured_peak_bytes"])
    estimate = step_peak(ModelShape(**models[point["model"]]), step_setting(point), point["micro_batch"]).total
    return (estimate - measured) / measured


def compare_steps(report: dict) -> list[str]:
    """Every step whose estimated peak is off by more than TOLERANCE, as sentences."""
    problems = []
    for point in report["points"]:
        error = step_error(point, report["models"])
        if abs(error) > TOLERANCE:
            problems.append(f"{_step_label(point)} b={point['micro_batch']}: estimate off by {float(error):+.1%}")
    return problems


def _step_label(point: dict) -> str:
    method = point["method"] if point["method"] == "full" else f"lora r={point['lora_rank']}"
    return (
        f"{point['model']} {method} {point['recipe']} {point['attention']} {point['recomputation']}"
        f" s={point['sequence_length']}"
    )


def step_summary(report: dict) -> str:
    """The steps as a table: the measured peak, the estimate's error and the moment it puts the peak at, by b."""
    rows: dict[str, dict[int, str]] = {}
    for point in report["points"]:
        error = step_error(point, report["models"])
        shape = ModelShape(**report["models"][point["model"]])
        moment = step_peak(shape, step_setting(point), point["micro_batch"]).moment
        cell = f"{point['measured_peak_bytes']:>11,} {float(error):+6.2%} {moment:<24}"
        rows.setdefault(_step_label(point), {})[point["micro_batch"]] = cell
    batches = sorted({point["micro_batch"] for point in report["points"]})
    width = max(map(len, rows))
    lines = [f"{'step':<{width}}" + "".join(f"  {f'b={b}: peak bytes, error, moment':<44}" for b in batches)]
    for label, cells in rows.items():
        lines.append((f"{label:<{width}}" + "".join(f"  {cells.get(b, ''):<44}" for b in batches)).rstrip())
    errors = [abs(step_error(point, report["models"])) for point in report["points"]]
    lines.append(
        f"{len(errors)} steps, largest error {float(max(errors)):.2%}, mean {float(sum(errors) / len(errors)):.2%}"
    )
    versions = report["versions"]
    lines.append(f"torch {versions['torch']}, transformers {versions['transformers']}, peft {versions['peft']}")
    return "\n".join(lines)


def measure_and_compare(
    python: Path,
    script: Path,
    output: Path,
    summarize: Callable[[dict], str],
    compare: Callable[[dict], list[str]],
    what: str,
) -> list[str]:
    """Run one measuring script in the environment, print its table, and return what is off calc's estimate."""
    started = time.monotonic()
    subprocess.run([str(python), str(script), str(output)], check=True)
    report = json.loads(output.read_text(encoding="utf-8"))
    print(summarize(report))
    print(f"{what}: measured in {time.monotonic() - started:.0f} s")
    off = compare(report)
    for problem in off:
        print(f"OFF: {problem}")
    if off:
        print(f"{len(off)} {what} are off calc's estimate by more than {float(TOLERANCE):.0%}")
    else:
        print(f"all {what} within {float(TOLERANCE):.0%} of calc's estimate; wrote {output.relative_to(ROOT)}")
    return off


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
        print(f"{len(problems)} counts differ from calc.formulas.parameters'")
    else:
        print(f"every count equals calc.formulas.parameters'; wrote {OUTPUT.relative_to(ROOT)}")
    off = measure_and_compare(
        python, MEASURE_ACTIVATIONS, ACTIVATIONS, activation_summary, compare_activations, "activation points"
    )
    wrong = measure_and_compare(python, MEASURE_STEPS, STEPS, step_summary, compare_steps, "steps")
    return 1 if problems or off or wrong else 0


if __name__ == "__main__":
    sys.exit(main())
