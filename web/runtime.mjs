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
// Where a warm start's time goes under Node (o200k_base; the worker thread's own CPU time from its
// start to the end of load(), /proc/thread-self/schedstat, medians of 7-13 warm starts on a shared
// 2-core machine at a load average of ~3.5): Node 20 210 ms, Node 22 224, Node 24 189. Node 20's
// split: the thread's start and its modules ~32, then to the stored snapshot found 16 (its head
// read and checked), the reads and checks of the other files and Pyodide's JavaScript (its module
// factory compiled with V8's code cache: compileFactory) 13, the wasm compile awaited 13,
// WebAssembly.instantiate and Emscripten's dynamic linking 73 (a table slot and a
// WebAssembly.Global per export, 8,834 Globals in all; a small wasm module per JavaScript function
// of its 260 GOT.func imports, compiled once per signature: installSmallModuleCache), the memory
// read from the stored snapshot's file into the wasm memory and its CRC-32 taken 28 (restoreFromFile;
// most of it the first touch of the memory's pages), Pyodide's Python-side bootstrap 36 (wasm
// compiled lazily as it first runs), the bridge <1. Besides: ~35 ms of wall time before the thread
// runs our code, and a load average above the 2 cores shows as the thread waiting (~150 ms at 3.5).
// The table indices the linking hands out are held in the snapshot's memory, so the linking is not
// ours to skip. Pyodide also reads pyodide.asm.wasm and python_stdlib.zip from disk again itself:
// the wasm it instantiates is the module compiled from our checked bytes (installHostWasmShim), the
// stdlib is its own second read of the file we checked (handing it ours instead measured no different).
//
// Progress: { loaded, total, phase } with phase "fetching" while bytes arrive, then "compiling"
// (the wasm module), "starting" (Python, from a snapshot), "ranks" (building the first encoding or
// tokenizer) and "ready".

import { EMBEDDED } from "./embedded.mjs";
import { beginCall, endCall, interruptBuffer } from "./interrupts.mjs";
import { encodeSnapshot, restoreInto, snapshotHeader, xxh32 } from "./snapshot.mjs";
import { RuntimeSnapshots, snapshotFolder } from "./stored.mjs";
import {
  AssetReader, DATA_DIR, IS_NODE, MIME, VerifiedLoader, bpError, installFetchShim, installHostWasmShim, installSmallModuleCache, installTableReserve, installWasmShim, nodeModule, precompileSmallModules, pyodideModules, sha256, watchInstantiate,
} from "./verified.mjs";

export { nodeModule } from "./verified.mjs";

/** The name V8's code cache is kept under here: this V8, and the flags it runs with (V8 refuses a
 * cache made under other flags). */
function codeTag(v8Flags) {
  const flags = [process.versions.v8, process.arch, ...process.execArgv, process.env.NODE_OPTIONS ?? "", v8Flags].join("\n");
  return `v8-${xxh32(new TextEncoder().encode(flags)).toString(16).padStart(8, "0")}`;
}

