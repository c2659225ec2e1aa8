// web/snapshot.mjs: the stored form of a memory snapshot. The runtime restores a stored snapshot
// straight into the wasm memory (snapshotHeader + restoreInto); this holds that fast path equal to
// the plain one (layOutSnapshot + restoreSegments, which rebuilds the whole snapshot in a buffer)
// and both equal to the snapshot that was stored, on the bundle's own snapshot and on made-up ones,
// in both forms: XOR'd with the module's data (shipped) and raw (what a page keeps in OPFS).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import {
  PAGE, dataSegments, encodeSnapshot, layOutSnapshot, restoreInto, restoreSegments, snapshotHeader,
} from "../snapshot.mjs";

const dist = (path) => new URL(`../../dist/${path}`, import.meta.url);

/** What an instantiated module's memory holds before the restore: its data segments, plus whatever
 * start-up wrote (`junk` bytes at made-up places below `touched`), zero past `touched`. */
function startedMemory(wasm, length, touched, junk) {
  const heap = new Uint8Array(length);
  for (const [address, data] of dataSegments(wasm)) heap.set(data.subarray(0, Math.max(0, touched - address)), address);
  for (let i = 0; i < junk; i++) heap[(i * 104_729) % touched] = 0xab;
  return heap;
}

function fastRestore(stored, wasm, touched, junk = 5_000) {
  const head = snapshotHeader(stored);
  assert.ok(head, "the stored snapshot has a header that can be handed over alone");
  const heap = startedMemory(wasm, Math.max(touched, head.memoryLength), touched, junk);
  restoreInto(stored, wasm, heap, touched); // as the runtime calls it, whatever the form
  return { header: head.header, memory: heap.subarray(0, head.memoryLength), rest: heap.subarray(head.memoryLength) };
}

/** A wasm module holding only a data section with `segments` ([address, bytes] pairs, active). */
function wasmWithData(segments) {
  const leb = (n) => {
    const out = [];
    do {
      let byte = n & 127;
      n >>>= 7;
      if (n) byte |= 128;
      out.push(byte);
    } while (n);
    return out;
  };
  const sleb = (n) => {
    const out = [];
    for (;;) {
      const byte = n & 127;
      n >>= 7;
      if ((n === 0 && !(byte & 64)) || (n === -1 && byte & 64)) return [...out, byte];
      out.push(byte | 128);
    }
  };
  const body = [...leb(segments.length)];
  for (const [address, bytes] of segments) body.push(0, 0x41, ...sleb(address), 0x0b, ...leb(bytes.length), ...bytes);
  return Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 11, ...leb(body.length), ...body]);
}

/** A made-up raw snapshot: Pyodide's header (magic, its length, a JSON length) then memory pages
 * of every kind: zero, equal to the data segments, changed, and with a header not page-aligned. */
function madeUpSnapshot(memoryPages, headerLength, seed) {
  let state = seed;
  const random = () => (state = (state * 1_103_515_245 + 12_345) >>> 0) / 2 ** 32;
  const raw = new Uint8Array(headerLength + memoryPages * PAGE);
  const view = new DataView(raw.buffer);
  view.setUint32(0, 0x0f0e0d0c, true);
  view.setUint32(4, headerLength, true);
  view.setUint32(8, 7, true);
  const segments = [];
  for (let address = 100; address < memoryPages * PAGE - 5_000; address += Math.floor(random() * 90_000) + 5_000) {
    const bytes = Uint8Array.from({ length: Math.floor(random() * 4_000) + 1 }, () => Math.floor(random() * 256));
    segments.push([address, bytes]);
    if (random() < 0.7) raw.set(bytes, headerLength + address); // left as the module starts it
  }
  // changed bytes in the first half of the pages only, so that later ones are left out
  for (let i = 0; i < 3_000; i++) raw[headerLength + Math.floor((random() * memoryPages * PAGE) / 2)] = Math.floor(random() * 256);
  return { raw, wasm: wasmWithData(segments) };
}

test("the bundle's snapshot restores into memory as the plain path rebuilds it", () => {
  const stored = new Uint8Array(readFileSync(dist("snapshot.bin")));
  const wasm = new Uint8Array(readFileSync(dist("pyodide/pyodide.asm.wasm")));
  const plain = restoreSegments(layOutSnapshot(stored), wasm);
  const headerLength = new Uint32Array(plain.buffer, plain.byteOffset, 2)[1];
  const fast = fastRestore(stored, wasm, 30 * 1024 * 1024);
  assert.deepEqual(fast.header, plain.subarray(0, headerLength));
  assert.ok(Buffer.from(fast.memory).equals(Buffer.from(plain.subarray(headerLength))), "memory differs from the plain path's");
  // the same snapshot in the raw form a page keeps: a different magic, its pages as they are
  const kept = encodeSnapshot(plain, null);
  assert.equal(new TextDecoder().decode(kept.subarray(0, 7)), "BPSNAPR");
  assert.ok(kept.length > stored.length, "the raw form also keeps the pages the module's data fills");
  assert.deepEqual(restoreSegments(layOutSnapshot(kept), null), plain);
  const fastKept = fastRestore(kept, wasm, 30 * 1024 * 1024);
  assert.ok(Buffer.from(fastKept.memory).equals(Buffer.from(plain.subarray(headerLength))), "raw form: memory differs");
});

test("made-up snapshots round-trip through both paths", () => {
  for (const [memoryPages, headerLength, touchedPages, seed] of [[6, 144, 6, 1], [9, 4_100, 3, 2], [4, 65_532, 4, 3], [12, 8, 0, 4]]) {
    const { raw, wasm } = madeUpSnapshot(memoryPages, headerLength, seed);
    for (const form of ["xored", "raw"]) {
      const copy = Uint8Array.from(raw);
      const stored = encodeSnapshot(raw, form === "raw" ? null : wasm);
      assert.deepEqual(raw, copy, "encoding leaves the snapshot unchanged");
      assert.deepEqual(restoreSegments(layOutSnapshot(stored), wasm), raw);
      // touched 0: nothing written at start-up, the data segments not even placed
      const touched = touchedPages * PAGE;
      const fast = fastRestore(stored, wasm, touched, touched ? 5_000 : 0);
      assert.deepEqual(fast.header, raw.subarray(0, headerLength));
      assert.ok(Buffer.from(fast.memory).equals(Buffer.from(raw.subarray(headerLength))),
        `memory differs (${form}, ${memoryPages} pages, header ${headerLength})`);
      assert.ok(fast.rest.every((b) => b === 0));
    }
  }
});

test("a header that cannot be handed over alone is refused, not misread", () => {
  const { raw, wasm } = madeUpSnapshot(3, 146, 5); // not a multiple of 4
  assert.equal(snapshotHeader(encodeSnapshot(raw, wasm)), null);
  assert.equal(snapshotHeader(Uint8Array.from([1, 2, 3])), null);
});
