#!/usr/bin/env node
// Build dist/: the offline browser/edge bundle of bytepair (run by `make bundle`).
//
//   node build/bundle.mjs --wheel build/wheel/bytepair-<v>-py3-none-any.whl [--out dist]
//
// dist/ receives:
//   pyodide/        the runtime from the npm `pyodide` package pinned in package.json
//   bytepair-*.whl  our pure-Python wheel, re-packed with .pyc compiled by Pyodide's own Python
//                   (unchecked-hash pycs: no compile and no source check at import) and without the
//                   rank data, which is served per encoding:
//   encodings/      the packed rank files (*.bpr), fetched only for the encodings a page uses
//   tokenizers/     open-model tokenizers (Llama 3, Qwen 2.5 and 3, DeepSeek V3, GPT-2) as
//                   <name>.json.gz: the model's tokenizer.json (fetched, sha256-pinned, by
//                   build/fetch_hf_tokenizers.py), without its indentation, gzip'd at level 9; fetched
//                   only when a page opens that tokenizer (createTokenizer({ tokenizer: name }))
//   snapshot.bin.gz a Pyodide memory snapshot taken after importing bytepair and compiling every
//                   bundled pattern, so a page skips Python's start-up and our imports
//   *.mjs, *.d.ts   the JavaScript API (web/)
//   manifest.json   size and sha256 of every file, checked by the loader before use, and Pyodide's
//                   lock file listing no packages (nothing can be loaded by name, so never from a
//                   CDN), inline: one request less on the start-up's critical path
//
// The wheel itself is built the standard way (pip wheel): `pyodide build` needs a cross-build
// environment downloaded from pyodide.github.io / GitHub, which this build must not depend on
// (see README, "Browser bundle").

import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values: args } = parseArgs({
  options: { wheel: { type: "string" }, out: { type: "string", default: join(ROOT, "dist") } },
});
if (!args.wheel) {
  console.error("usage: node build/bundle.mjs --wheel PATH [--out DIR]");
  process.exit(2);
}
const OUT = args.out;
const PYODIDE_DIR = join(ROOT, "node_modules", "pyodide");
const RUNTIME = {
  loader: "pyodide.mjs",
  module: "pyodide.asm.mjs",
  wasm: "pyodide.asm.wasm",
  stdlib: "python_stdlib.zip",
};
const LOCK = "pyodide-lock.json";
const WEB_FILES = ["bytepair.mjs", "runtime.mjs", "service.mjs", "worker.mjs", "bytepair.d.ts"];
// Open-model tokenizers prepared for createTokenizer({ tokenizer }) and the playground: name -> label.
const TOKENIZERS = { llama3: "Llama 3", qwen2_5: "Qwen 2.5", qwen3: "Qwen 3", deepseek_v3: "DeepSeek V3", gpt2: "GPT-2" };

/** Fetch (or find in build/cache/hf) each tokenizer.json, sha256-checked by build/fetch_hf_tokenizers.py,
 * and write it compact: re-serialised without whitespace (the same JSON value) and gzip'd. */
function prepareTokenizers(outDir) {
  const venv = join(ROOT, ".venv", "bin", "python");
  const python = process.env.PYTHON_FOR_BUILD ?? (existsSync(venv) ? venv : "python3");
  const names = Object.keys(TOKENIZERS);
  const fetched = spawnSync(python, [join(ROOT, "build", "fetch_hf_tokenizers.py"), ...names], { encoding: "utf8" });
  if (fetched.status !== 0) {
    throw new Error(`build/fetch_hf_tokenizers.py ${names.join(" ")} failed (it fetches them with npm): ${fetched.stderr || fetched.error}`);
  }
  const folders = fetched.stdout.trim().split("\n");
  mkdirSync(join(outDir, "tokenizers"), { recursive: true });
  const out = {};
  names.forEach((name, i) => {
    const source = readFileSync(join(folders[i], "tokenizer.json"));
    const compact = gzipSync(JSON.stringify(JSON.parse(source.toString("utf8"))), { level: 9 });
    const file = `tokenizers/${name}.json.gz`;
    writeFileSync(join(outDir, file), compact);
    out[name] = { file, label: TOKENIZERS[name], source_sha256: sha256(source), source_size: source.length };
  });
  return out;
}

