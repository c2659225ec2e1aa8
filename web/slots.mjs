// One runtime per assets URL, shared by every tokenizer created with that URL (and by a trained one
// that moves in), and closed when its last user is disposed: createTokenizer and train() both go
// through acquire/release here.

import { InProcessBackend, WorkerBackend } from "./backends.mjs";
import { DEFAULT_ASSETS } from "./threads.mjs";
import { InvalidInputError } from "./errors.mjs";
import { closePool } from "./pool.mjs";

export const backends = new Map(); // assetsUrl -> { backend, users }

/** The runtime of `assetsUrl`, shared; `threads` is threadSupport()'s answer (a worker of that kind,
 * or this thread where there is none). */
export function acquire(assetsUrl, first, threads) {
  let slot = backends.get(assetsUrl);
  if (!slot || slot.backend.closed) {
    const backend = threads ? new WorkerBackend(assetsUrl, first, threads) : new InProcessBackend(assetsUrl, first);
    slot = { backend, users: 0 };
    backends.set(assetsUrl, slot);
    backend.ready.catch(() => {
      if (backends.get(assetsUrl) === slot) backends.delete(assetsUrl);
      backend.close();
    });
  }
  slot.users += 1;
  return slot;
}

export function release(assetsUrl, slot) {
  slot.users -= 1;
  if (slot.users === 0) {
    slot.backend.close();
    closePool(slot.backend); // its helper workers (pool.mjs), if countFiles started any
    if (backends.get(assetsUrl) === slot) backends.delete(assetsUrl);
  }
}

export function normaliseAssets(assetsUrl) {
  if (assetsUrl === undefined && DEFAULT_ASSETS === undefined) {
    throw new InvalidInputError(
      "this runtime gives modules no URL (import.meta.url), so bytepair cannot find its assets beside itself: " +
        "pass createTokenizer({ assetsUrl }) naming where they are served (on Cloudflare Workers: import \"bytepair/workerd\")",
    );
  }
  const base = new URL(assetsUrl ?? DEFAULT_ASSETS, globalThis.location?.href ?? DEFAULT_ASSETS).href;
  return base.endsWith("/") ? base : base + "/";
}
