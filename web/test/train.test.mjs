// train() under Node against Python's bytepair.train: tests/web/test_web_train.py writes the fixture
// (BYTEPAIR_TRAIN_FIXTURE: settings, texts or a file, and the tokenizer.json Python trains) and reads
// back what this test saves. Without the fixture (a bare `node --test web/test/`) the tests skip.
import assert from "node:assert/strict";
import { openAsBlob } from "node:fs";
import { readFileSync, writeFileSync } from "node:fs";
import { test } from "node:test";

const bp = await import(new URL("../../dist/bytepair.mjs", import.meta.url).href);
const path = process.env.BYTEPAIR_TRAIN_FIXTURE;
const fixture = path ? JSON.parse(readFileSync(path, "utf8")) : null;
const skip = fixture ? false : "run by tests/web/test_web_train.py (needs BYTEPAIR_TRAIN_FIXTURE)";

/** The inputs of a case: its texts, or its file as a Blob (read line by line, as `bytepair train FILE`). */
async function inputs(c) {
  return c.file ? [await openAsBlob(c.file)] : c.texts;
}

test("trains the tokenizer.json Python trains, ties included; encodes as Python", { skip }, async () => {
  for (const c of fixture.cases) {
    const events = [];
    const tok = await bp.train(await inputs(c), { ...c.options, onProgress: (e) => events.push(structuredClone(e)) });
    try {
      const model = tok.toJSON().model;
      assert.deepEqual(model.merges, c.expected.model.merges, c.name);
      assert.deepEqual(model.vocab, c.expected.model.vocab, c.name);
      assert.deepEqual(tok.toJSON(), JSON.parse(tok.save()));
      assert.equal(tok.merges, c.expected.model.merges.length);
      assert.equal(tok.info.family, "tokenizer.json");
      assert.deepEqual(Array.from(await tok.encode(c.probe)), c.probe_ids, c.name);
      assert.equal(await tok.count(c.probe), c.probe_ids.length);
      assert.equal(await tok.decode(c.probe_ids), c.probe);
      if (c.save_to) writeFileSync(c.save_to, tok.save());

      // Progress: counting to the total, then merging with the merges as they are learned.
      const counting = events.filter((e) => e.phase === "counting");
      const merging = events.filter((e) => e.phase === "merging");
      assert.ok(counting.length >= 1 && counting.at(-1).done === counting.at(-1).total, c.name);
      assert.ok(events.indexOf(merging[0]) > events.indexOf(counting.at(-1)), "counting comes first");
      assert.ok(merging.length >= 2, c.name);
      for (let i = 1; i < merging.length; i++) assert.ok(merging[i].done >= merging[i - 1].done);
      const expected = c.expected.model.merges;
      for (const e of merging) {
        if (e.done === 0) continue;
        // The latest merges end with the done-th one (the file keeps one entry per pair, so compare
        // against the learned order only where nothing was merged twice: the fixtures' case).
        assert.deepEqual(e.merges, expected.slice(Math.max(0, e.done - e.merges.length), e.done), `${c.name} at ${e.done}`);
      }
      assert.equal(merging.at(-1).done, expected.length);
    } finally {
      tok.dispose();
    }
  }
});

test("an abort from onProgress stops the merge loop; an abort between counting slices stops counting", { skip }, async () => {
  const { texts, options } = fixture.abort;
  const controller = new AbortController();
  let merges = 0;
  await assert.rejects(
    bp.train(texts, {
      ...options,
      signal: controller.signal,
      onProgress: (e) => {
        if (e.phase === "merging" && e.done >= 5) controller.abort();
        if (e.phase === "merging") merges = e.done;
      },
    }),
    (err) => err instanceof bp.AbortError,
  );
  assert.ok(merges >= 5 && merges < options.vocabSize - 256, `stopped after ${merges} merges`);

  const late = new AbortController();
  const counted = [];
  const run = bp.train(texts, { ...options, signal: late.signal, onProgress: (e) => counted.push(e.phase) });
  setImmediate(() => late.abort());
  await assert.rejects(run, (err) => err instanceof bp.AbortError);
  assert.ok(!counted.includes("merging"), "aborted while counting");

  const already = AbortSignal.abort();
  await assert.rejects(bp.train(texts, { ...options, signal: already }), (err) => err instanceof bp.AbortError);

  const tok = await bp.createTokenizer({ encoding: "o200k_base" });
  try {
    assert.equal((await tok.memoryStats()).openTrainings, 0, "aborted trainings are closed");
  } finally {
    tok.dispose();
  }
});

test("bad input is refused with a message that says what to give", { skip }, async () => {
  const bad = [
    [["x"], {}, bp.InvalidInputError, /vocabSize/],
    [[], { vocabSize: 300 }, bp.InvalidInputError, /empty array/],
    [[1, 2], { vocabSize: 300 }, bp.InvalidInputError, /texts\[0\]/],
    [["x", new Blob(["y"])], { vocabSize: 300 }, bp.InvalidInputError, /texts\[1\]/],
    [["x"], { vocabSize: 300, specialTokens: "<s>" }, bp.InvalidInputError, /array of strings/],
    [["x"], { vocabSize: 300, signal: {} }, bp.InvalidInputError, /AbortSignal/],
  ];
  for (const [texts, options, Class, message] of bad) {
    await assert.rejects(bp.train(texts, options), (err) => err instanceof Class && message.test(err.message), message.source);
  }
  // The core's TrainingError (a BytepairError named by Python's class) for what only it checks.
  await assert.rejects(bp.train(["abc"], { vocabSize: 100 }), (err) => err instanceof bp.BytepairError && err.name === "TrainingError" && /vocabSize >= 256/.test(err.message));
  await assert.rejects(bp.train(["abc"], { vocabSize: 300, pattern: "(" }), (err) => err.name === "TrainingError" && /does not compile/.test(err.message));
  await assert.rejects(bp.train([new Blob([new Uint8Array([0x61, 0xff, 0x62])])], { vocabSize: 300 }), (err) => err instanceof bp.InputDecodeError);
});
