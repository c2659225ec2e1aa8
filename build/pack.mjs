#!/usr/bin/env node
// Build the npm package `bytepair` from dist/, and the optional `bytepair-tokenizers` (run by `make
// pack`; prints each tarball's size and path, bytepair's path last).
//
//   node build/pack.mjs [--out build/npm]
//
// Why a staging folder: the repository's package.json is the developers' (private, with pyodide,
// esbuild and the JS tokenizers we compare with as devDependencies); the package users install is
// the bundle and nothing else. So the package.json written here is the repository's without
// `private`, `scripts` and `devDependencies` (and with no `dependencies`: dist/ carries Pyodide),
// beside a copy of dist/, README.md and LICENSE; `npm pack` then makes the tarball from that folder.
// Only that folder (OUT/package) and the tarball being written are replaced in OUT: `--out` may name
// a folder holding other things (`--out .` is the repository).

import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values: args } = parseArgs({ options: { out: { type: "string", default: join(ROOT, "build", "npm") } } });
const OUT = resolve(args.out);
const STAGE = join(OUT, "package");

function main() {
  const dev = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  const manifestPath = join(ROOT, "dist", "manifest.json");
  if (!existsSync(manifestPath)) throw new Error("dist/ is not built: run `make bundle` first");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  if (manifest.bytepair !== dev.version) {
    throw new Error(`package.json says version ${dev.version} but dist/ holds bytepair ${manifest.bytepair}: make them agree`);
  }
  const { private: _private, scripts: _scripts, devDependencies: _dev, dependencies, ...published } = dev;
  if (dependencies && Object.keys(dependencies).length) {
    throw new Error(`the package must have no runtime dependencies (dist/ carries Pyodide); package.json lists ${Object.keys(dependencies)}`);
  }
  const pkg = { ...published, files: ["dist/", "README.md", "LICENSE"] };

  const tarball = join(OUT, `${pkg.name.replace(/^@/, "").replace("/", "-")}-${pkg.version}.tgz`); // npm pack's name for it
  rmSync(STAGE, { recursive: true, force: true });
  rmSync(tarball, { force: true });
  mkdirSync(STAGE, { recursive: true });
  // One form of each file. The .br and .gz copies bundle.mjs makes are for HTTP servers: a user who
  // serves the package runs `npx bytepair-assets OUT_DIR` (web/assets.mjs), which writes them. The
  // memory snapshot goes as its Brotli copy alone (Node, Deno and Bun read it so: runtime.mjs
  // readLocal), and the open-model tokenizers go into the optional package bytepair-tokenizers.
  const DIST = join(ROOT, "dist");
  const brotliOnly = new Set([join(DIST, manifest.snapshot)]);
  // The optional package also carries the GPT-3 encodings' ranks (p50k_base, r50k_base; p50k_edit
  // uses p50k's), which few callers want: o200k_base and cl100k_base stay in bytepair.
  const legacy = ["p50k_base", "r50k_base"].map((name) => manifest.encodings[name]?.file).filter(Boolean);
  const keep = (path) => {
    if (path === join(DIST, "tokenizers") || path.startsWith(join(DIST, "tokenizers") + "/")) return false;
    if (legacy.some((file) => path === join(DIST, file) || path.startsWith(join(DIST, file) + "."))) return false;
    if (brotliOnly.has(path)) return false;
    if (brotliOnly.has(path.replace(/\.br$/, ""))) return true;
    return !(/\.(gz|br)$/.test(path) && existsSync(path.replace(/\.(gz|br)$/, "")));
  };
  cpSync(DIST, join(STAGE, "dist"), { recursive: true, filter: keep });
  for (const file of ["README.md", "LICENSE"]) cpSync(join(ROOT, file), join(STAGE, file));
  writeFileSync(join(STAGE, "package.json"), JSON.stringify(pkg, null, 2) + "\n");

  const tokenizers = {
    name: "bytepair-tokenizers",
    version: pkg.version,
    description: "The open-model tokenizer.json files (Llama 3, Qwen 2.5, Qwen 3, DeepSeek V3, GPT-2) for bytepair's createTokenizer({ tokenizer }) and npx bytepair -t NAME, and the GPT-3 encodings' ranks (p50k_base, r50k_base)",
    license: pkg.license,
    type: "module",
    files: ["tokenizers/", "encodings/", "LICENSE"],
    exports: { "./package.json": "./package.json", "./tokenizers/*": "./tokenizers/*", "./encodings/*": "./encodings/*" },
  };
  const extraStage = join(OUT, "package-tokenizers");
  const extraTarball = join(OUT, `${tokenizers.name}-${tokenizers.version}.tgz`);
  rmSync(extraStage, { recursive: true, force: true });
  rmSync(extraTarball, { force: true });
  mkdirSync(extraStage, { recursive: true });
  cpSync(join(DIST, "tokenizers"), join(extraStage, "tokenizers"), {
    recursive: true, filter: (path) => !(/\.(gz|br)$/.test(path) && existsSync(path.replace(/\.(gz|br)$/, ""))),
  });
  for (const file of legacy) cpSync(join(DIST, file), join(extraStage, file));
  cpSync(join(ROOT, "LICENSE"), join(extraStage, "LICENSE"));
  writeFileSync(join(extraStage, "package.json"), JSON.stringify(tokenizers, null, 2) + "\n");

  const npmPack = (cwd) => {
    try {
      return JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", OUT], {
        cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"],
      }))[0];
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  };
  const extra = npmPack(extraStage);
  const main = npmPack(STAGE);
  const mb = (n) => (n / 1e6).toFixed(1);
  console.log(`npm package ${tokenizers.name}@${tokenizers.version} (optional): ${extra.entryCount} files, ${mb(extra.size)} MB packed, ${mb(extra.unpackedSize)} MB unpacked`);
  console.log(join(OUT, extra.filename));
  console.log(`npm package bytepair@${pkg.version}: ${main.entryCount} files, ${mb(main.size)} MB packed, ${mb(main.unpackedSize)} MB unpacked`);
  console.log(join(OUT, main.filename));
}

main();
