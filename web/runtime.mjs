// The Pyodide runtime with bytepair installed, in the current JavaScript realm: a module Web Worker
// in browsers, the calling thread under Node. Glue only: every tokenizer decision is made by the
// Python package `bytepair` (its module `bytepair.web_bridge` is the boundary).
//
// Loading: read manifest.json, fetch every asset the start needs (Pyodide's wasm, stdlib zip and
// modules, the memory snapshot that already holds bytepair imported, the first encoding's ranks)
// with byte-level progress and check each one's size and sha256 against the manifest; nothing runs
// before every check has passed. In browsers a fetch shim hands Pyodide the verified wasm and stdlib
// and refuses any other origin, so nothing comes from a CDN; packages are never loaded by name.

const IS_NODE = typeof process === "object" && typeof process.versions?.node === "string" &&
  typeof globalThis.WorkerGlobalScope === "undefined" && typeof globalThis.window === "undefined";

const DATA_DIR = "/bytepair-data";

export class BytepairError extends Error {
  /** `token`: the special token a DisallowedSpecialTokenError is about (else undefined). */
  constructor(name, message, token = undefined) {
    super(message);
    this.name = name;
    if (token !== undefined && token !== null) this.token = token;
  }
}

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function sha256(bytes) {
  const subtle = globalThis.crypto?.subtle ?? (await import("node:crypto")).webcrypto.subtle;
  return hex(await subtle.digest("SHA-256", bytes));
}

/** Reads assets relative to `base` (a URL string), reporting bytes as they arrive. */
class AssetReader {
  constructor(base) {
    this.base = base.endsWith("/") ? base : base + "/";
  }

  url(path) {
    return new URL(path, this.base).href;
  }

