"""The memory snapshot the page's worker starts Python from.

Restoring Pyodide's WebAssembly memory as it was once calc was imported
takes a fraction of Pyodide's own start, which is mostly the interpreter's
initialisation (docs/performance.md has the timings and sizes). The snapshot
is made here by the site's own Pyodide under Node (``make_snapshot.mjs``),
and only that very ``pyodide.asm.wasm`` accepts it (Pyodide checks its
build id).

What shrinks the download: the memory malloc has freed is zeroed before the
snapshot is made; the static data is XORed with the WebAssembly's own
(``web/snapshot.js``), so that what Python left as it was becomes zeros;
the pages that are then all zeros are left out (``pack_pages``), which also
spares the worker writing them into its buffer, zeroed from the start; and
the rest is gzipped. The worker inflates it itself, with the browser's
``DecompressionStream`` as it arrives, since many static hosts send
``application/octet-stream`` as it is: so gzip, not brotli, which browsers
inflate only as a Content-Encoding, which a static host cannot be relied on
to send. Its name ends in ``.bin``, not ``.gz``, because some hosts send a
``.gz`` file with ``Content-Encoding: gzip`` and the worker would then get
it inflated already. The name holds a hash of the content, so no cache ever
gives a page another build's.

Nothing is imported after the snapshot point (``tests/test_pyodide.py``
proves it for every calculator, locale and error path), so a restored
interpreter gets an empty standard library instead of
``python_stdlib.zip``, which stays for the worker's fallback, Pyodide's
own boot. For the same reason it needs none of the wheels' bytecode, only
the files that calc and Babel read (Babel's data): those come in a small
archive of their own (``wheel-data-<hash>.zip``), and the wheels too are
left to the fallback.
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

from sitebuild.config import RUNTIME
from sitebuild.runtime import FILES_FOR_JAVASCRIPT, LOADER, WEBASSEMBLY

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

    Returns what the worker is told (:func:`tell_worker`): ``memory``, ``stdlib`` and ``files``, the three files'
    names; ``size``, the snapshot's size once inflated; ``filesSha256``, the wheels' data's sha256.

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
    subprocess.run(
        ["node", str(MAKER), str(runtime), str(site_packages), str(raw), LOADER, WEBASSEMBLY],
        check=True,
        cwd=MAKER.parent,
    )
    snapshot = raw.read_bytes()
    # Level 9 would save next to nothing, for a much longer build (docs/performance.md).
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
    """Prepend what ``build_snapshot`` returned to the worker's script, as ``SNAPSHOT``, with Pyodide's file names
    (``PYODIDE``, sitebuild.runtime) and the import of its loader, so that the JavaScript names none of them.

    In the script itself rather than a file beside it, so that fetching
    the snapshot waits for no other request; the loader is imported there
    so that the browser fetches it with the worker's own modules.
    """
    header = (
        f"{_DECLARATION}{json.dumps(snapshot)};\n"
        f"const PYODIDE = {json.dumps(FILES_FOR_JAVASCRIPT)};\n"
        f'import {{ loadPyodide }} from "../{RUNTIME}/{LOADER}";\n'
    )
    worker.write_text(header + worker.read_text(encoding="utf-8"), encoding="utf-8")


def told_worker(worker: Path) -> dict[str, str | int]:
    """What ``tell_worker`` prepended to ``worker``."""
    header = worker.read_text(encoding="utf-8").split("\n", 1)[0]
    return json.loads(header.removeprefix(_DECLARATION).removesuffix(";"))
