"""The npm package in every JavaScript runtime it claims (README, "Where it runs"): Node, Deno, Bun and
Cloudflare's workerd, each from the devDependencies (npm packages `deno`, `bun`, `workerd`: the
binaries they ship), run offline on the tarball `build/pack.mjs` makes, installed into a scratch
project. In each, an o200k_base tokenizer and a tokenizer.json one (GPT-2's, read by the runtime)
encode the same texts, and the ids must be the reference's: tiktoken-compatible bytepair natively for
o200k_base (itself held to tiktoken by the parity suites) and Hugging Face `tokenizers` for the
tokenizer.json.

Node, Deno and Bun run a worker thread (node:worker_threads) and keep the started runtime in the
user's cache folder (BYTEPAIR_CACHE_DIR here): a second process restores it ("runtime snapshot:
hit"). workerd has no threads and no module URLs: `bytepair/workerd` runs in the request's isolate,
with Pyodide's wasm and modules imported statically and the other assets from a disk service bound
as the Worker's ASSETS (what Wrangler's static assets are); the config is written here. Vercel's
Edge Runtime (npm `edge-runtime`) runs a probe bundled with the "edge-light" condition
(`bytepair/edge`, in-process), with the assets served over local HTTP.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

import bytepair

from tests.browser import ROOT
from tests.conftest import corpus_texts
from tests.hf_reference import hf_folder
from tests.web.test_npm_package import NODE, NPM, OFFLINE, _run

pytestmark = pytest.mark.browser
BIN = ROOT / "node_modules" / ".bin"
TEXTS = [
    "hello world",
    "Emoji: 🙂 🫠 👩‍👩‍👧 🏳️‍🌈 ✌🏽 𠀀",
    "don't  stop\n\n\tnow 12345 <|endoftext|>",
    *list(corpus_texts().values())[:3],
]

# What each runtime runs: stdin has the texts and the tokenizer.json's path; stdout the ids and the
# runtime's timings. The same file for Node, Deno and Bun.
PROBE = """
import { createTokenizer } from "bytepair";
import { readFileSync } from "node:fs";
const { texts, json } = JSON.parse(readFileSync(0, "utf8"));
const o200k = await createTokenizer({ encoding: "o200k_base" });
const gpt2 = await createTokenizer({ tokenizerJson: json });
const out = { o200k: [], json: [] };
for (const text of texts) {
  out.o200k.push(Array.from(await o200k.encode(text, { disallowedSpecial: [] })));
  out.json.push(Array.from(await gpt2.encode(text)));
}
const timings = await o200k.backend.request("timings", {});
out.warm = "runtime snapshot: hit" in timings;
o200k.dispose();
gpt2.dispose();
console.log(JSON.stringify(out));
"""

WORKERD_SCRIPT = """
import { createTokenizer } from "bytepair/workerd";
export default {
  async fetch(request, env) {
    try {
      if (new URL(request.url).pathname === "/no-assets") {
        const err = await createTokenizer({ encoding: "o200k_base" }).catch((e) => e);
        return new Response(`${err.name}: ${err.message}`);
      }
      const { texts, json } = await request.json();
      const o200k = await createTokenizer({ encoding: "o200k_base", assets: env.ASSETS });
      const gpt2 = await createTokenizer({ tokenizerJson: json, assets: env.ASSETS });
      const out = { o200k: [], json: [] };
      for (const text of texts) {
        out.o200k.push(Array.from(await o200k.encode(text, { disallowedSpecial: [] })));
        out.json.push(Array.from(await gpt2.encode(text)));
      }
      return Response.json(out);
    } catch (err) {
      return new Response(`${err.name}: ${err.message}`, { status: 500 });
    }
  },
};
"""


def expected() -> dict:
    from tokenizers import Tokenizer as HFTokenizer

    o200k = bytepair.get_encoding("o200k_base")
    hf = HFTokenizer.from_file(str(hf_folder("gpt2") / "tokenizer.json"))
    return {
        "o200k": [o200k.encode(t, disallowed_special=()) for t in TEXTS],
        "json": [hf.encode(t, add_special_tokens=False).ids for t in TEXTS],
    }


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """The tarball installed into a scratch project (no registry), with the probe beside it."""
    from tests.browser import require_bundle

    require_bundle()
    if not NODE or not NPM:
        pytest.fail("node and npm are needed (make test installs them)")
    out = tmp_path_factory.mktemp("runtimes-pack")
    result = _run([NODE, str(ROOT / "build" / "pack.mjs"), "--out", str(out)], ROOT)
    assert result.returncode == 0, result.stderr.decode()
    tarball = result.stdout.decode().strip().splitlines()[-1]
    folder = tmp_path_factory.mktemp("runtimes-project")
    (folder / "package.json").write_text(json.dumps({"name": "scratch", "version": "1.0.0", "type": "module", "private": True}))
    result = _run([NPM, "install", "--offline", "--no-audit", "--no-fund", tarball], folder)
    assert result.returncode == 0, result.stderr.decode()
    (folder / "probe.mjs").write_text(PROBE)
    return folder


# Vercel's Edge Runtime (npm `edge-runtime`, the sandbox `vercel dev` and Next.js run edge code in):
# the function is one script, bundled (here by esbuild, as Vercel's build does) with the
# "edge-light" condition, which resolves "bytepair" to dist/edge.mjs. The assets are served over
# HTTP (what the deployment's public/ folder is); the first runtime compiles the wasm from the
# fetched bytes, the second (another assetsUrl, so another runtime) is given it compiled, as on
# Vercel itself (`import wasm from ".../pyodide.asm.wasm?module"`).
EDGE_SCRIPT = """
import { createTokenizer } from "bytepair";
addEventListener("fetch", (event) => event.respondWith(handle(event.request)));
async function handle(request) {
  try {
    if (new URL(request.url).pathname === "/no-assets") {
      const err = await createTokenizer({ encoding: "o200k_base" }).catch((e) => e);
      return new Response(`${err.name}: ${err.message}`);
    }
    const { texts, json, assetsUrl, again } = await request.json();
    const o200k = await createTokenizer({ encoding: "o200k_base", assetsUrl });
    const wasm = await WebAssembly.compile(await (await fetch(new URL("pyodide/pyodide.asm.wasm", again))).arrayBuffer());
    const gpt2 = await createTokenizer({ tokenizerJson: json, assetsUrl: again, wasm });
    const out = { o200k: [], json: [] };
    for (const text of texts) {
      out.o200k.push(Array.from(await o200k.encode(text, { disallowedSpecial: [] })));
      out.json.push(Array.from(await gpt2.encode(text)));
    }
    out.wasm = [o200k, gpt2].map(async (tok) => Object.keys(await tok.backend.request("timings", {})).filter((k) => k.startsWith("wasm:")));
    out.wasm = await Promise.all(out.wasm);
    out.sandbox = { process: typeof process, Worker: typeof Worker };
    o200k.dispose();
    gpt2.dispose();
    return Response.json(out);
  } catch (err) {
    return new Response(`${err.name}: ${err.message}`, { status: 500 });
  }
}
"""
EDGE_RUNNER = """
const { EdgeRuntime } = require(process.argv[2]);
const fs = require("node:fs");
(async () => {
  const runtime = new EdgeRuntime({ initialCode: fs.readFileSync(process.argv[3], "utf8") });
  const res = await runtime.dispatchFetch("http://edge.local/", { method: "POST", body: fs.readFileSync(0, "utf8") });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`status ${res.status}: ${text}`);
  const refusal = await (await runtime.dispatchFetch("http://edge.local/no-assets")).text();
  // (exit once written: a pipe takes stdout asynchronously, and the sandbox's timers keep the process alive)
  process.stdout.write(JSON.stringify({ ...JSON.parse(text), refusal }) + "\\n", () => process.exit(0));
})().catch((err) => { console.error(err?.stack ?? err); process.exit(1); });
"""


def test_edge_runtime_runs_in_process(project: Path) -> None:
    """edge-runtime (devDependency), offline: the probe bundled as an IIFE with --conditions=edge-light
    runs in `new EdgeRuntime({ initialCode })`; ids against the reference, both wasm routes taken,
    no process or Worker in the sandbox, and a missing assetsUrl refused by name."""
    import functools
    import http.server
    import threading

    from tests.web.test_npm_package import ESBUILD

    edge = ROOT / "node_modules" / "edge-runtime"
    if not edge.exists() or not ESBUILD.exists():
        pytest.fail("edge-runtime and esbuild are devDependencies (make test runs npm ci)")
    (project / "edge.mjs").write_text(EDGE_SCRIPT)
    (project / "run-edge.cjs").write_text(EDGE_RUNNER)
    result = _run([str(ESBUILD), "edge.mjs", "--bundle", "--format=iife", "--platform=neutral", "--conditions=edge-light",
                   "--external:node:*", "--external:ws", "--log-level=error", "--outfile=edge-out.js"], project)
    assert result.returncode == 0, result.stderr.decode()
    assert "bytepair/edge: Vercel Edge Runtime" in (project / "edge-out.js").read_text(encoding="utf-8")  # dist/edge.mjs
    result = _run([NPM, "exec", "--offline", "--no", "--", "bytepair-assets", "edge-assets", "--no-compress"], project)
    assert result.returncode == 0, result.stderr.decode()
    (project / "edge-assets" / "again").symlink_to(".", target_is_directory=True)
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(project / "edge-assets")))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        body = {"texts": TEXTS, "json": (hf_folder("gpt2") / "tokenizer.json").read_text(encoding="utf-8"),
                "assetsUrl": base, "again": base + "again/"}
        result = subprocess.run([NODE, "run-edge.cjs", str(edge), "edge-out.js"], cwd=project, input=json.dumps(body).encode(),
                                capture_output=True, timeout=300, env=OFFLINE)
    finally:
        server.shutdown()
        server.server_close()
    assert result.returncode == 0, result.stderr.decode()[-3000:]
    out = json.loads(result.stdout.decode().strip().splitlines()[-1])
    want = expected()
    assert out["o200k"] == want["o200k"]
    assert out["json"] == want["json"]
    assert out["sandbox"] == {"process": "undefined", "Worker": "undefined"}  # so in-process: no thread to start
    assert out["wasm"][0] and "wasm: embedded module" not in out["wasm"][0], out["wasm"]  # compiled from the fetched bytes
    assert out["wasm"][1] == ["wasm: embedded module"], out["wasm"]  # the `wasm` option
    assert out["refusal"].startswith("InvalidInputError: ") and "assetsUrl" in out["refusal"], out["refusal"]


def _binary(name: str) -> str:
    path = BIN / name
    if not path.exists():
        pytest.fail(f"{name} is not installed: it is a devDependency (make test runs npm ci)")
    return str(path)


COMMANDS = {
    "node": lambda: [NODE, "probe.mjs"],
    "deno": lambda: [_binary("deno"), "run", "--allow-read", "--allow-env", "--allow-write", "--allow-sys", "probe.mjs"],
    "bun": lambda: [_binary("bun"), "probe.mjs"],
}


@pytest.mark.parametrize("runtime", list(COMMANDS))
def test_runtime_ids_equal_the_reference_and_start_warm(runtime: str, project: Path, tmp_path: Path) -> None:
    """Cold (empty cache folder), then warm: the second process restores the stored runtime."""
    env = {**OFFLINE, "BYTEPAIR_CACHE_DIR": str(tmp_path / "cache"), "NO_COLOR": "1", "DENO_NO_UPDATE_CHECK": "1"}
    stdin = json.dumps({"texts": TEXTS, "json": str(hf_folder("gpt2") / "tokenizer.json")}).encode()
    want = expected()
    for round_ in ("cold", "warm"):
        result = subprocess.run(COMMANDS[runtime](), cwd=project, input=stdin, capture_output=True, timeout=180, env=env)
        assert result.returncode == 0, f"{runtime} ({round_}): {result.stderr.decode()[-3000:]}"
        out = json.loads(result.stdout.decode().strip().splitlines()[-1])
        assert out["o200k"] == want["o200k"], runtime
        assert out["json"] == want["json"], runtime
        assert out["warm"] == (round_ == "warm"), f"{runtime} {round_}: {sorted((tmp_path / 'cache').glob('*'))}"
    assert sorted(p.suffix for p in (tmp_path / "cache").iterdir()) == [".bin", ".json"]


def _probe(command: list[str], project: Path, env: dict) -> dict:
    """One run of the probe: its output, its ids checked against the reference."""
    stdin = json.dumps({"texts": TEXTS, "json": str(hf_folder("gpt2") / "tokenizer.json")}).encode()
    result = subprocess.run(command, cwd=project, input=stdin, capture_output=True, timeout=180, env=env)
    assert result.returncode == 0, result.stderr.decode()[-3000:]
    out = json.loads(result.stdout.decode().strip().splitlines()[-1])
    want = expected()
    assert out["o200k"] == want["o200k"] and out["json"] == want["json"]
    return out


def test_deno_starts_warm_with_the_readme_permissions(project: Path, tmp_path: Path) -> None:
    """The README's Deno command (no --allow-sys, no BYTEPAIR_CACHE_DIR): the cache folder comes from
    HOME / XDG_CACHE_HOME, so the second run is warm (os.homedir() would need --allow-sys)."""
    env = {**OFFLINE, "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "xdg"), "NO_COLOR": "1", "DENO_NO_UPDATE_CHECK": "1"}
    env.pop("BYTEPAIR_CACHE_DIR", None)
    command = [_binary("deno"), "run", "--allow-read", "--allow-env", "--allow-write", "probe.mjs"]
    assert [_probe(command, project, env)["warm"] for _ in range(2)] == [False, True]
    assert sorted(p.suffix for p in (tmp_path / "xdg" / "bytepair").iterdir()) == [".bin", ".json"]


def test_corrupted_cached_snapshot_is_not_used(project: Path, tmp_path: Path) -> None:
    """Bytes flipped in the stored snapshot: its XXH32 no longer matches its .json, so the next
    start is cold (and right), and stores a sound one again."""
    cache = tmp_path / "cache"
    env = {**OFFLINE, "BYTEPAIR_CACHE_DIR": str(cache)}

    def corrupt() -> None:
        (stored,) = cache.glob("*.bin")
        data = bytearray(stored.read_bytes())
        for at in (len(data) // 3, len(data) // 2, len(data) - 100):
            data[at] ^= 0xFF
        stored.write_bytes(bytes(data))

    assert not _probe([NODE, "probe.mjs"], project, env)["warm"]
    corrupt()
    assert not _probe([NODE, "probe.mjs"], project, env)["warm"]  # checked, refused, cold
    assert _probe([NODE, "probe.mjs"], project, env)["warm"]  # and stored soundly again


def test_runtime_cache_can_be_turned_off(project: Path, tmp_path: Path) -> None:
    env = {**OFFLINE, "BYTEPAIR_CACHE": "off", "XDG_CACHE_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path)}
    stdin = json.dumps({"texts": TEXTS[:1], "json": str(hf_folder("gpt2") / "tokenizer.json")}).encode()
    result = subprocess.run([NODE, "probe.mjs"], cwd=project, input=stdin, capture_output=True, timeout=180, env=env)
    assert result.returncode == 0, result.stderr.decode()[-3000:]
    assert not (tmp_path / "xdg").exists() and not (tmp_path / ".cache").exists()


def test_deno_without_read_permission_names_allow_read(project: Path) -> None:
    result = subprocess.run([_binary("deno"), "run", "probe.mjs"], cwd=project, input=b'{"texts": [], "json": ""}',
                            capture_output=True, timeout=120, env={**OFFLINE, "NO_COLOR": "1", "DENO_NO_UPDATE_CHECK": "1"})
    assert result.returncode != 0
    stderr = result.stderr.decode()
    assert "AssetError" in stderr and "run with --allow-read" in stderr, stderr[-2000:]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def workerd_config(project: Path, assets: Path, port: int, flags: tuple[str, ...] = (), entry: str | None = None) -> str:
    """A workerd config serving the probe Worker: every module of bytepair/workerd listed (what Wrangler
    bundles), Pyodide's wasm as a wasm module, the prepared assets as a disk service bound as ASSETS."""
    dist = project / "node_modules" / "bytepair" / "dist"
    modules = ['(name = "worker.mjs", esModule = embed "worker.mjs")']
    if entry:  # the module the Worker's bare "bytepair" names (what Wrangler's bundler resolves it to)
        modules.append(f'(name = "bytepair", esModule = embed "{entry}")')
    for path in sorted([*dist.glob("*.mjs"), dist / "pyodide" / "pyodide.asm.mjs", dist / "pyodide" / "pyodide.mjs"]):
        rel = path.relative_to(project).as_posix()
        modules.append(f'(name = "{rel}", esModule = embed "{rel}")')
    wasm = (dist / "pyodide" / "pyodide.asm.wasm").relative_to(project).as_posix()
    modules.append(f'(name = "{wasm}", wasm = embed "{wasm}")')
    listed = ",\n    ".join(modules)
    return f"""using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .probe),
    (name = "assets", disk = (path = "{assets}", writable = false)),
  ],
  sockets = [(name = "http", address = "127.0.0.1:{port}", http = (), service = "main")],
);
const probe :Workerd.Worker = (
  modules = [
    {listed}
  ],
  bindings = [(name = "ASSETS", service = "assets")],
  compatibilityDate = "2025-09-01",
  compatibilityFlags = [{", ".join(f'"{f}"' for f in flags)}],
);
"""


