// Compile every .py under a folder to a .pyc beside it, with the Python
// that the site's Pyodide runs (its bytecode format is that version's).
// Usage: node sitebuild/compile_bytecode.mjs FOLDER
import { loadPyodide } from "pyodide";

const folder = process.argv[2];
const pyodide = await loadPyodide();
pyodide.FS.mkdirTree("/src");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: folder }, "/src");
const compileall = pyodide.pyimport("compileall");
// legacy: X.pyc in place of X.py, which Python imports without the source.
// optimize 2: without docstrings and asserts, which the page never reads; the
// snapshot holds every imported module's code, so each docstring would cost bytes.
const ok = compileall.compile_dir.callKwargs("/src", { legacy: true, quiet: 1, stripdir: "/src", optimize: 2 });
process.exit(ok ? 0 : 1);
