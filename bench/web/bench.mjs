// The browser benchmark page's code: loads one tokenizer library at a time and times it. Driven by
// `python -m bench browser` through Playwright (`page.evaluate("bench.…")`); nothing here decides what
// to measure or how to report it.
//
// Every library is wrapped in the same small adapter, { encode, count, dispose, timings }, whose
// calls are awaited whether the library is synchronous (the JavaScript peers, on this page's main
// thread) or not (bytepair, whose Python runtime answers from a Web Worker): a timed call therefore
// includes everything a page waits for, for bytepair the postMessage round trip too.
//
// Start-up mode: `bench.html?start=LIBRARY&encoding=NAME&text=TEXT` starts loading as soon as this
// module runs and leaves a promise in `window.startup`, so the driver's own latency is never in the
// numbers; every time is `performance.now()`, i.e. milliseconds since this page's navigation began.

const LIBRARIES = {
  /** bytepair: the bundle in /dist/, its Python runtime in a module Web Worker. */
  async bytepair(encoding) {
    const { createTokenizer } = await import("/dist/bytepair.mjs");
    const tok = await createTokenizer({ encoding, assetsUrl: "/dist/" });
    return {
      encode: (text) => tok.encode(text),
      count: (text) => tok.count(text),
      dispose: () => tok.dispose(),
      timings: () => tok.backend.request("timings", {}), // internal: phase times of the runtime's start
    };
  },

  /** gpt-tokenizer: pure JavaScript, ranks compiled into an ES module per encoding. */
  async "gpt-tokenizer"(encoding) {
    const api = await import(`/node_modules/gpt-tokenizer/esm/encoding/${encoding}.js`);
    return { encode: (text) => api.encode(text), count: (text) => api.countTokens(text) };
  },

  /** js-tiktoken (lite): pure JavaScript; the ranks module is base64 text parsed into maps on construction. */
  async "js-tiktoken"(encoding) {
    const [{ Tiktoken }, { default: ranks }] = await Promise.all([
      import("/node_modules/js-tiktoken/dist/lite.js"),
      import(`/node_modules/js-tiktoken/dist/ranks/${encoding}.js`),
    ]);
    const enc = new Tiktoken(ranks);
    return { encode: (text) => enc.encode(text), count: (text) => enc.encode(text).length };
  },

  /** tiktoken (lite): Rust compiled to WebAssembly; the ranks JSON is fetched and parsed by the module. */
  async tiktoken(encoding) {
    const { init, Tiktoken } = await import("/node_modules/tiktoken/lite/init.js");
    const wasm = "/node_modules/tiktoken/lite/tiktoken_bg.wasm";
    const [, data] = await Promise.all([
      init((imports) => WebAssembly.instantiateStreaming(fetch(wasm), imports)),
      fetch(`/node_modules/tiktoken/encoders/${encoding}.json`).then((r) => r.json()),
    ]);
    const enc = new Tiktoken(data.bpe_ranks, data.special_tokens, data.pat_str);
    return { encode: (text) => enc.encode(text), count: (text) => enc.encode(text).length, dispose: () => enc.free() };
  },

  /** ai-tokenizer: pure JavaScript; the encoding module carries its ranks as string and byte tables. */
  async "ai-tokenizer"(encoding) {
    const [{ Tokenizer }, data] = await Promise.all([
      import("/node_modules/ai-tokenizer/dist/index.js"),
      import(`/node_modules/ai-tokenizer/dist/encoding/${encoding}.js`),
    ]);
    const tok = new Tokenizer(data);
    return { encode: (text) => tok.encode(text), count: (text) => tok.count(text) };
  },

  /** @huggingface/tokenizers (tokenizers.js): pure JavaScript, reading a tokenizer.json; the driver
   * writes one per encoding with bytepair (`Tokenizer.from_encoding(…).to_str()`) to /hf/ENCODING.json. */
  async "@huggingface/tokenizers"(encoding) {
    const [{ Tokenizer }, json] = await Promise.all([
      import("/node_modules/@huggingface/tokenizers/dist/tokenizers.mjs"),
      fetch(`/hf/${encoding}.json`).then((r) => {
        if (!r.ok) throw new Error(`cannot fetch /hf/${encoding}.json: HTTP ${r.status}`);
        return r.json();
      }),
    ]);
    const tok = new Tokenizer(json, {});
    const encode = (text) => tok.encode(text, { add_special_tokens: false }).ids;
    return { encode, count: (text) => encode(text).length };
  },
};

let current = null; // { name, encoding, lib } loaded by bench.load

/** First 16 hex digits of sha256 over the ids as little-endian uint32: the same fingerprint the
 * Python side computes (`bench.common.digest`), so ids can be compared without sending them back. */
