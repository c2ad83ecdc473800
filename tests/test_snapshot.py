"""Python restored from the build's memory snapshot, and booted as before when the snapshot fails it.

That restored and booted interpreters answer alike, and that nothing is
imported after the restore, is tested under Node (``test_pyodide.py``).
"""

from __future__ import annotations

import gzip
import os

import pytest

from sitebuild.config import LOCALES
from sitebuild.snapshot import pack_pages, told_worker, unpack_pages
from tests.helpers import A_LOCALE, expect, wait_until_ready
from tests.holding import Held
from tests.test_offline import ACTIVE_CACHE, visit

pytestmark = pytest.mark.browser

SNAPSHOT = "**/pyodide/snapshot-*.bin"

# How the worker started Python, as the page recorded its phases.
STARTED_BY = """() => performance.getEntriesByType("measure").map((m) => m.name)
    .filter((name) => name === "calc:snapshot" || name === "calc:boot")"""


def expect_working(page, started_by: str) -> None:
    wait_until_ready(page)
    assert page.evaluate(STARTED_BY) == [f"calc:{started_by}"]
    page.fill("[name=accumulation_steps]", "16")
    expect(page.locator("output[name=effective_batch]")).to_have_text("16")


@pytest.fixture(scope="module")
def snapshot(site) -> tuple[bytes, int]:
    """The snapshot as the build wrote it (gzipped, its zero pages left out), and its size in memory."""
    (path,) = (site / "pyodide").glob("snapshot-*.bin")
    return path.read_bytes(), told_worker(site / "assets" / "calc-worker.js")["size"]


def test_python_is_restored_from_the_snapshot(context, base_url, locale=A_LOCALE):
    page = context.new_page()
    page.goto(f"{base_url}{locale}/")
    expect_working(page, "snapshot")


def stored(memory: bytes) -> bytes:
    return gzip.compress(pack_pages(memory), compresslevel=1)


def of_another_build(snapshot: bytes, size: int) -> bytes:
    memory = bytearray(unpack_pages(gzip.decompress(snapshot), size))
    memory[16] ^= 0xFF  # the first byte of Pyodide's build id, in the header
    return stored(bytes(memory))


# Each as the server would send it in place of the snapshot, and the reason the worker gives for refusing it.
BROKEN = {
    "missing": (lambda snapshot, size: None, "HTTP 404"),
    "not gzip": (lambda snapshot, size: os.urandom(1 << 16), "incorrect header check"),
    "cut short": (lambda snapshot, size: snapshot[: len(snapshot) // 2], "truncated"),
    "with bytes to spare": (
        lambda snapshot, size: gzip.compress(gzip.decompress(snapshot) + bytes(1)),
        "the snapshot is longer than announced",
    ),
    "not a snapshot": (lambda snapshot, size: stored(bytes(size)), "invalid magic number"),
    "of another build": (of_another_build, "build id mismatch"),
}


def serve_instead(context, body: bytes | None) -> None:
    context.route(SNAPSHOT, lambda route: route.fulfill(status=200, body=body) if body else route.fulfill(status=404))


@pytest.mark.parametrize("broken", BROKEN)
def test_a_snapshot_that_cannot_be_used_is_refused_for_its_reason(context, base_url, snapshot, broken):
    make, reason = BROKEN[broken]
    serve_instead(context, make(*snapshot))
    page = context.new_page()
    # The worker says why as it turns to Python's own boot, which the next test follows to the end.
    refusal = "Python starts without its snapshot: "
    with context.expect_console_message(lambda m: m.type == "warning" and refusal in m.text, timeout=90_000) as said:
        page.goto(f"{base_url}{LOCALES[0]}/")
    assert reason in said.value.text


def test_without_a_usable_snapshot_python_boots_as_before(context, base_url, snapshot):
    # What follows a refusal is the same whatever its reason: the boot.
    serve_instead(context, BROKEN["of another build"][0](*snapshot))
    page = context.new_page()
    page.goto(f"{base_url}{LOCALES[0]}/")
    expect_working(page, "boot")


def test_a_snapshot_that_does_not_come_is_given_up(context, base_url):
    """At the worker's limit (SNAPSHOT_WITHIN_MS, 20 s), the one test here that waits a while.

    The same limit ends a restore that hangs (Pyodide's loader waits forever
    when its WebAssembly cannot be instantiated, say with a memory of the
    wrong size).
    """
    held = Held(context, SNAPSHOT)  # never released
    page = context.new_page()
    page.goto(f"{base_url}{LOCALES[0]}/")
    held.wait(page)
    expect_working(page, "boot")


def test_an_offline_repeat_visit_is_restored_from_the_cached_snapshot(browser, base_url):
    context = browser.new_context()
    visit(context, f"{base_url}{LOCALES[-1]}/").evaluate(ACTIVE_CACHE)
    context.set_offline(True)
    page = context.new_page()
    page.goto(f"{base_url}{LOCALES[-1]}/")
    expect_working(page, "snapshot")
    context.close()
