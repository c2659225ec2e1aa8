// Several inputs at once over a small pool of workers: tok.countFiles(files) and tok.encodeFiles(files).
//
// Why a module of its own: one runtime serves every tokenizer of a page (backends.mjs), and one
// Pyodide runtime runs on one core. A page that counts a folder of files on a machine with cores to
// spare gives the other files to helper workers: more WorkerBackends of the same assets, each with
// the tokenizer opened in it from the very request that opened it in the first one (its `live`
// entry), so every call still runs the same Python and gives the same ids.
//
// - The tokenizer's own runtime is one of the workers; helpers (up to MAX_WORKERS - 1) start on the
//   first call that wants them, are kept for the next ones, shared by every tokenizer of that
//   runtime, and end with it. Each helper is a Pyodide runtime of its own (its memory too).
// - Inputs are handed out largest first, one at a time, to whichever worker is free: a helper that
//   is still starting takes nothing until it has started, and the call never waits for it (a
//   helper that cannot start leaves its share to the others).
// - Results come back in input order. An abort (signal) rejects at once and stops the calls where
//   they run, as for one call; the first error rejects the whole call and nothing more is begun.
// - Where there are no workers (InProcessBackend: workerd, edge runtimes) the inputs run one after
//   another on the one runtime.

import { WorkerBackend, abortError } from "./backends.mjs";
import { nodeModule } from "./threads.mjs";
import { InvalidInputError, errorFrom } from "./errors.mjs";

/** At most this many workers (the tokenizer's own runtime and helpers) for one call. */
export const MAX_WORKERS = 4;

const pools = new WeakMap(); // a tokenizer's backend -> its helpers: [{ backend, opened: Map(key -> Promise<remote key>) }]

/** The cores this machine offers (navigator.hardwareConcurrency, or Node's os.availableParallelism). */
export async function hardwareConcurrency() {
  const cores = globalThis.navigator?.hardwareConcurrency;
  if (Number.isInteger(cores) && cores > 0) return cores;
  try {
    const os = await nodeModule("node:os");
    return os.availableParallelism?.() ?? (os.cpus().length || 1);
  } catch {
    return 1;
  }
}

/** How many workers a call over `count` inputs gets: `requested`, or min(cores, MAX_WORKERS). */
async function workersFor(requested, count, backend) {
  if (requested !== undefined && (!Number.isInteger(requested) || requested < 1)) {
    throw new InvalidInputError(`workers must be a whole number >= 1, not ${requested}`);
  }
  if (!(backend instanceof WorkerBackend)) return 1; // no workers here: one runtime in this thread
  return Math.max(1, Math.min(requested ?? Math.min(await hardwareConcurrency(), MAX_WORKERS), count));
}

function helperOf(backend, index) {
  let helpers = pools.get(backend);
  if (!helpers) pools.set(backend, (helpers = []));
  let helper = helpers[index];
  if (!helper || helper.backend.closed) {
    helper = helpers[index] = { backend: new WorkerBackend(backend.assetsUrl, backend.first, backend.kind), opened: new Map() };
    helper.backend.ready.catch(() => {}); // a helper that does not start is skipped (see run)
  }
  return helper;
}

/** `tok` as seen through helper `helper`: its calls go to that runtime, where the tokenizer is opened
 * (once) with the request that opened it in its own. */
async function viewOn(tok, helper) {
  let remote = helper.opened.get(tok.key);
  if (!remote) {
    const live = tok.backend.live?.find((t) => t.key === tok.key);
    if (!live) throw new Error("the tokenizer is not open in its runtime");
    remote = helper.backend.ready.then(() => helper.backend.request("open", live.args)).then((info) => info.key ?? info.name);
    helper.opened.set(tok.key, remote);
    remote.catch(() => helper.opened.delete(tok.key));
  }
  const key = await remote;
  return Object.create(tok, { backend: { value: helper.backend }, key: { value: key } });
}

/** How many helper runtimes `backend` has (diagnostics, and the tests). */
export function helperCount(backend) {
  return (pools.get(backend) ?? []).filter((helper) => !helper.backend.closed).length;
}

