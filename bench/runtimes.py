"""Section ``runtimes`` of docs/PERFORMANCE.md: the npm package outside the browser, cold and warm,
per JavaScript runtime, and its size beside the JS tokenizers people choose between.

    .venv/bin/python -m bench runtimes                # writes the section
    .venv/bin/python -m bench runtimes --no-write     # prints it only

Why: issue 33's targets are a warm ``createTokenizer`` <= 300 ms and ``npx bytepair count FILE``
<= 1 s, and a package of <= 12 MB packed and <= 30 MB installed. Each runtime (Node, and Deno and
Bun from the devDependencies) runs a script that imports bytepair, creates an o200k_base tokenizer
and counts a word; the wall time of the whole process is taken, the median of ``--repeat`` runs,
cold (an empty cache folder: the shipped snapshot, ranks built) and warm (the runtime restored from
the user cache folder, web/stored.mjs). ``npx bytepair count FILE`` the same way. Sizes: ``npm pack``'s
own report for bytepair and bytepair-tokenizers, the installed folders of gpt-tokenizer 4.0.0 and
tiktoken 1.0.22 (its WASM build) from node_modules, and their tarballs as the registry lists them
(``npm view NAME@VERSION dist.unpackedSize``; nothing is downloaded).

Needs ``make bundle`` (dist/) and ``npm ci`` (the runtimes are devDependencies).
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

from bench.common import PERFORMANCE, REPO, load_summary, log, parser, replace_section

BIN = REPO / "node_modules" / ".bin"
SCRIPT = """const { createTokenizer } = await import("bytepair");
const tok = await createTokenizer({ encoding: "o200k_base" });
await tok.count("hello");
tok.dispose();
"""
RUNTIMES = {
    "Node": lambda: [shutil.which("node") or "node", "start.mjs"],
    "Deno": lambda: [str(BIN / "deno"), "run", "--allow-read", "--allow-env", "--allow-write", "--allow-sys", "start.mjs"],
    "Bun": lambda: [str(BIN / "bun"), "start.mjs"],
}
PEERS = {"gpt-tokenizer": "4.0.0", "tiktoken": "1.0.22"}


def _wall(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=300)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {result.stderr.decode()[-2000:]}")
    return time.perf_counter() - t0


def _cold_warm(cmd: list[str], cwd: Path, repeat: int) -> tuple[float, float]:
    """Median wall seconds of `cmd` with an empty cache folder, and with the one a first run filled."""
    colds, warms = [], []
    for _ in range(repeat):
        cache = Path(tempfile.mkdtemp(prefix="bench-cache-"))
        env = {**os.environ, "BYTEPAIR_CACHE_DIR": str(cache), "NO_COLOR": "1", "DENO_NO_UPDATE_CHECK": "1"}
        try:
            colds.append(_wall(cmd, cwd, env))
            warms.append(_wall(cmd, cwd, env))
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    return statistics.median(colds), statistics.median(warms)


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
        rows = []
        for name, cmd in RUNTIMES.items():
            log(f"{name}: createTokenizer, cold and warm, {args.repeat} rounds")
            rows.append((f"{name}: start, `createTokenizer` + a count", *_cold_warm(cmd(), project, args.repeat)))
        log("npx bytepair count FILE")
        cli = [shutil.which("node") or "node", str(project / "node_modules" / "bytepair" / "dist" / "cli.mjs"), "count", "sample.txt"]
        rows.append(("Node: `npx bytepair count FILE`", *_cold_warm(cli, project, args.repeat)))
        peers = []
        for name, version in PEERS.items():
            installed = _du(REPO / "node_modules" / name)
            view = subprocess.run(["npm", "view", f"{name}@{version}", "dist.unpackedSize", "--json"], capture_output=True, text=True,
                                  timeout=60)
            listed = json.loads(view.stdout) if view.returncode == 0 and view.stdout.strip() else None
            peers.append(f"{name} {version}: {installed / 1e6:.1f} MB installed here"
                         + (f" ({int(listed) / 1e6:.1f} MB as the registry lists it)" if listed else ""))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    lines = [
        "## JavaScript runtimes: cold and warm starts, package size",
        "",
        f"`python -m bench runtimes`: wall seconds of the whole process, median of {args.repeat} runs each; cold = an "
        "empty cache folder, warm = the runtime snapshot a first run stored (web/stored.mjs); "
        f"{time.strftime('%Y-%m-%d')}, 1-minute load average {load_summary()} (2 cores, shared).",
        "",
        "| what | cold s | warm s |",
        "|:---|---:|---:|",
        *(f"| {label} | {cold:.2f} | {warm:.2f} |" for label, cold, warm in rows),
        "",
        "Package size (`make pack` prints the same):",
        "",
        *(f"- {line.removeprefix('npm package ')}" for line in sizes),
        *(f"- {line}" for line in peers),
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        replace_section(PERFORMANCE, "runtimes", text)
    return 0
