"""Section ``runtimes`` of docs/PERFORMANCE.md: the npm package outside the browser, cold and warm,
per JavaScript runtime, and its size beside the JS tokenizers people choose between.

    .venv/bin/python -m bench runtimes                # writes the section
    .venv/bin/python -m bench runtimes --no-write     # prints it only

Why: issue 33's targets are a warm ``createTokenizer`` <= 300 ms and ``npx bytepair count FILE``
<= 1 s, and a package of <= 12 MB packed and <= 30 MB installed. Each runtime (the machine's Node,
Node 22 and 24 from tests/web/node-majors where npm has their binaries, and Deno and Bun from the
devDependencies) runs a script that imports bytepair, creates an o200k_base tokenizer
and counts a word; the wall time of the whole process is taken, and ``await createTokenizer()`` alone
(performance.now() around it, inside the process), the median of ``--repeat`` runs, cold (an empty
cache folder: the shipped snapshot, ranks built) and warm (the runtime restored from the user cache
folder, web/stored.mjs), with the runtime's own marks of a warm start (where its time goes). ``npx
--offline bytepair count FILE`` from the scratch project the tarball is installed in, the same way
(and ``node .../cli.mjs``, to tell npx's own cost). workerd and edge-runtime, as a user meets them
(bench/js_runtimes.py: the Worker, config and edge function tests/web/test_runtimes.py checks): from
starting ``workerd serve`` (or the Node process that makes ``new EdgeRuntime``) to the first request
answered, the request creating an o200k_base tokenizer and encoding "hello world"; then a second
request on the warm isolate (sandbox), which finds the runtime started (in-Worker clocks do not
advance during a request in workerd, so both are timed from outside). Sizes: ``npm pack``'s own report for bytepair and
bytepair-tokenizers; for bytepair as installed, gpt-tokenizer 4.0.0 and tiktoken 1.0.22 (its WASM
build): installed bytes, every file gzip'd one by one, and the peers' registry tarballs (``npm pack
NAME@VERSION --dry-run``: npm's cache, else one registry request).

Needs ``make bundle`` (dist/) and ``npm ci`` (the runtimes are devDependencies; ``npm ci --prefix
tests/web/node-majors`` for Node 22 and 24, which ``make bench`` runs).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench import js_runtimes
from bench.common import PERFORMANCE, REPO, load_summary, log, parser, replace_section

BIN = REPO / "node_modules" / ".bin"
SCRIPT = """const { createTokenizer } = await import("bytepair");
const t0 = performance.now();
const tok = await createTokenizer({ encoding: "o200k_base" });
const createMs = performance.now() - t0;
await tok.count("hello");
const timings = await tok.backend.request("timings", {}).catch(() => ({}));
tok.dispose();
console.log(JSON.stringify({ createMs, timings }));
"""
NODE = shutil.which("node") or "node"
RUNTIMES = {
    "Node": lambda: [NODE, "start.mjs"],
    **{f"Node {major}": (lambda major=major: [str(js_runtimes.node_major_binary(major)[0]), "start.mjs"])
       for major in js_runtimes.node_majors()},
    "Deno": lambda: [str(BIN / "deno"), "run", "--allow-read", "--allow-env", "--allow-write", "--allow-sys", "start.mjs"],
    "Bun": lambda: [str(BIN / "bun"), "start.mjs"],
}
PEERS = {"gpt-tokenizer": "4.0.0", "tiktoken": "1.0.22"}


def _wall(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, dict]:
    """Wall seconds of the process, and what its last stdout line says if it is JSON (SCRIPT's)."""
    t0 = time.perf_counter()
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=300)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {result.stderr.decode()[-2000:]}")
    wall = time.perf_counter() - t0
    try:
        out = json.loads(result.stdout.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        out = {}
    return wall, out if isinstance(out, dict) else {}


def _cold_warm(cmd: list[str], cwd: Path, repeat: int) -> tuple[float, float, list[dict], list[dict]]:
    """Median wall seconds of `cmd` with an empty cache folder, and with the one a first run filled;
    and each run's own report (SCRIPT's createTokenizer time and the runtime's timings)."""
    colds, warms = [], []
    for _ in range(repeat):
        cache = Path(tempfile.mkdtemp(prefix="bench-cache-"))
        env = {**os.environ, "BYTEPAIR_CACHE_DIR": str(cache), "NO_COLOR": "1", "DENO_NO_UPDATE_CHECK": "1"}
        try:
            colds.append(_wall(cmd, cwd, env))
            warms.append(_wall(cmd, cwd, env))
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    return (statistics.median(w for w, _ in colds), statistics.median(w for w, _ in warms),
            [o for _, o in colds], [o for _, o in warms])


def _s(seconds: float) -> str:
    """Seconds for the table: two decimals, three under 0.1 s (a warm request's few milliseconds)."""
    return f"{seconds:.3f}" if seconds < 0.1 else f"{seconds:.2f}"


def _node_version() -> str:
    return subprocess.run([NODE, "--version"], capture_output=True, text=True, check=True).stdout.strip().removeprefix("v")


def _checked(answer: bytes | dict) -> None:
    """The answer of a timed request holds the o200k_base ids of "hello world" (bytepair's, natively)."""
    import bytepair

    out = json.loads(answer) if isinstance(answer, bytes) else answer
    if out.get("o200k") != [bytepair.get_encoding("o200k_base").encode("hello world")]:
        raise SystemExit(f"wrong ids: {str(out)[:500]}")


def _workerd(project: Path, repeat: int) -> tuple[float, float]:
    """Median seconds, over `repeat` fresh servers, from starting ``workerd serve`` on the test's config
    (bench/js_runtimes.py) to the first request answered (the Worker creates an o200k_base tokenizer
    and encodes "hello world"), and of a second such request on the same, now warm, isolate."""
    body = json.dumps({"texts": ["hello world"]}).encode()
    firsts, seconds = [], []
    for _ in range(repeat):
        port = js_runtimes.free_port()
        config = js_runtimes.write_workerd_project(project, port)
        t0 = time.perf_counter()
        server = js_runtimes.start_workerd(project, config)
        try:
            first = js_runtimes.post_when_up(port, body, server)
            t1 = time.perf_counter()
            second = js_runtimes.post_when_up(port, body, server)
            t2 = time.perf_counter()
        finally:
            js_runtimes.stop(server)
        _checked(first)
        _checked(second)
        firsts.append(t1 - t0)
        seconds.append(t2 - t1)
    return statistics.median(firsts), statistics.median(seconds)


def _edge(project: Path, repeat: int) -> tuple[float, float]:
    """Median seconds, over `repeat` fresh processes (Node running edge-runtime's ``new EdgeRuntime``
    with the test's bundled function, the assets over local HTTP), from the process's start
    (performance.now()) to the first request answered (an o200k_base tokenizer created, "hello world"
    encoded, nothing disposed), and of a second such request in the same sandbox."""
    js_runtimes.bundle_edge(project)
    firsts, seconds = [], []
    with js_runtimes.serve_folder(project / "edge-assets") as base:
        for _ in range(repeat):
            out = js_runtimes.run_edge(project, {"texts": ["hello world"], "assetsUrl": base, "keep": True}, rounds=2)
            _checked(out)
            firsts.append(out["ms"][0] / 1000)
            seconds.append(out["ms"][1] / 1000)
    return statistics.median(firsts), statistics.median(seconds)


def _gzip_size(folder: Path) -> int:
    """Bytes of every file of `folder` gzip'd (level 9) one by one: what a server that gzips sends."""
    import gzip

    return sum(len(gzip.compress(p.read_bytes(), 9)) for p in folder.rglob("*") if p.is_file())


def _packed_size(name: str, version: str) -> int | None:
    """The registry tarball's size (npm pack --dry-run: from npm's cache, else one registry request)."""
    for extra in (["--offline"], []):
        view = subprocess.run(["npm", "pack", f"{name}@{version}", "--dry-run", "--json", *extra], capture_output=True, text=True,
                              timeout=120, cwd=tempfile.gettempdir())
        if view.returncode == 0:
            try:
                return int(json.loads(view.stdout)[0]["size"])
            except (ValueError, KeyError, IndexError):
                return None
    return None


def _start_gzip() -> tuple[int, int]:
    """Bytes a cold o200k_base start of bytepair fetches (dist/: the runtime's files, the snapshot, the
    rank file, the manifest), plain and gzip'd (dist/'s .gz copies): what build/bundle.mjs prints."""
    import gzip

    dist = REPO / "dist"
    manifest = json.loads((dist / "manifest.json").read_text())
    start = [*manifest["runtime"].values(), manifest["snapshot"], manifest["encodings"]["o200k_base"]["file"], "manifest.json"]
    plain = sum((dist / f).stat().st_size for f in start)
    gz = sum((dist / f"{f}.gz").stat().st_size if (dist / f"{f}.gz").exists() else len(gzip.compress((dist / f).read_bytes(), 9))
             for f in start)
    return plain, gz


def _shipped_gzip(project: Path) -> dict[str, int]:
    """Bytes an app ships for one o200k_base tokenizer, gzip'd: gpt-tokenizer's o200k_base entry bundled
    and minified with esbuild; tiktoken's WASM build (the .wasm, which holds every encoding's ranks,
    and its JavaScript)."""
    import gzip

    out = {}
    app = b'import { encode } from "gpt-tokenizer/encoding/o200k_base";\nconsole.log(encode("hello").length);\n'
    bundled = project / "gpt-tokenizer-app.out.mjs"
    made = subprocess.run([str(BIN / "esbuild"), "--bundle", "--minify", "--format=esm", f"--outfile={bundled}", "--log-level=error"],
                          cwd=REPO, input=app, capture_output=True, timeout=120)  # stdin resolves from REPO's node_modules
    if made.returncode == 0:
        out["gpt-tokenizer"] = len(gzip.compress(bundled.read_bytes(), 9))
    tiktoken = REPO / "node_modules" / "tiktoken"
    out["tiktoken"] = sum(len(gzip.compress((tiktoken / f).read_bytes(), 9)) for f in ("tiktoken_bg.wasm", "tiktoken_bg.js", "tiktoken.js"))
    return out


def _ms(reports: list[dict]) -> float | None:
    values = [r["createMs"] for r in reports if isinstance(r.get("createMs"), (int, float))]
    return statistics.median(values) / 1000 if values else None


def _split(name: str, warm_ms: float | None, reports: list[dict]) -> str:
    """Where a warm start's time goes, from the runtime's marks (median run): before the worker's
    clock (thread start, imports), the cache file found (its head read and checked), the wasm
    compiled (from its verified bytes, in the background meanwhile), the snapshot step (waiting for
    that compile if it is still running, the module instantiated and linked by Pyodide's JavaScript,
    the memory read from the cache file into the wasm memory and its CRC-32 checked), Pyodide's
    finishing start."""
    runs = [r.get("timings") or {} for r in reports]
    marks = {k: statistics.median(run[k] for run in runs)
             for k in ("runtime snapshot: hit", "fetched", "wasm: compiled", "snapshot", "started")
             if runs and all(isinstance(run.get(k), (int, float)) for run in runs)}
    if warm_ms is None or not {"runtime snapshot: hit", "fetched", "snapshot", "started"} <= marks.keys():
        return f"- {name}: no marks"
    total = warm_ms * 1000
    compiled = f", the wasm compiled at {marks['wasm: compiled']:.0f} (in the background)" if "wasm: compiled" in marks else ""
    return (f"- {name}: {total:.0f} ms in all: {max(0.0, total - marks['started']):.0f} before the worker's clock and after its start "
            f"(thread, imports, the open), {marks['runtime snapshot: hit']:.0f} to the cache file found (its head read and checked){compiled}, "
            f"{marks['snapshot'] - marks['fetched']:.0f} for the snapshot step (from the last file's check: the compile awaited if "
            f"still running, the module instantiated and linked, the memory read from the cache file and its CRC-32 checked), "
            f"{marks['started'] - marks['snapshot']:.0f} for "
            "Pyodide's finishing start")


def _where(reports: list[dict]) -> str:
    """The runtime's own timings of a median run (ms since the worker began): where the time goes."""
    runs = [r.get("timings") or {} for r in reports if r.get("timings")]
    if not runs:
        return "no timings"
    keys = [k for k in runs[0] if all(isinstance(run.get(k), (int, float)) for run in runs)]
    return ", ".join(f"{k} {statistics.median(run[k] for run in runs):.0f}" for k in keys)


def _du(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def main(argv: Sequence[str]) -> int:
    p = parser("runtimes", __doc__)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--no-write", action="store_true")
    args = p.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench-runtimes-"))
    try:
        packed = subprocess.run(["node", str(REPO / "build" / "pack.mjs"), "--out", str(work / "npm")], capture_output=True, text=True,
                                check=True, timeout=600).stdout.splitlines()
        sizes = [line for line in packed if line.startswith("npm package")]
        tarballs = [line for line in packed if line.endswith(".tgz")]
        project = work / "project"
        project.mkdir()
        (project / "package.json").write_text(json.dumps({"name": "bench", "version": "1.0.0", "type": "module", "private": True}))
        subprocess.run(["npm", "install", "--offline", "--no-audit", "--no-fund", *tarballs], cwd=project, check=True, capture_output=True,
                       timeout=300)
        (project / "start.mjs").write_text(SCRIPT)
        (project / "sample.txt").write_text("Hello, world! " * 100, encoding="utf-8")
        rows, profile, split, missing = [], [], [], []
        for name, cmd in RUNTIMES.items():
            if name == "Node":
                name = f"Node {_node_version().split('.')[0]} (the machine's)"
            elif name.startswith("Node "):
                binary, why = js_runtimes.node_major_binary(name.removeprefix("Node "))
                if binary is None:
                    log(f"{name}: not run: {why}")
                    missing.append(f"- {name}: not run: {why}")
                    continue
            log(f"{name}: createTokenizer, cold and warm, {args.repeat} rounds")
            cold, warm, cold_runs, warm_runs = _cold_warm(cmd(), project, args.repeat)
            rows.append((f"{name}: whole process, `createTokenizer` + a count", cold, warm))
            if _ms(cold_runs) is not None and _ms(warm_runs) is not None:
                rows.append((f"{name}: `await createTokenizer()` alone (performance.now() in the process)", _ms(cold_runs), _ms(warm_runs)))
            profile.append(f"- {name} warm: {_where(warm_runs)}")
            split.append(_split(name, _ms(warm_runs), warm_runs))
        log(f"workerd: workerd serve, a first request and a second, {args.repeat} rounds")
        rows.append(("workerd: from `workerd serve` to the first request answered (`createTokenizer()` + encode); warm: a "
                     "second request on the same isolate", *_workerd(project, args.repeat)))
        log(f"edge-runtime: new EdgeRuntime, a first request and a second, {args.repeat} rounds")
        rows.append(("edge-runtime: from the process's start to the first request answered (`new EdgeRuntime`, `createTokenizer()` "
                     "+ encode); warm: a second request in the same sandbox", *_edge(project, args.repeat)))
        log("npx bytepair count FILE")
        npx = [shutil.which("npx") or "npx", "--offline", "--no", "bytepair", "count", "sample.txt"]
        rows.append(("Node: `npx --offline bytepair count FILE` (the installed package)", *_cold_warm(npx, project, args.repeat)[:2]))
        cli = [shutil.which("node") or "node", str(project / "node_modules" / "bytepair" / "dist" / "cli.mjs"), "count", "sample.txt"]
        rows.append(("Node: `node node_modules/bytepair/dist/cli.mjs count FILE`", *_cold_warm(cli, project, args.repeat)[:2]))
        own = project / "node_modules" / "bytepair"
        peers = [f"bytepair (installed here): {_du(own) / 1e6:.1f} MB installed, {_gzip_size(own) / 1e6:.1f} MB gzip'd file by file"]
        for name, version in PEERS.items():
            folder = REPO / "node_modules" / name
            installed, packed = _du(folder), _packed_size(name, version)
            peers.append(f"{name} {version}: " + (f"{packed / 1e6:.2f} MB packed (npm's tarball), " if packed else "")
                         + f"{installed / 1e6:.1f} MB installed, {_gzip_size(folder) / 1e6:.2f} MB gzip'd file by file")
        plain, gz = _start_gzip()
        shipped = _shipped_gzip(project)
        peers.append(f"one o200k_base tokenizer as a page fetches it, gzip'd: bytepair {gz / 1e6:.1f} MB ({plain / 1e6:.1f} MB plain: "
                     "Pyodide, the snapshot, the ranks)"
                     + "".join(f"; {n} {b / 1e6:.2f} MB" for n, b in shipped.items())
                     + " (gpt-tokenizer: its o200k_base entry bundled with esbuild --minify; tiktoken: tiktoken_bg.wasm, every "
                     "encoding's ranks inside, and its JavaScript)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    lines = [
        "## JavaScript runtimes: cold and warm starts, package size",
        "",
        f"`python -m bench runtimes`: seconds, median of {args.repeat} runs each (the whole process's wall time, or "
        "`await createTokenizer()` alone timed inside it); cold = an "
        "empty cache folder, warm = the runtime snapshot a first run stored (web/stored.mjs); for workerd and edge-runtime, "
        "which keep nothing between processes, cold = a fresh server's first request, warm = its second (their rows say how); "
        f"{time.strftime('%Y-%m-%d')}, 1-minute load average {load_summary()} (2 cores, shared).",
        "",
        "| what | cold s | warm s |",
        "|:---|---:|---:|",
        *(f"| {label} | {_s(cold)} | {_s(warm)} |" for label, cold, warm in rows),
        "",
        "Targets (issue 33): warm `createTokenizer` <= 0.3 s, `npx bytepair count FILE` <= 1 s; where the table is over them, "
        "this is where a warm `createTokenizer` goes (the runtime's own marks, median run):",
        "",
        *split,
        *missing,
        "",
        "The marks themselves (ms since the worker began):",
        "",
        *profile,
        "",
        "Package size (`make pack` prints the same):",
        "",
        *(f"- {line.removeprefix('npm package ')}" for line in sizes),
        *(f"- {line}" for line in peers),
        "",
        "A warm start still compiles Pyodide's 9.6 MB wasm module (none of these runtimes keeps compiled wasm between "
        "processes), from its verified bytes, read at once as the worker's start begins, while they are checked and the "
        "cache file's head is read; under Node, Pyodide's 1.25 MB module factory is compiled with V8's code cache kept "
        "beside the snapshot (web/verified.mjs's compileFactory). Then Pyodide's JavaScript instantiates and links the "
        "module (a table slot and a global per export, a small wasm module per signature of the JavaScript functions it "
        "takes the address of: ~75 ms of the thread's CPU under Node 20; the table grown at once by the slots the last "
        "start took, web/verified.mjs's installTableReserve), the stored memory (web/snapshot.mjs's form) is read from "
        "the cache file straight into the wasm memory with its CRC-32 checked as it comes, and Pyodide finishes its start "
        "(its Python-side bootstrap, the streams). web/runtime.mjs's header has the thread's CPU per step. Bun is the "
        "slowest because of its compile: JavaScriptCore compiles the module on one helper thread, ~85-105 ms of CPU there "
        "and ~20 on the worker's (a synchronous compile too, whatever BUN_JSC_numberOfWasmCompilerThreads says), keeps no "
        "compiled module between processes (bun:jsc's serialize refuses one), and a worker thread takes ~14 ms to start; "
        "the worker's own steps after the compile take ~85 ms of CPU, so a warm start needs ~210 ms with a core free "
        "for each, and every other process on the 2 cores shows in its time. "
        "The CLI rows restore the same snapshot (o200k_base built) and then run the Python CLI, whose argparse parser "
        "(every subcommand, gettext and colour lookups included) is built anew per command; the CLI's process runs wasm "
        "with Liftoff alone (web/cli.mjs); `npx` adds its own start-up over `node cli.mjs`. The package "
        "bounds (<= 12 MB packed, <= 30 MB installed) are held by `tests/web/test_npm_package.py::test_package_size`.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        replace_section(PERFORMANCE, "runtimes", text)
    return 0
