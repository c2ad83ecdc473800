"""The speed benchmark: `make bench`. It prints figures; it asserts nothing.

Builds the site into a temporary folder, serves it on 127.0.0.1 with a
server that gzips what static hosts gzip and counts the bytes it sends,
and measures in headless Chromium, alternating our page with a bare page
that loads the same Pyodide on the main thread. Every visit starts with a
new browser profile on disk, as a first-time visitor's; each page is also
visited over an emulated link (LINK). Each figure is the median over the
runs.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import threading
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from build import build  # noqa: E402
from sitebuild.config import LOCALES, PAGES, PYODIDE_PACKAGE  # noqa: E402
from sitebuild.runtime import CORE_FILES  # noqa: E402
from tests.browser import launch_profile  # noqa: E402
from tools.serve import StaticHandler, serving  # noqa: E402

EDITS = 60
# A modest broadband link, as Chromium's DevTools emulate it (per request, on the page and its workers).
LINK = {"offline": False, "latency": 40, "downloadThroughput": 20e6 / 8, "uploadThroughput": 20e6 / 8}
LINK_NAME = "20 Mbit/s, 40 ms"


class CountingHandler(StaticHandler):
    """Counts every byte sent, headers included, and the files' own bytes (before gzip)."""

    sent = 0
    raw = 0
    lock = threading.Lock()

    def send_head(self):
        body = super().send_head()
        if body is not None and self.status == 200:
            with CountingHandler.lock:
                CountingHandler.raw += self.content_length
        return body

    def setup(self) -> None:
        super().setup()
        raw = self.wfile

        class Meter:
            def write(_, data: bytes) -> int:
                with CountingHandler.lock:
                    CountingHandler.sent += len(data)
                return raw.write(data)

            def __getattr__(_, name):
                return getattr(raw, name)

        self.wfile = Meter()


def sent_during(action) -> tuple[int, int]:
    """Bytes sent while ``action`` runs: on the wire, and the files' own."""
    sent, raw = CountingHandler.sent, CountingHandler.raw
    action()
    return CountingHandler.sent - sent, CountingHandler.raw - raw


def warm_up(base: str, site: Path) -> None:
    """Ask for every file once, gzip accepted: the server compresses each once, as a host's cache holds it."""
    for path in site.rglob("*"):
        if path.is_file():
            request = urllib.request.Request(
                base + path.relative_to(site).as_posix(), headers={"Accept-Encoding": "gzip"}
            )
            urllib.request.urlopen(request).read()


def emulate_link(context, page) -> None:
    session = context.new_cdp_session(page)
    session.send("Network.enable")
    session.send("Network.emulateNetworkConditions", LINK)


# Collects long tasks from the very start of the page's life.
OBSERVERS = """
window.__longTasks = [];
window.__layoutShift = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.__layoutShift += entry.value;
}).observe({ type: "layout-shift", buffered: true });
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__longTasks.push(entry.duration);
}).observe({ type: "longtask" });
// The first frame drawn with the default results in it (the page's first result is never empty).
window.__resultsFrame = null;
requestAnimationFrame(function check() {
  if (document.querySelector("output[name]")?.textContent) {
    window.__resultsFrame = performance.now();
  } else {
    requestAnimationFrame(check);
  }
});
"""

# How long each step of Python's start took in the worker (web/calc-worker.js), by name.
PHASES = """() => Object.fromEntries(performance.getEntriesByType("measure")
    .filter((m) => m.name.startsWith("calc:")).map((m) => [m.name.slice(5), m.duration]))"""

LOAD_FIGURES = """() => {
  const at = (name) => performance.getEntriesByName(name)[0]?.startTime ?? null;
  return {
    fcp: at("first-contentful-paint"),
    results: window.__resultsFrame,
    ready: at("calc:ready"),
    worker_created: performance.getEntriesByName("calc:script")[0]?.startTime ?? null,
    layoutShift: window.__layoutShift,
    longTasks: window.__longTasks.reduce((a, b) => a + b, 0),
    blocking: window.__longTasks.reduce((a, b) => a + Math.max(0, b - 50), 0),
  };
}"""

