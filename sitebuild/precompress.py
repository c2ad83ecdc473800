"""Precompressed copies of the site's big text and WebAssembly files, for hosts that serve them.

A host that serves ``name.br`` or ``name.gz`` for ``name`` to a browser that
accepts it (nginx's ``brotli_static``/``gzip_static``, Netlify, Cloudflare
Pages with such files, ``tools/serve.py``) sends fewer bytes than one that
gzips on the fly, most of all for ``pyodide.asm.wasm`` as brotli at its
highest quality (docs/performance.md has the sizes). The plain files stay,
and nothing reads these copies but such a host: GitHub Pages gzips on its
own and ignores them, and the service worker does not cache them
(``sitebuild/offline.py``).

Brotli at its highest quality is slow for the ``.wasm``, which is the same
build after build (Pyodide is pinned), so each compressed copy is kept in
a cache folder outside the tree, named by its content's hash. Nothing
prunes it: the copies of files that changed stay until the folder
(``CACHE``) is deleted, which costs only the next build's time.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path

import brotli

# What static hosts compress: text, JSON and WebAssembly (the snapshot is
# gzipped already, archives and catalogs are sent as they are).
SUFFIXES = {".html", ".css", ".js", ".mjs", ".json", ".svg", ".wasm"}
# Smaller files gain less than a response's headers.
AT_LEAST = 1024
ENCODINGS = {".br": lambda data: brotli.compress(data, quality=11), ".gz": lambda data: gzip.compress(data, 9, mtime=0)}
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "calc-site" / "precompressed"


def precompress(site: Path, cache: Path = CACHE) -> list[Path]:
    """Write ``.br`` and ``.gz`` beside each big compressible file of ``site`` when smaller; return what was written."""
    written = []
    for path in sorted(p for p in site.rglob("*") if p.is_file() and p.suffix in SUFFIXES):
        data = path.read_bytes()
        if len(data) < AT_LEAST:
            continue
        digest = hashlib.sha256(data).hexdigest()
        for suffix, compress in ENCODINGS.items():
            cached = cache / f"{digest}{suffix}"
            if not cached.exists():
                cache.mkdir(parents=True, exist_ok=True)
                partial = cached.with_suffix(f".{os.getpid()}.partial")
                partial.write_bytes(compress(data))
                partial.replace(cached)  # whole or absent, should two builds run at once
            compressed = cached.read_bytes()
            if len(compressed) < len(data):
                target = path.with_name(path.name + suffix)
                target.write_bytes(compressed)
                written.append(target)
    return written


def is_precompressed(path: str) -> bool:
    """Whether ``path`` (of the site) is a copy ``precompress`` wrote."""
    name = Path(path)
    return name.suffix in ENCODINGS and name.with_suffix("").suffix in SUFFIXES
