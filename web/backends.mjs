// Where a tokenizer's calls run: a worker (a module Web Worker in browsers, a worker thread under
// Node) that is watched and restarted when it must be, or this thread where there are no workers.
// (How a worker is started, per runtime: threads.mjs.)
//
// Why a module of its own: one runtime serves every tokenizer of a page, so one call that does not
// end (a stranger's chat template, a pattern, a huge text) would hold them all, and one that grew
// the wasm memory would keep it (wasm memory never shrinks). The WorkerBackend stops such a call:
//
// 1. An aborted call is stopped where it runs. With memory shared with the worker (interrupts.mjs:
//    Node, Deno, Bun, cross-origin-isolated pages) Python is interrupted in place, and a call that
//    has not begun is never begun; the runtime and every tokenizer in it stay as they are.
// 2. Otherwise, or if the interrupted call has not stopped within INTERRUPT_GRACE_MS, the worker is
//    ended and a new one started: the tokenizers in use are opened again (the same keys: a
//    tokenizer.json's is its sha256) and the calls waiting are sent again, so the other callers
//    only wait. Decoders, counters and trainings under way lived in the old worker: their next
//    call is a StateError that says so.
// 3. A worker that asks for it (its wasm memory grew by a call, see worker.mjs) is restarted the
//    same way once nothing is running and no decoder, counter or training is open.
// 4. Starting cannot wait forever: no progress for START_STALL_MS (or the first createTokenizer's
//    startTimeout) is a WorkerError.
// 5. A call without a signal cannot hold the others for ever: a call that has run longer than its
//    budget (createTokenizer({ callTimeout }), 120 s by default) while another call waits behind it
//    is stopped as an aborted one is, with CallTimeoutError; alone, it runs as long as it needs (an
//    encode of a huge text holds no one). A tokenizer's open that has not begun within its own
//    budget (plus the grace of an interrupt) is a WorkerError: the runtime is held by a call
//    with no budget (callTimeout: Infinity), and createTokenizer says so rather than wait.

import { AbortError, AssetError, CallTimeoutError, DisposedError, StateError, WorkerError, errorFrom } from "./errors.mjs";
import { abortCall, isRunning, runningCall, sharedControl } from "./interrupts.mjs";
import { DEFAULT_ASSETS, startWorker, uncloneable } from "./threads.mjs";

export function abortError(signal) {
  const err = new AbortError("the call was aborted (its AbortSignal fired)");
  if (signal?.reason !== undefined) err.cause = signal.reason;
  return err;
}

/** How long an interrupted call may take to stop before its worker is replaced; without shared
 * memory, how long an aborted call may go on running. */
const INTERRUPT_GRACE_MS = 2000;
const ABORT_GRACE_MS = 300;
/** How long a starting runtime may go without progress. */
const START_STALL_MS = 60_000;
/** How often the budgets of calls (createTokenizer's callTimeout) are looked at. */
const BUDGET_POLL_MS = 100;
/** Restarts after a crash within a minute before the runtime is given up. */
const MAX_CRASH_RESTARTS = 3;

/** Requests that open runtime state under a handle, and those that use it (a restart loses it). */
const HANDLE_OPENS = new Set(["counterOpen", "streamOpen", "trainOpen"]);
const HANDLE_CLOSES = new Set(["counterClose", "streamClose", "trainClose"]);

/** Calls every progress listener; one that throws is reported on the console, not left to end the
 * worker's message handler (under Node: the process). */
export function tell(listeners, progress) {
  for (const listener of listeners) {
    try {
      listener(progress);
    } catch (err) {
      console.error("bytepair: an onProgress callback threw:", err);
    }
  }
}