@pytest.mark.parametrize("flags", [(), ("nodejs_compat",)], ids=["plain", "nodejs_compat"])
def test_workerd_runs_in_process(project: Path, flags: tuple[str, ...]) -> None:
    """workerd, offline, on a config written here: the Worker imports plain "bytepair", resolved as
    Wrangler's bundler does, through the package's "workerd" export condition (Node's resolver with
    --conditions=workerd says which file; the config names it "bytepair"); with and without nodejs_compat
    (where process.versions.node is set, yet there is no Worker to start)."""
    result = _run([NODE, "--conditions=workerd", "--input-type=module", "-e", 'console.log(import.meta.resolve("bytepair"))'], project)
    assert result.returncode == 0, result.stderr.decode()
    resolved = Path(urllib.request.url2pathname(result.stdout.decode().strip().removeprefix("file://")))
    assert resolved == project / "node_modules" / "bytepair" / "dist" / "workerd.mjs"
    (project / "bytepair-entry.mjs").write_text(f'export * from "./{resolved.relative_to(project).as_posix()}";\n')
    (project / "worker.mjs").write_text(WORKERD_SCRIPT.replace('"bytepair/workerd"', '"bytepair"'))
    # The static assets, as Wrangler would upload them: `npx bytepair-assets DIR` (plain files only here)
    result = _run([NPM, "exec", "--offline", "--no", "--", "bytepair-assets", "workerd-assets", "--no-compress"], project)
    assert result.returncode == 0, result.stderr.decode()
    port = _free_port()
    (project / "config.capnp").write_text(workerd_config(project, project / "workerd-assets", port, flags, "bytepair-entry.mjs"))
    server = subprocess.Popen([_binary("workerd"), "serve", "config.capnp"], cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        body = json.dumps({"texts": TEXTS, "json": (hf_folder("gpt2") / "tokenizer.json").read_text(encoding="utf-8")}).encode()
        deadline = time.monotonic() + 30
        while True:
            try:
                request = urllib.request.Request(f"http://127.0.0.1:{port}/", data=body, method="POST")
                with urllib.request.urlopen(request, timeout=120) as response:
                    out = json.loads(response.read())
                break
            except urllib.error.HTTPError as err:
                pytest.fail(f"workerd answered {err.code}: {err.read().decode()[:2000]}")
            except (ConnectionError, urllib.error.URLError):
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.3)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/no-assets", timeout=30) as response:
            refusal = response.read().decode()
    finally:
        server.terminate()
        log = server.communicate(timeout=30)[0].decode()
    want = expected()
    assert out["o200k"] == want["o200k"], log[-2000:]
    assert out["json"] == want["json"], log[-2000:]
    assert refusal.startswith("InvalidInputError: ") and "env.ASSETS" in refusal  # the binding is required, and named
    assert "npx bytepair-assets public/bytepair --no-compress" in refusal and 'directory = "public/bytepair"' in refusal  # the README's advice
