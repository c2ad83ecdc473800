"""The calculators' Python core, run at build time by CPython and in the page by Pyodide.

Values travel one way through these modules:

- :mod:`calc.parsing` reads a number typed in the page's locale;
- :mod:`calc.inputs` holds the kinds of input (counts, amounts, choices):
  how each reads its value, what it accepts, how it is written back;
- :mod:`calc.formulas` holds the arithmetic, with its sources, from data
  such as :mod:`calc.models` and :mod:`calc.gpus`; it imports no Babel;
- the inputs several pages share sit in modules of their own, since a page's
  worker imports only its calculator: :mod:`calc.model_inputs` (with
  :mod:`calc.presets` and :mod:`calc.configs`), :mod:`calc.batch_inputs`,
  :mod:`calc.step_inputs` and :mod:`calc.step_outputs`;
- a calculator module, one per page (:data:`calc.calculators.PAGES`),
  declares a page (:class:`calc.calculator.Calculator`): its inputs, its
  outputs, and how the formulas fill them;
- :mod:`calc.outputs` holds the kinds of result (figures, tables, bars),
  written in the locale by :mod:`calc.formatting` and drawn by :mod:`calc.charts`;
- :mod:`calc.evaluation` ties those steps into the view a page shows,
  each problem (:mod:`calc.problems`) wording itself through gettext;
- :mod:`calc.browser` is the door the web worker calls; :mod:`calc.i18n`
  loads the catalogs it words things with, and :mod:`calc.calculators`
  names every page.
"""
