"""A static file server for the built site, on 127.0.0.1 only.

Used by `make serve`, the browser tests and the benchmark. It sets the
types Pyodide needs (`.wasm` as application/wasm, `.mjs` as JavaScript)
whatever this machine's MIME table says.
"""

from __future__ import annotations

import argparse
import functools
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
    ".mo": "application/octet-stream",
    ".zip": "application/zip",
}


class StaticHandler(SimpleHTTPRequestHandler):
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, **TYPES}

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
    args = parser.parse_args()
    server = make_server(args.directory, args.port)
    print(f"Serving {args.directory}/ on http://127.0.0.1:{args.port}/ (Ctrl+C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
