// How Python starts, for the page's worker (calc-worker.js) and, under Node,
// for the tests (tests/pyodide_views.mjs): Pyodide restored from the build's
// memory snapshot, or booted as Pyodide boots; then the site's wheels
// installed. The private Pyodide options passed here, and what to re-check
// of them on an upgrade, are in docs/pyodide.md.
import { fetchOk } from "./fetch-ok.js";
import { fetchSnapshot } from "./snapshot.js";
import { fetchArchive, fetchWheels, installWheels } from "./wheels.js";

// The site's Pyodide folder (RUNTIME in sitebuild/config.py), beside this one.
const RUNTIME = new URL("../pyodide/", import.meta.url);

// A restore not done by then is given up for Pyodide's own boot: a link
// that slow is better off fetching the smaller standard library instead
// (docs/performance.md), a server may stall, and Pyodide's loader waits
// forever on a memory it cannot instantiate. The page's one-minute limit
// leaves the boot time enough.
const SNAPSHOT_WITHIN_MS = 20_000;

const untimed = (name, step) => step();

/**
 * Start Python and install the `calc` package's wheels (restored: their
 * data files); resolves to Pyodide.
 *
 * `loadPyodide`: Pyodide's loader, imported by the caller from `files.loader`.
 * `files`: the names of Pyodide's files in its folder (FILES_FOR_JAVASCRIPT in
 * sitebuild/runtime.py: `loader`, `lockfile`, `webassembly`), as the build tells the worker.
 * `snapshot`: what the build tells the worker (build_snapshot in
 * sitebuild/snapshot.py names its keys), to restore from; null to boot.
 * `fallBack`: boot if the restore fails, rather than fail. `indexURL`: the runtime's folder
 * as Pyodide takes it (under Node, a path). `timed(name, step)`: runs each
 * step, "snapshot-fetch", "snapshot", "boot" and "packages", and may time it.
 * `started(pyodide)`: called once Python is started, before the wheels are installed.
 */
export async function startPython({
  loadPyodide,
  files,
  snapshot = null,
  fallBack = false,
  indexURL = RUNTIME.href,
  timed = untimed,
  started = () => {},
}) {
  // The lockfile fetched once, for Pyodide and for the wheels; what is installed is fetched while Python starts.
  const lockfile = fetchOk(new URL(files.lockfile, RUNTIME)).then((response) => response.json());
  const options = { indexURL, lockFileContents: lockfile };
  let pyodide, toInstall;
  const boot = () => {
    toInstall = fetchWheels(RUNTIME, lockfile, "calc");
    toInstall.catch(() => {}); // awaited after the boot, which reports a failure first: not an unhandled rejection
    return timed("boot", () => loadPyodide(options));
  };
  if (!snapshot) {
    pyodide = await boot();
  } else {
    // A restored interpreter has imported calc and Babel already: of the
    // wheels it needs only the data files they read.
    toInstall = fetchArchive(new URL(snapshot.files, RUNTIME), snapshot.filesSha256);
    toInstall.catch(() => {}); // awaited after the restore, which reports a failure first
    try {
      pyodide = await restore(loadPyodide, options, snapshot, new URL(files.webassembly, RUNTIME), timed);
    } catch (error) {
      if (!fallBack) throw error;
      await lockfile; // the boot needs it too: a lockfile that failed ends the start now, not after a boot
      // A snapshot missing, corrupt, slow or of another build costs time only.
      console.warn(`Python starts without its snapshot: ${describe(error)}`);
      pyodide = await boot();
    }
  }
  started(pyodide);
  await timed("packages", async () => installWheels(pyodide, await toInstall));
  return pyodide;
}

async function restore(loadPyodide, options, { memory, stdlib, size }, webassembly, timed) {
  const limit = AbortSignal.timeout(SNAPSHOT_WITHIN_MS);
  const givenUp = new Promise((_, reject) => limit.addEventListener("abort", () => reject(limit.reason)));
  const { snapshot, filled } = fetchSnapshot(new URL(memory, RUNTIME), webassembly, size, limit);
  const fetched = timed("snapshot-fetch", () => filled);
  // Pyodide compiles its WebAssembly while the snapshot arrives, and waits
  // for it (fsInit) before restoring from it; a snapshot that failed has
  // lost its magic number, so the restore fails too, but the fetch says why.
  // Giving up aborts the fetch, and so fails the restore, but a restore
  // already past fsInit cannot be stopped: it may still end beside the boot.
  const restored = () =>
    loadPyodide({
      ...options,
      _loadSnapshot: snapshot,
      fsInit: () => filled.catch(() => {}),
      stdLibURL: new URL(stdlib, RUNTIME).href,
    });
  const [pyodide] = await timed("snapshot", () =>
    Promise.race([Promise.all([restored(), fetched, options.lockFileContents]), givenUp]),
  );
  // Pyodide keeps its options, the whole inflated snapshot with them: moved out, it can be freed.
  structuredClone(snapshot.buffer, { transfer: [snapshot.buffer] });
  return pyodide;
}

export function describe(error) {
  return error instanceof Error ? error.message : String(error);
}