/** Runs requests in a module Web Worker (a worker thread under Node), watched (see the top of this module). */
export class WorkerBackend {
  /** `kind`: threadSupport()'s answer, "web" or "thread". */
  constructor(assetsUrl, first, kind) {
    this.kind = kind;
    this.assetsUrl = assetsUrl;
    this.first = first;
    this.listeners = new Set();
    this.pending = new Map(); // id -> { op, args, transfer, resolve, reject, onEvent, posted }
    this.nextId = 0;
    this.aborted = new Map(); // id -> timer: aborted requests whose worker has not answered them yet
    this.live = []; // { key, args } of each open tokenizer: opened again in a new worker
    this.handles = new Map(); // our handle -> { remote, generation }: counters, decoders, trainings
    this.nextHandle = 0;
    this.generation = 0;
    this.restarts = []; // when the worker was restarted, and why
    this.crashes = [];
    this.ready = this.start();
  }

  /** A new worker and its runtime; resolves once it has started (or rejects: see onError, START_STALL_MS). */
  start() {
    this.generation += 1;
    this.control = sharedControl();
    this.running = 0; // the request whose Python call runs, as the worker reports it without shared memory
    this.recycle = false;
    const worker = (this.worker = startWorker(this.assetsUrl, this.kind));
    worker.onmessage = ({ data }) => this.onMessage(worker, data);
    worker.onerror = (event) => this.onError(worker, event);
    const { startTimeoutMs, ...first } = this.first ?? {};
    const stallMs = startTimeoutMs ?? START_STALL_MS;
    const init = { assetsUrl: this.assetsUrl, ...first };
    if (this.control) init.control = this.control;
    const started = this.send("init", init);
    let heard = Date.now();
    this.heard = () => (heard = Date.now());
    const stall = setInterval(() => {
      if (Date.now() - heard <= stallMs || worker !== this.worker) return;
      this.fail(new WorkerError(
        `the bytepair runtime did not start: nothing arrived from its worker for ${stallMs / 1000} s ` +
          `(assets at ${this.assetsUrl}); check the network and try again`,
      ));
    }, Math.min(1000, Math.max(20, stallMs / 5)));
    stall.unref?.();
    const stop = () => clearInterval(stall);
    started.then(() => {
      stop();
      this.startedOnce = true;
    }, stop);
    return started;
  }

