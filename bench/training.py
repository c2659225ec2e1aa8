"""Section ``training`` of docs/PERFORMANCE.md: training speed and memory, bytepair.train against HF
BpeTrainer, rustbpe, bpeasy and a minbpe-style pure-Python loop, on bench/corpus, at 8k and 32k
vocabularies.

    .venv/bin/python -m bench training            # writes the `training` section (make bench runs it)
    .venv/bin/python -m bench training --vocab 8000 --no-write

Each trainer runs in its own fresh subprocess (``training_child.py``), which reads the corpus lines,
trains, and reports its CPU time (user + system: all threads), wall time and peak RSS
(``resource.getrusage``'s ``ru_maxrss``; CPU time is the fair measure on a shared machine, and the
ratio column compares it with HF single-threaded, which includes the Python interpreter and the corpus text,
the same for every trainer). Every trainer gets GPT-2's pattern. HF runs twice: with
``RAYON_NUM_THREADS=1`` (the target: bytepair within 3x of its single-thread time) and with its
default thread pool. The minbpe-style baseline (bench/minbpe_style.py) has a time limit.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from bench.common import BENCH, CORE, PERFORMANCE, REPO, parser, replace_section
from bench.training_child import corpus_lines

CHILD = BENCH / "training_child.py"
TRAINERS = ("bytepair", "hf-1-thread", "hf-default", "rustbpe", "bpeasy", "minbpe-style")


def run(name: str, vocab: int, timeout: float) -> dict[str, float] | None:
    """One trainer in a fresh process: its CPU and wall seconds, peak RSS and merges; None past ``timeout``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(CORE), str(REPO)]))  # bytepair, and bench.minbpe_style
    if name == "hf-1-thread":
        env["RAYON_NUM_THREADS"] = "1"
    try:
        done = subprocess.run([sys.executable, str(CHILD), name, str(vocab)], capture_output=True, text=True,
                              env=env, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return None
    except subprocess.CalledProcessError as exc:
        raise SystemExit(f"{name} failed:\n{exc.stderr}") from None
    return json.loads(done.stdout.strip().splitlines()[-1])


def table(results: dict[tuple[str, int], dict[str, float] | None], vocabs: list[int], timeout: float) -> str:
    rows = ["| trainer | vocab | merges | CPU s | CPU ÷ HF 1-thread | wall s | peak RSS MB |",
            "|:---|---:|---:|---:|---:|---:|---:|"]
    for vocab in vocabs:
        ref = results.get(("hf-1-thread", vocab))
        for name in TRAINERS:
            r = results.get((name, vocab), "skip")
            if r == "skip":
                continue
            if r is None:
                rows.append(f"| {name} | {vocab:,} | | | | stopped at {timeout:.0f} | |")
                continue
            ratio = f"{r['cpu'] / ref['cpu']:.2f}×" if ref else ""
            rows.append(f"| {name} | {vocab:,} | {r['merges']:,} | {r['cpu']:.2f} | {ratio} | {r['wall']:.2f} | {r['rss_mb']:.0f} |")
    return "\n".join(rows)


def main(argv: Sequence[str]) -> int:
    p = parser("training", __doc__)
    p.add_argument("--vocab", type=int, action="append", help="vocabulary sizes (default 8000 and 32000)")
    p.add_argument("--trainers", default=",".join(TRAINERS))
    p.add_argument("--baseline-timeout", type=float, default=300.0)
    p.add_argument("--no-write", action="store_true")
    p.add_argument("--output", default=str(PERFORMANCE))
    args = p.parse_args(argv)
    vocabs = args.vocab or [8000, 32000]
    names = args.trainers.split(",")
    size = sum(len(line.encode("utf-8")) for line in corpus_lines())
    results: dict[tuple[str, int], dict[str, float] | None] = {}
    for vocab in vocabs:
        for name in names:
            results[(name, vocab)] = run(name, vocab, args.baseline_timeout if name == "minbpe-style" else 3600)
            print(name, vocab, results[(name, vocab)], file=sys.stderr)
    command = "python -m bench training" + "".join(f" --vocab {v}" for v in args.vocab or [])
    markdown = (
        f"## Training\n\n`{command}` on {time.strftime('%Y-%m-%d')}, {platform.machine()} "
        f"({os.cpu_count()} cores, shared), Python {platform.python_version()}; corpus: every bench/corpus file, "
        f"{size / 1e6:.1f} MB, read line by line; GPT-2's pattern for every trainer; each trainer in a fresh "
        "process (times exclude reading the corpus; RSS includes it and the interpreter).\n\n"
        + table(results, vocabs, args.baseline_timeout)
        + "\n\nbytepair's merges and vocabulary equal HF's for the same settings (tests/trainers/test_train_byte_level.py); "
        "rustbpe and bpeasy break ties by byte values, so their merges differ from HF's at the first tie.\n"
    )
    print(markdown)
    if not args.no_write:
        replace_section(Path(args.output), "training", markdown)
    return 0
