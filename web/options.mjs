// The checks every public call makes on its options, in one place: the option names each call takes
// (a misspelt one is refused, not ignored), the time budgets, the signal and the special-token policy.
// A module of its own so that the tokenizer class (tokenizer.mjs), train() (training.mjs) and
// createTokenizer (bytepair.mjs) share them.

import { DisposedError, InvalidInputError } from "./errors.mjs";
import { abortError } from "./backends.mjs";

export function disposedError(encoding) {
  return new DisposedError(`this ${encoding} tokenizer was disposed; create a new one with createTokenizer()`);
}

export function invalidInput(message) {
  return new InvalidInputError(message);
}

export function typeName(value) {
  return value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
}

// The option names each call takes (bytepair.d.ts's option types).
export const CREATE_OPTIONS = ["encoding", "model", "tokenizer", "tokenizerJson", "sentencepiece", "name", "tokenizerConfig", "assetsUrl", "startTimeout", "onProgress", "signal", "callTimeout"];
export const LIST_OPTIONS = ["assetsUrl"];
export const CALL_OPTIONS = ["signal"];
export const ENCODE_OPTIONS = [...CALL_OPTIONS, "allowedSpecial", "disallowedSpecial"];
export const COUNT_OPTIONS = [...ENCODE_OPTIONS, "errors"];
export const INSPECT_OPTIONS = [...ENCODE_OPTIONS, "maxTokens"];
export const DECODE_OPTIONS = [...CALL_OPTIONS, "errors"];
export const CHAT_OPTIONS = [
  ...CALL_OPTIONS, "model", "tools", "addGenerationPrompt", "specialText", "chatTemplate", "continueFinalMessage", "documents", "variables",
  "templateTimeout", "templateMaxChars",
];
export const TEMPLATE_OPTIONS = [...CHAT_OPTIONS, "returnAssistantMask", "returnText"];
export const ANALYZE_OPTIONS = [...CALL_OPTIONS, "compareWith", "corpus", "limit", "onProgress"];
// train()'s model family options, passed to Python's trainer objects (web_bridge/train_families.py checks them).
export const FAMILY_OPTIONS = ["unkToken", "lowercase", "maxInputCharsPerWord", "limitAlphabet", "initialAlphabet", "continuingSubwordPrefix",
  "shrinkingFactor", "maxPieceLength", "nSubIterations", "seedSize"];
export const TRAIN_OPTIONS = ["vocabSize", "pattern", "specialTokens", "minFrequency", "onProgress", "signal", "name", "assetsUrl", "model", ...FAMILY_OPTIONS];

/** Refuse option names that `call` does not take: a misspelt one ("encodng", "allowSpecial") would
 * otherwise be ignored without a word, and the call would quietly use the default. */
export function checkOptionNames(options, known, call) {
  const unknown = Object.keys(options).filter((key) => !known.includes(key));
  if (unknown.length) {
    throw invalidInput(
      `${call} has no option${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => JSON.stringify(k)).join(", ")}; ` +
        `its options are ${known.join(", ")}`,
    );
  }
}

/** A value for the runtime as JSON text: a string is taken to be JSON text already, anything else is
 * written as JSON (what cannot be, a BigInt or a cycle, is refused here). */
export function jsonText(value, what) {
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

/** Seconds a call may run while others wait (createTokenizer's callTimeout), as milliseconds. */
const DEFAULT_CALL_TIMEOUT = 120;
export const OPEN_GRACE_MS = 3000;
export function callBudget(seconds = DEFAULT_CALL_TIMEOUT) {
  if (typeof seconds !== "number" || !(seconds > 0)) {
    throw invalidInput(`callTimeout must be a positive number of seconds (or Infinity for no limit), not ${typeof seconds === "number" ? seconds : typeName(seconds)}`);
  }
  return seconds * 1000;
}

/** Seconds a starting runtime may go without progress (createTokenizer's startTimeout, default 60), as
 * milliseconds; undefined for the default. */
export function startBudget(seconds) {
  if (seconds === undefined) return undefined;
  if (typeof seconds !== "number" || !(seconds > 0) || seconds === Infinity) {
    throw invalidInput(`startTimeout must be a positive, finite number of seconds, not ${typeof seconds === "number" ? seconds : typeName(seconds)}`);
  }
  return seconds * 1000;
}

export function signalOf(options) {
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

export function policy(options, known, call) {
  if (options === null || typeof options !== "object") throw invalidInput(`options must be an object, not ${options === null ? "null" : typeof options}`);
  checkOptionNames(options, known, call);
  return {
    allowedSpecial: specialOption(options.allowedSpecial, "allowedSpecial"),
    disallowedSpecial: specialOption(options.disallowedSpecial, "disallowedSpecial"),
  };
}

/** `promise`, or an AbortError as soon as `signal` fires (the promise is then left to settle unheard). */
export function untilAborted(promise, signal) {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(promise).then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
