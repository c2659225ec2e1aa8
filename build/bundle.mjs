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
//   encodings/      the packed rank files (*.bpr, payload stored raw for Brotli to compress), fetched
//                   only for the encodings a page uses
//   tokenizers/     open-model tokenizers (Llama 3, Qwen 2.5 and 3, DeepSeek V3, GPT-2) as
//                   <name>.json.gz: the model's tokenizer.json (fetched, sha256-pinned, by
//                   build/fetch_hf_tokenizers.py), without its indentation, gzip'd at level 9; fetched
//                   only when a page opens that tokenizer (createTokenizer({ tokenizer: name }))
//   snapshot.bin    a Pyodide memory snapshot taken after importing bytepair and compiling every
//                   bundled pattern, so a page skips Python's start-up and our imports; stored as
//                   web/snapshot.mjs describes (XOR'd with the wasm's data segments, zero pages left out)
//   pyodide/python_stdlib.zip  Pyodide's standard library without the parts bytepair never imports
//                   (STDLIB_DROP below), its members stored uncompressed so that HTTP compression
//                   sees across them
//   *.br, *.gz      Brotli and gzip copies of every file that compresses, for servers that answer
//                   Accept-Encoding with them (build/serve.py does; so do most static hosts, given
//                   the files); the manifest lists and hashes the uncompressed files only
//   *.mjs, *.d.ts   the JavaScript API (web/), and bytepair-counter.mjs: the <bytepair-counter>
//                   element (the npm package's `bytepair/counter`), whose assets are its own folder
//   packages/       jinja2 and a pure-Python MarkupSafe (build/chat_wheels.py, sha256-pinned), with
//                   pycs like ours; loaded only when a page first renders a chat template
//   manifest.json   size and sha256 of every file, checked by the loader before use, and Pyodide's
//                   lock file (pyodide-lock.json's content) inline: one request less on the start-up's
//                   critical path. It lists our three wheels only, so Pyodide's loadPackage finds
//                   "bytepair" and "jinja2" (with "markupsafe") here and nothing else by name: never a CDN
//
// The wheel itself is built the standard way (pip wheel): `pyodide build` needs a cross-build
// environment downloaded from pyodide.github.io / GitHub, which this build must not depend on
// (see README, "Browser bundle"). Two pyodide-build commands work offline: `pyodide lockfile
// add-wheels` writes the lock entries (name, version, imports, depends, sha256), run from the build
// venv (.venv-build, Python >= 3.12); `pyodide py-compile` is not used because it compiles with the
// host's Python (3.12/3.13 here), whose pycs Pyodide's 3.14 would not load: our pycs come from
// Pyodide's own interpreter (REPACK below).

import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { parseArgs } from "node:util";
import { brotliCompress, constants as zlibConstants, gzip, gzipSync } from "node:zlib";
import { promisify } from "node:util";
import { encodeSnapshot } from "../web/snapshot.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values: args } = parseArgs({
  options: {
    wheel: { type: "string" },
    out: { type: "string", default: join(ROOT, "dist") },
    "build-venv": { type: "string", default: join(ROOT, ".venv-build") },
  },
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
const WEB_FILES = [
  "bytepair.mjs", "backends.mjs", "pool.mjs", "interrupts.mjs", "errors.mjs", "runtime.mjs", "service.mjs", "worker.mjs", "cli.mjs", "bytepair.d.ts",
  "snapshot.mjs", "stored.mjs", "bytepair-counter.mjs", "embedded.mjs", "workerd.mjs", "workerd.d.ts", "assets.mjs",
  "edge.mjs", "edge-navigator.mjs", "edge.d.ts", "tokenizer.mjs", "training.mjs", "options.mjs", "inputs.mjs", "slots.mjs", "verified.mjs", "threads.mjs",
];
// Open-model tokenizers prepared for createTokenizer({ tokenizer }) and the playground: name -> label.
const TOKENIZERS = {
  llama3: "Llama 3", qwen2_5: "Qwen 2.5", qwen3: "Qwen 3", deepseek_v3: "DeepSeek V3", gpt2: "GPT-2",
  bert_minilm: "BERT · WordPiece (all-MiniLM-L6-v2)", unigram_botchan: "Unigram · SentencePiece (botchan, 1k)",
};

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
    const chat = chatConfig(folders[i]);
    if (chat) {
      out[name].chat = `tokenizers/${name}.chat.json`;
      writeFileSync(join(outDir, out[name].chat), chat);
    }
  });
  return out;
}

