"""The tables and words of section ``tokenizer-json``: ``render`` turns the results that
``tokenizer_json.py`` gathered into the markdown it prints and writes.

Why apart: the summary at the top is computed from the same rows as the tables below it, and reads
best in one place, away from the timing loops.
"""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from typing import Any

from bench.common import HF_DIR, MB, md_table
from bench.tokenizer_json_child import LIBRARIES
from bench.tokenizer_json_measure import FirstRow, LoadRow, StreamRow, TokieDiff, WarmRow

MODEL_NAMES = {"llama3": "Llama 3", "qwen2_5": "Qwen2.5", "qwen3": "Qwen3", "deepseek_v3": "DeepSeek-V3",
               "gpt2": "GPT-2", "llama2": "Llama 2"}


def mbps(n_bytes: float, seconds: float | None) -> str:
    return "–" if seconds is None else f"{n_bytes / MB / seconds:.2f}"


def speed_ratio(ours: float | None, theirs: float | None) -> str:
    """Throughput ratio from two times: 2.00× = twice HF's MB/s."""
    return "–" if ours is None or theirs is None else f"{theirs / ours:.2f}×"


def secs(seconds: float | None) -> str:
    return "–" if seconds is None else f"{seconds:.3f}"


def verdict(ratio: float, target: float) -> str:
    return "met" if ratio >= target else "**not met**"


def first_pass_table(rows: list[FirstRow], libs: Sequence[str]) -> str:
    columns = [("model", "l"), ("corpus", "l"), ("MB", "r"), ("HF tokens", "r"), ("HF MB/s", "r"),
               ("bytepair MB/s", "r"), ("tokie MB/s", "r"), ("bytepair × HF throughput", "r"), ("≥ 1×", "l"),
               ("load s (HF / bytepair / tokie)", "r")]
    body = []
    for r in rows:
        x = r.encode_s.hf / r.encode_s.bytepair
        body.append([MODEL_NAMES.get(r.model, r.model), r.corpus, f"{r.n_bytes / MB:.3f}", f"{r.n_tokens:,}",
                     mbps(r.n_bytes, r.encode_s.hf), mbps(r.n_bytes, r.encode_s.bytepair),
                     mbps(r.n_bytes, r.encode_s.tokie), f"{x:.2f}×", verdict(x, 1),
                     " / ".join(secs(r.load_s.get(lib)) for lib in LIBRARIES)])
    return md_table(columns, body)


def stream_table(rows: list[StreamRow]) -> str:
    columns = [("model", "l"), ("files × rounds", "r"), ("MB", "r"), ("HF MB/s", "r"), ("bytepair MB/s", "r"),
               ("tokie MB/s", "r"), ("bytepair × HF throughput", "r"), ("≥ 1×", "l"),
               ("bytepair round 1 / round 2 MB/s", "r")]
    body = []
    for r in rows:
        n = r.n_bytes * r.rounds
        x = r.total_s.hf / r.total_s.bytepair
        per_round = " / ".join(mbps(r.n_bytes, s) for s in r.round_s["bytepair"])
        body.append([MODEL_NAMES.get(r.model, r.model), f"{r.n_files} × {r.rounds}", f"{n / MB:.2f}",
                     mbps(n, r.total_s.hf), mbps(n, r.total_s.bytepair), mbps(n, r.total_s.tokie), f"{x:.2f}×",
                     verdict(x, 1), per_round])
    return md_table(columns, body)


def warm_table(rows: list[WarmRow]) -> str:
    columns = [("model", "l"), ("corpus", "l"), ("HF MB/s", "r"), ("bytepair MB/s", "r"), ("tokie MB/s", "r"),
               ("bytepair × HF throughput", "r"), ("≥ 3×", "l"), ("tokie × HF throughput", "r")]
    body = []
    for r in rows:
        x = r.encode_s.hf / r.encode_s.bytepair
        body.append([MODEL_NAMES.get(r.model, r.model), r.corpus, mbps(r.n_bytes, r.encode_s.hf),
                     mbps(r.n_bytes, r.encode_s.bytepair), mbps(r.n_bytes, r.encode_s.tokie), f"{x:.2f}×",
                     verdict(x, 3), speed_ratio(r.encode_s.tokie, r.encode_s.hf)])
    return md_table(columns, body)


