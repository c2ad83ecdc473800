// Browser glue for every calculator page. It moves the form's raw values
// to the Python worker and applies the views the worker sends back; every
// number and every word it shows comes from Python and the gettext catalogs.
//
// What it applies, by element:
//   [data-input]: an input's controls, read and written as its data-kind says (KINDS),
//   its error, and its text when Python sets it;
//   a checkbox's label: hidden unless the view offers its value;
//   [data-output]: an output's view, shown as its data-kind says (OUTPUT_KINDS): a line
//   chart is drawn twice, its picture (kind chart) and its table (kind table);
//   a[data-link]: the address of a linked calculator, with the values it carries; its
//   list item hidden when the view carries nothing there.

// How long the reader must pause before the results are announced, and
// before the address is brought up to date.
const ANNOUNCE_AFTER_MS = 700;
const ADDRESS_AFTER_MS = 250;

// Pyodide's loader can wait forever on a missing or mis-served file
// instead of failing, so a start that takes longer than this has failed.
const START_TIMEOUT_MS = 60_000;
// An edit takes milliseconds once Python runs (docs/performance.md): an answer this late will not come, and the
// page says so rather than stay busy forever.
const ANSWER_TIMEOUT_MS = 30_000;

const root = document.documentElement;
const form = document.querySelector("form[data-calculator]");
const results = form.querySelector(".results");
const placeholder = form.querySelector('[data-role="placeholder"]');
const outcome = form.querySelector('[data-role="outcome"]');
const announcer = form.querySelector('[data-role="announcement"]');
// Each input as the template drew it: its name, its kind (the widget of calc.inputs
// that draws it) and its controls.
const inputs = [...form.querySelectorAll("[data-input]")].map((element) => ({
  name: element.dataset.input,
  kind: element.dataset.kind,
  controls: [...element.querySelectorAll(`[name="${element.dataset.input}"]`)],
}));
// Each output's elements, as the template drew them: its name, and its kind (the widget of calc.outputs that draws it).
const parts = [...form.querySelectorAll("[data-output]")];
const links = [...document.querySelectorAll("a[data-link]")];

const worker = new Worker(new URL("./calc-worker.js", import.meta.url), { type: "module" });
const pending = new Map();
let lastId = 0;

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
    if (data.id !== undefined || data.type === "warmed") return;
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
  if (data.type === "result") request.resolve(JSON.parse(data.view));
  else request.reject(new Error(data.message));
});

worker.postMessage({
  type: "start",
  calculator: form.dataset.calculator,
  locale: root.lang,
  catalog: new URL(form.dataset.catalog, document.baseURI).href,
});

// A request Python did not answer: fail() says so, in the status the page holds for it.
class NoAnswer extends Error {}

function evaluate(request) {
  return new Promise((resolve, reject) => {
    const id = ++lastId;
    const timer = setTimeout(() => {
      pending.delete(id);
      reject(new NoAnswer(`Python did not answer within ${ANSWER_TIMEOUT_MS} ms`));
    }, ANSWER_TIMEOUT_MS);
    const settled = (settle) => (value) => {
      clearTimeout(timer);
      settle(value);
    };
    pending.set(id, { resolve: settled(resolve), reject: settled(reject) });
    worker.postMessage({ id, type: "evaluate", request });
  });
}

// How each kind of input is read from its controls, and written with the text
// (or values) Python gives; tests/test_extension_points.py holds it to calc.inputs.
const ONE_CONTROL = {
  read: ([control]) => control.value,
  write: ([control], text) => {
    if (control.value !== text) control.value = text; // an equal write would be work for nothing
  },
};
const KINDS = {
  number: ONE_CONTROL,
  choice: ONE_CONTROL,
  pasted: ONE_CONTROL,
  // A group of checkboxes: the values of those checked.
  choices: {
    read: (boxes) => boxes.filter((box) => box.checked).map((box) => box.value),
    write: (boxes, values) => {
      for (const box of boxes) box.checked = values.includes(box.value);
    },
  },
};

// A kind without an entry fails the page, rather than be read as another kind.
function kindOf(input) {
  if (!Object.hasOwn(KINDS, input.kind)) throw new Error(`${input.name}: no entry in KINDS for "${input.kind}"`);
  return KINDS[input.kind];
}

function readForm() {
  return Object.fromEntries(inputs.map((input) => [input.name, kindOf(input).read(input.controls)]));
}

// The view the build drew the page with, for the default values, to return to if Python fails.
const defaultView = JSON.parse(document.getElementById("default-view").textContent);

// Shows the options the view offers, and hides the others.
function offer(offered) {
  for (const input of inputs.filter((input) => Object.hasOwn(offered, input.name))) {
    for (const box of input.controls) box.closest("label").hidden = !offered[input.name].includes(box.value);
  }
}

