// Starting a worker: which kind this JavaScript runtime offers (threadSupport), where its module
// file is (startWorker), and Node's worker thread given a Web Worker's face (NodeThread).
//
// Why a module of its own: backends.mjs watches a worker whatever its kind (aborts, budgets,
// restarts); how one is started differs per runtime (a module Web Worker, a cross-origin one
// through a blob: URL, node:worker_threads with the process's flags, held alive only while a call is
// awaited) and is kept apart from that, so backends.mjs stays about what happens to calls.

import { WorkerError } from "./errors.mjs";

/** This module's URL, where the runtime has one (Cloudflare's workerd has none: import.meta.url is
 * undefined there); the folder holding it is where assets are looked for unless assetsUrl says
 * otherwise. (Written through a variable: bundlers such as Vite warn on `new URL("./",
 * import.meta.url)`, a folder they cannot emit.) */
const HERE = typeof import.meta.url === "string" && /^[a-z][a-z0-9+.-]*:/i.test(import.meta.url) ? import.meta.url : undefined;
export const DEFAULT_ASSETS = HERE && new URL(".", HERE).href;

/** import() of a Node built-in ("node:fs/promises"), called only under Node. The name is passed, not
 * written in the import(), so that bundlers for the browser (esbuild, webpack, Vite) do not try to
 * resolve it: they fail on node: specifiers otherwise. */
export const nodeModule = (name) => import(/* webpackIgnore: true */ /* @vite-ignore */ name);

/** Where the runtime can run beside the caller's thread, found by trying what this JavaScript
 * runtime offers rather than by its name (Deno, Bun and workerd all say they are Node through
 * process.versions.node): "web", a module Web Worker (browsers: a page or a worker, which have a
 * document or WorkerGlobalScope beside Worker); "thread", node:worker_threads (Node, Deno, Bun);
 * null, none (workerd, Vercel's edge-runtime): the runtime then runs in the calling thread, with
 * the same API. Found once; createTokenizer awaits it before choosing a backend. */
let threads = null;
export function threadSupport() {
  threads ??= (async () => {
    const webScope = typeof globalThis.document === "object" || typeof globalThis.WorkerGlobalScope === "function";
    if (typeof globalThis.Worker === "function" && webScope) return "web";
    try {
      const { Worker } = await nodeModule("node:worker_threads");
      if (typeof Worker === "function") return "thread";
    } catch {
      // no such module here (workerd without nodejs_compat, edge-runtime, a browser's main thread without Worker)
    }
    return null;
  })();
  return threads;
}

/** The module worker: worker.mjs in the assets folder (beside this module unless the caller gave
 * another assetsUrl: an app bundled with esbuild and the like is one file, and dist/ is copied
 * elsewhere). Started from a same-origin blob: URL that imports the real worker module when that
 * is on another origin than the page (a docs site embedding the counter from a CDN or another
 * host): browsers refuse `new Worker(url)` across origins, CORS or not, but a module worker may
 * import a cross-origin module that is served with Access-Control-Allow-Origin. The URL is not
 * written out as `new URL("./worker.mjs", import.meta.url)`: bundlers would emit a copy of the
 * worker that nothing uses (the assets folder has its own). */
export function startWorker(assetsUrl, kind) {
  // A thread runs a file: worker.mjs in assetsUrl if that is a folder, else beside this module.
  const file = kind === "thread" && !assetsUrl.startsWith("file:") && HERE?.startsWith("file:");
  const url = new URL("worker.mjs", file ? HERE : assetsUrl);
  if (kind === "thread") return new NodeThread(url);
  const sameOrigin = !globalThis.location || url.origin === globalThis.location.origin;
  try {
    if (sameOrigin) return new Worker(url, { type: "module", name: "bytepair" });
    const source = `import ${JSON.stringify(url.href)};\n`;
    const blobUrl = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
    try {
      return new Worker(blobUrl, { type: "module", name: "bytepair" });
    } finally {
      setTimeout(() => URL.revokeObjectURL(blobUrl), 60_000); // the worker has loaded it by then
    }
  } catch (err) {
    throw new WorkerError(
      `cannot start the bytepair worker (${err.message}); a Content-Security-Policy must allow ` +
        (sameOrigin ? "worker-src 'self'" : "worker-src blob: (the bundle is on another origin)"),
    );
  }
}

/** Node's worker thread (node:worker_threads) with a Web Worker's face: postMessage, terminate,
 * onmessage and onerror. The thread starts once its module is imported (messages wait until then),
 * and it keeps the process alive only while a request is pending (`hold`): a script that ends
 * without dispose() still exits, and one awaiting an answer is not cut short. */
class NodeThread {
  constructor(url) {
    this.onmessage = null;
    this.onerror = null;
    this.thread = null;
    this.outbox = [];
    this.held = false;
    this.ended = false;
    nodeModule("node:worker_threads").catch((err) => {
      throw new Error(`node:worker_threads is not available: ${err.message}`);
    }).then(
      ({ Worker }) => {
        if (this.ended) return;
        // The thread takes this process's flags (--enable-source-maps, --inspect, say) but not those
        // about its entry point: `node --input-type=module -e ...` would refuse to start a file. A
        // thread refuses V8's and the process's own flags (--max-old-space-size, --expose-gc,
        // --title): with one of those, it starts without the process's flags.
        const execArgv = process.execArgv.filter((arg, i, all) => !arg.startsWith("--input-type") && all[i - 1] !== "--input-type");
        let thread;
        try {
          thread = new Worker(url, { name: "bytepair", execArgv });
        } catch (err) {
          if (err?.code !== "ERR_WORKER_INVALID_EXEC_ARGV") throw err;
          thread = new Worker(url, { name: "bytepair", execArgv: [] });
        }
        thread.on("message", (data) => this.onmessage?.({ data }));
        // A module that is not there is reported as a worker that did not load (no message), as
        // browsers report it: WorkerBackend then says where the assets were looked for.
        thread.on("error", (err) => this.onerror?.({ message: /MODULE_NOT_FOUND$/.test(err?.code ?? "") ? undefined : err?.message ?? String(err) }));
        thread.on("exit", (code) => {
          if (!this.ended) this.onerror?.({ message: `its thread exited (code ${code})` });
        });
        if (!this.held) thread.unref();
        this.thread = thread;
        for (const [message, transfer] of this.outbox.splice(0)) {
          try {
            thread.postMessage(message, transfer);
          } catch (err) { // a value the thread cannot be sent: answered as the request's failure
            this.onmessage?.({ data: { id: message.id, ok: false, error: uncloneable(err) } });
          }
        }
      },
    ).catch((err) => this.onerror?.({ message: `the bytepair thread cannot start (${err?.message ?? err})` }));
  }

  postMessage(message, transfer = []) {
    if (this.thread) this.thread.postMessage(message, transfer);
    else this.outbox.push([message, transfer]);
  }

  hold(busy) {
    this.held = busy;
    if (busy) this.thread?.ref();
    else this.thread?.unref();
  }

  terminate() {
    this.ended = true;
    this.thread?.terminate();
  }
}

/** The error of a request whose arguments cannot be copied to the worker (structured clone). */
export function uncloneable(err) {
  return {
    name: "InvalidInputError",
    message: `an argument cannot be passed to the tokenizer (${err?.message ?? err}); pass strings, numbers, arrays, ` +
      "typed arrays, Blobs or plain objects of those",
  };
}
