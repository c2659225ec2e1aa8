// Bad inputs for every public entry point of the JavaScript API, with the error each must raise:
// [what, call, error name, fragment of the message]. One table for two runners: Node
// (bad_input.test.mjs) and Chromium (tests/web/test_js_bad_input.py, which imports this file as a
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
  ["encode(undefined)", ({ tok }) => tok.encode(undefined), "InvalidInputError", "must be a string, not undefined"],
  ["encode(null)", ({ tok }) => tok.encode(null), "InvalidInputError", "must be a string, not null"],
  ["encode({})", ({ tok }) => tok.encode({}), "InvalidInputError", "must be a str"],
  ["count(['a'])", ({ tok }) => tok.count(["a"]), "InvalidInputError", "count takes a string, bytes (a Uint8Array"],
  ["count(null)", ({ tok }) => tok.count(null), "InvalidInputError", "a Blob/File, a ReadableStream or an async iterable of bytes or strings, not null"],
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
  ["decode([true])", ({ tok }) => tok.decode([true]), "InvalidTokenError", "got bool at position 0"],
  ["decode([1, undefined])", ({ tok }) => tok.decode([1, undefined]), "InvalidTokenError", "got null at position 1"],
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
  ["isWithinTokenLimit('abc', NaN)", ({ tok }) => tok.isWithinTokenLimit("abc", NaN), "InvalidInputError", "limit must be a non-negative integer, not NaN"],
  ["isWithinTokenLimit('abc', true)", ({ tok }) => tok.isWithinTokenLimit("abc", true), "InvalidInputError", "not true"],
  ["count(stalled stream, aborted)", ({ tok }) => {
    // A stream that gives one chunk and then nothing: the abort must not wait for a next chunk.
    const stream = new ReadableStream({ start(controller) { controller.enqueue(new TextEncoder().encode("hello ")); } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    return tok.count(stream, { signal: controller.signal });
  }, "AbortError", "aborted"],
  ["inspect('x', { maxTokens: -1 })", ({ tok }) => tok.inspect("x", { maxTokens: -1 }), "InvalidInputError", "maxTokens must be a non-negative integer"],
  ["inspect('x', { maxTokens: 'all' })", ({ tok }) => tok.inspect("x", { maxTokens: "all" }), "InvalidInputError", "maxTokens must be a non-negative integer"],
  ["encode('x', { allowedSpecial: 42 })", ({ tok }) => tok.encode("x", { allowedSpecial: 42 }), "InvalidInputError", "allowedSpecial must be"],
  ["count('x', { disallowedSpecial: [1] })", ({ tok }) => tok.count("x", { disallowedSpecial: [1] }), "InvalidInputError", "disallowedSpecial must be"],
  ["encode('x', { allowedSpecial: '<|endoftext|>' })", ({ tok }) => tok.encode("x", { allowedSpecial: "<|endoftext|>" }), "InvalidInputError", "for one token write"],
  ["count('x', { signal: 'stop' })", ({ tok }) => tok.count("x", { signal: "stop" }), "InvalidInputError", "signal must be an AbortSignal"],
  ["count('x', null)", ({ tok }) => tok.count("x", null), "InvalidInputError", "options must be an object"],
  ["encode('x', { allowSpecial: 'all' })", ({ tok }) => tok.encode("x", { allowSpecial: "all" }), "InvalidInputError", 'encode has no option "allowSpecial"'],
  ["createTokenizer({ encodng })", ({ bp }) => bp.createTokenizer({ encodng: "cl100k_base" }), "InvalidInputError", 'createTokenizer has no option "encodng"'],
  ["count(Blob, { errors: 'bogus' })", ({ tok }) => tok.count(new Blob(["x"]), { errors: "bogus" }), "InvalidInputError", "errors must be"],
  ["count('hi', { errors: 'bogus' })", ({ tok }) => tok.count("hi", { errors: "bogus" }), "InvalidInputError", "errors must be"],
  ["countChat(msgs, { tools: {} })", ({ tok }) => tok.countChat([{ role: "user", content: "hi" }], { model: "gpt-4o", tools: {} }),
    "InvalidInputError", "tools must be a list"],
  // Streams and Blobs: bytes that are not UTF-8, chunks that are not bytes.
  ["count(Blob invalid UTF-8)", ({ tok }) => tok.count(new Blob([new Uint8Array([0x61, 0xff])])), "InputDecodeError", "invalid UTF-8 at byte 1"],
  ["count(Uint8Array invalid UTF-8)", ({ tok }) => tok.count(new Uint8Array([0x61, 0xff])), "InputDecodeError", "invalid UTF-8 at byte 1"],
  ["count(stream of numbers)", ({ tok }) => tok.count((async function* () { yield 5; })()), "InvalidInputError", "Uint8Array or string chunks"],
  ["decodeStream(5)", async ({ tok }) => { for await (const _ of tok.decodeStream(5)); }, "InvalidInputError", "iterable"],
  // Aborted calls: before and during.
  ["count(aborted signal)", ({ tok }) => tok.count("x", { signal: AbortSignal.abort() }), "AbortError", "aborted"],
  ["count(long text, abort while counting)", ({ tok }) => {
    const controller = new AbortController();
    const call = tok.count("a b c ".repeat(400000), { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    return call;
  }, "AbortError", "aborted"],
  // Special tokens the call did not allow.
  ["encode('<|endoftext|>')", ({ tok }) => tok.encode("a <|endoftext|>"), "DisallowedSpecialTokenError", "allowedSpecial"],
  ["count('<|endoftext|>')", ({ tok }) => tok.count("<|endoftext|>"), "DisallowedSpecialTokenError", "the special token '<|endoftext|>'"],
  ["inspect('<|endofprompt|>')", ({ tok }) => tok.inspect("<|endofprompt|>", { allowedSpecial: ["<|endoftext|>"] }), "DisallowedSpecialTokenError", "'<|endofprompt|>'"],
  ["encodeWithOffsets('<|endoftext|>')", ({ tok }) => tok.encodeWithOffsets("<|endoftext|>"), "DisallowedSpecialTokenError", "disallowedSpecial: []"],
  // Unknown encodings and models.
  ["createTokenizer({ encoding: 'o300k' })", ({ bp }) => bp.createTokenizer({ encoding: "o300k" }), "UnknownEncodingError", "known encodings: gpt2"],
  ["createTokenizer({ encoding: 42 })", ({ bp }) => bp.createTokenizer({ encoding: 42 }), "InvalidInputError", "encoding must be a name"],
  ["createTokenizer({ model: null })", ({ bp }) => bp.createTokenizer({ model: null }), "InvalidInputError", "model must be a name"],
  ["createTokenizer({ encoding, model })", ({ bp }) => bp.createTokenizer({ encoding: "o200k_base", model: "gpt-4" }), "InvalidInputError", "not encoding and model"],
  ["createTokenizer('o200k_base')", ({ bp }) => bp.createTokenizer("o200k_base"), "InvalidInputError", "options object"],
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
  ["disposed countTokens(Blob)", ({ disposed }) => disposed.countTokens(new Blob(["x"])), ...DISPOSED],
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
