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
// The snapshot a page keeps in its origin private file system is never sent over a network, so it
// skips the XOR: magic "BPSNAPR\0", the same layout, its pages as they are and only all-zero pages
// left out (encodeSnapshot(raw, null)). Storing it takes no copy of the whole snapshot to XOR (a
// first visit's peak memory fell from ~320 to ~270 MB), and restoring it neither finds the
// module's 14,579 data segments nor XORs them back (30-50 ms less); it is ~3 MB longer, which
// costs ~20 ms to read and check, so a warm start takes about as long (measured when it was introduced).
//
// Example: const stored = encodeSnapshot(raw, wasmBytes);
//          restoreSegments(layOutSnapshot(stored), wasmBytes) // equal to raw: the plain path
// The runtime takes the fast path instead (web/test/snapshot.test.mjs holds the two equal):
//          const { header } = snapshotHeader(stored);   // for Pyodide, which restores no memory then
//          restoreInto(stored, wasmBytes, module.HEAPU8, lengthBeforeGrowing); // the memory, in place

const MAGIC = "BPSNAP2"; // pages XOR'd with the wasm module's data segments
const MAGIC_RAW = "BPSNAPR"; // pages as they are
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
 * pyodide.asm.wasm bytes it will be restored with; with `wasm` null, the raw form (no XOR). */
export function encodeSnapshot(raw, wasm) {
  const memoryStart = new Uint32Array(raw.buffer, raw.byteOffset, 2)[1]; // Pyodide's header size
  const delta = wasm ? new Uint8Array(raw) : raw;
  if (wasm) xorSegments(delta, memoryStart, dataSegments(wasm));
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
  out.set(new TextEncoder().encode(wasm ? MAGIC : MAGIC_RAW));
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
  if (stored.length < HEADER) return -1;
  const { ours, length, pages, bitmap } = parseStored(stored);
  if (!ours || pages !== Math.ceil(length / PAGE) || bitmap.length < Math.ceil(pages / 8)) return -1;
  let size = HEADER + bitmap.length;
  for (let page = 0; page < pages; page++) {
    if (isStored(bitmap, page)) size += Math.min(PAGE, length - page * PAGE);
  }
  return size;
}

/** Reading a stored snapshot, the plain path, first half: the stored pages at their places in a
 * buffer of the snapshot's full length (the rest zero), still XOR'd with the module's data. Null if
 * `stored` is not a whole snapshot in this format. */
export function layOutSnapshot(stored) {
  if (storedLength(stored) !== stored.length) return null;
  const { length, pages, memoryStart, bitmap, xored } = parseStored(stored);
  const raw = new Uint8Array(length);
  let offset = HEADER + bitmap.length;
  for (let page = 0; page < pages; page++) {
    if (!isStored(bitmap, page)) continue;
    const start = page * PAGE;
    const size = Math.min(PAGE, length - start);
    raw.set(stored.subarray(offset, offset + size), start);
    offset += size;
  }
  return { raw, memoryStart, xored };
}

/** Reading a stored snapshot, second half: XOR the wasm module's data segments back into what
 * layOutSnapshot laid out (in place; nothing to do for the raw form), which gives the snapshot
 * itself again. */
export function restoreSegments({ raw, memoryStart, xored }, wasm) {
  if (xored) xorSegments(raw, memoryStart, dataSegments(wasm));
  return raw;
}

/** Reading a stored snapshot straight into a started module's wasm memory, the fast path of
 * restoreSegments(layOutSnapshot(stored), wasm), which lays the whole snapshot out in a buffer of
 * its own (~48 MB for a runtime with o200k built) that Pyodide then copies into the memory again.
 * First `snapshotHeader(stored)`: Pyodide's header (the snapshot up to its memory, for loadPyodide's
 * `_loadSnapshot`, which then has an empty memory to copy) and the memory's length; null if `stored`
 * is not in this format or its header cannot be handed over alone (a length not a multiple of 4).
 * `stored` may be the first HEAD_BYTES of a file of `size` bytes (restoreFromFile reads the rest). */
export function snapshotHeader(stored, size = stored.length) {
  if (storedLength(stored) !== size) return null;
  const { length, memoryStart, bitmap } = parseStored(stored);
  if (memoryStart % 4 !== 0 || memoryStart > PAGE || !isStored(bitmap, 0)) return null;
  return { header: stored.slice(HEADER + bitmap.length, HEADER + bitmap.length + memoryStart), memoryLength: length - memoryStart };
}