async function digest(ids) {
  const words = ids instanceof Uint32Array ? ids : Uint32Array.from(ids);
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", words));
  return Array.from(hash.subarray(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Collect garbage before a timed call when Chromium exposes gc (--js-flags=--expose-gc), so one
 * call's litter is not billed to the next. */
function collectGarbage() {
  globalThis.gc?.();
}

/** Milliseconds and result of one awaited call. */
async function timed(fn) {
  collectGarbage();
  const start = performance.now();
  const result = await fn();
  return { ms: performance.now() - start, result };
}

async function fetchText(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`cannot fetch ${url}: HTTP ${response.status}`);
  return response.text();
}

function requireLoaded() {
  if (!current) throw new Error("no library loaded: call bench.load first");
  return current.lib;
}

/** Start-up: import + build the encoder + the first count; milestones since navigation began. */
async function startUp(name, encoding, text) {
  const moduleMs = performance.now();
  const lib = await LIBRARIES[name](encoding);
  const readyMs = performance.now();
  const count = await lib.count(text);
  const firstCountMs = performance.now();
  current = { name, encoding, lib };
  const timings = lib.timings ? await lib.timings() : null;
  return { moduleMs, readyMs, firstCountMs, count, timings };
}

const bench = {
  /** Load a library for later calls on this page; returns the milliseconds it took. */
  async load(name, encoding) {
    if (!LIBRARIES[name]) throw new Error(`unknown library ${name}`);
    current?.lib.dispose?.();
    const { ms, result } = await timed(() => LIBRARIES[name](encoding));
    current = { name, encoding, lib: result };
    return { ms };
  },

  /** Encode a file `1 + repeats` times: the first call (first pass) and `repeats` re-encodes. */
  async encodeFile(url, repeats) {
    const lib = requireLoaded();
    const text = await fetchText(url);
    const first = await timed(() => lib.encode(text));
    const warmMs = [];
    for (let i = 0; i < repeats; i++) warmMs.push((await timed(() => lib.encode(text))).ms);
    return {
      bytes: new TextEncoder().encode(text).length,
      tokens: first.result.length,
      digest: await digest(first.result),
      firstMs: first.ms,
      warmMs,
    };
  },

  /** Encode a file once: the worst cases, one call per fresh page. */
  async encodeOnce(url) {
    const lib = requireLoaded();
    const text = await fetchText(url);
    const { ms, result } = await timed(() => lib.encode(text));
    return { ms, bytes: new TextEncoder().encode(text).length, tokens: result.length, digest: await digest(result) };
  },

  /** The mixed stream: every file in turn, `rounds` times, on this page; milliseconds per round (the
   * texts are fetched before the first round, one garbage collection before each round, none between
   * files) and the fingerprint of every file's ids in every round, taken after that round's clock stopped. */
  async mixedStream(urls, rounds) {
    const lib = requireLoaded();
    const texts = [];
    for (const url of urls) texts.push(await fetchText(url));
    const out = [];
    for (let round = 0; round < rounds; round++) {
      collectGarbage();
      const results = [];
      const start = performance.now();
      for (const text of texts) results.push(await lib.encode(text));
      const ms = performance.now() - start;
      const files = [];
      for (const ids of results) files.push({ tokens: ids.length, digest: await digest(ids) });
      out.push({ ms, files });
    }
    return { bytes: texts.map((t) => new TextEncoder().encode(t).length), rounds: out };
  },

  /** Median milliseconds of `count("")`: the fixed cost of one call (for bytepair, the worker round trip). */
  async callOverhead(repeats) {
    const lib = requireLoaded();
    const times = [];
    for (let i = 0; i < repeats; i++) times.push((await timed(() => lib.count(""))).ms);
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)];
  },

  /** Run `bench[method](...args)` without making the caller wait: the outcome goes to
   * `window.benchJobDone`, a function the driver exposes. Why: a synchronous library blocks this
   * page's main thread, and then no evaluate (nor any timer in the page) runs until it is done; the
   * driver waits on its own clock instead, and closes the page when a call takes too long. */
  start(method, ...args) {
    Promise.resolve()
      .then(() => bench[method](...args))
      .then(
        (result) => window.benchJobDone({ ok: true, result }),
        (err) => window.benchJobDone({ ok: false, error: String(err?.stack ?? err) }),
      );
  },
};

window.bench = bench;

const params = new URLSearchParams(location.search);
if (params.has("start")) {
  const [name, encoding, text] = ["start", "encoding", "text"].map((key) => params.get(key));
  window.startup = startUp(name, encoding ?? "o200k_base", text ?? "hello world").catch((err) => ({
    error: String(err?.stack ?? err),
  }));
}
