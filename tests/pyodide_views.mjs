// Answers view requests with the site's own Pyodide, wheels and catalogs,
// under Node: what a visitor's browser computes. The tests compare its
// answers with CPython's, so that the Babel the browser gets (cut to what
// calc uses) is the Babel the tests exercise.
// Usage: node tests/pyodide_views.mjs SITE REQUESTS > views.json
// where requests.json is [{calculator, locale, request}, ...] and request
// is what the page sends (calc.browser), and views.json the JSON views.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const site = process.argv[2];
const runtime = join(site, "pyodide");
const { loadPyodide } = await import(pathToFileURL(join(runtime, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: `${runtime}/`, lockFileURL: join(runtime, "pyodide-lock.json") });
await pyodide.loadPackage("calc", { messageCallback: () => {} });

const asked = JSON.parse(readFileSync(process.argv[3], "utf-8"));
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
process.stdout.write(JSON.stringify(views));