SERVICE_WORKER_ACTIVE = """async () => {
  const registration = await navigator.serviceWorker.ready;
  while (registration.active.state !== "activated") await new Promise((r) => setTimeout(r, 20));
}"""

# From the input event to the new result in the DOM, and whether it got
# there before the next frame was drawn (so that frame shows it).
EDIT_LATENCY = """async (count) => {
  // The page's first text field: on every calculator, 2 to 51 is valid there
  // and changes something in the results (a figure, or a note naming it).
  const input = document.querySelector("input[type=text]");
  const results = document.querySelector(".results");
  const edits = [];
  for (let i = 0; i < count; i++) {
    let inDom = null;
    const changed = new Promise((resolve, reject) => {
      const observer = new MutationObserver(() => {
        inDom = performance.now();
        observer.disconnect();
        resolve();
      });
      observer.observe(results, { childList: true, characterData: true, subtree: true });
      setTimeout(() => reject(new Error(`typing ${input.value} in ${input.name} changed no result`)), 10_000);
    });
    const nextFrame = new Promise((resolve) => requestAnimationFrame(() => resolve(inDom !== null)));
    const start = performance.now();
    input.value = String(2 + (i % 50));
    input.dispatchEvent(new Event("input", { bubbles: true }));
    await changed;
    edits.push([inDom - start, await nextFrame]);
    // Let a frame pass so edits start at random points of the frame.
    await new Promise((resolve) => setTimeout(resolve, 7 + (i % 11)));
  }
  return edits;
}"""


# Waits in the page's own world: a Playwright locator would first inject
# Playwright's script, a 100-150 ms task on the main thread, which the
# long-task observer would lay at our page's door and which would hold up
# the bare page's Pyodide.
SETTLED = """([name, value, failed]) => new Promise((resolve, reject) => {
  const root = document.documentElement;
  const settled = () => {
    if (root.getAttribute(name) === value) resolve();
    else if (failed && root.getAttribute(name) === failed) reject(new Error(`${name}=${failed}`));
    else return false;
    return true;
  };
  if (!settled()) {
    new MutationObserver((_, observer) => settled() && observer.disconnect())
      .observe(root, { attributes: true, attributeFilter: [name] });
  }
  setTimeout(() => reject(new Error(`no ${name}=${value} within 120 s`)), 120_000);
})"""


def wait_ready(page) -> None:
    page.evaluate(SETTLED, ["data-calc", "ready", "error"])


def ready_at(page) -> float:
    wait_ready(page)
    return page.evaluate("performance.getEntriesByName('calc:ready')[0].startTime")


def measure_ours_over_link(playwright, url: str) -> float:
    """Python ready on a first visit over LINK."""
    profile = tempfile.TemporaryDirectory()
    context = launch_profile(playwright, Path(profile.name))
    page = context.new_page()
    emulate_link(context, page)
    page.goto(url)
    ready = ready_at(page)
    context.close()
    profile.cleanup()
    return ready


def measure_ours(playwright, url: str) -> dict:
    profile = tempfile.TemporaryDirectory()
    context = launch_profile(playwright, Path(profile.name))
    context.add_init_script(OBSERVERS)
    page = context.new_page()

    def first_visit():
        page.goto(url)
        wait_ready(page)
        page.evaluate(SERVICE_WORKER_ACTIVE)  # the cache is filled before we count the visit done

    first_bytes, first_raw = sent_during(first_visit)
    figures = {**page.evaluate(LOAD_FIGURES), "phases": page.evaluate(PHASES)}
    edits = page.evaluate(EDIT_LATENCY, EDITS)
    page.close()
    latencies = sorted(latency for latency, _ in edits)

    repeat = context.new_page()
    repeat_ready = []
    repeat_bytes, _ = sent_during(lambda: (repeat.goto(url), repeat_ready.append(ready_at(repeat))))
    repeat_phases = repeat.evaluate(PHASES)
    repeat.close()

    context.set_offline(True)
    offline = context.new_page()
    try:
        offline.goto(url)
        wait_ready(offline)
        offline_ok = True
    except Exception:
        offline_ok = False
    context.close()
    profile.cleanup()

    return {
        **figures,
        "edit_median": statistics.median(latencies),
        "edit_p95": latencies[int(0.95 * (len(latencies) - 1))],
        "edit_next_frame": sum(made for _, made in edits) / len(edits),
        "first_bytes": first_bytes,
        "first_raw": first_raw,
        "repeat_ready": repeat_ready[0],
        "repeat_phases": repeat_phases,
        "repeat_bytes": repeat_bytes,
        "offline": offline_ok,
    }


