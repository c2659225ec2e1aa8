// Hostile input through the JavaScript API under Node: a stranger's chat template or tokenizer.json
// cannot freeze the runtime every tokenizer shares. Under Node the worker shares memory with the
// caller, so an abort interrupts the Python call in place (interrupts.mjs); tests/web/
// test_hostile_browser.py runs the same in Chromium, isolated (in place) and not (the worker replaced).
import assert from "node:assert/strict";
import { test } from "node:test";

const bp = await import(new URL("../../dist/bytepair.mjs", import.meta.url).href);

const RUNAWAY = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}";
const MESSAGES = [{ role: "user", content: "hi" }];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A tiny byte-level tokenizer.json with `pre_tokenizer` and extra `vocab` entries. */
function tinyTokenizer({ pattern = "\\s+|\\S+", vocab = {} } = {}) {
  const bytes = {};
  for (let b = 0; b < 256; b++) bytes[String.fromCharCode(b < 33 || (b > 126 && b < 161) || b === 173 ? 256 + b : b)] = b;
  return {
    model: { type: "BPE", vocab: { ...bytes, ...vocab }, merges: [] },
    pre_tokenizer: { type: "Sequence", pretokenizers: [
      { type: "Split", pattern: { Regex: pattern }, behavior: "Isolated", invert: false },
      { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: false },
    ] },
    decoder: { type: "ByteLevel" },
  };
}

test("an aborted runaway template stops where it runs; another tokenizer answers within a second", async () => {
  const qwen = await bp.createTokenizer({ tokenizer: "qwen2_5" });
  const o200k = await bp.createTokenizer({ encoding: "o200k_base" });
  try {
    const controller = new AbortController();
    const runaway = qwen.applyChatTemplate(MESSAGES, { chatTemplate: RUNAWAY, signal: controller.signal, templateTimeout: 600 });
    await sleep(500); // running by now
    const count = o200k.count("hello world"); // waits behind it
    const t0 = performance.now();
    controller.abort();
    await assert.rejects(runaway, bp.AbortError);
    assert.equal(await count, 2);
    const waited = performance.now() - t0;
    assert.ok(waited < 1000, `the count answered ${waited.toFixed(0)} ms after the abort`);
    assert.deepEqual(o200k.backend.restarts, [], "interrupted in place: the worker was not replaced");
    const { text } = await qwen.applyChatTemplate(MESSAGES, { chatTemplate: "{{ messages[0].content }}", returnText: true });
    assert.equal(text, "hi");
  } finally {
    qwen.dispose();
    o200k.dispose();
  }
});

test("a runaway template stops at its time budget without a signal", async () => {
  const qwen = await bp.createTokenizer({ tokenizer: "qwen2_5" });
  try {
    const t0 = performance.now();
    const err = await qwen.applyChatTemplate(MESSAGES, { chatTemplate: RUNAWAY, templateTimeout: 0.5 }).catch((e) => e);
    assert.ok(err instanceof bp.TemplateError, String(err));
    assert.match(err.message, /time budget of 0\.5 s.*templateTimeout/);
    assert.ok(performance.now() - t0 < 3000);
    const big = await qwen.applyChatTemplate(MESSAGES, { chatTemplate: "{{ 'x' * 10**9 }}" }).catch((e) => e);
    assert.ok(big instanceof bp.TemplateError && /size budget.*templateMaxChars/.test(big.message), String(big));
    const deep = await qwen.applyChatTemplate(MESSAGES, { chatTemplate: "{% if true %}".repeat(5000) + "{% endif %}".repeat(5000) }).catch((e) => e);
    assert.ok(deep instanceof bp.TemplateError && /nests too deeply/.test(deep.message), String(deep));
    await assert.rejects(qwen.applyChatTemplate(MESSAGES, { templateTimeout: -1 }), /templateTimeout must be a positive number/);
  } finally {
    qwen.dispose();
  }
});

test("an aborted call that has not begun never runs", async () => {
  const qwen = await bp.createTokenizer({ tokenizer: "qwen2_5" });
  try {
    const first = qwen.applyChatTemplate(MESSAGES, { chatTemplate: RUNAWAY, templateTimeout: 1 });
    const controller = new AbortController();
    const queued = qwen.applyChatTemplate(MESSAGES, { chatTemplate: RUNAWAY, templateTimeout: 600, signal: controller.signal });
    controller.abort();
    await assert.rejects(queued, bp.AbortError);
    await assert.rejects(first, bp.TemplateError);
    const t0 = performance.now();
    assert.equal(await qwen.count("hello"), 1); // the queued runaway did not run in between
    assert.ok(performance.now() - t0 < 1000);
  } finally {
    qwen.dispose();
  }
});

