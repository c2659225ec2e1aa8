// The Pyodide runtime with bytepair installed, in the current JavaScript realm: a module Web Worker
// in browsers, the calling thread under Node. Glue only: every tokenizer decision is made by the
// Python package `bytepair` (its module `bytepair.web_bridge` is the boundary).
//
// Loading: read manifest.json, fetch every asset the start needs (Pyodide's wasm, stdlib zip and
// modules, the memory snapshot that already holds bytepair imported, the first encoding's ranks)
// with byte-level progress and check each one's size and sha256 against the manifest; nothing runs
// before every check has passed. In browsers a fetch shim hands Pyodide the verified wasm and stdlib
// and refuses any other origin, so nothing comes from a CDN; packages load by name only from the
// bundle's own lock file (jinja2 when chat is first used: loadPackages).
//
// Warm starts: once a page has built its first encoding, the worker takes a memory snapshot of the
// whole runtime (Python started, bytepair imported, that encoding's ranks built) and keeps it in the
// origin private file system (under Node, Deno and Bun: the user's cache folder; see stored.mjs),
// so the next start restores it instead of the shipped snapshot and skips both the ranks' download
// and their build. In browsers the wasm module is kept there too: reading it back from the HTTP
// cache costs more than compiling it anew.
//
// Progress: { loaded, total, phase } with phase "fetching" while bytes arrive, then "compiling"
// (the wasm module), "starting" (Python, from a snapshot), "ranks" (building the first encoding or
// tokenizer) and "ready".

/** Whether Pyodide takes its Node path here (it reads files with node:fs and compiles the wasm
 * itself): its own test, mirrored (Node, Deno and Bun all pass it). Not a choice of ours: where
 * workers and folders come from is found by capability (backends.mjs, stored.mjs). */
const IS_NODE = typeof process === "object" && typeof process.versions?.node === "string" && !process.browser &&
  typeof globalThis.WorkerGlobalScope === "undefined" && typeof globalThis.window === "undefined";

import { EMBEDDED } from "./embedded.mjs";
import { errorFrom, readAdvice } from "./errors.mjs";
import { beginCall, endCall, interruptBuffer } from "./interrupts.mjs";
import { encodeSnapshot, restoreInto, snapshotHeader } from "./snapshot.mjs";
import { RuntimeSnapshots, snapshotFolder } from "./stored.mjs";

const DATA_DIR = "/bytepair-data";

/** import() of a Node built-in ("node:fs/promises"), called only under Node. The name is passed, not
 * written in the import(), so that bundlers for the browser (esbuild, webpack, Vite) do not try to
 * resolve it: they fail on node: specifiers otherwise. (bytepair.mjs has the same one-liner: the
 * page's thread never loads this module.) */
export const nodeModule = (name) => import(/* webpackIgnore: true */ /* @vite-ignore */ name);

/** An error of the class `name` names (see errors.mjs). */
function bpError(name, message, token = undefined) {
  return errorFrom({ name, message, token });
}

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function sha256(bytes) {
  const subtle = globalThis.crypto?.subtle ?? (await nodeModule("node:crypto")).webcrypto.subtle;
  return hex(await subtle.digest("SHA-256", bytes));
}

/** A local asset's bytes. The npm package ships some assets in one form only (build/pack.mjs):
 * the memory snapshot as `X.br` alone (a host serving the package over HTTP runs `npx
 * bytepair-assets`, which writes the plain file back), and the open-model tokenizers and the GPT-3
 * encodings' ranks in the optional package bytepair-tokenizers: each is looked for there when
 * `file` is not found. */
async function readLocal(readFile, file, path) {
  try {
    return new Uint8Array(await readFile(file));
  } catch (err) {
    if (err?.code !== "ENOENT") throw err;
    const packed = await readFile(`${file}.br`).catch(() => null);
    if (packed) {
      const { brotliDecompress } = await nodeModule("node:zlib");
      const bytes = await new Promise((resolve, reject) => brotliDecompress(packed, (e, out) => (e ? reject(e) : resolve(out))));
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    }
    const optional = /^(tokenizers|encodings)\//.test(path);
    const extra = optional ? await optionalTokenizers() : null;
    if (!extra) {
      if (optional) {
        err.message += "; the open-model tokenizers and the GPT-3 encodings (p50k_base, r50k_base) come in the optional " +
          "package bytepair-tokenizers: `npm install bytepair-tokenizers` (make pack builds it), or pass tokenizerJson";
      }
      throw err;
    }
    const { join } = await nodeModule("node:path");
    return new Uint8Array(await readFile(join(extra, path)));
  }
}

