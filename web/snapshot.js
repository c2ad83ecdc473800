// The memory snapshot the worker restores Python from (sitebuild/snapshot.py
// makes it). It is stored gzipped, without its zero pages, and XORed with
// the memory Pyodide's WebAssembly starts with (its data segments): the
// static data, most of which Python leaves as it found it, becomes zeros,
// which gzip all but removes (docs/performance.md). The same code applies it
// at build time and undoes it here, XOR being its own inverse.
import { fetchOk } from "./fetch-ok.js";

/**
 * Start fetching the snapshot into a buffer of its known `size`. Returns
 * the buffer at once, so that Pyodide can size its memory and compile its
 * WebAssembly meanwhile, and `filled`, a promise that it holds the snapshot.
 */
export function fetchSnapshot(snapshotURL, wasmURL, size, signal) {
  const snapshot = new Uint8Array(size);
  const filled = Promise.all([
    fetchOk(snapshotURL, signal).then((response) => inflateInto(snapshot, response.body)),
    // The same request as Pyodide's own: the browser downloads it once.
    fetchOk(wasmURL, signal).then((response) => response.arrayBuffer()),
  ]).then(
    ([, wasm]) => xorInitialMemory(snapshot, new Uint8Array(wasm)),
    (error) => {
      snapshot.fill(0, 0, 4); // no magic number: Pyodide refuses what was written so far
      throw error;
    },
  );
  return { snapshot, filled };
}

// The unit in which the stored snapshot leaves out zeros (PAGE in sitebuild/snapshot.py).
const PAGE = 4096;

// As it arrives: many static hosts send application/octet-stream as it is.
// Inflated, it holds only the snapshot's nonzero pages (pack_pages in
// sitebuild/snapshot.py): the number of runs of them, each run's first
// page and number of pages (little-endian uint32), then the runs' bytes.
// The buffer is zeroed already, so the zero pages cost nothing.
async function inflateInto(buffer, body) {
  const reader = body.pipeThrough(new DecompressionStream("gzip")).getReader();
  let pending = new Uint8Array(0);
  // Fill `target` with the next bytes of the stream.
  async function fill(target) {
    for (let at = 0; at < target.length; ) {
      if (pending.length === 0) {
        const chunk = await reader.read();
        if (chunk.done) throw new Error("the snapshot is shorter than announced");
        pending = chunk.value;
      }
      const length = Math.min(pending.length, target.length - at);
      target.set(pending.subarray(0, length), at);
      pending = pending.subarray(length);
      at += length;
    }
  }
  const numbers = async (count) => {
    const bytes = new Uint8Array(4 * count);
    await fill(bytes);
    const view = new DataView(bytes.buffer);
    return Array.from({ length: count }, (_, i) => view.getUint32(4 * i, true));
  };
  const [count] = await numbers(1);
  if (count > Math.ceil(buffer.length / PAGE)) throw new Error("the snapshot is larger than announced");
  const runs = await numbers(2 * count);
  for (let run = 0; run < runs.length; run += 2) {
    const start = runs[run] * PAGE;
    const end = Math.min((runs[run] + runs[run + 1]) * PAGE, buffer.length);
    if (start >= end) throw new Error("the snapshot is larger than announced");
    await fill(buffer.subarray(start, end));
  }
  if (pending.length > 0 || !(await reader.read()).done) throw new Error("the snapshot is longer than announced");
}

/** XOR, in place, a snapshot's memory with what `wasm`'s active data segments put there. */
export function xorInitialMemory(snapshot, wasm) {
  // Pyodide's snapshot header: magic number, then where the memory starts.
  const memory = snapshot.subarray(new DataView(snapshot.buffer, snapshot.byteOffset).getUint32(4, true));
  for (const [offset, bytes] of activeDataSegments(wasm)) {
    for (let i = 0; i < bytes.length; i++) memory[offset + i] ^= bytes[i];
  }
}

// [offset, bytes] of each data segment the module copies into memory 0 when
// instantiated, from its data section (WebAssembly core spec, 5.5.14).
function* activeDataSegments(wasm) {
  let at = 8; // past the magic number and version
  const unsigned = () => {
    let value = 0;
    for (let shift = 1; ; shift *= 128) {
      const byte = wasm[at++];
      value += (byte & 0x7f) * shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < wasm.length) {
    const id = wasm[at++];
    const end = unsigned() + at;
    if (id !== 11) {
      at = end;
      continue;
    }
    for (let count = unsigned(); count > 0; count--) {
      const kind = unsigned();
      if (kind === 1) {
        at += unsigned(); // passive: copied by the program itself, if ever
        continue;
      }
      if (kind !== 0 || wasm[at++] !== 0x41) throw new Error("unexpected data segment in Pyodide's WebAssembly");
      const offset = unsigned(); // i32.const, as a signed LEB128: a memory offset below 2 GB reads the same
      if (wasm[at++] !== 0x0b) throw new Error("unexpected data segment offset in Pyodide's WebAssembly");
      const length = unsigned();
      yield [offset, wasm.subarray(at, at + length)];
      at += length;
    }
    return;
  }
}
