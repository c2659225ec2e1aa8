#!/usr/bin/env node
// `npx bytepair`: the command line of the npm package, for Node >= 20.
//
//   npx bytepair count FILE            npx bytepair encode --format lines FILE
//   npx bytepair decode IDS.json       npx bytepair inspect -m gpt-4o FILE      npx bytepair list
//
// Why it runs the Python CLI itself: this program is `bytepair.cli.main` from the very core the
// bundle ships, started in Pyodide, so its commands, flags, messages and exit codes are the Python
// CLI's by construction (`bytepair --help` documents them), and files are read as bytes the same
// way (CRLF kept, invalid UTF-8 refused with the byte offset). Only the glue is here: the host's
// directories are mounted at their own paths so that FILE arguments mean what they mean in the
// shell, and every rank file is installed (verified against the manifest) before the command runs.
// Assets: the directory of this file when it holds manifest.json (the npm package, dist/), else
// ../dist/ (a repository checkout); BYTEPAIR_ASSETS=DIR overrides both.
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { setFlagsFromString } from "node:v8";

// A command is a short process: V8's optimising tier (TurboFan) would recompile the interpreter's
// hot wasm functions on the machine's cores while the command runs, and a command rarely lives long
// enough to gain from it. This is the CLI's own process, so the flag (process-wide) is ours to set:
// a warm `count FILE` of 1.4 kB took 0.78 s of CPU instead of 1.10 (wall 1.83 s against 2.87, at a
// load average of 10 on 2 cores), and 5 MB 3.36 s instead of 3.22 (+4%).
let v8Flags = "";
try {
  setFlagsFromString("--liftoff-only");
  v8Flags = "--liftoff-only"; // V8's code cache is kept per flags (Runtime.load)
} catch {
  // a runtime without V8's flags (the CLI is for Node; elsewhere it runs as it is)
}

/** Pyodide's own top-level directories, which the host's must not cover. */
const PYODIDE_DIRS = new Set(["lib", "lib64", "dev", "proc", "sys", "bytepair-data"]);

function assetsDir() {
  if (process.env.BYTEPAIR_ASSETS) return process.env.BYTEPAIR_ASSETS;
  const here = dirname(fileURLToPath(import.meta.url));
  return existsSync(join(here, "manifest.json")) ? here : join(here, "..", "dist");
}

/** Mount each top-level host directory at the same path inside Pyodide (POSIX hosts). */
function mountHost(pyodide) {
  const { FS } = pyodide;
  for (const name of readdirSync("/")) {
    if (PYODIDE_DIRS.has(name)) continue;
    try {
      if (!statSync(`/${name}`).isDirectory()) continue;
      FS.mkdirTree(`/${name}`);
      FS.mount(FS.filesystems.NODEFS, { root: `/${name}` }, `/${name}`);
    } catch {
      // unreadable, or busy in Pyodide: files there cannot be named on the command line
    }
  }
}

/** The folder of the optional package bytepair-tokenizers; null if it is not installed. */
function optionalTokenizers() {
  try {
    return dirname(fileURLToPath(import.meta.resolve("bytepair-tokenizers/package.json")));
  } catch {
    return null;
  }
}

function write(stream, data) {
  return new Promise((resolve) => {
    if (!data.length) return resolve();
    stream.write(data, () => resolve());
  });
}

async function main() {
  const dir = assetsDir();
  const { Runtime } = await import(pathToFileURL(join(dir, "runtime.mjs")).href);
  let runtime;
  try {
    runtime = await Runtime.load({ assetsUrl: pathToFileURL(dir + "/").href, v8Flags });
    const names = Object.keys(runtime.manifest.encodings);
    const DEFAULT_ENCODING = runtime.pyodide.runPython("import bytepair.cli\nbytepair.cli.DEFAULT_ENCODING"); // the Python CLI's
    // The rank files of the encodings not built in a restored snapshot (Pyodide's in-memory files
    // are JavaScript's, not in it; a built encoding never reads its file again) ... (the GPT-3
    // encodings' only with the optional package bytepair-tokenizers installed: without it they are
    // left out, and the Python CLI says so if one is asked for)
    const present = await Promise.all(names.map((name) => runtime.ensureEncoding(name).then(() => name, () => null)));
    if (!present.includes(DEFAULT_ENCODING)) await runtime.ensureEncoding(DEFAULT_ENCODING); // its error, if that fails
    if (runtime.snapshotKey) {
      // ... and on a cold start, the default encoding built, then the started runtime kept in the
      // user's cache folder (see stored.mjs; BYTEPAIR_CACHE=off keeps nothing) for the next command
      // to restore: the snapshot createTokenizer() keeps too, so either reuses the other's. Another
      // encoding is built when a command asks for it. Why not every encoding: that snapshot was
      // 58 MB against 39, and a warm `count FILE` took 1.63 s instead of 1.30 (CPU 0.73 s against
      // 0.66; 5 interleaved rounds at a load average of 9.6-9.9); `count -e cl100k_base FILE`, which
      // now builds its ranks on each command, 1.84 s instead of 1.63. Taken before the host's
      // folders are mounted, which a snapshot must not hold.
      runtime.pyodide.runPython(`import bytepair\nbytepair.get_encoding(${JSON.stringify(DEFAULT_ENCODING)}).encode("warm")`);
      runtime.storeSnapshot([DEFAULT_ENCODING]);
      await runtime.snapshotStored;
    }
  } catch (err) {
    process.stderr.write(`bytepair: ${err.message}\n`);
    return 1;
  }
  if (process.platform !== "win32") mountHost(runtime.pyodide);
  // --tokenizer NAME: the package's prepared files, by their host paths (mounted), with the sha256
  // the Python side checks them against.
  // They are in dist/ (a repository checkout) or in the optional package bytepair-tokenizers.
  const extra = optionalTokenizers();
  const prepared = Object.fromEntries(Object.entries(runtime.manifest.tokenizers ?? {}).map(([name, { file }]) =>
    [name, { path: existsSync(join(dir, file)) || !extra ? join(dir, file) : join(extra, file), sha256: runtime.manifest.files[file]?.sha256 }]));
  const { code, stdout, stderr } = runtime.call("run_cli", process.argv.slice(2), process.platform === "win32" ? null : process.cwd(),
    JSON.stringify(prepared));
  process.stdout.on("error", () => {}); // a closed pipe (`| head`): the output is simply not wanted
  await write(process.stderr, stderr);
  await write(process.stdout, stdout);
  await runtime.storeCode(); // if this start had no code cache (a cold start stored one with its snapshot)
  return code;
}

process.exitCode = await main();