def load_table(rows: list[LoadRow]) -> str:
    columns = [("tokenizer.json", "l"), ("MB", "r"), ("gzip -9 MB", "r"), ("HF s", "r"), ("bytepair s", "r"),
               ("tokie s", "r"), ("bytepair ÷ HF (time)", "r"), ("tokie `.tkz` MB", "r"), ("tokie `.tkz` load s", "r")]
    body = []
    for r in rows:
        gz = len(gzip.compress((HF_DIR / r.model / "tokenizer.json").read_bytes(), 9, mtime=0))
        cells = {lib: ("fails" if lib in r.errors else secs(r.load_s.get(lib))) for lib in LIBRARIES}
        ratio = "–" if r.load_s.bytepair is None or r.load_s.hf is None else f"{r.load_s.bytepair / r.load_s.hf:.2f}×"
        body.append([MODEL_NAMES.get(r.model, r.model), f"{r.file_bytes / MB:.2f}", f"{gz / MB:.2f}", cells["hf"],
                     cells["bytepair"], cells["tokie"], ratio,
                     "–" if r.tkz_bytes is None else f"{r.tkz_bytes / MB:.2f}", secs(r.tkz_load_s)])
    return md_table(columns, body)


def tokie_table(diffs: list[TokieDiff]) -> str:
    columns = [("model", "l"), ("files differing", "r"), ("HF tokens tokie does not reproduce", "r"),
               ("tokie tokens ÷ HF tokens", "r"), ("files with differences", "l")]
    body = [[MODEL_NAMES.get(d.model, d.model), f"{len(d.files_differing)} / {d.files}",
             f"{d.hf_tokens_not_reproduced:,} / {d.hf_tokens:,} ({d.hf_tokens_not_reproduced / d.hf_tokens:.3%})"
             + ("" if d.aligned else " †"),
             f"{d.tokie_tokens:,} / {d.hf_tokens:,}", ", ".join(d.files_differing) or "none"] for d in diffs]
    return md_table(columns, body)


def ratio_range(values: Sequence[float]) -> str:
    return f"{min(values):.2f}×" if min(values) == max(values) else f"{min(values):.2f}–{max(values):.2f}×"


