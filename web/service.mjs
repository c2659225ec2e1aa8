// Executes tokenizer requests against the runtime: argument marshalling only. It runs inside the
// Web Worker in browsers, in a worker thread under Node (in-process where there are no workers);
// results are plain values or typed arrays (each with a buffer of its own, copied out of wasm
// memory) that can be transferred without copying.
import { errorFrom } from "./errors.mjs";
import { Runtime } from "./runtime.mjs";

/** Ids from JavaScript to the Python bridge: typed arrays travel as raw bytes plus their kind. */
function idsArg(ids) {
  if (ids instanceof Uint32Array) return [new Uint8Array(ids.buffer, ids.byteOffset, ids.byteLength), "I"];
  if (ids instanceof Int32Array) return [new Uint8Array(ids.buffer, ids.byteOffset, ids.byteLength), "i"];
  if (ArrayBuffer.isView(ids)) return [Array.from(ids, Number), ""];
  return [ids, ""];
}

/** allowedSpecial / disallowedSpecial: "all", an array or a Set of names, or undefined. */
function specialArg(value) {
  if (value === undefined || value === null || value === "all") return value ?? undefined;
  if (value instanceof Set) return Array.from(value);
  return value;
}

/** This realm's JavaScript heap in use: Node's count, or Chromium's (coarse unless it runs with
 * --enable-precise-memory-info); null where neither exists. */
function jsHeapBytes() {
  if (typeof process === "object" && typeof process.memoryUsage === "function") return process.memoryUsage().heapUsed;
  return globalThis.performance?.memory?.usedJSHeapSize ?? null;
}

export class TokenizerService {
  static async create({ assetsUrl, onProgress, firstEncoding, firstTokenizer, control }) {
    return new TokenizerService(await Runtime.load({ assetsUrl, onProgress, firstEncoding, firstTokenizer, control }));
  }

  constructor(runtime) {
    this.runtime = runtime;
    this.chatConfigs = new Map(); // tokenizer.json key -> its prepared chat config file, fetched on first chat use
  }

  /** countChat / encodeChat: what a chat call needs is installed first (jinja2, once, and the prepared
   * tokenizer's chat template for a tokenizer.json; the model's ranks for an OpenAI encoding). */
  async chat(op, a, call) {
    const rt = this.runtime;
    if (a.family === "tokenizer.json") {
      const file = this.chatConfigs.get(a.encoding);
      if (typeof file === "string") {
        const loading = (async () => {
          rt.loader.expect([file]);
          call("chat_settings", a.encoding, new TextDecoder().decode(await rt.loader.load(file)));
        })();
        this.chatConfigs.set(a.encoding, loading);
        loading.then(() => this.chatConfigs.delete(a.encoding), () => this.chatConfigs.set(a.encoding, file));
      }
      await Promise.all([this.chatConfigs.get(a.encoding), rt.loadPackages(["jinja2"])]);
    } else {
      const model = JSON.parse(a.options).model;
      if (typeof model === "string") await rt.ensureEncoding(call("model_encoding", model));
    }
    if (op === "countChat") return { result: call("chat_count", a.encoding, a.messages, a.options) };
    const r = call("chat_encode", a.encoding, a.messages, a.options);
    const result = { ids: r.ids };
    if (r.assistant_mask !== undefined) result.assistantMask = r.assistant_mask;
    if (r.text !== undefined) result.text = r.text;
    return { result, transfer: [r.ids.buffer, ...(r.assistant_mask ? [r.assistant_mask.buffer] : [])] };
  }

