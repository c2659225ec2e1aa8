// bytepair for JavaScript: exact BPE token ids (tiktoken-compatible) from the Python core on Pyodide.
//
//   import { createTokenizer } from "./bytepair.mjs";
//   const tok = await createTokenizer({ encoding: "o200k_base", onProgress: ({ loaded, total }) => {} });
//   const ids = await tok.encode("hello world");   // Uint32Array
//   const llama = await createTokenizer({ tokenizer: "llama3" });            // prepared at build time
//   const mine = await createTokenizer({ tokenizerJson: "./tokenizer.json" }); // or an object, File, Blob
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
  constructor(assetsUrl, first) {
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
    this.ready = this.request("init", { assetsUrl, ...first });
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
  constructor(assetsUrl, first) {
    this.listeners = new Set();
    this.ready = import("./service.mjs").then(({ TokenizerService }) =>
      TokenizerService.create({ assetsUrl, ...first, onProgress: (p) => this.listeners.forEach((l) => l(p)) }),
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

function acquire(assetsUrl, first) {
  let slot = backends.get(assetsUrl);
  if (!slot || slot.backend.closed) {
    const Backend = IS_NODE || typeof Worker === "undefined" ? InProcessBackend : WorkerBackend;
    const backend = new Backend(assetsUrl, first);
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

function invalidInput(message) {
  return errorFrom({ name: "InvalidInputError", message });
}

/** A local path (Node) or the page's URL: what a relative tokenizerJson URL is resolved against. */
async function baseUrl() {
  if (globalThis.location?.href) return globalThis.location.href;
  if (IS_NODE) return (await import("node:url")).pathToFileURL(process.cwd() + "/").href;
  return DEFAULT_ASSETS;
}

/** A tokenizerJson option as the runtime takes it: the JSON text, or its bytes (a Uint8Array, to be
 * transferred to the worker, not copied), and a name for it. Read here, in the caller's realm: a
 * File or Blob, or a URL the page may fetch. */
async function readTokenizerJson(value) {
  if (typeof Blob !== "undefined" && value instanceof Blob) {
    return { data: new Uint8Array(await value.arrayBuffer()), name: value.name || "tokenizer.json" };
  }
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
    const bytes = value instanceof ArrayBuffer ? new Uint8Array(value) : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    return { data: bytes.slice(), name: "tokenizer.json" };
  }
  if (typeof value === "string" && value.trimStart().startsWith("{")) return { data: value, name: "tokenizer.json" };
  if (typeof value === "string" || value instanceof URL) {
    const url = new URL(value, await baseUrl());
    // ".../llama3/tokenizer.json" is named "llama3"; any other file by its own name.
    const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
    const name = (parts.at(-1) === "tokenizer.json" && parts.length > 1 ? parts.at(-2) : parts.at(-1)) || "tokenizer.json";
    if (url.protocol === "file:") {
      const { readFile } = await import("node:fs/promises");
      try {
        return { data: new Uint8Array(await readFile(url)), name };
      } catch (err) {
        throw errorFrom({ name: "AssetError", message: `cannot read the tokenizer.json at ${url}: ${err.message}` });
      }
    }
    let response;
    try {
      response = await fetch(url);
    } catch (err) {
      throw errorFrom({ name: "AssetError", message: `cannot fetch the tokenizer.json at ${url}: ${err.message}` });
    }
    if (!response.ok) throw errorFrom({ name: "AssetError", message: `cannot fetch the tokenizer.json at ${url}: HTTP ${response.status}` });
    return { data: new Uint8Array(await response.arrayBuffer()), name };
  }
  if (value !== null && typeof value === "object") {
    let text;
    try {
      text = JSON.stringify(value);
    } catch (err) {
      throw invalidInput(`tokenizerJson: this object cannot be written as JSON (${err.message})`);
    }
    return { data: text, name: "tokenizer.json" };
  }
  throw invalidInput(
    `tokenizerJson must be a URL, the JSON text, a parsed object, a File/Blob or bytes, not ${value === null ? "null" : typeof value}`,
  );
}

/** What to open: exactly one of encoding, model, tokenizer and tokenizerJson (default: o200k_base). */
async function openRequest(options) {
  const given = ["encoding", "model", "tokenizer", "tokenizerJson"].filter((k) => options[k] !== undefined);
  if (given.length > 1) throw invalidInput(`give one of encoding, model, tokenizer and tokenizerJson, not ${given.join(" and ")}`);
  if (options.tokenizer !== undefined) {
    if (typeof options.tokenizer !== "string") throw invalidInput(`tokenizer must be a name (see listTokenizers()), not ${typeof options.tokenizer}`);
    return { request: { tokenizer: options.tokenizer }, first: { firstTokenizer: options.tokenizer } };
  }
  if (options.tokenizerJson !== undefined) {
    const { data, name } = await readTokenizerJson(options.tokenizerJson);
    return { request: { tokenizerJson: data, name: options.name ?? name }, first: {}, transfer: typeof data === "string" ? [] : [data.buffer] };
  }
  if (options.model !== undefined) return { request: { model: options.model }, first: {} };
  const encoding = options.encoding ?? "o200k_base";
  return { request: { encoding }, first: { firstEncoding: encoding } };
}

/** Create a tokenizer. Options: encoding (default "o200k_base"), model, tokenizer (a name from
 * listTokenizers()) or tokenizerJson (URL, text, object, File/Blob); assetsUrl, onProgress. */
export async function createTokenizer(options = {}) {
  const { onProgress } = options;
  const assetsUrl = normaliseAssets(options.assetsUrl);
  const { request, first, transfer } = await openRequest(options);
  const slot = acquire(assetsUrl, first);
  const { backend } = slot;
  if (onProgress) backend.listeners.add(onProgress);
  try {
    await backend.ready;
    const info = await backend.request("open", request, transfer);
    return new Tokenizer(backend, info, () => release(assetsUrl, slot));
  } catch (err) {
    release(assetsUrl, slot);
    throw err;
  } finally {
    if (onProgress) backend.listeners.delete(onProgress);
  }
}

async function readManifest(options) {
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
  return JSON.parse(text);
}

/** Names of the bundled encodings (reads the manifest only; no runtime is started). */
export async function listEncodings(options = {}) {
  return Object.keys((await readManifest(options)).encodings);
}

/** Names of the open-model tokenizers prepared at build time, for createTokenizer({ tokenizer })
 * (reads the manifest only; each one's tokenizer.json is fetched only when it is opened). */
export async function listTokenizers(options = {}) {
  return Object.keys((await readManifest(options)).tokenizers ?? {});
}

/** A stream decoder's runtime handle, apart from the decoder object, so that it can still be
 * closed once the decoder has been garbage collected. Opening never rejects unhandled: a failure
 * to open is reported by the decoder's first write or flush. */
class DecoderHandle {
  constructor(tok) {
    this.tok = tok;
    this.closed = false;
    this.id = tok.backend.request("streamOpen", { encoding: tok.key });
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
    this.key = info.key ?? info.name; // what the runtime knows it by: the encoding's name, or a tokenizer.json's key
    this.info = Object.freeze({
      family: info.family ?? "openai",
      name: info.name,
      vocabSize: info.n_vocab,
      specialTokens: Object.freeze([...info.special_tokens]),
    });
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
    return this.backend.request(op, { encoding: this.key, ...args }, transfer);
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
    if (this.info.family === "tokenizer.json" && !this.backend.closed) {
      this.backend.request("close", { encoding: this.key }).catch(() => {}); // forget it unless shared
    }
    this.onDispose();
  }
}
