"""Start-up of the browser bundle: the snapshot of a started runtime that a page keeps in the origin
private file system (OPFS) for the next page, and what happens when that store is missing, stale or
corrupt; the trimmed standard library, in Chromium and in Node."""

from __future__ import annotations

import base64
import json
import subprocess
import zipfile
from pathlib import Path

import pytest
import xxhash

import bytepair

from tests.browser import DIST, TEST_PAGE, Guard, open_page, runtime_snapshot_files, wait_for_runtime_snapshot, wait_for_warm_up

ROOT = Path(__file__).resolve().parents[2]
O200K = bytepair.get_encoding("o200k_base")

# Start a tokenizer in the page (through the worker), count, and answer the runtime's own timings.
START = """async (text) => {
  const bp = await import('./bytepair.mjs');
  const tok = await bp.createTokenizer({ encoding: 'o200k_base' });
  const count = await tok.count(text);
  const timings = await tok.backend.request('timings', {});
  return { count, timings }; // the tokenizer stays open: its worker stores the snapshot meanwhile
}"""


def start(ctx, base: str, text: str) -> dict:
    page = ctx.new_page()
    page.goto(base + TEST_PAGE)
    out = page.evaluate(START, text)
    assert out["count"] == O200K.count(text)
    return {"page": page, **out["timings"]}


def write_private_file(page, name: str, data: bytes) -> None:
    page.evaluate(
        """async ([name, b64]) => {
          const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
          const dir = await navigator.storage.getDirectory();
          const writable = await (await dir.getFileHandle(name, { create: true })).createWritable();
          await writable.write(bytes);
          await writable.close();
        }""",
        [name, base64.b64encode(data).decode()],
    )


def read_private_file(page, name: str) -> bytes:
    data_url = page.evaluate(
        """async (name) => {
          const file = await (await (await navigator.storage.getDirectory()).getFileHandle(name)).getFile();
          return await new Promise((resolve) => {
            const reader = new FileReader();
            reader.onload = () => resolve(reader.result);
            reader.readAsDataURL(file);
          });
        }""",
        name,
    )
    return base64.b64decode(data_url.split(",", 1)[1])


@pytest.mark.browser
def test_second_page_starts_from_the_stored_runtime(browser, dist_server) -> None:
    guard = Guard()
    ctx, first = open_page(browser, dist_server, guard)
    cold = start(ctx, dist_server, "first visit")
    assert "runtime snapshot: miss" in cold and "build o200k_base" in cold
    assert "wasm: compiled while fetched" in cold  # compiled as it downloaded, instantiated once checked
    names = wait_for_runtime_snapshot(cold["page"])
    assert [name.rsplit(".", 1)[1] for name in names] == ["bin", "json", "wasm"], names
    key = json.loads(read_private_file(cold["page"], names[1]))
    assert key["encodings"] == ["o200k_base"] and key["size"] > 10_000_000
    # The .json holds the XXH32 of what was written (checked on every warm start).
    stored = read_private_file(cold["page"], names[0])
    assert key["xxh32"] == xxhash.xxh32_intdigest(stored)
    # Kept in the raw form (web/snapshot.mjs): its pages as they are, so a warm start XORs nothing back.
    assert stored[:8] == b"BPSNAPR\0" and (DIST / "snapshot.bin").read_bytes()[:8] == b"BPSNAP2\0"
    # Beside it, the verified wasm module, byte for byte the bundle's.
    wasm = (DIST / "pyodide" / "pyodide.asm.wasm").read_bytes()
    assert read_private_file(cold["page"], names[2]) == wasm and key["wasmXxh32"] == xxhash.xxh32_intdigest(wasm)
    requests_before = list(guard.requests)

    warm = start(ctx, dist_server, "second visit")
    assert "runtime snapshot: hit" in warm and "runtime snapshot: failed" not in warm
    fetched = guard.requests[len(requests_before):]
    assert "/snapshot.bin" not in fetched and "/encodings/o200k_base.bpr" not in fetched
    # The wasm module comes from the kept copy, not from the HTTP cache (which hands it back slowly).
    assert "/pyodide/pyodide.asm.wasm" not in fetched and "wasm: kept copy compiled" in warm
    assert "/pyodide/pyodide.asm.mjs" in fetched  # Pyodide's JavaScript still comes (V8 caches its code by URL)
    # Other encodings still load on demand in a runtime restored from the stored snapshot.
    ids = warm["page"].evaluate(
        "async () => Array.from(await (await (await import('./bytepair.mjs')).createTokenizer({ encoding: 'cl100k_base' })).encode('still fine'))"
    )
    assert ids == bytepair.get_encoding("cl100k_base").encode("still fine")
    ctx.close()
    assert not guard.violations, guard.violations


