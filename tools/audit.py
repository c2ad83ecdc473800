"""Lighthouse on every page, mobile and desktop: `make audit`. It prints the scores.

Builds the site with SITE_URL set to the local server's address (so that
canonical and alternate links are absolute, as on a real host), serves it
on 127.0.0.1 and runs the pinned Lighthouse (npm) against each page.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
CHROME_FLAGS = " ".join(
    ["--headless=new", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
    + ["--no-first-run", "--disable-sync"]
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def chrome_path() -> str:
    sys.path.insert(0, str(ROOT))
    from tests.browser import SYSTEM_CHROMIUM, playwright_chromium

    return playwright_chromium() or SYSTEM_CHROMIUM


def lighthouse(url: str, form_factor: str, report: Path, chrome: str) -> dict[str, float]:
    flags = CHROME_FLAGS + (" --no-sandbox" if os.geteuid() == 0 else "")
    command = [
        str(ROOT / "node_modules" / ".bin" / "lighthouse"), url, "--quiet",
        f"--chrome-flags={flags}", f"--only-categories={','.join(CATEGORIES)}",
        "--output=json", f"--output-path={report}",
    ]  # fmt: skip
    if form_factor == "desktop":
        command.append("--preset=desktop")
    subprocess.run(command, check=True, env={**os.environ, "CHROME_PATH": chrome})
    result = json.loads(report.read_text(encoding="utf-8"))
    return {name: result["categories"][name]["score"] * 100 for name in CATEGORIES}


def main() -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}/"
    with tempfile.TemporaryDirectory() as folder:
        site = Path(folder) / "site"
        subprocess.run(
            [sys.executable, str(ROOT / "build.py"), "--out", str(site)],
            check=True,
            env={**os.environ, "SITE_URL": base},
        )
        sys.path.insert(0, str(ROOT))
        from sitebuild.config import LOCALES, PAGES
        from tools.serve import make_server

        server = make_server(site, port)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        chrome = chrome_path()
        rows = []
        try:
            for path in ("", *(f"{code}/{page}" for code in LOCALES for page in PAGES.values())):
                for form_factor in ("mobile", "desktop"):
                    scores = lighthouse(base + path, form_factor, Path(folder) / "report.json", chrome)
                    rows.append((f"/{path}", form_factor, scores))
        finally:
            server.shutdown()
    print(f"\n| page | device | {' | '.join(CATEGORIES)} |\n|---|---|{'---|' * len(CATEGORIES)}")
    for page, form_factor, scores in rows:
        print(f"| {page} | {form_factor} | {' | '.join(f'{scores[c]:.0f}' for c in CATEGORIES)} |")


if __name__ == "__main__":
    main()
