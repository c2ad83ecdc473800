"""A static file server for the built site, on 127.0.0.1 only.

Used by `make serve`, the browser tests and the benchmark. It sets the
types Pyodide needs (`.wasm` as application/wasm, `.mjs` as JavaScript)
whatever this machine's MIME table says, and compresses text, JSON and
WebAssembly for a browser that accepts it, as common static hosts do
(archives and `application/octet-stream` go as they are): with the
build's brotli or gzip copy beside the file where there is one
(`sitebuild/precompress.py`), gzipped on the fly otherwise, or always, as
GitHub Pages does, with `--as-github-pages`.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import io
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

TYPES = {
    ".wasm": "application/wasm",
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".json": "application/json",
    ".whl": "application/zip",
    ".gzip": "application/gzip",
    ".bin": "application/octet-stream",
    ".zip": "application/zip",
}


# What is sent gzipped, besides text/*.
COMPRESSIBLE = {"text/javascript", "application/json", "application/wasm", "image/svg+xml"}


@functools.lru_cache(maxsize=64)
def gzipped(path: str, modified_ns: int) -> bytes:
    """The file's content gzipped (once per version: a host caches it too)."""
    with open(path, "rb") as file:
        return gzip.compress(file.read(), compresslevel=6, mtime=0)


def copy_beside(path: str, suffix: str) -> bytes | None:
    """The build's compressed copy of the file at ``path``, unless missing or older than the file."""
    try:
        if os.stat(path + suffix).st_mtime_ns >= os.stat(path).st_mtime_ns:
            with open(path + suffix, "rb") as file:
                return file.read()
    except FileNotFoundError:
        pass
    return None


class StaticHandler(SimpleHTTPRequestHandler):
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, **TYPES}
    # Whether the build's .br and .gz copies are served (GitHub Pages ignores them).
    precompressed = True
    status = 0
    compressed: bytes | None = None
    encoding = ""

    def send_head(self):
        # The file's content compressed, when it is sent: the parent class
        # sends it, and its headers, with its length swapped in send_header.
        self.compressed = None
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            path = os.path.join(path, "index.html")
        kind = self.guess_type(path)
        accepted = {token.split(";")[0].strip() for token in self.headers.get("Accept-Encoding", "").split(",")}
        if os.path.isfile(path) and (kind.startswith("text/") or kind in COMPRESSIBLE):
            if self.precompressed and "br" in accepted and (copy := copy_beside(path, ".br")) is not None:
                self.compressed, self.encoding = copy, "br"
            elif "gzip" in accepted:
                copy = copy_beside(path, ".gz") if self.precompressed else None
                self.compressed, self.encoding = copy or gzipped(path, os.stat(path).st_mtime_ns), "gzip"
        body = super().send_head()
        if body is None or self.status != 200:
            return body
        # The file's own length, whatever the encoding (the benchmark counts both).
        self.content_length = os.fstat(body.fileno()).st_size
        if self.compressed is None:
            return body
        body.close()
        return io.BytesIO(self.compressed)

    def send_response(self, code: int, message: str | None = None) -> None:
        self.status = code
        super().send_response(code, message)

    def send_header(self, keyword: str, value: str) -> None:
        if keyword == "Content-Length" and self.status == 200 and self.compressed is not None:
            super().send_header("Content-Encoding", self.encoding)
            super().send_header("Vary", "Accept-Encoding")
            value = str(len(self.compressed))
        super().send_header(keyword, value)

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet: tests and benchmark read the browser, not the log


def sending(headers: dict[str, str]) -> type[StaticHandler]:
    """A handler that adds ``headers`` to every response, as a configured host would."""

    class WithHeaders(StaticHandler):
        def end_headers(self) -> None:
            for name, value in headers.items():
                self.send_header(name, value)
            super().end_headers()

    return WithHeaders


class AsGitHubPages(StaticHandler):
    """Gzips on the fly and ignores the build's compressed copies, as GitHub Pages does."""

    precompressed = False


def make_server(
    directory: Path, port: int = 0, handler_class: type[StaticHandler] = StaticHandler
) -> ThreadingHTTPServer:
    """A server for ``directory`` on 127.0.0.1 (``port=0``: any free port)."""
    handler = functools.partial(handler_class, directory=str(directory))
    return ThreadingHTTPServer(("127.0.0.1", port), handler)


@contextmanager
def serving(directory: Path, handler_class: type[StaticHandler] = StaticHandler) -> Iterator[str]:
    """Serve ``directory`` in a thread for the ``with`` block; yields the base URL."""
    server = make_server(directory, handler_class=handler_class)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--as-github-pages", action="store_true", help="ignore the build's .br and .gz copies")
    args = parser.parse_args()
    server = make_server(args.directory, args.port, AsGitHubPages if args.as_github_pages else StaticHandler)
    print(f"Serving {args.directory}/ on http://127.0.0.1:{args.port}/ (Ctrl+C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
