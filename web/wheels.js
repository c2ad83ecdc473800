// Installs the site's pure-Python wheels into Pyodide straight from their
// bytes. Pyodide's loadPackage starts its Python-side installer on first
// use, which takes longer than our code and Babel take to import
// (docs/performance.md); a pure-Python wheel is a zip unpacked into
// site-packages as it is (Root-Is-Purelib), so that is done here, after
// checking each file against the sha256 the lockfile gives it. All but
// writing the files into Pyodide's file system happens while Pyodide boots.
import { fetchOk } from "./fetch-ok.js";

async function sha256(bytes) {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

// The package and everything it depends on, as lockfile entries.
function withDependencies(lockfile, name, seen = new Map()) {
  const entry = lockfile.packages[name];
  if (!entry) throw new Error(`${name} is not in the site's lockfile`);
  if (!seen.has(name)) {
    seen.set(name, entry);
    for (const dependency of entry.depends) withDependencies(lockfile, dependency, seen);
  }
  return [...seen.values()];
}

/**
 * Fetch, check and unzip the wheels of `name` and its dependencies, as the
 * lockfile (a promise of its parsed JSON) names them; resolves to their files.
 */
export async function fetchWheels(runtimeURL, lockfile, name) {
  const entries = withDependencies(await lockfile, name);
  return Promise.all(entries.map((entry) => fetchArchive(new URL(entry.file_name, runtimeURL), entry.sha256))).then(
    (wheels) => wheels.flat(),
  );
}

/** Fetch the zip archive at `url`, check it against its `expected` sha256 and unzip it; resolves to its files. */
export async function fetchArchive(url, expected) {
  const bytes = new Uint8Array(await (await fetchOk(url)).arrayBuffer());
  if ((await sha256(bytes)) !== expected) throw new Error(`${url.pathname.split("/").pop()}: wrong sha256`);
  return unzip(bytes);
}

function inflate(data) {
  const stream = new Blob([data]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return new Response(stream).arrayBuffer().then((buffer) => new Uint8Array(buffer));
}

// The files of a zip archive, inflated all at once: [[name, bytes], ...].
function unzip(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = bytes.length - 22; // the end-of-central-directory record, past any comment
  while (end >= 0 && view.getUint32(end, true) !== 0x06054b50) end--;
  if (end < 0) throw new Error("not a zip archive");
  const names = new TextDecoder();
  const files = [];
  let entry = view.getUint32(end + 16, true);
  for (let count = view.getUint16(end + 10, true); count > 0; count--) {
    if (view.getUint32(entry, true) !== 0x02014b50) throw new Error("corrupt zip directory");
    const method = view.getUint16(entry + 10, true);
    const size = view.getUint32(entry + 20, true);
    const nameLength = view.getUint16(entry + 28, true);
    const name = names.decode(bytes.subarray(entry + 46, entry + 46 + nameLength));
    const local = view.getUint32(entry + 42, true);
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const data = bytes.subarray(start, start + size);
    entry += 46 + nameLength + view.getUint16(entry + 30, true) + view.getUint16(entry + 32, true);
    if (name.endsWith("/")) continue;
    if (method !== 0 && method !== 8) throw new Error(`${name}: zip method ${method} is not supported`);
    files.push(Promise.all([name, method === 0 ? data : inflate(data)]));
  }
  return Promise.all(files);
}

/** Write the wheels' files (as fetchWheels gives them) into Pyodide's site-packages. */
export function installWheels(pyodide, files) {
  const sitePackages = pyodide.pyimport("sys").path.toJs().find((path) => path.endsWith("/site-packages"));
  for (const [name, data] of files) {
    const path = `${sitePackages}/${name}`;
    pyodide.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    pyodide.FS.writeFile(path, data);
  }
  // New files under a folder Python may have listed already: its finder
  // forgets the listing. (importlib.invalidate_caches() would also import
  // importlib.metadata, which a restored interpreter's empty standard
  // library does not have, and which nothing here needs.)
  pyodide.pyimport("sys").path_importer_cache.get(sitePackages)?.invalidate_caches();
}
