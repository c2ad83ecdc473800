"""The calculators' Python core, run at build time by CPython and in the page by Pyodide.

Values travel one way through these modules:

- :mod:`calc.parsing` reads a number typed in the page's locale;
- :mod:`calc.inputs` holds the kinds of input (counts, amounts, choices):
  how each reads its value, what it accepts, how it is written back;
- a calculator module (:mod:`calc.accumulation`, :mod:`calc.vram`,
  :mod:`calc.lora`) computes the results, from data such as
  :mod:`calc.models` and :mod:`calc.gpus`;
- :mod:`calc.outputs` holds the kinds of result (figures, tables, bars),
  written in the locale by :mod:`calc.formatting` and drawn by :mod:`calc.charts`;
- :mod:`calc.evaluation` ties those steps into the view a page shows,
  with :mod:`calc.messages` wording each problem through gettext;
- :mod:`calc.browser` is the door the web worker calls.
"""
