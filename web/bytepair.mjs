// bytepair for JavaScript: exact BPE token ids (tiktoken-compatible) from the Python core on Pyodide.
//
//   import { createTokenizer } from "./bytepair.mjs";
//   const tok = await createTokenizer({ encoding: "o200k_base", onProgress: ({ loaded, total }) => {} });
//   const ids = await tok.encode("hello world");   // Uint32Array
//
// In browsers the runtime lives in a module Web Worker (the page never blocks); under Node it runs
// in-process. One runtime per assets URL serves every encoding and loads once, however many callers
// ask at the same time. All assets come from `assetsUrl` (default: the directory of this module).

const IS_NODE = typeof process === "object" && typeof process.versions?.node === "string" && typeof window === "undefined";
const DEFAULT_ASSETS = new URL("./", import.meta.url).href;

/** An Error from the { name, message, token } that crosses from Python and from the worker. */
function errorFrom({ name, message, token }) {
  const err = new Error(message);
  err.name = name;
  if (token !== undefined && token !== null) err.token = token;
  return err;
}

function disposedError(encoding) {
  return errorFrom({ name: "DisposedError", message: `this ${encoding} tokenizer was disposed; create a new one with createTokenizer()` });
}

/** Runs requests in a module Web Worker. */
class WorkerBackend {
  constructor(assetsUrl, firstEncoding) {
    this.worker = new Worker(new URL("./worker.mjs", import.meta.url), { type: "module", name: "bytepair" });
    this.pending = new Map();
    this.nextId = 0;
    this.listeners = new Set();
    this.worker.onmessage = ({ data }) => {
      if (data.progress) {
        for (const listener of this.listeners) listener(data.progress);
        return;
      }
      const entry = this.pending.get(data.id);
      if (!entry) return;
      this.pending.delete(data.id);
      if (data.ok) entry.resolve(data.result);
      else entry.reject(errorFrom(data.error));
    };
    this.worker.onerror = (event) => {
      event.preventDefault?.();
      this.fail(errorFrom({ name: "WorkerError", message: `the bytepair worker failed: ${event.message ?? "unknown error"}` }));
    };
    this.ready = this.request("init", { assetsUrl, firstEncoding });
  }

  request(op, args, transfer = []) {
    if (this.closed) return Promise.reject(this.closed);
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, op, args }, transfer);
    });
  }

  fail(err) {
    this.closed = err;
    for (const { reject } of this.pending.values()) reject(err);
    this.pending.clear();
    this.worker.terminate();
  }

  close() {
    this.fail(errorFrom({ name: "DisposedError", message: "the tokenizer runtime was disposed" }));
  }
}

/** Runs requests in this thread (Node, edge runtimes without workers). */
class InProcessBackend {
  constructor(assetsUrl, firstEncoding) {
    this.listeners = new Set();
    this.ready = import("./service.mjs").then(({ TokenizerService }) =>
      TokenizerService.create({ assetsUrl, firstEncoding, onProgress: (p) => this.listeners.forEach((l) => l(p)) }),
    ).then((service) => {
      this.service = service;
      return true;
    });
  }

  async request(op, args) {
    if (this.closed) throw this.closed;
    await this.ready;
    return (await this.service.handle(op, args)).result;
  }

  close() {
    this.closed = errorFrom({ name: "DisposedError", message: "the tokenizer runtime was disposed" });
  }
}

const backends = new Map(); // assetsUrl -> { backend, users }

function acquire(assetsUrl, firstEncoding) {
  let slot = backends.get(assetsUrl);
  if (!slot || slot.backend.closed) {
    const Backend = IS_NODE || typeof Worker === "undefined" ? InProcessBackend : WorkerBackend;
    const backend = new Backend(assetsUrl, firstEncoding);
    slot = { backend, users: 0 };
    backends.set(assetsUrl, slot);
    backend.ready.catch(() => {
      if (backends.get(assetsUrl) === slot) backends.delete(assetsUrl);
      backend.close();
    });
  }
  slot.users += 1;
  return slot;
}

function release(assetsUrl, slot) {
  slot.users -= 1;
  if (slot.users === 0) {
    slot.backend.close();
    if (backends.get(assetsUrl) === slot) backends.delete(assetsUrl);
  }
}

function normaliseAssets(assetsUrl) {
  const base = new URL(assetsUrl ?? DEFAULT_ASSETS, globalThis.location?.href ?? DEFAULT_ASSETS).href;
  return base.endsWith("/") ? base : base + "/";
}

/** Create a tokenizer. Options: encoding (default "o200k_base") or model, assetsUrl, onProgress. */
export async function createTokenizer(options = {}) {
  const { encoding, model, onProgress } = options;
  const assetsUrl = normaliseAssets(options.assetsUrl);
  const slot = acquire(assetsUrl, model === undefined ? encoding ?? "o200k_base" : undefined);
  const { backend } = slot;
  if (onProgress) backend.listeners.add(onProgress);
  try {
    await backend.ready;
    const info = await backend.request("open", model !== undefined ? { model } : { encoding: encoding ?? "o200k_base" });
    return new Tokenizer(backend, info, () => release(assetsUrl, slot));
  } catch (err) {
    release(assetsUrl, slot);
    throw err;
  } finally {
    if (onProgress) backend.listeners.delete(onProgress);
  }
}