/** The folder of the optional package bytepair-tokenizers, resolved from this module; null if it is
 * not installed (or this runtime cannot resolve packages). */
async function optionalTokenizers() {
  try {
    const { fileURLToPath } = await nodeModule("node:url");
    const { dirname } = await nodeModule("node:path");
    return dirname(fileURLToPath(import.meta.resolve("bytepair-tokenizers/package.json")));
  } catch {
    return null;
  }
}

/** Reads assets relative to `base` (a URL string), reporting bytes as they arrive. */
class AssetReader {
  constructor(base) {
    this.base = base.endsWith("/") ? base : base + "/";
  }

  url(path) {
    return new URL(path, this.base).href;
  }

  /** The bytes of `path`. With `keep` (the wasm module), WebAssembly starts compiling an untouched
   * copy of the HTTP response as it arrives, into `keep.compiled` (a promise of the module, null if
   * it cannot): compiling by URL lets the browser cache the code, and it overlaps the download and
   * the check. The module is only instantiated once the bytes have passed their check. */
  async read(path, onBytes = () => {}, keep = null, onWire = () => {}) {
    const url = this.url(path);
    if (url.startsWith("file:")) {
      const { readFile } = await nodeModule("node:fs/promises");
      const { fileURLToPath } = await nodeModule("node:url");
      let bytes;
      try {
        bytes = await readLocal(readFile, fileURLToPath(url), path);
      } catch (err) {
        const advice = readAdvice(err, "Pass assetsUrl where bytepair's dist/ is served, or build it with `make bundle`");
        throw bpError("AssetError", `cannot read ${path} from ${this.base}: ${err.message}. ${advice}.`);
      }
      onWire(null);
      onBytes(bytes.length);
      return bytes;
    }
    // The manifest is the first file read: failing there most often means a wrong assetsUrl.
    const advice = path === "manifest.json" ? "; pass assetsUrl where bytepair's dist/ is served" : "";
    let response;
    try {
      response = await (EMBEDDED.fetch ?? fetch)(url);
    } catch (err) {
      throw bpError("AssetError", `cannot fetch ${url}: ${err.message}${advice}`);
    }
    // What the wire carries: a server sending a precompressed copy says its length (Content-Length
    // counts the encoded body), and the bytes read here are the decoded ones.
    const encoded = response.headers.get("content-encoding");
    const length = Number(response.headers.get("content-length"));
    if (response.ok) onWire(encoded && encoded !== "identity" && length > 0 ? length : null);
    if (!response.ok) {
      const prepare = response.status === 404 && path !== "manifest.json"
        ? "; the npm package's dist/ is served once prepared: `npx bytepair-assets OUT_DIR` writes the files it ships " +
          "compressed (and bytepair-tokenizers' files, if installed) into OUT_DIR, to serve as assetsUrl"
        : "";
      throw bpError("AssetError", `cannot fetch ${url}: HTTP ${response.status}${advice}${prepare}`);
    }
    if (keep) {
      const untouched = response;
      response = response.clone();
      keep.compiled = typeof WebAssembly.compileStreaming === "function"
        ? WebAssembly.compileStreaming(untouched).catch(() => null) // e.g. a host that does not send application/wasm
        : Promise.resolve(null);
    }
    if (!response.body) {
      const bytes = new Uint8Array(await response.arrayBuffer());
      onBytes(bytes.length);
      return bytes;
    }
    const chunks = [];
    let size = 0;
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
      onBytes(value.length);
    }
    const bytes = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.length;
    }
    return bytes;
  }
}

