// A start that cannot progress fails within its bound (createTokenizer's startTimeout; 60 s by
// default, backends.mjs START_STALL_MS) with a WorkerError that says why, and never hangs: here the
// assets' server accepts every connection and never answers, so the worker waits on its first fetch.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";

const bp = await import(new URL("../../dist/bytepair.mjs", import.meta.url).href);

test("a start whose assets never arrive is a WorkerError within startTimeout", async () => {
  const held = new Set();
  const server = createServer((request, response) => held.add(response)); // accepted, never answered
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const assetsUrl = `http://127.0.0.1:${server.address().port}/bytepair/`;
  try {
    const t0 = performance.now();
    const err = await bp.createTokenizer({ encoding: "o200k_base", assetsUrl, startTimeout: 2 }).then(
      (tok) => { tok.dispose(); return null; },
      (e) => e,
    );
    const seconds = (performance.now() - t0) / 1000;
    assert.ok(err instanceof bp.WorkerError, `expected WorkerError, got ${err?.name}: ${err?.message}`);
    assert.match(err.message, /did not start: nothing arrived from its worker for 2 s/);
    assert.ok(err.message.includes(assetsUrl), err.message); // names where the assets were looked for
    assert.ok(held.size >= 1, "the worker asked the server for its assets");
    assert.ok(seconds >= 1.9 && seconds < 12, `failed after ${seconds.toFixed(1)} s`);
  } finally {
    for (const response of held) response.destroy();
    server.closeAllConnections?.();
    server.close();
  }
});

test("startTimeout must be a positive, finite number of seconds", async () => {
  for (const bad of [0, -1, Infinity, "5", null]) {
    await assert.rejects(bp.createTokenizer({ startTimeout: bad }), { name: "InvalidInputError", message: /startTimeout/ });
  }
});
