// The start's shims and shortcuts in web/verified.mjs, web/stored.mjs and web/snapshot.mjs that
// Runtime.load uses under Node, Deno and Bun: the wasm table's reserve (installTableReserve), the
// empty module compiled before Pyodide's compile (precompileSmallModules), the host's instantiate
// shim (installHostWasmShim), the synchronous first reads (AssetReader.readNow), and the snapshot
// read from its file with left-out pages cleared only where they are not zero (zeroed). Each is held
// to what the plain path would do: the same table indices and lengths, the same modules, bytes and memory.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { Buffer } from "node:buffer";
import { crc32 } from "node:zlib";

import { PAGE, encodeSnapshot, restoreFromFile, restoreInto, snapshotHeader } from "../snapshot.mjs";
import { zeroed } from "../stored.mjs";
import { AssetReader, installHostWasmShim, installSmallModuleCache, installTableReserve, precompileSmallModules, watchInstantiate } from "../verified.mjs";

const table = (initial) => new WebAssembly.Table({ initial, element: "anyfunc" });

/** What Emscripten's getEmptyTableSlot does `count` times: the indices grow(1) hands out, and the
 * length JavaScript is told after each. */
function takeSlots(t, count) {
  const out = [];
  for (let i = 0; i < count; i++) out.push([t.grow(1), t.length]);
  return out;
}

test("the table reserve hands out the indices and lengths grow(1) would, and leaves the table as it was", () => {
  for (const expected of [null, 0, 37, 40, 45, -1, 2 ** 40]) {
    const plain = takeSlots(table(10), 40);
    const t = table(10);
    const finish = installTableReserve(expected);
    try {
      assert.deepEqual(takeSlots(t, 40), plain, `reserve ${expected}`);
    } finally {
      assert.equal(finish(), 40);
    }
    assert.equal(WebAssembly.Table.prototype.grow.name, "grow");
    assert.equal(Object.hasOwn(WebAssembly.Table.prototype, "grow"), true);
    if (expected === 45) { // more reserved than taken: the table goes on counting from what it handed out
      assert.ok(Object.hasOwn(t, "length") && Object.hasOwn(t, "grow"));
      assert.deepEqual(takeSlots(t, 10), takeSlots(table(50), 10));
      assert.equal(t.grow(3), 60);
      assert.equal(t.length, 63);
    } else {
      assert.ok(!Object.hasOwn(t, "length") && !Object.hasOwn(t, "grow"), `reserve ${expected}: the table as it was`);
      assert.equal(t.length, 50);
    }
  }
});

test("the table reserve: grow(n) with a value fills reserved and new slots; other tables and no grows pass through", () => {
  const f = new WebAssembly.Instance(new WebAssembly.Module(Uint8Array.from([
    0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 7, 5, 1, 1, 102, 0, 0, 10, 4, 1, 2, 0, 11,
  ]))).exports.f;
  const t = table(4);
  const other = table(2);
  const finish = installTableReserve(3);
  try {
    assert.equal(t.grow(1), 4);
    assert.equal(other.grow(2), 2); // not the first table grown: its own grow
    assert.equal(other.length, 4);
    assert.equal(t.grow(4, f), 5); // 2 reserved slots and 2 new ones, all holding f
    assert.equal(t.length, 9);
    for (let i = 5; i < 9; i++) assert.equal(t.get(i), f);
    assert.equal(t.get(4), null);
    assert.throws(() => t.grow(-1), RangeError);
  } finally {
    assert.equal(finish(), 5);
  }
  assert.ok(!Object.hasOwn(t, "length"));
  assert.equal(installTableReserve(10)(), null); // nothing grown
});

test("the empty module is compiled before Pyodide's compile and handed out while the cache is installed", () => {
  precompileSmallModules();
  const restore = installSmallModuleCache();
  try {
    const empty = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);
    const a = new WebAssembly.Module(empty);
    assert.ok(a instanceof WebAssembly.Module);
    assert.equal(new WebAssembly.Module(empty), a);
    assert.deepEqual(WebAssembly.Module.exports(a), []);
  } finally {
    restore();
  }
});

