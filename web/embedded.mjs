// What the runtime is handed, instead of finding it, where a JavaScript runtime allows neither
// module URLs nor compiling WebAssembly from bytes: Cloudflare's workerd (Cloudflare Workers).
//
// Why a module of its own: there, `import.meta.url` is undefined, `import()` of a URL is refused,
// and WebAssembly can only be instantiated from a module the Worker imported statically (compiling
// fetched bytes fails: "Wasm code generation disallowed by embedder"). So the entry for those
// runtimes (workerd.mjs, `bytepair/workerd`) imports Pyodide's wasm and JavaScript statically and
// puts them here, with the fetch that reads the other assets (the Worker's static assets binding);
// runtime.mjs takes them from here when they are set. Everything else is the same code path as in a
// browser: every asset is still checked against the manifest, the wasm's bytes included (the
// snapshot is stored against them).
//
//   import wasm from "./pyodide/pyodide.asm.wasm";      // a WebAssembly.Module in workerd
//   embed({ wasm, asm, loader, fetch: (url) => env.ASSETS.fetch(url) });

export const EMBEDDED = {
  /** Pyodide's compiled wasm module (WebAssembly.Module), or null: compile the fetched bytes. */
  wasm: null,
  /** Pyodide's modules, pyodide.asm.mjs and pyodide.mjs, as imported namespaces; null: import by URL. */
  asm: null,
  loader: null,
  /** The fetch that reads assets; null: the global fetch. */
  fetch: null,
};

/** Hand the runtime what it cannot find itself (see the top of this module). */
export function embed({ wasm = null, asm = null, loader = null, fetch = null } = {}) {
  Object.assign(EMBEDDED, { wasm, asm, loader, fetch });
}