def bare_ready(page, url: str) -> float:
    page.goto(url)
    page.evaluate(SETTLED, ["data-ready", "true", None])
    return page.evaluate("performance.getEntriesByName('bare:ready')[0].startTime")


def measure_bare(playwright, url: str) -> dict:
    """Ready on a first and a repeat visit (from the HTTP cache), and the first visit's bytes."""
    profile = tempfile.TemporaryDirectory()
    context = launch_profile(playwright, Path(profile.name))
    first = []
    first_bytes, first_raw = sent_during(lambda: first.append(bare_ready(context.new_page(), url)))
    repeat = bare_ready(context.new_page(), url)
    context.close()
    profile.cleanup()
    return {"ready": first[0], "repeat_ready": repeat, "first_bytes": first_bytes, "first_raw": first_raw}


def measure_bare_over_link(playwright, url: str) -> float:
    """Ready on a first visit over LINK."""
    profile = tempfile.TemporaryDirectory()
    context = launch_profile(playwright, Path(profile.name))
    page = context.new_page()
    emulate_link(context, page)
    ready = bare_ready(page, url)
    context.close()
    profile.cleanup()
    return ready


def median(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def megabytes(runs: list[dict]) -> str:
    return f"{median(runs, 'first_bytes') / 1e6:.2f} MB sent, {median(runs, 'first_raw') / 1e6:.2f} MB raw"


def measure(playwright, base: str, url: str, runs: int) -> list[tuple[str, str, str]]:
    """The table's rows for the page at ``url``: (measure, value, target)."""
    bare_url = f"{base}bench/bare.html"
    ours, bare, ours_link, bare_link = [], [], [], []
    for run in range(runs):
        # Each visit gets a new profile on disk, as a first-time visitor
        # has; the order alternates so neither page always goes first.
        steps = [
            lambda: ours.append(measure_ours(playwright, url)),
            lambda: bare.append(measure_bare(playwright, bare_url)),
            lambda: ours_link.append(measure_ours_over_link(playwright, url)),
            lambda: bare_link.append(measure_bare_over_link(playwright, bare_url)),
        ]
        for step in steps if run % 2 == 0 else [steps[1], steps[0], steps[3], steps[2]]:
            step()

    bare_first, bare_repeat = median(bare, "ready"), median(bare, "repeat_ready")
    bare_over_link = statistics.median(bare_link)
    restored = sum("snapshot" in r["phases"] and "snapshot" in r["repeat_phases"] for r in ours)
    rows = [
        ("first contentful paint", f"{median(ours, 'fcp'):.0f} ms", ""),
        (
            "results readable (first frame with them)",
            f"{median(ours, 'results'):.0f} ms",
            "no later than first contentful paint",
        ),
        (
            "Python ready (data-calc=ready), first visit",
            f"{median(ours, 'ready'):.0f} ms ({median(ours, 'ready') / bare_first:.2f} × bare)",
            "≤ 0.5 × bare",
        ),
        ("  bare Pyodide page, one line run", f"{bare_first:.0f} ms", ""),
        (
            "Python ready, repeat visit",
            f"{median(ours, 'repeat_ready'):.0f} ms ({median(ours, 'repeat_ready') / bare_repeat:.2f} × bare)",
            "≤ 0.4 × bare",
        ),
        ("  bare Pyodide page, repeat visit", f"{bare_repeat:.0f} ms", ""),
        (
            f"Python ready, first visit over {LINK_NAME}",
            f"{statistics.median(ours_link):.0f} ms",
            "≤ bare",
        ),
        (f"  bare Pyodide page over {LINK_NAME}", f"{bare_over_link:.0f} ms", ""),
        ("Python restored from the snapshot", f"{restored} of {len(ours)} visits, and repeats", "every visit"),
        ("  page: worker created", f"{median(ours, 'worker_created'):.0f} ms", ""),
    ]
    for visit, key in (("first", "phases"), ("repeat", "repeat_phases")):
        for phase in ("script", "snapshot-fetch", "snapshot", "boot", "packages", "import", "setup"):
            took = [r[key][phase] for r in ours if phase in r[key]]
            if took:
                rows.append((f"  worker, {visit} visit: {phase}", f"{statistics.median(took):.0f} ms", ""))
    rows += [
        ("layout shift during load (CLS)", f"{median(ours, 'layoutShift'):.3f}", "0"),
        (f"edit to result, median of {EDITS}", f"{median(ours, 'edit_median'):.1f} ms", ""),
        (f"edit to result, p95 of {EDITS}", f"{median(ours, 'edit_p95'):.1f} ms", "≤ 16 ms"),
        ("edits shown in the very next frame", f"{median(ours, 'edit_next_frame'):.0%}", ""),
        ("main-thread long tasks during load", f"{median(ours, 'longTasks'):.0f} ms", ""),
        ("main-thread blocking (over 50 ms a task)", f"{median(ours, 'blocking'):.0f} ms", "≤ 50 ms"),
        ("bytes, first visit (the whole site cached)", megabytes(ours), ""),
        ("  bare Pyodide page, first visit", megabytes(bare), ""),
        ("bytes, repeat visit", f"{median(ours, 'repeat_bytes') / 1e3:.1f} KB", "< 5 KB"),
        ("offline repeat visit becomes ready", "yes" if all(r["offline"] for r in ours) else "no", "yes"),
    ]
    return rows


def print_table(pages: dict[str, list[tuple[str, str, str]]]) -> None:
    """One row per measure, one column per page: a Markdown table."""
    names = list(dict.fromkeys(name for rows in pages.values() for name, _, _ in rows))
    values = {page: {name: value for name, value, _ in rows} for page, rows in pages.items()}
    targets = {name: target for rows in pages.values() for name, _, target in rows}
    header = ["measure", *pages, "target"]
    table = [[name, *(values[page].get(name, "") for page in pages), targets[name]] for name in names]
    widths = [max(len(row[i]) for row in [header, *table]) for i in range(len(header))]
    for row in [header, ["-" * w for w in widths], *table]:
        print("| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--locale", choices=LOCALES, default=LOCALES[0])
    parser.add_argument(
        "--page", choices=PAGES, action="append", help="a calculator to measure (repeatable; every one by default)"
    )
    args = parser.parse_args()
    pages = args.page or list(PAGES)

    with tempfile.TemporaryDirectory() as folder:
        site = Path(folder) / "site"
        build(site)
        shutil.copytree(ROOT / "bench", site / "bench", ignore=shutil.ignore_patterns("*.py", "__pycache__"))
        with serving(site, CountingHandler) as base, sync_playwright() as playwright:
            warm_up(base, site)
            rows = {page: measure(playwright, base, f"{base}{args.locale}/{PAGES[page]}", args.runs) for page in pages}

    core = sum((PYODIDE_PACKAGE / name).stat().st_size for name in CORE_FILES)
    print(f"\n{args.runs} runs a page, locale {args.locale}, medians; Pyodide core is {core / 1e6:.2f} MB\n")
    print_table(rows)


if __name__ == "__main__":
    main()
