"""The service worker that serves the site from a cache named by its content."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from sitebuild.config import RUNTIME, WEB
from sitebuild.precompress import is_precompressed
from sitebuild.runtime import STDLIB

SERVICE_WORKER = "sw.js"


def fetched_when_needed(relative: str) -> bool:
    """Whether only the worker's fallback boot reads the site's file ``relative``.

    Pyodide's standard library (a restored snapshot gets an empty one) and
    the wheels (it gets their data files alone): the service worker keeps
    them once that boot has fetched them, rather than every visitor
    downloading them up front (their size: docs/performance.md).
    """
    return relative == f"{RUNTIME}/{STDLIB}" or (relative.startswith(f"{RUNTIME}/") and relative.endswith(".whl"))


def precache_list(site: Path) -> list[str]:
    """Every file of the site as the pages request it (folders for their index.html).

    But those fetched when needed, and the precompressed copies, which only a host reads.
    """
    paths = []
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        relative = path.relative_to(site).as_posix()
        if relative == SERVICE_WORKER or fetched_when_needed(relative) or is_precompressed(relative):
            continue
        if path.name == "index.html":
            relative = relative[: -len("index.html")] or "./"
        paths.append(relative)
    return paths


def write_service_worker(site: Path) -> str:
    """Write ``sw.js`` at the site's root; return the version it caches."""
    files = precache_list(site)
    digest = hashlib.sha256()
    for url in files:
        path = site / (url + "index.html" if url.endswith("/") else url)
        digest.update(url.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    version = digest.hexdigest()[:16]
    header = f"const VERSION = {json.dumps(version)};\nconst FILES = {json.dumps(files)};\n"
    (site / SERVICE_WORKER).write_text(header + (WEB / SERVICE_WORKER).read_text(encoding="utf-8"), encoding="utf-8")
    return version
