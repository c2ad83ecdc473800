import { loadPyodide } from "../pyodide/pyodide.mjs";

const pyodide = await loadPyodide({ indexURL: new URL("../pyodide/", import.meta.url).href });
pyodide.runPython("1 + 1");
performance.mark("bare:ready");
document.documentElement.dataset.ready = "true";