/** Stop the helpers of `backend` (when its last tokenizer is disposed). */
export function closePool(backend) {
  for (const helper of pools.get(backend) ?? []) helper.backend.close();
  pools.delete(backend);
}

/** Forget a disposed tokenizer.json tokenizer in the helpers (it is opened again if needed). */
export function forgetInPool(tok) {
  for (const helper of pools.get(tok.backend) ?? []) {
    const remote = helper.opened.get(tok.key);
    if (!remote) continue;
    helper.opened.delete(tok.key);
    remote.then((encoding) => helper.backend.closed || helper.backend.request("close", { encoding })).catch(() => {});
  }
}

function sizeOf(input) {
  if (typeof input === "string") return input.length;
  if (typeof Blob !== "undefined" && input instanceof Blob) return input.size;
  return input?.byteLength ?? 0;
}

/** `call(view, input)` for each input, over the tokenizer's runtime and its helpers; results in order. */
async function overPool(tok, inputs, options, call, what) {
  if (inputs === null || typeof inputs !== "object" || typeof inputs[Symbol.iterator] !== "function" || typeof inputs === "string") {
    throw new InvalidInputError(`${what} takes an array of inputs (strings, bytes, Blobs/Files), not ${inputs === null ? "null" : typeof inputs}`);
  }
  if (options === null || typeof options !== "object") throw new InvalidInputError(`options must be an object, not ${options === null ? "null" : typeof options}`);
  const { workers, ...rest } = options;
  const list = Array.from(inputs);
  const n = await workersFor(workers, list.length, tok.backend);
  const { signal } = rest;
  if (signal?.aborted) throw abortError(signal);
  const order = list.map((_, i) => i).sort((a, b) => sizeOf(list[b]) - sizeOf(list[a]));
  const results = new Array(list.length);
  if (!list.length) return results;
  return new Promise((resolve, reject) => {
    let next = 0;
    let remaining = list.length;
    let done = false;
    const finish = (err) => {
      if (done) return;
      done = true;
      signal?.removeEventListener("abort", onAbort);
      if (err) reject(err);
      else resolve(results);
    };
    const onAbort = () => finish(abortError(signal));
    signal?.addEventListener("abort", onAbort, { once: true });
    const run = async (view) => {
      try {
        view = await view;
      } catch {
        return; // a helper that did not start: the others take its share
      }
      while (!done && next < order.length) {
        const index = order[next++];
        try {
          results[index] = await call(view, list[index], rest);
        } catch (err) {
          return finish(err);
        }
        if (--remaining === 0) finish();
      }
    };
    run(tok);
    for (let k = 0; k < n - 1; k += 1) run(viewOn(tok, helperOf(tok.backend, k)));
  });
}

/** The token count of each input (anything count() takes but a stream), in order. */
export function countFiles(tok, inputs, options = {}) {
  return overPool(tok, inputs, options, (view, input, rest) => view.count(input, rest), "countFiles");
}

/** The ids of each input (a string, or UTF-8 bytes or a Blob/File, read exactly: a BOM is kept), in order. */
export function encodeFiles(tok, inputs, options = {}) {
  return overPool(tok, inputs, options, async (view, input, rest) => view.encode(await textOf(input), rest), "encodeFiles");
}

async function textOf(input) {
  if (typeof input === "string") return input;
  let bytes;
  if (typeof Blob !== "undefined" && input instanceof Blob) bytes = new Uint8Array(await input.arrayBuffer());
  else if (input instanceof ArrayBuffer || ArrayBuffer.isView(input)) {
    bytes = input instanceof ArrayBuffer ? new Uint8Array(input) : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  } else {
    throw new InvalidInputError(`encodeFiles takes strings, bytes or Blobs/Files, not ${input === null ? "null" : typeof input}`);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw errorFrom({ name: "InputDecodeError", message: `${input?.name || "an input"} is not UTF-8 text; convert it to UTF-8 first` });
  }
}