def render(res: dict[str, Any]) -> str:
    a, info = res["args"], res["info"]
    first, stream, warm = res["first"], res["stream"], res["warm"]
    first_x = [r.encode_s.hf / r.encode_s.bytepair for r in first]
    stream_x = [r.total_s.hf / r.total_s.bytepair for r in stream]
    warm_x = [r.encode_s.hf / r.encode_s.bytepair for r in warm]
    tokie_note = res["tokie_note"]
    llama3_load = next((r for r in res["load"] if r.model == "llama3"), None)
    load_line = ""
    if llama3_load is not None and llama3_load.load_s.bytepair and llama3_load.load_s.hf:
        load_line = (f"- **Load** Llama 3's {llama3_load.file_bytes / MB:.1f} MB `tokenizer.json`: bytepair "
                     f"{llama3_load.load_s.bytepair:.2f} s, HF {llama3_load.load_s.hf:.2f} s "
                     f"({llama3_load.load_s.bytepair / llama3_load.load_s.hf:.1f}× HF's time).\n")
    imports = res["imports"]
    import_line = ", ".join(f"{lib} {imports[lib] * 1000:.0f} ms" for lib in LIBRARIES if lib in imports)
    corpora = ", ".join(f"`{n}`" for n in a.corpora)
    checks = res["checks"]
    clock_text = (
        "**Clock.** Seconds are the process's **CPU time** (`time.process_time()`, `--clock cpu`, the\n"
        "default): it is the work done, and it does not grow when other processes take turns on this\n"
        "shared machine, as wall time does. A call that used several threads is billed all of its\n"
        "threads' CPU time, so no library gains from threads here (see Checks). `--clock wall` gives\n"
        "wall-clock times instead."
        if a.clock == "cpu" else "**Clock.** Seconds are **wall-clock** time (`--clock wall`)."
    )
    multi = [lib for lib, x in checks.cpu_over_wall.items() if x > 1.05]
    thread_note = (
        f"{', '.join(multi)} used more than one thread in at least one call despite `RAYON_NUM_THREADS=1`"
        + ("; with the CPU clock that work is billed in full, so the tables are per core of work." if a.clock == "cpu"
           else "; with the wall clock its figures include that parallelism.")
        if multi else "every library ran single-threaded."
    )
    threads = ", ".join(f"{lib} {checks.cpu_over_wall[lib]:.2f}" for lib in LIBRARIES if lib in checks.cpu_over_wall)
    tokie_files = res["tokie"][0].files if res["tokie"] else 0
    dagger = ("\n† In at least one file tokie's tokens add up to a different number of bytes than HF's (a "
              "normalizer applied differently?), so positions after that point do not line up and the count is "
              "an upper bound.\n" if any(not d.aligned for d in res["tokie"]) else "")
    return f"""## tokenizer.json: bytepair.Tokenizer against HF tokenizers and tokie

`bytepair.Tokenizer` (pure Python) against HF `tokenizers` (Rust) and tokie (Rust), all three
loading the same `tokenizer.json` and calling `encode(text, add_special_tokens=False).ids`.
Generated by `python -m bench tokenizer-json`; every number in this section comes from this one run.

**What users get** (bytepair's throughput ÷ HF's, higher is better; targets from the issue):

- **New text in a fresh process** (first pass, empty caches): {ratio_range(first_x)} HF's throughput
  ({len(first)} model × file cases; target ≥ 1×: met in {sum(x >= 1 for x in first_x)} of {len(first_x)}).
- **Mixed stream** (all {stream[0].n_files} corpus files in turn, twice, one process): {ratio_range(stream_x)}
  HF's throughput (target ≥ 1×: met for {sum(x >= 1 for x in stream_x)} of {len(stream_x)} models).
{load_line}- **Warm, same text again** (labelled warm everywhere): {ratio_range(warm_x)} HF's throughput
  (target ≥ 3×: met in {sum(x >= 3 for x in warm_x)} of {len(warm_x)}).
- **tokie**: {tokie_note}

- **Date:** {info["date"]}
- **Machine:** {info["cpu"]}
- **Python:** {info["python"]}
- **Libraries:** bytepair {res["versions"]["bytepair"]}, tokenizers {res["versions"]["hf"]}, tokie {res["versions"]["tokie"]}
- **Code measured:** {info["code"]}, copied when the run started; every process imported that copy.
- **Command:** `{res["command"]}` (repeats = {a.repeats}; whole run {res["runtime_s"] / 60:.1f} min).
  `make bench` runs the same section as `.venv/bin/python -m bench tokenizer-json` (in `python -m bench all`).
- **Threads:** `RAYON_NUM_THREADS=1` and `TOKENIZERS_PARALLELISM=false` in every process (one `encode`
  call is single-threaded in all three libraries anyway; these make sure).
- **Load average** (1 min) during the run: {res["load_avg"]}. The benchmark itself accounts for about 1.

**How to read the tables.** MB = 10⁶ bytes of UTF-8 input; MB/s = input bytes ÷ seconds of
`encode`. "× HF throughput" = bytepair's MB/s ÷ HF's MB/s in the same run (1.00× = HF's speed, 3.00×
three times faster). Medians of {a.repeats} (processes or calls); the libraries take turns within each
repeat so a busy moment on this shared 2-core machine hits all of them. Corpus: `bench/corpus`
(see its README), whole files.

{clock_text}

### 1. First pass: new text in a fresh process

A new Python process imports the library, loads the `tokenizer.json`, then times one `encode` of
the whole file: empty piece cache, nothing seen before. Import and load are not in the MB/s (load
time is shown separately; import times: {import_line}). Files: {corpora}.

{first_pass_table(first, res["libs"])}

### 2. Mixed stream: every corpus file in turn, twice, in one process

One fresh process per library loads the file, then encodes all {stream[0].n_files} corpus files one after
another, then all of them again ({", ".join(f"`{n}`" for n in res["stream_names"])}). MB/s over
the whole stream (load excluded); bytepair's two rounds are shown apart: the second round meets
text the piece cache has seen, within its bound.

{stream_table(stream)}

### 3. Warm: the same text again, in one process

**Warm same-text figures: the text was encoded once, untimed, just before.** bytepair's piece cache
then answers most pieces (HF's BPE model keeps a bounded word cache of its own; every library gets
the same warm-up call). This is bytepair's best case, not what a new document sees: sections 1 and
2 are.

{warm_table(warm)}

### 4. Loading a tokenizer.json

A fresh process imports the library (not in the time), then times `Tokenizer.from_file(path)`
(tokie: `Tokenizer.from_json(path)`); median of {a.repeats}. "fails": the library rejects the file.
tokie's `.tkz` is its own compact binary form (`Tokenizer.save`, loaded with `Tokenizer.from_file`);
bytepair has no compact converted form for `tokenizer.json` yet.

{load_table(res["load"])}
{res["load_errors"]}

### 5. tokie's ids against HF's

Every corpus file ({tokie_files} files), encoded by HF and by tokie in this process. A HF
token counts as not reproduced when tokie has no token with the same id over the same bytes
(positions from the tokens' byte lengths), so one different split counts its few tokens, not the
rest of the file.

{tokie_table(res["tokie"]) if res["tokie"] else "tokie was not measured: " + tokie_note}
{dagger}
### Checks

bytepair's ids were compared with HF's on every text measured: each first-pass process, each file of
each round of each stream process, and each warm text in-process ({len(checks.passed)} comparisons, all
equal; a difference would have stopped the run). HF's own first-pass and stream processes were
checked against HF in-process the same way.

Threads: the largest CPU ÷ wall ratio of any timed `encode` call (of at least 10 ms) was
{threads} (above 1.00: more than one thread worked; below: the process waited for the CPU), so
{thread_note}
"""
