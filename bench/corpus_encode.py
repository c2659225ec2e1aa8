"""Section ``corpus`` of docs/PERFORMANCE.md: tokenizing a corpus on more than one core, and long
single pieces through the tokenizer.json face.

    .venv/bin/python -m bench corpus             # writes the `corpus` section
    .venv/bin/python -m bench corpus --repeat 1 --no-write

Throughput: the bench corpus (``bench/corpus``, every file, cut into documents at blank lines, as
``.jsonl``) encoded with cl100k_base by ``bytepair.encode_corpus`` with 1 and 2 processes and on a
Dask LocalCluster of 2 worker processes (``examples/dask_encode.py``), by ``Encoding.
encode_ordinary_batch`` with ``num_threads`` 1 and 2, beside tiktoken's ``encode_ordinary_batch``
with 1 and 2 threads; MB/s of UTF-8 text, wall time, median of ``--repeat`` runs, every run from
cold caches (bytepair's piece cache emptied, its batch workers restarted, a new LocalCluster per
run; starting bytepair's workers is timed, starting the LocalCluster is not). The shards of every
run are checked byte-identical, and the batch ids equal to tiktoken's.

Long pieces: random a-z on one line (Llama 3's pattern makes it one piece) through
``Tokenizer(llama3).encode`` and ``.count`` beside HF tokenizers' ``encode``, each in a fresh
process: wall seconds (median of ``--repeat``) and the peak RSS the call added.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench.common import CORE, CORPUS, HF_DIR, PERFORMANCE, REPO, load_corpus, load_summary, log, parser, replace_section

EXAMPLE = REPO / "examples" / "dask_encode.py"
LONG_CHILD = r"""
import json, random, sys, time
kind, size, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def status(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key + ":")) / 1024

random.seed(size)
text = "".join(random.choices("abcdefghijklmnopqrstuvwxyz", k=size))
if kind == "hf":
    import tokenizers
    tok = tokenizers.Tokenizer.from_file(path)
    call = lambda: len(tok.encode(text, add_special_tokens=False).ids)
else:
    import bytepair
    tok = bytepair.Tokenizer.from_file(path)
    call = (lambda: tok.count(text)) if kind == "count" else (lambda: len(tok.encode(text, add_special_tokens=False).ids))
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak (VmHWM) starts again from here
before = status("VmRSS")
start = time.perf_counter()
n = call()
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "added_mb": status("VmHWM") - before, "ids": n}))
"""


def _documents(folder: Path) -> tuple[list[str], list[str], int]:
    texts = load_corpus(CORPUS, None)
    docs = [doc for text in texts.values() for doc in text.split("\n\n")]
    path = folder / "corpus.jsonl"
    path.write_text("".join(json.dumps({"text": d}) + "\n" for d in docs), encoding="utf-8")
    return [str(path)], docs, sum(len(d.encode("utf-8")) for d in docs)


def _cpu() -> float:
    """CPU seconds of this process (all its threads) and of its exited child processes."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def _median(run: Callable[[], Any], before: Callable[[], Any], repeat: int,
            after: Callable[[], Any] = lambda: None) -> tuple[float, float]:
    """Median wall seconds of ``run`` and its median CPU seconds (with its workers', ended by ``after``)."""
    times, cpus = [], []
    for _ in range(repeat):
        before()
        cpu = _cpu()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
        after()
        cpus.append(_cpu() - cpu)
    return statistics.median(times), statistics.median(cpus)


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(folder.glob("shard_*.bin")):
        h.update(path.read_bytes())
    h.update((folder / "manifest.json").read_bytes())
    return h.hexdigest()[:16]


