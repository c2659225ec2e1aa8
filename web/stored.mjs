// Memory snapshots of a fully started runtime, kept between starts: in a browser, in the origin
// private file system; under Node, Deno and Bun, in the user's cache folder. The next start
// restores one straight into WebAssembly memory instead of starting from the shipped snapshot and
// building its encodings' ranks again (runtime.mjs decides when to store and restore).
//
// Why a module of its own: both places hold the same files per key and follow the same rules
// (written whole under a temporary name, then moved; the .json last; each file checked against it
// before use); only how bytes reach a folder differs, which is each folder's four methods here.
//
// Files: `bytepair-runtime-<key>.bin` (web/snapshot.mjs's stored form), `.wasm` (the verified
// pyodide.asm.wasm, kept in browsers only: there reading it back from the HTTP cache costs more than
// this; a host reads it from the package) and `.json`, written last, saying the snapshot's size, a
// checksum of each file (they are checked against what was written) and which encodings are built in
// it. The checksum is the folder's: in browsers XXH32 (snapshot.mjs's `xxh32`, ~2x sha256's speed
// there); under Node, Deno and Bun the CRC-32 of `node:zlib` (native: ~15 ms for a 38.6 MB snapshot
// where the JavaScript XXH32, run once in a fresh worker, took 45-110 ms), XXH32 where zlib has no
// crc32. The .json names it (`crc32` or `xxh32`): one written under the other is a miss. The key is
// the sha256 of the bundle's manifest.json, so a new bundle never meets an old snapshot. A file that
// fails its check is removed. Under Node, beside them: `bytepair-runtime-<key>.<tag>.code`, V8's code
// cache of Pyodide's module factory for one V8 and its flags (`tag`; see RuntimeSnapshots.code),
// which carries its own checksum (it is written after the .json when a warm start had none), and
// which only makes a start quicker: one that is missing or fails its check is compiled without.
//
// The host's folder: $BYTEPAIR_CACHE_DIR if set; else $XDG_CACHE_HOME/bytepair or ~/.cache/bytepair
// (Linux and other Unixes), ~/Library/Caches/bytepair (macOS), %LOCALAPPDATA%\bytepair\Cache
// (Windows); the home folder is $HOME (%USERPROFILE% on Windows), os.homedir() only when that is unset
// (Deno asks --allow-sys for it). BYTEPAIR_CACHE=off keeps nothing there. Without the rights to read
// the environment or to write there (Deno without --allow-env or --allow-write), nothing is kept, silently.
//
//   const folder = await snapshotFolder(true);   // null: nowhere to keep them
//   const meta = await RuntimeSnapshots.meta(folder, key);
//   const stored = await RuntimeSnapshots.get(folder, key, meta);   // checked, or null

import { HEAD_BYTES, PAGE, restoreFromFile, storedLength, xxh32 } from "./snapshot.mjs";
import { errorFrom } from "./errors.mjs";
import { CODE_CACHE, readWhole } from "./verified.mjs";

/** import() of a host module by name (bundlers for the browser must not resolve it: see backends.mjs). */
const hostModule = (name) => import(/* webpackIgnore: true */ /* @vite-ignore */ name);

/** The origin private file system (browsers' dedicated workers, where synchronous access handles
 * read tens of MB in a few milliseconds); one key kept. */
async function opfsFolder() {
  const root = await navigator.storage.getDirectory();
  return {
    keep: 1,
    keepsWasm: true,
    checksum: XXH32,
    async read(name) {
      let handle;
      try {
        handle = await root.getFileHandle(name);
      } catch {
        return null; // not there
      }
      const access = await handle.createSyncAccessHandle();
      try {
        const bytes = new Uint8Array(access.getSize());
        return access.read(bytes, { at: 0 }) === bytes.length ? bytes : null;
      } finally {
        access.close();
      }
    },
    async write(name, bytes) {
      const partial = await root.getFileHandle(`${name}.partial`, { create: true });
      const access = await partial.createSyncAccessHandle();
      try {
        access.truncate(0);
        if (access.write(bytes, { at: 0 }) !== bytes.length) throw new Error("short write");
        access.flush();
      } finally {
        access.close();
      }
      await partial.move(name);
    },
    remove: (name) => root.removeEntry(name).catch(() => {}),
    async names() {
      const names = [];
      for await (const name of root.keys()) names.push(name);
      return names;
    },
  };
}

