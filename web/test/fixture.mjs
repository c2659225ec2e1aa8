// The ids the native Python core computed, for the tests that compare the JavaScript API with them
// (chat, families, node, tokenizers). tests/web/test_node_api.py writes them to a file and runs
// `node --test web/test/` with BYTEPAIR_FIXTURE naming it; run alone, these tests say so instead of
// failing on a missing path.
import { readFileSync } from "node:fs";

export function nativeFixture() {
  const path = process.env.BYTEPAIR_FIXTURE;
  if (!path) {
    throw new Error(
      "BYTEPAIR_FIXTURE is not set: these tests compare with ids the native core computed; run them " +
        "through `.venv/bin/python -m pytest tests/web/test_node_api.py`, which writes the fixture and sets it");
  }
  return JSON.parse(readFileSync(path, "utf8"));
}