export class Runtime {
  /** Start Pyodide with bytepair; `firstEncoding`'s ranks are fetched in the same progress count.
   *
   * The steps overlap: every asset is fetched at once, the origin's stored runtime snapshot (if
   * any) is read and checked meanwhile, and Pyodide's JavaScript is imported meanwhile; Pyodide
   * starts when all of that is done. With a stored runtime snapshot neither the shipped snapshot
   * nor the ranks built in it are fetched; if restoring it fails, the start falls back to them. */
  static async load({ assetsUrl, onProgress, firstEncoding, firstTokenizer, control, v8Flags = "" }) {
    const started = performance.now();
    const mark = (name) => (timings[name] = performance.now() - started);
    // When load() began, in ms since this realm's time origin: a Node worker thread has its process's
    // (so the caller's clock shows how long the thread took to get here), a browser worker its own.
    const timings = { "load: began": started };
    const reader = new AssetReader(assetsUrl);
    const folderReady = snapshotFolder(IS_NODE); // where stored runtime snapshots are: looked for meanwhile
    const manifestBytes = reader.readNow("manifest.json") ?? await reader.read("manifest.json");
    const manifest = JSON.parse(new TextDecoder().decode(manifestBytes));
    const loader = new VerifiedLoader(reader, manifest, onProgress);
    const files = manifest.runtime;
    const embeddedModules = EMBEDDED.asm && EMBEDDED.loader ? [files.module, files.loader] : [];
    const others = Object.values(files).filter((p) => p !== files.wasm && !embeddedModules.includes(p));
    loader.expect(others);
    const bytes = Object.fromEntries(others.map((p) => [p, loader.load(p)]));

    // The wasm module: the copy kept beside a stored runtime snapshot if there is a sound one, else
    // fetched, compiling as it downloads. Why keep a copy: on a warm page the HTTP cache takes
    // 100-250 ms to hand the 9.6 MB back (Brotli-decoded on every read) and Chromium's streaming
    // compile hashes it again; an OPFS read takes a few ms and compiling the bytes ~50 ms. The kept
    // copy misses V8's code cache (functions compile lazily as they first run, ~60 ms more after
    // instantiation), and still the warm start was 0.87x as long (measured over 10 rounds of warm starts).
    // Only a folder that keeps wasm (a browser's) is looked in before the wasm is read; elsewhere
    // (the host's folder keeps none) the read begins at once, and the compile with it.
    const wasm = {};
    const readWasm = (kept) => {
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
        if (IS_NODE && reader.base.startsWith("file:")) {
          // From disk (Node, Deno, Bun): compiled as soon as the bytes are read (while they are
          // checked, and the stored snapshot's head is read and checked), in the engine's background threads,
          // instead of by Pyodide when it starts (which reads the file again itself);
          // installHostWasmShim hands it over once every check has passed. Compiled after the check,
          // the start waited for it: under Deno and Bun (whose compiles are slower) it ended last of
          // all, and under Node 20 the worker sat blocked 48-62 ms in the reads and checks where it
          // now sits ~10 (/proc/thread-self/schedstat, medians of 5-7 warm starts).
          wasm.compileRead = (b) => WebAssembly.compile(b).then((module) => {
            mark("wasm: compiled");
            return module;
          }, () => null);
          wasm.how = "early";
          reader.readNow(files.wasm, true); // at once: the compile begins as soon as it can (see readNow)
        }
        bytes[files.wasm] = loader.load(files.wasm, wasm);
      }
    };
    precompileSmallModules(); // before Pyodide's wasm compiles (see there)
    if (IS_NODE) readWasm(null);
    const key = await sha256(manifestBytes);
    const folder = await folderReady;
    const stashed = RuntimeSnapshots.meta(folder, key);
    if (!IS_NODE) readWasm(folder?.keepsWasm ? await RuntimeSnapshots.wasm(folder, key, loader.entry(files.wasm), await stashed) : null);
    // Pyodide's JavaScript, imported once the reads above have begun (compiling it holds this thread);
    // under Node, its factory compiled with V8's code cache kept beside the stored snapshot, for this
    // V8 and its flags (`v8Flags`: those the process set itself, which V8's cache is keyed on too).
    const code = folder?.keepsCode && reader.base.startsWith("file:") ? { tag: codeTag(v8Flags), cached: null } : null;
    if (code) code.cached = RuntimeSnapshots.code(folder, key, code.tag).catch(() => null);
    const modules = pyodideModules(reader, files, bytes, code);
    const stash = await stashed;

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
    // (web/snapshot.mjs's restoreInto: no buffer of the whole snapshot, one copy instead of two), or
    // under Node, Deno and Bun straight from the stored snapshot's file (restoreFromFile: no copy).
    // `tableSlots`: how many wasm table slots the start that stored `stored` took (installTableReserve).
    const boot = async (stored, makeSnapshots, tableSlots = null) => {
      const head = snapshotHeader(stored.head ?? stored, stored.size ?? stored.length);
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
        const watch = watchInstantiate(); // first: the host shim passes its calls through it
        const restore = wasm.how === "early" ? installHostWasmShim(wasm, wasmBytes.length, mark) : () => {};
        const restoreModule = installSmallModuleCache();
        const finishTable = installTableReserve(tableSlots);
        let module;
        try {
          module = await Promise.race([asm.default(moduleArg), watch.failed]);
          mark("pyodide: instantiated and linked");
        } finally {
          runtime.tableSlots = finishTable();
          restoreModule();
          restore();
          watch.restore();
        }
        const touched = module.HEAP8.length;
        if (touched < head.memoryLength && !module._emscripten_resize_heap(head.memoryLength)) {
          throw bpError("AssetError", `cannot grow WebAssembly memory to ${head.memoryLength} bytes for the snapshot`);
        }
        if (stored.restore) stored.restore(module.HEAPU8, touched); // read from its file and checked now
        else restoreInto(stored, wasmBytes, module.HEAPU8, touched);
        mark("snapshot");
        return module;
      };
      const pyodide = await loadPyodide(options);
      mark("pyodide: loaded");
      return pyodide;
    };

    // Snapshots of this runtime can be stored only where the folder for them exists.
    const canStore = folder !== null;
    const runtime = new Runtime(manifest, loader, timings, prefetched);
    runtime.served = served; // loadPackages hands Pyodide verified wheels through it
    Object.assign(runtime, { code, codeFolder: folder, codeKey: key });
    if (warm) {
      try {
        runtime.pyodide = await boot(warm, false, stash.tableSlots);
        for (const name of built) runtime.encodings.set(name, Promise.resolve(name));
      } catch (err) {
        if (warm.refused) { // read from its file, it failed its check as it was restored: a miss
          delete timings["runtime snapshot: hit"];
          mark("runtime snapshot: miss");
        } else {
          mark("runtime snapshot: failed");
        }
        await RuntimeSnapshots.forget(folder, key);
        runtime.pyodide = null;
      } finally {
        warm.close?.();
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
    if (code) mark(code.compiled?.accepted ? "code cache: used" : "code cache: none");
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
    this.tableSlots = null; // wasm table slots the start took (installTableReserve), kept with a stored snapshot
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
      const meta = { encodings, ...(this.tableSlots > 0 ? { tableSlots: this.tableSlots } : {}) };
      const ms = (await RuntimeSnapshots.put(this.snapshotFolder, key, stored, meta, this.wasmModule)) ? performance.now() - t0 : -1;
      if (ms >= 0) await this.storeCode();
      this.timings["runtime snapshot: stored"] = ms;
      return ms;
    })().catch(() => -1);
  }

  /** Keep V8's code cache of Pyodide's factory (verified.mjs's compileFactory) for the next start,
   * made now: it holds every function that has run so far. Once, and only if this start compiled
   * the factory without one (none kept, or V8 refused it); false if nothing was stored. A cold start
   * stores it with its snapshot, so the first warm start has it; a warm start without one (another
   * Node, other flags) stores it before its first open is answered (worker.mjs) or after its
   * command (cli.mjs). */
  async storeCode() {
    const { code } = this;
    this.code = null;
    if (!code?.compiled || code.compiled.accepted) return false;
    const t0 = performance.now();
    const stored = await RuntimeSnapshots.putCode(this.codeFolder, this.codeKey, code.tag, code.compiled.script.createCachedData());
    this.timings["code cache: stored"] = performance.now() - t0;
    return stored;
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
