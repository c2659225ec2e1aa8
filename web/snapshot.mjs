// The stored form of a Pyodide memory snapshot, written by the build (build/bundle.mjs) and by the
// runtime (the fully initialised snapshot a page keeps in its origin private file system), read
// by the runtime (web/runtime.mjs). One format, one place.
//
// Why a format of our own: a memory snapshot is the whole wasm memory (31 MB and more), and most
// of it is either zero or the very bytes the wasm module's data segments put there (CPython's
// static data: 3.3 MB, nearly all unchanged after start-up), which every page already has in
// pyodide.asm.wasm. So the snapshot is XOR'd with that initial image (unchanged bytes become
// zero) and the 64 KiB pages that are then all zero are left out: 31 MB become about 17 MB, and
// 6.8 MB gzip'd become about 3.6 MB with Brotli, served by HTTP's Content-Encoding.
//
// Layout, little-endian: "BPSNAP2\0", u32 full length, u32 page count, u32 where the wasm memory
// starts in the snapshot (Pyodide puts a header before it), a bitmap with one bit per page
// (1 = stored), then the stored pages in order.
//
// Example: const stored = encodeSnapshot(raw, wasmBytes);
//          restoreSegments(layOutSnapshot(stored), wasmBytes) // equal to raw

const MAGIC = "BPSNAP2";
const HEADER = 20;
export const PAGE = 65536;

/** The wasm module's active data segments as [memory offset, bytes] pairs (from its data section).
 * Only constant offsets occur in Pyodide's main module; a segment placed otherwise is skipped, which
 * just leaves its bytes un-XOR'd (correct, a little larger). */
export function dataSegments(wasm) {
  const bytes = wasm instanceof Uint8Array ? wasm : new Uint8Array(wasm);
  let at = 8;
  const leb = () => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = bytes[at++];
      value += (byte & 127) * scale;
      scale *= 128;
      if (!(byte & 128)) return value;
    }
  };
  const sleb32 = () => {
    let value = 0;
    let shift = 0;
    let byte;
    do {
      byte = bytes[at++];
      value |= (byte & 127) << shift;
      shift += 7;
    } while (byte & 128);
    return shift < 32 && byte & 64 ? value | (-1 << shift) : value;
  };
  const segments = [];
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = leb();
    const end = at + size;
    if (id === 11) {
      for (let n = leb(); n > 0; n--) {
        const flags = leb();
        let offset = null;
        if (flags === 0 || flags === 2) {
          if (flags === 2) leb(); // memory index
          const op = bytes[at++];
          if (op === 0x41) offset = sleb32() >>> 0; // i32.const
          else leb(); // global.get: placed at run time
          at++; // end
        }
        const length = leb();
        if (offset !== null) segments.push([offset, bytes.subarray(at, at + length)]);
        at += length;
      }
    }
    at = end;
  }
  return segments;
}

function xorSegments(raw, memoryStart, segments) {
  for (const [offset, data] of segments) {
    const start = memoryStart + offset;
    const n = Math.min(data.length, raw.length - start);
    for (let i = 0; i < n; i++) raw[start + i] ^= data[i];
  }
}

function isZero(chunk) {
  const words = chunk.byteOffset % 8 === 0 && chunk.length % 8 === 0
    ? new BigUint64Array(chunk.buffer, chunk.byteOffset, chunk.length / 8)
    : chunk;
  for (let i = 0; i < words.length; i++) if (words[i]) return false;
  return true;
}

/** The stored form of a snapshot `raw` (from makeMemorySnapshot; left unchanged), given the
 * pyodide.asm.wasm bytes it will be restored with. */
export function encodeSnapshot(raw, wasm) {
  const memoryStart = new Uint32Array(raw.buffer, raw.byteOffset, 2)[1]; // Pyodide's header size
  const delta = new Uint8Array(raw);
  xorSegments(delta, memoryStart, dataSegments(wasm));
  const pages = Math.ceil(delta.length / PAGE);
  const bitmap = new Uint8Array(Math.ceil(pages / 8));
  const kept = [];
  for (let page = 0; page < pages; page++) {
    const chunk = delta.subarray(page * PAGE, Math.min(delta.length, (page + 1) * PAGE));
    if (!isZero(chunk)) {
      bitmap[page >> 3] |= 1 << (page & 7);
      kept.push(chunk);
    }
  }
  const size = HEADER + bitmap.length + kept.reduce((n, c) => n + c.length, 0);
  const out = new Uint8Array(size);
  out.set(new TextEncoder().encode(MAGIC));
  const view = new DataView(out.buffer);
  view.setUint32(8, delta.length, true);
  view.setUint32(12, pages, true);
  view.setUint32(16, memoryStart, true);
  out.set(bitmap, HEADER);
  let offset = HEADER + bitmap.length;
  for (const chunk of kept) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** The byte length a stored snapshot must have, from its header (-1 if the header is not ours). */
export function storedLength(stored) {
  if (stored.length < HEADER || new TextDecoder().decode(stored.subarray(0, 8)) !== MAGIC + "\0") return -1;
  const view = new DataView(stored.buffer, stored.byteOffset, stored.byteLength);
  const length = view.getUint32(8, true);
  const pages = view.getUint32(12, true);
  if (pages !== Math.ceil(length / PAGE) || stored.length < HEADER + Math.ceil(pages / 8)) return -1;
  const bitmap = stored.subarray(HEADER, HEADER + Math.ceil(pages / 8));
  let size = HEADER + bitmap.length;
  for (let page = 0; page < pages; page++) {
    if (bitmap[page >> 3] & (1 << (page & 7))) size += Math.min(PAGE, length - page * PAGE);
  }
  return size;
}

/** Reading a stored snapshot, first half, which needs no wasm module: the stored pages at their
 * places in a buffer of the snapshot's full length (the rest zero), still XOR'd with the module's
 * data. A warm start runs it before Pyodide's modules (and a fetched pyodide.asm.wasm) have arrived,
 * so that only the second half (a few MB) waits for the wasm. Null if `stored` is not a whole snapshot in this format. */
export function layOutSnapshot(stored) {
  if (storedLength(stored) !== stored.length) return null;
  const view = new DataView(stored.buffer, stored.byteOffset, stored.byteLength);
  const length = view.getUint32(8, true);
  const pages = view.getUint32(12, true);
  const memoryStart = view.getUint32(16, true);
  const bitmap = stored.subarray(HEADER, HEADER + Math.ceil(pages / 8));
  const raw = new Uint8Array(length);
  let offset = HEADER + bitmap.length;
  for (let page = 0; page < pages; page++) {
    if (!(bitmap[page >> 3] & (1 << (page & 7)))) continue;
    const start = page * PAGE;
    const size = Math.min(PAGE, length - start);
    raw.set(stored.subarray(offset, offset + size), start);
    offset += size;
  }
  return { raw, memoryStart };
}

/** Reading a stored snapshot, second half: XOR the wasm module's data segments back into what
 * layOutSnapshot laid out (in place), which gives the snapshot itself again. */
export function restoreSegments({ raw, memoryStart }, wasm) {
  xorSegments(raw, memoryStart, dataSegments(wasm));
  return raw;
}
