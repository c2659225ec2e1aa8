// Executes tokenizer requests against the runtime: argument marshalling only. It runs inside the
// Web Worker in browsers and in-process under Node; results are plain values or typed arrays that
// can be transferred without copying.
import { BytepairError, Runtime } from "./runtime.mjs";

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

export class TokenizerService {
  static async create({ assetsUrl, onProgress, firstEncoding }) {
    return new TokenizerService(await Runtime.load({ assetsUrl, onProgress, firstEncoding }));
  }

  constructor(runtime) {
    this.runtime = runtime;
  }

  /** Handle one request; returns { result, transfer } (transfer lists buffers to move, not copy). */
  async handle(op, args) {
    const rt = this.runtime;
    const a = args ?? {};
    const allowed = specialArg(a.allowedSpecial);
    const disallowed = specialArg(a.disallowedSpecial);
    switch (op) {
      case "timings":
        return { result: { ...rt.timings, files: { ...rt.loader.fileTimings } } };
      case "listEncodings":
        return { result: Object.keys(rt.manifest.encodings) };
      case "open": {
        const name = a.model !== undefined ? rt.call("model_encoding", a.model) : a.encoding;
        await rt.ensureEncoding(name);
        const t0 = performance.now();
        const info = rt.call("encoding_info", name);
        rt.timings[`build ${name}`] ??= performance.now() - t0;
        try {
          return { result: info.toJs({ dict_converter: Object.fromEntries }) };
        } finally {
          info.destroy();
        }
      }
      case "encode": {
        const ids = Runtime.takeUint32(rt.call("encode", a.encoding, a.text, allowed, disallowed));
        return { result: ids, transfer: [ids.buffer] };
      }
      case "count":
        return { result: rt.call("count", a.encoding, a.text, allowed, disallowed) };
      case "isWithinTokenLimit":
        return { result: rt.call("is_within_token_limit", a.encoding, a.text, a.limit, allowed, disallowed) };
      case "encodeWithOffsets": {
        const triple = rt.call("encode_with_offsets", a.encoding, a.text, allowed, disallowed);
        let parts;
        try {
          parts = [0, 1, 2].map((i) => Runtime.takeUint32(triple.get(i)));
        } finally {
          triple.destroy();
        }
        const [ids, starts, ends] = parts;
        return { result: { ids, starts, ends }, transfer: parts.map((p) => p.buffer) };
      }
      case "inspect": {
        const tuple = rt.call("inspect", a.encoding, a.text, allowed, disallowed, a.maxTokens ?? 2000);
        try {
          const [ids, starts, ends, lengths] = [1, 2, 3, 4].map((i) => Runtime.takeUint32(tuple.get(i)));
          const bytesProxy = tuple.get(5);
          const bytes = bytesProxy.toJs();
          bytesProxy.destroy();
          const statsProxy = tuple.get(6);
          const [utf16Length, codePoints, words, utf8Bytes] = statsProxy.toJs();
          statsProxy.destroy();
          const result = { count: tuple.get(0), ids, starts, ends, lengths, bytes, utf16Length, codePoints, words, utf8Bytes };
          return { result, transfer: [ids.buffer, starts.buffer, ends.buffer, lengths.buffer, bytes.buffer] };
        } finally {
          tuple.destroy();
        }
      }
      case "modelEncoding":
        return { result: rt.call("model_encoding", a.model) };
      case "decode":
        return { result: rt.call("decode", a.encoding, ...idsArg(a.ids), a.errors ?? "replace") };
      case "decodeTokenBytes": {
        const list = rt.call("decode_token_bytes", a.encoding, ...idsArg(a.ids));
        try {
          const result = list.toJs().map((b) => (b instanceof Uint8Array ? b : new Uint8Array(b)));
          return { result, transfer: result.map((b) => b.buffer) };
        } finally {
          list.destroy();
        }
      }
      case "streamOpen":
        return { result: rt.call("stream_open", a.encoding) };
      case "streamFeed":
        return { result: rt.call("stream_feed", a.handle, ...idsArg(a.ids)) };
      case "streamFlush":
        return { result: rt.call("stream_flush", a.handle) };
      case "streamClose":
        return { result: rt.call("stream_close", a.handle) };
      default:
        throw new BytepairError("ValueError", `unknown operation ${op}`);
    }
  }
}
