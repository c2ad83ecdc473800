// Make the memory snapshot the page's worker restores Python from: the
// site's own Pyodide, started as a browser's worker starts it, with calc
// and every calculator imported from the site's wheels (unpacked in
// SITE_PACKAGES). Writes it to OUT, XORed with the WebAssembly's initial
// memory as web/snapshot.js expects it, not yet compressed.
// Usage: node sitebuild/make_snapshot.mjs RUNTIME SITE_PACKAGES OUT LOADER WEBASSEMBLY
// (LOADER and WEBASSEMBLY: Pyodide's file names, as sitebuild/runtime.py gives them).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { xorInitialMemory } from "../web/snapshot.js";

// Freed memory keeps what it held (module code read from files, buffers),
// which compresses badly; zeroed, it costs next to nothing. Only memory that
// malloc hands out here is written, and none beyond the heap's current size
// (this much short of it), so the snapshot is no larger.
const HEADROOM = 1 << 17;

function zeroFreeMemory(module) {
  const size = module.HEAP8.length;
  const held = [];
  for (let request = 1 << 22; request >= 16; request /= 2) {
    while (request + HEADROOM <= size - module._sbrk(0)) {
      const block = module._malloc(request);
      if (!block) break;
      module.HEAP8.fill(0, block, block + request);
      held.push(block);
    }
  }
  held.forEach((block) => module._free(block));
  if (module.HEAP8.length !== size) throw new Error("zeroing free memory grew the heap");
}

const [runtime, unpacked, out, loader, webAssembly] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(join(runtime, loader)).href);
const pyodide = await loadPyodide({
  indexURL: `${runtime}/`,
  _makeSnapshot: true,
  // Python keeps the environment and sys.executable it started with, and
  // Node would give it this build's: give it those a browser gives. Every
  // restore has the snapshot's hash seed anyway; a fixed one makes the same
  // code give the same snapshot. With a random seed the heap's layout, and
  // so the download, varied from one build to the next; this seed is one of
  // those that gave the smaller (docs/performance.md).
  env: { LANG: "C.UTF-8", PYTHONHASHSEED: "12" },
  _sysExecutable: "./this.program",
});
// Mounted only to import from: the worker writes the same files at the
// same place after restoring, for Babel's data and calc's own files.
const sitePackages = pyodide.pyimport("sys").path.toJs().find((path) => path.endsWith("/site-packages"));
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: unpacked }, sitePackages);
// Every calculator: a page's worker imports only its own, but one snapshot
// serves every page. (In a namespace of its own, so __main__ stays clean.)
const namespace = pyodide.globals.get("dict")();
pyodide.runPython("import calc.browser\nfrom calc.calculators import NAMES, load\nfor name in NAMES: load(name)", {
  globals: namespace,
});
namespace.destroy();
// What a restored interpreter has no use for (docs/performance.md): the
// listing of the standard library's zip (it gets an empty one) and the
// finders that read it; then the garbage, this code's own included, so that
// its memory is zeroed too. The other caches, such as re's, hold what the
// reader's first edits would make again.
pyodide.runPython(
  "import gc, sys, zipimport\nzipimport._zip_directory_cache.clear()\nsys.path_importer_cache.clear()\ngc.collect()",
);
pyodide.FS.unmount(sitePackages);
zeroFreeMemory(pyodide._module);
const snapshot = pyodide.makeMemorySnapshot();
xorInitialMemory(snapshot, readFileSync(join(runtime, webAssembly)));
writeFileSync(out, snapshot);