/** Loads assets listed in the manifest, verified, with one progress count across all of them. */
class VerifiedLoader {
  constructor(reader, manifest, onProgress) {
    this.reader = reader;
    this.manifest = manifest;
    this.onProgress = onProgress;
    this.loaded = 0;
    this.total = 0;
    this.expected = new Set();
    this.fileTimings = {}; // path -> { fetchMs, checkMs }, for the benchmark page
    this.wire = new Map(); // path -> bytes on the wire (null: as decoded), once its response began
    this.fileLoaded = new Map(); // path -> decoded bytes read so far
  }

  entry(path) {
    const entry = this.manifest.files[path];
    if (!entry) throw bpError("AssetError", `${path} is not in manifest.json; rebuild with \`make bundle\``);
    return entry;
  }

  /** Announce files before fetching them, so the total is known up front. */
  expect(paths) {
    for (const path of paths) {
      if (this.expected.has(path)) continue;
      this.expected.add(path);
      this.total += this.entry(path).size;
    }
    this.report();
  }

  /** Progress in decoded bytes (`loaded`, `total`: what is checked against the manifest) and on the
   * wire (`wireLoaded`, `wireTotal`: a compressed copy counted at its own length once its headers
   * arrive, each file's share of it by the decoded bytes read; `wireKnown` once every file's have). */
  report(phase = "fetching") {
    this.phase = phase;
    if (!this.onProgress) return;
    let wireLoaded = 0;
    let wireTotal = 0;
    let wireKnown = this.announced === true;
    for (const path of this.expected) {
      const size = this.entry(path).size;
      const wire = this.wire.get(path) ?? size;
      if (!this.wire.has(path)) wireKnown = false;
      wireTotal += wire;
      wireLoaded += Math.round(((this.fileLoaded.get(path) ?? 0) * wire) / size);
    }
    this.onProgress({ loaded: this.loaded, total: this.total, phase, wireLoaded, wireTotal, wireKnown });
  }

  async load(path, keep = null) {
    const entry = this.entry(path);
    const t0 = performance.now();
    const bytes = await this.reader.read(path, (n) => {
      this.loaded += n;
      this.fileLoaded.set(path, (this.fileLoaded.get(path) ?? 0) + n);
      this.report();
    }, keep, (wire) => {
      this.wire.set(path, wire);
      this.report();
    });
    const t1 = performance.now();
    const digest = await sha256(bytes);
    this.fileTimings[path] = { fetchMs: t1 - t0, checkMs: performance.now() - t1 };
    if (bytes.length !== entry.size || digest !== entry.sha256) {
      throw bpError(
        "IntegrityError",
        `${path} failed its integrity check (expected ${entry.size} bytes with sha256 ${entry.sha256}, ` +
          `got ${bytes.length} bytes with sha256 ${digest}); the file is corrupt or stale: rebuild or redeploy the assets`,
      );
    }
    return bytes;
  }
}

const MIME = { ".wasm": "application/wasm", ".json": "application/json", ".zip": "application/zip", ".mjs": "text/javascript" };

/** In browsers: answer Pyodide's fetches of verified assets ({ bytes }, and a response to give
 * the first ask) from memory; refuse every origin but the assets' own (which is not the worker's
 * when the page started it from a blob: URL to embed a bundle served elsewhere). */
function installFetchShim(served, assetsBase) {
  const realFetch = globalThis.fetch.bind(globalThis);
  const allowed = new URL(assetsBase).origin;
  globalThis.fetch = async (input, init) => {
    const raw = input instanceof URL ? input.href : typeof input === "string" ? input : input.url;
    const url = new URL(raw, assetsBase).href;
    const { response, bytes: asset } = served.get(url) ?? {};
    if (response) {
      served.set(url, { bytes: asset }); // a body can be read once; later asks get the bytes
      return response;
    }
    if (asset) {
      const type = MIME[url.slice(url.lastIndexOf("."))] ?? "application/octet-stream";
      return new Response(asset, { headers: { "Content-Type": type } });
    }
    if (new URL(url).origin !== allowed) {
      throw bpError("AssetError", `bytepair never fetches from another origin (asked for ${url})`);
    }
    return (EMBEDDED.fetch ?? realFetch)(input, init);
  };
}