test("the host's instantiate shim takes the main module's bytes only, and lets other calls through", async () => {
  const empty = Uint8Array.from([0, 97, 115, 109, 1, 0, 0, 0]);
  const main = Uint8Array.from([0, 97, 115, 109, 1, 0, 0, 0, 0, 3, 1, 120, 0]); // a custom section: 13 bytes
  const compiled = new WebAssembly.Module(main);
  const marks = [];
  const restore = installHostWasmShim({ compiled: Promise.resolve(compiled) }, main.length, (name) => marks.push(name));
  try {
    const small = await WebAssembly.instantiate(new WebAssembly.Module(empty)); // pyodide.mjs's own, first
    assert.ok(small instanceof WebAssembly.Instance);
    const other = await WebAssembly.instantiate(empty);
    assert.notEqual(other.module, compiled);
    assert.deepEqual(marks, []);
    const { module } = await WebAssembly.instantiate(main);
    assert.equal(module, compiled);
    assert.deepEqual(marks, ["wasm: compiled before the start"]);
    assert.notEqual((await WebAssembly.instantiate(main)).module, compiled); // once: the shim is gone
  } finally {
    restore();
  }
});

test("readNow reads a local asset at once, and read() hands the kept bytes out once", async () => {
  const dir = mkdtempSync(join(tmpdir(), "bytepair-readnow-"));
  try {
    const bytes = Uint8Array.from({ length: 200_000 }, (_, i) => (i * 7) & 255);
    writeFileSync(join(dir, "a.bin"), bytes);
    const reader = new AssetReader(pathToFileURL(dir + "/").href);
    assert.deepEqual(reader.readNow("a.bin"), bytes);
    assert.equal(reader.readNow("missing.bin"), null);
    assert.equal(new AssetReader("https://example.invalid/assets/").readNow("a.bin"), null);
    const kept = reader.readNow("a.bin", true);
    let counted = 0;
    assert.equal(await reader.read("a.bin", (n) => (counted += n)), kept);
    assert.equal(counted, bytes.length);
    const again = await reader.read("a.bin");
    assert.notEqual(again, kept);
    assert.deepEqual(again, bytes);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a raw snapshot read from its file, left-out pages cleared only where not zero, is the memory restoreInto makes", () => {
  const pages = 12;
  const headerLength = 144;
  const raw = new Uint8Array(headerLength + pages * PAGE);
  const view = new DataView(raw.buffer);
  view.setUint32(0, 0x0f0e0d0c, true);
  view.setUint32(4, headerLength, true);
  for (const page of [0, 1, 4, 5, 6, 10]) for (let i = 0; i < PAGE; i += 97) raw[headerLength + page * PAGE + i] = (page * 31 + i) & 255 || 1;
  const stored = encodeSnapshot(raw, null);
  const { header, memoryLength } = snapshotHeader(stored);
  const touched = 9 * PAGE;
  const started = () => {
    const heap = new Uint8Array(memoryLength + PAGE);
    for (let i = 0; i < touched; i += 4099) heap[i] = 0xab; // start-up's writes, in stored and left-out pages
    return heap;
  };
  const expected = started();
  restoreInto(stored, null, expected, touched);
  const heap = started();
  const readAt = (target, position) => target.set(stored.subarray(position, position + target.length));
  const sum = restoreFromFile(stored.subarray(0, 20 + 2 + headerLength), readAt, heap, touched, crc32, zeroed(Buffer));
  assert.equal(sum, crc32(stored) >>> 0);
  assert.ok(Buffer.from(heap).equals(Buffer.from(expected)), "the memory differs from restoreInto's");
  assert.ok(Buffer.from(heap.subarray(0, memoryLength)).equals(Buffer.from(raw.subarray(headerLength))));
  assert.deepEqual(header, raw.subarray(0, headerLength));
});

test("a failed instantiate fails the start at once: watchInstantiate's promise rejects with AssetError, beneath the host shim", async () => {
  const real = WebAssembly.instantiate;
  const watch = watchInstantiate();
  const restoreHost = installHostWasmShim({ compiled: Promise.resolve(null) }, 3, () => {});
  try {
    const ok = await WebAssembly.instantiate(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]), {});
    assert.ok(ok.instance instanceof WebAssembly.Instance); // passed through
    await assert.rejects(WebAssembly.instantiate(new Uint8Array([1, 2, 3]), {})); // the caller still sees its error
    await assert.rejects(watch.failed, (err) => err.name === "AssetError" && /could not be instantiated/.test(err.message));
  } finally {
    restoreHost();
    watch.restore();
  }
  assert.equal(WebAssembly.instantiate, real);
});