/** Names of the bundled encodings (reads the manifest only; no runtime is started). */
export async function listEncodings(options = {}) {
  const assetsUrl = normaliseAssets(options.assetsUrl);
  const url = new URL("manifest.json", assetsUrl);
  let text;
  if (url.protocol === "file:") {
    const { readFile } = await import("node:fs/promises");
    text = await readFile(url, "utf8");
  } else {
    const response = await fetch(url);
    if (!response.ok) throw errorFrom({ name: "AssetError", message: `cannot fetch ${url}: HTTP ${response.status}` });
    text = await response.text();
  }
  return Object.keys(JSON.parse(text).encodings);
}

/** A stream decoder's runtime handle, apart from the decoder object, so that it can still be
 * closed once the decoder has been garbage collected. Opening never rejects unhandled: a failure
 * to open is reported by the decoder's first write or flush. */
class DecoderHandle {
  constructor(tok) {
    this.tok = tok;
    this.closed = false;
    this.id = tok.backend.request("streamOpen", { encoding: tok.encoding });
    this.id.catch(() => {});
    tok.decoders.add(this);
  }

  /** Release the decoder's state in the runtime (at most once). */
  close() {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.tok.decoders.delete(this);
    const { backend } = this.tok;
    return this.id.then(
      (handle) => (backend.closed ? undefined : backend.request("streamClose", { handle })),
      () => undefined, // never opened: nothing to release
    ).then(() => undefined);
  }
}

/** Decoders dropped without close(): release their runtime state when they are collected. */
const unclosedDecoders = new FinalizationRegistry((handle) => {
  handle.close().catch(() => {}); // the runtime may be gone by now, and its decoders with it
});

/** Streaming decoder (see bytepair.d.ts): holds back incomplete UTF-8 between writes. */
class StreamDecoder {
  #handle;

  constructor(tok) {
    this.#handle = new DecoderHandle(tok);
    unclosedDecoders.register(this, this.#handle, this.#handle);
  }

  async #open() {
    const { tok, closed } = this.#handle;
    if (tok.disposed) throw disposedError(tok.encoding);
    if (closed) throw errorFrom({ name: "ClosedError", message: "this stream decoder was closed; create a new one with tok.decoder()" });
    return this.#handle.id;
  }

  async write(ids) {
    const handle = await this.#open();
    return this.#handle.tok.backend.request("streamFeed", { handle, ids: typeof ids === "number" ? [ids] : ids });
  }

  async flush() {
    const handle = await this.#open();
    return this.#handle.tok.backend.request("streamFlush", { handle });
  }

  /** Release the decoder; closing twice is harmless. */
  async close() {
    const { tok } = this.#handle;
    if (tok.disposed) throw disposedError(tok.encoding);
    unclosedDecoders.unregister(this.#handle);
    await this.#handle.close();
  }
}

class Tokenizer {
  constructor(backend, info, onDispose) {
    this.backend = backend;
    this.encoding = info.name;
    this.nVocab = info.n_vocab;
    this.maxTokenValue = info.max_token_value;
    this.eotToken = info.eot_token ?? undefined;
    this.specialTokens = info.special_tokens;
    this.onDispose = onDispose;
    this.disposed = false;
    this.decoders = new Set(); // DecoderHandles not closed yet
  }

  call(op, args, transfer) {
    if (this.disposed) return Promise.reject(disposedError(this.encoding));
    return this.backend.request(op, { encoding: this.encoding, ...args }, transfer);
  }

  encode(text, options = {}) {
    return this.call("encode", { text, allowedSpecial: options.allowedSpecial, disallowedSpecial: options.disallowedSpecial });
  }

  count(text, options = {}) {
    return this.call("count", { text, allowedSpecial: options.allowedSpecial, disallowedSpecial: options.disallowedSpecial });
  }

  isWithinTokenLimit(text, limit, options = {}) {
    return this.call("isWithinTokenLimit", {
      text, limit, allowedSpecial: options.allowedSpecial, disallowedSpecial: options.disallowedSpecial,
    });
  }

  encodeWithOffsets(text, options = {}) {
    return this.call("encodeWithOffsets", { text, allowedSpecial: options.allowedSpecial, disallowedSpecial: options.disallowedSpecial });
  }

  /** Everything a token viewer needs after an edit, in one round trip (see bytepair.d.ts). */
  inspect(text, options = {}) {
    return this.call("inspect", {
      text,
      maxTokens: options.maxTokens,
      allowedSpecial: options.allowedSpecial,
      disallowedSpecial: options.disallowedSpecial,
    });
  }

  decode(ids, options = {}) {
    return this.call("decode", { ids, errors: options.errors });
  }

  decodeTokenBytes(ids) {
    return this.call("decodeTokenBytes", { ids });
  }

  /** A streaming decoder; throws DisposedError at once if this tokenizer was disposed. */
  decoder() {
    if (this.disposed) throw disposedError(this.encoding);
    return new StreamDecoder(this);
  }

  /** Live objects and memory of the runtime (diagnostics: a leak shows as growth between two calls). */
  memoryStats() {
    return this.call("memoryStats", {});
  }

  dispose() {
    if (this.disposed) return;
    for (const handle of this.decoders) handle.close().catch(() => {}); // before the runtime may stop
    this.disposed = true;
    this.onDispose();
  }
}