// Python run inside Pyodide: re-pack the wheel with pycs compiled by this very interpreter.
const REPACK = `
import base64, hashlib, importlib.util, io, os, py_compile, sys, tempfile, zipfile

def repack(wheel):
    src = zipfile.ZipFile(io.BytesIO(wheel.to_bytes()))
    out = io.BytesIO()
    data_files = {}
    record = []
    stamp = (1980, 1, 1, 0, 0, 0)  # fixed timestamps: the same input gives the same wheel
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as dst:
        def add(name, data):
            info = zipfile.ZipInfo(name, stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            dst.writestr(info, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{name},sha256={digest},{len(data)}")
        names = sorted(n for n in src.namelist() if not n.endswith("/"))
        record_name = next(n for n in names if n.endswith(".dist-info/RECORD"))
        with tempfile.TemporaryDirectory() as tmp:
            for name in names:
                data = src.read(name)
                if name == record_name:
                    continue
                if name.startswith("bytepair/data/") and name.endswith(".bpr"):
                    data_files[name.rsplit("/", 1)[1]] = data
                    continue
                add(name, data)
                if name.endswith(".py"):
                    source = os.path.join(tmp, "source.py")
                    target = os.path.join(tmp, "compiled.pyc")
                    with open(source, "wb") as f:
                        f.write(data)
                    py_compile.compile(source, cfile=target, dfile=name, doraise=True,
                                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
                    with open(target, "rb") as f:
                        add(importlib.util.cache_from_source(name), f.read())
        record.append(f"{record_name},,")
        info = zipfile.ZipInfo(record_name, stamp)
        info.external_attr = 0o644 << 16
        dst.writestr(info, "\\n".join(record) + "\\n")
    return out.getvalue(), data_files
`;

const SITE_PACKAGES = "/lib/python3.14/site-packages";
const SNAPSHOT = "snapshot.bin.gz";

/** A fresh interpreter with bytepair imported and its patterns compiled, as a gzip'd memory snapshot.
 * The file system is not part of a snapshot: the runtime unpacks the wheel again after restoring. */
async function makeSnapshot(loadPyodide, wheel) {
  const pyodide = await loadPyodide({
    indexURL: PYODIDE_DIR + "/",
    _makeSnapshot: true,
    stdout: () => {},
    stderr: (m) => console.error(m),
  });
  pyodide.unpackArchive(wheel, "zip", { extractDir: SITE_PACKAGES });
  pyodide.runPython("import gc, bytepair.web_bridge as bridge; bridge.prepare(); gc.collect()");
  return gzipSync(sparse(pyodide.makeMemorySnapshot()), { level: 9 });
}

/** Leave out the 64 KiB pages that are all zero (format: see expandSnapshot in web/runtime.mjs). */
function sparse(raw) {
  const PAGE = 65536;
  const pages = Math.ceil(raw.length / PAGE);
  const bitmap = new Uint8Array(Math.ceil(pages / 8));
  const kept = [];
  for (let page = 0; page < pages; page++) {
    const chunk = raw.subarray(page * PAGE, Math.min(raw.length, (page + 1) * PAGE));
    if (chunk.some((b) => b !== 0)) {
      bitmap[page >> 3] |= 1 << (page & 7);
      kept.push(chunk);
    }
  }
  const header = new Uint8Array(16);
  header.set(new TextEncoder().encode("BPSNAP1\0"));
  const view = new DataView(header.buffer);
  view.setUint32(8, raw.length, true);
  view.setUint32(12, pages, true);
  return Buffer.concat([header, bitmap, ...kept]);
}

