// What the API accepts beyond text, and what it refuses by name, under Node: option names a call does
// not take (a misspelt one used to be ignored, leaving the default in force), count() of bytes
// (Buffer, Uint8Array, ArrayBuffer, DataView: counted as a Blob's bytes are) and of what it cannot
// count, and the counter module, which must import where there is no DOM.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";

const dist = new URL("../../dist/", import.meta.url);
const bp = await import(new URL("bytepair.mjs", dist).href);
let tok;
let gpt2;
before(async () => {
  [tok, gpt2] = await Promise.all([bp.createTokenizer({ encoding: "o200k_base" }), bp.createTokenizer({ tokenizer: "gpt2" })]);
});
after(() => {
  tok.dispose();
  gpt2.dispose();
});

/** Rejects (or throws) InvalidInputError naming `key` and listing what the call takes. */
async function refusesOption(call, key, accepted) {
  await assert.rejects(async () => call(), (err) => {
    assert.equal(err.name, "InvalidInputError", String(err));
    assert.ok(err instanceof bp.InvalidInputError);
    assert.ok(err.message.includes(JSON.stringify(key)), err.message);
    for (const name of accepted) assert.ok(err.message.includes(name), `${name} not listed in: ${err.message}`);
    return true;
  });
}

test("a misspelt createTokenizer option is refused, not ignored", async () => {
  const all = ["encoding", "model", "tokenizer", "tokenizerJson", "name", "tokenizerConfig", "assetsUrl", "onProgress"];
  await refusesOption(() => bp.createTokenizer({ encodng: "cl100k_base" }), "encodng", all);
  await refusesOption(() => bp.createTokenizer({ encoding: "cl100k_base", assetUrl: "./" }), "assetUrl", all);
  await refusesOption(() => bp.listEncodings({ assetUrl: "./" }), "assetUrl", ["assetsUrl"]);
  await refusesOption(() => bp.listTokenizers({ asset: "./" }), "asset", ["assetsUrl"]);
  await assert.rejects(bp.createTokenizer(null), { name: "InvalidInputError", message: /options object, not null/ });
});

test("every call refuses option names it does not take", async () => {
  const encode = ["signal", "allowedSpecial", "disallowedSpecial"];
  const chat = ["signal", "model", "tools", "addGenerationPrompt", "specialText", "chatTemplate", "continueFinalMessage", "documents", "variables"];
  const messages = [{ role: "user", content: "hi" }];
  await refusesOption(() => tok.encode("x", { allowSpecial: "all" }), "allowSpecial", encode);
  await refusesOption(() => tok.count("x", { allowSpecial: "all" }), "allowSpecial", [...encode, "errors"]);
  await refusesOption(() => tok.countTokens(new Blob(["x"]), { error: "replace" }), "error", [...encode, "errors"]);
  await refusesOption(() => tok.isWithinTokenLimit("x", 5, { disallowSpecial: [] }), "disallowSpecial", encode);
  await refusesOption(() => tok.encodeWithOffsets("x", { allowed_special: "all" }), "allowed_special", encode);
  await refusesOption(() => tok.inspect("x", { max_tokens: 5 }), "max_tokens", [...encode, "maxTokens"]);
  await refusesOption(() => tok.decode([1], { error: "replace" }), "error", ["signal", "errors"]);
  await refusesOption(async () => { for await (const _ of tok.decodeStream([[1]], { sigal: null })); }, "sigal", ["signal"]);
  await refusesOption(() => tok.countChat(messages, { modle: "gpt-4o" }), "modle", chat);
  await refusesOption(() => tok.encodeChat(messages, { model: "gpt-oss-20b", returnText: true }), "returnText", chat);
  await refusesOption(() => gpt2.applyChatTemplate(messages, { addGenerationPromt: true }), "addGenerationPromt",
    [...chat, "returnAssistantMask", "returnText"]);
  await refusesOption(() => tok.analyze({ corpuss: "x" }), "corpuss", ["signal", "compareWith", "corpus", "limit", "onProgress"]);
  await refusesOption(() => bp.train("a b", { vocabSize: 300, vocab_size: 300 }), "vocab_size",
    ["vocabSize", "pattern", "specialTokens", "minFrequency", "onProgress", "signal", "name", "assetsUrl"]);
  await assert.rejects(tok.decode([1], null), { name: "InvalidInputError", message: /options must be an object/ });
  // The names the types give are all still taken.
  const signal = new AbortController().signal;
  assert.equal(await tok.count("<|endoftext|>", { allowedSpecial: "all", disallowedSpecial: [], errors: "strict", signal }), 1);
  assert.equal((await tok.inspect("hello world", { maxTokens: 1, allowedSpecial: [], signal })).ids.length, 1);
  assert.equal(await tok.decode([24912], { errors: "strict", signal }), "hello");
});

