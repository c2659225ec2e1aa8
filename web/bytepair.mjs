// bytepair for JavaScript: exact BPE token ids (tiktoken-compatible) from the Python core on Pyodide.
//
//   import { createTokenizer } from "./bytepair.mjs";
//   const tok = await createTokenizer({ encoding: "o200k_base", onProgress: ({ loaded, total }) => {} });
//   const ids = await tok.encode("hello world");   // Uint32Array
//   const llama = await createTokenizer({ tokenizer: "llama3" });            // prepared at build time
//   const mine = await createTokenizer({ tokenizerJson: "./tokenizer.json" }); // or an object, File, Blob
//   await (await createTokenizer({ model: "gpt-4o" })).countChat(messages);    // OpenAI's chat count
//   await (await createTokenizer({ tokenizer: "qwen2_5" })).applyChatTemplate(messages); // { ids, ... }
//
// The runtime lives in a module Web Worker in browsers and in a worker thread under Node, so neither
// a page nor a server's event loop waits while it encodes; runtimes with neither run it in-process.
// One runtime per assets URL serves every encoding and loads once, however many callers ask at the
// same time. All assets come from `assetsUrl` (default: the directory of this module).

import { EMBEDDED } from "./embedded.mjs";
import { DisposedError, ClosedError, InvalidInputError, errorFrom, readAdvice } from "./errors.mjs";
import { DEFAULT_ASSETS, InProcessBackend, WorkerBackend, abortError, nodeModule, threadSupport } from "./backends.mjs";
import "./interrupts.mjs"; // backends.mjs's: named here too, so that a page fetches both at once
import { closePool, countFiles, encodeFiles, forgetInPool } from "./pool.mjs";

export * from "./errors.mjs";

function disposedError(encoding) {
  return new DisposedError(`this ${encoding} tokenizer was disposed; create a new one with createTokenizer()`);
}

const backends = new Map(); // assetsUrl -> { backend, users }

/** The runtime of `assetsUrl`, shared; `threads` is threadSupport()'s answer (a worker of that kind,
 * or this thread where there is none). */
function acquire(assetsUrl, first, threads) {
  let slot = backends.get(assetsUrl);
  if (!slot || slot.backend.closed) {
    const backend = threads ? new WorkerBackend(assetsUrl, first, threads) : new InProcessBackend(assetsUrl, first);
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
    closePool(slot.backend); // its helper workers (pool.mjs), if countFiles started any
    if (backends.get(assetsUrl) === slot) backends.delete(assetsUrl);
  }
}

function normaliseAssets(assetsUrl) {
  if (assetsUrl === undefined && DEFAULT_ASSETS === undefined) {
    throw new InvalidInputError(
      "this runtime gives modules no URL (import.meta.url), so bytepair cannot find its assets beside itself: " +
        "pass createTokenizer({ assetsUrl }) naming where they are served (on Cloudflare Workers: import \"bytepair/workerd\")",
    );
  }
  const base = new URL(assetsUrl ?? DEFAULT_ASSETS, globalThis.location?.href ?? DEFAULT_ASSETS).href;
  return base.endsWith("/") ? base : base + "/";
}

function invalidInput(message) {
  return new InvalidInputError(message);
}

function typeName(value) {
  return value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
}

// The option names each call takes (bytepair.d.ts's option types).
const CREATE_OPTIONS = ["encoding", "model", "tokenizer", "tokenizerJson", "sentencepiece", "name", "tokenizerConfig", "assetsUrl", "startTimeout", "onProgress", "signal", "callTimeout"];
const LIST_OPTIONS = ["assetsUrl"];
const CALL_OPTIONS = ["signal"];
const ENCODE_OPTIONS = [...CALL_OPTIONS, "allowedSpecial", "disallowedSpecial"];
const COUNT_OPTIONS = [...ENCODE_OPTIONS, "errors"];
const INSPECT_OPTIONS = [...ENCODE_OPTIONS, "maxTokens"];
const DECODE_OPTIONS = [...CALL_OPTIONS, "errors"];
const CHAT_OPTIONS = [
  ...CALL_OPTIONS, "model", "tools", "addGenerationPrompt", "specialText", "chatTemplate", "continueFinalMessage", "documents", "variables",
  "templateTimeout", "templateMaxChars",
];
const TEMPLATE_OPTIONS = [...CHAT_OPTIONS, "returnAssistantMask", "returnText"];
const ANALYZE_OPTIONS = [...CALL_OPTIONS, "compareWith", "corpus", "limit", "onProgress"];
// train()'s model family options, passed to Python's trainer objects (web_bridge/train_families.py checks them).
const FAMILY_OPTIONS = ["unkToken", "lowercase", "maxInputCharsPerWord", "limitAlphabet", "initialAlphabet", "continuingSubwordPrefix",
  "shrinkingFactor", "maxPieceLength", "nSubIterations", "seedSize"];
const TRAIN_OPTIONS = ["vocabSize", "pattern", "specialTokens", "minFrequency", "onProgress", "signal", "name", "assetsUrl", "model", ...FAMILY_OPTIONS];