/** In browsers: Pyodide instantiates its wasm module from the response of its fetch, which the
 * fetch shim answers with `wasmResponse`; instantiate that one from the module already compiling
 * (`wasm.compiled`: from the kept copy if `wasm.how` is "kept", else while it downloaded, see
 * AssetReader.read), or from the verified bytes where that failed (a host that does not send
 * application/wasm); `mark` notes which. */
function installWasmShim(wasmResponse, wasm, wasmBytes, mark) {
  const realInstantiateStreaming = WebAssembly.instantiateStreaming?.bind(WebAssembly);
  WebAssembly.instantiateStreaming = async (source, imports) => {
    const response = await source;
    if (response !== wasmResponse) return realInstantiateStreaming(response, imports);
    let module = await wasm.compiled;
    const how = { kept: "wasm: kept copy compiled", embedded: "wasm: embedded module" }[wasm.how] ?? "wasm: compiled while fetched";
    mark(module ? how : "wasm: compiled from bytes");
    module ??= await WebAssembly.compile(wasmBytes);
    return { module, instance: await WebAssembly.instantiate(module, imports) };
  };
}

/** Under Node, Deno and Bun: Pyodide reads pyodide.asm.wasm from disk itself and instantiates the
 * bytes with WebAssembly.instantiate; for its next such call (the main module, made while `boot`
 * waits for it), use the module compiled from the verified bytes (`wasm.compiled`) instead, if it
 * compiled. Returns the function that puts WebAssembly.instantiate back (side modules are Pyodide's). */
function installHostWasmShim(wasm, size, mark) {
  const realInstantiate = WebAssembly.instantiate;
  const restore = () => {
    if (WebAssembly.instantiate === shim) WebAssembly.instantiate = realInstantiate;
  };
  const shim = async (source, imports) => {
    restore();
    const module = source instanceof WebAssembly.Module || source?.byteLength !== size ? null : await wasm.compiled;
    if (!module) return realInstantiate.call(WebAssembly, source, imports);
    mark("wasm: compiled before the start");
    return { module, instance: await realInstantiate.call(WebAssembly, module, imports) };
  };
  WebAssembly.instantiate = shim;
  return restore;
}

/** Import one of Pyodide's ES modules by its URL, so that V8 can reuse the code it compiled last
 * time (compiling the 1.2 MB module afresh costs a quarter of a second), while its bytes are
 * fetched and checked in parallel; the module is used only if the check passes. */
async function importVerified(reader, path, bytes) {
  const [module] = await Promise.all([import(reader.url(path)), bytes[path]]);
  return module;
}

/** Pyodide's two modules: imported by URL (verified), or as embedded (see embedded.mjs: part of
 * the script itself there, so there are no bytes to check). */
function pyodideModules(reader, files, bytes) {
  if (EMBEDDED.asm && EMBEDDED.loader) return Promise.resolve([EMBEDDED.asm, EMBEDDED.loader]);
  return Promise.all([importVerified(reader, files.module, bytes), importVerified(reader, files.loader, bytes)]);
}

