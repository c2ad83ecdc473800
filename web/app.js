// Browser glue for a calculator page. It moves the form's texts to the
// Python worker and the worker's strings back into the page; every number
// and every word it shows comes from Python and the gettext catalogs.

// How long the reader must pause before the results are announced.
const ANNOUNCE_AFTER_MS = 700;

// Pyodide's loader can wait forever on a missing or mis-served file
// instead of failing, so a start that takes longer than this has failed.
const START_TIMEOUT_MS = 60_000;

const root = document.documentElement;
const form = document.querySelector("form[data-calculator]");
const results = form.querySelector(".results");
const placeholder = form.querySelector('[data-role="placeholder"]');
const figures = form.querySelector(".figures");
const announcer = form.querySelector('[data-role="announcement"]');
const inputs = [...form.querySelectorAll("input[name]")];
const outputs = [...form.querySelectorAll("output[name]")];

const worker = new Worker(new URL("./calc-worker.js", import.meta.url), { type: "module" });
const pending = new Map();
let lastId = 0;
let latestEdit = 0;

const ready = new Promise((resolve, reject) => {
  const timer = setTimeout(
    () => reject(new Error(`Python did not start within ${START_TIMEOUT_MS} ms`)),
    START_TIMEOUT_MS,
  );
  // Before "ready" this fails the start; after it, a worker that breaks
  // fails the page just the same (fail() runs once).
  const broken = (error) => {
    clearTimeout(timer);
    reject(error);
    fail(error);
  };
  worker.addEventListener("message", ({ data }) => {
    if (data.id !== undefined) return;
    if (data.type === "ready") {
      clearTimeout(timer);
      recordPhases(data.phases);
      resolve();
    } else {
      broken(new Error(data.message));
    }
  });
  worker.addEventListener("error", (event) => broken(new Error(event.message || "the worker could not be loaded")));
});

// The worker's start, step by step, on this page's timeline (for `make bench`).
function recordPhases(phases) {
  for (const [name, [start, end]] of Object.entries(phases)) {
    performance.measure(`calc:${name}`, { start: start - performance.timeOrigin, end: end - performance.timeOrigin });
  }
}

worker.addEventListener("message", ({ data }) => {
  const request = pending.get(data.id);
  if (!request) return;
  pending.delete(data.id);
  if (data.type === "result") request.resolve(data.view);
  else request.reject(new Error(data.message));
});

worker.postMessage({
  type: "start",
  calculator: form.dataset.calculator,
  locale: root.lang,
  catalog: new URL(form.dataset.catalog, document.baseURI).href,
});

function evaluate(values) {
  return new Promise((resolve, reject) => {
    const id = ++lastId;
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, type: "evaluate", values });
  });
}

function readForm() {
  return Object.fromEntries(inputs.map((input) => [input.name, input.value]));
}

// The view as the server rendered it, for the default values.
function readView() {
  const errors = {};
  for (const input of inputs) {
    const error = document.getElementById(`${input.name}-error`);
    errors[input.name] = error.hidden ? null : error.textContent;
  }
  return {
    errors,
    outputs: Object.fromEntries(outputs.map((output) => [output.name, output.value])),
    prompt: placeholder.hidden ? null : placeholder.textContent,
  };
}

function show(view) {
  for (const input of inputs) {
    const message = view.errors[input.name];
    const error = document.getElementById(`${input.name}-error`);
    const hint = `${input.name}-hint`;
    error.textContent = message ?? "";
    error.hidden = !message;
    if (message) {
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", `${hint} ${error.id}`);
    } else {
      input.removeAttribute("aria-invalid");
      input.setAttribute("aria-describedby", hint);
    }
  }
  for (const output of outputs) output.value = view.outputs[output.name];
  placeholder.textContent = view.prompt ?? "";
  placeholder.hidden = !view.prompt;
  figures.hidden = Boolean(view.prompt);
}

const initialView = readView();

let announceTimer;
function announceLater(text) {
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => {
    if (announcer.textContent !== text) announcer.textContent = text;
  }, ANNOUNCE_AFTER_MS);
}

function fail(error) {
  if (root.dataset.calc === "error") return;
  console.error("The calculator is unavailable:", error);
  root.dataset.calc = "error";
  worker.terminate();
  // Back to the values the pre-rendered results belong to, which stay.
  form.reset();
  show(initialView);
  results.removeAttribute("aria-busy");
  for (const fieldset of form.querySelectorAll("fieldset")) fieldset.disabled = true;
}

async function update() {
  const edit = ++latestEdit;
  results.setAttribute("aria-busy", "true");
  await ready;
  if (edit !== latestEdit) return; // a newer edit supersedes this one
  const view = await evaluate(readForm());
  if (edit !== latestEdit || root.dataset.calc === "error") return;
  show(view);
  announceLater(view.announcement);
  results.removeAttribute("aria-busy");
}

form.addEventListener("input", () => update().catch(fail));
// There is nothing to submit: results follow the inputs, and Enter must not reload.
form.addEventListener("submit", (event) => event.preventDefault());

ready.then(() => {
  root.dataset.calc = "ready";
  performance.mark("calc:ready");
  // Cache the site for repeat and offline visits only now: every file is
  // in the HTTP cache, so the service worker revalidates, not downloads.
  navigator.serviceWorker?.register(new URL("../sw.js", import.meta.url)).catch((error) => {
    console.warn("Offline use is unavailable:", error);
  });
}, fail);