@pytest.mark.browser
def test_a_host_without_the_wasm_content_type_still_starts(browser, dist_server) -> None:
    """A static host that sends pyodide.asm.wasm as application/octet-stream: the browser refuses to
    compile it while it downloads, so the start compiles the verified bytes instead (before, Pyodide's
    own streaming instantiation failed the same way and the start never finished)."""
    guard = Guard()
    ctx = browser.new_context()
    ctx.route("**/*", guard.handle)

    def octet_stream(route) -> None:
        response = route.fetch()
        route.fulfill(response=response, headers={**response.headers, "content-type": "application/octet-stream"})

    ctx.route("**/pyodide.asm.wasm", octet_stream)
    page = ctx.new_page()
    page.goto(dist_server + TEST_PAGE)
    out = page.evaluate(
        """async (text) => {
          const late = new Promise((_, reject) => setTimeout(() => reject(new Error('no start within 60 s')), 60000));
          const bp = await import('./bytepair.mjs');
          const tok = await Promise.race([bp.createTokenizer({ encoding: 'o200k_base' }), late]);
          return { count: await tok.count(text), timings: await tok.backend.request('timings', {}) };
        }""",
        "any host will do",
    )
    assert out["count"] == O200K.count("any host will do")
    assert "wasm: compiled from bytes" in out["timings"] and "wasm: compiled while fetched" not in out["timings"]
    ctx.close()
    assert not guard.violations, guard.violations


@pytest.mark.browser
def test_the_worker_warms_up_after_start_between_requests(browser, dist_server) -> None:
    """After its first tokenizer opens, the worker encodes a made-up text in parts, between requests
    (see ``web_bridge.warm_up``). Requests sent at once meanwhile get exact ids, and the warm-up
    ends on its own within a few hundred ms."""
    guard = Guard()
    ctx, page = open_page(browser, dist_server, guard)
    texts = [bytepair.get_encoding("o200k_base").decode(list(range(1000 * k, 1000 * k + 700))) for k in range(1, 6)]
    ids = page.evaluate(
        """async (texts) => {
          window.tok = await (await import('./bytepair.mjs')).createTokenizer({ encoding: 'o200k_base' });
          const out = [];
          for (const text of texts) {
            out.push(Array.from(await tok.encode(text)));
            await new Promise((resolve) => setTimeout(resolve, 15)); // let a part run in between
          }
          return out;
        }""",
        texts,
    )
    assert ids == [O200K.encode_ordinary(text) for text in texts]
    assert 0 < wait_for_warm_up(page) < 10_000
    assert page.evaluate("async () => tok.count('after the warm-up')") == O200K.count("after the warm-up")
    ctx.close()
    assert not guard.violations, guard.violations


