// Types of `bytepair/edge` (Vercel's Edge Runtime, the "edge-light" condition): bytepair's API, in-process,
// with `assetsUrl` required (an absolute http(s) URL) and Pyodide's wasm optionally given compiled.
import type { CreateTokenizerOptions, Tokenizer } from "./bytepair";

export * from "./bytepair";

export interface EdgeOptions {
  /** Where bytepair's assets are served (`npx bytepair-assets public/bytepair`): an absolute http(s) URL. Required. */
  assetsUrl: string;
  /** Pyodide's wasm compiled (`import wasm from "bytepair/dist/pyodide/pyodide.asm.wasm?module"` on Vercel,
   * which refuses to compile WebAssembly from bytes); without it the fetched bytes are compiled. */
  wasm?: WebAssembly.Module;
}

export function createTokenizer(options: Omit<CreateTokenizerOptions, "assetsUrl"> & EdgeOptions): Promise<Tokenizer>;
export function listEncodings(options: EdgeOptions): Promise<string[]>;
export function listTokenizers(options: EdgeOptions): Promise<string[]>;
