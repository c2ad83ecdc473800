"""Where things are, and what the site is made of.

Adding a locale: its catalog in ``locales/`` and its code in ``LOCALES``.
Adding a calculator: its module in ``calc/``, its template, and a line in ``PAGES``.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates"
LOCALES_DIR = ROOT / "locales"
WEB = ROOT / "web"
PYODIDE_PACKAGE = ROOT / "node_modules" / "pyodide"
WORK = ROOT / "build"

# The first locale is the one the language chooser lists first.
LOCALES = ("es", "it")

# Calculator name -> (template, path of its page inside a locale's folder).
PAGES = {"accumulation": ("accumulation.html", "index.html")}

# Site layout, relative to the output folder.
ASSETS = "assets"
RUNTIME = "pyodide"
CATALOG = "messages.mo"