  /** The bytes of `path`. With `keep`, an untouched copy of the HTTP response is stored in
   * `keep.response` (so WebAssembly can compile it by URL, which lets the browser cache the code). */
  async read(path, onBytes = () => {}, keep = null) {
    const url = this.url(path);
    if (url.startsWith("file:")) {
      const { readFile } = await import("node:fs/promises");
      const { fileURLToPath } = await import("node:url");
      let bytes;
      try {
        bytes = new Uint8Array(await readFile(fileURLToPath(url)));
      } catch (err) {
        throw new BytepairError("AssetError", `cannot read ${path} from ${this.base}: ${err.message}. Run \`make bundle\` to build the assets.`);
      }
      onBytes(bytes.length);
      return bytes;
    }
    let response;
    try {
      response = await fetch(url);
    } catch (err) {
      throw new BytepairError("AssetError", `cannot fetch ${url}: ${err.message}`);
    }
    if (!response.ok) throw new BytepairError("AssetError", `cannot fetch ${url}: HTTP ${response.status}`);
    if (keep) {
      keep.response = response;
      response = response.clone();
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
  }

  entry(path) {
    const entry = this.manifest.files[path];
    if (!entry) throw new BytepairError("AssetError", `${path} is not in manifest.json; rebuild with \`make bundle\``);
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

  report() {
    if (this.onProgress) this.onProgress({ loaded: this.loaded, total: this.total });
  }

  async load(path, keep = null) {
    const entry = this.entry(path);
    const t0 = performance.now();
    const bytes = await this.reader.read(path, (n) => {
      this.loaded += n;
      this.report();
    }, keep);
    const t1 = performance.now();
    const digest = await sha256(bytes);
    this.fileTimings[path] = { fetchMs: t1 - t0, checkMs: performance.now() - t1 };
    if (bytes.length !== entry.size || digest !== entry.sha256) {
      throw new BytepairError(
        "IntegrityError",
        `${path} failed its integrity check (expected ${entry.size} bytes with sha256 ${entry.sha256}, ` +
          `got ${bytes.length} bytes with sha256 ${digest}); the file is corrupt or stale: rebuild or redeploy the assets`,
      );
    }
    return bytes;
  }
}

const MIME = { ".wasm": "application/wasm", ".json": "application/json", ".zip": "application/zip", ".mjs": "text/javascript" };

/** In browsers: answer Pyodide's fetches of verified assets (bytes, or a verified response kept
 * whole) from memory; refuse every other origin. */
function installFetchShim(served) {
  const realFetch = globalThis.fetch.bind(globalThis);
  globalThis.fetch = async (input, init) => {
    const raw = input instanceof URL ? input.href : typeof input === "string" ? input : input.url;
    const url = new URL(raw, globalThis.location?.href).href;
    const asset = served.get(url);
    if (asset instanceof Response) {
      served.delete(url); // a body can be read once; later asks get the bytes below
      return asset;
    }
    if (asset) {
      const type = MIME[url.slice(url.lastIndexOf("."))] ?? "application/octet-stream";
      return new Response(asset, { headers: { "Content-Type": type } });
    }
    if (globalThis.location && new URL(url).origin !== globalThis.location.origin) {
      throw new BytepairError("AssetError", `bytepair never fetches from another origin (asked for ${url})`);
    }
    return realFetch(input, init);
  };
}

/** Decompress a gzip'd asset (the memory snapshot): DecompressionStream in browsers, zlib in Node. */
async function gunzip(bytes) {
  if (IS_NODE) return new Uint8Array((await import("node:zlib")).gunzipSync(bytes));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Pyodide's memory snapshot is stored sparse: 64 KiB pages that are all zero (nearly half of the
 * 31 MB) are left out. Layout (little-endian): "BPSNAP1\0", u32 full length, u32 page count, a bitmap
 * with one bit per page (1 = stored), then the stored pages in order. Expanding is one copy per page. */
const PAGE = 65536;

/** The byte length a sparse snapshot must have, from its header (-1 if the header is not ours). */
function sparseLength(sparse) {
  if (sparse.length < 16 || new TextDecoder().decode(sparse.subarray(0, 7)) !== "BPSNAP1") return -1;
  const view = new DataView(sparse.buffer, sparse.byteOffset, sparse.byteLength);
  const length = view.getUint32(8, true);
  const pages = view.getUint32(12, true);
  const bitmap = sparse.subarray(16, 16 + Math.ceil(pages / 8));
  let size = 16 + bitmap.length;
  for (let page = 0; page < pages; page++) {
    if (bitmap[page >> 3] & (1 << (page & 7))) size += Math.min(PAGE, length - page * PAGE);
  }
  return size;
}

function expandSnapshot(sparse) {
  const view = new DataView(sparse.buffer, sparse.byteOffset, sparse.byteLength);
  if (sparseLength(sparse) !== sparse.length) {
    throw new BytepairError("AssetError", "the memory snapshot is not in bytepair's sparse format; rebuild with `make bundle`");
  }
  const length = view.getUint32(8, true);
  const pages = view.getUint32(12, true);
  const bitmap = sparse.subarray(16, 16 + Math.ceil(pages / 8));
  const raw = new Uint8Array(length);
  let offset = 16 + bitmap.length;
  for (let page = 0; page < pages; page++) {
    if (!(bitmap[page >> 3] & (1 << (page & 7)))) continue;
    const start = page * PAGE;
    const size = Math.min(PAGE, length - start);
    raw.set(sparse.subarray(offset, offset + size), start);
    offset += size;
  }
  return raw;
}

/** The decompressed (still sparse) memory snapshot, kept in the origin private file system (browsers'
 * workers only; a miss everywhere else). Why OPFS and not Cache Storage: a synchronous access handle
 * reads the 17 MB straight into memory in a few milliseconds, where a Cache Storage body takes a few
 * hundred on this machine. The file is named after the compressed file's sha256, which the manifest
 * pins, so a new build never meets a stale file; the bytes were checked before they were stored,
 * are written under a temporary name and renamed when complete, and their length is checked again
 * on reading, so a write cut short is never used. */
const SnapshotCache = {
  prefix: "bytepair-snapshot-",
  name(sha256) {
    return `${this.prefix}${sha256}.bin`;
  },
  async directory() {
    if (IS_NODE || typeof globalThis.FileSystemSyncAccessHandle === "undefined") return null;
    return navigator.storage.getDirectory();
  },
  async get(sha256) {
    try {
      const dir = await this.directory();
      if (!dir) return null;
      const access = await (await dir.getFileHandle(this.name(sha256))).createSyncAccessHandle();
      try {
        const bytes = new Uint8Array(access.getSize());
        return access.read(bytes, { at: 0 }) === bytes.length && sparseLength(bytes) === bytes.length ? bytes : null;
      } finally {
        access.close();
      }
    } catch {
      return null; // not stored yet, storage unavailable, or another tab holds the file: decompress
    }
  },
  /** Get ready to store a snapshot: clear old ones, open a new file. Done while the snapshot is
   * still downloading, so that storing it later is one synchronous write and a rename, finished
   * before Pyodide starts (a page may be closed right after its first answer). Resolves to a
   * function that stores the bytes (or, given nothing, just lets the file go), or to null. */
  async writer(sha256) {
    try {
      const dir = await this.directory();
      if (!dir) return null;
      const old = [];
      for await (const name of dir.keys()) if (name.startsWith(this.prefix)) old.push(name);
      for (const name of old) await dir.removeEntry(name); // one snapshot is enough
      const partial = await dir.getFileHandle(`${this.name(sha256)}.partial`, { create: true });
      const access = await partial.createSyncAccessHandle();
      return async (sparse) => {
        try {
          if (!sparse) return; // the download failed: close the file, leave no half snapshot
          access.truncate(0);
          access.write(sparse, { at: 0 });
        } finally {
          access.close();
        }
        await partial.move(this.name(sha256));
      };
    } catch {
      return null; // storage unavailable, or another tab is storing it
    }
  },
};

/** Import one of Pyodide's ES modules by its URL, so that V8 can reuse the code it compiled last
 * time (compiling the 1.2 MB module afresh costs a quarter of a second), while its bytes are
 * fetched and checked in parallel; the module is used only if the check passes. */
async function importVerified(reader, path, bytes) {
  const [module] = await Promise.all([import(reader.url(path)), bytes[path]]);
  return module;
}

export class Runtime {
  /** Start Pyodide with bytepair; `firstEncoding`'s ranks are fetched in the same progress count.
   *
   * The steps overlap: every asset is fetched at once, the snapshot is decompressed as soon as it
   * has arrived and passed its check, and Pyodide's JavaScript is imported meanwhile; Pyodide
   * starts when all of that is done. */
  static async load({ assetsUrl, onProgress, firstEncoding, firstTokenizer }) {
    const started = performance.now();
    const mark = (name) => (timings[name] = performance.now() - started);
    const timings = {};
    const reader = new AssetReader(assetsUrl);
    const manifest = JSON.parse(new TextDecoder().decode(await reader.read("manifest.json")));
    const loader = new VerifiedLoader(reader, manifest, onProgress);
    const files = manifest.runtime;
    // The snapshot already holds the imported package, so the wheel is not needed at run time.
    // Decompressed once, it is kept in the origin private file system (named by its sha256), so
    // later starts skip both its download and the quarter second that decompressing it takes.
    const snapshotSha = manifest.files[manifest.snapshot].sha256;
    const cached = SnapshotCache.get(snapshotSha); // alongside the fetches
    const firstData = (firstEncoding && manifest.encodings[firstEncoding]?.file) ||
      (firstTokenizer && manifest.tokenizers?.[firstTokenizer]?.file);
    const startFiles = Object.values(files);
    loader.expect(firstData ? [...startFiles, firstData] : startFiles);

    const wasm = {};
    const bytes = Object.fromEntries(startFiles.map((p) => [p, loader.load(p, p === files.wasm ? wasm : null)]));
    const prefetched = new Map(firstData ? [[firstData, loader.load(firstData)]] : []);
    for (const promise of prefetched.values()) promise.catch(() => {}); // reported when used
    const sparse = cached.then((hit) => {
      mark(hit ? "snapshot cache: hit" : "snapshot cache: miss");
      if (hit) return hit;
      const writer = SnapshotCache.writer(snapshotSha);
      loader.expect([manifest.snapshot]);
      bytes[manifest.snapshot] = loader.load(manifest.snapshot);
      const keep = async (raw) => (await writer)?.(raw).catch(() => {}); // on failure: not kept
      return bytes[manifest.snapshot].then(gunzip).then(
        async (raw) => {
          await keep(raw);
          mark("snapshot stored");
          return raw;
        },
        async (err) => {
          await keep(null);
          throw err;
        },
      );
    });
    const snapshot = sparse.then(expandSnapshot).then((raw) => (mark("snapshot"), raw));
    const modules = Promise.all([importVerified(reader, files.module, bytes), importVerified(reader, files.loader, bytes)]);
    const [asm, { loadPyodide }] = await modules;
    mark("modules");
    const [wasmBytes, stdlib] = await Promise.all([bytes[files.wasm], bytes[files.stdlib]]);
    await snapshot;
    await Promise.all(Object.values(bytes)); // every check passed before anything runs
    mark("fetched");

    const indexURL = reader.url(files.wasm.slice(0, files.wasm.lastIndexOf("/") + 1));
    const options = {
      indexURL: IS_NODE ? (await import("node:url")).fileURLToPath(indexURL) + "/" : indexURL,
      lockFileContents: JSON.stringify(manifest.lock), // lists no packages: nothing loads by name
      _loadSnapshot: snapshot,
      stdout: () => {},
      stderr: (msg) => console.warn("[bytepair/python]", msg),
    };
    if (!IS_NODE) {
      // Pyodide fetches the wasm and the stdlib itself: hand it the verified copies.
      installFetchShim(new Map([
        [reader.url(files.wasm), wasm.response ?? wasmBytes],
        [reader.url(files.stdlib), stdlib],
      ]));
      options.createPyodideModule = asm.default;
    }
    const runtime = new Runtime(manifest, loader, timings, prefetched);
    runtime.pyodide = await loadPyodide(options);
    runtime.pyodide.FS.mkdirTree(DATA_DIR);
    const bridge = runtime.pyodide.pyimport("bytepair.web_bridge");
    runtime.dispatch = bridge.dispatch.copy(); // one proxy, kept: looking it up per call would make one each time
    bridge.destroy();
    runtime.call("use_verified_data_dir", DATA_DIR); // ensureEncoding checks every file it writes there
    mark("started");
    return runtime;
  }

  constructor(manifest, loader, timings, prefetched) {
    this.manifest = manifest;
    this.loader = loader;
    this.prefetched = prefetched; // data file -> Promise<bytes> started during load()
    this.encodings = new Map(); // name -> Promise that resolves once its ranks are in place
    this.timings = timings; // milliseconds since load() began, for the benchmark page
  }

  /** The verified, gzip-compressed tokenizer.json of a tokenizer prepared at build time (fetched
   * when asked for; fetches asked for at the same time share one). */
  tokenizerBytes(name) {
    const info = typeof name === "string" ? this.manifest.tokenizers?.[name] : undefined;
    if (!info) {
      const known = Object.keys(this.manifest.tokenizers ?? {});
      return Promise.reject(new BytepairError(
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

  /** Fetch (once) and install the ranks an encoding needs; resolves to its canonical name. */
  ensureEncoding(name) {
    if (!this.encodings.has(name)) {
      const promise = (async () => {
        const info = this.manifest.encodings[name];
        if (!info) {
          throw new BytepairError(
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
    const answer = this.dispatch(fn, ...args);
    let out;
    try {
      out = answer.toJs({ dict_converter: Object.fromEntries, create_pyproxies: false });
    } finally {
      answer.destroy();
    }
    if (out.error) throw new BytepairError(out.error.name, out.error.message, out.error.token);
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
