// The bundle's assets as the runtime reads them: manifest.json, then each file fetched (or read from
// disk under Node, Deno and Bun) with byte-level progress and checked against the manifest's size and
// sha256 before anything runs; and the shims that hand Pyodide the verified bytes (its wasm, stdlib
// and modules) instead of letting it fetch its own. A module of its own so that runtime.mjs holds the
// Runtime itself: start, snapshots and calls.

import { EMBEDDED } from "./embedded.mjs";
import { errorFrom, readAdvice } from "./errors.mjs";

/** Whether Pyodide takes its Node path here (it reads files with node:fs and compiles the wasm
 * itself): its own test, mirrored (Node, Deno and Bun all pass it). Not a choice of ours: where
 * workers and folders come from is found by capability (backends.mjs, stored.mjs). */
export const IS_NODE = typeof process === "object" && typeof process.versions?.node === "string" && !process.browser &&
  typeof globalThis.WorkerGlobalScope === "undefined" && typeof globalThis.window === "undefined";


export const DATA_DIR = "/bytepair-data";

/** import() of a Node built-in ("node:fs/promises"), called only under Node. The name is passed, not
 * written in the import(), so that bundlers for the browser (esbuild, webpack, Vite) do not try to
 * resolve it: they fail on node: specifiers otherwise. (bytepair.mjs has the same one-liner: the
 * page's thread never loads this module.) */
export const nodeModule = (name) => import(/* webpackIgnore: true */ /* @vite-ignore */ name);

/** Node's built-in `name` ("node:fs") at once, where the runtime hands them out synchronously
 * (process.getBuiltinModule: Node >= 20.16, Deno, Bun); null elsewhere (then nodeModule, a promise). */
export function nodeModuleNow(name) {
  try {
    return globalThis.process?.getBuiltinModule?.(name) ?? null;
  } catch {
    return null;
  }
}

/** An error of the class `name` names (see errors.mjs). */
export function bpError(name, message, token = undefined) {
  return errorFrom({ name, message, token });
}

export function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function sha256(bytes) {
  const subtle = globalThis.crypto?.subtle ?? (await nodeModule("node:crypto")).webcrypto.subtle;
  return hex(await subtle.digest("SHA-256", bytes));
}

/** The bytes of `file` in one read, through node:fs/promises (`fs`). Why not fs.readFile: it reads
 * 512 KiB at a time, each piece one trip through the thread pool and back through the event loop,
 * which during a start is busy (Pyodide's 1.2 MB module compiling, the checks): a warm start's
 * 39 MB runtime snapshot took 80-140 ms to read so, against 25-50 ms for one read (Node 20, a busy
 * event loop in a test script: 105-151 ms against 40-85). */
export async function readWhole(fs, file) {
  const handle = await fs.open(file, "r");
  try {
    const { size } = await handle.stat();
    const bytes = new Uint8Array(size);
    let at = 0;
    while (at < size) {
      const { bytesRead } = await handle.read(bytes, at, size - at, at);
      if (!bytesRead) break; // the file shrank meanwhile: the size and sha256 checks say so
      at += bytesRead;
    }
    return at === size ? bytes : bytes.subarray(0, at);
  } finally {
    await handle.close();
  }
}

/** A local asset's bytes. The npm package ships some assets in one form only (build/pack.mjs):
 * the memory snapshot as `X.br` alone (a host serving the package over HTTP runs `npx
 * bytepair-assets`, which writes the plain file back), and the open-model tokenizers and the GPT-3
 * encodings' ranks in the optional package bytepair-tokenizers: each is looked for there when
 * `file` is not found. */
export async function readLocal(fs, file, path) {
  try {
    return await readWhole(fs, file); // its own buffer: not copied again (a start reads ~12 MB so)
  } catch (err) {
    if (err?.code !== "ENOENT") throw err;
    const packed = await readWhole(fs, `${file}.br`).catch(() => null);
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
    return await readWhole(fs, join(extra, path));
  }
}