/** Then, once the module is instantiated: every stored page is copied once, to its place in `heap`
 * (the module's HEAPU8, at least the snapshot's memory long), and, in the XOR'd form, the data
 * segments are XOR'd into the stored pages and copied into the others. A page left out of the
 * stored form is all zero but for the data segments (all zero in the raw form); `heap` holds zeros
 * there already from `touched` on (the memory's length before it was grown for the snapshot:
 * nothing past it has been written), so only the left-out pages below `touched` are cleared. */
export function restoreInto(stored, wasm, heap, touched) {
  const copy = (target, position) => target.set(stored.subarray(position, position + target.length));
  const { length, memoryStart, bitmap, xored } = readPages(stored, copy, heap, touched, null);
  if (!xored) return;
  const memoryLength = length - memoryStart;
  for (const [address, data] of dataSegments(wasm)) {
    const stop = Math.min(address + data.length, memoryLength);
    for (let at = address; at < stop;) {
      const page = Math.floor((at + memoryStart) / PAGE);
      const next = Math.min(stop, (page + 1) * PAGE - memoryStart);
      const part = data.subarray(at - address, next - address);
      if (isStored(bitmap, page)) {
        for (let i = 0; i < part.length; i++) heap[at + i] ^= part[i];
      } else {
        heap.set(part, at);
      }
      at = next;
    }
  }
}

/** restoreInto for the raw form read from its file (under Node, Deno and Bun: stored.mjs's
 * RuntimeSnapshots.get): each run of stored pages read straight into `heap` by `readAt(target,
 * position)` (synchronous, the whole of target), so the snapshot never has a buffer of its own. Why:
 * this machine's first touch of fresh memory costs more than the copy (38.9 MB: ~20 ms to fault a
 * new buffer in, 3 ms to copy into memory touched already), and the pages must be faulted into the
 * wasm memory anyway. `head`: the file's first bytes, through Pyodide's header (HEAD_BYTES at most);
 * `crc32(bytes, previous)`: the file's checksum is taken over its bytes in order as they are read, and
 * returned for the caller to check before anything runs. `clear(bytes)`: zeroes a left-out page
 * below `touched` (see readPages; fill(0) if not given). */
export function restoreFromFile(head, readAt, heap, touched, crc32, clear = null) {
  if (parseStored(head).xored) throw new RangeError("only the raw form of a snapshot is read from its file");
  return readPages(head, readAt, heap, touched, crc32, clear).sum;
}

/** The pages of a stored snapshot put into `heap` (the wasm memory; `touched`: its bytes that may not
 * be zero): each run of stored pages read by `readAt(target, position)` (the whole of target, from
 * the stored form's `position`), the others zeroed where touched; `head`: the stored form's first
 * bytes, through Pyodide's header. With `crc32(bytes, previous)`, the stored form's checksum is taken
 * over its bytes in order as they are read (`sum`). With `clear(bytes)`, a left-out page below
 * `touched` is zeroed by it instead of by fill(0) (the host's checks it first: most such pages were
 * never written, and filling them makes the system hand each its memory). Returns the header's
 * fields and the sum. */
function readPages(head, readAt, heap, touched, crc32, clear = null) {
  const fields = parseStored(head);
  const { length, pages, memoryStart, bitmap } = fields;
  const memoryLength = length - memoryStart;
  if (heap.length < memoryLength) throw new RangeError(`wasm memory of ${heap.length} bytes, snapshot of ${memoryLength}`);
  let offset = HEADER + bitmap.length; // in the stored form
  let sum = crc32 ? crc32(head.subarray(0, offset), 0) : 0;
  for (let page = 0; page < pages;) {
    const start = page * PAGE; // in the snapshot: Pyodide's header, then the memory
    if (!isStored(bitmap, page)) {
      const end = Math.min(length, start + PAGE);
      const from = Math.max(start, memoryStart);
      if (end > memoryStart && from - memoryStart < touched) {
        if (clear) clear(heap.subarray(from - memoryStart, end - memoryStart));
        else heap.fill(0, from - memoryStart, end - memoryStart);
      }
      page += 1;
      continue;
    }
    let last = page;
    while (last + 1 < pages && isStored(bitmap, last + 1)) last += 1;
    const stop = Math.min(length, (last + 1) * PAGE);
    const from = Math.max(start, memoryStart);
    if (crc32 && start < memoryStart) sum = crc32(head.subarray(offset, offset + memoryStart - start), sum); // Pyodide's header
    if (stop > from) {
      const target = heap.subarray(from - memoryStart, stop - memoryStart);
      readAt(target, offset + from - start);
      if (crc32) sum = crc32(target, sum);
    }
    offset += stop - start;
    page = last + 1;
  }
  return { ...fields, sum: sum >>> 0 };
}

