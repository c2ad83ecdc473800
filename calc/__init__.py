"""The calculators' Python core, run at build time by CPython and in the page by Pyodide.

One value travels one way through these modules:

- :mod:`calc.parsing` reads the text a visitor typed, in the page's locale;
- :mod:`calc.fields` checks it against what the field accepts;
- a calculator module such as :mod:`calc.accumulation` computes the results;
- :mod:`calc.formatting` writes numbers and units back in the locale;
- :mod:`calc.evaluation` ties those steps into the view a page shows,
  with :mod:`calc.messages` wording each problem through gettext;
- :mod:`calc.browser` is the door the web worker calls.
"""
