// Module Web Worker (under Node, a worker thread): hosts one Pyodide runtime and answers requests
// by id, so the page, or a server's event loop, never blocks. Messages in: { id, op, args } (op
// "init" first; its args may carry `control`, the SharedArrayBuffer of interrupts.mjs). Out:
// { id, ok, result | error } (an error is { name, message, token }), { progress: { loaded, total,
// phase } } while the runtime loads (phase: see Progress in bytepair.d.ts), { id, event } while
// request `id` runs (a training's progress), { running: id | 0 } around each Python call when there
// is no shared control (the caller then restarts a worker stuck in an aborted call), and
// { recycle: bytes } when a call has grown the wasm memory by RECYCLE_GROWTH beyond what the open
// tokenizers need (the caller restarts the worker once idle: wasm memory never shrinks). Large
// results are transferred, not copied.
import { TokenizerService } from "./service.mjs";
// Naming these here (only service.mjs needs them, but for runtime.mjs's nodeModule) lets the
// browser fetch the whole module graph at once, instead of one level at a time (worker, service,
// runtime, snapshot: a round trip each, a revalidation each on a warm page).
import { nodeModule } from "./runtime.mjs";
import "./verified.mjs";
import "./snapshot.mjs";
import "./stored.mjs";
import "./embedded.mjs";
import "./interrupts.mjs";
import "./errors.mjs";

let service = null;
let started = null; // the service, once started
let warmedUp = false;
let baseline = 0; // wasm bytes after the last open: what the tokenizers in use need
let recycleAsked = false;
/** Growth of the wasm memory past `baseline` that makes the worker ask to be restarted. */
const RECYCLE_GROWTH = 256 << 20;

// The channel to the caller: a Web Worker's global scope (browsers), or a worker thread's parentPort
// (node:worker_threads: Node, Deno, Bun; messages sent before its listener is attached wait on the
// port). Told apart by WorkerGlobalScope, which only a Web Worker has: a Bun thread also has a
// `self.postMessage`, but the caller's messages arrive on parentPort only.
const WEB_WORKER = typeof globalThis.WorkerGlobalScope === "function" && typeof self.postMessage === "function";
let port = WEB_WORKER ? self : null;
const post = (message, transfer = []) => port.postMessage(message, transfer);

// After the first tokenizer opens, the worker encodes a few parts of a made-up text through a
// throwaway engine (the bridge's `warm_up`), one part per task, so requests interleave with them:
// WebAssembly runs in a baseline compilation until code turns out hot, and this moves that cost off
// the page's first real text (see `warm_up` in web_bridge/ for the measurement). The first part
// waits WARM_UP_AFTER_MS, so the request a page sends as soon as it is ready is answered first.
const WARM_UP_AFTER_MS = 20;
function warmUp(svc, name) {
  warmedUp = true;
  const t0 = performance.now();
  const step = (part) => {
    let tokens = 0;
    try {
      tokens = svc.runtime.call("warm_up", name, part);
    } catch {
      return; // the tokenizer was closed meanwhile: nothing to warm
    }
    if (tokens > 0) setTimeout(() => step(part + 1), 0);
    else svc.runtime.timings["warm-up"] ??= performance.now() - t0; // past the last part
  };
  setTimeout(() => step(0), WARM_UP_AFTER_MS);
}

function reply(id, result, transfer = []) {
  post({ id, ok: true, result }, transfer);
}

function fail(id, err) {
  const name = err?.name && err.name !== "Error" ? err.name : "Error";
  post({ id, ok: false, error: { name, message: String(err?.message ?? err), token: err?.token } });
}

async function onRequest(data) {
  const { id, op, args } = data;
  try {
    if (op === "init") {
      if (!service) {
        service = TokenizerService.create({
          ...args,
          onProgress: (progress) => post({ progress }),
        });
        service.then((svc) => {
          started = svc;
          if (!args?.control) svc.runtime.onCall = (running) => post({ running });
        }, () => {});
        service.catch(() => {
          service = null;
        });
      }
      await service;
      reply(id, true);
      return;
    }
    if (!service) throw Object.assign(new Error("the runtime is not initialised"), { name: "StateError" });
    const emit = (event) => {
      post({ id, event });
      return false; // never "stop": an aborted training's page ends this worker instead
    };
    const svc = await service;
    const { result, transfer } = await svc.handle(op, args, { emit, id });
    // The first open stores a snapshot of the started runtime for the next page (and V8's code
    // cache, where this start had none: Runtime.storeCode); answer once they are written, since the
    // page may close right after this answer.
    if (op === "open") await Promise.all([svc.runtime.snapshotStored, svc.runtime.storeCode()]);
    reply(id, result, transfer);
    if (op === "open" && !warmedUp) warmUp(svc, result.key ?? result.name);
  } catch (err) {
    fail(id, err);
  }
  watchMemory(op);
}

/** After each request: a wasm memory that a call grew is given back by a restart, which the caller
 * makes once no call is running (a tokenizer's open raises the baseline instead). */
function watchMemory(op) {
  if (!started) return;
  const bytes = started.runtime.wasmBytes;
  if (!baseline || op === "open") baseline = Math.max(baseline, bytes);
  else if (!recycleAsked && bytes > baseline + RECYCLE_GROWTH) {
    recycleAsked = true;
    post({ recycle: bytes });
  }
}

if (WEB_WORKER) {
  self.onmessage = ({ data }) => onRequest(data);
} else {
  nodeModule("node:worker_threads").then(({ parentPort }) => {
    port = parentPort;
    parentPort.on("message", onRequest);
  });
}