function errorOf(name) {
  return document.getElementById(`${name}-error`);
}

// Except those of `kept`: the reader edited them after the form was read.
function setTexts(texts, kept) {
  for (const input of inputs.filter(({ name }) => Object.hasOwn(texts, name) && !kept.has(name))) {
    kindOf(input).write(input.controls, texts[input.name]);
  }
}

function showErrors(errors) {
  for (const { name, controls } of inputs) {
    const message = errors[name];
    const error = errorOf(name);
    if (error.textContent !== (message ?? "")) error.textContent = message ?? "";
    error.hidden = !message;
    // A text field or a select describes itself; a group of boxes is described by its fieldset.
    const described = document.getElementById(name);
    const hint = `${name}-hint`;
    const describedBy = message ? `${hint} ${error.id}` : hint;
    if (described.getAttribute("aria-describedby") !== describedBy) described.setAttribute("aria-describedby", describedBy);
    for (const control of controls) {
      if (message) control.setAttribute("aria-invalid", "true");
      else control.removeAttribute("aria-invalid");
    }
  }
}

function showTable(table, rows) {
  const body = table.tBodies[0];
  body.replaceChildren(
    ...rows.map((cells, index) => {
      const row = document.createElement("tr");
      row.dataset.part = String(index + 1);
      cells.forEach((text, column) => {
        const cell = document.createElement(column === 0 ? "th" : "td");
        if (column === 0) cell.scope = "row";
        cell.textContent = text;
        row.append(cell);
      });
      return row;
    }),
  );
}

// Charts are SVG markup made by calc.charts from escaped text; parsed as
// SVG (no script runs in a parsed document) and moved into the page.
function showChart(container, markup) {
  const parsed = new DOMParser().parseFromString(markup || "<svg xmlns='http://www.w3.org/2000/svg'/>", "image/svg+xml");
  const svg = document.importNode(parsed.documentElement, true);
  container.replaceChildren(...(markup ? [svg] : []));
}

// What each part shows now, as the view said it (null: as the server drew it), so that
// an edit that leaves a table, a text or a chart as it was costs the page nothing.
const drawn = parts.map(() => null);

// How each kind of output shows its view (calc.outputs; a line chart's table is a table).
const showText = (part, shown) => {
  part.textContent = shown;
};
const OUTPUT_KINDS = {
  figure: (part, shown, view) => {
    part.value = shown;
    part.classList.toggle("worded", view.worded.includes(part.dataset.output));
  },
  text: showText,
  code: showText,
  // Paragraphs, each list under the one that leads it (calc.outputs.Listing).
  listing: (part, shown) => {
    part.replaceChildren(
      ...shown.blocks.map((block) => {
        if (!block.items) return Object.assign(document.createElement("p"), { textContent: block.text });
        const list = document.createElement("ul");
        list.append(...block.items.map((item) => Object.assign(document.createElement("li"), { textContent: item })));
        return list;
      }),
    );
  },
  table: (part, shown) => showTable(part, shown.rows),
  bar: (part, shown) => showChart(part, shown.svg),
  chart: (part, shown) => showChart(part, shown.svg),
};

// A kind without an entry fails the page, rather than be shown as another kind.
function outputKindOf(part) {
  const kind = part.dataset.kind;
  if (!Object.hasOwn(OUTPUT_KINDS, kind)) throw new Error(`${part.dataset.output}: no entry in OUTPUT_KINDS for "${kind}"`);
  return OUTPUT_KINDS[kind];
}

function show(view) {
  showErrors(view.errors);
  parts.forEach((part, index) => {
    const shown = view.outputs[part.dataset.output];
    const said = JSON.stringify(shown);
    if (said === drawn[index]) return;
    drawn[index] = said;
    outputKindOf(part)(part, shown, view);
  });
  placeholder.textContent = view.prompt ?? "";
  placeholder.hidden = !view.prompt;
  outcome.hidden = Boolean(view.prompt);
}

// The last answer's view: what supersedes it is no longer there to see.
function follow(view) {
  offer(view.offered);
  show(view);
  for (const link of links) {
    const carried = view.links[link.dataset.link];
    link.href = carried ? `${link.dataset.path}?${carried}` : link.dataset.path;
    link.closest("li").hidden = !carried;
  }
  // A bug's view has no address: the reader's stays, the values to send with a report.
  if (!view.failed) keepAddress(view.address ? `?${view.address}` : location.pathname);
}

// The address holds the inputs, so that it can be shared or bookmarked. It
// is written once the reader pauses: history.replaceState takes Chrome
// milliseconds, as long as the rest of an edit's update together.
let address = null;
let addressTimer;
function keepAddress(next) {
  address = next;
  clearTimeout(addressTimer);
  addressTimer = setTimeout(writeAddress, ADDRESS_AFTER_MS);
}

