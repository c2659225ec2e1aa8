// tok.countFiles / tok.encodeFiles (pool.mjs): several inputs over the tokenizer's runtime and helper
// workers give what one call per input on the one runtime gives (whose ids node.test.mjs and
// tokenizers.test.mjs compare with the native core's), in input order; an abort stops it at once.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { after, before, test } from "node:test";

const dist = new URL("../../dist/", import.meta.url);
const { createTokenizer } = await import(new URL("bytepair.mjs", dist).href);
const { helperCount } = await import(new URL("pool.mjs", dist).href);

const base = "The quick brown fox jumps over the lazy dog. ünïcödé 🙂 日本語のテキスト <|endoftext|> 1234567\n";
const FILES = [base.repeat(400), "", "hello world", base.repeat(40) + "\r\n", base.repeat(1500)]; // one long enough to be counted in slices

let tok;
before(async () => {
  tok = await createTokenizer({ encoding: "cl100k_base" });
});
after(() => tok.dispose());

test("countFiles and encodeFiles over 2 workers equal one call per input, in order", async () => {
  const blob = new Blob([new TextEncoder().encode("\ufeff" + base.repeat(30))]);
  const bytes = new TextEncoder().encode(base.repeat(200));
  const inputs = [...FILES, blob, bytes];
  const one = [];
  for (const input of inputs) one.push(await tok.count(input, { disallowedSpecial: [] }));
  assert.deepEqual(await tok.countFiles(inputs, { workers: 2, disallowedSpecial: [] }), one);
  assert.equal(helperCount(tok.backend), 1);
  assert.deepEqual(await tok.countFiles(inputs, { workers: 1, disallowedSpecial: [] }), one);
  const ids = [];
  for (const text of FILES) ids.push(Array.from(await tok.encode(text, { disallowedSpecial: [] })));
  const pooled = await tok.encodeFiles(FILES, { workers: 2, disallowedSpecial: [] });
  assert.deepEqual(pooled.map((a) => Array.from(a)), ids);
  assert.ok(pooled.every((a) => a instanceof Uint32Array));
  const decoded = await tok.encodeFiles([blob], { workers: 2, disallowedSpecial: [] });
  assert.deepEqual(Array.from(decoded[0]), Array.from(await tok.encode("\ufeff" + base.repeat(30), { disallowedSpecial: [] })));
  assert.deepEqual(await tok.countFiles([]), []);
});

test("the special-token policy and errors are those of count()", async () => {
  await assert.rejects(tok.encodeFiles(["fine", "<|endoftext|>"], { workers: 2 }), { name: "DisallowedSpecialTokenError" });
  await assert.rejects(tok.countFiles("one string"), { name: "InvalidInputError" });
  await assert.rejects(tok.countFiles(["a"], { workers: 0 }), { name: "InvalidInputError" });
  await assert.rejects(tok.countFiles(["a"], { wokers: 2 }), { name: "InvalidInputError" });
  await assert.rejects(tok.encodeFiles([new Uint8Array([0xff, 0xfe])], { workers: 2 }), { name: "InputDecodeError" });
});

const GPT2 = new URL("../../build/cache/hf/gpt2/tokenizer.json", import.meta.url); // fetched by make bundle

test("a tokenizer.json tokenizer is opened in the helpers from its own bytes", { skip: !existsSync(GPT2) && "no build/cache/hf" }, async () => {
  const json = readFileSync(GPT2);
  const gpt2 = await createTokenizer({ tokenizerJson: new Uint8Array(json) });
  try {
    const one = [];
    for (const text of FILES) one.push(Array.from(await gpt2.encode(text)));
    assert.deepEqual((await gpt2.encodeFiles(FILES, { workers: 2 })).map((a) => Array.from(a)), one);
  } finally {
    gpt2.dispose();
  }
});

test("an abort rejects at once and the tokenizer still answers", async () => {
  const big = base.repeat(20000);
  const controller = new AbortController();
  const started = Date.now();
  const call = tok.countFiles([big, big, big], { workers: 2, signal: controller.signal, disallowedSpecial: [] });
  setTimeout(() => controller.abort(), 100);
  await assert.rejects(call, { name: "AbortError" });
  assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
  assert.deepEqual(await tok.countFiles(["hello world", "hello"], { workers: 2 }), [2, 1]);
});
