// bytepair on Cloudflare Workers (workerd): `import { createTokenizer } from "bytepair/workerd"`
// (or plain "bytepair", which resolves here under the "workerd" export condition, as Wrangler sets).
//
// Why an entry of its own: a Worker may not compile WebAssembly from fetched bytes, nor import a
// module by URL, and its modules have no import.meta.url. So this module imports Pyodide's wasm and
// JavaScript statically (Wrangler and workerd make the .wasm a WebAssembly.Module), and the other
// assets (manifest, memory snapshot, standard library, rank files; all checked against the
// manifest as anywhere else) come from the Worker's static assets: give that binding as `assets`.
// There is no worker thread in a Worker, so the runtime runs in the request's isolate, with the
// same API (see README, "Cloudflare Workers").
//
//   import { createTokenizer } from "bytepair/workerd";
//   export default { async fetch(request, env) {
//     const tok = await createTokenizer({ encoding: "o200k_base", assets: env.ASSETS });
//     return Response.json(Array.from(await tok.encode(await request.text())));
//   } };
import wasm from "./pyodide/pyodide.asm.wasm";
import * as asm from "./pyodide/pyodide.asm.mjs";
import * as loader from "./pyodide/pyodide.mjs";
import { embed } from "./embedded.mjs";
import { createTokenizer as create, listEncodings as encodings, listTokenizers as tokenizers } from "./bytepair.mjs";
import { InvalidInputError } from "./errors.mjs";

export * from "./bytepair.mjs";

/** Where the assets seem to be: any absolute URL does, since `assets` answers every fetch. */
const ASSETS_URL = "https://bytepair.assets/";

function withAssets(options, call) {
  const { assets, ...rest } = options ?? {};
  if (typeof assets?.fetch !== "function") {
    throw new InvalidInputError(
      `${call} on Cloudflare Workers takes { assets }: the binding of the Worker's static assets (env.ASSETS), ` +
        "holding the files `npx bytepair-assets public/bytepair --no-compress` writes " +
        "(wrangler.toml: [assets] directory = \"public/bytepair\", binding = \"ASSETS\")",
    );
  }
  embed({ wasm, asm, loader, fetch: (url, init) => assets.fetch(url, init) });
  // What Pyodide's JavaScript expects of a runtime that is not Node, and a Worker lacks: a
  // `location` to resolve its URLs against, and setImmediate (else it schedules through
  // addEventListener("message", ..., true), which workerd refuses).
  if (typeof globalThis.location === "undefined") globalThis.location = new URL(ASSETS_URL);
  if (typeof globalThis.setImmediate !== "function") {
    globalThis.setImmediate = (fn, ...args) => setTimeout(fn, 0, ...args);
    globalThis.clearImmediate = (id) => clearTimeout(id);
  }
  return { assetsUrl: ASSETS_URL, ...rest };
}

/** createTokenizer, with `assets`: the Worker's static assets binding that serves dist/. */
export async function createTokenizer(options = {}) {
  return create(withAssets(options, "createTokenizer"));
}

export async function listEncodings(options = {}) {
  return encodings(withAssets(options, "listEncodings"));
}

export async function listTokenizers(options = {}) {
  return tokenizers(withAssets(options, "listTokenizers"));
}