test("count() takes bytes: Buffer, Uint8Array, ArrayBuffer and DataView, counted as a Blob is", async () => {
  const text = "hello world";
  const bytes = new TextEncoder().encode(text);
  assert.equal(await tok.count(Buffer.from(text)), 2);
  assert.equal(await tok.count(bytes), 2);
  assert.equal(await tok.count(bytes.buffer), 2);
  assert.equal(await tok.count(new DataView(bytes.buffer)), 2);
  assert.equal(await tok.count(Buffer.from(`xx${text}yy`).subarray(2, 2 + bytes.length)), 2); // a view into a larger buffer
  assert.equal(await tok.count(new Uint8Array()), 0);

  // Longer than a slice (256 KiB), with characters cut between slices: the same count as the text's.
  const long = "日本語 🫠 don't stop\r\n".repeat(30_000);
  const buffer = Buffer.from(long);
  assert.ok(buffer.length > 3 * (1 << 18));
  assert.equal(await tok.countTokens(buffer), await tok.count(long));
  assert.equal(buffer.toString(), long); // the caller's bytes are left as they were

  // Bytes that are not UTF-8 are refused as in a Blob (or replaced on request).
  const bad = new Uint8Array([0x61, 0x20, 0xff, 0x62]);
  const fromBlob = await tok.count(new Blob([bad])).catch((e) => e);
  const fromBytes = await tok.count(bad).catch((e) => e);
  assert.equal(fromBytes.name, "InputDecodeError");
  assert.ok(fromBytes instanceof bp.InputDecodeError);
  assert.equal(fromBytes.message, fromBlob.message);
  assert.match(fromBytes.message, /invalid UTF-8 at byte 2/);
  assert.equal(await tok.count(bad, { errors: "replace" }), await tok.count(new Blob([bad]), { errors: "replace" }));
  await assert.rejects(tok.count(Buffer.from("<|endoftext|>")), { name: "DisallowedSpecialTokenError" });
});

test("count() of what it cannot count says what it takes", async () => {
  for (const input of [["a"], 42, null, undefined, {}, true]) {
    await assert.rejects(tok.count(input), (err) => {
      assert.equal(err.name, "InvalidInputError", String(err));
      assert.match(err.message, /^count takes a string, bytes \(a Uint8Array, Buffer, ArrayBuffer or DataView\), a Blob\/File, a ReadableStream or an async iterable of bytes or strings, not /);
      return true;
    });
  }
  await assert.rejects(tok.count(["a"]), { message: /not an array$/ });
  await assert.rejects(tok.count(null), { message: /not null$/ });
});

test("the counter module imports under Node (no custom elements there: it defines nothing)", async () => {
  assert.equal(globalThis.customElements, undefined);
  await import(new URL("bytepair-counter.mjs", dist).href);
});

test("a wrong http assetsUrl says to pass the folder where dist/ is served", async () => {
  // Nothing listens on port 9 (discard): the manifest's fetch fails at once.
  await assert.rejects(bp.createTokenizer({ assetsUrl: "http://127.0.0.1:9/nowhere/" }), (err) => {
    assert.equal(err.name, "AssetError", String(err));
    assert.match(err.message, /manifest\.json.*pass assetsUrl where bytepair's dist\/ is served/);
    return true;
  });
});

test("an empty tokenizerJson, or a folder, is named as such", async () => {
  await assert.rejects(bp.createTokenizer({ tokenizerJson: "  " }), { name: "InvalidInputError", message: /tokenizerJson is empty/ });
  await assert.rejects(bp.createTokenizer({ tokenizerJson: new URL("./", import.meta.url) }), (err) => {
    assert.equal(err.name, "AssetError", String(err));
    assert.match(err.message, /it is a folder; give the tokenizer\.json inside it/);
    return true;
  });
});
