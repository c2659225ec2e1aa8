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
//
// This module is the entry: createTokenizer and the lists. The rest of the API is in tokenizer.mjs
// (the tokenizer object), training.mjs (train), options.mjs (option checks), inputs.mjs (reading
// what callers give) and slots.mjs (one shared runtime per assets URL).

import { EMBEDDED } from "./embedded.mjs";
import { errorFrom, readAdvice } from "./errors.mjs";
import { abortError } from "./backends.mjs";
import { nodeModule, threadSupport } from "./threads.mjs";
import "./interrupts.mjs"; // backends.mjs's: named here too, so that a page fetches every module at once
import { acquire, normaliseAssets, release } from "./slots.mjs";
import { Tokenizer } from "./tokenizer.mjs";
import { openRequest } from "./inputs.mjs";
import {
  CREATE_OPTIONS, LIST_OPTIONS, OPEN_GRACE_MS, callBudget, checkOptionNames, invalidInput, signalOf, startBudget, typeName, untilAborted,
} from "./options.mjs";

export * from "./errors.mjs";
export { train } from "./training.mjs";

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
