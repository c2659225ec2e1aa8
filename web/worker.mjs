// Module Web Worker: hosts one Pyodide runtime for the page and answers requests by id, so the page
// never blocks. Messages in: { id, op, args } (op "init" first). Out: { id, ok, result | error } (an
// error is { name, message, token }) and { progress: { loaded, total, phase } } while the runtime loads
// (phase: see Progress in bytepair.d.ts), and { id, event } while request `id` runs (a training's
// progress). Large results are transferred, not copied.
import { TokenizerService } from "./service.mjs";

let service = null;

function reply(id, result, transfer = []) {
  self.postMessage({ id, ok: true, result }, transfer);
}

function fail(id, err) {
  const name = err?.name && err.name !== "Error" ? err.name : "Error";
  self.postMessage({ id, ok: false, error: { name, message: String(err?.message ?? err), token: err?.token } });
}

self.onmessage = async ({ data }) => {
  const { id, op, args } = data;
  try {
    if (op === "init") {
      if (!service) {
        service = TokenizerService.create({
          ...args,
          onProgress: (progress) => self.postMessage({ progress }),
        });
        service.catch(() => {
          service = null;
        });
      }
      await service;
      reply(id, true);
      return;
    }
    if (!service) throw Object.assign(new Error("the runtime is not initialised"), { name: "StateError" });
    const emit = (event) => {
      self.postMessage({ id, event });
      return false; // never "stop": an aborted training's page ends this worker instead
    };
    const { result, transfer } = await (await service).handle(op, args, { emit });
    // The first open stores a snapshot of the started runtime for the next page; answer once it
    // is written, since the page may close right after this answer.
    if (op === "open") await (await service).runtime.snapshotStored;
    reply(id, result, transfer);
  } catch (err) {
    fail(id, err);
  }
};