/** How many of a stored snapshot's first bytes restoreFromFile needs before the rest: the header,
 * a bitmap of up to 4 GiB of pages, Pyodide's header (at most a page). */
export const HEAD_BYTES = HEADER + 8192 + PAGE;

/** The header of a stored snapshot (see the layout above): its fields and its page bitmap. */
function parseStored(stored) {
  const view = new DataView(stored.buffer, stored.byteOffset, stored.byteLength);
  const pages = view.getUint32(12, true);
  const magic = new TextDecoder().decode(stored.subarray(0, 8));
  return {
    ours: magic === MAGIC + "\0" || magic === MAGIC_RAW + "\0",
    xored: magic === MAGIC + "\0",
    length: view.getUint32(8, true),
    pages,
    memoryStart: view.getUint32(16, true),
    bitmap: stored.subarray(HEADER, HEADER + Math.ceil(pages / 8)),
  };
}

const isStored = (bitmap, page) => bitmap[page >> 3] & (1 << (page & 7));

const P1 = 2654435761;
const P2 = 2246822519;
const P3 = 3266489917;
const P4 = 668265263;
const P5 = 374761393;
const rotl = (x, r) => (x << r) | (x >>> (32 - r));

/** XXH32 (seed 0) of `bytes`, as an unsigned 32-bit number: the check of what a page keeps in the
 * origin private file system (a stored runtime snapshot, the kept wasm module) against what it wrote.
 *
 * Why not sha256 there: crypto.subtle.digest runs on the calling thread in Chromium, ~60 ms for
 * o200k's 34 MB stored snapshot in a fresh worker, where this takes ~25-40 ms (its first call
 * included); a warm start is bound by that thread. What the check guards against is bytes changed
 * at rest, not an attacker (who could write the origin's files could run its code), and a
 * non-cryptographic hash with XXH32's mixing catches that. Assets from the network keep their
 * sha256 against the manifest. tests/web/test_web_checksum.py holds it to the `xxhash` package.
 *
 * Example: xxh32(new Uint8Array(0)) === 0x02cc5d05 */
export function xxh32(bytes) {
  if (bytes.byteOffset % 4) bytes = bytes.slice(); // Uint32Array views need 4-byte alignment
  const n = bytes.length;
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, n >>> 2);
  let i = 0;
  let h;
  if (n >= 16) {
    let v1 = (P1 + P2) | 0;
    let v2 = P2 | 0;
    let v3 = 0;
    let v4 = -P1 | 0;
    for (const stripes = (n >>> 4) << 2; i < stripes; i += 4) {
      v1 = Math.imul(rotl((v1 + Math.imul(words[i], P2)) | 0, 13), P1);
      v2 = Math.imul(rotl((v2 + Math.imul(words[i + 1], P2)) | 0, 13), P1);
      v3 = Math.imul(rotl((v3 + Math.imul(words[i + 2], P2)) | 0, 13), P1);
      v4 = Math.imul(rotl((v4 + Math.imul(words[i + 3], P2)) | 0, 13), P1);
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) | 0;
  } else {
    h = P5 | 0;
  }
  h = (h + n) | 0;
  for (; i < n >>> 2; i++) h = Math.imul(rotl((h + Math.imul(words[i], P3)) | 0, 17), P4);
  for (let at = i << 2; at < n; at++) h = Math.imul(rotl((h + Math.imul(bytes[at], P5)) | 0, 11), P1);
  h = Math.imul(h ^ (h >>> 15), P2);
  h = Math.imul(h ^ (h >>> 13), P3);
  return (h ^ (h >>> 16)) >>> 0;
}
