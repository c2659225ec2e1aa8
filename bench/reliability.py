"""Reliability on big, awkward inputs: memory and early exit; sections `reliability` and
`reliability-tokenizer-json` of docs/RELIABILITY.md.

    .venv/bin/python -m bench reliability           # full run (~70 MB + 3 × 17 MB inputs), writes the doc (make bench runs it)
    .venv/bin/python -m bench reliability --quick   # 1/20 of the sizes, one repeat; prints, writes nothing
    .venv/bin/python -m bench reliability --only tokenizer-json   # (d) alone, its own section

Why: throughput (docs/PERFORMANCE.md) says nothing about whether counting a 70 MB CSV fits in memory,
whether a 17 MB line without a single space (minified JSON, base64, CJK) blows up, or whether
``is_within_token_limit`` really stops early. Measured, each as the median of ``--repeats`` runs:

(a) peak RSS of the ``bytepair count`` CLI (``python -m bytepair``) in a child process (``os.wait4``'s
    ``ru_maxrss``), on generated inputs, and of tiktoken 0.14 counting the same file (read whole,
    ``len(encode(...))``) for reference; plus the bare start (``import bytepair``, ``bytepair list``).
(b) seconds of ``is_within_token_limit(text, 1000)`` against ``count(text)`` on each 17 MB text, and of
    a chunked counter when the Encoding has one (``count_file`` / ``count_chunks`` / ``token_counter``),
    each in a fresh process (empty piece cache), text already in memory (``count_file`` reads it).
(c) bytes allocated per token by ``encode_to_array`` (tracemalloc peak ÷ tokens) on 10 MB, with
    ``encode`` (a list) beside it.
(d) peak RSS of ``bytepair count -t`` with Llama 3's and Qwen 2.5's tokenizer.json (build/cache/hf, from
    ``make hf-data``) on the 17 MB inputs, and of HF tokenizers counting the same file read whole;
    section ``reliability-tokenizer-json``.

Inputs are generated deterministically (fixed seeds) into build/cache/reliability/, never committed.
Children import bytepair from this checkout's core/ (PYTHONPATH), and tiktoken offline from the
rank data bytepair ships (tests/tiktoken_offline.py). The whitespace runs of docs/RELIABILITY.md are
section ``whitespace`` (``whitespace.py``).
"""

from __future__ import annotations

import base64
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.common import CORE, HF_DIR, RELIABILITY, REPO, parser, replace_marked

CACHE = REPO / "build" / "cache" / "reliability"
JSON_SECTION = "reliability-tokenizer-json"
HF_COUNT = (
    "import sys, tokenizers\n"
    "tok = tokenizers.Tokenizer.from_file(sys.argv[1])\n"
    "with open(sys.argv[2], encoding='utf-8', newline='') as f:\n"
    "    print(len(tok.encode(f.read(), add_special_tokens=False).ids))\n"
)
MB = 1_000_000
ENCODING = "o200k_base"
LIMIT = 1000


# ----------------------------------------------------------------------------- inputs
def _write_until(path: Path, size: int, make_chunk: Callable[[random.Random], str], seed: int, sep: str = "") -> None:
    """Append generated chunks until ``size`` bytes of UTF-8 (cut at a character boundary)."""
    rng = random.Random(seed)
    written = 0
    with open(path, "w", encoding="utf-8", newline="") as f:
        while written < size:
            chunk = make_chunk(rng) + sep
            data = chunk.encode("utf-8")
            if written + len(data) > size:
                data = data[: size - written].decode("utf-8", "ignore").encode("utf-8")
                chunk = data.decode("utf-8")
                if not chunk:
                    break
            f.write(chunk)
            written += len(data)


FIRST = ["Anna", "José", "Zoë", "Mehmet", "Li", "Olga", "Søren", "Aoife", "Kwame", "Priya", "Ana-María", "Dmitri"]
LAST = ["Smith", "García", "Müller", "O'Brien", "Nguyen", "Kowalski", "Ivanova", "Dubois", "Rossi", "Tanaka"]
WORDS = ("the order arrived late but the product works fine and support was quick to answer "
         "please refund shipping cost damaged box excellent quality would buy again size runs small").split()


