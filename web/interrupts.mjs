// Stopping the Python work of one call from the thread that made it, and only that call.
//
// Why: the runtime runs one Python call at a time in its worker; a call that runs long (a stranger's
// chat template, a huge text) holds every other tokenizer on that runtime. Where the worker can share
// memory with its caller (a SharedArrayBuffer: Node, Deno and Bun, and pages that are cross-origin
// isolated), the caller writes SIGINT into Pyodide's interrupt buffer; Pyodide polls it every 50 or
// so bytecodes and raises KeyboardInterrupt, which the bridge answers as an AbortError. Elsewhere
// the caller ends the worker and starts another (bytepair.mjs's WorkerBackend). This module is the
// protocol both threads follow so that a signal meant for one call never lands in the next.
//
// The shared Int32Array:
//   [SIGNAL]   Pyodide's interrupt buffer (2: SIGINT). Pyodide sets it back to 0 as it takes it.
//   [RUNNING]  the request whose Python call runs now: 0 for none, -id while the caller interrupts it.
//   [DONE]     1 once the caller has written SIGNAL for a -id (the worker waits for it, then clears both).
//   [RING...]  ids of aborted requests, at RING + id % RING_SLOTS: a request aborted before its Python
//              call began is not begun.
//
//   worker: beginCall(id) -> false: skip it | run Python | endCall(id) -> true: it was interrupted
//   caller: abortCall(id) -> true: it was running and is being interrupted

const SIGNAL = 0;
const RUNNING = 1;
const DONE = 2;
const RING = 4;
const RING_SLOTS = 1024;
const SIGINT = 2;

/** A fresh shared state for one worker, or null where memory cannot be shared with a worker (a page
 * that is not cross-origin isolated, a runtime without SharedArrayBuffer). */
export function sharedControl() {
  if (typeof SharedArrayBuffer === "undefined" || globalThis.crossOriginIsolated === false) return null;
  try {
    return new Int32Array(new SharedArrayBuffer(4 * (RING + RING_SLOTS)));
  } catch {
    return null;
  }
}

/** The part Pyodide polls (its setInterruptBuffer takes a typed array whose first element is the signal). */
export function interruptBuffer(control) {
  return new Int32Array(control.buffer, SIGNAL * 4, 1);
}

/** Caller: mark request `id` aborted and, if its Python call runs now, interrupt it. */
export function abortCall(control, id) {
  Atomics.store(control, RING + (id % RING_SLOTS), id);
  if (Atomics.compareExchange(control, RUNNING, id, -id) !== id) return false;
  Atomics.store(control, SIGNAL, SIGINT);
  Atomics.store(control, DONE, 1);
  Atomics.notify(control, DONE);
  return true;
}

/** Caller: whether the Python call of request `id` runs now. */
export function isRunning(control, id) {
  return runningCall(control) === id;
}

/** Caller: the request whose Python call runs now (0: none). */
export function runningCall(control) {
  return Math.abs(Atomics.load(control, RUNNING));
}

/** Worker: about to run request `id`'s Python call; false if it was aborted before (do not run it). */
export function beginCall(control, id) {
  Atomics.store(control, RUNNING, id); // first: an abort from now on sees it running ...
  if (Atomics.load(control, RING + (id % RING_SLOTS)) !== id) return true; // ... or we see the abort
  endCall(control, id);
  return false;
}

/** Worker: request `id`'s Python call ended; true if the caller interrupted it (the signal is cleared:
 * what Pyodide may have taken in just as the call ended has to be settled before the next one). */
export function endCall(control, id) {
  if (Atomics.compareExchange(control, RUNNING, id, 0) === id) return false;
  // -id: the caller is interrupting this call. It writes SIGNAL then DONE in one go: wait for DONE
  // (microseconds), so that its SIGNAL cannot arrive after we have cleared it.
  while (Atomics.load(control, DONE) === 0) Atomics.wait(control, DONE, 0, 10);
  Atomics.store(control, SIGNAL, 0);
  Atomics.store(control, DONE, 0);
  Atomics.store(control, RUNNING, 0);
  return true;
}