function sha256(bytes) {
  return createHash("sha256").update(bytes).digest("hex");
}

async function main() {
  const { loadPyodide } = await import(join(PYODIDE_DIR, "pyodide.mjs"));
  const pyodide = await loadPyodide({ indexURL: PYODIDE_DIR + "/", stdout: () => {}, stderr: (m) => console.error(m) });
  pyodide.runPython(REPACK);
  const wheelBytes = new Uint8Array(readFileSync(args.wheel));
  const result = pyodide.globals.get("repack")(wheelBytes);
  const [wheelOut, dataFiles] = result.toJs({ dict_converter: Object.fromEntries });
  result.destroy();
  const pythonVersion = pyodide.runPython("import sys; sys.version.split()[0]");

  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(join(OUT, "pyodide"), { recursive: true });
  mkdirSync(join(OUT, "encodings"), { recursive: true });

  const wheelName = basename(args.wheel);
  writeFileSync(join(OUT, wheelName), wheelOut);
  for (const [name, bytes] of Object.entries(dataFiles)) writeFileSync(join(OUT, "encodings", name), bytes);
  for (const file of Object.values(RUNTIME)) copyFileSync(join(PYODIDE_DIR, file), join(OUT, "pyodide", file));
  const lock = { info: JSON.parse(readFileSync(join(PYODIDE_DIR, LOCK), "utf8")).info, packages: {} };
  for (const file of WEB_FILES) copyFileSync(join(ROOT, "web", file), join(OUT, file));

  // Which rank file each encoding needs, from the Python package itself (one source of truth).
  pyodide.unpackArchive(wheelOut, "zip", { extractDir: SITE_PACKAGES });
  const specs = pyodide.runPython(`
import json
from bytepair.openai_encodings import ENCODING_SPECS
from bytepair import __version__, UNICODE_VERSION
json.dumps({"version": __version__, "unicode": UNICODE_VERSION,
            "encodings": {n: s.ranks_file for n, s in ENCODING_SPECS.items()}})`);
  const { version, unicode, encodings } = JSON.parse(specs);
  writeFileSync(join(OUT, SNAPSHOT), await makeSnapshot(loadPyodide, wheelOut));
  const tokenizers = prepareTokenizers(OUT);

  const files = {};
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name !== "manifest.json") {
        const bytes = readFileSync(path);
        files[relative(OUT, path).split("\\").join("/")] = { size: bytes.length, sha256: sha256(bytes) };
      }
    }
  };
  walk(OUT);
  const manifest = {
    bytepair: version,
    pyodide: JSON.parse(readFileSync(join(PYODIDE_DIR, "package.json"), "utf8")).version,
    python: pythonVersion,
    unicode,
    runtime: Object.fromEntries(Object.entries(RUNTIME).map(([k, f]) => [k, `pyodide/${f}`])),
    lock,
    wheel: wheelName,
    snapshot: SNAPSHOT,
    encodings: Object.fromEntries(Object.entries(encodings).map(([n, f]) => [n, { file: `encodings/${f}.bpr` }])),
    tokenizers,
    files,
  };
  writeFileSync(join(OUT, "manifest.json"), JSON.stringify(manifest, null, 1) + "\n");
  const total = Object.values(files).reduce((n, f) => n + f.size, 0);
  const gz = Object.values(tokenizers).map((t) => files[t.file].size).reduce((a, b) => a + b, 0);
  console.log(`dist/tokenizers/: ${Object.keys(tokenizers).length} tokenizer.json files, ${(gz / 1e6).toFixed(1)} MB gzip'd`);
  console.log(`dist/: ${Object.keys(files).length} files, ${(total / 1e6).toFixed(1)} MB; wheel ${statSync(join(OUT, wheelName)).size} bytes (pyc for Python ${pythonVersion})`);
}

await main();
