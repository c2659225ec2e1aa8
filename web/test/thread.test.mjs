// Under Node the runtime answers from a worker thread: a long encode leaves the caller's event loop
// free, and the thread neither keeps a finished script alive nor lets one end while it waits for an
// answer. (Run by `node --test web/test/`, tests/web/test_node_api.py.)
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

const API = new URL("../../dist/bytepair.mjs", import.meta.url).href;
const { createTokenizer } = await import(API);

/** About `n` bytes of words never seen before (a new text defeats the piece cache). */
function newWords(n, seed) {
  let x = seed;
  const letters = "abcdefghijklmnopqrstuvwxyzäöüéñ";
  const words = [];
  for (let size = 0; size < n; ) {
    let word = " ";
    const length = 2 + (x % 9);
    for (let i = 0; i < length; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      word += letters[(x >>> 16) % letters.length];
    }
    words.push(word);
    size += word.length;
  }
  return words.join("");
}

test("a long encode leaves the caller's event loop free", async () => {
  const tok = await createTokenizer({ encoding: "o200k_base" });
  try {
    const text = newWords(400_000, 7);
    let ticks = 0;
    let longestGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks += 1;
    }, 5);
    const start = performance.now();
    const ids = await tok.encode(text);
    const ms = performance.now() - start;
    clearInterval(timer);
    longestGap = Math.max(longestGap, performance.now() - last);
    assert.ok(ids.length > 100_000);
    assert.ok(ms > 150, `the encode took ${ms.toFixed(0)} ms: too short to show anything`);
    // In the caller's thread the timer would not fire until the encode is done (one gap as long as it).
    assert.ok(longestGap < ms / 2, `the event loop stood still for ${longestGap.toFixed(0)} ms of a ${ms.toFixed(0)} ms encode`);
    assert.ok(ticks >= 5, `the timer fired ${ticks} times during a ${ms.toFixed(0)} ms encode`);
  } finally {
    tok.dispose();
  }
});

/** `node ARGS` in a child process with a cache folder of its own (BYTEPAIR_CACHE_DIR): the scripts here
 * test how a process ends, not warm starts, and must not meet the snapshots other tests store at the
 * same time; what the child printed is in every failure's message. */
function runNode(args) {
  const cache = mkdtempSync(join(tmpdir(), "bytepair-thread-"));
  try {
    const result = spawnSync(process.execPath, args, { encoding: "utf8", timeout: 60_000, env: { ...process.env, BYTEPAIR_CACHE_DIR: cache } });
    result.told = `status ${result.status}, signal ${result.signal}; stdout: ${result.stdout}; stderr: ${result.stderr}`;
    return result;
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

test("a script ends without dispose(), after the answers it awaits", () => {
  // --input-type=module -e: the thread must not take over flags about the caller's entry point.
  const script = `
    const { createTokenizer } = await import(${JSON.stringify(API)});
    const tok = await createTokenizer({ encoding: "cl100k_base" });
    console.log(await tok.count("hello world"));
    setTimeout(async () => console.log((await tok.encode("hello world")).length), 50);
  `;
  const result = runNode(["--input-type=module", "-e", script]);
  assert.equal(result.error, undefined, `the script did not end by itself (${result.told})`);
  assert.equal(result.status, 0, result.told);
  assert.deepEqual(result.stdout.trim().split("\n"), ["2", "2"], result.told);
});

test("the process's V8 and process flags do not stop the thread", () => {
  // A worker thread refuses --max-old-space-size, --expose-gc and --title in its execArgv.
  const script = `
    const { createTokenizer } = await import(${JSON.stringify(API)});
    const tok = await createTokenizer({ encoding: "cl100k_base" });
    console.log(await tok.count("hello world"), typeof globalThis.gc);
  `;
  const flags = ["--max-old-space-size=4096", "--expose-gc", "--title=bytepair-test"];
  const result = runNode([...flags, "--input-type=module", "-e", script]);
  assert.equal(result.error, undefined, "the script did not end by itself");
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stdout.trim(), "2 function");
});

test("a value the thread cannot be sent is an InvalidInputError, and the script still ends", () => {
  const script = `
    const { createTokenizer, InvalidInputError } = await import(${JSON.stringify(API)});
    const tok = await createTokenizer({ encoding: "cl100k_base" });
    for (const bad of [Symbol("x"), () => "hi"]) {
      try { await tok.encode(bad); console.log("no error"); }
      catch (err) { console.log(err instanceof InvalidInputError, err.message.includes("cannot be passed")); }
    }
    console.log(await tok.count("still works"));
  `;
  const result = runNode(["--input-type=module", "-e", script]);
  assert.equal(result.error, undefined, "the script did not end by itself");
  assert.equal(result.status, 0, result.stderr);
  assert.deepEqual(result.stdout.trim().split("\n"), ["true true", "true true", "2"]);
});

test("an onProgress that is no function is refused, one that throws is reported and loading goes on", async () => {
  const { InvalidInputError } = await import(API);
  await assert.rejects(createTokenizer({ onProgress: 5 }), (err) => err instanceof InvalidInputError && /onProgress must be a function/.test(err.message));
  const errors = [];
  const original = console.error;
  console.error = (...args) => errors.push(args.join(" "));
  try {
    const tok = await createTokenizer({ encoding: "p50k_base", onProgress: () => { throw new Error("a bug in a progress bar"); } });
    assert.equal(await tok.count("hello world"), 2);
    tok.dispose();
  } finally {
    console.error = original;
  }
  assert.ok(errors.some((line) => line.includes("onProgress callback threw") && line.includes("a bug in a progress bar")), errors.join("\n"));
});

test("errors from the core arrive as the classes errors.mjs exports", async () => {
  const { InputDecodeError, TrainingError, train } = await import(API);
  const tok = await createTokenizer({ encoding: "o200k_base" });
  try {
    const partial = (await tok.encode("🫠")).slice(0, 1);
    await assert.rejects(tok.decode(partial, { errors: "strict" }), (err) => err instanceof InputDecodeError);
    await assert.rejects(train("", { vocabSize: 300 }), (err) => err instanceof TrainingError && /empty/.test(err.message));
  } finally {
    tok.dispose();
  }
});
