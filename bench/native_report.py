"""The tables and words of section ``native``: ``render`` turns the measurements of
``native_measure.py`` and ``native_models.py`` into the markdown that ``native.py`` prints and writes.

Why apart: the notes are computed from the results, so the text cannot drift from the tables, and
they are easier to read beside the tables than between the timing loops. Imported by ``native.py``
after its snapshot (``piece_cache_limit`` reads the bound from the code measured).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

import bytepair

from bench.common import MB, REPO, WORST_CASE_SEED, Checks, Column, md_table, ratio
from bench.native_measure import MixedRow, SizeRow, StartupResult, ThroughputRow, WorstCaseRow

# ------------------------------------------------------------------------------------------ tables
THROUGHPUT_COLUMNS: list[Column] = [
    ("encoding", "l"),
    ("corpus", "l"),
    ("input MB", "r"),
    ("tokens", "r"),
    ("tiktoken MB/s", "r"),
    ("bytepair first pass MB/s", "r"),
    ("bytepair cold cache MB/s", "r"),
    ("bytepair warm MB/s", "r"),
    ("naive MB/s", "r"),
    ("first pass ÷ tiktoken (time)", "r"),
    ("warm ÷ tiktoken (time)", "r"),
]
WORST_CASE_COLUMNS: list[Column] = [
    ("encoding", "l"),
    ("input", "l"),
    ("bytes", "r"),
    ("tokens", "r"),
    ("tiktoken s", "r"),
    ("bytepair s (empty caches)", "r"),
    ("bytepair ÷ tiktoken (time)", "r"),
    ("within 2×", "l"),
]
STARTUP_COLUMNS: list[Column] = [
    ("step (fresh process)", "l"),
    ("bytepair ms", "r"),
    ("tiktoken ms", "r"),
    ("bytepair ÷ tiktoken (time)", "r"),
]
PARSE_COLUMNS: list[Column] = [
    ("rank file", "l"),
    ("bytepair packed `.bpr` ms", "r"),
    ("`bytepair.parse_tiktoken_bpe` ms", "r"),
    ("`tiktoken.load.load_tiktoken_bpe` ms", "r"),
    ("packed ÷ tiktoken parse (time)", "r"),
]
SIZE_COLUMNS: list[Column] = [
    ("rank data", "l"),
    ("`core/bytepair/data/*.bpr` bytes", "r"),
    ("official `.tiktoken` bytes", "r"),
    ("official, gzip -9 bytes", "r"),
    (".bpr ÷ official", "r"),
]


def mbps(n_bytes: int, seconds: float) -> str:
    return f"{n_bytes / MB / seconds:.2f}"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def total_row(rows: list[ThroughputRow]) -> ThroughputRow:
    """All files of one encoding as if they were one: total bytes over total time."""
    return ThroughputRow(
        f"**{rows[0].encoding}**",
        "**all files**",
        sum(r.n_bytes for r in rows),
        sum(r.n_tokens for r in rows),
        sum(r.tiktoken_s for r in rows),
        sum(r.first_pass_s for r in rows),
        sum(r.cold_s for r in rows),
        sum(r.warm_s for r in rows),
        sum(r.naive_s for r in rows),
    )


def with_totals(rows: list[ThroughputRow]) -> list[ThroughputRow]:
    """Per-file rows, each encoding's (or model's) followed by its all-files row."""
    out = []
    for label in dict.fromkeys(r.encoding for r in rows):
        group = [r for r in rows if r.encoding == label]
        out += [*group, total_row(group)]
    return out


def throughput_table(rows: list[ThroughputRow]) -> str:
    """Per-file rows plus, per encoding, an all-files row."""
    body = [
        [
            r.encoding,
            r.corpus,
            f"{r.n_bytes / MB:.3f}",
            f"{r.n_tokens:,}",
            mbps(r.n_bytes, r.tiktoken_s),
            mbps(r.n_bytes, r.first_pass_s),
            mbps(r.n_bytes, r.cold_s),
            mbps(r.n_bytes, r.warm_s),
            mbps(r.n_bytes, r.naive_s),
            ratio(r.first_pass_s, r.tiktoken_s),
            ratio(r.warm_s, r.tiktoken_s),
        ]
        for r in with_totals(rows)
    ]
    return md_table(THROUGHPUT_COLUMNS, body)


def worst_case_table(rows: list[WorstCaseRow]) -> str:
    body = []
    for r in rows:
        if r.tiktoken_s is None:
            theirs, times, within = "panics", "–", "–"
        else:
            theirs, times = f"{r.tiktoken_s:.3f}", ratio(r.bytepair_s, r.tiktoken_s)
            within = "yes" if r.bytepair_s <= 2 * r.tiktoken_s else "**no**"
        body.append(
            [r.encoding, r.case, f"{r.n_bytes:,}", f"{r.n_tokens:,}", theirs, f"{r.bytepair_s:.3f}", times, within]
        )
    return md_table(WORST_CASE_COLUMNS, body)


def startup_table(s: StartupResult) -> str:
    body = [
        [
            "`import`, bytecode cached",
            ms(s.import_cached_s),
            ms(s.tiktoken_import_s),
            ratio(s.import_cached_s, s.tiktoken_import_s),
        ],
        ["`import bytepair`, compiling its `.py` files", ms(s.import_compile_s), "–", "–"],
    ]
    body += [
        [f"`get_encoding({name!r})`", ms(ours), ms(theirs), ratio(ours, theirs)]
        for name, (ours, theirs) in s.get_encoding_s.items()
    ]
    return md_table(STARTUP_COLUMNS, body)


def parse_table(s: StartupResult) -> str:
    body = [
        [name, ms(packed), ms(ours), ms(theirs), ratio(packed, theirs)]
        for name, (packed, ours, theirs) in s.parse_s.items()
    ]
    return md_table(PARSE_COLUMNS, body)


def size_table(rows: list[SizeRow]) -> str:
    total = SizeRow(
        "**total**",
        sum(r.bpr_bytes for r in rows),
        sum(r.tiktoken_bytes for r in rows),
        sum(r.tiktoken_gzip_bytes for r in rows),
    )
    body = [
        [
            r.rank_file,
            f"{r.bpr_bytes:,}",
            f"{r.tiktoken_bytes:,}",
            f"{r.tiktoken_gzip_bytes:,}",
            f"{r.bpr_bytes / r.tiktoken_bytes:.1%}",
        ]
        for r in [*rows, total]
    ]
    return md_table(SIZE_COLUMNS, body)


def piece_cache_limit(name: str) -> str:
    """The piece cache's bound, read from the code measured rather than written down here."""
    limit = getattr(bytepair.get_encoding(name).engine.cache, "max_entries", None)
    return f"{limit:,}" if isinstance(limit, int) else "an unknown number of"