/** The user's cache folder for bytepair under Node, Deno and Bun (see the top of this module), or
 * null if there is none to be had. Two keys kept (two projects on different versions would
 * otherwise take turns in replacing each other's). */
async function hostFolder() {
  const env = globalThis.process?.env;
  if (!env || /^(0|off|no|false)$/i.test(env.BYTEPAIR_CACHE ?? "")) return null;
  const [fs, path, os, zlib, fsSync, { Buffer }] = await Promise.all(
    ["node:fs/promises", "node:path", "node:os", "node:zlib", "node:fs", "node:buffer"].map(hostModule),
  );
  let dir = env.BYTEPAIR_CACHE_DIR;
  if (!dir) {
    // The environment first: os.homedir() needs --allow-sys under Deno (called only if HOME is unset).
    const home = (process.platform === "win32" ? env.USERPROFILE : env.HOME) || os.homedir();
    const xdg = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(home, ".cache");
    dir = process.platform === "win32" ? path.join(env.LOCALAPPDATA || path.join(home, "AppData", "Local"), "bytepair", "Cache")
      : process.platform === "darwin" ? path.join(home, "Library", "Caches", "bytepair")
      : path.join(xdg, "bytepair");
  }
  await fs.mkdir(dir, { recursive: true });
  // No fs.access(dir, W_OK) here: Deno's asks --allow-sys (the uid) and throws where no catch can
  // reach it; a folder that cannot be written makes put() answer false instead.
  const at = (name) => path.join(dir, name);
  return {
    keep: 2,
    keepsWasm: false,
    keepsCode: CODE_CACHE,
    checksum: typeof zlib.crc32 === "function" ? { name: "crc32", of: (bytes) => zlib.crc32(bytes) >>> 0 } : XXH32,
    dir,
    async read(name) {
      try {
        return await readWhole(fs, at(name));
      } catch {
        return null;
      }
    },
    async write(name, bytes) {
      const partial = at(`${name}.${process.pid}.partial`);
      try {
        await fs.writeFile(partial, bytes);
        await fs.rename(partial, at(name)); // atomic: a reader sees the old file or the new one
      } finally {
        await fs.rm(partial, { force: true });
      }
    },
    remove: (name) => fs.rm(at(name), { force: true }),
    /** `name` opened to be read in parts, synchronously ({ size, readAt(target, position), close }),
     * where the checksum can be taken in parts too (zlib's crc32); null if it is not there. */
    open(name) {
      if (typeof zlib.crc32 !== "function") return null;
      let fd;
      try {
        fd = fsSync.openSync(at(name), "r");
      } catch {
        return null;
      }
      return {
        size: fsSync.fstatSync(fd).size,
        readAt(target, position) {
          for (let done = 0; done < target.length;) {
            const n = fsSync.readSync(fd, target, done, target.length - done, position + done);
            if (!n) throw new RangeError("the stored snapshot is shorter than it says");
            done += n;
          }
        },
        crc32: (bytes, previous) => zlib.crc32(bytes, previous),
        clear: zeroed(Buffer),
        close: () => fsSync.closeSync(fd),
      };
    },
    /** Newest first (by modification time): put() keeps the newest keys. */
    async names() {
      const names = await fs.readdir(dir);
      const times = await Promise.all(names.map((name) => fs.stat(at(name)).then((s) => s.mtimeMs, () => 0)));
      return names.map((name, i) => [name, times[i]]).sort((a, b) => b[1] - a[1]).map(([name]) => name);
    },
    /** Mark `name` used now, so that put() keeps it. */
    touch: (name) => fs.utimes(at(name), new Date(), new Date()).catch(() => {}),
  };
}

/** The restore's `clear` under Node, Deno and Bun (snapshot.mjs's readPages): a page of the wasm
 * memory is zeroed only if it is not all zero already, as told by Buffer.compare (native) against a
 * zero page. Why: of the 163 left-out pages (10.7 MB) a warm o200k_base start zeroed, nearly all
 * were never written since the memory was made, and writing them made the system fault each one in
 * (163 pages of a fresh memory: fill 4.7-7.6 ms, the compare 2.0-3.7 ms; Node, Deno, Bun). */
