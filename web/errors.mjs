// The error classes of bytepair's JavaScript API, one per failure a caller may want to tell apart.
//
// Why a module of its own: errors cross from Python and from the Web Worker as plain data
// ({ name, message, token }); `errorFrom` turns that back into an instance of the class named here,
// so `err instanceof InvalidTokenError` and `err.name === "InvalidTokenError"` both work, in the
// page and under Node alike. Every class derives from BytepairError (itself an Error).
//
//   import { createTokenizer, InvalidTokenError } from "bytepair";
//   try { await tok.decode([-1]); } catch (err) { if (err instanceof InvalidTokenError) ... }

export class BytepairError extends Error {
  /** `token`: the special token a DisallowedSpecialTokenError or ReservedLiteralError is about (else undefined). */
  constructor(message, { token } = {}) {
    super(message);
    this.name = "BytepairError";
    if (token !== undefined && token !== null) this.token = token;
  }
}

/** The names errors carry, each a subclass of BytepairError (Python's class names, and the JS API's). */
export const ERROR_NAMES = [
  "InvalidInputError", "InvalidTokenError", "DisallowedSpecialTokenError", "InputDecodeError",
  "UnknownEncodingError", "UnknownModelError", "UnknownTokenizerError", "VocabFormatError",
  "UnsupportedTokenizerError", "AssetError", "IntegrityError", "DisposedError", "ClosedError",
  "WorkerError", "AbortError", "StateError", "TemplateError", "ReservedLiteralError", "MissingDependencyError",
  "TrainingError", "InputTooLargeError", "UnsupportedPatternError", "CallTimeoutError",
];

/** The classes that derive from another of these rather than from BytepairError itself: a refused
 * split pattern is an UnsupportedTokenizerError too, so a catch written for that still catches it. */
const PARENTS = { UnsupportedPatternError: "UnsupportedTokenizerError" };

const CLASSES = {};
for (const name of ERROR_NAMES) {  // parents come first in ERROR_NAMES
  const Base = PARENTS[name] ? CLASSES[PARENTS[name]] : BytepairError;
  // A named class per error (a class expression in a computed property takes the property's name).
  CLASSES[name] = { [name]: class extends Base {
    constructor(message, options) {
      super(message, options);
      this.name = name;
    }
  } }[name];
}

export const {
  InvalidInputError, InvalidTokenError, DisallowedSpecialTokenError, InputDecodeError,
  UnknownEncodingError, UnknownModelError, UnknownTokenizerError, VocabFormatError,
  UnsupportedTokenizerError, AssetError, IntegrityError, DisposedError, ClosedError,
  WorkerError, AbortError, StateError, TemplateError, ReservedLiteralError, MissingDependencyError,
  TrainingError, InputTooLargeError, UnsupportedPatternError, CallTimeoutError,
} = CLASSES;

/** An error of the class `name` names (a BytepairError carrying `name` for any other name). */
export function errorFrom({ name, message, token }) {
  const Class = CLASSES[name];
  if (Class) return new Class(message, { token });
  const err = new BytepairError(message, { token });
  if (name) err.name = name;
  return err;
}

/** What to do when a local file could not be read: Deno refuses reads without its read permission
 * (its error names the flag, NotCapable in Deno 2), which passing assetsUrl would not cure; any
 * other failure most often means the assets are not where they were looked for. */
export function readAdvice(err, otherwise) {
  const text = `${err?.name ?? ""} ${err?.message ?? ""}`;
  if (/NotCapable|PermissionDenied|--allow-read/.test(text)) {
    return "Deno reads bytepair's assets from the package folder only with read permission: run with --allow-read " +
      "(or --allow-read=<the folder of node_modules/bytepair/dist>)";
  }
  return otherwise;
}
