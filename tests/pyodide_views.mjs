// Answers view requests with the site's own Pyodide, wheels and catalogs,
// under Node: what a visitor's browser computes. The tests compare its
// answers with CPython's, so that the Babel the browser gets (cut to what
// calc uses) is the Babel the tests exercise.
// Usage: node tests/pyodide_views.mjs SITE REQUESTS FILES [SNAPSHOT] > answers.json
// where requests.json is [{calculator, locale, request}, ...] and request
// is what the page sends (calc.browser). Python starts as the page's worker
// starts it, with the site's own start module (assets/start-python.js), told
// Pyodide's file names as the worker is (FILES, FILES_FOR_JAVASCRIPT in sitebuild/runtime.py):
// restored from the snapshot SNAPSHOT names (the JSON the build prepends to
// the worker), with no falling back, or else by Pyodide's own boot.
// answers.json is {views: [the JSON views], imported: [modules imported from
// files once Python was started]}.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { fileURLToPath, pathToFileURL } from "node:url";

const [site, requests, files, snapshot] = process.argv.slice(2);
const names = JSON.parse(files);
// The worker's own code fetches the lockfile, the wheels and the snapshot: here from files.
const fetchURL = globalThis.fetch;
globalThis.fetch = async (url, options) =>
  String(url).startsWith("file:") ? new Response(readFileSync(fileURLToPath(url))) : fetchURL(url, options);
const { startPython } = await import(pathToFileURL(join(site, "assets", "start-python.js")).href);
// Modules but those built into the interpreter, which need no file.
const modules = (pyodide) =>
  pyodide.runPython("import sys; sorted(set(sys.modules) - set(sys.builtin_module_names))").toJs();
let started;
const { loadPyodide } = await import(pathToFileURL(join(site, "pyodide", names.loader)).href);
const pyodide = await startPython({
  loadPyodide,
  files: names,
  snapshot: snapshot ? JSON.parse(snapshot) : null,
  indexURL: `${join(site, "pyodide")}/`, // under Node, a path
  started: (python) => (started = modules(python)),
});

const asked = JSON.parse(readFileSync(requests, "utf-8"));
const browser = pyodide.pyimport("calc.browser");
const evaluators = new Map();
const views = asked.map(({ calculator, locale, request }) => {
  const key = `${calculator} ${locale}`;
  if (!evaluators.has(key)) {
    const folder = `/catalogs/${locale}/LC_MESSAGES`;
    pyodide.FS.mkdirTree(folder);
    pyodide.FS.writeFile(`${folder}/messages.mo`, gunzipSync(readFileSync(join(site, locale, "messages.mo.gzip"))));
    evaluators.set(key, browser.evaluator(calculator, locale, "/catalogs"));
  }
  return JSON.parse(evaluators.get(key)(JSON.stringify(request)));
});
const imported = modules(pyodide).filter((name) => !started.includes(name));
process.stdout.write(JSON.stringify({ views, imported }));
