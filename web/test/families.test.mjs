// WordPiece and SentencePiece models through the JavaScript API under Node: createTokenizer's
// { sentencepiece } option over a published .model (as a path, bytes and a Blob) and { tokenizerJson }
// over a BERT WordPiece tokenizer.json and a T5 one (Unigram), against ids the native bytepair.Tokenizer computed
// (tests/web/test_node_api.py writes them to BYTEPAIR_FIXTURE; the native ones are checked against HF
// tokenizers, sentencepiece and transformers in tests/models/test_published_families.py).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { test } from "node:test";
import { nativeFixture } from "./fixture.mjs";

const { createTokenizer } = await import(new URL("../../dist/bytepair.mjs", import.meta.url).href);
const fixture = nativeFixture().families;
const skip = fixture ? false : "the published model files could not be fetched";

async function assertNative(tok, expected, what) {
  assert.equal(tok.info.vocabSize, expected.vocab_size, what);
  for (const { text, ids, count, decoded, starts, ends } of expected.cases) {
    assert.deepEqual(Array.from(await tok.encode(text)), ids, `${what}: ${text.slice(0, 40)}`);
    assert.equal(await tok.count(text), count, what);
    assert.equal(await tok.decode(ids), decoded, what);
    const r = await tok.encodeWithOffsets(text);
    assert.deepEqual([Array.from(r.starts), Array.from(r.ends)], [starts, ends], `${what} offsets: ${text.slice(0, 40)}`);
  }
}

test("a SentencePiece .model given as a path, bytes or a Blob gives the native ids", { skip }, async () => {
  const { path } = fixture.sentencepiece;
  const bytes = new Uint8Array(readFileSync(path));
  const toks = [
    await createTokenizer({ sentencepiece: path }),
    await createTokenizer({ sentencepiece: bytes }),
    await createTokenizer({ sentencepiece: new Blob([bytes]), name: "botchan" }),
  ];
  try {
    assert.deepEqual(toks.map((t) => [t.info.family, t.info.name]),
      [["tokenizer.json", basename(path)], ["tokenizer.json", "sentencepiece.model"], ["tokenizer.json", "botchan"]]);
    for (const [i, tok] of toks.entries()) await assertNative(tok, fixture.sentencepiece, `sentencepiece #${i}`);
  } finally {
    toks.forEach((t) => t.dispose());
  }
});

test("a WordPiece tokenizer.json gives the native ids", { skip }, async () => {
  const tok = await createTokenizer({ tokenizerJson: fixture.wordpiece.path });
  try {
    await assertNative(tok, fixture.wordpiece, "wordpiece");
  } finally {
    tok.dispose();
  }
});

test("a T5 (Unigram, Precompiled) tokenizer.json gives the native ids", { skip }, async () => {
  const tok = await createTokenizer({ tokenizerJson: fixture.unigram.path });
  try {
    await assertNative(tok, fixture.unigram, "unigram");
  } finally {
    tok.dispose();
  }
});

test("sentencepiece refuses what is not a .model, and goes alone", { skip }, async () => {
  await assert.rejects(createTokenizer({ sentencepiece: "{\"model\": {}}" }), { name: "InvalidInputError" });
  await assert.rejects(createTokenizer({ sentencepiece: 42 }), { name: "InvalidInputError" });
  await assert.rejects(createTokenizer({ sentencepiece: new TextEncoder().encode("{\"not\": \"a model\"}") }), { name: "VocabFormatError" });
  await assert.rejects(createTokenizer({ sentencepiece: fixture.sentencepiece.path, tokenizerJson: fixture.wordpiece.path }),
    { name: "InvalidInputError", message: /give one of/ });
});