def throughput(repeat: int, folder: Path) -> tuple[list[tuple[str, float]], float, list[str]]:
    import bytepair
    import tiktoken

    from tests.tiktoken_offline import fill_cache, offline_tiktoken

    inputs, docs, size = _documents(folder)
    enc = bytepair.get_encoding("cl100k_base")
    theirs = offline_tiktoken(fill_cache(folder / "tiktoken-cache"))("cl100k_base")
    assert tiktoken.__version__
    rows: list[tuple[str, tuple[float, float | None]]] = []
    problems: list[str] = []
    digests: dict[str, str] = {}

    def cold() -> None:
        enc.engine.cache.clear()
        enc.batch_pool.close(wait=True)

    for processes in (1, 2):
        out = folder / f"p{processes}"
        log(f"encode_corpus, {processes} process(es)")
        seconds = _median(lambda: bytepair.encode_corpus(inputs, out, encoding="cl100k_base", processes=processes,
                                                         shard_tokens=1_000_000, progress=False),
                          lambda: (cold(), shutil.rmtree(out, ignore_errors=True)), repeat)
        rows.append((f"`encode_corpus`, {processes} process{'es' if processes > 1 else ''}", seconds))
        digests[f"{processes} processes"] = _digest(out)
    log("encode_corpus on a Dask LocalCluster(2)")
    spec = importlib.util.spec_from_file_location("dask_encode_example", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(example)
    from dask.distributed import Client, LocalCluster

    out = folder / "dask"
    times = []
    for _ in range(repeat):  # a new cluster each run (its start not timed): workers with cold caches
        shutil.rmtree(out, ignore_errors=True)
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            start = time.perf_counter()
            example.encode_with_dask(client, inputs, str(out), encoding="cl100k_base", shard_tokens=1_000_000, progress=False)
            times.append(time.perf_counter() - start)
    seconds = (statistics.median(times), None)  # the cluster's worker processes are not this one's children
    rows.append(("`encode_corpus` on Dask LocalCluster(2) (`examples/dask_encode.py`)", seconds))
    digests["dask"] = _digest(out)
    if len(set(digests.values())) != 1:
        problems.append(f"shards differ: {digests}")
    expected = theirs.encode_ordinary_batch(docs, num_threads=1)
    for threads in (1, 2):
        log(f"encode_ordinary_batch, num_threads={threads}")
        ids: list[Any] = []
        seconds = _median(lambda: ids.append(enc.encode_ordinary_batch(docs, num_threads=threads)), cold, repeat,
                          lambda: enc.batch_pool.close(wait=True))
        rows.append((f"bytepair `encode_ordinary_batch(num_threads={threads})`", seconds))
        if ids[-1] != expected:
            problems.append(f"bytepair encode_ordinary_batch(num_threads={threads}) differs from tiktoken")
    for threads in (1, 2):
        seconds = _median(lambda: theirs.encode_ordinary_batch(docs, num_threads=threads), lambda: None, repeat)
        rows.append((f"tiktoken 0.14 `encode_ordinary_batch(num_threads={threads})`", seconds))
    enc.batch_pool.close()
    return rows, size, problems


def long_pieces(repeat: int, sizes: Sequence[int]) -> list[tuple[str, int, float, float]]:
    path = HF_DIR / "llama3" / "tokenizer.json"
    if not path.exists():
        raise SystemExit(f"{path} is missing: run `make hf-data` first")
    env = dict(os.environ, PYTHONPATH=str(CORE), RAYON_NUM_THREADS="1")
    rows = []
    for size in sizes:
        for kind, label in (("hf", "HF tokenizers 0.23.3 `encode` (1 thread)"), ("encode", "bytepair `Tokenizer.encode`"),
                            ("count", "bytepair `Tokenizer.count`")):
            log(f"long piece, {size / 1e6:g} MB, {kind}")
            runs = [json.loads(subprocess.run([sys.executable, "-c", LONG_CHILD, kind, str(size), str(path)], env=env,
                                              capture_output=True, text=True, check=True).stdout) for _ in range(repeat)]
            rows.append((label, size, statistics.median(r["seconds"] for r in runs), statistics.median(r["added_mb"] for r in runs)))
    return rows


def report(rows: list[tuple[str, tuple[float, float | None]]], size: int, problems: list[str],
           long_rows: list[tuple[str, int, float, float]], repeat: int) -> str:
    wall = {label: w for label, (w, _) in rows}
    cpu = {label: c for label, (_, c) in rows}

    def scaling(one: str, two: str) -> str:
        """Wall 1 ÷ 2, and what an idle machine would give: CPU of 1 ÷ (CPU of 2 ÷ 2)."""
        c1, c2 = cpu[one], cpu[two]
        idle = f", {2 * c1 / c2:.2f}× by CPU time" if c1 and c2 else ""
        return f"{wall[one] / wall[two]:.2f}× by wall time{idle}"

    corpus, batch, tik = "`encode_corpus`, {}", "bytepair `encode_ordinary_batch(num_threads={})`", \
        "tiktoken 0.14 `encode_ordinary_batch(num_threads={})`"
    lines = [
        "## A corpus on every core, and long pieces through the tokenizer.json face",
        "",
        f"`python -m bench corpus` ({platform.python_implementation()} {platform.python_version()}, `nproc` = "
        f"{os.cpu_count()}, shared with other work; {time.strftime('%Y-%m-%d')}): the bench corpus as one .jsonl "
        f"({size / 1e6:.1f} MB of UTF-8 text), cl100k_base, median of {repeat} runs from cold caches "
        "(bytepair's worker start-up timed, the LocalCluster's not); 1-minute load average during the run: "
        f"{load_summary()} (above 2, other work shared the two cores and wall-time ratios understate the "
        "scaling). CPU s: this process's threads and its worker processes together (the Dask workers are not "
        "its children); on two idle cores, two workers take about half of it. "
        "Shards byte-identical across runs: " + ("yes." if not problems else "**NO**: " + "; ".join(problems)),
        "",
        "| what | wall s | MB/s | CPU s |",
        "|:---|---:|---:|---:|",
    ]
    lines += [f"| {label} | {w:.2f} | {size / 1e6 / w:.2f} | {'' if c is None else f'{c:.2f}'} |" for label, (w, c) in rows]
    lines += [
        "",
        f"Scaling, 2 ÷ 1: `encode_corpus` {scaling(corpus.format('1 process'), corpus.format('2 processes'))}; "
        f"bytepair `encode_ordinary_batch` {scaling(batch.format(1), batch.format(2))}; "
        f"tiktoken `encode_ordinary_batch` {wall[tik.format(1)] / wall[tik.format(2)]:.2f}× by wall time "
        "(its threads' CPU time does not tell what idle cores would do).",
        "",
        "Long pieces: random a-z on one line with Llama 3's tokenizer.json (one pre-token piece), each run in a fresh "
        f"process; seconds and the peak RSS the call added (Linux's VmHWM, reset before the call), median of {repeat}.",
        "",
        "| what | MB | s | ÷ HF | added MB | ÷ HF |",
        "|:---|---:|---:|---:|---:|---:|",
    ]
    hf = {size: (s, mb) for label, size, s, mb in long_rows if label.startswith("HF")}
    for label, size, seconds, mb in long_rows:
        hs, hmb = hf[size]
        lines.append(f"| {label} | {size / 1e6:g} | {seconds:.2f} | {seconds / hs:.2f}× | {mb:.0f} | "
                     f"{mb / max(hmb, 1):.2f}× |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str]) -> int:
    p = parser("corpus", __doc__)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--long-sizes", default="1000000,5000000", help="sizes of the long pieces, in characters")
    p.add_argument("--no-write", action="store_true")
    args = p.parse_args(argv)
    sys.path[:0] = [str(CORE), str(REPO)]
    with tempfile.TemporaryDirectory(prefix="bench-corpus-") as tmp:
        rows, size, problems = throughput(args.repeat, Path(tmp))
    long_rows = long_pieces(args.repeat, [int(s) for s in args.long_sizes.split(",")])
    text = report(rows, size, problems, long_rows, args.repeat)
    print(text)
    if not args.no_write:
        replace_section(PERFORMANCE, "corpus", text)
    return 1 if problems else 0
