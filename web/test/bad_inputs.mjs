// Bad inputs for every public entry point of the JavaScript API, with the error each must raise:
// [what, call, error name, fragment of the message]. One table for two runners: Node
// (bad_input.test.mjs) and Chromium (tests/test_js_bad_input.py, which imports this file as a
// blob), so it imports nothing. `call` receives { bp, tok, disposed, closed }: the module, a live
// o200k_base tokenizer, a disposed one, and a closed stream decoder of `tok`.

export async function context(bp) {
  const tok = await bp.createTokenizer({ encoding: "o200k_base" });
  const disposed = await bp.createTokenizer({ encoding: "o200k_base" });
  disposed.dispose();
  const closed = tok.decoder();
  await closed.close();
  return { bp, tok, disposed, closed };
}

const DISPOSED = ["DisposedError", "create a new one"];

export const BAD_INPUTS = [
  // Text that is not a string.
  ["encode(42)", ({ tok }) => tok.encode(42), "InvalidInputError", "must be a str"],
  ["encode(undefined)", ({ tok }) => tok.encode(undefined), "InvalidInputError", "must be a str"],
  ["encode(null)", ({ tok }) => tok.encode(null), "InvalidInputError", "must be a str"],
  ["encode({})", ({ tok }) => tok.encode({}), "InvalidInputError", "must be a str"],
  ["count(['a'])", ({ tok }) => tok.count(["a"]), "InvalidInputError", "must be a str"],
  ["isWithinTokenLimit(7, 3)", ({ tok }) => tok.isWithinTokenLimit(7, 3), "InvalidInputError", "must be a str"],
  ["encodeWithOffsets(true)", ({ tok }) => tok.encodeWithOffsets(true), "InvalidInputError", "must be a str"],
  ["inspect(1.5)", ({ tok }) => tok.inspect(1.5), "InvalidInputError", "must be a str"],
  // Ids that are not token ids.
  ["decode([1.5])", ({ tok }) => tok.decode([1.5]), "InvalidTokenError", "must be integers"],
  ["decode(['a'])", ({ tok }) => tok.decode(["a"]), "InvalidTokenError", "must be integers"],
  ["decode([null])", ({ tok }) => tok.decode([null]), "InvalidTokenError", "must be integers"],
  ["decode([-1])", ({ tok }) => tok.decode([-1]), "InvalidTokenError", "-1 at position 0 is not a token id"],
  ["decode([2 ** 40])", ({ tok }) => tok.decode([2 ** 40]), "InvalidTokenError", "1099511627776 at position 0 is not a token id"],
  ["decode([200019])", ({ tok }) => tok.decode([5, 200019]), "InvalidTokenError", "position 1"],
  ["decode(Uint32Array [2**32-1])", ({ tok }) => tok.decode(new Uint32Array([4294967295])), "InvalidTokenError", "not a token id"],
  ["decode(Int32Array [5, -7])", ({ tok }) => tok.decode(new Int32Array([5, -7])), "InvalidTokenError", "position 1"],
  ["decode('abc')", ({ tok }) => tok.decode("abc"), "InvalidInputError", "ids must be an array"],
  ["decode(undefined)", ({ tok }) => tok.decode(undefined), "InvalidInputError", "ids must be an array"],
  ["decode(ids, { errors: 'bogus' })", ({ tok }) => tok.decode([1], { errors: "bogus" }), "InvalidInputError", "errors must be one of"],
  ["decodeTokenBytes([-1])", ({ tok }) => tok.decodeTokenBytes([-1]), "InvalidTokenError", "not a token id"],
  ["decodeTokenBytes(5)", ({ tok }) => tok.decodeTokenBytes(5), "InvalidInputError", "ids must be an array"],
  // Limits and options.
  ["isWithinTokenLimit('abc', -1)", ({ tok }) => tok.isWithinTokenLimit("abc", -1), "InvalidInputError", "limit must be a non-negative int"],
  ["isWithinTokenLimit('abc', 1.5)", ({ tok }) => tok.isWithinTokenLimit("abc", 1.5), "InvalidInputError", "limit must be a non-negative int"],
  ["isWithinTokenLimit('abc', '3')", ({ tok }) => tok.isWithinTokenLimit("abc", "3"), "InvalidInputError", "limit must be a non-negative int"],
  ["isWithinTokenLimit('abc')", ({ tok }) => tok.isWithinTokenLimit("abc"), "InvalidInputError", "limit must be a non-negative int"],
  ["isWithinTokenLimit('abc', NaN)", ({ tok }) => tok.isWithinTokenLimit("abc", NaN), "InvalidInputError", "limit must be a non-negative int"],
  ["inspect('x', { maxTokens: -1 })", ({ tok }) => tok.inspect("x", { maxTokens: -1 }), "InvalidInputError", "maxTokens must be a non-negative integer"],
  ["inspect('x', { maxTokens: 'all' })", ({ tok }) => tok.inspect("x", { maxTokens: "all" }), "InvalidInputError", "maxTokens must be a non-negative integer"],
  ["encode('x', { allowedSpecial: 42 })", ({ tok }) => tok.encode("x", { allowedSpecial: 42 }), "InvalidInputError", "allowedSpecial must be"],
  ["count('x', { disallowedSpecial: [1] })", ({ tok }) => tok.count("x", { disallowedSpecial: [1] }), "InvalidInputError", "disallowedSpecial must be"],
  // Special tokens the call did not allow.
  ["encode('<|endoftext|>')", ({ tok }) => tok.encode("a <|endoftext|>"), "DisallowedSpecialTokenError", "allowed_special"],
  ["count('<|endoftext|>')", ({ tok }) => tok.count("<|endoftext|>"), "DisallowedSpecialTokenError", "disallowed special token '<|endoftext|>'"],
  ["inspect('<|endofprompt|>')", ({ tok }) => tok.inspect("<|endofprompt|>", { allowedSpecial: ["<|endoftext|>"] }), "DisallowedSpecialTokenError", "'<|endofprompt|>'"],
  ["encodeWithOffsets('<|endoftext|>')", ({ tok }) => tok.encodeWithOffsets("<|endoftext|>"), "DisallowedSpecialTokenError", "allowed_special"],
  // Unknown encodings and models.
  ["createTokenizer({ encoding: 'o300k' })", ({ bp }) => bp.createTokenizer({ encoding: "o300k" }), "UnknownEncodingError", "known encodings: gpt2"],
  ["createTokenizer({ encoding: 42 })", ({ bp }) => bp.createTokenizer({ encoding: 42 }), "UnknownEncodingError", "unknown encoding '42'"],
  ["createTokenizer({ model: 'no-such-model' })", ({ bp }) => bp.createTokenizer({ model: "no-such-model" }), "UnknownModelError", "no-such-model"],
  // A disposed tokenizer: every method.
  ["disposed encode", ({ disposed }) => disposed.encode("x"), ...DISPOSED],
  ["disposed count", ({ disposed }) => disposed.count("x"), ...DISPOSED],
  ["disposed isWithinTokenLimit", ({ disposed }) => disposed.isWithinTokenLimit("x", 5), ...DISPOSED],
  ["disposed encodeWithOffsets", ({ disposed }) => disposed.encodeWithOffsets("x"), ...DISPOSED],
  ["disposed inspect", ({ disposed }) => disposed.inspect("x"), ...DISPOSED],
  ["disposed decode", ({ disposed }) => disposed.decode([1]), ...DISPOSED],
  ["disposed decodeTokenBytes", ({ disposed }) => disposed.decodeTokenBytes([1]), ...DISPOSED],
  ["disposed decoder", async ({ disposed }) => disposed.decoder(), ...DISPOSED],
  ["disposed memoryStats", ({ disposed }) => disposed.memoryStats(), ...DISPOSED],
  // A closed stream decoder.
  ["closed decoder write", ({ closed }) => closed.write([1]), "ClosedError", "create a new one with tok.decoder()"],
  ["closed decoder flush", ({ closed }) => closed.flush(), "ClosedError", "create a new one with tok.decoder()"],
  ["decoder write('abc')", async ({ tok }) => {
    const d = tok.decoder();
    try {
      return await d.write("abc");
    } finally {
      await d.close();
    }
  }, "InvalidInputError", "ids must be an array"],
  ["decoder write([-1])", async ({ tok }) => {
    const d = tok.decoder();
    try {
      return await d.write([-1]);
    } finally {
      await d.close();
    }
  }, "InvalidTokenError", "not a token id"],
];

/** Run every case; returns [what, name, message, token] of each error (null where nothing was thrown). */
export async function runAll(ctx) {
  const out = [];
  for (const [what, call] of BAD_INPUTS) {
    try {
      await call(ctx);
      out.push([what, null, null, null]);
    } catch (err) {
      out.push([what, err?.name ?? null, String(err?.message ?? err), err?.token ?? null]);
    }
  }
  return out;
}

/** The cases whose error differs from the table's, as readable lines (none: all is well). */
export function mismatches(results) {
  return BAD_INPUTS.flatMap(([what, , name, fragment], i) => {
    const [, gotName, message] = results[i];
    return gotName === name && message.includes(fragment) ? [] : [`${what}: expected ${name} with ${JSON.stringify(fragment)}, got ${gotName}: ${message}`];
  });
}