/** The folder of the optional package bytepair-tokenizers, resolved from this module; null if it is
 * not installed (or this runtime cannot resolve packages). */
export async function optionalTokenizers() {
  try {
    const { fileURLToPath } = await nodeModule("node:url");
    const { dirname } = await nodeModule("node:path");
    return dirname(fileURLToPath(import.meta.resolve("bytepair-tokenizers/package.json")));
  } catch {
    return null;
  }
}

/** Reads assets relative to `base` (a URL string), reporting bytes as they arrive. */
export class AssetReader {
  constructor(base) {
    this.base = base.endsWith("/") ? base : base + "/";
    this.early = new Map(); // path -> bytes readNow read, which read() hands out once
  }

  url(path) {
    return new URL(path, this.base).href;
  }

  /** The bytes of `path` read now, synchronously, in one read, where the assets are on disk and the
   * runtime's fs can be had at once (nodeModuleNow); null otherwise, or if the read fails (read()
   * then tries again and says why). With `keep`, read() hands the same bytes out once, for the
   * progress count and the check. Why: under Node, Deno and Bun the worker's first reads went through
   * fs/promises, a trip through the thread pool and the event loop per step, while its other files
   * were read and its modules imported: the wasm's bytes came 30-50 ms after load() began under Bun
   * (its compile, ~100 ms there, is what a warm start waits for last), ~5 ms read at once. */
  readNow(path, keep = false) {
    const url = this.url(path);
    const fs = url.startsWith("file:") ? nodeModuleNow("node:fs") : null;
    const fileURLToPath = fs && nodeModuleNow("node:url")?.fileURLToPath;
    if (!fileURLToPath) return null;
    let fd = null;
    try {
      fd = fs.openSync(fileURLToPath(url), "r");
      const size = fs.fstatSync(fd).size;
      const bytes = new Uint8Array(size);
      for (let at = 0; at < size;) {
        const n = fs.readSync(fd, bytes, at, size - at, at);
        if (!n) return null;
        at += n;
      }
      if (keep) this.early.set(path, bytes);
      return bytes;
    } catch {
      return null;
    } finally {
      if (fd !== null) fs.closeSync(fd);
    }
  }

