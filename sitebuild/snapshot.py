"""The memory snapshot the page's worker starts Python from.

Pyodide's own start, the interpreter's initialisation mostly, takes 2–4 s
on a 2-core machine; restoring its WebAssembly memory as it was once calc
was imported takes a fraction of that. The snapshot is made here by the
site's own Pyodide under Node (``make_snapshot.mjs``), and only that very
``pyodide.asm.wasm`` accepts it (Pyodide checks its build id).

It ships without its zero pages, then gzipped (``pack_pages``): 31 MB
raw, of which 11 MB are pages with a nonzero byte, and 4.4 MB gzipped.
The worker's buffer starts zeroed, so it inflates and writes only those
11 MB: 80-100 ms instead of 190-260 under Node, on the thread that also
starts Pyodide. Many static hosts send
``application/octet-stream`` as it is, so the worker inflates it with the
browser's ``DecompressionStream`` as it arrives. (Brotli would be a third
smaller, but browsers only inflate it as a Content-Encoding, which a
static host cannot be relied on to send; gzip at level 9 saves 1% over
level 6 and takes five times as long.) Two steps took it from 6.9 MB:
the memory malloc had freed is zeroed before the snapshot (1.0 MB less),
and the static data is XORed with the WebAssembly's own (``web/snapshot.js``,
1.5 MB less). Its name ends in ``.bin``, not
``.gz``, because some hosts send a ``.gz`` file with ``Content-Encoding:
gzip`` and the worker would then get it inflated already. The name holds
a hash of the content, so no cache ever gives a page another build's.

Nothing is imported after the snapshot point (``tests/test_pyodide.py``
proves it for every calculator, locale and error path), so a restored
interpreter gets an empty standard library instead of the 2.5 MB
``python_stdlib.zip``, which stays for the worker's fallback, Pyodide's
own boot. For the same reason it needs none of the wheels' bytecode, only
the files that calc and Babel read (Babel's data): those come in a small
archive of their own (``wheel-data-<hash>.zip``, 23 KB where the wheels
are 294 KB), and the wheels too are left to the fallback.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import shutil
import struct
import subprocess
import zipfile
from itertools import chain
from pathlib import Path

MAKER = Path(__file__).with_name("make_snapshot.mjs")

# What a restored interpreter is given as its standard library: nothing.
EMPTY_STDLIB = "python_stdlib_after_snapshot.zip"

# The unit in which the stored snapshot leaves out zeros (PAGE in web/snapshot.js).
PAGE = 4096


def pack_pages(memory: bytes) -> bytes:
    """``memory`` without its all-zero pages, as the worker reads it (``inflateInto`` in web/snapshot.js).

    The number of runs of nonzero pages, then each run's first page and
    number of pages, all as little-endian uint32; then the runs' bytes, in
    order. The last page may be short.

    >>> memory = bytes(PAGE) + b"ab" + bytes(2 * PAGE) + b"c"
    >>> packed = pack_pages(memory)
    >>> struct.unpack_from("<5I", packed), len(packed)
    ((2, 1, 1, 3, 1), 4119)
    >>> unpack_pages(packed, len(memory)) == memory
    True
    """
    zero = bytes(PAGE)
    pages = -(-len(memory) // PAGE)
    runs: list[list[int]] = []
    for page in range(pages):
        chunk = memory[page * PAGE : (page + 1) * PAGE]
        if chunk == zero[: len(chunk)]:
            continue
        if runs and sum(runs[-1]) == page:
            runs[-1][1] += 1
        else:
            runs.append([page, 1])
    header = struct.pack(f"<{1 + 2 * len(runs)}I", len(runs), *chain.from_iterable(runs))
    return header + b"".join(memory[first * PAGE : (first + count) * PAGE] for first, count in runs)


def unpack_pages(packed: bytes, size: int) -> bytes:
    """The ``size`` bytes of memory that ``pack_pages`` packed."""
    (count,) = struct.unpack_from("<I", packed)
    runs = struct.unpack_from(f"<{2 * count}I", packed, 4)
    memory = bytearray(size)
    at = 4 + 8 * count
    for first, pages in zip(runs[::2], runs[1::2], strict=True):
        start, end = first * PAGE, min((first + pages) * PAGE, size)
        memory[start:end] = packed[at : at + end - start]
        at += end - start
    return bytes(memory)


def is_read_after_restore(name: str) -> bool:
    """Whether a restored interpreter reads the wheels' file ``name``: data, not code or metadata.

    >>> [is_read_after_restore(n) for n in ("babel/global.dat", "babel/core.pyc", "calc-1.0.0.dist-info/RECORD")]
    [True, False, False]
    """
    return not name.endswith((".py", ".pyc")) and ".dist-info/" not in name


def write_wheel_data(site_packages: Path, runtime: Path) -> tuple[str, str]:
    """Write the wheels' files a restored interpreter reads into an archive in ``runtime``; its name and sha256."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(p for p in site_packages.rglob("*") if p.is_file()):
            name = path.relative_to(site_packages).as_posix()
            if is_read_after_restore(name):
                entry = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))  # the same bytes build after build
                archive.writestr(entry, path.read_bytes(), zipfile.ZIP_DEFLATED)
    data = buffer.getvalue()
    digest = hashlib.sha256(data).hexdigest()
    name = f"wheel-data-{digest[:16]}.zip"
    (runtime / name).write_bytes(data)
    return name, digest


def build_snapshot(runtime: Path, wheels: list[Path], work: Path) -> dict[str, str | int]:
    """Write the gzipped snapshot, its standard library and the wheels' data into ``runtime``.

    Returns their names, the snapshot's size and the data's sha256, as the worker reads them.

    ``runtime`` is the site's Pyodide folder, its lockfile written; ``wheels``
    are the wheels the worker installs.
    """
    if work.exists():
        shutil.rmtree(work)
    site_packages = work / "site-packages"
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(site_packages)
    raw = work / "snapshot"
    subprocess.run(["node", str(MAKER), str(runtime), str(site_packages), str(raw)], check=True, cwd=MAKER.parent)
    snapshot = raw.read_bytes()
    data = gzip.compress(pack_pages(snapshot), compresslevel=6, mtime=0)
    memory = f"snapshot-{hashlib.sha256(data).hexdigest()[:16]}.bin"
    (runtime / memory).write_bytes(data)
    zipfile.ZipFile(runtime / EMPTY_STDLIB, "w").close()
    files, files_sha256 = write_wheel_data(site_packages, runtime)
    return {
        "memory": memory,
        "stdlib": EMPTY_STDLIB,
        "size": len(snapshot),
        "files": files,
        "filesSha256": files_sha256,
    }


_DECLARATION = "const SNAPSHOT = "


def tell_worker(worker: Path, snapshot: dict[str, str | int]) -> None:
    """Prepend what ``build_snapshot`` returned to the worker's script, as ``SNAPSHOT``.

    In the script itself rather than a file beside it, so that fetching
    the snapshot waits for no other request.
    """
    header = f"{_DECLARATION}{json.dumps(snapshot)};\n"
    worker.write_text(header + worker.read_text(encoding="utf-8"), encoding="utf-8")


def told_worker(worker: Path) -> dict[str, str | int]:
    """What ``tell_worker`` prepended to ``worker``."""
    header = worker.read_text(encoding="utf-8").split("\n", 1)[0]
    return json.loads(header.removeprefix(_DECLARATION).removesuffix(";"))
