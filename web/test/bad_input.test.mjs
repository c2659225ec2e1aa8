// The bad-input table (bad_inputs.mjs) under Node, through the runtime's worker thread: each call must
// reject (or throw) with the error name and message the table gives, and the process must live on.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { context, mismatches, runAll } from "./bad_inputs.mjs";

const bp = await import(new URL("../../dist/bytepair.mjs", import.meta.url).href);
let ctx;
before(async () => {
  ctx = await context(bp);
});
after(() => ctx.tok.dispose());

test("every bad input is refused with a named error", async () => {
  assert.deepEqual(mismatches(await runAll(ctx)), []);
  assert.equal(await ctx.tok.count("still alive"), 2);
});

test("a disallowed special token is named in the error", async () => {
  await assert.rejects(ctx.tok.encode("x <|endoftext|>"), { name: "DisallowedSpecialTokenError", token: "<|endoftext|>" });
  await assert.rejects(ctx.tok.decode([-1]), (err) => err.name === "InvalidTokenError" && err.token === undefined);
});

test("decoder() on a disposed tokenizer throws at once and leaves nothing pending", async () => {
  const tok = await bp.createTokenizer({ encoding: "r50k_base" });
  const d = tok.decoder(); // opened, never used: disposing must not leave a rejection unhandled
  tok.dispose();
  assert.throws(() => tok.decoder(), { name: "DisposedError" });
  await assert.rejects(d.write([1]), { name: "DisposedError" });
  await assert.rejects(d.close(), { name: "DisposedError" });
  await new Promise((resolve) => setTimeout(resolve, 50)); // an unhandled rejection would fail the run here
});
