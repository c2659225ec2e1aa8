// Under Node (as under Deno and Bun) the runtime reads its assets from disk in one read each
// (verified.mjs readWhole) and starts compiling pyodide.asm.wasm as soon as its bytes are read,
// before their sha256 check; nothing may run unless the check passes. This holds readWhole to
// fs.readFile, and a corrupt pyodide.asm.wasm (its size unchanged) to an IntegrityError naming it,
// whether the start would restore a stored runtime snapshot (warm) or the shipped one (cold).
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

/** A folder that is dist/ but for pyodide/pyodide.asm.wasm, which has one byte changed. */
function distWithCorruptWasm() {
  const dir = mkdtempSync(join(tmpdir(), "bytepair-corrupt-"));
  for (const name of readdirSync(DIST)) if (name !== "pyodide") symlinkSync(join(DIST, name), join(dir, name));
  mkdirSync(join(dir, "pyodide"));
  for (const name of readdirSync(join(DIST, "pyodide"))) {
    if (name !== "pyodide.asm.wasm") symlinkSync(join(DIST, "pyodide", name), join(dir, "pyodide", name));
  }
  const wasm = readFileSync(join(DIST, "pyodide", "pyodide.asm.wasm"));
  wasm[wasm.length >> 1] ^= 0x5a; // inside the code: the module may still compile
  writeFileSync(join(dir, "pyodide", "pyodide.asm.wasm"), wasm);
  return dir;
}

test("a corrupt pyodide.asm.wasm is an IntegrityError, cold and warm", async () => {
  const corrupt = distWithCorruptWasm();
  const cache = mkdtempSync(join(tmpdir(), "bytepair-cache-"));
  const before = process.env.BYTEPAIR_CACHE_DIR;
  process.env.BYTEPAIR_CACHE_DIR = cache; // read by the worker, which copies the environment when it starts
  const refused = async (how) => {
    const err = await bp.createTokenizer({ encoding: "o200k_base", assetsUrl: pathToFileURL(corrupt + "/").href }).then(
      (tok) => { tok.dispose(); return null; },
      (e) => e,
    );
    assert.ok(err instanceof bp.IntegrityError, `${how}: expected IntegrityError, got ${err?.name}: ${err?.message}`);
    assert.match(err.message, /pyodide\/pyodide\.asm\.wasm failed its integrity check/, how);
  };
  try {
    await refused("cold (no stored runtime snapshot)");
    const tok = await bp.createTokenizer({ encoding: "o200k_base" }); // the sound dist/: stores one
    assert.equal(await tok.count("hello world"), 2);
    tok.dispose();
    assert.ok(readdirSync(cache).some((name) => name.endsWith(".bin")), "a runtime snapshot was stored");
    await refused("warm (the same manifest's stored runtime snapshot)");
  } finally {
    if (before === undefined) delete process.env.BYTEPAIR_CACHE_DIR;
    else process.env.BYTEPAIR_CACHE_DIR = before;
    rmSync(corrupt, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
  }
});