  /** The bytes of `path`. With `keep` (the wasm module), WebAssembly starts compiling an untouched
   * copy of the HTTP response as it arrives, into `keep.compiled` (a promise of the module, null if
   * it cannot): compiling by URL lets the browser cache the code, and it overlaps the download and
   * the check. The module is only instantiated once the bytes have passed their check. */
  async read(path, onBytes = () => {}, keep = null, onWire = () => {}) {
    const url = this.url(path);
    const early = this.early.get(path);
    if (early) {
      this.early.delete(path);
      onWire(null);
      onBytes(early.length);
      return early;
    }
    if (url.startsWith("file:")) {
      const fs = await nodeModule("node:fs/promises");
      const { fileURLToPath } = await nodeModule("node:url");
      let bytes;
      try {
        bytes = await readLocal(fs, fileURLToPath(url), path);
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
export class VerifiedLoader {
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

  /** The verified bytes of `path`. A failure is reported where the promise is awaited: it is marked
   * handled here, since the start may be awaiting other things when it comes (an unhandled
   * rejection ends a Node worker, which would turn an IntegrityError into a WorkerError). */
  load(path, keep = null) {
    const bytes = this.verified(path, keep);
    bytes.catch(() => {});
    return bytes;
  }

  async verified(path, keep) {
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
    // Bytes read whole (from disk) start compiling now, while they are checked: compiling runs
    // nothing, and the module is instantiated only once every check has passed (Runtime.load).
    if (keep?.compileRead && keep.compiled === undefined) keep.compiled = keep.compileRead(bytes);
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

export const MIME = { ".wasm": "application/wasm", ".json": "application/json", ".zip": "application/zip", ".mjs": "text/javascript" };

/** In browsers: answer Pyodide's fetches of verified assets ({ bytes }, and a response to give
 * the first ask) from memory; refuse every origin but the assets' own (which is not the worker's
 * when the page started it from a blob: URL to embed a bundle served elsewhere). */
export function installFetchShim(served, assetsBase) {
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
export function installWasmShim(wasmResponse, wasm, wasmBytes, mark) {
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
 * bytes with WebAssembly.instantiate; for its first such call with bytes of the wasm's `size` (the
 * main module, made while `boot` waits for it), use the module compiled from the bytes we read
 * (`wasm.compiled`; instantiated only once they have passed their check: Runtime.load starts Pyodide
 * after every check) instead, if it compiled. Other calls pass through: pyodide.mjs instantiates a
 * small module of its own once it is imported, compiled first, and under Bun (one wasm compiler
 * thread) that compile waits behind ours and the instantiation can come after this is installed.
 * Returns the function that puts WebAssembly.instantiate back (side modules are Pyodide's). */
export function installHostWasmShim(wasm, size, mark) {
  const realInstantiate = WebAssembly.instantiate;
  const restore = () => {
    if (WebAssembly.instantiate === shim) WebAssembly.instantiate = realInstantiate;
  };
  const shim = async (source, imports) => {
    if (source instanceof WebAssembly.Module || source?.byteLength !== size) return realInstantiate.call(WebAssembly, source, imports);
    restore();
    const module = await wasm.compiled;
    if (!module) return realInstantiate.call(WebAssembly, source, imports);
    mark("wasm: compiled before the start");
    return { module, instance: await realInstantiate.call(WebAssembly, module, imports) };
  };
  WebAssembly.instantiate = shim;
  return restore;
}

/** While Pyodide's module is instantiated: every WebAssembly.instantiate passed through, and a
 * promise (`failed`) that rejects with AssetError when one of them fails. Why: Pyodide's
 * instantiateWasm catches that failure and only prints a warning, and Emscripten's module promise
 * then never settles, so a start that cannot go on waited for the stall timeout (60 s) instead of
 * failing at once (and a warm start could not fall back). Install it before installHostWasmShim
 * (that shim then passes its calls through this one); `restore` puts the real one back. */
export function watchInstantiate() {
  const real = WebAssembly.instantiate;
  let fail;
  const failed = new Promise((_, reject) => { fail = reject; });
  failed.catch(() => {}); // read only through the race the caller runs
  const watched = async (...args) => {
    try {
      return await real.apply(WebAssembly, args);
    } catch (err) {
      fail(bpError("AssetError", `Pyodide's WebAssembly module could not be instantiated (${err?.message ?? err}); rebuild the bundle with \`make bundle\` or report this runtime`));
      throw err;
    }
  };
  WebAssembly.instantiate = watched;
  const restore = () => {
    if (WebAssembly.instantiate === watched) WebAssembly.instantiate = real;
  };
  return { failed, restore };
}

/** Small modules compiled before Pyodide's own compile begins (precompileSmallModules), which
 * installSmallModuleCache hands out: the bytes, as a string -> their module. */
const SMALL_MODULES = new Map();

/** Compile, now, the empty module Pyodide's module factory constructs as it starts (to learn whether
 * it can construct wasm at all), for installSmallModuleCache to hand it out. Why: under Bun
 * (JavaScriptCore) a synchronous `new WebAssembly.Module`, even of 8 bytes, waits until every
 * asynchronous compile under way has ended (this machine: 74 ms for the empty module while Pyodide's
 * 9.6 MB compiled), so the factory's own start, which could run meanwhile, began only after the compile.
 * Called before that compile begins (Runtime.load); ~0.1 ms. */
export function precompileSmallModules() {
  const empty = [0, 97, 115, 109, 1, 0, 0, 0]; // "\0asm", version 1
  const key = String.fromCharCode(...empty);
  if (SMALL_MODULES.has(key)) return;
  try {
    SMALL_MODULES.set(key, new WebAssembly.Module(new Uint8Array(empty)));
  } catch {
    // no wasm to be made here: Pyodide's own check says so
  }
}

/** While Pyodide's module is instantiated and linked: Emscripten wraps each JavaScript function it
 * puts in the wasm table (its GOT.func imports, 260 in a warm start) in a small wasm module of its
 * own, compiled from bytes that depend only on the function's signature (29 different ones); compile
 * each such module once, and hand later asks for the same bytes that module (a module holds no
 * state: each wrapper is its own instance, with its own import). 260 compiles took 13-15 ms of the
 * start's thread, 29 take ~2. Returns the function that puts WebAssembly.Module back. */
export function installSmallModuleCache() {
  const RealModule = WebAssembly.Module;
  const compiled = new Map(SMALL_MODULES); // the bytes, as a string -> their module
  const cached = new Proxy(RealModule, {
    construct(target, args, newTarget) {
      const bytes = args[0];
      if (newTarget !== cached || !(bytes instanceof Uint8Array) || bytes.length > 256) return Reflect.construct(target, args, newTarget);
      const key = String.fromCharCode.apply(null, bytes);
      let module = compiled.get(key);
      if (!module) compiled.set(key, (module = Reflect.construct(target, args)));
      return module;
    },
  });
  WebAssembly.Module = cached;
  return () => {
    if (WebAssembly.Module === cached) WebAssembly.Module = RealModule;
  };
}

/** The most table slots a stored snapshot's .json may ask installTableReserve to reserve. */
const MAX_TABLE_RESERVE = 1 << 20;

/** While Pyodide's module is instantiated and linked and its runtime set up: Emscripten gives each
 * function it puts in the wasm table a slot of its own, a `table.grow(1)` each (5,442 in a start), and
 * JavaScriptCore's grow copies the whole table each time: under Bun the 5,442 took 16-25 ms of the
 * start's thread (V8: 1-4 ms; 9,000 grow(1) of a table of 10,000: 37-74 ms against one grow(9000),
 * 0.6 ms). With `expected` (how many slots the last start took, kept in its stored snapshot's .json),
 * the table that is grown first grows by that many at once, and each grow then hands out the next
 * of them: the very index Emscripten's own grow would have handed out (the snapshot's memory holds
 * them), with the table's `length` saying what it would have said. Returns finish(), which puts
 * WebAssembly.Table.prototype.grow back and answers how many slots were taken (null if no table
 * grew). A reserve not all taken (a start unlike the last) is not lost track of: the table then keeps
 * a `length` and a `grow` of its own, which go on handing out the slots in the same order. */
export function installTableReserve(expected) {
  const proto = WebAssembly.Table.prototype;
  const realGrow = proto.grow;
  const realLength = Object.getOwnPropertyDescriptor(proto, "length")?.get;
  if (typeof realGrow !== "function" || typeof realLength !== "function") return () => null;
  const reserve = Number.isSafeInteger(expected) && expected > 0 && expected <= MAX_TABLE_RESERVE ? expected : 0;
  let table = null;
  let first = 0; // the table's length when it was first grown
  let length = 0; // its length as JavaScript is told it
  function grow(delta, ...init) {
    if (table === null) {
      table = this;
      first = length = realLength.call(this);
      Object.defineProperty(this, "length", { configurable: true, get: () => length });
      try {
        if (reserve) realGrow.call(this, reserve);
      } catch {
        // past the table's maximum, or memory: each grow then grows the table itself
      }
    }
    if (this !== table) return realGrow.call(this, delta, ...init);
    const n = Number(delta);
    if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`WebAssembly.Table.grow(): invalid delta ${delta}`);
    const old = length;
    const size = realLength.call(this);
    if (old + n > size) realGrow.call(this, old + n - size, ...init);
    if (init.length) for (let i = old; i < Math.min(old + n, size); i++) this.set(i, init[0]); // reserved slots hold null
    length = old + n;
    return old;
  }
  proto.grow = grow;
  return () => {
    if (proto.grow === grow) proto.grow = realGrow;
    if (table === null) return null;
    if (realLength.call(table) === length) delete table.length; // every reserved slot taken: the table as it was
    else table.grow = grow;
    return length - first;
  };
}

/** Import one of Pyodide's ES modules by its URL, so that V8 can reuse the code it compiled last
 * time (compiling the 1.2 MB module afresh costs a quarter of a second), while its bytes are
 * fetched and checked in parallel; the module is used only if the check passes. */
export async function importVerified(reader, path, bytes) {
  const [module] = await Promise.all([import(reader.url(path)), bytes[path]]);
  return module;
}

/** Whether V8's code cache can be had here: Node's node:vm (Deno and Bun have a node:vm of their
 * own, whose scripts take no cached data from V8). */
export const CODE_CACHE = IS_NODE && !("Deno" in globalThis) && !("Bun" in globalThis);

/** Pyodide's module factory (pyodide.asm.mjs: 1.25 MB of JavaScript) compiled as a script from its
 * verified bytes with V8's code cache `cached` (bytes or null), under Node; null if the module is not
 * in the form this expects (one `export default` at its end, `import.meta.url` its only use of
 * import.meta), and the caller imports it instead. Why: an ES module's code is compiled anew in each
 * process, and node:vm's scripts are the only code Node 20 takes a cache for; a cache made after a
 * start holds the functions that ran in it too (compiled lazily otherwise). A warm start's thread
 * spent 57 ms less CPU so (Node 20, medians of 15 interleaved warm starts, load average ~3.5). The
 * module's dynamic imports (Node built-ins, and `ws`) go through nodeModule: a script's own import()
 * has no loader without a flag (or, read from a code cache, under Node 20, at all).
 * Returns { module, script, accepted } (`script.createCachedData()` makes the next start's cache). */
export async function compileFactory(source, url, cached) {
  const text = new TextDecoder().decode(source);
  const end = /export default ([\w$]+);\s*$/.exec(text);
  if (!end) return null;
  const body = text.slice(0, end.index).replaceAll("import.meta.url", "__bpMetaUrl").replace(/(?<![\w$.])import\(/g, "__bpImport(");
  if (body.includes("import.meta")) return null;
  const vm = await nodeModule("node:vm");
  let script;
  try {
    const wrapped = `(function (__bpMetaUrl, __bpImport) {${body}\nreturn ${end[1]};\n})`;
    script = new vm.Script(wrapped, { filename: url, ...(cached ? { cachedData: cached } : {}) });
  } catch {
    return null;
  }
  const factory = script.runInThisContext()(url, nodeModule);
  return { module: { default: factory }, script, accepted: Boolean(cached) && !script.cachedDataRejected };
}

/** Pyodide's two modules: imported by URL (verified), or as embedded (see embedded.mjs: part of
 * the script itself there, so there are no bytes to check); with `code` (a promise of V8's cached
 * data or null, where CODE_CACHE), the factory compiled by compileFactory once its bytes have passed
 * their check, into `code.compiled`. */
export function pyodideModules(reader, files, bytes, code = null) {
  if (EMBEDDED.asm && EMBEDDED.loader) return Promise.resolve([EMBEDDED.asm, EMBEDDED.loader]);
  const factory = !code ? importVerified(reader, files.module, bytes) : (async () => {
    const [source, cached] = await Promise.all([bytes[files.module], code.cached]);
    code.compiled = await compileFactory(source, reader.url(files.module), cached);
    return code.compiled?.module ?? importVerified(reader, files.module, bytes);
  })();
  return Promise.all([factory, importVerified(reader, files.loader, bytes)]);
}