export function zeroed(Buffer) {
  if (typeof Buffer?.compare !== "function") return null;
  const zero = new Uint8Array(PAGE);
  return (bytes) => {
    for (let at = 0; at < bytes.length; at += PAGE) {
      const part = bytes.subarray(at, at + PAGE);
      if (Buffer.compare(part, zero.subarray(0, part.length)) !== 0) part.fill(0);
    }
  };
}

const CODE_MAGIC = "BPCODE1\0";

/** The browser's checksum, and the host's where node:zlib has no crc32 (see the top of this module). */
const XXH32 = { name: "xxh32", of: xxh32 };

const folders = new Map();
/** Where runtime snapshots are kept here: the host's cache folder when `host` (the runtime runs as
 * under Node: Node, Deno, Bun), else the origin private file system in a browser's worker; null if
 * neither can be had (a page's main thread, a browser without it, workerd, the cache turned off). */
export function snapshotFolder(host) {
  const kind = host ? "host" : typeof globalThis.FileSystemSyncAccessHandle === "undefined" ? null : "opfs";
  if (!kind) return Promise.resolve(null);
  if (!folders.has(kind)) folders.set(kind, (kind === "host" ? hostFolder() : opfsFolder()).catch(() => null));
  return folders.get(kind);
}

export const RuntimeSnapshots = {
  prefix: "bytepair-runtime-",

  /** The .json of `key`'s stored snapshot; null if there is none (or no folder). */
  async meta(folder, key) {
    try {
      const bytes = folder && (await folder.read(`${this.prefix}${key}.json`));
      return bytes ? JSON.parse(new TextDecoder().decode(bytes)) : null;
    } catch {
      return null; // unreadable, or another tab holds the file
    }
  },

  /** `meta`'s stored snapshot, checked; null if there is none or it is unsound (then removed).
   * Where the folder can open it to be read in parts (the host's, with zlib's crc32), only its head
   * is read and checked here, and the rest is read straight into the wasm memory and checked then
   * (snapshot.mjs's restoreFromFile): { head, size, restore(heap, touched), close(), refused }, whose
   * restore throws an IntegrityError, and sets `refused`, if the checksum is not the .json's (the
   * start then falls back to the shipped snapshot), and closes the file, as close() does. */
  async get(folder, key, meta) {
    if (!folder || !meta) return null;
    const file = meta.crc32 !== undefined ? folder.open?.(`${this.prefix}${key}.bin`) : null;
    if (file) return this.opened(folder, key, meta, file);
    try {
      const stored = await folder.read(`${this.prefix}${key}.bin`);
      const { name, of } = folder.checksum;
      if (stored && stored.length === meta.size && storedLength(stored) === stored.length && of(stored) === meta[name]) {
        await folder.touch?.(`${this.prefix}${key}.json`);
        return stored;
      }
    } catch {
      return null; // another tab holds the file
    }
    await this.forget(folder, key);
    return null;
  },

  /** get's answer for a stored snapshot opened to be read in parts (`file`: see the host folder's open). */
  async opened(folder, key, meta, file) {
    const head = new Uint8Array(Math.min(file.size, HEAD_BYTES));
    let sound = false;
    try {
      file.readAt(head, 0);
      sound = file.size === meta.size && storedLength(head) === file.size;
    } catch {
      // unreadable: removed below
    }
    if (!sound) {
      file.close();
      await this.forget(folder, key);
      return null;
    }
    await folder.touch?.(`${this.prefix}${key}.json`);
    let open = true;
    const close = () => {
      if (open) file.close();
      open = false;
    };
    const opened = { head, size: file.size, refused: false, close };
    opened.restore = (heap, touched) => {
      try {
        if (restoreFromFile(head, file.readAt, heap, touched, file.crc32, file.clear) !== meta.crc32) {
          opened.refused = true;
          throw errorFrom({ name: "IntegrityError", message: "the stored runtime snapshot failed its checksum" });
        }
      } finally {
        close();
      }
    };
    return opened;
  },

  /** The pyodide.asm.wasm kept beside `key`'s snapshot if its size is the manifest's (`entry`) and
   * its XXH32 what `meta` says was written; null if there is none, and a kept copy that fails is removed. */
  async wasm(folder, key, entry, meta) {
    if (!folder?.keepsWasm || !meta?.wasmXxh32) return null;
    const name = `${this.prefix}${key}.wasm`;
    try {
      const bytes = await folder.read(name);
      if (!bytes || (bytes.length === entry.size && xxh32(bytes) === meta.wasmXxh32)) return bytes;
    } catch {
      return null; // another tab holds the file
    }
    await folder.remove(name);
    return null;
  },

  async forget(folder, key) {
    for (const ext of [".json", ".bin", ".wasm"]) await folder?.remove(`${this.prefix}${key}${ext}`).catch(() => {});
    if (folder?.keepsCode) for (const name of await this.codeNames(folder, key)) await folder.remove(name).catch(() => {});
  },

  /** The names of `key`'s kept code caches, newest first. */
  async codeNames(folder, key) {
    const names = await folder.names().catch(() => []);
    return names.filter((name) => name.startsWith(`${this.prefix}${key}.`) && name.endsWith(".code"));
  },

  /** V8's code cache of Pyodide's module factory (verified.mjs's compileFactory) kept beside `key`'s
   * snapshot for `tag` (the V8 and the flags it was made under: V8 refuses a cache made under other
   * flags, and the CLI runs with --liftoff-only), checked against the checksum it was written with;
   * null if there is none, and one that fails is removed. Stored form: "BPCODE1\0", the folder's
   * checksum of V8's bytes (u32, little-endian), V8's bytes. */
  async code(folder, key, tag) {
    if (!folder?.keepsCode) return null;
    const name = `${this.prefix}${key}.${tag}.code`;
    const bytes = await folder.read(name);
    if (!bytes) return null;
    const data = bytes.subarray(12);
    const sum = bytes.length > 12 ? new DataView(bytes.buffer, bytes.byteOffset, 12).getUint32(8, true) : -1;
    if (new TextDecoder().decode(bytes.subarray(0, 8)) === CODE_MAGIC && sum === folder.checksum.of(data)) return data;
    await folder.remove(name);
    return null;
  },

  /** Keep `data` as `key`'s code cache for `tag` (see code), and at most two others of `key`'s. */
  async putCode(folder, key, tag, data) {
    if (!folder?.keepsCode) return false;
    try {
      const bytes = new Uint8Array(12 + data.length);
      bytes.set(new TextEncoder().encode(CODE_MAGIC));
      new DataView(bytes.buffer).setUint32(8, folder.checksum.of(data), true);
      bytes.set(data, 12);
      const name = `${this.prefix}${key}.${tag}.code`;
      await folder.write(name, bytes);
      const others = (await this.codeNames(folder, key)).filter((other) => other !== name);
      for (const other of others.slice(2)) await folder.remove(other);
      return true;
    } catch {
      return false;
    }
  },

  /** Store `stored` under `key` (with `wasmBytes` where the folder keeps them), removing the files of
   * all but the folder's newest `keep - 1` other keys first; false if not stored. */
  async put(folder, key, stored, meta, wasmBytes = null) {
    if (!folder) return false;
    try {
      const others = [];
      for (const name of await folder.names()) {
        if (!name.startsWith(this.prefix) || !name.endsWith(".json")) continue;
        const other = name.slice(this.prefix.length, -".json".length);
        if (other !== key) others.push(other);
      }
      for (const other of others.slice(folder.keep - 1)) await this.forget(folder, other);
      for (const name of await folder.names()) { // partial files another writer left (it died)
        if (name.startsWith(this.prefix) && name.endsWith(".partial") && folder.keep === 1) await folder.remove(name);
      }
      const wasm = folder.keepsWasm ? wasmBytes : null;
      await folder.write(`${this.prefix}${key}.bin`, stored);
      if (wasm) await folder.write(`${this.prefix}${key}.wasm`, wasm);
      const full = { ...meta, size: stored.length, [folder.checksum.name]: folder.checksum.of(stored), wasmXxh32: wasm ? xxh32(wasm) : null };
      await folder.write(`${this.prefix}${key}.json`, new TextEncoder().encode(JSON.stringify(full)));
      return true;
    } catch {
      return false; // storage full or unavailable, or another tab is storing one
    }
  },
};
