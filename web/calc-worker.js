// Runs the calc package in Pyodide, off the page's main thread.
// Messages carry plain data only:
//   in:  {type: "start", calculator, locale, catalog}, then {id, type: "evaluate", request}
//        (request: {values, changed} or {address}, as calc.browser reads it)
//   out: {type: "ready", phases} or {type: "error", message} once, then
//        {id, type: "result", view} or {id, type: "error", message} per request
// phases say how Python started: "snapshot" (restored from the build's
// memory snapshot; "snapshot-fetch" is its download) or, when that
// failed, "boot" (Pyodide's own start).
// The build prepends SNAPSHOT: {memory, stdlib, size}, the snapshot's and
// its standard library's file names in RUNTIME, and the snapshot's size
// once inflated (see sitebuild/snapshot.py).
import { loadPyodide } from "../pyodide/pyodide.mjs";
import { fetchSnapshot } from "./snapshot.js";
import { fetchWheels, installWheels } from "./wheels.js";

const RUNTIME = new URL("../pyodide/", import.meta.url).href;
// Where the page's compiled catalog is written in Pyodide's file system.
const LOCALEDIR = "/catalogs";
// A restore not done by then is given up for Pyodide's own boot: a link
// that slow (under 3 Mbit/s for the snapshot's 7 MB) is better off
// fetching the 2.5 MB standard library instead, a server may stall, and
// Pyodide's loader waits forever on a memory it cannot instantiate. The
// page's one-minute limit leaves the boot time enough.
const SNAPSHOT_WITHIN_MS = 20_000;

// A restored interpreter runs on WebAssembly compiled for a quick start,
// which V8 replaces by optimized code only for what has run often; Pyodide's
// own boot ran that much Python, the restore none, and the reader's first
// edits ran twice as slow. So once ready it evaluates the page's defaults
// this many times (20 sufficed under Node), each in a task of its own: a
// request waits for one at most.
const WARM_UP_EVALUATIONS = 30;

let evaluator;
// How long each step of the start took, as [start, end] in epoch
// milliseconds, so the page can put them on its own timeline.
const now = () => performance.timeOrigin + performance.now();
// From the worker's creation to this module running (its script and Pyodide's loader fetched).
const phases = { script: [performance.timeOrigin, now()] };

async function timed(name, step) {
  const start = now();
  const result = await step();
  phases[name] = [start, now()];
  return result;
}

async function fetchOk(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response;
}

// Restored from the snapshot if it can be, else booted as Pyodide boots:
// a snapshot missing, corrupt, slow or of another build costs time only.
async function startPython(options) {
  const limit = AbortSignal.timeout(SNAPSHOT_WITHIN_MS);
  const givenUp = new Promise((_, reject) => limit.addEventListener("abort", () => reject(limit.reason)));
  try {
    const wasm = new URL("pyodide.asm.wasm", RUNTIME);
    const { snapshot, filled } = fetchSnapshot(new URL(SNAPSHOT.memory, RUNTIME), wasm, SNAPSHOT.size, limit);
    const fetched = timed("snapshot-fetch", () => filled);
    // Pyodide compiles its WebAssembly while the snapshot arrives, and waits
    // for it (fsInit) before restoring from it; a snapshot that failed has
    // lost its magic number, so the restore fails too, but the fetch says why.
    const restore = () =>
      loadPyodide({
        ...options,
        _loadSnapshot: snapshot,
        fsInit: () => filled.catch(() => {}),
        stdLibURL: new URL(SNAPSHOT.stdlib, RUNTIME).href,
      });
    const [pyodide] = await timed("snapshot", () => Promise.race([Promise.all([restore(), fetched]), givenUp]));
    // Pyodide keeps its options, the snapshot's 31 MB with them: moved out, they can be freed.
    structuredClone(snapshot.buffer, { transfer: [snapshot.buffer] });
    return pyodide;
  } catch (error) {
    console.warn(`Python starts without its snapshot: ${describe(error)}`);
    return timed("boot", () => loadPyodide(options));
  }
}

async function start({ calculator, locale, catalog }) {
  // Fetched while Pyodide boots; the lockfile once, for Pyodide and for us.
  const catalogBytes = fetchOk(catalog).then(async (response) => new Uint8Array(await response.arrayBuffer()));
  const lockfile = fetchOk(new URL("pyodide-lock.json", RUNTIME)).then((response) => response.json());
  const wheels = fetchWheels(RUNTIME, lockfile, "calc");
  const pyodide = await startPython({ indexURL: RUNTIME, lockFileContents: lockfile });
  await timed("packages", async () => installWheels(pyodide, await wheels));
  const folder = `${LOCALEDIR}/${locale}/LC_MESSAGES`;
  pyodide.FS.mkdirTree(folder);
  pyodide.FS.writeFile(`${folder}/messages.mo`, await catalogBytes);
  const browser = await timed("import", () => pyodide.pyimport("calc.browser"));
  const evaluate = await timed("setup", () => browser.evaluator(calculator, locale, LOCALEDIR));
  if (phases.snapshot) warmUp(evaluate, WARM_UP_EVALUATIONS);
  return evaluate;
}

function warmUp(evaluate, times) {
  if (times > 0) {
    setTimeout(() => {
      evaluate(JSON.stringify({ address: "" })); // the defaults
      warmUp(evaluate, times - 1);
    });
  }
}

function describe(error) {
  return error instanceof Error ? error.message : String(error);
}

// A policy that refuses WebAssembly makes Pyodide's loader wait forever:
// report it at once instead of at the page's time-out.
self.addEventListener("securitypolicyviolation", (event) => {
  self.postMessage({ type: "error", message: `${event.violatedDirective} refused ${event.blockedURI}` });
});

self.addEventListener("message", async ({ data }) => {
  if (data.type === "start") {
    evaluator = start(data);
    evaluator.then(
      () => self.postMessage({ type: "ready", phases }),
      (error) => self.postMessage({ type: "error", message: describe(error) }),
    );
  } else if (data.type === "evaluate") {
    try {
      const evaluate = await evaluator;
      const view = JSON.parse(evaluate(JSON.stringify(data.request)));
      self.postMessage({ id: data.id, type: "result", view });
    } catch (error) {
      self.postMessage({ id: data.id, type: "error", message: describe(error) });
    }
  }
});