export class Runtime {
  /** Start Pyodide with bytepair; `firstEncoding`'s ranks are fetched in the same progress count.
   *
   * The steps overlap: every asset is fetched at once, the origin's stored runtime snapshot (if
   * any) is read and checked meanwhile, and Pyodide's JavaScript is imported meanwhile; Pyodide
   * starts when all of that is done. With a stored runtime snapshot neither the shipped snapshot
   * nor the ranks built in it are fetched; if restoring it fails, the start falls back to them. */
  static async load({ assetsUrl, onProgress, firstEncoding, firstTokenizer, control }) {
    const started = performance.now();
    const mark = (name) => (timings[name] = performance.now() - started);
    const timings = {};
    const reader = new AssetReader(assetsUrl);
    const manifestBytes = await reader.read("manifest.json");
    const manifest = JSON.parse(new TextDecoder().decode(manifestBytes));
    const loader = new VerifiedLoader(reader, manifest, onProgress);
    const files = manifest.runtime;
    const embeddedModules = EMBEDDED.asm && EMBEDDED.loader ? [files.module, files.loader] : [];
    const others = Object.values(files).filter((p) => p !== files.wasm && !embeddedModules.includes(p));
    loader.expect(others);
    const bytes = Object.fromEntries(others.map((p) => [p, loader.load(p)]));
    const modules = pyodideModules(reader, files, bytes);

    // The wasm module: the copy kept beside a stored runtime snapshot if there is a sound one, else
    // fetched, compiling as it downloads. Why keep a copy: on a warm page the HTTP cache takes
    // 100-250 ms to hand the 9.6 MB back (Brotli-decoded on every read) and Chromium's streaming
    // compile hashes it again; an OPFS read takes a few ms and compiling the bytes ~50 ms. The kept
    // copy misses V8's code cache (functions compile lazily as they first run, ~60 ms more after
    // instantiation), and still the warm start was 0.87x as long (measured over 10 rounds of warm starts).
    const key = await sha256(manifestBytes);
    const folder = await snapshotFolder(IS_NODE);
    const stash = await RuntimeSnapshots.meta(folder, key);
    const wasm = {};
    const kept = await RuntimeSnapshots.wasm(folder, key, loader.entry(files.wasm), stash);
    if (kept) {
      wasm.compiled = WebAssembly.compile(kept).catch(() => null);
      wasm.how = "kept";
      bytes[files.wasm] = Promise.resolve(kept);
    } else if (EMBEDDED.wasm) { // compiled already; its bytes are still read: the shipped snapshot is stored against them
      wasm.compiled = Promise.resolve(EMBEDDED.wasm);
      wasm.how = "embedded";
      loader.expect([files.wasm]);
      bytes[files.wasm] = loader.load(files.wasm);
    } else {
      loader.expect([files.wasm]);
      bytes[files.wasm] = loader.load(files.wasm, wasm);
      if (IS_NODE && reader.base.startsWith("file:")) {
        // From disk (Node, Deno, Bun): compiled as soon as the bytes pass their check, in V8's
        // background threads while the stored snapshot is read and checked, instead of by Pyodide
        // when it starts (which reads the file again itself); installHostWasmShim hands it over.
        wasm.compiled = bytes[files.wasm].then((b) => WebAssembly.compile(b)).then((module) => {
          mark("wasm: compiled");
          return module;
        }, () => null);
        wasm.how = "early";
      }
    }

    // The origin's own snapshot of a started runtime, if a page of this bundle stored one.
    const warm = await RuntimeSnapshots.get(folder, key, stash);
    mark(warm ? "runtime snapshot: hit" : "runtime snapshot: miss");
    const built = new Set(warm ? stash.encodings : []);
    const firstData = (firstEncoding && !built.has(firstEncoding) && manifest.encodings[firstEncoding]?.file) ||
      (firstTokenizer && manifest.tokenizers?.[firstTokenizer]?.file);
    const prefetched = new Map();
    if (firstData) {
      loader.expect([firstData]);
      prefetched.set(firstData, loader.load(firstData));
      prefetched.get(firstData).catch(() => {}); // reported when used
    }
    const shipped = () => {
      loader.expect([manifest.snapshot]);
      bytes[manifest.snapshot] ??= loader.load(manifest.snapshot);
      return bytes[manifest.snapshot];
    };
    if (!warm) shipped();
    loader.announced = true; // every file of the start is expected: the wire's total can be known
    loader.report();

    const [asm, { loadPyodide }] = await modules;
    mark("modules");
    const [wasmBytes, stdlib] = await Promise.all([bytes[files.wasm], bytes[files.stdlib]]);
    await Promise.all(Object.values(bytes)); // every check passed before anything runs
    mark("fetched");

    const indexURL = reader.url(files.wasm.slice(0, files.wasm.lastIndexOf("/") + 1));
    let served = null;
    if (!IS_NODE) {
      // Pyodide fetches the wasm and the stdlib itself: hand it the verified copies, the wasm as
      // a response that installWasmShim knows (the module is compiled already).
      const wasmResponse = new Response(wasmBytes, { headers: { "Content-Type": MIME[".wasm"] } });
      served = new Map([
        [reader.url(files.wasm), { response: wasmResponse, bytes: wasmBytes }],
        [reader.url(files.stdlib), { bytes: stdlib }],
      ]);
      installFetchShim(served, reader.base);
      installWasmShim(wasmResponse, wasm, wasmBytes, mark);
    }
    // Pyodide restores a snapshot by copying it into the memory the wasm module starts with (30 MiB,
    // grown here first for a snapshot of a runtime with its ranks built); instead, boot hands it
    // only the snapshot's header and restores the memory itself, page by page from the stored form
    // (web/snapshot.mjs's restoreInto: no buffer of the whole snapshot, one copy instead of two).
    const boot = async (stored, makeSnapshots) => {
      const head = snapshotHeader(stored);
      if (!head) throw bpError("AssetError", "the memory snapshot is not in bytepair's format; rebuild with `make bundle`");
      loader.report("compiling");
      const options = {
        indexURL: IS_NODE ? (await nodeModule("node:url")).fileURLToPath(indexURL) + "/" : indexURL,
        lockFileContents: JSON.stringify(manifest.lock), // lists the bundle's own wheels only: never a CDN
        // The lock's file names are relative to the assets (loadPackages checks each file first).
        packageBaseUrl: IS_NODE && reader.base.startsWith("file:") ? (await nodeModule("node:url")).fileURLToPath(reader.base) : reader.base,
        _loadSnapshot: head.header,
        _makeSnapshot: makeSnapshots,
        fsInit: async () => loader.report("starting"), // the wasm module is compiled by now
        stdout: () => {},
        stderr: (msg) => console.warn("[bytepair/python]", msg),
      };
      options.createPyodideModule = async (moduleArg) => {
        const restore = wasm.how === "early" ? installHostWasmShim(wasm, wasmBytes.length, mark) : () => {};
        let module;
        try {
          module = await asm.default(moduleArg);
        } finally {
          restore();
        }
        const touched = module.HEAP8.length;
        if (touched < head.memoryLength && !module._emscripten_resize_heap(head.memoryLength)) {
          throw bpError("AssetError", `cannot grow WebAssembly memory to ${head.memoryLength} bytes for the snapshot`);
        }
        restoreInto(stored, wasmBytes, module.HEAPU8, touched);
        mark("snapshot");
        return module;
      };
      return loadPyodide(options);
    };

    // Snapshots of this runtime can be stored only where the folder for them exists.
    const canStore = folder !== null;
    const runtime = new Runtime(manifest, loader, timings, prefetched);
    runtime.served = served; // loadPackages hands Pyodide verified wheels through it
    if (warm) {
      try {
        runtime.pyodide = await boot(warm, false);
        for (const name of built) runtime.encodings.set(name, Promise.resolve(name));
      } catch (err) {
        mark("runtime snapshot: failed");
        await RuntimeSnapshots.forget(folder, key);
        runtime.pyodide = null;
      }
    }
    if (!runtime.pyodide) {
      runtime.pyodide = await boot(await shipped(), canStore);
      if (canStore) runtime.snapshotKey = key; // take one once the first encoding is built
      runtime.snapshotFolder = folder;
    }
    runtime.pyodide.FS.mkdirTree(DATA_DIR);
    if (control) {
      runtime.pyodide.setInterruptBuffer(interruptBuffer(control));
      runtime.control = control; // shared with the caller's thread, which interrupts calls through it (interrupts.mjs)
    }
    const bridge = runtime.pyodide.pyimport("bytepair.web_bridge");
    runtime.dispatch = bridge.dispatch.copy(); // one proxy, kept: looking it up per call would make one each time
    bridge.destroy();
    runtime.call("use_verified_data_dir", DATA_DIR); // ensureEncoding checks every file it writes there
    runtime.wasmModule = wasmBytes; // the verified pyodide.asm.wasm, which snapshots are stored against
    mark("started");
    return runtime;
  }