def _csv_row(rng: random.Random) -> str:
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 25)))
    if rng.random() < 0.2:
        text += ', she said "ok"'
    text = text.replace('"', '""')
    return (
        f'{rng.randrange(10**9)},"{rng.choice(LAST)}, {rng.choice(FIRST)}",{rng.randint(18, 90)},'
        f"{rng.uniform(-1e5, 1e5):.2f},{rng.randint(1970, 2025)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d},"
        f'"{text}",{rng.choice(["true", "false", ""])}'
    )


def _json_record(rng: random.Random) -> str:
    record = {
        "id": rng.randrange(10**12),
        "name": f"{rng.choice(FIRST)} {rng.choice(LAST)}",
        "tags": rng.sample(WORDS, 3),
        "score": round(rng.random(), 6),
        "ok": rng.random() < 0.5,
        "nested": {"k": rng.choice(WORDS), "v": [rng.randrange(1000) for _ in range(4)]},
    }
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False) + ","


def _base64_chunk(rng: random.Random) -> str:
    return base64.b64encode(rng.randbytes(3 * 4096)).decode("ascii")


# Common CJK ideographs and kana, with CJK punctuation but no spaces or newlines.
CJK = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)] + [chr(c) for c in range(0x3041, 0x3097)]
CJK_PUNCT = "。、，！？「」"


def _cjk_chunk(rng: random.Random) -> str:
    return "".join(rng.choice(CJK) for _ in range(rng.randint(5, 40))) + rng.choice(CJK_PUNCT)


def _digits_chunk(rng: random.Random) -> str:
    return "".join(rng.choices("0123456789", k=4096))


def inputs(scale: float) -> dict[str, Path]:
    """Generate (once per size) and return the input files by label."""
    CACHE.mkdir(parents=True, exist_ok=True)
    specs = {
        "CSV, CRLF line ends": ("csv", 70, _csv_row, "\r\n", "id,name,age,amount,date,comment,flag\r\n"),
        "minified JSON, one line": ("json", 17, _json_record, "", "["),
        "base64, one line": ("b64", 17, _base64_chunk, "", ""),
        "CJK, no spaces": ("cjk", 17, _cjk_chunk, "", ""),
        # No cut point at all for the streaming cutter (its rules need a letter): its search for one
        # must stay near the end of what has come, or counting slows down as the line grows.
        "digits, one line": ("digits", 17, _digits_chunk, "", ""),
    }
    files = {}
    for label, (stem, megabytes, make, sep, head) in specs.items():
        size = int(megabytes * MB * scale)
        path = CACHE / f"{stem}-{size}.txt"
        if not path.exists():
            tmp = path.with_suffix(".tmp")
            _write_until(tmp, size - len(head), make, seed=sum(map(ord, stem)), sep=sep)
            data = head.encode() + tmp.read_bytes()
            path.write_bytes(data)
            tmp.unlink()
        files[label] = path
    return files


# ----------------------------------------------------------------------------- child processes
def _env(tiktoken_cache: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(CORE), "TIKTOKEN_CACHE_DIR": str(tiktoken_cache)}


def measured(argv: Sequence[str], env: dict[str, str], repeats: int) -> tuple[float, float, str]:
    """Median peak RSS (MB) and median seconds over ``repeats`` runs, with the last output."""
    runs = [_run_reaping(argv, env) for _ in range(repeats)]
    return (
        statistics.median(r[0] for r in runs) / 1000,
        statistics.median(r[1] for r in runs),
        runs[-1][2],
    )


# A small launcher between us and the measured process. Linux carries the parent's resident size into
# a forked child's ru_maxrss (the copied address space's high-water mark survives exec), so a child
# forked by this (big) benchmark process would report at least our own size; forked by a bare
# interpreter, it reports at least that interpreter's ~10 MB, below any Python program's own peak.
LAUNCHER = """
import json, os, subprocess, sys
proc = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(proc.pid, 0)
proc.returncode = os.waitstatus_to_exitcode(status)
with open(sys.argv[1], "w") as f:
    json.dump({"code": proc.returncode, "maxrss_kb": usage.ru_maxrss}, f)
"""


def _run_reaping(argv: Sequence[str], env: dict[str, str]) -> tuple[int, float, str]:
    """Run ``argv`` to the end; return (its own peak RSS in kB, wall seconds, stdout)."""
    out_path, err_path, usage_path = CACHE / "child.out", CACHE / "child.err", CACHE / "child.json"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", LAUNCHER, str(usage_path), *argv], env=env, stdout=out, stderr=err, cwd=REPO)
        seconds = time.perf_counter() - start
    usage = json.loads(usage_path.read_text())
    if usage["code"] != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {usage['code']}: {err_path.read_text(errors='replace')[-2000:]}")
    return usage["maxrss_kb"], seconds, out_path.read_text()


