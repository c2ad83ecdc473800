"""Where things are, and what the site is made of.

Adding a locale: its catalog in ``locales/`` and its code in ``LOCALES``.
Adding a calculator: see :mod:`calc.calculators`, which says where its page is (``PAGES``).
"""

from pathlib import Path

# Each calculator's page folder, declared beside the calculators' names: one
# registry, so that no page comes without its calculator nor the other way.
from calc.calculators import PAGES as PAGES

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates"
LOCALES_DIR = ROOT / "locales"
WEB = ROOT / "web"
PYODIDE_PACKAGE = ROOT / "node_modules" / "pyodide"

# The first locale is the one the language chooser lists first, and where the
# site's root sends a visitor whose languages the site does not have.
LOCALES = ("en", "es", "it")

# Site layout, relative to the output folder.
ASSETS = "assets"
RUNTIME = "pyodide"
# Each locale's compiled catalog, gzipped by the build as the snapshot is: hosts send a .mo file as it is, and
# gzipped it is a third of the size; the worker inflates it (web/calc-worker.js).
CATALOG = "messages.mo.gzip"

# The pages' Content-Security-Policy, as a <meta> so it holds on any static
# host: everything from the site's own origin, nothing inline, no eval.
# (Pyodide compiles its WebAssembly in the worker, which has its own policy.)
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        "worker-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
    ]
)

# What the README asks a host to send with every response where it can: the
# same policy as a header (which also reaches the workers, so Pyodide's
# WebAssembly needs 'wasm-unsafe-eval' there), and two more.
RECOMMENDED_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY.replace(
        "script-src 'self'", "script-src 'self' 'wasm-unsafe-eval'"
    )
    + "; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
