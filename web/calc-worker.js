// Runs the calc package in Pyodide, off the page's main thread.
// Messages carry plain data only:
//   in:  {type: "start", calculator, locale, catalog}, then {id, type: "evaluate", request}
//        (request: {values, changed} or {address}, as calc.browser reads it)
//   out: {type: "ready", phases} or {type: "error", message} once, then
//        {type: "warmed"} once the warm-up below is over, and
//        {id, type: "result", view} or {id, type: "error", message} per request
//        (view: the JSON text Python wrote, parsed by the page: a string crosses
//        to the page for a copy, where an object is cloned key by key)
// phases say how Python started: "snapshot" (restored from the build's
// memory snapshot; "snapshot-fetch" is its download) or, when that
// failed, "boot" (Pyodide's own start).
// The build prepends SNAPSHOT, the snapshot's files in the site's Pyodide
// folder and its size (build_snapshot in sitebuild/snapshot.py names the keys),
// PYODIDE, the names of Pyodide's own files there, and the import of its
// loadPyodide (tell_worker in sitebuild/snapshot.py).
import { fetchOk } from "./fetch-ok.js";
import { describe, startPython } from "./start-python.js";
// What start-python.js imports, named here too so that the browser fetches
// them with it rather than once it has arrived.
import "./snapshot.js";
import "./wheels.js";

// Where the page's compiled catalog is written in Pyodide's file system.
const LOCALEDIR = "/catalogs";

// A restored interpreter runs on WebAssembly compiled for a quick start,
// which V8 replaces by optimized code only for what has run often; Pyodide's
// own boot ran that much Python, the restore none, and the reader's first
// edits were slow (docs/performance.md). So once ready it evaluates up to this
// many variations of the page's defaults (calc.browser.rehearsals), each in a
// task of its own, until the reader's first request: from then on their own
// edits warm it up, and a warm-up would only hold them back. The first also
// reads the locale's data from Babel's files: work the page need not wait for
// to say it is ready.
const WARM_UP_EVALUATIONS = 60;
let asked = false;

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

async function start({ calculator, locale, catalog }) {
  // Fetched while Pyodide starts; the build stores it gzipped (CATALOG in sitebuild/config.py).
  const catalogBytes = fetchOk(catalog).then(async (response) => {
    const inflated = new Response(response.body.pipeThrough(new DecompressionStream("gzip")));
    return new Uint8Array(await inflated.arrayBuffer());
  });
  const pyodide = await startPython({ loadPyodide, files: PYODIDE, snapshot: SNAPSHOT, fallBack: true, timed });
  const folder = `${LOCALEDIR}/${locale}/LC_MESSAGES`;
  pyodide.FS.mkdirTree(folder);
  pyodide.FS.writeFile(`${folder}/messages.mo`, await catalogBytes);
  const browser = await timed("import", () => pyodide.pyimport("calc.browser"));
  const evaluate = await timed("setup", () => browser.evaluator(calculator, locale, LOCALEDIR));
  // Made once the page is ready, as the warm-up's first task.
  warmUp(evaluate, () => {
    if (!phases.snapshot) return [];
    const made = browser.rehearsals(calculator, locale, WARM_UP_EVALUATIONS);
    const requests = made.toJs();
    made.destroy();
    return requests;
  });
  return evaluate;
}

// Each evaluation in a task of its own, queued through a channel: a timer's
// would wait 4 ms after the fifth, time the warm-up needs.
function warmUp(evaluate, rehearsals) {
  const channel = new MessageChannel();
  let requests;
  channel.port1.onmessage = () => {
    if (!asked) requests ??= rehearsals();
    if (asked || requests.length === 0) {
      channel.port1.close();
      self.postMessage({ type: "warmed" });
      return;
    }
    evaluate(requests.shift());
    channel.port2.postMessage(null);
  };
  channel.port2.postMessage(null);
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
    asked = true;
    try {
      const evaluate = await evaluator;
      self.postMessage({ id: data.id, type: "result", view: evaluate(JSON.stringify(data.request)) });
    } catch (error) {
      self.postMessage({ id: data.id, type: "error", message: describe(error) });
    }
  }
});
