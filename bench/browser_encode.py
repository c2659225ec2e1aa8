"""Measurements ``first pass``, ``mixed stream`` and ``throughput`` of the browser section (section
``browser`` of docs/PERFORMANCE.md): every library encoding the corpus in headless Chromium, on a
fresh page per file, in a stream of every file twice on one page, and file by file (first pass and
warm) on one page per library.

Why together: the three share their pages' calls (``load``, ``encodeOnce``, ``encodeFile``,
``mixedStream`` of ``bench/web/bench.mjs``) and their MB/s and time-ratio tables; the worst cases,
which need a time limit and a page that may die, are in ``browser_worst.py``.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from bench.browser_harness import (
    LIBRARIES,
    BenchPage,
    JobError,
    JobTimeout,
    Session,
    bench_page,
    fmt_mbps,
    rotated,
)
from bench.common import MB, Column, log, md_table

MIXED_ROUNDS = 2
CALL_OVERHEAD_REPEATS = 20


# ------------------------------------------------------------------------------- encode speed
@dataclass
class EncodeRun:
    library: str
    encoding: str
    corpus: str
    n_bytes: int
    n_tokens: int
    first_ms: float
    warm_ms: float  # median of the re-encodes


@dataclass
class ThroughputResult:
    runs: list[EncodeRun]
    call_overhead_ms: dict[tuple[str, str], float]  # (library, encoding) -> median count("") ms


def encode_corpus(session: Session, page: BenchPage, library: str, encoding: str) -> list[EncodeRun]:
    """Every corpus file, in order, on one page that has just loaded the library."""
    a = session.args
    runs = []
    for corpus in session.corpus:
        try:
            r = page.call("encodeFile", f"/corpus/{corpus}.txt", a.repeats, timeout_s=a.timeout * (1 + a.repeats))
        except (JobTimeout, JobError) as err:
            session.error(f"throughput {library} {encoding} {corpus}: {err}")
            continue
        session.check_ids(encoding, corpus, library, r, f"{corpus} (first pass)")
        warm_ms = statistics.median(r["warmMs"])
        runs.append(EncodeRun(library, encoding, corpus, r["bytes"], r["tokens"], r["firstMs"], warm_ms))
    return runs


def measure_throughput(session: Session) -> ThroughputResult:
    """Per encoding and library, a fresh page loads the library and encodes the corpus files in order."""
    result = ThroughputResult([], {})
    for encoding in session.args.encodings:
        for library in LIBRARIES:
            log(f"throughput: {encoding}, {library}")
            with bench_page(session.browser(), session.site, session.guard) as page:
                try:  # (a library that fails to load is reported, and the others still run)
                    page.call("load", library, encoding, timeout_s=120)
                    result.call_overhead_ms[library, encoding] = page.call(
                        "callOverhead", CALL_OVERHEAD_REPEATS, timeout_s=60
                    )
                except (JobTimeout, JobError) as err:
                    session.error(f"throughput: loading {library} {encoding}: {err}")
                    continue
                result.runs += encode_corpus(session, page, library, encoding)
    return result


# ----------------------------------------------------------------- first pass and mixed stream
@dataclass
class FirstPassRun:
    library: str
    encoding: str
    corpus: str
    n_bytes: int
    ms: float | None  # None: failed (see session.errors)


def measure_first_pass(session: Session) -> list[FirstPassRun]:
    """Every encoding × corpus file × library: a fresh page loads the library and encodes that file once.

    A fresh browser context per call: the library's code, its caches and V8's optimizations start
    from nothing, as on a page that meets its first text (bytepair: a new worker, empty piece cache).
    """
    a = session.args
    runs = []
    for encoding in a.encodings:
        for i, corpus in enumerate(session.corpus):
            for library in rotated(LIBRARIES, i):
                log(f"first pass: {encoding}, {corpus}, {library}")
                n_bytes = session.text_bytes[corpus]
                with bench_page(session.browser(), session.site, session.guard) as page:
                    try:
                        page.call("load", library, encoding, timeout_s=120)
                        r = page.call("encodeOnce", f"/corpus/{corpus}.txt", timeout_s=a.timeout)
                    except (JobTimeout, JobError) as err:
                        session.error(f"first pass {library} {encoding} {corpus}: {err}")
                        runs.append(FirstPassRun(library, encoding, corpus, n_bytes, None))
                        continue
                session.check_ids(encoding, corpus, library, r, f"{corpus} (first pass, fresh page)")
                runs.append(FirstPassRun(library, encoding, corpus, r["bytes"], r["ms"]))
    return runs


@dataclass
class MixedRun:
    library: str
    encoding: str
    n_bytes: int  # one round
    round_ms: list[float]  # empty: failed


def measure_mixed(session: Session) -> list[MixedRun]:
    """Per encoding and library, one fresh page encodes every corpus file in turn, MIXED_ROUNDS times."""
    a = session.args
    urls = [f"/corpus/{corpus}.txt" for corpus in session.corpus]
    n_bytes = sum(session.text_bytes[c] for c in session.corpus)
    runs = []
    for e, encoding in enumerate(a.encodings):
        for library in rotated(LIBRARIES, e):
            log(f"mixed stream: {encoding}, {library}")
            with bench_page(session.browser(), session.site, session.guard) as page:
                try:
                    page.call("load", library, encoding, timeout_s=120)
                    r = page.call("mixedStream", urls, MIXED_ROUNDS, timeout_s=a.timeout * 5 * MIXED_ROUNDS)
                except (JobTimeout, JobError) as err:
                    session.error(f"mixed stream {library} {encoding}: {err}")
                    runs.append(MixedRun(library, encoding, n_bytes, []))
                    continue
            for k, rnd in enumerate(r["rounds"]):
                for corpus, result in zip(session.corpus, rnd["files"], strict=True):
                    session.check_ids(encoding, corpus, library, result, f"{corpus} (mixed stream, round {k + 1})")
            runs.append(MixedRun(library, encoding, sum(r["bytes"]), [rnd["ms"] for rnd in r["rounds"]]))
    return runs


FIRST_PASS_SUMMARY_COLUMNS: list[Column] = (
    [("encoding", "l"), ("input MB", "r")]
    + [(f"{library} MB/s", "r") for library in LIBRARIES]
    + [("bytepair ÷ gpt-tokenizer time", "r"), ("target: bytepair ≥ gpt-tokenizer's MB/s", "l")]
)


def first_pass_totals(session: Session, runs: list[FirstPassRun], encoding: str) -> dict[str, tuple[int, float]]:
    """Per library that encoded every file: (total bytes, total ms)."""
    out = {}
    for library in LIBRARIES:
        mine = [r for r in runs if r.library == library and r.encoding == encoding]
        if len(mine) == len(session.corpus) and all(r.ms is not None for r in mine):
            out[library] = (sum(r.n_bytes for r in mine), sum(r.ms for r in mine if r.ms is not None))
    return out


def verdict(ratio: float | None) -> str:
    if ratio is None:
        return "–"
    return "met" if ratio <= 1 else "**not met**"


def render_first_pass(session: Session, runs: list[FirstPassRun]) -> str:
    summary, blocks = [], []
    for encoding in session.args.encodings:
        totals = first_pass_totals(session, runs, encoding)
        n_bytes = sum(session.text_bytes[c] for c in session.corpus)
        row = [encoding, f"{n_bytes / MB:.3f}"]
        row += [fmt_mbps(*totals[library]) if library in totals else "failed" for library in LIBRARIES]
        ratio = totals["bytepair"][1] / totals["gpt-tokenizer"][1] if {"bytepair", "gpt-tokenizer"} <= set(totals) else None
        summary.append(row + ["–" if ratio is None else f"{ratio:.2f}×", verdict(ratio)])
        body = []
        for corpus in session.corpus:
            by_library = {r.library: r for r in runs if r.encoding == encoding and r.corpus == corpus}
            cells = [fmt_mbps(session.text_bytes[corpus], by_library[lib].ms) if lib in by_library else "–" for lib in LIBRARIES]
            ours, theirs = by_library.get("bytepair"), by_library.get("gpt-tokenizer")
            r = f"{ours.ms / theirs.ms:.2f}×" if ours and theirs and ours.ms and theirs.ms else "–"
            body.append([corpus, f"{session.text_bytes[corpus] / MB:.3f}", *cells, r])
        columns: list[Column] = (
            [("corpus", "l"), ("input MB", "r")]
            + [(f"{library} MB/s", "r") for library in LIBRARIES]
            + [("bytepair ÷ gpt-tokenizer time", "r")]
        )
        blocks.append(f"#### First pass per file, {encoding}\n\n{md_table(columns, body)}")
    return f"""### 1. First pass: new text on a fresh page

