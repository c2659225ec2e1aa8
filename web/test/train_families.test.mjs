// train({ model: "wordpiece" | "wordlevel" | "unigram" }) under Node against the same training done
// natively: Python's bytepair.Tokenizer with the pipeline docs/TRAINING.md names for each family and
// HF's trainer object (train_from_iterator), run here in a subprocess (.venv/bin/python, or
// BYTEPAIR_PYTHON); the file train() saves is read back by bytepair.Tokenizer and HF tokenizers.
// Needs dist/ (make bundle); skips without the venv.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { test } from "node:test";

const root = new URL("../../", import.meta.url);
const bp = await import(new URL("dist/bytepair.mjs", root).href);
const python = process.env.BYTEPAIR_PYTHON ?? new URL(".venv/bin/python", root).pathname;
const skip = existsSync(python) ? false : `needs the Python venv (${python}); run make test once, or set BYTEPAIR_PYTHON`;

const TEXTS = [];
const words = ["tokenizer", "token", "tokens", "train", "training", "trainer", "word", "piece", "wordpiece", "unigram",
  "model", "models", "vocabulary", "Übung", "naïve", "café", "BERT", "Llama", "sentence", "sentencepiece", "merge"];
for (let i = 0; i < 120; i++) {
  TEXTS.push(`${words[i % words.length]} ${words[(i * 7) % words.length]}, the ${words[(i * 5 + 3) % words.length]}` +
    ` of ${words[(i * 11 + 1) % words.length]}s (${i % 13}) ${i % 3 ? "and" : "or"} ${words[(i * 3) % words.length]}!\n`);
}
const PROBE = "The trainer's wordpiece tokenizers: naïve Übungen, a café and 42 unknown ☃ words.";

const CASES = [
  { model: "wordpiece", options: { vocabSize: 160, specialTokens: ["[CLS]", "[SEP]"], minFrequency: 2 } },
  { model: "wordpiece", options: { vocabSize: 120, lowercase: false, limitAlphabet: 30, unkToken: "<?>", continuingSubwordPrefix: "@@" } },
  { model: "wordlevel", options: { vocabSize: 40, specialTokens: ["<pad>", "[UNK]"] } },
  { model: "unigram", options: { vocabSize: 90, specialTokens: ["<s>", "</s>"] } },
  { model: "unigram", options: { vocabSize: 70, unkToken: "<UNK>", maxPieceLength: 6, shrinkingFactor: 0.5 } },
];

// The native training, written as a user of bytepair's HF face would (the pipelines of docs/TRAINING.md).
const NATIVE = String.raw`
import json, sys
from bytepair import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers
job = json.load(sys.stdin)
out = []
for case in job["cases"]:
    o, family = case["options"], case["model"]
    unk = o.get("unkToken", "<unk>" if family == "unigram" else "[UNK]")
    specials = o.get("specialTokens", [])
    specials = specials if unk in specials else [unk, *specials]
    if family == "wordpiece":
        prefix = o.get("continuingSubwordPrefix", "##")
        tok = Tokenizer(models.WordPiece(unk_token=unk))
        tok.normalizer = normalizers.BertNormalizer(lowercase=o.get("lowercase", True))
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tok.decoder = decoders.WordPiece(prefix=prefix)
        trainer = trainers.WordPieceTrainer(vocab_size=o["vocabSize"], min_frequency=o.get("minFrequency", 0),
                                            special_tokens=specials, limit_alphabet=o.get("limitAlphabet"),
                                            continuing_subword_prefix=prefix, show_progress=False)
    elif family == "wordlevel":
        tok = Tokenizer(models.WordLevel(unk_token=unk))
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
        trainer = trainers.WordLevelTrainer(vocab_size=o["vocabSize"], special_tokens=specials, show_progress=False)
    else:
        tok = Tokenizer(models.Unigram())
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tok.decoder = decoders.Metaspace()
        trainer = trainers.UnigramTrainer(vocab_size=o["vocabSize"], special_tokens=specials, unk_token=unk,
                                          max_piece_length=o.get("maxPieceLength", 16),
                                          shrinking_factor=o.get("shrinkingFactor", 0.75), show_progress=False)
    tok.train_from_iterator(job["texts"], trainer)
    enc = tok.encode(job["probe"])
    out.append({"json": json.loads(tok.to_str()), "ids": enc.ids, "tokens": enc.tokens, "decoded": tok.decode(enc.ids, skip_special_tokens=False),
                "vocab_size": tok.get_vocab_size()})
print(json.dumps(out))
`;