function writeAddress() {
  if (address === null) return;
  history.replaceState(history.state, "", address);
  address = null;
}
// Leaving the page: the history entry is what Back returns to.
addEventListener("pagehide", writeAddress);

let announceTimer;
function announceLater(text) {
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => {
    if (announcer.textContent !== text) announcer.textContent = text;
  }, ANNOUNCE_AFTER_MS);
}

// Whether every input's controls hold what the page was drawn with: the values the default view is for.
function atDefaults() {
  return inputs.flatMap((input) => input.controls).every((control) => {
    if (control.type === "checkbox") return control.checked === control.defaultChecked;
    if (control.tagName === "SELECT") return [...control.options].every((option) => option.selected === option.defaultSelected);
    return control.value === control.defaultValue;
  });
}

// What the reader typed stays, to copy or to reload with; the address stays too, to send with a report. The
// default view is shown only while the form holds its values; otherwise no results, and the status says why.
function fail(error) {
  if (root.dataset.calc === "error") return;
  console.error("The calculator is unavailable:", error);
  root.dataset.calc = "error";
  if (error instanceof NoAnswer) root.dataset.unanswered = "";
  worker.terminate();
  if (atDefaults()) {
    offer(defaultView.offered);
    show(defaultView);
  } else {
    root.dataset.edited = "";
    placeholder.hidden = true;
    outcome.hidden = true;
  }
  results.removeAttribute("aria-busy");
  for (const fieldset of form.querySelectorAll("fieldset")) fieldset.disabled = true;
}

// Python reads the form only once the previous answer is in it: an answer's
// texts (a preset's count, a model made custom) must be there before the next
// edits are settled against them, or Python settles them against the fields
// they replace. So the edits made meanwhile wait in one request, which names
// every input edited since the form was last read (Python keeps what was typed
// there); a field edited after that read keeps its text whatever the answer
// says; and only the answer to the last request is shown.
const waiting = []; // each request's maker, in turn
let asking = false;
// The inputs edited since the form was last read, or since the page opened:
// the address's answer must not overwrite what was typed while Python started.
const editedSinceRead = new Set();

function readEdits() {
  const request = { values: readForm(), changed: [...editedSinceRead] };
  editedSinceRead.clear();
  return request;
}

function edited(edits) {
  for (const name of edits) editedSinceRead.add(name);
  if (waiting.at(-1) !== readEdits) queue(readEdits);
}

function queue(makeRequest) {
  results.setAttribute("aria-busy", "true");
  waiting.push(makeRequest);
  if (!asking) askInTurn().catch(fail);
}

async function askInTurn() {
  asking = true;
  try {
    await ready;
    while (waiting.length > 0) {
      const view = await evaluate(waiting.shift()());
      if (root.dataset.calc === "error") break; // fail() ended the worker: leave the loop as a finished one
      setTexts(view.texts, editedSinceRead);
      if (waiting.length > 0) continue; // a later request has the last word
      follow(view);
      announceLater(view.announcement);
      results.removeAttribute("aria-busy");
    }
  } finally {
    asking = false; // a failed request ends the turn too, so that a later edit may ask again
  }
}

form.addEventListener("input", (event) => edited([event.target.name]));
// There is nothing to submit: results follow the inputs, and Enter must not reload.
form.addEventListener("submit", (event) => event.preventDefault());

// Opened with values in its address: the pre-rendered defaults are not
// their results, so the page waits for Python, which reads the address.
if (location.search) queue(() => ({ address: location.search }));

const copied = form.querySelector('[data-role="copied"]');
function copy(text) {
  navigator.clipboard.writeText(text).then(
    () => {
      copied.hidden = false;
      setTimeout(() => (copied.hidden = true), 3000);
    },
    (error) => console.warn("Nothing was copied:", error),
  );
}
form.querySelector('[data-role="copy-link"]').addEventListener("click", () => {
  writeAddress();
  copy(location.href);
});
for (const button of form.querySelectorAll("[data-copy]")) {
  button.addEventListener("click", () => copy(document.getElementById(button.dataset.copy).textContent));
}

// The worker's warm-up once ready (calc-worker.js) is over: the reader's first edits are fast from then on.
const warmed = new Promise((resolve) => {
  worker.addEventListener("message", ({ data }) => data.type === "warmed" && resolve());
});

ready.then(() => {
  root.dataset.calc = "ready";
  performance.mark("calc:ready");
  // Cache the site for repeat and offline visits only now, when every file
  // is in the HTTP cache (the service worker revalidates, not downloads),
  // and after the warm-up, which on a small machine needs the processor more.
  warmed.then(() =>
    navigator.serviceWorker?.register(new URL("../sw.js", import.meta.url)).catch((error) => {
      console.warn("Offline use is unavailable:", error);
    }),
  );
}, fail);
