"""Make sure the browser tests have a Chromium to drive.

Playwright's own build is preferred; where it cannot be downloaded,
Debian's chromium is installed (as root, with apt-get) and used instead.
`tests/browser.py` makes the same choice when launching.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.browser import SYSTEM_CHROMIUM, playwright_chromium  # noqa: E402


def main() -> None:
    if playwright_chromium():
        return
    install = subprocess.run([sys.executable, "-m", "playwright", "install", "chromium"], capture_output=True)
    if install.returncode == 0 and playwright_chromium():
        return
    if Path(SYSTEM_CHROMIUM).exists():
        return
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        sys.exit(f"No Chromium for the browser tests: run `playwright install chromium` or install {SYSTEM_CHROMIUM}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], check=True, env=env)


if __name__ == "__main__":
    main()
