// bench/run.py puts the site's Pyodide folder and loader before this line
// (PYODIDE_FOLDER, LOADER: sitebuild/runtime.py names them).
const { loadPyodide } = await import(new URL(`${PYODIDE_FOLDER}${LOADER}`, import.meta.url).href);

const pyodide = await loadPyodide({ indexURL: new URL(PYODIDE_FOLDER, import.meta.url).href });
pyodide.runPython("1 + 1");
performance.mark("bare:ready");
document.documentElement.dataset.ready = "true";
