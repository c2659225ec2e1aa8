// The Pyodide runtime with bytepair installed, in the current JavaScript realm: a module Web Worker
// in browsers, the calling thread under Node. Glue only: every tokenizer decision is made by the
// Python package `bytepair` (its module `bytepair.web_bridge` is the boundary).
//
// Loading: read manifest.json, fetch every asset the start needs (Pyodide's wasm, stdlib zip and
// module, the memory snapshot that already holds bytepair imported, the first encoding's ranks) with
// byte-level progress, check each one's sha256 against the manifest, then start Pyodide from those
// very bytes. In browsers a fetch shim hands
// Pyodide the verified bytes and refuses any other URL, so nothing is ever fetched twice or from a
// CDN; packages are never loaded by name.

const IS_NODE = typeof process === "object" && typeof process.versions?.node === "string" &&
  typeof globalThis.WorkerGlobalScope === "undefined" && typeof globalThis.window === "undefined";

const DATA_DIR = "/bytepair-data";

export class BytepairError extends Error {
  constructor(name, message) {
    super(message);
    this.name = name;
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
    const bytes = await this.reader.read(path, (n) => {
      this.loaded += n;
      this.report();
    }, keep);
    const digest = await sha256(bytes);
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

/** Import an ES module from verified bytes (browsers: a blob URL, so it is not fetched again). */
async function importModule(url, bytes) {
  if (IS_NODE) return import(url);
  const blobUrl = URL.createObjectURL(new Blob([bytes], { type: "text/javascript" }));
  try {
    return await import(blobUrl);
  } finally {
    URL.revokeObjectURL(blobUrl);
  }
}

export class Runtime {
  /** Start Pyodide with bytepair; `firstEncoding`'s ranks are fetched in the same progress count. */
  static async load({ assetsUrl, onProgress, firstEncoding }) {
    const started = performance.now();
    const reader = new AssetReader(assetsUrl);
    const manifest = JSON.parse(new TextDecoder().decode(await reader.read("manifest.json")));
    const loader = new VerifiedLoader(reader, manifest, onProgress);
    // The snapshot already holds the imported package, so the wheel is not needed at run time.
    const startFiles = [...Object.values(manifest.runtime), manifest.snapshot];
    const firstData = firstEncoding && manifest.encodings[firstEncoding]?.file;
    loader.expect(firstData ? [...startFiles, firstData] : startFiles);
    const wasm = {};
    const fetched = new Map(
      await Promise.all(startFiles.map(async (p) => [p, await loader.load(p, p === manifest.runtime.wasm ? wasm : null)])),
    );
    const runtime = new Runtime(manifest, loader);
    runtime.timings.fetched = performance.now() - started;
    await runtime.start(reader, fetched, wasm.response);
    runtime.timings.started = performance.now() - started;
    return runtime;
  }

  constructor(manifest, loader) {
    this.manifest = manifest;
    this.loader = loader;
    this.encodings = new Map(); // name -> Promise that resolves once its ranks are in place
    this.timings = {}; // milliseconds since load() began, for the benchmark page
  }

  async start(reader, fetched, wasmResponse) {
    const files = this.manifest.runtime;
    const indexURL = reader.url(files.wasm.slice(0, files.wasm.lastIndexOf("/") + 1));
    const options = {
      indexURL: IS_NODE ? (await import("node:url")).fileURLToPath(indexURL) + "/" : indexURL,
      lockFileContents: new TextDecoder().decode(fetched.get(files.lock)),
      _loadSnapshot: gunzip(fetched.get(this.manifest.snapshot)),
      env: { BYTEPAIR_DATA_DIR: DATA_DIR },
      stdout: () => {},
      stderr: (msg) => console.warn("[bytepair/python]", msg),
    };
    if (!IS_NODE) {
      // Before Pyodide's loader is imported: it may keep a reference to fetch.
      const served = new Map();
      for (const key of ["wasm", "stdlib"]) served.set(reader.url(files[key]), fetched.get(files[key]));
      if (wasmResponse) served.set(reader.url(files.wasm), wasmResponse);
      installFetchShim(served);
      options.createPyodideModule = (await importModule(reader.url(files.module), fetched.get(files.module))).default;
    }
    const { loadPyodide } = await importModule(reader.url(files.loader), fetched.get(files.loader));
    const t0 = performance.now();
    this.pyodide = await loadPyodide(options);
    const t1 = performance.now();
    this.pyodide.FS.mkdirTree(DATA_DIR);
    this.bridge = this.pyodide.pyimport("bytepair.web_bridge");
    Object.assign(this.timings, { loadPyodide: t1 - t0, importBytepair: performance.now() - t1 });
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
          this.loader.expect([info.file]);
          const bytes = await this.loader.load(info.file);
          this.pyodide.FS.writeFile(target, bytes);
        }
        return name;
      })();
      promise.catch(() => this.encodings.delete(name));
      this.encodings.set(name, promise);
    }
    return this.encodings.get(name);
  }

  /** Call `bytepair.web_bridge.<fn>(...args)`; Python exceptions become BytepairError named after the class. */
  call(fn, ...args) {
    let result;
    try {
      result = this.bridge[fn](...args);
    } catch (err) {
      throw toJsError(err);
    }
    return result;
  }

  /** Copy an `array('I')` result out of wasm memory as a Uint32Array, and free the proxy. */
  static takeUint32(proxy) {
    const buffer = proxy.getBuffer("u32");
    try {
      return buffer.data.slice();
    } finally {
      buffer.release();
      proxy.destroy();
    }
  }
}

export function toJsError(err) {
  if (err && err.constructor?.name === "PythonError" && typeof err.type === "string") {
    const lines = String(err.message).trimEnd().split("\n");
    // After the traceback comes "module.ClassName: message" (possibly several lines); keep the message.
    const head = new RegExp(`^(?:[\\w.]+\\.)?${err.type}: `);
    const start = lines.findIndex((line) => head.test(line));
    const message = start >= 0 ? [lines[start].replace(head, ""), ...lines.slice(start + 1)].join("\n") : lines.at(-1);
    return new BytepairError(err.type, message);
  }
  return err;
}