  constructor(manifest, loader, timings, prefetched) {
    this.manifest = manifest;
    this.loader = loader;
    this.prefetched = prefetched; // data file -> Promise<bytes> started during load()
    this.encodings = new Map(); // name -> Promise that resolves once its ranks are in place
    this.timings = timings; // milliseconds since load() began, for the benchmark page
    this.snapshotKey = null; // set when a snapshot of this runtime should be stored
    this.snapshotStored = Promise.resolve(-1); // see storeSnapshot
  }

  /** Store a snapshot of this runtime, fully started, for the origin's next page (see
   * RuntimeSnapshots): once, right after the first encoding is built, before any text has been
   * encoded. The memory is copied at once; encoding, hashing and writing it follow, and
   * `snapshotStored` resolves when they are done (to the milliseconds taken, or -1 if nothing was
   * stored). The worker answers the first `open` only then: a page may close right after its first
   * answer, which would lose a snapshot still being written. */
  storeSnapshot(encodings) {
    const key = this.snapshotKey;
    if (!key) return;
    this.snapshotKey = null;
    const t0 = performance.now();
    let raw;
    try {
      raw = this.pyodide.makeMemorySnapshot();
    } catch {
      this.snapshotStored = Promise.resolve(-1); // Python held a JavaScript object it cannot save: skip
      return;
    }
    this.snapshotStored = (async () => {
      const stored = encodeSnapshot(raw, null); // kept here only: the raw form, quicker to restore
      raw = null;
      const ms = (await RuntimeSnapshots.put(this.snapshotFolder, key, stored, { encodings }, this.wasmModule)) ? performance.now() - t0 : -1;
      this.timings["runtime snapshot: stored"] = ms;
      return ms;
    })().catch(() => -1);
  }