TIKTOKEN_COUNT = (
    "import sys, tiktoken\n"
    "enc = tiktoken.get_encoding(sys.argv[1])\n"
    "text = open(sys.argv[2], 'rb').read().decode('utf-8')\n"
    "print(len(enc.encode(text, disallowed_special=())))\n"
)

TIMED_CALL = """
import json, sys, time
import bytepair
name, path, mode, limit = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
enc = bytepair.get_encoding(name)
text = open(path, encoding="utf-8", newline="").read() if mode != "count_file" else None
start = time.perf_counter()
if mode == "is_within_token_limit":
    result = enc.is_within_token_limit(text, limit)
elif mode == "count":
    result = enc.count(text)
elif mode == "count_file":
    result = enc.count_file(path)
elif mode == "count_chunks":
    result = enc.count_chunks(text[i : i + 1_000_000] for i in range(0, len(text), 1_000_000))
elif mode == "token_counter":
    counter = enc.token_counter()
    for i in range(0, len(text), 1_000_000):
        counter.feed(text[i : i + 1_000_000])
    result = counter.finish()
print(json.dumps({"seconds": time.perf_counter() - start, "result": result}))
"""

ALLOCATION = """
import json, sys, tracemalloc
import bytepair
name, path, size, method = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
enc = bytepair.get_encoding(name)
text = open(path, encoding="utf-8", newline="").read()
text = text.encode("utf-8")[:size].decode("utf-8", "ignore")
tracemalloc.start()
ids = getattr(enc, method)(text)
peak = tracemalloc.get_traced_memory()[1]
print(json.dumps({"peak": peak, "tokens": len(ids)}))
"""


# ----------------------------------------------------------------------------- measurements
def _fmt_mb(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}"