// What the saved files give when loaded natively, by bytepair and by HF tokenizers.
const RELOAD = String.raw`
import json, sys
import bytepair, tokenizers
job = json.load(sys.stdin)
out = []
for text in job["files"]:
    mine, theirs = bytepair.Tokenizer.from_str(text), tokenizers.Tokenizer.from_str(text)
    a, b = mine.encode(job["probe"]), theirs.encode(job["probe"])
    out.append({"bytepair": a.ids, "hf": b.ids, "hf_decoded": theirs.decode(b.ids, skip_special_tokens=False), "vocab": mine.get_vocab_size() == theirs.get_vocab_size()})
print(json.dumps(out))
`;

/** Equal files; Unigram's scores to 1e-9 relative (the same code, but the Unigram trainer's sums may be
 * regrouped between the bundle's build and this run: the pieces and their order must still agree). */
function assertSameFile(ours, theirs, what) {
  if (ours.model?.type !== "Unigram") return assert.deepEqual(ours, theirs, what);
  const strip = (f) => ({ ...f, model: { ...f.model, vocab: f.model.vocab.map(([piece]) => piece) } });
  assert.deepEqual(strip(ours), strip(theirs), what);
  ours.model.vocab.forEach(([piece, score], k) => {
    const want = theirs.model.vocab[k][1];
    assert.ok(Math.abs(score - want) <= 1e-9 * Math.abs(want), `${what}: ${piece} scores ${score}, natively ${want}`);
  });
}

function runPython(script, input) {
  return JSON.parse(execFileSync(python, ["-c", script], { input: JSON.stringify(input), maxBuffer: 1 << 26, encoding: "utf8" }));
}