test("createTokenizer waiting behind a long call can be aborted", async () => {
  const qwen = await bp.createTokenizer({ tokenizer: "qwen2_5" });
  try {
    // A chat call's first use loads jinja2 and the chat settings, and the worker takes the next
    // request while it waits for them: under load the open below was answered before the runaway
    // began (and before its abort). Loaded first, the runaway runs at once.
    await qwen.applyChatTemplate(MESSAGES);
    const busy = qwen.applyChatTemplate(MESSAGES, { chatTemplate: RUNAWAY, templateTimeout: 2 }).catch((e) => e);
    await sleep(100);
    const t0 = performance.now();
    await assert.rejects(bp.createTokenizer({ encoding: "cl100k_base", signal: AbortSignal.timeout(200) }), bp.AbortError);
    assert.ok(performance.now() - t0 < 1000);
    assert.ok((await busy) instanceof bp.TemplateError);
    const cl100k = await bp.createTokenizer({ encoding: "cl100k_base" });
    assert.equal(await cl100k.count("hello world"), 2);
    cl100k.dispose();
  } finally {
    qwen.dispose();
  }
});

test("hostile tokenizer.json files are refused with typed errors", async () => {
  const refused = async (json, Class, pattern) => {
    const err = await bp.createTokenizer({ tokenizerJson: json }).catch((e) => e);
    assert.ok(err instanceof Class, String(err));
    assert.match(err.message, pattern);
  };
  await refused(tinyTokenizer({ pattern: "(a*)*b" }), bp.UnsupportedPatternError, /\(a\*\)\*b.*exponential time/);
  await refused(tinyTokenizer({ pattern: "(?:a|ab)+c" }), bp.UnsupportedPatternError, /exponential time/);
  await refused(tinyTokenizer({ pattern: "a".repeat(70000) }), bp.UnsupportedPatternError, /characters long/);
  // Its own class, and still an UnsupportedTokenizerError for catches written before it existed.
  const err = await bp.createTokenizer({ tokenizerJson: tinyTokenizer({ pattern: "(a+)+b" }) }).catch((e) => e);
  assert.equal(err.name, "UnsupportedPatternError");
  assert.ok(err instanceof bp.UnsupportedTokenizerError && err instanceof bp.BytepairError && err instanceof Error);
  assert.ok(!(new bp.UnsupportedTokenizerError("x") instanceof bp.UnsupportedPatternError));
  await refused(tinyTokenizer({ vocab: { big: 2 ** 32 } }), bp.VocabFormatError, /model.vocab.*2\*\*32 - 1/);
  const fine = await bp.createTokenizer({ tokenizerJson: tinyTokenizer() });
  assert.equal(await fine.count("a b"), 3);
  fine.dispose();
});

test("an aborted slow pattern stops where it runs (the regex engine polls for interrupts)", async () => {
  // `a*b*c` passes the load check (no exponential time) but is quadratic on a long run of "a"
  // (~5e9 steps here): the abort still stops it in place.
  const slow = await bp.createTokenizer({ tokenizerJson: tinyTokenizer({ pattern: "a*b*c" }) });
  const o200k = await bp.createTokenizer({ encoding: "o200k_base" });
  try {
    const controller = new AbortController();
    const stuck = slow.count("a".repeat(120_000), { signal: controller.signal }); // one request (under 128 K)
    await sleep(300);
    const count = o200k.count("hello world");
    const t0 = performance.now();
    controller.abort();
    await assert.rejects(stuck, bp.AbortError);
    assert.equal(await count, 2);
    const waited = performance.now() - t0;
    assert.ok(waited < 1000, `the count answered ${waited.toFixed(0)} ms after the abort`);
    assert.deepEqual(o200k.backend.restarts, []);
    assert.equal(await slow.count("a b c"), 5);
  } finally {
    slow.dispose();
    o200k.dispose();
  }
});

