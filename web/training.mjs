// train(): a vocabulary learned in the runtime (HF's merges and ids for byte-level BPE, or HF's
// WordPiece, WordLevel and Unigram trainers), fed texts or Blobs slice by slice with progress, in a
// worker of its own so that the other tokenizers keep answering and an abort stops it at once.

import { errorFrom } from "./errors.mjs";
import { WorkerBackend, abortError } from "./backends.mjs";
import { threadSupport } from "./threads.mjs";
import { acquire, backends, normaliseAssets, release } from "./slots.mjs";
import { Tokenizer } from "./tokenizer.mjs";
import { FAMILY_OPTIONS, TRAIN_OPTIONS, checkOptionNames, invalidInput, signalOf, typeName } from "./options.mjs";

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
