// bytepair in Vercel's Edge Runtime (Edge Functions, Next.js edge routes and middleware, and the
// `edge-runtime` npm package that runs its sandbox locally): `import { createTokenizer } from
// "bytepair/edge"`, or plain "bytepair", which resolves here under the "edge-light" export
// condition (as Vercel's and Next.js's bundlers set).
//
// Why an entry of its own: the sandbox has no worker threads, no module URLs (the function is one
// bundled script: no import.meta.url, no import() by URL) and no `navigator`, which Pyodide's loader
// needs to recognise it (edge-navigator.mjs, imported first). So this module imports Pyodide's two
// JavaScript modules statically (the bundler puts them in the function) and runs the runtime
// in-process, with the same API. The other assets (manifest, memory snapshot, standard library,
// rank files, Pyodide's wasm; all checked against the manifest as anywhere else) are fetched from
// `assetsUrl`, which must be an absolute http(s) URL: the `npx bytepair-assets public/bytepair`
// folder of the deployment, say. Pyodide's wasm is compiled from the fetched bytes (the
// `edge-runtime` sandbox allows it), unless `wasm` gives it compiled: on Vercel itself, where
// compiling WebAssembly from bytes is refused, import it as a module:
//
//   import { createTokenizer } from "bytepair/edge";
//   import wasm from "bytepair/dist/pyodide/pyodide.asm.wasm?module";   // Vercel: a WebAssembly.Module
//   export const config = { runtime: "edge" };
//   export default async function handler(request) {
//     const tok = await createTokenizer({ encoding: "o200k_base", assetsUrl: new URL("/bytepair/", request.url).href, wasm });
//     return Response.json(Array.from(await tok.encode(await request.text())));
//   }
import "./edge-navigator.mjs";
import * as asm from "./pyodide/pyodide.asm.mjs";
import * as loader from "./pyodide/pyodide.mjs";
import { EMBEDDED, embed } from "./embedded.mjs";
import { createTokenizer as create, listEncodings as encodings, listTokenizers as tokenizers } from "./bytepair.mjs";
import { InvalidInputError } from "./errors.mjs";

export * from "./bytepair.mjs";

function inSandbox(options, call) {
  const { wasm = null, ...rest } = options ?? {};
  let base;
  try {
    base = new URL(rest.assetsUrl);
  } catch {
    base = null;
  }
  if (!base || !/^https?:$/.test(base.protocol)) {
    throw new InvalidInputError(
      `${call} in the Edge Runtime takes { assetsUrl }: the absolute http(s) URL where bytepair's assets are served ` +
        `(npx bytepair-assets public/bytepair, then new URL("/bytepair/", request.url)); got ${JSON.stringify(rest.assetsUrl ?? null)}`,
    );
  }
  if (wasm !== null && !(wasm instanceof WebAssembly.Module)) {
    throw new InvalidInputError(`${call}: wasm must be a WebAssembly.Module (import "bytepair/dist/pyodide/pyodide.asm.wasm?module")`);
  }
  // A wasm given once is kept (a later call without it, or one racing it, must not make a start compile bytes).
  embed({ wasm: wasm ?? EMBEDDED.wasm, asm, loader, fetch: null });
  // What Pyodide's JavaScript expects of a runtime that is not Node, and the sandbox lacks: a
  // `location` to resolve its URLs against, and setImmediate.
  if (typeof globalThis.location === "undefined") globalThis.location = new URL(base.href);
  if (typeof globalThis.setImmediate !== "function") {
    globalThis.setImmediate = (fn, ...args) => setTimeout(fn, 0, ...args);
    globalThis.clearImmediate = (id) => clearTimeout(id);
  }
  return { ...rest, assetsUrl: base.href };
}

/** createTokenizer, in-process, with `assetsUrl` required and an optional compiled `wasm`. */
export async function createTokenizer(options = {}) {
  return create(inSandbox(options, "createTokenizer"));
}

export async function listEncodings(options = {}) {
  return encodings(inSandbox(options, "listEncodings"));
}

export async function listTokenizers(options = {}) {
  return tokenizers(inSandbox(options, "listTokenizers"));
}