# ------------------------------------------------------------------ 1b and the summary
MODEL_COLUMNS: list[Column] = [
    ("model", "l"),
    ("corpus", "l"),
    ("input MB", "r"),
    ("tokens", "r"),
    ("tiktoken MB/s", "r"),
    ("bytepair first pass MB/s", "r"),
    ("bytepair warm MB/s", "r"),
    ("first pass ÷ tiktoken (time)", "r"),
    ("warm ÷ tiktoken (time)", "r"),
]


def model_table(rows: list[ThroughputRow]) -> str:
    """Per-file rows plus, per model, an all-files row (no cold-cache or naive columns)."""
    body = [
        [
            r.encoding, r.corpus, f"{r.n_bytes / MB:.3f}", f"{r.n_tokens:,}", mbps(r.n_bytes, r.tiktoken_s),
            mbps(r.n_bytes, r.first_pass_s), mbps(r.n_bytes, r.warm_s), ratio(r.first_pass_s, r.tiktoken_s),
            ratio(r.warm_s, r.tiktoken_s),
        ]
        for r in with_totals(rows)
    ]
    return md_table(MODEL_COLUMNS, body)


def mixed_table(rows: list[MixedRow], throughput: list[ThroughputRow]) -> str:
    """The summary: new text first (mixed stream, first pass), the same-text warm figure last."""
    out = [
        "| encoding | MB | tiktoken MB/s | bytepair MB/s, round 1 | round 2 | round 1 ÷ tiktoken (time) "
        "| round 2 ÷ tiktoken | first pass ÷ tiktoken, all files | warm same text ÷ tiktoken |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for r in rows:
        group = [t for t in throughput if t.encoding == r.encoding]
        first = sum(t.first_pass_s for t in group) / sum(t.tiktoken_s for t in group)
        warm = sum(t.warm_s for t in group) / sum(t.tiktoken_s for t in group)
        tk = sum(r.tiktoken_s) / 2
        out.append(
            f"| {r.encoding} | {r.n_bytes / MB:.1f} | {mbps(r.n_bytes, tk)} | {mbps(r.n_bytes, r.bytepair_s[0])} "
            f"| {mbps(r.n_bytes, r.bytepair_s[1])} | {r.bytepair_s[0] / r.tiktoken_s[0]:.2f}× "
            f"| {r.bytepair_s[1] / r.tiktoken_s[1]:.2f}× | {first:.2f}× | {warm:.2f}× |"
        )
    return "\n".join(out) + "\n"


# -------------------------------------------------------------------------------- the section
@dataclass
class Results:
    info: dict[str, str]
    command: str
    args: argparse.Namespace
    corpus_dir: Path
    throughput: list[ThroughputRow]
    mixed: list[MixedRow]
    worst: list[WorstCaseRow]
    startup: StartupResult
    sizes: list[SizeRow]
    checks: Checks
    cache_limit: str
    load: str
    runtime_s: float = 0.0
    models: list[ThroughputRow] = field(default_factory=list)
    """Per-file rows of the ``tokenizer.json`` models (section 1b); their mixed rows are in ``mixed``."""


def render(res: Results) -> str:
    """Section ``native`` of PERFORMANCE.md (one ``##`` heading); the notes only restate what the tables show."""
    a = res.args
    try:
        corpus_dir = res.corpus_dir.relative_to(REPO)
    except ValueError:
        corpus_dir = res.corpus_dir
    check_line = (
        f"All {len(res.checks.passed)} id comparisons matched their reference."
        if not res.checks.failed
        else f"**{len(res.checks.failed)} of {len(res.checks.passed) + len(res.checks.failed)} id comparisons FAILED:**\n\n"
        + "\n".join(f"- {f}" for f in res.checks.failed)
    )
    return f"""## Native: bytepair on CPython

bytepair (pure Python) against tiktoken 0.14 (Rust) and a naive pure-Python BPE
(`bench/naive_reference.py`). Generated by `python -m bench native`; every number in this section
comes from this one run, so re-run it rather than edit the tables.

- **Date:** {res.info["date"]}
- **Machine:** {res.info["cpu"]}
- **Python:** {res.info["python"]}
- **Libraries:** {res.info["versions"]}
- **Code measured:** {res.info["code"]}, copied when the run started; every process imported that copy.
- **Command:** `{res.command}` (repeats = {a.repeats}{", --quick" if a.quick else ""}; whole run {res.runtime_s / 60:.1f} min).
  `make bench` runs the same section as `.venv/bin/python -m bench native` (in `python -m bench all`).
- **`PYTHONDONTWRITEBYTECODE`** in the benchmark's environment: {res.info["bytecode"]} (section 3 says how
  the fresh processes handle bytecode).
- **Load average** (1 min) during the run: {res.load}. The benchmark itself accounts for
  about 1; more means other processes were running at the same time.

Timings on a machine this small are noisy; medians damp the noise but do not remove it, so compare
runs with care and do not read much into small differences.

**How to read the tables.** MB = 10⁶ bytes of UTF-8 input; MB/s = input bytes ÷ seconds of one
`encode_ordinary` call on the whole text. Ratios are **time** ratios, bytepair ÷ tiktoken: 1.00× is
tiktoken's speed, 2.00× takes twice as long. tiktoken runs single-threaded (`encode_ordinary` on one
text uses one thread).

- **first pass**: a fresh Python process imports bytepair, calls `get_encoding`, then times one
  `encode_ordinary` of the file: empty piece cache and patterns not yet used, as a command-line tool
  or a notebook cell would see it. Median of {a.repeats} processes. Import and `get_encoding` are not
  in this time (see section 3).
- **cold cache**: in the benchmark's process, `enc.engine.cache.clear()` (piece cache, and the seam cache of
  long pieces) before each timed call; compiled patterns stay. Median of {a.repeats}.
- **warm**: in-process, after one untimed warm-up encode of the same file, so most pieces come from the
  piece cache (bounded at {res.cache_limit} entries; a text with more distinct pieces keeps refilling
  it). Median of {a.repeats}.
- **tiktoken**: in-process, after one untimed call. Median of {a.repeats}.
- **naive**: `bench/naive_reference.py` (regex findall + rank loop, no cache), one run per file.

Corpus: `{corpus_dir}`{" (see `bench/corpus/README.md`)" if corpus_dir == Path("bench/corpus") else ""}, one call per whole file.

### Summary: text never seen before

A token counter mostly sees new text. **Mixed stream**: every corpus file in turn, two rounds, in one
process, one `encode_ordinary` per file, bytepair's caches empty at the start, CPU time summed over
the files (tiktoken measured in the same loop). **First pass**: the fresh-process times of section 1
summed over all files, against tiktoken's. **Warm same text** (section 1's warm column, summed) holds
only while the piece cache holds that text. Ratios are time ratios, bytepair ÷ tiktoken; the target
for new text is 2.00× (half tiktoken's throughput).{models_summary(res)}

{mixed_table(res.mixed, res.throughput + res.models)}

### 1. Throughput

{throughput_table(res.throughput)}
{models_section(res)}
### 2. Worst cases (1 MB inputs, empty caches)

tiktoken runs in a fresh process (it can panic) after one short warm-up call; bytepair runs
in-process with its piece and seam caches emptied before each call. Median of {a.worst_repeats} for both.
Random inputs are seeded ({WORST_CASE_SEED}). The target is bytepair within 2× of tiktoken's time.

{worst_case_table(res.worst)}
{panic_note(res.worst)}
### 3. Start-up

Each number is the median of {a.repeats} fresh processes timing one step with `time.perf_counter()`
inside the process (interpreter start-up itself excluded; tiktoken's `import` is the median over all
its `get_encoding` processes). `get_encoding` is timed after the library's import. tiktoken builds
the encoding from the official files already in `TIKTOKEN_CACHE_DIR` (read, sha256 check, base64
parse, Rust `CoreBPE` construction); `gpt2` in tiktoken reads GPT-2's `encoder.json` and `vocab.bpe`.
bytepair reads its packed `.bpr` file (read, sha256 check, zlib, split, dict), then builds its
`Encoding`.

Bytecode: an editable install compiles nothing, and with `PYTHONDONTWRITEBYTECODE=1` Python never
writes `.pyc` files, so every `import bytepair` may compile all its `.py` files. To measure both cases
on purpose, the fresh processes run with `PYTHONDONTWRITEBYTECODE=1` and a private
`PYTHONPYCACHEPREFIX` filled once beforehand. "Bytecode cached" reads `.pyc` files for everything (as
after `pip install`). "Compiling" removes only bytepair's `.pyc` files, so bytepair's sources are
compiled on every import while the standard library still loads from bytecode. The first-pass
processes of section 1 run with bytecode cached.

{startup_table(res.startup)}

Rank files, parsed in-process (median of {a.repeats}, file read included, files in the page cache):
bytepair's packed format against the official base64 `.tiktoken` text, parsed by bytepair's strict
parser and by tiktoken's own loader (`TIKTOKEN_CACHE_DIR=""`, so it reads the path directly).

{parse_table(res.startup)}

### 4. Data size

{size_table(res.sizes)}

The official sizes are those of the `.tiktoken` text rebuilt from each `.bpr` file
(`expand_to_tiktoken_text`), the same bytes that tiktoken loaded from its cache in section 3 after
checking them against the sha256 it pins for the official files.

The `.bpr` payload is the tokens' raw bytes in rank order, zlib level 9; the official text spells each
token in base64 with its rank. r50k_base serves both `gpt2` and `r50k_base`, p50k_base serves
`p50k_base` and `p50k_edit`, o200k_base serves `o200k_base` and `o200k_harmony`.

### Checks

Every id list bytepair produced in this run was compared with tiktoken's: each corpus file per
encoding (every first-pass process, and in-process), each worst case; the naive reference too, on the
files it ran. For the `tokenizer.json` models, tiktoken on the file's vocabulary was itself compared
with HF `tokenizers` on every file, and bytepair with that tiktoken. {check_line}

### Notes

{notes(res)}
"""


def models_summary(res: Results) -> str:
    """The summary's words on the ``tokenizer.json`` rows, if any ran."""
    if not res.models:
        return ""
    return """ The `tokenizer.json` rows run `bytepair.Tokenizer` (HF's API: `encode(text,
add_special_tokens=False).ids`, the pair-rank merge of the file) against tiktoken on the same
vocabulary (section 1b)."""


def models_section(res: Results) -> str:
    """Section 1b: the ``tokenizer.json`` models, per file."""
    if not res.models:
        return ""
    return f"""
### 1b. Through `tokenizer.json`: open models against tiktoken on their own vocabulary

`bytepair.Tokenizer.from_file` loads the model's `tokenizer.json` (`make hf-data` fetches them); the
timed call is `encode(text, add_special_tokens=False).ids`, HF's API. The reference is tiktoken 0.14
built from the same file: its vocabulary as ranks (id = rank; the merges follow id order) and its split
pattern, after the file's normalizer (Qwen2.5's NFC, by `unicodedata`, counted in tiktoken's time).
Its ids were checked against HF `tokenizers` on every file (HF also matches a model's added tokens,
such as `<|endoftext|>`, inside any text; the corpus holds none). **First pass**: a fresh process imports
bytepair and loads the file (not timed), then times one encode; median of {res.args.repeats} processes. **Warm**:
in-process, after the mixed stream and one untimed encode of the same file; median of {res.args.repeats}.
tiktoken: in-process, after one untimed call; median of {res.args.repeats}.

{model_table(res.models)}
"""


def code_span(text: str) -> str:
    """``text`` as inline markdown code; its own backticks become quotes so the span stays whole."""
    return "`" + text.replace("`", "'") + "`"


def panic_note(rows: list[WorstCaseRow]) -> str:
    """What tiktoken said when it panicked, and how bytepair's output was checked instead."""
    panics = [r for r in rows if r.tiktoken_panic]
    if not panics:
        return ""
    lines = [f"- {r.encoding}, {r.case}: {code_span(r.tiktoken_panic or '')}" for r in panics]
    return (
        '\n"panics": tiktoken 0.14 raised a Rust panic instead of returning ids (pyo3\'s `PanicException`, a '
        "`BaseException`):\n\n" + "\n".join(lines) + "\n\nWith no reference ids there, bytepair's output was "
        "checked only by decoding it back to the input.\n"
    )


def notes(res: Results) -> str:
    """Observations computed from the results, so the text cannot drift from the tables."""
    out = []
    for encoding in dict.fromkeys(r.encoding for r in res.throughput):
        group = [r for r in res.throughput if r.encoding == encoding]
        warm = [r.warm_s / r.tiktoken_s for r in group]
        first = [r.first_pass_s / r.tiktoken_s for r in group]
        out.append(
            f"- {encoding}: warm bytepair takes {min(warm):.2f}–{max(warm):.2f}× tiktoken's time across files, "
            f"first pass {min(first):.2f}–{max(first):.2f}×."
        )
        total = total_row(group)
        out.append(
            f"  Over all files the naive reference takes {total.naive_s / total.first_pass_s:.1f}× bytepair's "
            f"first-pass time and {total.naive_s / total.warm_s:.1f}× its warm time."
        )
    timed = [(r, r.bytepair_s / r.tiktoken_s) for r in res.worst if r.tiktoken_s is not None]
    over = [f"{r.encoding} {r.case} ({x:.1f}×)" for r, x in timed if x > 2]
    out.append(
        "- Worst cases over the 2× target: " + "; ".join(over) + "."
        if over
        else "- Every worst case that tiktoken completes is within 2× of its time."
    )
    faster = [f"{r.encoding} {r.case} ({x:.2f}×)" for r, x in timed if x < 1]
    if faster:
        out.append("- Worst cases where bytepair took less time than tiktoken in this run: " + "; ".join(faster) + ".")
    s = res.startup
    parse_gain = [theirs / packed for packed, _, theirs in s.parse_s.values()]
    out.append(
        f"- Loading the packed `.bpr` ranks is {min(parse_gain):.1f}–{max(parse_gain):.1f}× faster than tiktoken's "
        "parse of the same ranks from base64 text."
    )
    out.append(
        "- These are one machine's timings (see the top of this section); re-run `make bench` before relying on a "
        "number elsewhere."
    )
    return "\n".join(out)
