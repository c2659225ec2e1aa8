// Imported first by edge.mjs, before Pyodide's loader: that loader tells runtimes apart when it is
// evaluated (browsers, workers, Node, Deno, Bun, d8 and workerd) and throws "Cannot determine
// runtime environment" in Vercel's Edge Runtime, which matches none of its tests. That sandbox has
// no `navigator`; this one names the runtime Pyodide treats alike (workerd: no Node, no Worker, no
// DOM, fetch and WebAssembly only). Nothing is changed where a navigator exists.
if (typeof globalThis.navigator === "undefined") {
  globalThis.navigator = { userAgent: "Cloudflare-Workers (bytepair/edge: Vercel Edge Runtime)" };
}