@pytest.mark.browser
def test_stale_and_corrupt_stored_runtimes_are_not_used(browser, dist_server) -> None:
    guard = Guard()
    ctx, page = open_page(browser, dist_server, guard)
    # A snapshot of another bundle (another manifest): never read, and removed once a new one is stored.
    write_private_file(page, "bytepair-runtime-" + "0" * 64 + ".bin", b"\x01\x02\x03")
    stale = "bytepair-runtime-" + "0" * 64 + ".json"
    write_private_file(page, stale, b'{"size": 3, "sha256": "x", "encodings": ["o200k_base"]}')
    cold = start(ctx, dist_server, "stale one around")
    assert "runtime snapshot: miss" in cold
    names = wait_for_runtime_snapshot(cold["page"], besides=frozenset({stale}))
    assert len(names) == 3 and not any("0" * 64 in n for n in names), names
    bin_name, json_name, wasm_name = names

    # A corrupt kept wasm module: refused by its XXH32 check; the start fetches the bundle's and
    # still restores the stored runtime.
    wasm = bytearray(read_private_file(page, wasm_name))
    wasm[len(wasm) // 2] ^= 0xFF
    write_private_file(page, wasm_name, bytes(wasm))
    wasm_downloads = guard.requests.count("/pyodide/pyodide.asm.wasm")
    refetched = start(ctx, dist_server, "corrupt kept wasm")
    assert "runtime snapshot: hit" in refetched and "wasm: compiled while fetched" in refetched
    assert guard.requests.count("/pyodide/pyodide.asm.wasm") == wasm_downloads + 1
    assert wasm_name not in runtime_snapshot_files(page)  # removed: the next stored snapshot keeps a sound one

    # Corrupt bytes: the XXH32 check refuses them before anything runs; the start falls back to
    # the shipped snapshot and stores a sound one again.
    stored = bytearray(read_private_file(page, bin_name))
    stored[len(stored) // 2] ^= 0xFF
    write_private_file(page, bin_name, bytes(stored))
    downloads = guard.requests.count("/snapshot.bin")
    refused = start(ctx, dist_server, "corrupt store")
    assert "runtime snapshot: miss" in refused and guard.requests.count("/snapshot.bin") == downloads + 1
    wait_for_runtime_snapshot(refused["page"])  # a sound snapshot is stored again
    again = read_private_file(page, bin_name)
    assert again != bytes(stored) and xxhash.xxh32_intdigest(again) == json.loads(read_private_file(page, json_name))["xxh32"]

    # Bytes that pass the check (the .json agrees) but that Pyodide cannot restore (its header is
    # broken): the start still works, from the shipped snapshot.
    sound = bytearray(read_private_file(page, bin_name))
    meta = json.loads(read_private_file(page, json_name))
    bitmap = (int.from_bytes(sound[12:16], "little") + 7) // 8
    sound[20 + bitmap] ^= 0xFF  # the first byte of Pyodide's own header: its magic number

    meta["xxh32"] = xxhash.xxh32_intdigest(bytes(sound))
    write_private_file(page, bin_name, bytes(sound))
    write_private_file(page, json_name, json.dumps(meta).encode())
    broken = start(ctx, dist_server, "unrestorable store")
    assert "runtime snapshot: hit" in broken and "runtime snapshot: failed" in broken
    assert guard.requests.count("/snapshot.bin") == downloads + 2
    ctx.close()
    assert not guard.violations, guard.violations


@pytest.mark.browser
def test_without_private_file_system_the_start_falls_back(browser, dist_server) -> None:
    """On a page's main thread there are no synchronous OPFS handles (as in browsers without OPFS):
    the runtime starts from the shipped snapshot and stores nothing."""
    guard = Guard()
    ctx, page = open_page(browser, dist_server, guard)
    out = page.evaluate(
        """async () => {
          const { TokenizerService } = await import('./service.mjs');
          const phases = [];
          const service = await TokenizerService.create({ firstEncoding: 'o200k_base',
            assetsUrl: new URL('./', location.href).href, onProgress: (p) => phases.push(p.phase) });
          await service.handle('open', { encoding: 'o200k_base' });
          const { result } = await service.handle('count', { encoding: 'o200k_base', text: 'main thread' });
          await new Promise((resolve) => setTimeout(resolve, 500));
          return { count: result, phases: [...new Set(phases)], timings: service.runtime.timings };
        }"""
    )
    assert out["count"] == O200K.count("main thread")
    assert out["phases"] == ["fetching", "compiling", "starting", "ranks", "ready"]
    assert "runtime snapshot: miss" in out["timings"] and "runtime snapshot: stored" not in out["timings"]
    assert runtime_snapshot_files(page) == []
    ctx.close()
    assert not guard.violations, guard.violations


# ------------------------------------------------------------------ the trimmed standard library
def _bundle_script() -> str:
    return (ROOT / "build" / "bundle.mjs").read_text()


def _js_list(name: str) -> list[str]:
    text = _bundle_script()
    body = text[text.index(f"const {name} = [") :]
    return json.loads(body[body.index("[") : body.index("];") + 1].replace("\n", " ").rstrip(", ]") + "]")


def test_trimmed_stdlib_lacks_what_was_dropped() -> None:
    dropped = _js_list("STDLIB_DROP")
    names = zipfile.ZipFile(DIST / "pyodide" / "python_stdlib.zip").namelist()
    tops = {n.split("/")[0].removesuffix(".py") for n in names}
    assert not tops & set(dropped)
    assert {"email", "tarfile", "difflib"} <= tops  # importlib.metadata, unpacking wheels, argparse's hints
    assert all(info.compress_type == zipfile.ZIP_STORED for info in zipfile.ZipFile(DIST / "pyodide" / "python_stdlib.zip").infolist())


def _stdlib_imports_of(package_dir: Path) -> set[str]:
    import ast
    import sys

    found: set[str] = set()
    for path in package_dir.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return {m for m in found if m in sys.stdlib_module_names}


NODE_IMPORTS = """
import { pathToFileURL } from "node:url";
const { Runtime } = await import(pathToFileURL(process.argv[2] + "/runtime.mjs").href);
const rt = await Runtime.load({ assetsUrl: pathToFileURL(process.argv[2] + "/").href, firstEncoding: "o200k_base" });
rt.pyodide.globals.set("MODULES", process.argv[3]);
console.log(rt.pyodide.runPython(`
import importlib, json, sys
failed = {}
for name in json.loads(MODULES):
    try:
        importlib.import_module(name)
    except Exception as exc:
        failed[name] = repr(exc)
json.dumps({"failed": failed, "loaded": sorted(sys.modules)})
`));
"""


def test_every_stdlib_module_bytepair_and_jinja2_import_loads_in_node(tmp_path) -> None:
    """bytepair's own imports and jinja2's and markupsafe's (chat templates) all import on the
    bundle's trimmed library, from the shipped snapshot, under Node; none of the dropped parts
    is loaded by doing so."""
    jinja2 = pytest.importorskip("jinja2")
    markupsafe = pytest.importorskip("markupsafe")
    wanted = set()
    for package in (Path(bytepair.__file__).parent, Path(jinja2.__file__).parent, Path(markupsafe.__file__).parent):
        wanted |= _stdlib_imports_of(package)
    wanted -= {"msvcrt", "winreg", "_winapi", "nt"}  # imported only on Windows, behind a check
    wanted -= {"multiprocessing"}  # imported only where processes can start (parallel.can_use_processes: not Pyodide)
    script = tmp_path / "imports.mjs"
    script.write_text(NODE_IMPORTS)
    done = subprocess.run(["node", str(script), str(DIST), json.dumps(sorted(wanted))], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["failed"] == {}
    assert not {m.split(".")[0] for m in result["loaded"]} & set(_js_list("STDLIB_DROP"))