test("a runaway call without a signal is stopped at its callTimeout once another call waits; createTokenizer gets through", async () => {
  // callTimeout: 1 s. `a*b*c` on 120,000 "a" backtracks for minutes (quadratic), and the call has no
  // signal: once another call waits behind it, it is stopped in place at its budget.
  const slow = await bp.createTokenizer({ tokenizerJson: tinyTokenizer({ pattern: "a*b*c" }), callTimeout: 1 });
  const o200k = await bp.createTokenizer({ encoding: "o200k_base" });
  const restarts = slow.backend.restarts.length;
  try {
    const t0 = performance.now();
    const stuck = slow.count("a".repeat(120_000)).catch((e) => e);
    await sleep(300);
    const count = o200k.count("hello world"); // waits behind it
    const again = bp.createTokenizer({ encoding: "o200k_base" }); // so does this open (of a loaded encoding)
    const err = await stuck;
    const stopped = performance.now() - t0;
    assert.equal(await count, 2);
    const answered = performance.now() - t0;
    const second = await again;
    const opened = performance.now() - t0;
    console.log(`runaway with callTimeout 1 s: stopped after ${stopped.toFixed(0)} ms, the waiting count answered ` +
      `after ${answered.toFixed(0)} ms, the waiting createTokenizer after ${opened.toFixed(0)} ms`);
    assert.ok(err instanceof bp.CallTimeoutError, String(err));
    assert.match(err.message, /ran for more than 1 s while other calls waited.*callTimeout/);
    assert.ok(stopped > 1000 && answered < 2500 && opened < 4000, `${stopped} ${answered} ${opened} ms`);
    assert.equal(await second.count("hello world"), 2);
    assert.equal(await slow.count("a b c"), 5); // the same runtime, interrupted in place
    assert.equal(slow.backend.restarts.length, restarts);
    second.dispose();
  } finally {
    slow.dispose();
    o200k.dispose();
  }
});

test("a call past its callTimeout with nothing waiting behind it runs to the end", async () => {
  const slow = await bp.createTokenizer({ tokenizerJson: tinyTokenizer({ pattern: "a*b*c" }), callTimeout: 0.3 });
  try {
    // The pattern is quadratic where it fails: time a short run, then take one that lasts ~1.5 s.
    let t0 = performance.now();
    await slow.count("a".repeat(4000));
    const small = Math.max(performance.now() - t0, 5);
    const n = Math.round(4000 * Math.sqrt(1500 / small));
    t0 = performance.now();
    assert.equal(await slow.count("a".repeat(n)), n);
    const took = performance.now() - t0;
    console.log(`alone past its 0.3 s callTimeout: ${n} characters counted in ${took.toFixed(0)} ms`);
    assert.ok(took > 300, `the long call took ${took.toFixed(0)} ms, not past its 0.3 s budget: the test proves nothing`);
  } finally {
    slow.dispose();
  }
});

test("createTokenizer fails with WorkerError behind a call with no budget, within its own callTimeout and 3 s", async () => {
  const hog = await bp.createTokenizer({ tokenizerJson: tinyTokenizer({ pattern: "a*b*c" }), callTimeout: Infinity });
  try {
    const controller = new AbortController();
    const stuck = hog.count("a".repeat(120_000), { signal: controller.signal });
    await sleep(300);
    const t0 = performance.now();
    const err = await bp.createTokenizer({ encoding: "r50k_base", callTimeout: 1 }).catch((e) => e);
    const waited = performance.now() - t0;
    console.log(`createTokenizer behind a call with no budget: WorkerError after ${waited.toFixed(0)} ms`);
    assert.ok(err instanceof bp.WorkerError, String(err));
    assert.match(err.message, /held by a call .*a count with no time budget/);
    assert.ok(waited > 3500 && waited < 6000, `createTokenizer failed after ${waited.toFixed(0)} ms (1 s + 3 s expected)`);
    controller.abort();
    await assert.rejects(stuck, bp.AbortError);
    const r50k = await bp.createTokenizer({ encoding: "r50k_base" }); // the runtime is free again
    assert.equal(await r50k.count("hello world"), 2);
    r50k.dispose();
    await assert.rejects(bp.createTokenizer({ encoding: "r50k_base", callTimeout: 0 }), bp.InvalidInputError);
    await assert.rejects(bp.createTokenizer({ encoding: "r50k_base", callTimeout: "60" }), /callTimeout must be a positive number/);
  } finally {
    hog.dispose();
  }
});