Each corpus file encoded **once** by each library on a page where that library has encoded nothing
before: per encoding, file and library a fresh browser context (its own renderer, empty caches) loads
the library (not timed) and times one awaited `encode(text)` after a garbage collection; the order
of the libraries rotates from file to file. bytepair's piece cache is empty and its Python
code runs for the first time in that worker; the peers' JavaScript is not yet optimized by V8. MB/s
is total bytes over total time (MB = 10⁶ bytes); the ratio is a time ratio, under 1.00× means
bytepair took less time. **Target: bytepair's first pass at least gpt-tokenizer's speed** (ratio
≤ 1.00×). bytepair's times include the round trip to its Web Worker; the peers block the page's
main thread.

{md_table(FIRST_PASS_SUMMARY_COLUMNS, summary)}

{chr(10).join(b + chr(10) for b in blocks)}"""


def first_pass_notes(session: Session, runs: list[FirstPassRun]) -> list[str]:
    out = []
    for encoding in session.args.encodings:
        totals = first_pass_totals(session, runs, encoding)
        if not {"bytepair", "gpt-tokenizer"} <= set(totals):
            out.append(f"- First pass {encoding}: bytepair or gpt-tokenizer failed a file; no verdict.")
            continue
        ratio = totals["bytepair"][1] / totals["gpt-tokenizer"][1]
        out.append(
            f"- First pass {encoding}: bytepair {fmt_mbps(*totals['bytepair'])} MB/s against gpt-tokenizer's "
            f"{fmt_mbps(*totals['gpt-tokenizer'])} ({ratio:.2f}× its time): target {verdict(ratio)}."
        )
    return out


MIXED_COLUMNS: list[Column] = (
    [("encoding", "l"), ("round", "l"), ("input MB", "r")]
    + [(f"{library} MB/s", "r") for library in LIBRARIES]
    + [("bytepair ÷ gpt-tokenizer time", "r")]
)


def render_mixed(session: Session, runs: list[MixedRun]) -> str:
    body = []
    for encoding in session.args.encodings:
        mine = {r.library: r for r in runs if r.encoding == encoding}
        n_bytes = next((r.n_bytes for r in mine.values()), 0)
        labels = [f"{k + 1}" for k in range(MIXED_ROUNDS)] + ["both"]
        for k, label in enumerate(labels):
            def ms_of(library: str) -> float | None:
                run = mine.get(library)
                if run is None or len(run.round_ms) != MIXED_ROUNDS:
                    return None
                return sum(run.round_ms) if label == "both" else run.round_ms[k]

            size = n_bytes * (MIXED_ROUNDS if label == "both" else 1)
            cells = [fmt_mbps(size, ms_of(lib)) if ms_of(lib) is not None else "failed" for lib in LIBRARIES]
            ours, theirs = ms_of("bytepair"), ms_of("gpt-tokenizer")
            ratio = f"{ours / theirs:.2f}×" if ours and theirs else "–"
            body.append([encoding, label if label != "both" else "**both**", f"{size / MB:.3f}", *cells, ratio])
    return f"""### 2. Mixed stream: every file in turn, two rounds, one page

