// No leaks under Node (the runtime in its worker thread): memory measured before and after 10,000
// inspect and count calls, 10,000 refused calls, and 1,000 stream decoders closed, dropped or disposed
// of. --expose-gc is set before the thread starts, so both threads can collect on demand.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc"); // to run FinalizationRegistry callbacks on demand

const bp = await import(new URL("../../dist/bytepair.mjs", import.meta.url).href);
let tok;
before(async () => {
  tok = await bp.createTokenizer({ encoding: "o200k_base" });
});
after(() => tok.dispose());

async function settled() {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return tok.memoryStats();
}

/** An edited document: one line's number changes per version. The digits keep the set of pieces
 * small, so the core's (bounded) piece cache stays as it is and any growth is the bridge's. */
function version(i) {
  const lines = Array.from({ length: 8 }, (_, k) => `${k}. The quick brown fox jumps over the lazy dog; 日本語 🫠 ${k === i % 8 ? i : k}`);
  return lines.join("\n");
}

function grew(before, after, key) {
  return after[key] - before[key];
}

test("10,000 inspect and count calls leave memory flat", async () => {
  for (let i = 0; i < 200; i++) await tok.inspect(version(i)); // warm-up: caches reach their steady size
  const start = await settled();
  for (let i = 0; i < 10_000; i++) {
    const text = version(i);
    const r = await tok.inspect(text, { maxTokens: 50 });
    if (i % 1000 === 0) assert.equal(r.count, await tok.count(text));
    await tok.count(text);
  }
  const end = await settled();
  assert.ok(grew(start, end, "heapBytesInUse") < 1_000_000, `malloc'd bytes grew by ${grew(start, end, "heapBytesInUse")}`);
  assert.ok(Math.abs(grew(start, end, "pythonObjects")) < 300, `Python objects ${start.pythonObjects} -> ${end.pythonObjects}`);
  assert.equal(grew(start, end, "wasmBytes"), 0);
  assert.ok(end.cachedBlocks <= 2 && end.cachedWordCounts <= 2, JSON.stringify(end)); // two versions of one block
});

test("refused calls leave nothing behind", async () => {
  const start = await settled();
  const callerHeap = process.memoryUsage().heapUsed;
  for (let i = 0; i < 10_000; i++) await assert.rejects(tok.decode([-1]), { name: "InvalidTokenError" });
  const end = await settled();
  // Errors rebuilt from Python tracebacks kept ~490 bytes of JS heap each (4.9 MB here): in the
  // runtime's thread, where they are made, and in the caller's, where they are thrown.
  assert.ok(grew(start, end, "jsHeapBytes") < 2_000_000, `runtime's JS heap grew by ${grew(start, end, "jsHeapBytes")}`);
  const callerGrew = process.memoryUsage().heapUsed - callerHeap;
  assert.ok(callerGrew < 2_000_000, `caller's JS heap grew by ${callerGrew}`);
  assert.ok(grew(start, end, "heapBytesInUse") < 200_000, `malloc'd bytes grew by ${grew(start, end, "heapBytesInUse")}`);
});

test("1,000 stream decoders: closed, dropped unclosed, or left to dispose(), are all released", async () => {
  const start = await settled();
  assert.equal(start.openDecoders, 0);
  for (let i = 0; i < 1000; i++) {
    const d = tok.decoder();
    assert.equal((await d.write([i])) + (await d.flush()), await tok.decode([i]));
    await d.close();
    await assert.rejects(d.flush(), { name: "ClosedError" });
  }
  assert.equal((await tok.memoryStats()).openDecoders, 0);

  for (let i = 0; i < 1000; i++) await tok.decoder().write([i]); // never closed (some may be collected already)
  assert.equal((await settled()).openDecoders, 0); // released when collected

  const other = await bp.createTokenizer({ encoding: "o200k_base" }); // shares tok's runtime
  const kept = [];
  for (let i = 0; i < 1000; i++) {
    kept.push(other.decoder());
    await kept.at(-1).write([i]);
  }
  assert.equal((await tok.memoryStats()).openDecoders, 1000);
  other.dispose();
  const end = await settled();
  assert.equal(end.openDecoders, 0);
  await assert.rejects(kept[0].write([1]), { name: "DisposedError" });
  assert.ok(grew(start, end, "heapBytesInUse") < 500_000, `malloc'd bytes grew by ${grew(start, end, "heapBytesInUse")}`);
});