/** Refuse option names that `call` does not take: a misspelt one ("encodng", "allowSpecial") would
 * otherwise be ignored without a word, and the call would quietly use the default. */
function checkOptionNames(options, known, call) {
  const unknown = Object.keys(options).filter((key) => !known.includes(key));
  if (unknown.length) {
    throw invalidInput(
      `${call} has no option${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => JSON.stringify(k)).join(", ")}; ` +
        `its options are ${known.join(", ")}`,
    );
  }
}

/** A local path (Node) or the page's URL: what a relative tokenizerJson URL is resolved against. */
async function baseUrl() {
  if (globalThis.location?.href) return globalThis.location.href;
  try { // a process with a working directory (Node, Deno, Bun)
    if (typeof globalThis.process?.cwd === "function") return (await nodeModule("node:url")).pathToFileURL(process.cwd() + "/").href;
  } catch {
    // no node:url, or no permission to read the working directory
  }
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
  if (typeof value === "string" && !value.trim()) throw invalidInput("tokenizerJson is empty: give the file's URL or path, its JSON text or bytes, or the parsed object");
  if (typeof value === "string" || value instanceof URL) {
    const url = new URL(value, await baseUrl());
    // ".../llama3/tokenizer.json" is named "llama3"; any other file by its own name.
    const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
    const name = (parts.at(-1) === "tokenizer.json" && parts.length > 1 ? parts.at(-2) : parts.at(-1)) || "tokenizer.json";
    if (url.protocol === "file:") {
      const { readFile } = await nodeModule("node:fs/promises");
      try {
        return { data: new Uint8Array(await readFile(url)), name };
      } catch (err) {
        const why = err.code === "EISDIR" ? "it is a folder; give the tokenizer.json inside it" : `${err.message}${readAdvice(err, "").replace(/^./, "; $&")}`;
        throw errorFrom({ name: "AssetError", message: `cannot read the tokenizer.json at ${url}: ${why}` });
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

/** A sentencepiece option (a SentencePiece .model) as bytes and a name: bytes (Uint8Array, ArrayBuffer),
 * a File/Blob, or a URL or path, read as tokenizerJson's are. */
async function readSentencePiece(value) {
  const isBlob = typeof Blob !== "undefined" && value instanceof Blob;
  const isBytes = value instanceof ArrayBuffer || ArrayBuffer.isView(value);
  if (!isBlob && !isBytes && typeof value !== "string" && !(value instanceof URL)) {
    throw invalidInput(`sentencepiece must be a .model file's URL or path, a File/Blob or its bytes, not ${value === null ? "null" : typeof value}`);
  }
  if (typeof value === "string" && !value.trim()) throw invalidInput("sentencepiece is empty: give the .model file's URL or path, or its bytes");
  if (typeof value === "string" && value.trimStart().startsWith("{")) {
    throw invalidInput("sentencepiece takes a SentencePiece .model file (its bytes, URL or path); give a tokenizer.json as tokenizerJson");
  }
  const { data, name } = await readTokenizerJson(value);
  return { data, name: isBytes ? "sentencepiece.model" : isBlob ? value.name || "sentencepiece.model" : name };
}

/** A value for the runtime as JSON text: a string is taken to be JSON text already, anything else is
 * written as JSON (what cannot be, a BigInt or a cycle, is refused here). */
function jsonText(value, what) {
  if (typeof value === "string") return value;
  let text;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw invalidInput(`${what} cannot be written as JSON (${err.message})`);
  }
  if (text === undefined) throw invalidInput(`${what} must be JSON data, not ${typeof value}`);
  return text;
}

/** What to open: exactly one of encoding, model, tokenizer, tokenizerJson and sentencepiece (default: o200k_base). */
async function openRequest(options) {
  for (const key of ["encoding", "model", "name"]) {
    if (options[key] !== undefined && typeof options[key] !== "string") {
      throw invalidInput(`${key} must be a name (a string), not ${options[key] === null ? "null" : typeof options[key]}`);
    }
  }
  const given = ["encoding", "model", "tokenizer", "tokenizerJson", "sentencepiece"].filter((k) => options[k] !== undefined);
  if (given.length > 1) throw invalidInput(`give one of encoding, model, tokenizer, tokenizerJson and sentencepiece, not ${given.join(" and ")}`);
  if (options.tokenizerConfig !== undefined && options.tokenizerJson === undefined && options.tokenizer === undefined && options.sentencepiece === undefined) {
    throw invalidInput("tokenizerConfig goes with tokenizerJson or tokenizer (it holds a tokenizer.json's chat template)");
  }
  const tokenizerConfig = options.tokenizerConfig === undefined ? undefined : jsonText(options.tokenizerConfig, "tokenizerConfig");
  if (options.tokenizer !== undefined) {
    if (typeof options.tokenizer !== "string") throw invalidInput(`tokenizer must be a name (see listTokenizers()), not ${typeof options.tokenizer}`);
    return { request: { tokenizer: options.tokenizer, tokenizerConfig }, first: { firstTokenizer: options.tokenizer } };
  }
  if (options.tokenizerJson !== undefined) {
    const { data, name } = await readTokenizerJson(options.tokenizerJson);
    return {
      request: { tokenizerJson: data, name: options.name ?? name, tokenizerConfig }, first: {}, transfer: typeof data === "string" ? [] : [data.buffer],
    };
  }
  if (options.sentencepiece !== undefined) { // loaded as the tokenizer.json transformers builds from it
    const { data, name } = await readSentencePiece(options.sentencepiece);
    return { request: { tokenizerJson: data, sentencepiece: true, name: options.name ?? name, tokenizerConfig }, first: {}, transfer: [data.buffer] };
  }
  if (options.model !== undefined) return { request: { model: options.model }, first: {} };
  const encoding = options.encoding ?? "o200k_base";
  return { request: { encoding }, first: { firstEncoding: encoding } };
}

/** Create a tokenizer. Options: encoding (default "o200k_base"), model, tokenizer (a name from
 * listTokenizers()) or tokenizerJson (URL, text, object, File/Blob); assetsUrl, onProgress, signal. */
export async function createTokenizer(options = {}) {
  if (options === null || typeof options !== "object") throw invalidInput(`createTokenizer takes an options object, not ${typeName(options)}`);
  checkOptionNames(options, CREATE_OPTIONS, "createTokenizer");
  const { onProgress } = options;
  if (onProgress !== undefined && typeof onProgress !== "function") throw invalidInput(`onProgress must be a function, not ${typeName(onProgress)}`);
  const signal = signalOf(options);
  if (signal?.aborted) throw abortError(signal);
  const budgetMs = callBudget(options.callTimeout);
  const startMs = startBudget(options.startTimeout);
  const assetsUrl = normaliseAssets(options.assetsUrl);
  const { request, first, transfer } = await openRequest(options);
  if (startMs) first.startTimeoutMs = startMs; // the bound of a runtime this call starts
  const slot = acquire(assetsUrl, first, await threadSupport());
  const { backend } = slot;
  if (onProgress) backend.listeners.add(onProgress);
  try {
    await untilAborted(backend.ready, signal);
    // The open waits to begin at most its budget and the grace of an interrupt (backends.mjs, 5.).
    const info = await backend.request("open", request, transfer, undefined, signal, { ms: budgetMs, beginMs: budgetMs + OPEN_GRACE_MS });
    const tok = new Tokenizer(backend, info, () => release(assetsUrl, slot));
    tok.budgetMs = budgetMs;
    return tok;
  } catch (err) {
    release(assetsUrl, slot);
    throw err;
  } finally {
    if (onProgress) backend.listeners.delete(onProgress);
  }
}

async function readManifest(options, call) {
  if (options === null || typeof options !== "object") throw invalidInput(`${call} takes an options object, not ${typeName(options)}`);
  checkOptionNames(options, LIST_OPTIONS, call);
  const assetsUrl = normaliseAssets(options.assetsUrl);
  const url = new URL("manifest.json", assetsUrl);
  let text;
  try {
    if (url.protocol === "file:") {
      const { readFile } = await nodeModule("node:fs/promises");
      text = await readFile(url, "utf8");
    } else {
      const response = await (EMBEDDED.fetch ?? fetch)(url);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      text = await response.text();
    }
  } catch (err) {
    throw errorFrom({ name: "AssetError", message: `cannot read ${url} (${err.message}); ${readAdvice(err, "pass assetsUrl where bytepair's dist/ is served")}` });
  }
  return JSON.parse(text);
}

/** Names of the bundled encodings (reads the manifest only; no runtime is started). */
export async function listEncodings(options = {}) {
  return Object.keys((await readManifest(options, "listEncodings")).encodings);
}

/** Names of the open-model tokenizers prepared at build time, for createTokenizer({ tokenizer })
 * (reads the manifest only; each one's tokenizer.json is fetched only when it is opened). */
export async function listTokenizers(options = {}) {
  return Object.keys((await readManifest(options, "listTokenizers")).tokenizers ?? {});
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
    if (closed) throw new ClosedError("this stream decoder was closed; create a new one with tok.decoder()");
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

/** Characters per request when a long string is counted: about 30 ms of work each, so a quick call
 * waits that long at most behind a long count. */
const SLICE_CHARS = 1 << 17;
/** Bytes per request when a Blob or stream is counted. */
const SLICE_BYTES = 1 << 18;

/** Seconds a call may run while others wait (createTokenizer's callTimeout), as milliseconds. */
const DEFAULT_CALL_TIMEOUT = 120;
const OPEN_GRACE_MS = 3000;
function callBudget(seconds = DEFAULT_CALL_TIMEOUT) {
  if (typeof seconds !== "number" || !(seconds > 0)) {
    throw invalidInput(`callTimeout must be a positive number of seconds (or Infinity for no limit), not ${typeof seconds === "number" ? seconds : typeName(seconds)}`);
  }
  return seconds * 1000;
}

/** Seconds a starting runtime may go without progress (createTokenizer's startTimeout, default 60), as
 * milliseconds; undefined for the default. */
function startBudget(seconds) {
  if (seconds === undefined) return undefined;
  if (typeof seconds !== "number" || !(seconds > 0) || seconds === Infinity) {
    throw invalidInput(`startTimeout must be a positive, finite number of seconds, not ${typeof seconds === "number" ? seconds : typeName(seconds)}`);
  }
  return seconds * 1000;
}

function signalOf(options) {
  const signal = options?.signal;
  if (signal === undefined) return undefined;
  if (signal === null || typeof signal !== "object" || typeof signal.addEventListener !== "function" || !("aborted" in signal)) {
    throw invalidInput("signal must be an AbortSignal (from an AbortController)");
  }
  return signal;
}

/** allowedSpecial / disallowedSpecial: "all", an array or a Set of names (a bare name is refused: it
 * would read as its characters). */
function specialOption(value, option) {
  if (value === undefined || value === "all" || Array.isArray(value) || value instanceof Set) return value;
  if (typeof value === "string") {
    throw invalidInput(`${option} must be "all", an array or a Set of special-token names; for one token write [${JSON.stringify(value)}]`);
  }
  return value; // anything else: the runtime says what it wanted
}

function policy(options, known, call) {
  if (options === null || typeof options !== "object") throw invalidInput(`options must be an object, not ${options === null ? "null" : typeof options}`);
  checkOptionNames(options, known, call);
  return {
    allowedSpecial: specialOption(options.allowedSpecial, "allowedSpecial"),
    disallowedSpecial: specialOption(options.disallowedSpecial, "disallowedSpecial"),
  };
}

/** A long string in slices that never part a surrogate pair. */
function* stringSlices(text) {
  for (let start = 0; start < text.length;) {
    let end = Math.min(text.length, start + SLICE_CHARS);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last < 0xdc00) end -= 1;
    yield text.slice(start, end);
    start = end;
  }
}

/** Bytes of bytes (an ArrayBuffer or a view of one: Uint8Array, Node's Buffer, DataView), a Blob, a
 * ReadableStream or an async iterable, in new Uint8Arrays of about SLICE_BYTES (ours to transfer);
 * string chunks pass through. Null for anything else. */
function byteSlices(input) {
  if (input instanceof ArrayBuffer || ArrayBuffer.isView(input)) {
    // A plain Uint8Array over the same memory: Buffer's own slice() would not copy.
    const bytes = input instanceof ArrayBuffer ? new Uint8Array(input) : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    return (function* () {
      for (let at = 0; at < bytes.length; at += SLICE_BYTES) yield bytes.slice(at, at + SLICE_BYTES);
    })();
  }
  if (typeof Blob !== "undefined" && input instanceof Blob) {
    return (async function* () {
      for (let at = 0; at < input.size; at += SLICE_BYTES) {
        yield new Uint8Array(await input.slice(at, at + SLICE_BYTES).arrayBuffer());
      }
    })();
  }
  let source = null;
  if (typeof ReadableStream !== "undefined" && input instanceof ReadableStream) source = readStream(input);
  else if (input !== null && typeof input === "object" && typeof input[Symbol.asyncIterator] === "function") source = input;
  if (!source) return null;
  return (async function* () {
    let parts = [];
    let size = 0;
    const joined = () => {
      const out = new Uint8Array(size);
      let at = 0;
      for (const part of parts) {
        out.set(part, at);
        at += part.length;
      }
      parts = [];
      size = 0;
      return out;
    };
    for await (const chunk of source) {
      if (typeof chunk === "string") {
        if (size) yield joined();
        yield chunk;
        continue;
      }
      if (!(chunk instanceof ArrayBuffer || ArrayBuffer.isView(chunk))) {
        throw invalidInput(`a stream to count must give Uint8Array or string chunks, not ${chunk === null ? "null" : typeof chunk}`);
      }
      const bytes = chunk instanceof ArrayBuffer ? new Uint8Array(chunk) : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      parts.push(bytes.slice());
      size += bytes.length;
      if (size >= SLICE_BYTES) yield joined();
    }
    if (size) yield joined();
  })();
}

/** `promise`, or an AbortError as soon as `signal` fires (the promise is then left to settle unheard). */
function untilAborted(promise, signal) {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(promise).then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** A ReadableStream as an async iterable (Node's and Chromium's are iterable already; Safari's not). */
async function* readStream(stream) {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
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
    this.model = info.model; // the model name createTokenizer({ model }) was given: the default of the chat calls
    this.onDispose = onDispose;
    this.disposed = false;
    this.decoders = new Set(); // DecoderHandles not closed yet
  }

  /** One request to the runtime. With `signal`, an abort rejects at once with AbortError, and the
   * Python work itself stops (see backends.mjs: interrupted in place, or its worker replaced). */
  call(op, args, { transfer, signal } = {}) {
    if (this.disposed) return Promise.reject(disposedError(this.encoding));
    return this.backend.request(op, { encoding: this.key, ...args }, transfer, undefined, signal, { ms: this.budgetMs });
  }

  async encode(text, options = {}) {
    return this.call("encode", { text, ...policy(options, ENCODE_OPTIONS, "encode") }, { signal: signalOf(options) });
  }

  /** Tokens in a string, UTF-8 bytes (Uint8Array, Buffer, ArrayBuffer, DataView), a Blob/File or a
   * ReadableStream (or async iterable) of bytes or strings. Long inputs and all bytes are counted
   * slice by slice (bounded memory for streams and Blobs; other calls run between the slices;
   * `signal` stops it); bytes that are not UTF-8 are refused as in a Blob. */
  async count(input, options = {}) {
    const signal = signalOf(options);
    const special = policy(options, COUNT_OPTIONS, "count");
    if (options.errors !== undefined && options.errors !== "strict" && options.errors !== "replace") {
      throw invalidInput(`errors must be "strict" or "replace", not ${JSON.stringify(options.errors)}`);
    }
    if (typeof input === "string" && input.length <= SLICE_CHARS) return this.call("count", { text: input, ...special }, { signal });
    const pieces = typeof input === "string" ? stringSlices(input) : byteSlices(input);
    if (!pieces) {
      throw invalidInput(
        "count takes a string, bytes (a Uint8Array, Buffer, ArrayBuffer or DataView), a Blob/File, a ReadableStream " +
          `or an async iterable of bytes or strings, not ${typeName(input)}`,
      );
    }
    return this.countPieces(pieces, { ...special, errors: options.errors }, signal);
  }

  /** The same as count(): the name other tokenizer libraries use. */
  async countTokens(input, options = {}) {
    return this.count(input, options);
  }

  /** count() of each input, in order, spread over up to `workers` workers (default: the cores, at
   * most 4): helper runtimes with this tokenizer opened in them (pool.mjs). */
  async countFiles(inputs, options = {}) {
    return countFiles(this, inputs, options);
  }

  /** encode() of each input (a string, UTF-8 bytes or a Blob/File), in order, over the same pool. */
  async encodeFiles(inputs, options = {}) {
    return encodeFiles(this, inputs, options);
  }

  async countPieces(pieces, args, signal) {
    const handle = await this.call("counterOpen", args, { signal });
    const iterator = pieces[Symbol.asyncIterator] ? pieces[Symbol.asyncIterator]() : pieces[Symbol.iterator]();
    try {
      for (;;) {
        // An abort is seen while the input is awaited too (a stalled stream), not only in requests.
        const { done, value: piece } = await untilAborted(iterator.next(), signal);
        if (done) break;
        const transfer = piece instanceof Uint8Array ? [piece.buffer] : [];
        await this.call("counterFeed", { handle, data: piece }, { signal, transfer });
      }
      return await this.call("counterFinish", { handle }, { signal });
    } catch (err) {
      Promise.resolve(iterator.return?.()).catch(() => {}); // the input is not read further
      if (!this.disposed && !this.backend.closed) this.backend.request("counterClose", { handle }).catch(() => {});
      throw err;
    }
  }

  async isWithinTokenLimit(text, limit, options = {}) {
    return this.call("isWithinTokenLimit", { text, limit, ...policy(options, ENCODE_OPTIONS, "isWithinTokenLimit") }, { signal: signalOf(options) });
  }

  async encodeWithOffsets(text, options = {}) {
    return this.call("encodeWithOffsets", { text, ...policy(options, ENCODE_OPTIONS, "encodeWithOffsets") }, { signal: signalOf(options) });
  }

  /** Everything a token viewer needs after an edit, in one round trip (see bytepair.d.ts). */
  async inspect(text, options = {}) {
    const special = policy(options, INSPECT_OPTIONS, "inspect");
    return this.call("inspect", { text, maxTokens: options.maxTokens, ...special }, { signal: signalOf(options) });
  }

  async decode(ids, options = {}) {
    if (options === null || typeof options !== "object") throw invalidInput(`options must be an object, not ${typeName(options)}`);
    checkOptionNames(options, DECODE_OPTIONS, "decode");
    return this.call("decode", { ids, errors: options.errors }, { signal: signalOf(options) });
  }

  decodeTokenBytes(ids) {
    return this.call("decodeTokenBytes", { ids });
  }

  /** Text as it is decoded from an (async) iterable of ids or of id arrays, for `for await`: each
   * step yields what is complete (a character split between tokens waits for its last byte). */
  async *decodeStream(ids, options = {}) {
    if (options === null || typeof options !== "object") throw invalidInput(`options must be an object, not ${typeName(options)}`);
    checkOptionNames(options, CALL_OPTIONS, "decodeStream");
    const signal = signalOf(options);
    if (ids === null || typeof ids !== "object" || !(Symbol.asyncIterator in ids || Symbol.iterator in ids)) {
      throw invalidInput(`decodeStream takes an iterable or async iterable of ids, not ${ids === null ? "null" : typeof ids}`);
    }
    const decoder = this.decoder();
    try {
      for await (const chunk of ids) {
        if (signal?.aborted) throw abortError(signal);
        const text = await decoder.write(chunk);
        if (text) yield text;
      }
      const rest = await decoder.flush();
      if (rest) yield rest;
    } finally {
      if (!this.disposed) await decoder.close();
    }
  }

  /** A streaming decoder; throws DisposedError at once if this tokenizer was disposed. */
  decoder() {
    if (this.disposed) throw disposedError(this.encoding);
    return new StreamDecoder(this);
  }

  /** One chat request: messages and options cross as JSON text (the OpenAI family's model defaults to
   * the one this tokenizer was created with). */
  chatCall(op, messages, options, call, known = CHAT_OPTIONS) {
    if (options === null || typeof options !== "object") return Promise.reject(invalidInput(`options must be an object, not ${options === null ? "null" : typeof options}`));
    let signal, args;
    try {
      checkOptionNames(options, known, call);
      signal = signalOf(options);
      const { signal: _, ...rest } = options;
      if (this.info.family !== "tokenizer.json" && rest.model === undefined && this.model !== undefined) rest.model = this.model;
      if (messages === null || typeof messages !== "object" || typeof messages[Symbol.iterator] !== "function") {
        throw invalidInput(`messages must be an array of { role, content } objects, not ${messages === null ? "null" : typeof messages}`);
      }
      args = { family: this.info.family, messages: jsonText(Array.from(messages), "messages"), options: jsonText(rest, "options") };
    } catch (err) {
      return Promise.reject(err);
    }
    return this.call(op, args, { signal });
  }

  /** Prompt tokens of a chat: OpenAI's documented count for the model (see bytepair.d.ts), or the
   * length of applyChatTemplate's ids for a tokenizer.json. */
  async countChat(messages, options = {}) {
    return this.chatCall("countChat", messages, options, "countChat");
  }

  /** The ids of a chat: the chat template's (tokenizer.json), or gpt-oss's harmony format. */
  async encodeChat(messages, options = {}) {
    return (await this.chatCall("encodeChat", messages, options, "encodeChat")).ids;
  }

  /** A tokenizer.json's chat template applied: { ids, assistantMask?, text? } (see bytepair.d.ts). */
  async applyChatTemplate(messages, options = {}) {
    if (this.info.family !== "tokenizer.json") {
      throw errorFrom({
        name: "UnsupportedTokenizerError",
        message: `the ${this.encoding} encoding has no chat template: use countChat (or encodeChat for gpt-oss) with a model`,
      });
    }
    return this.chatCall("encodeChat", messages, options, "applyChatTemplate", TEMPLATE_OPTIONS);
  }

  /** bytepair.analysis.analyze on this tokenizer and `compareWith` (see bytepair.d.ts): the report
   * (the same JSON as Python's) and its Markdown. Asked for part by part (each tokenizer's summary,
   * the fertility on the corpus, each vocabulary report), so `onProgress` can tell how far it is
   * and other calls are answered between the parts. */
  async analyze(options = {}) {
    if (options === null || typeof options !== "object") throw invalidInput(`analyze takes an options object, not ${options === null ? "null" : typeof options}`);
    checkOptionNames(options, ANALYZE_OPTIONS, "analyze");
    const signal = signalOf(options);
    const others = options.compareWith === undefined ? [] : [options.compareWith].flat();
    for (const other of others) {
      if (!(other instanceof Tokenizer)) throw invalidInput("compareWith must be a tokenizer from createTokenizer(), or an array of them");
      if (other.disposed) throw disposedError(other.encoding);
      if (other.backend !== this.backend) throw invalidInput("tokenizers compared must share a runtime: create them with the same assetsUrl");
    }
    const all = [this, ...others.filter((t, i) => t !== this && others.indexOf(t) === i)];
    let corpus = options.corpus;
    if (typeof corpus === "string") corpus = { text: corpus };
    else if (corpus !== undefined && (corpus === null || typeof corpus !== "object" || Array.isArray(corpus))) {
      throw invalidInput("corpus must be a string or an object of label -> text");
    }
    const { limit, onProgress } = options;
    const steps = [
      ...all.map((t) => ["tokenizer", [t], `summary of ${t.encoding}`]),
      ...(corpus ? [["fertility", all, "fertility on the corpus"]] : []),
      ...all.map((t) => ["vocabulary", [t], `vocabulary of ${t.encoding}`]),
    ];
    const parts = { tokenizer: [], fertility: undefined, vocabulary: [] };
    for (const [index, [part, toks, step]] of steps.entries()) {
      onProgress?.({ done: index, total: steps.length + 1, step });
      const names = toks.map((t) => t.key);
      const value = await this.call("analyze", { part, names, corpus: part === "tokenizer" ? undefined : corpus, limit }, { signal });
      if (part === "fertility") parts.fertility = value;
      else parts[part].push(value);
    }
    const report = { tokenizers: parts.tokenizer };
    if (corpus) report.fertility = parts.fertility;
    report.vocabulary = parts.vocabulary;
    onProgress?.({ done: steps.length, total: steps.length + 1, step: "Markdown" });
    const markdown = await this.call("analysisMarkdown", { report: JSON.stringify(report) }, { signal });
    onProgress?.({ done: steps.length + 1, total: steps.length + 1, step: "done" });
    return { report, markdown };
  }

  /** Live objects and memory of the runtime (diagnostics: a leak shows as growth between two calls). */
  memoryStats() {
    return this.call("memoryStats", {});
  }

  dispose() {
    if (this.disposed) return;
    for (const handle of this.decoders) handle.close().catch(() => {}); // before the runtime may stop
    this.disposed = true;
    if (this.info.family === "tokenizer.json") forgetInPool(this);
    if (this.info.family === "tokenizer.json" && !this.backend.closed) {
      this.backend.request("close", { encoding: this.key }).catch(() => {}); // forget it unless shared
    }
    this.onDispose();
  }
}

// ---- Training -------------------------------------------------------------------------------------

/** A tokenizer trained by train(): a tokenizer.json tokenizer like any other, plus its file. */
class TrainedTokenizer extends Tokenizer {
  #json;

  constructor(backend, info, onDispose, json, merges) {
    super(backend, info, onDispose);
    this.#json = json;
    this.merges = merges; // how many merges were learned
  }

  /** The tokenizer.json as an object, so that JSON.stringify(tok) writes the file. */
  toJSON() {
    return JSON.parse(this.#json);
  }

  /** The tokenizer.json text (indented, as Python's Tokenizer.save writes it): save it to a file or a Blob. */
  save() {
    return this.#json;
  }
}

/** Characters per training request for string texts, bytes read per slice of a Blob. */
const TRAIN_SLICE_CHARS = 1 << 18;

/** A line with its line end, as Python's open(newline="") (and so `bytepair train FILE`) reads a file. */
const LINE = /[^\r\n]*(?:\r\n|\r|\n)/gy;

function countTexts(texts) {
  const what = texts === null ? "null" : Array.isArray(texts) ? "an array" : typeof texts;
  if (typeof texts === "string") return [texts];
  if (!Array.isArray(texts) || texts.length === 0) {
    throw invalidInput(`train takes a string, an array of strings or an array of Blobs/Files, not ${what === "an array" ? "an empty array" : what}`);
  }
  const isBlob = (t) => typeof Blob !== "undefined" && t instanceof Blob;
  const kind = isBlob(texts[0]) ? "Blob" : "string";
  texts.forEach((t, i) => {
    if (kind === "Blob" ? !isBlob(t) : typeof t !== "string") {
      throw invalidInput(`texts[${i}] is ${t === null ? "null" : typeof t}: give all strings or all Blobs/Files`);
    }
  });
  return texts;
}

/** Batches of texts to count, with progress: { texts, done, total } in characters (strings) or bytes
 * (Blobs, read line by line, line ends kept, as the `bytepair train` command reads files). */
async function* trainingBatches(texts) {
  if (typeof texts[0] === "string") {
    const total = texts.reduce((n, t) => n + t.length, 0);
    let batch = [];
    let size = 0;
    let done = 0;
    for (const text of texts) {
      batch.push(text);
      size += text.length;
      if (size >= TRAIN_SLICE_CHARS) {
        done += size;
        yield { texts: batch, done, total };
        batch = [];
        size = 0;
      }
    }
    if (batch.length) yield { texts: batch, done: total, total };
    return;
  }
  const total = texts.reduce((n, b) => n + b.size, 0);
  let done = 0;
  for (const blob of texts) {
    const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    let rest = "";
    for (let at = 0; at < blob.size || rest; at += TRAIN_SLICE_CHARS) {
      const last = at + TRAIN_SLICE_CHARS >= blob.size;
      let text;
      try {
        const bytes = at < blob.size ? new Uint8Array(await blob.slice(at, at + TRAIN_SLICE_CHARS).arrayBuffer()) : new Uint8Array();
        text = rest + decoder.decode(bytes, { stream: !last });
      } catch {
        throw errorFrom({ name: "InputDecodeError", message: `${blob.name || "a Blob"} is not UTF-8 text; convert it to UTF-8 first` });
      }
      const lines = [];
      LINE.lastIndex = 0;
      let end = 0;
      for (let m; (m = LINE.exec(text)) !== null && m[0];) {
        // A "\r" at the end of a slice may be the first half of "\r\n": keep it for the next slice.
        if (!last && LINE.lastIndex === text.length && text.endsWith("\r")) break;
        lines.push(m[0]);
        end = LINE.lastIndex;
      }
      rest = text.slice(end);
      if (last && rest) {
        lines.push(rest); // the last line, without a line end
        rest = "";
      }
      done = Math.min(total, done + Math.min(TRAIN_SLICE_CHARS, Math.max(0, blob.size - at)));
      if (lines.length) yield { texts: lines, done, total };
      if (last) break;
    }
  }
}

function trainOptions(options) {
  if (options === null || typeof options !== "object") throw invalidInput(`train options must be an object, not ${options === null ? "null" : typeof options}`);
  checkOptionNames(options, TRAIN_OPTIONS, "train");
  const { vocabSize, pattern, specialTokens, minFrequency, onProgress, name } = options;
  if (!Number.isInteger(vocabSize) || vocabSize < 1) throw invalidInput(`vocabSize must be a positive whole number (e.g. 8000), not ${vocabSize}`);
  if (pattern !== undefined && (typeof pattern !== "string" || !pattern)) throw invalidInput("pattern must be an encoding name (\"o200k_base\", \"gpt2\", ...) or a regex string");
  if (specialTokens !== undefined && (!Array.isArray(specialTokens) || !specialTokens.every((t) => typeof t === "string"))) {
    throw invalidInput("specialTokens must be an array of strings");
  }
  if (minFrequency !== undefined && (!Number.isInteger(minFrequency) || minFrequency < 0)) throw invalidInput(`minFrequency must be a whole number >= 0, not ${minFrequency}`);
  if (onProgress !== undefined && typeof onProgress !== "function") throw invalidInput("onProgress must be a function");
  if (name !== undefined && typeof name !== "string") throw invalidInput("name must be a string");
  const model = options.model ?? "bpe";
  if (!["bpe", "wordpiece", "wordlevel", "unigram"].includes(model)) throw invalidInput(`model must be "bpe", "wordpiece", "wordlevel" or "unigram", not ${typeof model === "string" ? JSON.stringify(model) : typeName(model)}`);
  const family = Object.fromEntries(FAMILY_OPTIONS.filter((k) => options[k] !== undefined).map((k) => [k, options[k]]));
  const setup = model === "bpe" && !Object.keys(family).length ? undefined : JSON.stringify({ model, ...family });
  return { vocabSize, pattern, specialTokens: specialTokens ?? [], minFrequency: minFrequency ?? 0, onProgress, name: name ?? "trained", setup };
}

/** Train a byte-level BPE tokenizer (Hugging Face's merges and ids, as Python's bytepair.train) on a
 * string, an array of strings, or Blobs/Files (read line by line). Options: vocabSize, pattern,
 * specialTokens, minFrequency, onProgress({ phase, done, total, merges }), signal, name, assetsUrl;
 * model "wordpiece" | "wordlevel" | "unigram" trains that family instead, with HF's trainer and its
 * options (bytepair.d.ts, docs/TRAINING.md).
 * It runs in a worker of its own (a worker thread under Node), so the other tokenizers keep
 * answering and an abort stops it at once; where there are no workers it runs in the calling thread
 * (an abort is seen between slices of counting, and while merging only if onProgress itself aborts). */
export async function train(texts, options = {}) {
  const opts = trainOptions(options);
  const signal = signalOf(options);
  const sources = countTexts(texts);
  if (signal?.aborted) throw abortError(signal);
  const assetsUrl = normaliseAssets(options.assetsUrl);
  const threads = await threadSupport();
  const own = threads !== null;
  let slot = own ? null : acquire(assetsUrl, {}, threads);
  let backend = own ? new WorkerBackend(assetsUrl, {}, threads) : slot.backend;
  const worker = own ? backend : null; // this training's own worker
  let adopted = false; // ... kept as the runtime of the page (and of the trained tokenizer)
  let stopped = false;
  const onAbort = () => {
    stopped = true;
    if (worker && !adopted) worker.close(); // ends the worker mid-merge; its pending request rejects
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  let handle;
  try {
    await backend.ready;
    handle = await backend.request("trainOpen", { pattern: opts.pattern, setup: opts.setup });
    for await (const batch of trainingBatches(sources)) {
      if (stopped) throw abortError(signal);
      await backend.request("trainFeed", { handle, texts: batch.texts });
      opts.onProgress?.({ phase: "counting", done: batch.done, total: batch.total, merges: [] });
    }
    if (stopped) throw abortError(signal);
    const args = { handle, vocabSize: opts.vocabSize, specialTokens: opts.specialTokens, minFrequency: opts.minFrequency };
    const onEvent = (event) => {
      if (!stopped) opts.onProgress?.(event);
      return stopped || Boolean(signal?.aborted);
    };
    const result = await backend.request("trainFinish", args, [], onEvent);
    handle = undefined;
    if (stopped || signal?.aborted) throw abortError(signal);
    if (own) {
      // The trained tokenizer stays in this worker if the page has no runtime yet, else moves to it.
      const shared = backends.get(assetsUrl);
      if (shared && !shared.backend.closed) {
        backend.close();
        slot = acquire(assetsUrl, {}, threads);
        backend = slot.backend;
        await backend.ready;
      } else {
        slot = { backend, users: 1 };
        backends.set(assetsUrl, slot);
        adopted = true;
      }
    }
    const info = await backend.request("open", { tokenizerJson: result.json, name: opts.name });
    const done = slot;
    slot = null; // the tokenizer holds it now
    return new TrainedTokenizer(done.backend, info, () => release(assetsUrl, done), result.json, result.merges);
  } catch (err) {
    if (stopped || signal?.aborted) throw abortError(signal);
    throw err;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (handle !== undefined && !backend.closed) backend.request("trainClose", { handle }).catch(() => {});
    if (slot) release(assetsUrl, slot);
    if (worker && !adopted) worker.close();
  }
}