  /** Post a request now (a new worker's own requests: init, the tokenizers opened again). */
  send(op, args) {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      const entry = { op, args, transfer: [], resolve, reject, internal: true };
      this.pending.set(id, entry);
      this.post(id, entry);
    });
  }

  /** `budget`: { ms, beginMs } — how long the call's Python work may run while another call waits
   * (CallTimeoutError past it), and how long it may wait to begin (WorkerError); either may be absent. */
  request(op, args, transfer = [], onEvent = undefined, signal = undefined, budget = undefined) {
    if (this.closed) return Promise.reject(this.closed);
    if (signal?.aborted) return Promise.reject(abortError(signal));
    const id = ++this.nextId;
    // A tokenizer's open is kept to be sent again after a restart: its bytes are copied, not moved.
    const entry = { op, args, transfer: op === "open" ? [] : transfer, onEvent, posted: false };
    if (budget?.ms > 0 && budget.ms < Infinity) entry.budgetMs = budget.ms;
    if (budget?.beginMs > 0 && budget.beginMs < Infinity) entry.beginBy = Date.now() + budget.beginMs;
    const answer = new Promise((resolve, reject) => Object.assign(entry, { resolve, reject }));
    this.pending.set(id, entry);
    if (entry.budgetMs || entry.beginBy) this.watchBudgets();
    if (!this.restoring) this.post(id, entry);
    if (!signal) return answer;
    const onAbort = () => this.abort(id, signal);
    signal.addEventListener("abort", onAbort, { once: true });
    const forget = () => signal.removeEventListener("abort", onAbort);
    answer.then(forget, forget);
    return answer;
  }

  post(id, entry) {
    entry.posted = true;
    let { args } = entry;
    if (args?.handle !== undefined && !entry.internal) {
      const handle = this.handles.get(args.handle);
      if (!handle || handle.generation !== this.generation) {
        this.settle(id);
        if (HANDLE_CLOSES.has(entry.op)) entry.resolve(undefined); // it went with the old worker
        else entry.reject(new StateError(
          "the tokenizer runtime was restarted (after an aborted call, or to give back memory) and this " +
            `${entry.op.startsWith("stream") ? "decoder" : entry.op.startsWith("counter") ? "count" : "training"} ` +
            "was lost with it; start it again",
        ));
        return;
      }
      args = { ...args, handle: handle.remote };
    }
    this.worker.hold?.(true);
    try {
      this.worker.postMessage({ id, op: entry.op, args }, entry.transfer);
    } catch (err) { // a value that cannot cross to the worker (a Symbol, a function): nothing was sent
      this.settle(id);
      entry.reject(errorFrom(uncloneable(err)));
    }
  }

  /** Forget request `id`; let the thread end if nothing else is awaited. */
  settle(id) {
    this.pending.delete(id);
    if (!this.pending.size && !this.aborted.size) this.worker.hold?.(false);
  }

  onMessage(worker, data) {
    if (worker !== this.worker) return; // a worker that was replaced
    this.heard?.();
    if (data.progress) return tell(this.listeners, data.progress);
    if (data.event) return this.pending.get(data.id)?.onEvent?.(data.event);
    if (data.running !== undefined) return void (this.running = data.running);
    if (data.recycle) {
      this.recycle = true;
      return this.maybeRecycle();
    }
    if (this.aborted.has(data.id)) { // the answer to an aborted request: it has stopped
      clearInterval(this.aborted.get(data.id));
      this.aborted.delete(data.id);
      this.settle(data.id);
      return this.maybeRecycle();
    }
    const entry = this.pending.get(data.id);
    if (!entry) return;
    this.settle(data.id);
    if (!data.ok) entry.reject(errorFrom(data.error));
    else entry.resolve(this.answered(entry, data.result));
    this.maybeRecycle();
  }

  /** What the caller gets for a request's result, and what is kept of it for a restart. */
  answered(entry, result) {
    const { op, args } = entry;
    if (op === "open" && !entry.internal) {
      const key = result.key ?? result.name;
      const shared = args.tokenizerJson === undefined && args.tokenizer === undefined;
      if (!shared || !this.live.some((t) => t.key === key)) this.live.push({ key, args });
    } else if (op === "close") {
      const at = this.live.findIndex((t) => t.key === args.encoding);
      if (at >= 0) this.live.splice(at, 1);
    } else if (HANDLE_OPENS.has(op)) {
      const ours = ++this.nextHandle;
      this.handles.set(ours, { remote: result, generation: this.generation });
      return ours;
    } else if (HANDLE_CLOSES.has(op) || op === "trainFinish") {
      this.handles.delete(args.handle);
    }
    return result;
  }

  /** Looks at the budgets of the calls in flight every BUDGET_POLL_MS while any call has one. */
  watchBudgets() {
    if (this.budgetWatch) return;
    this.budgetWatch = setInterval(() => this.checkBudgets(), BUDGET_POLL_MS);
    this.budgetWatch.unref?.();
  }

  checkBudgets() {
    const now = Date.now();
    const running = this.restoring ? 0 : this.control ? runningCall(this.control) : this.running;
    if (running !== this.watched) {
      this.watched = running;
      this.watchedSince = now;
    }
    let budgets = false;
    for (const [id, entry] of this.pending) {
      if (entry.budgetMs || entry.beginBy) budgets = true;
      if (id === running) {
        entry.begun = true;
        // Past its budget while another call waits behind it: stopped as an aborted call is.
        if (entry.budgetMs && now - this.watchedSince > entry.budgetMs && this.pending.size > 1) {
          this.abort(id, undefined, new CallTimeoutError(
            `the ${entry.op} ran for more than ${entry.budgetMs / 1000} s while other calls waited on the shared ` +
              "runtime, so it was stopped (its time budget: createTokenizer({ callTimeout }) in seconds, Infinity for none); " +
              "for a very large input use count() (it keeps no ids) or pass the text in parts",
          ));
        }
      } else if (entry.beginBy && !entry.begun && !this.restoring && now > entry.beginBy) {
        const busy = this.pending.get(running);
        this.abort(id, undefined, new WorkerError(
          `the tokenizer runtime is held by a call that has run for ${((now - this.watchedSince) / 1000).toFixed(0)} s ` +
            `(${busy ? `a ${busy.op}` : "one"} with no time budget, or one that did not stop), so this ${entry.op} ` +
            "did not begin; abort that call (its AbortSignal), give it a callTimeout, or try again later",
        ));
      }
    }
    if (!budgets) {
      clearInterval(this.budgetWatch);
      this.budgetWatch = null;
    }
  }

  /** Reject request `id` at once (with `error`: AbortError by default); stop its Python call if it
   * runs, else make sure it never does. */
  abort(id, signal, error = abortError(signal)) {
    const entry = this.pending.get(id);
    if (!entry) return;
    entry.reject(error);
    if (!entry.posted) return this.settle(id); // still waiting for a restart: never sent
    this.pending.delete(id);
    const interrupted = this.control !== null;
    if (interrupted) abortCall(this.control, id);
    let runningSince = 0;
    const watch = setInterval(() => {
      const running = interrupted ? isRunning(this.control, id) : this.running === id;
      if (!running) return void (runningSince = 0); // queued still (or answered: onMessage clears this)
      runningSince ||= Date.now();
      if (Date.now() - runningSince >= (interrupted ? INTERRUPT_GRACE_MS : ABORT_GRACE_MS)) {
        this.restart(`an aborted ${entry.op} did not stop`);
      }
    }, 50);
    watch.unref?.();
    this.aborted.set(id, watch);
  }

  /** Restart for memory once it is safe: nothing running, waiting or open under a handle. */
  maybeRecycle() {
    if (!this.recycle || this.restoring || this.pending.size || this.aborted.size) return;
    for (const { generation } of this.handles.values()) if (generation === this.generation) return;
    this.restart("a call grew its wasm memory");
  }

  /** End the worker and start another: the tokenizers in use are opened again, then the requests
   * waiting are sent (in their order), and any sent meanwhile. */
  restart(reason) {
    const old = this.worker;
    old.onmessage = old.onerror = null;
    old.terminate();
    for (const watch of this.aborted.values()) clearInterval(watch);
    this.aborted.clear();
    for (const [id, entry] of this.pending) {
      if (entry.internal) {
        this.pending.delete(id);
        entry.reject(new WorkerError("the runtime was restarted while it started"));
      } else entry.posted = false;
    }
    this.restarts.push({ at: Date.now(), reason });
    const since = Date.now();
    const restoring = (async () => {
      await this.start();
      if (this.restoring !== restoring) return;
      // All sent at once (the worker answers in order): the tokenizers the waiting calls use, then
      // those calls, then the other tokenizers; so a count waiting behind an aborted call does not
      // wait for every tokenizer in use to be opened again (a 7 MB tokenizer.json, say). A tokenizer
      // that no longer opens answers UnknownEncodingError.
      const waiting = new Set([...this.pending.values()].map((entry) => entry.args?.encoding));
      const opens = this.live.filter((t) => waiting.has(t.key)).map(({ args }) => this.send("open", args).catch(() => {}));
      for (const [id, entry] of this.pending) if (!entry.posted && !entry.internal) this.post(id, entry);
      opens.push(...this.live.filter((t) => !waiting.has(t.key)).map(({ args }) => this.send("open", args).catch(() => {})));
      await Promise.all(opens);
    })();
    this.ready = restoring;
    this.restoring = restoring;
    restoring.then(() => {
      if (this.restoring !== restoring) return;
      this.restoring = null;
      const took = Date.now() - since; // waiting for a restart is not waiting behind a call
      for (const entry of this.pending.values()) if (entry.beginBy) entry.beginBy += took;
      for (const [id, entry] of this.pending) if (!entry.posted) this.post(id, entry);
      this.maybeRecycle();
    }, (err) => this.fail(err));
  }

  onError(worker, event) {
    if (worker !== this.worker) return;
    event.preventDefault?.();
    if (this.startedOnce && !this.closed) {
      // The runtime died after it had started (out of memory, a crash): start another, a few times.
      const now = Date.now();
      this.crashes = this.crashes.filter((t) => now - t < 60_000);
      if (this.crashes.length < MAX_CRASH_RESTARTS) {
        this.crashes.push(now);
        // The call it was running is not sent again: it may be what ended the worker.
        const id = this.control ? runningCall(this.control) : this.running;
        const entry = this.pending.get(id);
        if (entry) {
          this.settle(id);
          entry.reject(new WorkerError(`the tokenizer runtime failed running this call (${event.message ?? "no message"}); it was restarted`));
        }
        return this.restart(`its worker failed: ${event.message ?? "no message"}`);
      }
    }
    if (event.message === undefined && this.assetsUrl !== DEFAULT_ASSETS) {
      // Started from the caller's assetsUrl (see startWorker): most likely nothing is served there.
      return this.fail(new AssetError(
        `cannot load ${new URL("worker.mjs", this.assetsUrl)}: pass assetsUrl where bytepair's dist/ is served ` +
          "(with Access-Control-Allow-Origin if on another origin than the page)",
      ));
    }
    const detail = event.message ?? (this.kind === "thread"
      ? "worker.mjs or a module it imports is not beside bytepair.mjs: install the package whole, or pass assetsUrl (a folder holding dist/)"
      : `${new URL("worker.mjs", this.assetsUrl)} did not load: bytepair's assets are not there (an app built by a ` +
        "bundler must copy them and pass createTokenizer({ assetsUrl }) naming where they are served), or they are " +
        "served without Access-Control-Allow-Origin (if on another origin), or the page's Content-Security-Policy " +
        "does not allow worker-src 'self' (blob: if on another origin)");
    this.fail(new WorkerError(`the bytepair worker failed: ${detail}`));
  }

  fail(err) {
    this.closed = err;
    for (const { reject } of this.pending.values()) reject(err);
    this.pending.clear();
    for (const watch of this.aborted.values()) clearInterval(watch);
    this.aborted.clear();
    clearInterval(this.budgetWatch);
    this.budgetWatch = null;
    this.worker.hold?.(false);
    this.worker.terminate();
  }

  close() {
    this.fail(new DisposedError("the tokenizer runtime was disposed"));
  }
}

/** Runs requests in this thread (edge runtimes without workers): a call cannot be stopped while it
 * runs (the thread is busy running it); an abort rejects it at once and the runtime finishes it. */
export class InProcessBackend {
  constructor(assetsUrl, first) {
    this.listeners = new Set();
    this.ready = import("./service.mjs").then(({ TokenizerService }) =>
      TokenizerService.create({ assetsUrl, ...first, onProgress: (p) => tell(this.listeners, p) }),
    ).then((service) => {
      this.service = service;
      return true;
    });
  }

  async request(op, args, transfer = [], onEvent = undefined, signal = undefined) {
    if (this.closed) throw this.closed;
    if (signal?.aborted) throw abortError(signal);
    await this.ready;
    // Between the slices of a long count, let timers and I/O run (an abort, another caller's call).
    if (op === "counterFeed" || op === "trainFeed") await new Promise((resolve) => (globalThis.setImmediate ?? setTimeout)(resolve));
    if (this.closed) throw this.closed;
    if (signal?.aborted) throw abortError(signal);
    return (await this.service.handle(op, args, { emit: onEvent })).result;
  }

  close() {
    this.closed = new DisposedError("the tokenizer runtime was disposed");
  }
}
