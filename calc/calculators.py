"""Every calculator the site has, by the name its page and worker use."""

from calc import accumulation, lora, plan, vram
from calc.evaluation import Calculator

CALCULATORS: dict[str, Calculator] = {
    c.name: c for c in (accumulation.CALCULATOR, vram.CALCULATOR, lora.CALCULATOR, plan.CALCULATOR)
}
