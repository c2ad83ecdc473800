// Answers view requests with the site's own Pyodide, wheels and catalogs,
// under Node: what a visitor's browser computes. The tests compare its
// answers with CPython's, so that the Babel the browser gets (cut to what
// calc uses) is the Babel the tests exercise.
// Usage: node tests/pyodide_views.mjs SITE REQUESTS boot|snapshot > answers.json
// where requests.json is [{calculator, locale, request}, ...] and request
// is what the page sends (calc.browser). Python starts as the page's worker
// starts it: by Pyodide's own boot, or restored from the site's snapshot
// with the standard library a restored worker gets. answers.json is
// {views: [the JSON views], imported: [modules imported from files once Python
// was started]}.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [site, requests, start] = process.argv.slice(2);
const runtime = join(site, "pyodide");
const assets = pathToFileURL(join(site, "assets/")).href;
// The worker's own code fetches the wheels and the snapshot: here from files.
const fetchURL = globalThis.fetch;
globalThis.fetch = async (url, options) =>
  String(url).startsWith("file:") ? new Response(readFileSync(fileURLToPath(url))) : fetchURL(url, options);
const { loadPyodide } = await import(pathToFileURL(join(runtime, "pyodide.mjs")).href);
const { fetchWheels, installWheels } = await import(new URL("wheels.js", assets).href);
const { fetchSnapshot } = await import(new URL("snapshot.js", assets).href);
const runtimeURL = pathToFileURL(`${runtime}/`);

const options = { indexURL: `${runtime}/`, lockFileURL: join(runtime, "pyodide-lock.json") };
if (start === "snapshot") {
  // The names the build gave the worker (its first line).
  const header = readFileSync(fileURLToPath(new URL("calc-worker.js", assets)), "utf-8").split("\n")[0];
  const { memory, stdlib, size } = JSON.parse(header.match(/^const SNAPSHOT = (.*);$/)[1]);
  const { snapshot, filled } = fetchSnapshot(new URL(memory, runtimeURL), new URL("pyodide.asm.wasm", runtimeURL), size);
  Object.assign(options, { _loadSnapshot: snapshot, fsInit: () => filled, stdLibURL: join(runtime, stdlib) });
} else if (start !== "boot") {
  throw new Error(`start is "boot" or "snapshot", not ${start}`);
}
const pyodide = await loadPyodide(options);
// Modules but those built into the interpreter, which need no file.
const modules = () =>
  pyodide.runPython("import sys; sorted(set(sys.modules) - set(sys.builtin_module_names))").toJs();
const started = modules();
const lockfile = JSON.parse(readFileSync(join(runtime, "pyodide-lock.json"), "utf-8"));
installWheels(pyodide, await fetchWheels(runtimeURL.href, lockfile, "calc"));

const asked = JSON.parse(readFileSync(requests, "utf-8"));
const browser = pyodide.pyimport("calc.browser");
const evaluators = new Map();
const views = asked.map(({ calculator, locale, request }) => {
  const key = `${calculator} ${locale}`;
  if (!evaluators.has(key)) {
    const folder = `/catalogs/${locale}/LC_MESSAGES`;
    pyodide.FS.mkdirTree(folder);
    pyodide.FS.writeFile(`${folder}/messages.mo`, readFileSync(join(site, locale, "messages.mo")));
    evaluators.set(key, browser.evaluator(calculator, locale, "/catalogs"));
  }
  return JSON.parse(evaluators.get(key)(JSON.stringify(request)));
});
const imported = modules().filter((name) => !started.includes(name));
process.stdout.write(JSON.stringify({ views, imported }));