def memory_table(files: dict[str, Path], env: dict[str, str], repeats: int) -> tuple[list[str], list[str]]:
    py = sys.executable
    rows = ["| input | size MB | bytepair tokens | tiktoken tokens | bytepair peak RSS MB | tiktoken peak RSS MB | RSS ÷ input size | bytepair s | tiktoken s |",
            "|:---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    notes = []
    for label, argv in {
        "bare start: `python -c 'import bytepair'`": [py, "-c", "import bytepair"],
        "bare start: `python -m bytepair list`": [py, "-m", "bytepair", "list"],
        "bare interpreter: `python -c pass`": [py, "-c", "pass"],
    }.items():
        rss, seconds, _ = measured(argv, env, repeats)
        if "bytepair" in label:
            t_rss, t_seconds, _ = measured([py, "-c", "import tiktoken"], env, repeats)
            reference = f"{_fmt_mb(t_rss)} (`import tiktoken`) | – | {seconds:.2f} | {t_seconds:.2f}"
        else:
            reference = f"– | – | {seconds:.2f} | –"
        rows.append(f"| {label} | – | – | – | {_fmt_mb(rss)} | {reference} |")
    for label, path in files.items():
        size = path.stat().st_size / MB
        rss, seconds, out = measured([py, "-m", "bytepair", "count", "--encoding", ENCODING, str(path)], env, repeats)
        t_rss, t_seconds, t_out = measured([py, "-c", TIKTOKEN_COUNT, ENCODING, str(path)], env, repeats)
        ours, theirs = int(out.split()[0]), int(t_out.split()[0])
        if ours != theirs:
            notes.append(f"- **{label}: `bytepair count` printed {ours:,} tokens, tiktoken counts {theirs:,}.**")
        rows.append(
            f"| {label} | {size:.1f} | {ours:,} | {theirs:,} | {_fmt_mb(rss)} | {_fmt_mb(t_rss)} | {rss / size:.1f}× | {seconds:.1f} | {t_seconds:.1f} |"
        )
        print(rows[-1], flush=True)
    return rows, notes


def tokenizer_json_table(files: dict[str, Path], env: dict[str, str], repeats: int) -> tuple[list[str], list[str]]:
    """(d): ``bytepair count -t`` against HF tokenizers, per model and 17 MB input."""
    py = sys.executable
    rows = ["| tokenizer.json | input | size MB | tokens (both) | bytepair peak RSS MB | HF tokenizers peak RSS MB | bytepair s | HF s |",
            "|:---|:---|---:|---:|---:|---:|---:|---:|"]
    notes = []
    for model in ("llama3", "qwen2_5"):
        path_json = HF_DIR / model / "tokenizer.json"
        if not path_json.is_file():
            raise SystemExit(f"{path_json} is missing: run `make hf-data`")
        for label, path in files.items():
            if "CSV" in label:
                continue  # 70 MB read whole by HF: minutes; the 17 MB lines make the point
            size = path.stat().st_size / MB
            rss, seconds, out = measured([py, "-m", "bytepair", "count", "-t", str(path_json), str(path)], env, repeats)
            h_rss, h_seconds, h_out = measured([py, "-c", HF_COUNT, str(path_json), str(path)], env, repeats)
            ours, theirs = int(out.split()[0]), int(h_out.split()[0])
            if ours != theirs:
                notes.append(f"- **{model}, {label}: `bytepair count -t` printed {ours:,} tokens, HF tokenizers counts {theirs:,}.**")
            rows.append(f"| {model} | {label} | {size:.1f} | {ours:,} | {_fmt_mb(rss)} | {_fmt_mb(h_rss)} | {seconds:.1f} | {h_seconds:.1f} |")
            print(rows[-1], flush=True)
    return rows, notes


def tokenizer_json_section(files: dict[str, Path], env: dict[str, str], repeats: int, command: str) -> str:
    rows, notes = tokenizer_json_table(files, env, repeats)
    return "\n".join([
        "## A tokenizer.json on big inputs: `bytepair count -t`",
        "",
        f"Written by {command} ({time.strftime('%Y-%m-%d')}; {machine()}). Medians of {repeats} runs, each in a",
        "fresh process, on the inputs of the section above. bytepair reads the file in blocks cut where",
        "the pipeline keeps piece boundaries (`core/bytepair/pipeline/stream_cuts.py`; before, the CLI read a",
        "tokenizer.json's input whole); HF tokenizers 0.23.3 reads it whole and takes",
        "`len(encode(text, add_special_tokens=False).ids)`. Loading Llama 3's tokenizer.json alone peaks at",
        "about 260 MB in bytepair. Peak RSS as above (`ru_maxrss` of the child).",
        "",
        *rows,
        *([""] + notes if notes else []),
    ])


def early_exit_table(files: dict[str, Path], env: dict[str, str], repeats: int) -> tuple[list[str], list[str]]:
    import bytepair

    enc = bytepair.get_encoding(ENCODING)
    chunked = [m for m in ("count_file", "count_chunks", "token_counter") if hasattr(enc, m)]
    modes = ["is_within_token_limit", "count", *chunked]
    rows = [f"| input | size MB | {' | '.join(f'`{m}` s' for m in modes)} | is_within ÷ count (time) |",
            "|:---|---:|" + "---:|" * len(modes) + "---:|"]
    for label, path in files.items():
        if "CSV" in label:
            continue
        seconds = {}
        for mode in modes:
            times = []
            for _ in range(repeats):
                _, _, out = _run_reaping([sys.executable, "-c", TIMED_CALL, ENCODING, str(path), mode, str(LIMIT)], env)
                times.append(json.loads(out)["seconds"])
            seconds[mode] = statistics.median(times)
        ratio = seconds["is_within_token_limit"] / seconds["count"]
        rows.append(f"| {label} | {path.stat().st_size / MB:.1f} | {' | '.join(f'{seconds[m]:.2f}' for m in modes)} | {ratio:.3f}× |")
        print(rows[-1], flush=True)
    notes = [f"Chunked counting APIs found on Encoding: {', '.join(f'`{m}`' for m in chunked) or 'none'}."]
    return rows, notes


def allocation_table(files: dict[str, Path], env: dict[str, str], repeats: int, size: int) -> list[str]:
    rows = ["| input (first MB) | method | tokens | tracemalloc peak MB | bytes per token |", "|:---|:---|---:|---:|---:|"]
    for label in ("CSV, CRLF line ends", "CJK, no spaces"):
        for method in ("encode_to_array", "encode"):
            runs = []
            for _ in range(repeats):
                _, _, out = _run_reaping([sys.executable, "-c", ALLOCATION, ENCODING, str(files[label]), str(size), method], env)
                runs.append(json.loads(out))
            peak = statistics.median(r["peak"] for r in runs)
            tokens = runs[-1]["tokens"]
            rows.append(f"| {label} ({size / MB:g}) | `{method}` | {tokens:,} | {peak / MB:.1f} | {peak / tokens:.1f} |")
            print(rows[-1], flush=True)
    return rows


# ----------------------------------------------------------------------------- report
def replace_section(path: Path, markdown: str, name: str = "reliability") -> None:
    """Write ``markdown`` between the markers of section ``name``, keeping the rest of the file."""
    replace_marked(path, name, markdown, new_file="# Reliability\n")


def machine() -> str:
    cpus = os.cpu_count()
    return f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}, {cpus} CPUs (shared)"


