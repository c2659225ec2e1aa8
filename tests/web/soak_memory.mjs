// The soak run's out-of-memory cases through the JavaScript API under Node (tests/web/test_hostile_browser.py
// runs it): a call too big for wasm memory answers InputTooLargeError in words, a call that grew the
// memory is followed by a restart that gives it back, and the other tokenizers keep answering.
// Prints one JSON line of what it saw.
const bp = await import(new URL(process.argv[2] + "/bytepair.mjs").href);
const tok = await bp.createTokenizer({ encoding: "o200k_base" });
const llama = await bp.createTokenizer({ tokenizer: "llama3" });
const out = { start: (await tok.memoryStats()).wasmBytes };
const outcome = (p) => p.then((v) => ({ ok: v.length }), (e) => ({ name: e.name, message: e.message }));
const settled = async () => {
  for (let i = 0; i < 100 && (tok.backend.pending.size || tok.backend.restoring); i++) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 500));
  return (await tok.memoryStats()).wasmBytes;
};
let t0 = performance.now();
out.grow = await outcome(tok.encode("的一是不了人我在有他这为之大来以个中上们".repeat(1_000_000)));
out.growMs = performance.now() - t0;
out.afterGrow = await settled();
t0 = performance.now();
out.decode = await outcome(tok.decode(new Uint32Array(120_000_000).fill(15339)));
out.decodeMs = performance.now() - t0;
out.afterDecode = await settled();
out.counts = [await tok.count("hello world"), await llama.count("hello world")];
out.restarts = tok.backend.restarts.map((r) => r.reason);
console.log(JSON.stringify(out));
tok.dispose();
llama.dispose();