Per encoding and library, one fresh page loads the library and encodes the {len(session.corpus)} corpus
files one after the other ({", ".join(session.corpus)}), then all of them again: {MIXED_ROUNDS} rounds
on the same page, so round 2 meets texts (and pieces) it has seen, while round 1 mixes new text with
whatever earlier files taught the caches. Texts are fetched before the clock starts; one garbage
collection before each round; the round is timed as a whole. Every file's ids in every round are
checked. MB/s and a bytepair ÷ gpt-tokenizer time ratio per round and for both rounds together.

{md_table(MIXED_COLUMNS, body)}
"""


def mixed_notes(session: Session, runs: list[MixedRun]) -> list[str]:
    out = []
    for encoding in session.args.encodings:
        mine = {r.library: r for r in runs if r.encoding == encoding and len(r.round_ms) == MIXED_ROUNDS}
        if {"bytepair", "gpt-tokenizer"} <= set(mine):
            ours, theirs = mine["bytepair"], mine["gpt-tokenizer"]
            ratio = sum(ours.round_ms) / sum(theirs.round_ms)
            size = ours.n_bytes * MIXED_ROUNDS
            out.append(
                f"- Mixed stream {encoding}, both rounds: bytepair {fmt_mbps(size, sum(ours.round_ms))} MB/s, "
                f"gpt-tokenizer {fmt_mbps(size, sum(theirs.round_ms))} ({ratio:.2f}× its time)."
            )
    return out


# ------------------------------------------------------------------------------ throughput tables
THROUGHPUT_COLUMNS: list[Column] = [("corpus", "l"), ("input MB", "r"), ("tokens", "r")]


def throughput_columns() -> list[Column]:
    cols = list(THROUGHPUT_COLUMNS)
    for library in LIBRARIES:
        cols += [(f"{library} first pass MB/s", "r"), (f"{library} warm MB/s", "r")]
    return cols + [("bytepair ÷ gpt-tokenizer time, warm", "r"), ("… first pass", "r")]


def ratio_cell(ours: EncodeRun | None, theirs: EncodeRun | None, attr: str) -> str:
    if ours is None or theirs is None:
        return "–"
    return f"{getattr(ours, attr) / getattr(theirs, attr):.2f}×"


def throughput_row(label: str, n_bytes: int, n_tokens: int, by_library: dict[str, EncodeRun]) -> list[str]:
    row = [label, f"{n_bytes / MB:.3f}", f"{n_tokens:,}"]
    for library in LIBRARIES:
        run = by_library.get(library)
        row += [fmt_mbps(n_bytes, run and run.first_ms), fmt_mbps(n_bytes, run and run.warm_ms)]
    ours, theirs = by_library.get("bytepair"), by_library.get("gpt-tokenizer")
    return row + [ratio_cell(ours, theirs, "warm_ms"), ratio_cell(ours, theirs, "first_ms")]


def total_runs(runs: list[EncodeRun], corpora: Sequence[str]) -> dict[str, EncodeRun]:
    """Per library, all files as one: total bytes over total time (only libraries that did them all)."""
    totals = {}
    for library in LIBRARIES:
        mine = [r for r in runs if r.library == library]
        if mine and len(mine) == len(corpora):
            totals[library] = EncodeRun(
                library, mine[0].encoding, "all", sum(r.n_bytes for r in mine), sum(r.n_tokens for r in mine),
                sum(r.first_ms for r in mine), sum(r.warm_ms for r in mine),
            )  # fmt: skip
    return totals


def throughput_tables(session: Session, result: ThroughputResult) -> str:
    blocks = []
    for encoding in session.args.encodings:
        runs = [r for r in result.runs if r.encoding == encoding]
        body = []
        for corpus in session.corpus:
            by_library = {r.library: r for r in runs if r.corpus == corpus}
            if by_library:
                any_run = next(iter(by_library.values()))
                body.append(throughput_row(corpus, any_run.n_bytes, any_run.n_tokens, by_library))
        totals = total_runs(runs, list(session.corpus))
        if totals:
            any_total = next(iter(totals.values()))
            body.append(throughput_row("**all files**", any_total.n_bytes, any_total.n_tokens, totals))
        blocks.append(f"#### {encoding}\n\n{md_table(throughput_columns(), body)}")
    return "\n\n".join(blocks)


def overhead_line(session: Session, result: ThroughputResult) -> str:
    parts = [
        f"{library} {encoding}: {ms:.2f} ms"
        for (library, encoding), ms in result.call_overhead_ms.items()
        if library == "bytepair"
    ]
    return "; ".join(parts) if parts else "not measured"


def render_throughput(session: Session, result: ThroughputResult) -> str:
    a = session.args
    return f"""### 3. Encode throughput per file, first pass and warm, one page per library