def main(argv: Sequence[str]) -> int:
    p = parser("reliability", __doc__)
    p.add_argument("--quick", action="store_true", help="1/20 of the sizes, one repeat, write nothing")
    p.add_argument("--repeats", type=int, default=None, help="runs per figure, median reported (default 3)")
    p.add_argument("--output", type=Path, default=None, help=f"document to write (default {RELIABILITY.relative_to(REPO)})")
    p.add_argument("--only", choices=["tokenizer-json"], default=None, help="run only table (d) and write only its section")
    args = p.parse_args(argv)
    scale = 0.05 if args.quick else 1.0
    repeats = args.repeats or (1 if args.quick else 3)
    output = args.output or (None if args.quick else RELIABILITY)

    from tests.tiktoken_offline import fill_cache

    env = _env(fill_cache(REPO / "build" / "cache" / "tiktoken"))
    files = inputs(scale)
    started = time.strftime("%Y-%m-%d")
    if args.only == "tokenizer-json":
        command = f"`.venv/bin/python -m bench reliability --only tokenizer-json{f' --repeats {repeats}' if args.repeats else ''}`"
        section = tokenizer_json_section(files, env, repeats, command)
        print(section)
        if output is not None:
            replace_section(output, section, JSON_SECTION)
            print(f"\nwrote section {JSON_SECTION} of {output}")
        return 0
    memory, memory_notes = memory_table(files, env, repeats)
    early, early_notes = early_exit_table(files, env, repeats)
    allocation = allocation_table(files, env, repeats, int(10 * MB * scale))
    command = f"`.venv/bin/python -m bench reliability{f' --repeats {repeats}' if args.repeats else ''}`"
    markdown = "\n".join([
        "## Big and awkward inputs",
        "",
        f"Written by {command} ({started}; {machine()}).",
        f"Medians of {repeats} runs, each in a fresh process; encoding {ENCODING}. Inputs are generated",
        "deterministically into `build/cache/reliability/`: a CSV with CRLF line ends (ids, quoted names,",
        "numbers, dates, quoted free text), minified JSON on one line, base64 on one line, CJK text",
        "without spaces or newlines, and random digits on one line. MB = 10⁶ bytes. The CPUs are shared with other jobs, so seconds are",
        "noisy between tables (each table runs at another time); compare within a row.",
        "",
        "### Peak memory of `bytepair count FILE` (the CLI, `python -m bytepair`)",
        "",
        "Peak RSS of the child process (`ru_maxrss` from `os.wait4`); tiktoken 0.14 reads the whole file and",
        "takes `len(encode(text))` for reference. Seconds are the whole process, start-up included.",
        "",
        *memory,
        *([""] + memory_notes if memory_notes else []),
        "",
        f"### Stopping early: `is_within_token_limit(text, {LIMIT})` against counting everything",
        "",
        "Seconds of the call alone, in a fresh process (empty piece cache), text already in memory",
        "(`count_file` reads the file itself, so its time includes reading).",
        "",
        *early,
        "",
        *early_notes,
        "",
        "### Allocation per token",
        "",
        "tracemalloc's peak during one call on the first 10 MB of the input (the text itself was",
        "allocated before tracing began), divided by the number of tokens.",
        "",
        *allocation,
    ])
    print()
    print(markdown)
    json_section = tokenizer_json_section(files, env, repeats, command)
    print(json_section)
    if output is not None:
        replace_section(output, markdown)
        replace_section(output, json_section, JSON_SECTION)
        print(f"\nwrote sections reliability and {JSON_SECTION} of {output}")
    return 0