test("each family trains in the runtime what it trains natively; the file loads in bytepair and HF with the same ids", { skip }, async () => {
  const native = runPython(NATIVE, { cases: CASES, texts: TEXTS, probe: PROBE });
  const saved = [];
  for (const [i, { model, options }] of CASES.entries()) {
    const what = `${model} #${i}`;
    const events = [];
    const tok = await bp.train(TEXTS, { model, ...options, onProgress: (e) => events.push(structuredClone(e)) });
    try {
      const file = tok.toJSON();
      assertSameFile(file, native[i].json, what);
      assert.deepEqual(JSON.parse(tok.save()), file);
      assert.equal(tok.info.family, "tokenizer.json");
      assert.equal(tok.info.vocabSize, native[i].vocab_size, what);
      assert.ok(native[i].vocab_size <= options.vocabSize && native[i].vocab_size > options.vocabSize / 2, what);
      const ids = Array.from(await tok.encode(PROBE));
      assert.deepEqual(ids, native[i].ids, what);
      const unk = options.unkToken ?? (model === "unigram" ? "<unk>" : "[UNK]");
      const unkId = model === "unigram" ? file.model.unk_id : file.model.vocab[unk];
      assert.equal(model === "unigram" ? file.model.vocab[unkId][0] : unk, unk, what);
      assert.ok(ids.length > 5 && ids.includes(unkId), `${what}: the snowman is unknown`);
      assert.equal(await tok.decode(ids), native[i].decoded, what);
      saved.push(tok.save());

      // Progress: counting to the total, then the family's phase, ending at its total.
      const counting = events.filter((e) => e.phase === "counting");
      assert.ok(counting.length >= 1 && counting.at(-1).done === counting.at(-1).total, what);
      const phase = model === "wordpiece" ? "merging" : "training";
      const later = events.slice(events.indexOf(counting.at(-1)) + 1);
      assert.ok(later.length >= 2 && later.every((e) => e.phase === phase), `${what}: ${JSON.stringify(later.map((e) => e.phase))}`);
      for (let j = 1; j < later.length; j++) assert.ok(later[j].done >= later[j - 1].done && later[j].done <= later[j].total, what);
      assert.equal(later.at(-1).done, later.at(-1).total, what);
      if (model === "wordpiece") {
        assert.equal(tok.merges, later.at(-1).done, what);
        const heard = later.flatMap((e) => e.merges);
        assert.ok(heard.length >= 1 && heard.every((m) => file.model.vocab[m[0] + m[1].replace(/^(##|@@)/, "")] !== undefined), what);
      } else {
        assert.equal(tok.merges, 0, what);
      }
    } finally {
      tok.dispose();
    }
  }
  for (const [i, r] of runPython(RELOAD, { files: saved, probe: PROBE }).entries()) {
    assert.deepEqual([r.bytepair, r.hf], [native[i].ids, native[i].ids], `${CASES[i].model} #${i} reloaded`);
    assert.ok(r.vocab);
    assert.equal(r.hf_decoded, native[i].decoded);
  }
});

test("an abort mid-training rejects with AbortError and leaves the runtime usable", { skip }, async () => {
  for (const [model, phase, options] of [["unigram", "training", { vocabSize: 90 }], ["wordpiece", "merging", { vocabSize: 200 }]]) {
    const controller = new AbortController();
    let stoppedAt = null;
    await assert.rejects(
      bp.train(TEXTS, {
        model, ...options, signal: controller.signal,
        onProgress: (e) => {
          if (e.phase === phase && e.done >= 1 && stoppedAt === null) {
            stoppedAt = e;
            controller.abort();
          }
        },
      }),
      (err) => err instanceof bp.AbortError,
      model,
    );
    assert.ok(stoppedAt && stoppedAt.done < stoppedAt.total, `${model} stopped mid-way: ${JSON.stringify(stoppedAt)}`);
  }
  await assert.rejects(bp.train(TEXTS, { model: "wordlevel", vocabSize: 30, signal: AbortSignal.abort() }), (err) => err instanceof bp.AbortError);

  // The runtime is usable: a tokenizer answers, a new training completes, no training is left open.
  const tok = await bp.createTokenizer({ encoding: "o200k_base" });
  try {
    assert.equal(await tok.count("hello world"), 2);
    const again = await bp.train(TEXTS, { model: "wordlevel", vocabSize: 30 });
    assert.equal(again.info.vocabSize, 30);
    assert.equal((await again.encode("token train")).length, 2);
    again.dispose();
    assert.equal((await tok.memoryStats()).openTrainings, 0, "aborted trainings are closed");
  } finally {
    tok.dispose();
  }
});

test("bad family options are refused with a message that says what to give", { skip }, async () => {
  const bad = [
    [{ model: "sentencepiece", vocabSize: 100 }, bp.InvalidInputError, /model must be "bpe", "wordpiece"/],
    [{ model: "wordlevel", vocabSize: 100, limitAlphabet: 3 }, bp.BytepairError, /limitAlphabet: not an option of model 'wordlevel'/],
    [{ vocabSize: 300, unkToken: "<unk>" }, bp.BytepairError, /unkToken: not an option of model "bpe"/],
    [{ model: "unigram", vocabSize: 100, pattern: "gpt2" }, bp.BytepairError, /pattern is an option of model "bpe" only/],
    [{ model: "unigram", vocabSize: 100, shrinkingFactor: 2 }, bp.BytepairError, /shrinkingFactor must be a number between 0 and 1/],
    [{ model: "unigram", vocabSize: 100, minFrequency: 2 }, bp.BytepairError, /minFrequency is not an option of model "unigram"/],
    [{ model: "wordpiece", vocabSize: 100, lowercase: "yes" }, bp.BytepairError, /lowercase must be true or false/],
    [{ model: "wordpiece", vocabSize: 100, colour: "red" }, bp.InvalidInputError, /colour/],
  ];
  for (const [options, Class, message] of bad) {
    await assert.rejects(bp.train(["some text"], options), (err) => err instanceof Class && message.test(err.message), `${message.source}`);
  }
});
