// Under Node (as under Deno and Bun) the runtime reads its assets from disk in one read each
// (verified.mjs readWhole) and starts compiling pyodide.asm.wasm as soon as its bytes are read,
// before their sha256 check; nothing may run unless the check passes. This holds readWhole to
// fs.readFile, and a corrupt pyodide.asm.wasm or python_stdlib.zip (its size unchanged) to an
// IntegrityError naming it, whether the start would restore a stored runtime snapshot (warm) or the
// shipped one (cold). (A check that failed while the start awaited something else once ended the
// worker as an unhandled rejection: a WorkerError, python_stdlib.zip's under a warm start.)
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import * as fs from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { test } from "node:test";

import { readWhole } from "../verified.mjs";

const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));
const bp = await import(pathToFileURL(join(DIST, "bytepair.mjs")).href);

test("readWhole gives fs.readFile's bytes, and ENOENT for a missing file", async () => {
  const dir = mkdtempSync(join(tmpdir(), "bytepair-read-"));
  try {
    const sizes = [0, 1, 65_537, 3 << 20];
    for (const size of sizes) {
      const bytes = new Uint8Array(size);
      for (let i = 0; i < size; i++) bytes[i] = (i * 2_654_435_761) >>> 24;
      writeFileSync(join(dir, `f${size}`), bytes);
      const read = await readWhole(fs, join(dir, `f${size}`));
      assert.ok(read instanceof Uint8Array);
      assert.deepEqual(Buffer.from(read.buffer, read.byteOffset, read.byteLength), readFileSync(join(dir, `f${size}`)));
    }
    await assert.rejects(readWhole(fs, join(dir, "missing")), { code: "ENOENT" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A folder that is dist/ but for pyodide/`file`, which has one byte changed. */
function distWithCorrupt(file) {
  const dir = mkdtempSync(join(tmpdir(), "bytepair-corrupt-"));
  for (const name of readdirSync(DIST)) if (name !== "pyodide") symlinkSync(join(DIST, name), join(dir, name));
  mkdirSync(join(dir, "pyodide"));
  for (const name of readdirSync(join(DIST, "pyodide"))) {
    if (name !== file) symlinkSync(join(DIST, "pyodide", name), join(dir, "pyodide", name));
  }
  const bytes = readFileSync(join(DIST, "pyodide", file));
  bytes[bytes.length >> 1] ^= 0x5a; // the wasm's inside its code: the module may still compile
  writeFileSync(join(dir, "pyodide", file), bytes);
  return dir;
}

test("a corrupt pyodide.asm.wasm or python_stdlib.zip is an IntegrityError, cold and warm", async () => {
  const files = ["pyodide.asm.wasm", "python_stdlib.zip"];
  const corrupt = Object.fromEntries(files.map((file) => [file, distWithCorrupt(file)]));
  const cache = mkdtempSync(join(tmpdir(), "bytepair-cache-"));
  const before = process.env.BYTEPAIR_CACHE_DIR;
  process.env.BYTEPAIR_CACHE_DIR = cache; // read by the worker, which copies the environment when it starts
  const refused = async (file, how) => {
    const err = await bp.createTokenizer({ encoding: "o200k_base", assetsUrl: pathToFileURL(corrupt[file] + "/").href }).then(
      (tok) => { tok.dispose(); return null; },
      (e) => e,
    );
    assert.ok(err instanceof bp.IntegrityError, `${file}, ${how}: expected IntegrityError, got ${err?.name}: ${err?.message}`);
    assert.ok(err.message.startsWith(`pyodide/${file} failed its integrity check`), `${file}, ${how}: ${err.message}`);
  };
  try {
    for (const file of files) await refused(file, "cold (no stored runtime snapshot)");
    const tok = await bp.createTokenizer({ encoding: "o200k_base" }); // the sound dist/: stores one
    assert.equal(await tok.count("hello world"), 2);
    tok.dispose();
    assert.ok(readdirSync(cache).some((name) => name.endsWith(".bin")), "a runtime snapshot was stored");
    for (const file of files) await refused(file, "warm (the same manifest's stored runtime snapshot)");
  } finally {
    if (before === undefined) delete process.env.BYTEPAIR_CACHE_DIR;
    else process.env.BYTEPAIR_CACHE_DIR = before;
    for (const dir of Object.values(corrupt)) rmSync(dir, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
  }
});