/** The part of a model's tokenizer_config.json that its chat template reads (the template, and the
 * token strings: `*_token` keys whose value is a string or {content}, `extra_special_tokens`), or
 * null if it has no template; fetched only when a page first uses chat with that tokenizer. */
function chatConfig(folder) {
  const path = join(folder, "tokenizer_config.json");
  if (!existsSync(path)) return null;
  const config = JSON.parse(readFileSync(path, "utf8"));
  if (config.chat_template === undefined || config.chat_template === null) return null;
  const isToken = (v) => typeof v === "string" || (v !== null && typeof v === "object" && typeof v.content === "string");
  const kept = Object.entries(config).filter(([k, v]) =>
    k === "chat_template" || k === "extra_special_tokens" || (k.endsWith("_token") && isToken(v)));
  return JSON.stringify(Object.fromEntries(kept));
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
                # bytepair's own modules ship as bytecode only, without docstrings (optimize=2), in
                # the legacy place that needs no source beside it: the runtime's memory snapshot,
                # which holds the installed files and the imported modules, is what a cold start
                # downloads. Other wheels (jinja2) keep their sources, and so does the package's
                # __init__.py (with its cached bytecode), by which Pyodide's lock file knows the
                # wheel provides "bytepair".
                ours = name.startswith("bytepair/") and name.endswith(".py") and name != "bytepair/__init__.py"
                if not ours:
                    add(name, data)
                if name.endswith(".py"):
                    source = os.path.join(tmp, "source.py")
                    target = os.path.join(tmp, "compiled.pyc")
                    with open(source, "wb") as f:
                        f.write(data)
                    py_compile.compile(source, cfile=target, dfile=name, doraise=True, optimize=2 if ours else -1,
                                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
                    with open(target, "rb") as f:
                        add(name + "c" if ours else importlib.util.cache_from_source(name), f.read())
        record.append(f"{record_name},,")
        info = zipfile.ZipInfo(record_name, stamp)
        info.external_attr = 0o644 << 16
        dst.writestr(info, "\\n".join(record) + "\\n")
    return out.getvalue(), data_files
`;

/** The wheels Pyodide may load by name, as a lock file: our wheel (already in outDir) and the chat
 * wheels (jinja2, MarkupSafe), re-packed with Pyodide's pycs into outDir/packages/, registered by
 * `pyodide lockfile add-wheels` from the build venv with file names relative to outDir (the runtime
 * gives Pyodide the assets' URL as packageBaseUrl). */
function lockPackages(repack, ourWheel, outDir, buildVenv) {
  const venvPython = join(buildVenv, "bin", "python");
  const cli = join(buildVenv, "bin", "pyodide");
  if (!existsSync(cli)) throw new Error(`${cli} is missing: make creates the build venv (${buildVenv}) with pyodide-build`);
  const fetched = spawnSync(venvPython, [join(ROOT, "build", "chat_wheels.py")], { encoding: "utf8" });
  if (fetched.status !== 0) throw new Error(`build/chat_wheels.py failed: ${fetched.stderr || fetched.error}`);
  mkdirSync(join(outDir, "packages"), { recursive: true });
  const wheels = [ourWheel];
  for (const source of fetched.stdout.trim().split("\n")) {
    const result = repack(new Uint8Array(readFileSync(source)));
    const [bytes] = result.toJs();
    result.destroy();
    const target = join(outDir, "packages", basename(source));
    writeFileSync(target, bytes);
    wheels.push(target);
  }
  const work = join(tmpdir(), `bytepair-lock-${process.pid}`);
  mkdirSync(work, { recursive: true });
  try {
    const input = join(work, "input.json");
    const output = join(work, LOCK);
    const { info } = JSON.parse(readFileSync(join(PYODIDE_DIR, LOCK), "utf8"));
    writeFileSync(input, JSON.stringify({ info, packages: {} }));
    const added = spawnSync(cli, ["lockfile", "add-wheels", "--input", input, "--output", output, "--base-path", outDir, ...wheels],
      { encoding: "utf8" });
    if (added.status !== 0) throw new Error(`pyodide lockfile add-wheels failed: ${added.stderr || added.stdout || added.error}`);
    return JSON.parse(readFileSync(output, "utf8"));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const SITE_PACKAGES = "/lib/python3.14/site-packages";
const SNAPSHOT = "snapshot.bin";

// Run before a snapshot: the interpreter as a page needs it (bytepair imported, every pattern
// compiled), with the caches that only cost bytes in the snapshot emptied.
const PREPARE = `
import gc, linecache, re, sys
import bytepair.web_bridge as bridge
bridge.prepare()
re.purge(); linecache.clearcache(); sys._clear_internal_caches()
gc.collect()
`;

/** An interpreter (from the bundle's own Pyodide folder, `indexURL`) with bytepair unpacked and PREPARE run. */
async function preparedPyodide(loadPyodide, wheel, indexURL, lock) {
  const pyodide = await loadPyodide({
    indexURL,
    lockFileContents: JSON.stringify(lock),
    _makeSnapshot: true,
    stdout: () => {},
    stderr: (m) => console.error(m),
  });
  pyodide.unpackArchive(wheel, "zip", { extractDir: SITE_PACKAGES });
  pyodide.runPython(PREPARE);
  return pyodide;
}

/** The standard library's files (zip member names) of the modules a prepared interpreter has
 * imported: a snapshot holds those modules already, so a page never reads them from the zip. */
function importedStdlib(pyodide) {
  return pyodide.runPython(`
import json, sys
prefix = "/lib/python314.zip/"
json.dumps(sorted(f.removeprefix(prefix) for m in list(sys.modules.values())
                  if isinstance(f := getattr(m, "__file__", None), str) and f.startswith(prefix)))`);
}

/** A prepared interpreter as a memory snapshot in web/snapshot.mjs's stored form. The unused part
 * of the stack (below the stack pointer) is zeroed first: it holds only dead frames, which would
 * cost bytes in the snapshot. */
function makeSnapshot(pyodide, wasm) {
  const m = pyodide._module;
  m.HEAPU8.fill(0, m._emscripten_stack_get_end(), m._emscripten_stack_get_current() - 256);
  scrubFreeMemory(m);
  return encodeSnapshot(pyodide.makeMemorySnapshot(), wasm);
}

/** Zero the C heap's free chunks: they hold the bytes of objects freed during start-up, which cost
 * as much in the snapshot as live ones. calloc() zeroes what it hands out, so: take every free
 * chunk (largest requests first, never growing the heap), then give them all back (free() writes
 * only a chunk header). Returns the bytes zeroed. */
function scrubFreeMemory(m) {
  const info = m._malloc(64);
  const stat = (field) => (m._mallinfo(info), m.HEAPU32[(info >>> 2) + field]);
  const ARENA = 0, FREE = 8;
  const taken = [];
  let zeroed = 0;
  for (let size = 1 << 20; size >= 16; size >>= 1) {
    for (;;) {
      if (stat(FREE) < size) break;
      const arena = stat(ARENA);
      const memory = m.HEAP8.length;
      const block = m._calloc(size, 1);
      if (!block) break;
      if (stat(ARENA) !== arena || m.HEAP8.length !== memory) { // the heap grew: no free chunk of this size is left
        m._free(block);
        break;
      }
      taken.push(block);
      zeroed += size;
    }
  }
  for (const block of taken) m._free(block);
  m._free(info);
  return zeroed;
}

// The standard library's parts that neither bytepair, nor jinja2 and markupsafe (chat templates),
// nor Pyodide's own start-up and package loading import. Top-level names: a package or a module.
// tests/web/test_web_startup.py runs bytepair's web paths (encodings, tokenizer.json, chat, the CLI in
// Node) on the trimmed library, and checks that none of these is in sys.modules.
const STDLIB_DROP = [
  "__phello__", "_pyrepl", "ctypes", "curses", "dbm", "ensurepip", "http", "idlelib", "lib2to3",
  "multiprocessing", "pydoc_data", "sqlite3", "tkinter", "tomllib", "turtledemo", "unittest", "venv",
  "wsgiref", "xml", "xmlrpc", "zoneinfo",
  "_pydatetime", "_pyio", "antigravity", "bdb", "cmd", "colorsys", "compileall", "configparser", "cProfile",
  "doctest", "filecmp", "fileinput", "ftplib", "getpass", "imaplib", "mailbox", "modulefinder", "netrc", "nntplib",
  "optparse", "pdb", "pickletools", "plistlib", "poplib", "profile", "pstats", "pty", "pyclbr", "pydoc", "quopri",
  "rlcompleter", "sched", "shelve", "smtplib", "socketserver", "statistics", "symtable", "tabnanny", "this",
  "timeit", "trace", "tty", "turtle", "wave", "webbrowser", "zipapp",
];
// Of the codecs (encodings/*: 1.4 MB, mostly single-byte code pages), the ones kept: Unicode's, ASCII,
// Latin-1, the escapes, cp437 (zipfile's default for names) and cp1252 (the analysis's mojibake check).
const CODECS_KEPT = [
  "__init__", "aliases", "ascii", "base64_codec", "charmap", "cp437", "cp1252", "hex_codec", "idna", "latin_1", "punycode",
  "raw_unicode_escape", "undefined", "unicode_escape", "utf_16", "utf_16_be", "utf_16_le", "utf_32",
  "utf_32_be", "utf_32_le", "utf_7", "utf_8", "utf_8_sig",
];
const TRIM = `
import io, struct, zipfile, zlib

def member(data, info):
    # Read a member without zipfile's CRC check: a few of Pyodide's members carry a stale CRC
    # (zipimport never checks it); the copy written gets a correct one.
    name_len, extra_len = struct.unpack_from("<HH", data, info.header_offset + 26)
    start = info.header_offset + 30 + name_len + extra_len
    raw = data[start:start + info.compress_size]
    if info.compress_type == zipfile.ZIP_DEFLATED:
        return zlib.decompress(raw, -15)
    assert info.compress_type == zipfile.ZIP_STORED, info
    return raw

def trim(data, drop, codecs, imported):
    drop, codecs, imported = set(drop), set(codecs), set(imported)
    data = data.to_bytes()
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    dropped = []
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            parts = info.filename.split("/")
            top = parts[0].removesuffix(".pyc").removesuffix(".py")
            codec = parts[0] == "encodings" and len(parts) == 2 and parts[1] and \
                parts[1].split(".")[0] not in codecs
            if top in drop or codec or info.filename in imported:
                dropped.append(info.filename)
                continue
            content = member(data, info)
            info.compress_type = zipfile.ZIP_STORED
            dst.writestr(info, content)
    kept = sum(1 for info in src.infolist() if not info.is_dir() and info.filename not in set(dropped))
    return out.getvalue(), len(dropped), kept
`;

/** Pyodide's python_stdlib.zip without STDLIB_DROP, the unused codecs and the files in `imported`
 * (see importedStdlib), members stored. */
function trimStdlib(pyodide, zipBytes, imported = []) {
  pyodide.runPython(TRIM);
  const result = pyodide.globals.get("trim")(zipBytes, STDLIB_DROP, CODECS_KEPT, imported);
  const [trimmed, dropped, kept] = result.toJs();
  result.destroy();
  return { trimmed, dropped, kept };
}

/** Brotli (quality 11) and gzip (level 9) copies beside every file in `files` that they shrink by
 * more than 5%, made in parallel and cached in build/cache/compressed by content hash (Brotli at
 * quality 11 takes a minute for the wasm). Returns { path: { br, gz } } compressed sizes. */
async function precompress(outDir, files) {
  const cache = join(ROOT, "build", "cache", "compressed");
  mkdirSync(cache, { recursive: true });
  const makers = {
    br: (bytes) => promisify(brotliCompress)(bytes, {
      params: {
        [zlibConstants.BROTLI_PARAM_QUALITY]: 11,
        [zlibConstants.BROTLI_PARAM_LGWIN]: 24,
        [zlibConstants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }),
    gz: (bytes) => promisify(gzip)(bytes, { level: 9 }),
  };
  const sizes = {};
  await Promise.all(Object.entries(files).flatMap(([path, { sha256: digest, size }]) => {
    if (/\.(gz|br|whl)$/.test(path)) return [];
    return Object.entries(makers).map(async ([kind, make]) => {
      const cached = join(cache, `${digest}.${kind}`);
      let bytes;
      if (existsSync(cached)) bytes = readFileSync(cached);
      else {
        bytes = await make(readFileSync(join(outDir, path)));
        writeFileSync(cached, bytes);
      }
      if (bytes.length < size * 0.95) {
        writeFileSync(join(outDir, `${path}.${kind}`), bytes);
        (sizes[path] ??= {})[kind] = bytes.length;
      }
    });
  }));
  return sizes;
}

/** Write the trimmed standard library and the snapshot that goes with it. The interpreter starts on
 * the zip trimmed of STDLIB_DROP and is prepared; then the files of the modules it has imported
 * leave the zip too (the snapshot holds those modules), the final zip replaces the first in its
 * file system, and zipimport re-reads the zip's index (which the snapshot keeps) before the
 * snapshot is taken. The file system is not part of a snapshot: the runtime mounts the final zip. */
async function writeStdlibAndSnapshot(pyodide, loadPyodide, wheel, lock) {
  const indexURL = join(OUT, "pyodide") + "/";
  const original = new Uint8Array(readFileSync(join(PYODIDE_DIR, RUNTIME.stdlib)));
  writeFileSync(join(OUT, "pyodide", RUNTIME.stdlib), trimStdlib(pyodide, original).trimmed);
  const prepared = await preparedPyodide(loadPyodide, wheel, indexURL, lock);
  const final = trimStdlib(pyodide, original, JSON.parse(importedStdlib(prepared)));
  writeFileSync(join(OUT, "pyodide", RUNTIME.stdlib), final.trimmed);
  prepared.FS.writeFile("/lib/python314.zip", final.trimmed);
  const members = prepared.runPython(`
import gc, sys, zipimport
for finder in list(sys.path_importer_cache.values()):
    if isinstance(finder, zipimport.zipimporter):
        finder.invalidate_caches()  # forgets the index; the next look-up reads the final zip's
sys.path_importer_cache["/lib/python314.zip"].find_spec("bytepair_no_such_module")
gc.collect()
sum(1 for name in zipimport._zip_directory_cache["/lib/python314.zip"] if not name.endswith("/"))`);
  if (members !== final.kept) throw new Error(`zipimport sees ${members} files in the final zip, not ${final.kept}`);
  writeFileSync(join(OUT, SNAPSHOT), makeSnapshot(prepared, readFileSync(join(indexURL, RUNTIME.wasm))));
  return final;
}

function sha256(bytes) {
  return createHash("sha256").update(bytes).digest("hex");
}

const STARTED = Date.now();
/** One line per step, so a build that takes minutes shows where it is (stdout; the summary comes last). */
function step(what) {
  console.log(`bundle [${((Date.now() - STARTED) / 1000).toFixed(1).padStart(6)} s] ${what}`);
}

async function main() {
  step("starting Pyodide (node_modules/pyodide) to repack the wheel");
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
  step(`wheel repacked with bytecode for Python ${pythonVersion}: ${wheelName}`);
  writeFileSync(join(OUT, wheelName), wheelOut);
  for (const file of Object.values(RUNTIME)) copyFileSync(join(PYODIDE_DIR, file), join(OUT, "pyodide", file));
  step("writing pyodide-lock.json (pyodide-build, with the chat template's jinja2 and MarkupSafe wheels)");
  const lock = lockPackages(pyodide.globals.get("repack"), join(OUT, wheelName), OUT, args["build-venv"]);
  for (const file of WEB_FILES) copyFileSync(join(ROOT, "web", file), join(OUT, file));

  // Which rank file each encoding needs, from the Python package itself (one source of truth).
  pyodide.unpackArchive(wheelOut, "zip", { extractDir: SITE_PACKAGES });
  // The rank files go with their payload as it is: the server's Brotli copy of that is smaller than
  // the package's zlib payload (packed_ranks.with_raw_payload; o200k 762 kB against 971 kB).
  const withRawPayload = pyodide.runPython("from bytepair.formats.packed_ranks import with_raw_payload\nlambda data: with_raw_payload(data.to_bytes())");
  for (const [name, bytes] of Object.entries(dataFiles)) {
    const raw = withRawPayload(bytes);
    writeFileSync(join(OUT, "encodings", name), raw.toJs());
    raw.destroy();
  }
  withRawPayload.destroy();
  const specs = pyodide.runPython(`
import json
from bytepair.data.openai import ENCODING_SPECS
from bytepair import __version__, UNICODE_VERSION
json.dumps({"version": __version__, "unicode": UNICODE_VERSION,
            "encodings": {n: s.ranks_file for n, s in ENCODING_SPECS.items()}})`);
  const { version, unicode, encodings } = JSON.parse(specs);
  step(`rank files written (${Object.keys(dataFiles).length}); preparing an interpreter and taking its memory snapshot (the longest step)`);
  const { trimmed, dropped } = await writeStdlibAndSnapshot(pyodide, loadPyodide, wheelOut, lock);
  step("snapshot written; packing the open-model tokenizer.json files");
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
  const manifestBytes = readFileSync(join(OUT, "manifest.json"));
  step(`manifest written (${Object.keys(files).length} files); compressing each with Brotli and gzip (cached in build/cache)`);
  const compressed = await precompress(OUT, { ...files, "manifest.json": { size: manifestBytes.length, sha256: sha256(manifestBytes) } });
  step("done");
  const start = [...Object.values(manifest.runtime), SNAPSHOT, manifest.encodings.o200k_base.file, "manifest.json"];
  const startBytes = (kind) => start.reduce((n, p) => n + (compressed[p]?.[kind] ?? (files[p] ?? { size: manifestBytes.length }).size), 0);
  console.log(`dist/pyodide/${RUNTIME.stdlib}: ${dropped} members dropped, ${trimmed.length} bytes stored`);
  console.log(`a cold o200k start fetches ${(startBytes("none") / 1e6).toFixed(1)} MB, ${(startBytes("gz") / 1e6).toFixed(1)} MB gzip'd, ${(startBytes("br") / 1e6).toFixed(1)} MB with Brotli`);
  const total = Object.values(files).reduce((n, f) => n + f.size, 0);
  const gz = Object.values(tokenizers).map((t) => files[t.file].size).reduce((a, b) => a + b, 0);
  console.log(`dist/tokenizers/: ${Object.keys(tokenizers).length} tokenizer.json files, ${(gz / 1e6).toFixed(1)} MB gzip'd`);
  console.log(`dist/: ${Object.keys(files).length} files, ${(total / 1e6).toFixed(1)} MB; wheel ${statSync(join(OUT, wheelName)).size} bytes (pyc for Python ${pythonVersion})`);
}

await main();
