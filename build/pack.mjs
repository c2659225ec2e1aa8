#!/usr/bin/env node
// Build the npm package `bytepair` from dist/ (run by `make pack`; prints the tarball's path last).
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
  // The gzip copies made for static hosts (X.gz beside X) stay out: every browser that can run the
  // bundle (WebAssembly, module workers) accepts the Brotli copies, and a host that sends neither
  // serves the plain files. Files that only exist gzip'd (tokenizers/*.json.gz) are kept.
  const gzipCopy = (path) => path.endsWith(".gz") && existsSync(path.slice(0, -3));
  cpSync(join(ROOT, "dist"), join(STAGE, "dist"), { recursive: true, filter: (path) => !gzipCopy(path) });
  for (const file of ["README.md", "LICENSE"]) cpSync(join(ROOT, file), join(STAGE, file));
  writeFileSync(join(STAGE, "package.json"), JSON.stringify(pkg, null, 2) + "\n");

  let report;
  try {
    report = execFileSync("npm", ["pack", "--json", "--pack-destination", OUT], {
      cwd: STAGE, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"],
    });
  } finally {
    rmSync(STAGE, { recursive: true, force: true });
  }
  const [{ filename, size, unpackedSize, entryCount }] = JSON.parse(report);
  console.log(`npm package bytepair@${pkg.version}: ${entryCount} files, ${(size / 1e6).toFixed(1)} MB packed, ${(unpackedSize / 1e6).toFixed(1)} MB unpacked`);
  console.log(join(OUT, filename));
}

main();
