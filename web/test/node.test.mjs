// The JavaScript API under Node (run by `node --test web/test/`, which tests/web/test_node_api.py does
// with BYTEPAIR_FIXTURE pointing at ids computed by the native Python core).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { nativeFixture } from "./fixture.mjs";

const { createTokenizer, listEncodings } = await import(new URL("../../dist/bytepair.mjs", import.meta.url).href);
const fixture = nativeFixture();

let o200k;
let cl100k;
before(async () => {
  [o200k, cl100k] = await Promise.all([createTokenizer({ encoding: "o200k_base" }), createTokenizer({ model: "gpt-4" })]);
});
after(() => {
  o200k.dispose();
  cl100k.dispose();
});

test("lists the bundled encodings", async () => {
  assert.deepEqual(await listEncodings(), fixture.encodings);
});

test("ids equal the native core's", async () => {
  for (const { encoding, text, ids } of fixture.cases) {
    const tok = encoding === "o200k_base" ? o200k : cl100k;
    assert.deepEqual(Array.from(await tok.encode(text, { disallowedSpecial: [] })), ids, text.slice(0, 40));
    assert.equal(await tok.count(text, { disallowedSpecial: [] }), ids.length);
    assert.equal(await tok.decode(ids), text);
  }
});

test("offsets are UTF-16 indices", async () => {
  const { text, ids, starts, ends } = fixture.offsets;
  const r = await o200k.encodeWithOffsets(text);
  assert.deepEqual([Array.from(r.ids), Array.from(r.starts), Array.from(r.ends)], [ids, starts, ends]);
});

test("lone surrogates become U+FFFD as in tiktoken", async () => {
  assert.deepEqual(Array.from(await o200k.encode("a\ud800b")), fixture.lone_surrogate);
});

test("special tokens follow tiktoken's policy", async () => {
  await assert.rejects(o200k.encode("<|endoftext|>"), { name: "DisallowedSpecialTokenError" });
  assert.deepEqual(Array.from(await o200k.encode("<|endoftext|>", { allowedSpecial: "all" })), [199999]);
  assert.equal(await o200k.isWithinTokenLimit("hello world", 1), false);
  assert.equal(await o200k.isWithinTokenLimit("hello world", 2), 2);
});

test("errors are named after the Python exception", async () => {
  await assert.rejects(o200k.decode([-1]), { name: "InvalidTokenError" });
  await assert.rejects(o200k.decode([0.5]), { name: "InvalidTokenError" });
  await assert.rejects(createTokenizer({ encoding: "nope" }), { name: "UnknownEncodingError" });
  await assert.rejects(createTokenizer({ model: "nope-1" }), { name: "UnknownModelError" });
});

test("streaming decode holds back half characters", async () => {
  const ids = await o200k.encode("🫠");
  const d = o200k.decoder();
  const parts = [];
  for (const id of ids) parts.push(await d.write(id));
  parts.push(await d.flush());
  assert.equal(parts[0], "");
  assert.equal(parts.join(""), "🫠");
});

test("calls after dispose are refused", async () => {
  const tok = await createTokenizer({ encoding: "r50k_base" });
  tok.dispose();
  await assert.rejects(tok.count("x"), { name: "DisposedError" });
  assert.equal(await o200k.count("still fine"), 2);
});
