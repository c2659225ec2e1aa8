"""web/snapshot.mjs's ``xxh32``, the check of what a page keeps in the origin private file system
(a stored runtime snapshot, the kept wasm module), held to the ``xxhash`` package's XXH32.

Run under Node on one batch of inputs: every length around the 16-byte stripe and the 4-byte word
boundaries, views that do not start at a 4-byte boundary, random bytes of many sizes, and the
bundle's own pyodide.asm.wasm when it is built."""

from __future__ import annotations

import base64
import json
import random
import subprocess
from pathlib import Path

import pytest
import xxhash

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT_MJS = ROOT / "web" / "snapshot.mjs"
WASM = ROOT / "dist" / "pyodide" / "pyodide.asm.wasm"

# Reads [[base64, offset], ...] on stdin; prints the XXH32 of bytes[offset:] for each, the view
# taken at that offset of a buffer (so that offsets 1-3 are unaligned views).
SCRIPT = """
import { readFileSync } from "node:fs";
const { xxh32 } = await import(process.argv[1]);
const cases = JSON.parse(readFileSync(0, "utf8"));
const out = cases.map(([b64, offset]) => {
  const buffer = Buffer.from(b64, "base64");
  const bytes = new Uint8Array(buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.length));
  return xxh32(bytes.subarray(offset));
});
const wasm = process.argv[2] ? xxh32(new Uint8Array(readFileSync(process.argv[2]))) : null;
console.log(JSON.stringify({ out, wasm }));
"""


def _cases() -> list[tuple[bytes, int]]:
    rng = random.Random(20261126)
    cases = [(b"", 0), (b"a", 0), (b"abc", 0), (b"Nobody inspects the spammish repetition", 0)]
    for n in range(0, 70):  # around every stripe (16) and word (4) boundary
        cases.append((rng.randbytes(n), 0))
    for offset in (1, 2, 3):
        for n in (offset, offset + 15, offset + 16, offset + 17, offset + 1000):
            cases.append((rng.randbytes(n), offset))
    for _ in range(40):
        cases.append((rng.randbytes(rng.randrange(1, 200_000)), rng.randrange(4)))
    cases.append((bytes(1 << 20), 0))  # zeros: most of a snapshot's pages
    cases.append((b"\xff" * ((1 << 20) + 3), 0))  # every word's top bit set: signed arithmetic
    return cases


def test_xxh32_equals_the_xxhash_package() -> None:
    cases = _cases()
    stdin = json.dumps([[base64.b64encode(data).decode(), offset] for data, offset in cases])
    args = ["node", "--input-type=module", "-e", SCRIPT, "--", SNAPSHOT_MJS.as_uri()]
    if WASM.exists():
        args.append(str(WASM))
    done = subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    expected = [xxhash.xxh32_intdigest(data[offset:]) for data, offset in cases]
    mismatches = [(len(data), offset) for (data, offset), got, want in zip(cases, result["out"], expected) if got != want]
    assert not mismatches and len(result["out"]) == len(cases)
    if WASM.exists():
        assert result["wasm"] == xxhash.xxh32_intdigest(WASM.read_bytes())
    else:
        pytest.skip("dist/ is not built: the wasm module's checksum was not compared")