  /** The verified, gzip-compressed tokenizer.json of a tokenizer prepared at build time (fetched
   * when asked for; fetches asked for at the same time share one). */
  tokenizerBytes(name) {
    const info = typeof name === "string" ? this.manifest.tokenizers?.[name] : undefined;
    if (!info) {
      const known = Object.keys(this.manifest.tokenizers ?? {});
      return Promise.reject(bpError(
        "UnknownTokenizerError",
        `unknown tokenizer ${JSON.stringify(name)}; prepared tokenizers: ${known.join(", ") || "none"} ` +
          "(any other loads from its tokenizer.json: createTokenizer({ tokenizerJson }))",
      ));
    }
    this.tokenizerFetches ??= new Map();
    let promise = this.tokenizerFetches.get(info.file) ?? this.prefetched.get(info.file);
    this.prefetched.delete(info.file);
    if (!promise) {
      this.loader.expect([info.file]);
      promise = this.loader.load(info.file);
    }
    this.tokenizerFetches.set(info.file, promise);
    const forget = () => this.tokenizerFetches.delete(info.file);
    promise.then(forget, forget);
    return promise;
  }

  /** Install packages that the bundle's lock file lists (with what they depend on) by Pyodide's own
   * loadPackage, once: each wheel is first fetched and checked against the manifest, in the same
   * progress count, and in browsers handed to Pyodide from memory. */
  loadPackages(names) {
    const key = names.join(" ");
    this.packageLoads ??= new Map();
    if (!this.packageLoads.has(key)) {
      const promise = (async () => {
        const locked = this.manifest.lock?.packages ?? {};
        const files = [];
        const visit = (name) => {
          const entry = locked[name];
          if (!entry) throw bpError("AssetError", `${name} is not in the bundle's lock file; rebuild with \`make bundle\``);
          if (files.includes(entry.file_name) || this.pyodide.loadedPackages[entry.name]) return;
          files.push(entry.file_name);
          entry.depends.forEach(visit);
        };
        names.forEach(visit);
        this.loader.expect(files);
        const verified = await Promise.all(files.map((file) => this.loader.load(file)));
        const urls = files.map((file) => this.loader.reader.url(file));
        urls.forEach((url, i) => this.served?.set(url, { bytes: verified[i] }));
        const failures = [];
        try {
          await this.pyodide.loadPackage(names, { messageCallback: () => {}, errorCallback: (m) => failures.push(m) });
        } finally {
          urls.forEach((url) => this.served?.delete(url));
        }
        if (failures.length) throw bpError("AssetError", `loading ${names.join(", ")} failed: ${failures.join("; ")}`);
      })();
      promise.catch(() => this.packageLoads.delete(key));
      this.packageLoads.set(key, promise);
    }
    return this.packageLoads.get(key);
  }

