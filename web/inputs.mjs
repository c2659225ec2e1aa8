// What a caller hands over, read in the caller's realm before anything crosses to the runtime: a
// tokenizer.json or SentencePiece .model (URL, path, text, object, File/Blob, bytes) and what to open,
// and long inputs to count cut into slices (strings that never part a surrogate pair; bytes, Blobs
// and streams in bounded pieces that can be transferred, not copied).

import { errorFrom, readAdvice } from "./errors.mjs";
import { DEFAULT_ASSETS, nodeModule } from "./threads.mjs";
import { invalidInput, jsonText } from "./options.mjs";

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
export async function readTokenizerJson(value) {
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

/** What to open: exactly one of encoding, model, tokenizer, tokenizerJson and sentencepiece (default: o200k_base). */
export async function openRequest(options) {
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

/** Characters per request when a long string is counted: about 30 ms of work each, so a quick call
 * waits that long at most behind a long count. */
export const SLICE_CHARS = 1 << 17;
/** Bytes per request when a Blob or stream is counted. */
const SLICE_BYTES = 1 << 18;

/** A long string in slices that never part a surrogate pair. */
export function* stringSlices(text) {
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
export function byteSlices(input) {
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
