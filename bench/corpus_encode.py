"""Section ``corpus`` of docs/PERFORMANCE.md: tokenizing a corpus on more than one core, and long
single pieces through the tokenizer.json face.

    .venv/bin/python -m bench corpus             # writes the `corpus` section
    .venv/bin/python -m bench corpus --repeat 1 --no-write

Throughput: the bench corpus (``bench/corpus``, every file, cut into documents at blank lines, as
``.jsonl``) encoded with cl100k_base by ``bytepair.encode_corpus`` with 1 and 2 processes and on a
Dask LocalCluster of 2 worker processes (``examples/dask_encode.py``); the same corpus as one
plain-text file (one document, cut into parts across the workers) with 1 and 2 processes; by
``Encoding.encode_ordinary_batch`` with ``num_threads`` 1 and 2, beside tiktoken's
``encode_ordinary_batch`` with 1 and 2 threads; MB/s of UTF-8 text, wall time, median of
``--repeat`` runs, every run from cold caches (bytepair's piece cache emptied, a new LocalCluster
per run). ``encode_corpus`` starts its workers in the call (timed); the batch's workers are what a
user's encoding keeps and reuses: started before the clock (``batch_pool.start``, after the cache
is emptied, so they start cold too), with a row for a first call that starts them (timed) and warm
rows (the same batch again on the same pool, with the pieces every process has seen). The shards of
every run are checked byte-identical, and the batch ids equal to tiktoken's.

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


def _process_cpu(pid: int) -> float:
    """CPU seconds a live process has used (Linux's /proc; 0 elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _median(run: Callable[[], Any], before: Callable[[], Any], repeat: int,
            after: Callable[[], Any] = lambda: None, running: Callable[[], list[int]] = list) -> tuple[float, float]:
    """Median wall seconds of ``run`` and its median CPU seconds, with its worker processes' (those
    ``after`` ends and reaps, and those ``running`` still lists then: a reused pool's); a worker's
    CPU time before the clock started is not counted."""
    times, cpus = [], []
    for _ in range(repeat):
        before()
        started = sum(map(_process_cpu, running()))
        cpu = _cpu()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
        after()
        cpus.append(_cpu() - cpu + sum(map(_process_cpu, running())) - started)
    return statistics.median(times), statistics.median(cpus)


def _children() -> list[int]:
    """This process's live child processes (a reused pool's workers), from Linux's /proc: every
    thread's children, since the pool starts its processes from whichever thread submits."""
    pids: list[int] = []
    for task in Path("/proc/self/task").glob("*"):
        try:
            pids += [int(pid) for pid in (task / "children").read_text().split()]
        except OSError:
            continue
    return pids


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
    file_digests: dict[str, str] = {}

    def cold() -> None:
        enc.engine.cache.clear()
        enc.batch_pool.close(wait=True)

    one_file = folder / "corpus.txt"
    one_file.write_text("\n\n".join(docs), encoding="utf-8", newline="")
    for name, paths in (("", inputs), (", one plain-text file", [str(one_file)])):
        for processes in (1, 2):
            out = folder / f"p{processes}{name and '-file'}"
            log(f"encode_corpus{name}, {processes} process(es)")
            seconds = _median(lambda: bytepair.encode_corpus(paths, out, encoding="cl100k_base", processes=processes,
                                                             shard_tokens=1_000_000, progress=False),
                              lambda: (cold(), shutil.rmtree(out, ignore_errors=True)), repeat)
            rows.append((f"`encode_corpus`{name}, {processes} process{'es' if processes > 1 else ''}", seconds))
            (digests if not name else file_digests)[f"{processes} processes"] = _digest(out)
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
    if len(set(file_digests.values())) != 1:
        problems.append(f"shards of the one file differ: {file_digests}")
    expected = theirs.encode_ordinary_batch(docs, num_threads=1)
    pool = enc.batch_pool
    workers = _children
    for threads, state in ((1, "cold"), (2, "cold"), (2, "first"), (1, "warm"), (2, "warm")):
        log(f"encode_ordinary_batch, num_threads={threads}, {state}")
        ids: list[Any] = []
        if state == "warm":  # the same batch once more first: every process has seen its pieces
            pool.start(threads)
            enc.encode_ordinary_batch(docs, num_threads=threads)
        before = {"cold": lambda: (cold(), pool.start(threads)), "first": cold, "warm": lambda: None}[state]
        seconds = _median(lambda: ids.append(enc.encode_ordinary_batch(docs, num_threads=threads)), before, repeat,
                          (lambda: None) if state == "warm" else (lambda: pool.close(wait=True)), workers)
        rows.append((BATCH_ROWS[state].format(threads), seconds))
        if ids[-1] != expected:
            problems.append(f"bytepair encode_ordinary_batch(num_threads={threads}) differs from tiktoken")
        cold()
    for threads in (1, 2):
        seconds = _median(lambda: theirs.encode_ordinary_batch(docs, num_threads=threads), lambda: None, repeat)
        rows.append((f"tiktoken 0.14 `encode_ordinary_batch(num_threads={threads})`", seconds))
    enc.batch_pool.close()
    return rows, size, problems


BATCH_ROWS = {"cold": "bytepair `encode_ordinary_batch(num_threads={})`",
              "first": "bytepair `encode_ordinary_batch(num_threads={})`, first call (starts its worker)",
              "warm": "bytepair `encode_ordinary_batch(num_threads={})`, warm (the same batch again)"}


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

    corpus, one_file, tik = "`encode_corpus`, {}", "`encode_corpus`, one plain-text file, {}", \
        "tiktoken 0.14 `encode_ordinary_batch(num_threads={})`"
    batch, first, warm = (BATCH_ROWS[state].format for state in ("cold", "first", "warm"))
    lines = [
        "## A corpus on every core, and long pieces through the tokenizer.json face",
        "",
        f"`python -m bench corpus` ({platform.python_implementation()} {platform.python_version()}, `nproc` = "
        f"{os.cpu_count()}, shared with other work; {time.strftime('%Y-%m-%d %H:%M')}): the bench corpus as one .jsonl "
        f"({size / 1e6:.1f} MB of UTF-8 text; the one-file rows: the same text as one plain-text file, one document "
        f"its workers share in parts), cl100k_base, median of {repeat} runs from cold caches. `encode_corpus` starts "
        "its worker processes inside the figure (the LocalCluster is started outside it). The batch rows measure "
        "what a user's encoding gives once its pool runs: the encoding keeps its workers and reuses them, so they "
        "are started before the clock (`batch_pool.start(2)`, after the piece cache is emptied: they start cold "
        "too); the first-call row is a batch that starts its worker inside the figure, and the warm rows run the "
        "same batch again on the same pool (every process has seen its pieces: a long run's steady state, at its "
        "most favourable). "
        "1-minute load average during the run: "
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
        f"one plain-text file {scaling(one_file.format('1 process'), one_file.format('2 processes'))}; "
        f"bytepair `encode_ordinary_batch` with its pool running {scaling(batch(1), batch(2))}, a first call "
        f"{scaling(batch(1), first(2))}, warm {scaling(warm(1), warm(2))}; "
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