  /** Fetch (once) and install the ranks an encoding needs; resolves to its canonical name. */
  ensureEncoding(name) {
    if (!this.encodings.has(name)) {
      const promise = (async () => {
        const info = this.manifest.encodings[name];
        if (!info) {
          throw bpError(
            "UnknownEncodingError",
            `unknown encoding '${name}'; known encodings: ${Object.keys(this.manifest.encodings).join(", ")}`,
          );
        }
        const target = `${DATA_DIR}/${info.file.slice(info.file.lastIndexOf("/") + 1)}`;
        if (!this.pyodide.FS.analyzePath(target).exists) {
          let bytes = this.prefetched.get(info.file);
          this.prefetched.delete(info.file);
          if (!bytes) {
            this.loader.expect([info.file]);
            bytes = this.loader.load(info.file);
          }
          bytes = await bytes;
          this.pyodide.FS.writeFile(target, bytes);
        }
        return name;
      })();
      promise.catch(() => this.encodings.delete(name));
      this.encodings.set(name, promise);
    }
    return this.encodings.get(name);
  }

  /** Call `bytepair.web_bridge.<fn>(...args)` through its `dispatch`, which answers with plain data:
   * the result converted to JavaScript values (dicts become objects, `array('I')` a Uint32Array with
   * its own buffer, bytes a Uint8Array), or an error `{ name, message, token }` thrown here as a
   * BytepairError. No Python object outlives the call. */
  call(fn, ...args) {
    return this.callFor(0, fn, ...args);
  }

  /** `call` made for request `id` of the caller: with a shared interrupt buffer (interrupts.mjs), it
   * is not run if that request was aborted already, and an abort meanwhile stops it (AbortError). */
  callFor(id, fn, ...args) {
    const control = id ? this.control : undefined;
    if (control && !beginCall(control, id)) throw bpError("AbortError", `${fn} was not run: its call was aborted`);
    const builds = fn === "encoding_info" || fn === "load_tokenizer_json";
    if (builds && this.loader.phase !== "ready") this.loader.report("ranks");
    let answer;
    if (id) this.onCall?.(id);
    try {
      answer = this.dispatch(fn, ...args);
    } catch (err) { // a KeyboardInterrupt raised just outside the bridge's own handler
      if (!/KeyboardInterrupt/.test(String(err?.message))) throw err;
      answer = null;
    } finally {
      if (control && endCall(control, id)) this.dispatch("settle_interrupt").destroy();
      if (id) this.onCall?.(0);
    }
    if (answer === null) throw bpError("AbortError", `${fn} was interrupted (its AbortSignal fired)`);
    if (builds && this.loader.phase !== "ready") {
      this.loader.report("ready");
      if (fn === "encoding_info") this.storeSnapshot([args[0]]);
    }
    let out;
    try {
      out = answer.toJs({ dict_converter: Object.fromEntries, create_pyproxies: false });
    } finally {
      answer.destroy();
    }
    if (out.error) throw bpError(out.error.name, out.error.message, out.error.token);
    return out.value;
  }

  /** Wasm memory in bytes: it grows and never shrinks, so a leak shows here in the end. */
  get wasmBytes() {
    return this.pyodide._module.HEAP8.length;
  }

  /** Bytes malloc has handed out and not had back (Python's objects live there), from the C
   * library's mallinfo(); null if this Pyodide does not export it. A leak shows here at once. */
  get heapBytesInUse() {
    const m = this.pyodide._module;
    if (typeof m._mallinfo !== "function") return null;
    const info = m._malloc(64); // struct mallinfo: ten 32-bit fields; uordblks (in use) is the 8th
    try {
      m._mallinfo(info);
      return m.HEAPU32[(info >>> 2) + 7];
    } finally {
      m._free(info);
    }
  }
}