MB/s of UTF-8 input (MB = 10⁶ bytes) for one `encode(text)` call on a whole corpus file, timed in the
page around the awaited call, after a garbage collection (`--js-flags=--expose-gc`). Every library
is called with its default special-token handling; the texts contain no special tokens. For each
encoding and library a fresh page in one shared browser loads the library and then encodes the
files in the order below. **First pass**: the first encode of a file on that page. For the first
file, bytepair's piece cache is empty and the JavaScript engines' code is not yet optimized; later
files benefit from the pieces and the optimized code of earlier files, so only the first row is a
true first call. **Warm**: median of {a.repeats} re-encodes of the same file right after. Ratios
are time ratios, bytepair ÷ gpt-tokenizer: under 1.00× means bytepair took less time. Target:
bytepair's throughput at least gpt-tokenizer's (ratio ≤ 1.00×).

bytepair runs in a Web Worker: its times include sending the text there and the ids back (one
transferred `Uint32Array`); the peers run on the page's main thread, which they block meanwhile.
bytepair's fixed cost per call, the median of {CALL_OVERHEAD_REPEATS} `count("")` round trips:
{overhead_line(session, result)}. Corpus: `bench/corpus` (see `bench/corpus/README.md`).

{throughput_tables(session, result)}
"""


def throughput_notes(session: Session, result: ThroughputResult) -> list[str]:
    out = []
    for encoding in session.args.encodings:
        totals = total_runs([r for r in result.runs if r.encoding == encoding], list(session.corpus))
        ours, theirs = totals.get("bytepair"), totals.get("gpt-tokenizer")
        if ours is None or theirs is None:
            out.append(f"- {encoding}: bytepair or gpt-tokenizer did not encode every file; no throughput verdict.")
            continue
        warm, first = ours.warm_ms / theirs.warm_ms, ours.first_ms / theirs.first_ms
        verdict = "meets" if warm <= 1 else "does **not** meet"
        out.append(
            f"- {encoding}, all files: bytepair warm takes {warm:.2f}× gpt-tokenizer's time "
            f"({fmt_mbps(ours.n_bytes, ours.warm_ms)} against {fmt_mbps(theirs.n_bytes, theirs.warm_ms)} MB/s), "
            f"so it {verdict} the throughput target warm; first pass {first:.2f}×."
        )
    return out
