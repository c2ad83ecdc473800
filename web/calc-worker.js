// Runs the calc package in Pyodide, off the page's main thread.
// Messages carry plain data only:
//   in:  {type: "start", calculator, locale, catalog}, then {id, type: "evaluate", request}
//        (request: {values, changed} or {address}, as calc.browser reads it)
//   out: {type: "ready", phases} or {type: "error", message} once, then
//        {id, type: "result", view} or {id, type: "error", message} per request
import { loadPyodide } from "../pyodide/pyodide.mjs";
import { fetchWheels, installWheels } from "./wheels.js";

const RUNTIME = new URL("../pyodide/", import.meta.url).href;
// Where the page's compiled catalog is written in Pyodide's file system.
const LOCALEDIR = "/catalogs";

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

async function start({ calculator, locale, catalog }) {
  // Fetched while Pyodide boots; the lockfile once, for Pyodide and for us.
  const catalogBytes = fetchOk(catalog).then(async (response) => new Uint8Array(await response.arrayBuffer()));
  const lockfile = fetchOk(new URL("pyodide-lock.json", RUNTIME)).then((response) => response.json());
  const wheels = fetchWheels(RUNTIME, lockfile, "calc");
  const pyodide = await timed("boot", () => loadPyodide({ indexURL: RUNTIME, lockFileContents: lockfile }));
  await timed("packages", async () => installWheels(pyodide, await wheels));
  const folder = `${LOCALEDIR}/${locale}/LC_MESSAGES`;
  pyodide.FS.mkdirTree(folder);
  pyodide.FS.writeFile(`${folder}/messages.mo`, await catalogBytes);
  const browser = await timed("import", () => pyodide.pyimport("calc.browser"));
  return timed("setup", () => browser.evaluator(calculator, locale, LOCALEDIR));
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
