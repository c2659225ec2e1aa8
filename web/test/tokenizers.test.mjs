// Open-model tokenizers (tokenizer.json) through the JavaScript API under Node, against ids the
// native bytepair.Tokenizer computed (tests/web/test_node_api.py writes them to BYTEPAIR_FIXTURE; the
// native Tokenizer is checked against HF tokenizers in tests/pipeline/test_tokenizer_json.py).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { after, before, test } from "node:test";
import { nativeFixture } from "./fixture.mjs";

const { createTokenizer, listTokenizers } = await import(new URL("../../dist/bytepair.mjs", import.meta.url).href);
const fixture = nativeFixture().tokenizers;

const toks = {};
before(async () => {
  for (const name of Object.keys(fixture.prepared)) toks[name] = await createTokenizer({ tokenizer: name });
});
after(() => Object.values(toks).forEach((tok) => tok.dispose()));

test("lists the prepared tokenizers", async () => {
  assert.deepEqual(await listTokenizers(), fixture.names);
});

test("prepared tokenizers give the native ids, counts and decodes", async () => {
  for (const [name, expected] of Object.entries(fixture.prepared)) {
    const tok = toks[name];
    assert.deepEqual(tok.info, { family: "tokenizer.json", name, vocabSize: expected.vocab_size, specialTokens: expected.special_tokens });
    for (const { text, ids, decoded } of expected.cases) {
      assert.deepEqual(Array.from(await tok.encode(text)), ids, `${name}: ${text.slice(0, 40)}`);
      assert.equal(await tok.count(text), ids.length, name);
      assert.equal(await tok.decode(ids), decoded, name);
      assert.equal(await tok.isWithinTokenLimit(text, ids.length), ids.length);
    }
  }
});

test("offsets are UTF-16 indices for every family", async () => {
  const { text, ids, starts, ends } = fixture.offsets;
  const r = await toks.llama3.encodeWithOffsets(text);
  assert.deepEqual([Array.from(r.ids), Array.from(r.starts), Array.from(r.ends)], [ids, starts, ends]);
  const shown = await toks.llama3.inspect(text, { maxTokens: 3 });
  assert.deepEqual([shown.count, Array.from(shown.ids), Array.from(shown.starts)], [ids.length, ids.slice(0, 3), starts.slice(0, 3)]);
});

test("special-token options are ignored by tokenizer.json tokenizers (added tokens always match)", async () => {
  const { text, ids } = fixture.special;
  for (const options of [{}, { disallowedSpecial: "all" }, { allowedSpecial: [] }, { disallowedSpecial: [] }]) {
    assert.deepEqual(Array.from(await toks.llama3.encode(text, options)), ids);
  }
});

test("streaming decode holds back a split emoji", async () => {
  const { ids, text } = fixture.stream;
  const d = toks.llama3.decoder();
  const parts = [];
  for (const id of ids) parts.push(await d.write(id));
  parts.push(await d.flush());
  assert.equal(parts.join(""), text);
  assert.ok(parts.includes(""), parts); // a token that ends inside the emoji gives nothing yet
  await d.close();
});

test("tokenizerJson: a path, a file URL, the text, the object, a Blob and bytes give the same tokenizer", async () => {
  const { path, text, ids } = fixture.json;
  const source = readFileSync(path);
  const forms = [
    [path, "gpt2"],
    [pathToFileURL(path), "gpt2"],
    [source.toString("utf8"), "tokenizer.json"],
    [JSON.parse(source.toString("utf8")), "tokenizer.json"],
    [new Blob([source]), "tokenizer.json"],
    [new Uint8Array(source), "tokenizer.json"],
  ];
  for (const [form, name] of forms) {
    const tok = await createTokenizer({ tokenizerJson: form });
    assert.equal(tok.info.name, name);
    assert.equal(tok.info.family, "tokenizer.json");
    assert.deepEqual(Array.from(await tok.encode(text)), ids);
    tok.dispose();
  }
  const named = await createTokenizer({ tokenizerJson: path, name: "mine" });
  assert.equal(named.info.name, "mine");
  named.dispose();
});

test("a tokenizer.json is forgotten when its last user is disposed", async () => {
  const { path } = fixture.json;
  const before = (await toks.gpt2.memoryStats()).loadedTokenizers;
  const a = await createTokenizer({ tokenizerJson: path });
  const b = await createTokenizer({ tokenizerJson: path });
  assert.equal((await toks.gpt2.memoryStats()).loadedTokenizers, before + 1); // one file, loaded once
  a.dispose();
  assert.equal(await b.count("still here"), 2);
  b.dispose();
  assert.equal((await toks.gpt2.memoryStats()).loadedTokenizers, before);
  await assert.rejects(b.count("x"), { name: "DisposedError" });
});

test("bad tokenizer.json input gives typed errors with messages that say what to do", async () => {
  await assert.rejects(createTokenizer({ tokenizerJson: "{ not json" }), (err) => err.name === "VocabFormatError" && /not valid JSON/.test(err.message));
  await assert.rejects(createTokenizer({ tokenizerJson: { model: { type: "Frobnicate", vocab: [] } } }),
    (err) => err.name === "UnsupportedTokenizerError" && /BPE/.test(err.message));
  await assert.rejects(createTokenizer({ tokenizerJson: { version: "1.0" } }), { name: "VocabFormatError" });
  await assert.rejects(createTokenizer({ tokenizerJson: new Uint8Array([0xff, 0xfe, 0x7b]) }), { name: "VocabFormatError" });
  await assert.rejects(createTokenizer({ tokenizerJson: "no/such/tokenizer.json" }), { name: "AssetError" });
  await assert.rejects(createTokenizer({ tokenizerJson: 42 }), { name: "InvalidInputError" });
  await assert.rejects(createTokenizer({ tokenizer: "llama9" }), (err) => err.name === "UnknownTokenizerError" && /llama3/.test(err.message));
  await assert.rejects(createTokenizer({ tokenizer: "llama3", encoding: "o200k_base" }), { name: "InvalidInputError" });
  await assert.rejects(toks.llama3.decode([-1]), { name: "InvalidTokenError" });
  await assert.rejects(toks.llama3.decodeTokenBytes([fixture.prepared.llama3.vocab_size]), { name: "InvalidTokenError" });
});