  /** Handle one request; returns { result, transfer } (transfer lists buffers to move, not copy).
   * `events.emit(event)` hears a long request's progress (a training's); a true answer stops it.
   * `events.id` is the caller's id of the request, which an abort names (interrupts.mjs). */
  async handle(op, args, events = undefined) {
    const rt = this.runtime;
    const call = (fn, ...rest) => rt.callFor(events?.id ?? 0, fn, ...rest);
    const a = args ?? {};
    const allowed = specialArg(a.allowedSpecial);
    const disallowed = specialArg(a.disallowedSpecial);
    switch (op) {
      case "timings":
        return { result: { ...rt.timings, files: { ...rt.loader.fileTimings } } };
      case "listEncodings":
        return { result: Object.keys(rt.manifest.encodings) };
      case "listTokenizers":
        return { result: Object.keys(rt.manifest.tokenizers ?? {}) };
      case "open": {
        if (a.tokenizer !== undefined || a.tokenizerJson !== undefined) {
          // A tokenizer.json (prepared at build time, or given): loaded into the bridge's registry,
          // whose key the other operations take in place of an encoding name.
          const data = a.tokenizer !== undefined ? await rt.tokenizerBytes(a.tokenizer) : a.tokenizerJson;
          const t0 = performance.now();
          const info = call(a.sentencepiece ? "load_sentencepiece" : "load_tokenizer_json", data, a.tokenizer ?? a.name);
          rt.timings[`build ${info.name}`] ??= performance.now() - t0;
          if (a.tokenizerConfig !== undefined) {
            this.chatConfigs.delete(info.key);
            call("chat_settings", info.key, a.tokenizerConfig);
          } else if (a.tokenizer !== undefined && rt.manifest.tokenizers[a.tokenizer].chat && !this.chatConfigs.has(info.key)) {
            this.chatConfigs.set(info.key, rt.manifest.tokenizers[a.tokenizer].chat);
          }
          // The same file opened under two names is loaded once; each tokenizer keeps its own name.
          return { result: { ...info, name: a.tokenizer ?? a.name ?? info.name } };
        }
        const name = a.model !== undefined ? call("model_encoding", a.model) : a.encoding;
        await rt.ensureEncoding(name);
        const t0 = performance.now();
        const info = call("encoding_info", name);
        rt.timings[`build ${name}`] ??= performance.now() - t0;
        return { result: a.model !== undefined ? { ...info, model: a.model } : info };
      }
      case "encode": {
        const ids = call("encode", a.encoding, a.text, allowed, disallowed);
        return { result: ids, transfer: [ids.buffer] };
      }
      case "count":
        return { result: call("count", a.encoding, a.text, allowed, disallowed) };
      case "isWithinTokenLimit":
        return { result: call("is_within_token_limit", a.encoding, a.text, a.limit, allowed, disallowed) };
      case "encodeWithOffsets": {
        const result = call("encode_with_offsets", a.encoding, a.text, allowed, disallowed);
        return { result, transfer: [result.ids.buffer, result.starts.buffer, result.ends.buffer] };
      }
      case "inspect": {
        const r = call("inspect", a.encoding, a.text, allowed, disallowed, a.maxTokens ?? 2000);
        const result = {
          count: r.count, ids: r.ids, starts: r.starts, ends: r.ends, lengths: r.lengths, bytes: r.bytes,
          utf16Length: r.utf16_length, codePoints: r.code_points, words: r.words, utf8Bytes: r.utf8_bytes,
        };
        return { result, transfer: [r.ids.buffer, r.starts.buffer, r.ends.buffer, r.lengths.buffer, r.bytes.buffer] };
      }
      case "countChat":
      case "encodeChat":
        return this.chat(op, a, call);
      case "analyze": // one part of bytepair.analysis.analyze (Tokenizer.analyze asks for each in turn)
        return { result: call("analyze", a.part, a.names, a.corpus ?? undefined, a.limit ?? 20) };
      case "analysisMarkdown":
        return { result: call("analysis_markdown", a.report) };
      case "close":
        return { result: call("unload_tokenizer", a.encoding) };
      case "modelEncoding":
        return { result: call("model_encoding", a.model) };
      case "decode":
        return { result: call("decode", a.encoding, ...idsArg(a.ids), a.errors ?? "replace") };
      case "decodeTokenBytes": {
        const result = call("decode_token_bytes", a.encoding, ...idsArg(a.ids));
        return { result, transfer: result.map((b) => b.buffer) };
      }
      case "counterOpen":
        return { result: call("counter_open", a.encoding, allowed, disallowed, a.errors ?? "strict") };
      case "counterFeed":
        return { result: call(typeof a.data === "string" ? "counter_feed" : "counter_feed_bytes", a.handle, a.data) };
      case "counterFinish":
        return { result: call("counter_finish", a.handle) };
      case "counterClose":
        return { result: call("counter_close", a.handle) };
      case "streamOpen":
        return { result: call("stream_open", a.encoding) };
      case "streamFeed":
        return { result: call("stream_feed", a.handle, ...idsArg(a.ids)) };
      case "streamFlush":
        return { result: call("stream_flush", a.handle) };
      case "streamClose":
        return { result: call("stream_close", a.handle) };
      case "trainOpen":
        return { result: call("train_open", a.pattern ?? null, a.setup ?? null) };
      case "trainFeed":
        return { result: call("train_feed", a.handle, a.texts) };
      case "trainFinish": {
        const report = (phase, done, total, merges) => Boolean(events?.emit?.({ phase, done, total, merges: JSON.parse(merges) }));
        const r = call("train_finish", a.handle, a.vocabSize, a.specialTokens ?? [], a.minFrequency ?? 0, report);
        return { result: { json: r.json, merges: r.merges, vocabSize: r.vocab_size } };
      }
      case "trainClose":
        return { result: call("train_close", a.handle) };
      case "memoryStats": {
        globalThis.gc?.(); // where the runtime's realm exposes it (a Node process run with --expose-gc)
        const s = call("memory_stats");
        return {
          result: {
            wasmBytes: rt.wasmBytes, heapBytesInUse: rt.heapBytesInUse, openDecoders: s.open_decoders, openCounters: s.open_counters, loadedTokenizers: s.loaded_tokenizers, openTrainings: s.open_trainings,
            cachedBlocks: s.cached_blocks, cachedWordCounts: s.cached_word_counts, pythonObjects: s.python_objects,
            jsHeapBytes: jsHeapBytes(),
          },
        };
      }
      default:
        throw errorFrom({ name: "InvalidInputError", message: `unknown operation ${op}` });
    }
  }
}
