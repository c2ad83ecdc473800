"""tools/serve.py sends what a static host sends: the build's brotli copy where accepted, gzip otherwise."""

from __future__ import annotations

import gzip
import os
import urllib.request
from pathlib import Path

import brotli
import pytest

from sitebuild.offline import precache_list
from sitebuild.precompress import precompress
from tools.serve import AsGitHubPages, StaticHandler, serving

SCRIPT = b"export const table = [" + b", ".join(str(i).encode() for i in range(2000)) + b"];\n"


@pytest.fixture
def site(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    (site / "assets").mkdir(parents=True)
    (site / "assets" / "big.js").write_bytes(SCRIPT)
    (site / "assets" / "small.js").write_bytes(b"export {};\n")
    (site / "assets" / "snapshot.bin").write_bytes(gzip.compress(SCRIPT, mtime=0))
    precompress(site, cache=tmp_path / "cache")
    return site


def get(base: str, path: str, accept: str) -> tuple[str | None, bytes]:
    """The response's Content-Encoding and body, as sent."""
    request = urllib.request.Request(base + path, headers={"Accept-Encoding": accept})
    with urllib.request.urlopen(request) as response:
        return response.headers["Content-Encoding"], response.read()


def test_the_build_writes_copies_beside_big_compressible_files_only(site):
    written = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.br")) + sorted(
        p.relative_to(site).as_posix() for p in site.rglob("*.gz")
    )
    assert written == ["assets/big.js.br", "assets/big.js.gz"]
    assert brotli.decompress((site / "assets" / "big.js.br").read_bytes()) == SCRIPT
    assert gzip.decompress((site / "assets" / "big.js.gz").read_bytes()) == SCRIPT
    # Only a host reads them: the service worker caches the files themselves.
    assert precache_list(site) == ["assets/big.js", "assets/small.js", "assets/snapshot.bin"]


def test_brotli_where_accepted_gzip_otherwise_and_as_it_is_to_no_one(site):
    with serving(site, StaticHandler) as base:
        encoding, body = get(base, "assets/big.js", "gzip, deflate, br, zstd")
        assert (encoding, brotli.decompress(body)) == ("br", SCRIPT)
        encoding, body = get(base, "assets/big.js", "gzip")
        assert (encoding, gzip.decompress(body)) == ("gzip", SCRIPT)
        assert get(base, "assets/big.js", "identity") == (None, SCRIPT)
        # A small file is gzipped on the fly; what is compressed already goes as it is.
        encoding, body = get(base, "assets/small.js", "br, gzip")
        assert (encoding, gzip.decompress(body)) == ("gzip", b"export {};\n")
        assert get(base, "assets/snapshot.bin", "br, gzip") == (None, gzip.compress(SCRIPT, mtime=0))


def test_as_github_pages_it_gzips_and_ignores_the_copies(site):
    # Copies that differ from the file: a server that read them would send other content.
    (site / "assets" / "big.js.br").write_bytes(brotli.compress(b"a copy"))
    (site / "assets" / "big.js.gz").write_bytes(gzip.compress(b"a copy"))
    with serving(site, AsGitHubPages) as base:
        encoding, body = get(base, "assets/big.js", "gzip, deflate, br, zstd")
    assert (encoding, gzip.decompress(body)) == ("gzip", SCRIPT)


def test_a_copy_older_than_its_file_is_not_served(site):
    changed = SCRIPT.replace(b"table", b"other")
    script = site / "assets" / "big.js"
    script.write_bytes(changed)
    copy = site / "assets" / "big.js.br"
    os.utime(copy, ns=(script.stat().st_atime_ns, script.stat().st_mtime_ns - 1))
    with serving(site, StaticHandler) as base:
        encoding, body = get(base, "assets/big.js", "br, gzip")
    assert (encoding, gzip.decompress(body)) == ("gzip", changed)
