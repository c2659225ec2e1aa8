#!/usr/bin/env node
// `npx bytepair-assets OUT_DIR [--no-compress]`: bytepair's assets, ready for a static host or
// Cloudflare's static assets, written into OUT_DIR (serve OUT_DIR and pass it as assetsUrl).
//
// Why a step of its own: the npm package ships each asset in one form, to stay small (build/pack.mjs):
// the memory snapshot as snapshot.bin.br only (Node, Deno and Bun read it as it is), the
// open-model tokenizers in the optional package bytepair-tokenizers. A web server needs the plain
// files, and sends less with precompressed copies beside them (X.br and X.gz, which hosts such as
// build/serve.py, nginx's gzip_static/brotli_static or Netlify pick by Accept-Encoding). So this
// copies dist/, writes the plain form of every file shipped compressed, adds bytepair-tokenizers'
// files when that package is installed, and (unless --no-compress) writes the .br and .gz copies
// of each file that they shrink. Every file is checked against manifest.json's sha256 first.
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, brotliDecompressSync, constants, gzipSync } from "node:zlib";

const HERE = dirname(fileURLToPath(import.meta.url));

function optionalTokenizers() {
  try {
    return dirname(fileURLToPath(import.meta.resolve("bytepair-tokenizers/package.json")));
  } catch {
    return null;
  }
}

function main(argv) {
  const compress = !argv.includes("--no-compress");
  const [out, ...rest] = argv.filter((a) => a !== "--no-compress");
  if (!out || rest.length || out.startsWith("-")) {
    process.stderr.write("usage: npx bytepair-assets OUT_DIR [--no-compress]\n");
    return 2;
  }
  const target = resolve(out);
  if (target === HERE) {
    process.stderr.write("bytepair-assets: OUT_DIR must not be the package's own dist/\n");
    return 2;
  }
  const manifest = JSON.parse(readFileSync(join(HERE, "manifest.json"), "utf8"));
  const extra = optionalTokenizers();
  mkdirSync(target, { recursive: true });
  cpSync(HERE, target, { recursive: true, filter: (path) => !/\.(br|gz)$/.test(path) || path.endsWith(".json.gz") });
  let missing = 0;
  for (const [path, { sha256 }] of Object.entries(manifest.files)) {
    const file = join(target, path);
    let bytes = existsSync(file) ? readFileSync(file) : null;
    if (!bytes && existsSync(join(HERE, `${path}.br`))) bytes = brotliDecompressSync(readFileSync(join(HERE, `${path}.br`)));
    if (!bytes && extra && existsSync(join(extra, path))) bytes = readFileSync(join(extra, path));
    if (!bytes) {
      if (!/^(tokenizers|encodings\/(p50k|r50k))/.test(path)) throw new Error(`${path} is missing from ${HERE}: reinstall bytepair`);
      missing += 1;
      continue;
    }
    if (createHash("sha256").update(bytes).digest("hex") !== sha256) throw new Error(`${path} does not match manifest.json: reinstall bytepair`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, bytes);
    if (!compress || path.endsWith(".gz") || path.endsWith(".whl")) continue;
    const packed = existsSync(join(HERE, `${path}.br`)) ? readFileSync(join(HERE, `${path}.br`))
      : brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
    if (packed.length < bytes.length * 0.95) writeFileSync(`${file}.br`, packed);
    const gzipped = gzipSync(bytes, { level: 9 });
    if (gzipped.length < bytes.length * 0.95) writeFileSync(`${file}.gz`, gzipped);
  }
  const note = missing ? ` (without the open-model tokenizers and the GPT-3 encodings: npm install bytepair-tokenizers to add them)` : "";
  process.stdout.write(`bytepair-assets: ${target} is ready to serve as assetsUrl${note}\n`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
