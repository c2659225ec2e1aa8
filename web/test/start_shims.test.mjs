// The start's shims and shortcuts in web/verified.mjs that Runtime.load uses under Node, Deno and
// Bun: the empty module compiled before Pyodide's compile (precompileSmallModules), the host's
// instantiate shim (installHostWasmShim) and the synchronous first reads (AssetReader.readNow). Each
// is held to what the plain path would do: the same modules and bytes.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";

import { AssetReader, installHostWasmShim, installSmallModuleCache, precompileSmallModules } from "../verified.mjs";

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
