// The tokenizer object createTokenizer() returns, and its streaming decoders: each method checks its
// options (options.mjs), reads its input (inputs.mjs) and makes one request, or a few, to the shared
// runtime (backends.mjs), where the Python core does the work.

import { ClosedError, errorFrom } from "./errors.mjs";
import { abortError } from "./backends.mjs";
import { countFiles, encodeFiles, forgetInPool } from "./pool.mjs";
import { SLICE_CHARS, byteSlices, stringSlices } from "./inputs.mjs";
import {
  ANALYZE_OPTIONS, CALL_OPTIONS, CHAT_OPTIONS, COUNT_OPTIONS, DECODE_OPTIONS, ENCODE_OPTIONS, INSPECT_OPTIONS, TEMPLATE_OPTIONS,
  checkOptionNames, disposedError, invalidInput, jsonText, policy, signalOf, typeName, untilAborted,
} from "./options.mjs";

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

export class Tokenizer {
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
