"""The measurements behind section ``native`` of docs/PERFORMANCE.md; run through ``bench_encode.py``, never directly.

``bench_encode.py`` first puts a snapshot of the bytepair package at the front of ``sys.path``; this
module imports bytepair from there, and so do the fresh processes it starts. Sections:

1. throughput of one ``encode_ordinary`` call on each corpus file (tiktoken; bytepair in a fresh
   process, with cleared caches in-process, and warm; the naive reference of ``naive_reference.py``);
0. the summary for new text: a mixed stream (every file in turn, two rounds, one process) and
   the first pass of section 1 summed, beside the same-text warm figure;
1b. open models through ``tokenizer.json`` (Llama 3, Qwen2.5: ``bytepair.Tokenizer``) against tiktoken
   built from the same file's vocabulary: first pass and warm per file, and their mixed stream;
2. worst cases: 1 MB of one letter, spaces, random letters, random digits, random emoji, and issue
   14's list (periodic and random whitespace, apostrophes, combining marks, CJK with Latin; 250 kB
   beside 1 MB), and Zalgo text (a run of distinct combining marks after every letter);
3. start-up: ``import``, ``get_encoding`` for every bundled encoding, and rank-file parsing;
4. the size of the rank data bytepair ships against the official ``.tiktoken`` files.

Why one run: every number in the document then comes from the same machine, the same moment and
the same code, so the tables can be compared with each other. Every id list bytepair produces is
compared with tiktoken's, and a mismatch is reported in the document.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import gc
import gzip
import hashlib
import lzma
import os
import platform
import random
import shlex
import shutil
import statistics
import string
import subprocess
import sys
import time
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import bytepair
from bytepair.formats import expand_to_tiktoken_text, read_packed_ranks
from bytepair.data.openai import ENCODING_SPECS
from naive_reference import NaiveTokenizer
from report import replace_section
from tests.tiktoken_offline import fill_cache, offline_tiktoken

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent

FRESH_PROCESS = BENCH / "fresh_process.py"
PACKAGE_DATA = Path(bytepair.__file__).resolve().parent / "data"
CORPUS_ORDER = ("en", "de", "fr", "es", "it", "pl", "ru", "uk", "el_cs_bg_pt", "vi", "zh", "ja", "code_python", "mixed")
MIN_CORPUS_BYTES = 1000  # smaller files (scripts_misc.txt is 1 byte) say nothing about throughput
WORST_CASE_BYTES = 1_000_000
WORST_CASE_SEED = 20240601
MB = 1e6

_START = time.perf_counter()
_LOAD_SAMPLES: list[float] = []  # 1-minute load average at each progress line: other work skews timings


def log(message: str) -> None:
    """Progress on stderr, so stdout carries only the tables; also samples the machine's load."""
    with contextlib.suppress(OSError):
        _LOAD_SAMPLES.append(os.getloadavg()[0])
    print(f"[{time.perf_counter() - _START:7.1f}s] {message}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------ timing
def time_call(fn: Callable[[], Any]) -> float:
    """Seconds for one call; garbage is collected first so one run's litter does not bill the next."""
    gc.collect()
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def median_time(fn: Callable[[], Any], repeats: int, before: Callable[[], Any] | None = None) -> float:
    """Median seconds over ``repeats`` calls; ``before`` runs untimed before each call."""
    times = []
    for _ in range(repeats):
        if before is not None:
            before()
        times.append(time_call(fn))
    return statistics.median(times)


def digest(ids: Sequence[int]) -> str:
    """Same fingerprint as ``fresh_process._digest``, to compare ids across processes."""
    return hashlib.sha256(array("I", ids).tobytes()).hexdigest()[:16]


def clear_caches(enc: bytepair.Encoding) -> None:
    """Empty bytepair's memo tables: the piece cache, and with it (``PieceCache.clear``) the long-piece
    encoder's seams, stitched chunks and sides."""
    enc.engine.cache.clear()


@contextlib.contextmanager
def env_var(name: str, value: str) -> Iterator[None]:
    """Set an environment variable for the duration of a block."""
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            del os.environ[name]
        else:
            os.environ[name] = old


# ---------------------------------------------------------------------------------- fresh processes
class FreshProcesses:
    """Runs ``fresh_process.py`` tasks in new interpreters that import the snapshot of bytepair.

    Why: whether ``.pyc`` files exist changes import time a lot, and the repo's own ``__pycache__``
    comes and goes (``PYTHONDONTWRITEBYTECODE``, editable installs). Children get
    ``PYTHONDONTWRITEBYTECODE=1`` and a private ``PYTHONPYCACHEPREFIX``, filled once by a warm-up
    child; a second copy lacks bytepair's own bytecode, so ``compile_bytepair=True`` measures an
    import that compiles bytepair's ``.py`` files while the standard library still loads from bytecode.
    """

    def __init__(self, workdir: Path, code: Path, tiktoken_cache: Path) -> None:
        self._cached = workdir / "pyc-all"
        self._no_bytepair = workdir / "pyc-without-bytepair"
        path = os.pathsep.join(filter(None, [str(code), os.environ.get("PYTHONPATH")]))
        self._env = dict(os.environ, PYTHONPATH=path, RUST_BACKTRACE="0", TIKTOKEN_CACHE_DIR=str(tiktoken_cache))
        warm_env = {k: v for k, v in self._env.items() if k != "PYTHONDONTWRITEBYTECODE"}
        warm = self._call(["warm-bytecode"], dict(warm_env, PYTHONPYCACHEPREFIX=str(self._cached)))
        if Path(warm["bytepair_file"]).resolve().parent != Path(bytepair.__file__).resolve().parent:
            raise SystemExit(f"fresh processes import bytepair from {warm['bytepair_file']}, not the snapshot")
        shutil.copytree(self._cached, self._no_bytepair)
        bytepair_pyc = self._no_bytepair / os.path.dirname(os.path.abspath(bytepair.__file__)).lstrip(os.sep)
        if not bytepair_pyc.is_dir():
            raise SystemExit(f"expected bytepair's bytecode under {bytepair_pyc}; PYTHONPYCACHEPREFIX did not work")
        shutil.rmtree(bytepair_pyc)
        self._env["PYTHONDONTWRITEBYTECODE"] = "1"

    def run(self, task: str, *args: str, compile_bytepair: bool = False) -> dict[str, Any]:
        """Run one task in a new interpreter and return its JSON result."""
        prefix = self._no_bytepair if compile_bytepair else self._cached
        return self._call([task, *args], dict(self._env, PYTHONPYCACHEPREFIX=str(prefix)))

    @staticmethod
    def _call(argv: list[str], env: dict[str, str]) -> dict[str, Any]:
        import json

        proc = subprocess.run(
            [sys.executable, str(FRESH_PROCESS), *argv], env=env, capture_output=True, text=True, cwd=REPO, check=False
        )
        if proc.returncode != 0:
            raise SystemExit(f"fresh process {argv} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
        return json.loads(proc.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------------------- inputs
def load_corpus(directory: Path, only: Sequence[str] | None) -> dict[str, str]:
    """Corpus texts by name, from ``NAME.txt.xz`` (the bundled copies) or ``NAME.txt`` files."""
    texts: dict[str, str] = {}
    for path in sorted(directory.glob("*.txt.xz")) + sorted(directory.glob("*.txt")):
        name = path.name.split(".")[0]
        if name in texts or (only is not None and name not in only):
            continue
        data = lzma.decompress(path.read_bytes()) if path.suffix == ".xz" else path.read_bytes()
        if len(data) < MIN_CORPUS_BYTES:
            log(f"skipping {path.name}: {len(data)} bytes is too small to time")
            continue
        texts[name] = data.decode("utf-8")
    if not texts:
        raise SystemExit(f"no corpus files in {directory}")
    rank = {name: i for i, name in enumerate(CORPUS_ORDER)}
    return dict(sorted(texts.items(), key=lambda item: (rank.get(item[0], len(rank)), item[0])))


def worst_case_texts() -> dict[str, str]:
    """1 MB inputs that defeat caches or make one enormous piece; seeded, so every run sees the same."""
    rng = random.Random(WORST_CASE_SEED)
    n = WORST_CASE_BYTES
    return {
        '"x" × 1,000,000': "x" * n,
        '" " × 1,000,000': " " * n,
        "random a-z × 1,000,000": "".join(rng.choices(string.ascii_lowercase, k=n)),
        "random 0-9 × 1,000,000": "".join(rng.choices(string.digits, k=n)),
        "random emoji U+1F600..1F64F × 250,000": "".join(map(chr, rng.choices(range(0x1F600, 0x1F650), k=n // 4))),
        # Issue 14's list: periodic and random whitespace, letters with apostrophes, combining marks,
        # CJK and Latin without spaces; 250 kB beside 1 MB shows whether time grows linearly. Zalgo text:
        # combining marks as people meet them (many distinct marks, a run after every letter).
        '"\\n \\n" × 333,333': "\n \n" * (n // 3),
        '" \\t" × 500,000': " \t" * (n // 2),
        "random a-z × 250,000": "".join(rng.choices(string.ascii_lowercase, k=n // 4)),
        "random whitespace mix × 250,000": "".join(rng.choices(" \t\n\r\u00a0", k=n // 4)),
        "random whitespace mix × 1,000,000": "".join(rng.choices(" \t\n\r\u00a0", k=n)),
        "random a-z and ' × 1,000,000": "".join(rng.choices(string.ascii_lowercase + "'", k=n)),
        "random combining marks on e × 500,000": "".join(
            map(chr, rng.choices([0x65, 0x301, 0x308, 0x323, 0x30A], k=n // 2))
        ),
        "random CJK and a-z × 500,000": "".join(rng.choices("日本語中文字漢かなカナ" + string.ascii_lowercase, k=n // 2)),
        "Zalgo text × 1 MB": zalgo_text(rng, n),
    }


def zalgo_text(rng: random.Random, n_bytes: int) -> str:
    """Words of 1-8 letters, each letter followed by 1-8 combining marks drawn from U+0300..U+036F,
    as Zalgo generators make them; about ``n_bytes`` of UTF-8. Every mark run is new text."""
    words, size = [], 0
    while size < n_bytes:
        letters = rng.choices(string.ascii_letters, k=rng.randint(1, 8))
        word = "".join(c + "".join(map(chr, rng.choices(range(0x300, 0x370), k=rng.randint(1, 8)))) for c in letters)
        words.append(word)
        size += len(word.encode("utf-8")) + 1
    return " ".join(words)


def write_texts(texts: dict[str, str], directory: Path) -> dict[str, Path]:
    """Write texts to files so that fresh processes can read exactly the same input."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = {}
    for i, (name, text) in enumerate(texts.items()):
        paths[name] = directory / f"{i:02d}.txt"
        paths[name].write_text(text, encoding="utf-8")
    return paths


def check_naive_reference(get_tiktoken: Callable[[str], Any], encodings: Sequence[str], corpus: dict[str, str]) -> None:
    """Fail loudly unless the naive reference gives tiktoken's ids on a small mixed sample."""
    sample = "".join(text[:2000] for text in corpus.values()) + (
        " don't  I'LL 12345 x\r\n\n  \t end 🫠😀 <|endoftext|> 3.14159 über\u00a0naïve   "
    )
    for name in encodings:
        naive = NaiveTokenizer(ENCODING_SPECS[name].pattern, bytepair.get_encoding(name)._mergeable_ranks)
        if naive.encode_ordinary(sample) != get_tiktoken(name).encode_ordinary(sample):
            raise SystemExit(f"bench/naive_reference.py disagrees with tiktoken on {name}: fix it before timing it")
    log(f"naive reference agrees with tiktoken on a {len(sample)}-character sample ({', '.join(encodings)})")


# ------------------------------------------------------------------------------------- 1. throughput
@dataclass
class ThroughputRow:
    encoding: str
    corpus: str
    n_bytes: int
    n_tokens: int
    tiktoken_s: float
    first_pass_s: float
    cold_s: float
    warm_s: float
    naive_s: float


@dataclass
class Checks:
    """Every id comparison made, and the ones that failed."""

    passed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def expect(self, ok: bool, what: str) -> None:
        (self.passed if ok else self.failed).append(what)
        if not ok:
            log(f"MISMATCH: {what}")


def bench_throughput(
    name: str,
    tiktoken_enc: Any,
    corpus: dict[str, str],
    corpus_files: dict[str, Path],
    fresh: FreshProcesses,
    repeats: int,
    checks: Checks,
) -> list[ThroughputRow]:
    """One row per corpus file: tiktoken, bytepair first pass / cold cache / warm, naive reference."""
    enc = bytepair.get_encoding(name)
    naive = NaiveTokenizer(ENCODING_SPECS[name].pattern, enc._mergeable_ranks)
    rows = []
    for corpus_name, text in corpus.items():
        log(f"throughput {name} {corpus_name}")
        expected = tiktoken_enc.encode_ordinary(text)  # also tiktoken's warm-up
        tiktoken_s = median_time(partial(tiktoken_enc.encode_ordinary, text), repeats)

        firsts = [fresh.run("bytepair-first", name, str(corpus_files[corpus_name])) for _ in range(repeats)]
        checks.expect(
            all(r["digest"] == digest(expected) for r in firsts),
            f"{name} {corpus_name}: bytepair first pass (fresh process)",
        )
        cold_s = median_time(partial(enc.encode_ordinary, text), repeats, before=partial(clear_caches, enc))
        checks.expect(enc.encode_ordinary(text) == expected, f"{name} {corpus_name}: bytepair in-process")
        warm_s = median_time(partial(enc.encode_ordinary, text), repeats)

        gc.collect()
        start = time.perf_counter()
        naive_ids = naive.encode_ordinary(text)  # one run: it is slow, and has no cache to warm
        naive_s = time.perf_counter() - start
        checks.expect(naive_ids == expected, f"{name} {corpus_name}: naive reference")
        rows.append(
            ThroughputRow(
                name,
                corpus_name,
                len(text.encode("utf-8")),
                len(expected),
                tiktoken_s,
                statistics.median(r["encode_s"] for r in firsts),
                cold_s,
                warm_s,
                naive_s,
            )
        )
    return rows


# ------------------------------------------------------------------------------------ 2. worst cases
@dataclass
class WorstCaseRow:
    encoding: str
    case: str
    n_bytes: int
    n_tokens: int
    tiktoken_s: float | None
    tiktoken_panic: str | None
    bytepair_s: float


def bench_worst_cases(
    name: str, cases: dict[str, str], case_files: dict[str, Path], fresh: FreshProcesses, repeats: int, checks: Checks
) -> list[WorstCaseRow]:
    """tiktoken (in a fresh process: it may panic) against bytepair with emptied caches before each run."""
    enc = bytepair.get_encoding(name)
    rows = []
    for case, text in cases.items():
        log(f"worst case {name} {case}")
        tk = fresh.run("tiktoken-worst", name, str(case_files[case]), str(repeats))
        bytepair_s = median_time(partial(enc.encode_ordinary, text), repeats, before=partial(clear_caches, enc))
        ids = enc.encode_ordinary(text)  # for the check; this run may refill the caches
        if "panic" in tk:
            checks.expect(
                enc.decode(ids) == text, f"{name} {case}: bytepair round trip (tiktoken panics, no reference ids)"
            )
        else:
            checks.expect(digest(ids) == tk["digest"], f"{name} {case}: bytepair with empty caches")
        rows.append(
            WorstCaseRow(
                name,
                case,
                len(text.encode("utf-8")),
                len(ids),
                statistics.median(tk["times_s"]) if "times_s" in tk else None,
                tk.get("panic"),
                bytepair_s,
            )
        )
    clear_caches(enc)
    return rows


# --------------------------------------------------------------------------------------- 3. start-up
@dataclass
class StartupResult:
    import_cached_s: float
    import_compile_s: float
    tiktoken_import_s: float
    get_encoding_s: dict[str, tuple[float, float]]  # name -> (bytepair, tiktoken)
    parse_s: dict[str, tuple[float, float, float]]  # rank file -> (packed .bpr, bytepair text, tiktoken text)


def bench_startup(fresh: FreshProcesses, repeats: int, tiktoken_files: dict[str, Path]) -> StartupResult:
    """Fresh-process import and ``get_encoding`` times, then in-process rank-file parsing."""
    log("start-up: import bytepair")
    import_cached = statistics.median(fresh.run("import-bytepair")["import_s"] for _ in range(repeats))
    import_compile = statistics.median(
        fresh.run("import-bytepair", compile_bytepair=True)["import_s"] for _ in range(repeats)
    )
    get_times: dict[str, tuple[float, float]] = {}
    tiktoken_imports: list[float] = []
    for name in ENCODING_SPECS:
        log(f"start-up: get_encoding({name!r})")
        ours = [fresh.run("bytepair-get", name)["get_encoding_s"] for _ in range(repeats)]
        theirs = [fresh.run("tiktoken-get", name) for _ in range(repeats)]
        tiktoken_imports += [r["import_s"] for r in theirs]
        get_times[name] = (statistics.median(ours), statistics.median(r["get_encoding_s"] for r in theirs))
    return StartupResult(
        import_cached,
        import_compile,
        statistics.median(tiktoken_imports),
        get_times,
        bench_parse(repeats, tiktoken_files),
    )


def load_packed(path: Path) -> dict[bytes, int]:
    """What ``get_encoding`` does with a ``.bpr`` file: read, verify, decompress, build the dict."""
    return read_packed_ranks(path.read_bytes()).ranks()


def parse_text_with_bytepair(path: Path) -> dict[bytes, int]:
    return bytepair.parse_tiktoken_bpe(path.read_bytes())


def bench_parse(repeats: int, tiktoken_files: dict[str, Path]) -> dict[str, tuple[float, float, float]]:
    """Loading ranks from bytepair's packed file vs parsing the official base64 text (both libraries)."""
    import tiktoken.load

    results = {}
    for rank_file, text_path in tiktoken_files.items():
        log(f"start-up: parse {rank_file}")
        packed = partial(load_packed, PACKAGE_DATA / f"{rank_file}.bpr")
        ours = partial(parse_text_with_bytepair, text_path)
        theirs = partial(tiktoken.load.load_tiktoken_bpe, str(text_path))
        with env_var("TIKTOKEN_CACHE_DIR", ""):  # "" = read the path directly, copy nothing to a cache
            if not packed() == ours() == theirs():
                raise SystemExit(f"{rank_file}: the three loaders disagree")
            results[rank_file] = (
                median_time(packed, repeats),
                median_time(ours, repeats),
                median_time(theirs, repeats),
            )
    return results


# ------------------------------------------------------------------------------------ 4. data sizes
@dataclass
class SizeRow:
    rank_file: str
    bpr_bytes: int
    tiktoken_bytes: int
    tiktoken_gzip_bytes: int


def expand_rank_files(directory: Path) -> dict[str, Path]:
    """Rebuild the official ``.tiktoken`` text of every bundled ``.bpr`` file (as the tests do)."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = {}
    for bpr in sorted(PACKAGE_DATA.glob("*.bpr"), key=lambda p: p.stat().st_size):
        paths[bpr.stem] = directory / f"{bpr.stem}.tiktoken"
        paths[bpr.stem].write_bytes(expand_to_tiktoken_text(read_packed_ranks(bpr.read_bytes()).tokens))
    return paths


def data_sizes(tiktoken_files: dict[str, Path]) -> list[SizeRow]:
    """Sizes on disk; gzip -9 of the official text shows how much of the gain is plain compression."""
    return [
        SizeRow(
            name,
            (PACKAGE_DATA / f"{name}.bpr").stat().st_size,
            path.stat().st_size,
            len(gzip.compress(path.read_bytes(), 9, mtime=0)),
        )
        for name, path in tiktoken_files.items()
    ]


# ---------------------------------------------------------------------------------------- reporting
Column = tuple[str, str]  # (header, "l" or "r" alignment)

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


def md_table(columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> str:
    """A markdown table with aligned columns."""
    marks = {"l": ":---", "r": "---:"}
    lines = [
        "| " + " | ".join(header for header, _ in columns) + " |",
        "|" + "|".join(marks[align] for _, align in columns) + "|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def mbps(n_bytes: int, seconds: float) -> str:
    return f"{n_bytes / MB / seconds:.2f}"


def ratio(ours: float, theirs: float) -> str:
    return f"{ours / theirs:.2f}×"


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


# ------------------------------------------------------------------------------------------ context
def machine_info(code_description: str) -> dict[str, str]:
    """What the numbers depend on: CPU, cores, Python, library versions, the code measured."""
    try:
        nproc = subprocess.run(["nproc"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        nproc = str(os.cpu_count())
    cpu = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    import regex
    import tiktoken

    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": f"{cpu}, `nproc` = {nproc}",
        "python": f"{platform.python_implementation()} {platform.python_version()} ({platform.system()} {platform.machine()})",
        "versions": f"bytepair {bytepair.__version__}, tiktoken {tiktoken.__version__}, regex {regex.__version__}",
        "code": code_description,
        "bytecode": "set" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "not set",
    }


def piece_cache_limit(name: str) -> str:
    """The piece cache's bound, read from the code measured rather than written down here."""
    limit = getattr(bytepair.get_encoding(name).engine.cache, "max_entries", None)
    return f"{limit:,}" if isinstance(limit, int) else "an unknown number of"


def load_summary() -> str:
    """Lowest, median and highest 1-minute load average seen at the progress lines."""
    if not _LOAD_SAMPLES:
        return "unknown"
    low, mid, high = min(_LOAD_SAMPLES), statistics.median(_LOAD_SAMPLES), max(_LOAD_SAMPLES)
    return f"min {low:.2f}, median {mid:.2f}, max {high:.2f} over {len(_LOAD_SAMPLES)} samples"


def command_line() -> str:
    """The command as typed, with the interpreter path relative to the repo when it lives there."""
    argv = list(sys.orig_argv)
    with contextlib.suppress(ValueError):
        argv[0] = str(Path(argv[0]).relative_to(REPO))
    return shlex.join(argv)


# --------------------------------------------------------------------------------------------- main
# ------------------------------------------------------------------------------ 0. new text, mixed
@dataclass
class MixedRow:
    """Every corpus file in turn, twice, in one process: what a counting service sees (CPU seconds)."""

    encoding: str
    n_bytes: int
    tiktoken_s: tuple[float, float]
    bytepair_s: tuple[float, float]


def bench_mixed_stream(name: str, tiktoken_enc: Any, corpus: dict[str, str], checks: Checks) -> MixedRow:
    """Round 1 starts with bytepair's caches empty; each file is encoded once per round, so the piece
    cache only helps where text repeats across files or rounds."""
    log(f"mixed stream {name}")
    enc = bytepair.get_encoding(name)
    clear_caches(enc)
    tiktoken_enc.encode_ordinary("warm up")
    return mixed_stream(name, enc.encode_ordinary, tiktoken_enc.encode_ordinary, corpus, checks)


def mixed_stream(
    label: str, encode: Callable[[str], list[int]], reference: Callable[[str], list[int]], corpus: dict[str, str],
    checks: Checks,
) -> MixedRow:
    """Every file in turn, two rounds, bytepair's ``encode`` timed beside the ``reference`` (tiktoken)
    in the same loop. CPU time (``time.process_time``), which other processes on the machine disturb
    less than wall time."""
    tk, bp = [0.0, 0.0], [0.0, 0.0]
    for round_ in (0, 1):
        for corpus_name, text in corpus.items():
            gc.collect()
            start = time.process_time()
            expected = reference(text)
            tk[round_] += time.process_time() - start
            gc.collect()
            start = time.process_time()
            ids = encode(text)
            bp[round_] += time.process_time() - start
            checks.expect(ids == expected, f"{label} {corpus_name}: mixed stream round {round_ + 1}")
    n_bytes = sum(len(t.encode("utf-8")) for t in corpus.values())
    return MixedRow(label, n_bytes, (tk[0], tk[1]), (bp[0], bp[1]))


# ------------------------------------------------------------ 1b. tokenizer.json models against tiktoken
HF_DIR = REPO / "build" / "cache" / "hf"
MODELS = {"llama3": "Llama 3", "qwen2_5": "Qwen2.5"}
"""Open models whose ``tokenizer.json`` (fetched by ``make hf-data``) tiktoken can run exactly: byte-level
BPE, merges in id order, one regex split."""


def model_label(model: str) -> str:
    return f"{MODELS.get(model, model)} (`tokenizer.json`)"


def tiktoken_for_model(path: Path) -> Callable[[str], list[int]]:
    """tiktoken running a ``tokenizer.json``'s own vocabulary: ``encode(text)`` with its ranks (id =
    rank) and its split pattern, after the file's normalizer (only NFC, as Qwen's, or none).

    The ranks and pattern come from ``bytepair.Tokenizer.to_encoding``, which refuses a file whose
    merges tiktoken's rule could not reproduce; the benchmark then checks these ids against HF
    ``tokenizers`` on every file, so the reference does not rest on bytepair."""
    import json
    import unicodedata

    import tiktoken

    normalizer = json.loads(path.read_text(encoding="utf-8")).get("normalizer")
    if normalizer not in (None, {"type": "NFC"}):
        raise SystemExit(f"{path}: normalizer {normalizer} has no stand-in for tiktoken here (only NFC or none)")
    enc = bytepair.Tokenizer.from_file(path).to_encoding(drop_normalizer=True)
    tk = tiktoken.Encoding(path.parent.name, pat_str=enc._pat_str, mergeable_ranks=enc._mergeable_ranks, special_tokens={})
    if normalizer is None:
        return tk.encode_ordinary
    return lambda text: tk.encode_ordinary(unicodedata.normalize("NFC", text))


def tokenizer_json_ids(tokenizer: Any) -> Callable[[str], list[int]]:
    """The call timed for a ``tokenizer.json``: HF's API, without special tokens, ids taken out."""
    return lambda text: tokenizer.encode(text, add_special_tokens=False).ids


def bench_model(
    model: str,
    corpus: dict[str, str],
    corpus_files: dict[str, Path],
    fresh: FreshProcesses,
    repeats: int,
    checks: Checks,
) -> tuple[list[ThroughputRow], MixedRow]:
    """A ``tokenizer.json`` model through ``bytepair.Tokenizer`` against tiktoken on the same vocabulary:
    per file, a first pass in fresh processes and the warm same text; then the mixed stream."""
    import tokenizers

    path = HF_DIR / model / "tokenizer.json"
    label = model_label(model)
    reference = tiktoken_for_model(path)
    hf = tokenizers.Tokenizer.from_file(str(path))
    rows = []
    for corpus_name, text in corpus.items():
        log(f"throughput {label} {corpus_name}")
        expected = reference(text)  # also tiktoken's warm-up
        checks.expect(
            hf.encode(text, add_special_tokens=False).ids == expected,
            f"{label} {corpus_name}: tiktoken on the file's vocabulary against HF tokenizers",
        )
        tiktoken_s = median_time(partial(reference, text), repeats)
        firsts = [fresh.run("tokenizer-json-first", str(path), str(corpus_files[corpus_name])) for _ in range(repeats)]
        checks.expect(
            all(r["digest"] == digest(expected) for r in firsts), f"{label} {corpus_name}: bytepair first pass (fresh process)"
        )
        first_s = statistics.median(r["encode_s"] for r in firsts)
        nan = float("nan")  # no cold-cache or naive runs for models
        rows.append(ThroughputRow(label, corpus_name, len(text.encode("utf-8")), len(expected), tiktoken_s, first_s, nan, nan, nan))
    log(f"mixed stream {label}")
    encode = tokenizer_json_ids(bytepair.Tokenizer.from_file(path))
    mixed = mixed_stream(label, encode, reference, corpus, checks)
    for i, (corpus_name, text) in enumerate(corpus.items()):
        checks.expect(encode(text) == reference(text), f"{label} {corpus_name}: bytepair in-process")
        rows[i] = replace(rows[i], warm_s=median_time(partial(encode, text), repeats))
    return rows, mixed


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
(`bench/naive_reference.py`). Generated by `bench/bench_encode.py`; every number in this section
comes from this one run, so re-run it rather than edit the tables.

- **Date:** {res.info["date"]}
- **Machine:** {res.info["cpu"]}
- **Python:** {res.info["python"]}
- **Libraries:** {res.info["versions"]}
- **Code measured:** {res.info["code"]}, copied when the run started; every process imported that copy.
- **Command:** `{res.command}` (repeats = {a.repeats}{", --quick" if a.quick else ""}; whole run {res.runtime_s / 60:.1f} min).
  `make bench` runs the same script as `.venv/bin/python bench/bench_encode.py`.
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


def run(args: argparse.Namespace, work: Path, code: Path) -> int:
    """Measure everything, print the report, write it as section ``native`` of ``args.output``; 1 if any ids differed."""
    unknown = [e for e in args.encodings if e not in ENCODING_SPECS]
    if unknown:
        raise SystemExit(f"unknown encoding(s): {', '.join(unknown)}; choose from {', '.join(ENCODING_SPECS)}")
    missing = [m for m in args.models if not (HF_DIR / m / "tokenizer.json").is_file()]
    if missing:
        raise SystemExit(f"no build/cache/hf/<name>/tokenizer.json for {', '.join(missing)}: run `make hf-data`")
    corpus = load_corpus(args.corpus, args.corpora)
    info = machine_info(args.code_description)
    log(f"corpus: {', '.join(corpus)}; encodings: {', '.join(args.encodings)}; models: {', '.join(args.models) or 'none'}; "
        f"repeats: {args.repeats}")
    checks = Checks()
    get_tiktoken = offline_tiktoken(fill_cache(work / "tiktoken-cache"))
    check_naive_reference(get_tiktoken, args.encodings, corpus)
    log("preparing fresh-process bytecode cache")
    fresh = FreshProcesses(work, code, work / "tiktoken-cache")
    corpus_files = write_texts(corpus, work / "corpus")
    cases = worst_case_texts()
    case_files = write_texts(cases, work / "worst")
    tiktoken_files = expand_rank_files(work / "ranks")

    throughput = [
        row
        for name in args.encodings
        for row in bench_throughput(name, get_tiktoken(name), corpus, corpus_files, fresh, args.repeats, checks)
    ]
    mixed = [bench_mixed_stream(name, get_tiktoken(name), corpus, checks) for name in args.encodings]
    model_rows: list[ThroughputRow] = []
    for model in args.models:
        rows, model_mixed = bench_model(model, corpus, corpus_files, fresh, args.repeats, checks)
        model_rows += rows
        mixed.append(model_mixed)
    worst = [
        row
        for name in args.encodings
        for row in bench_worst_cases(name, cases, case_files, fresh, args.worst_repeats, checks)
    ]
    startup = bench_startup(fresh, args.repeats, tiktoken_files)
    results = Results(
        info,
        command_line(),
        args,
        args.corpus.resolve(),
        throughput,
        mixed,
        worst,
        startup,
        data_sizes(tiktoken_files),
        checks,
        cache_limit=piece_cache_limit(args.encodings[0]),
        load=load_summary(),
        runtime_s=time.perf_counter() - _START,
        models=model_rows,
    )
    document = render(results)
    print(document)
    if args.output is not None:
        replace_section(args.output, "native", document)
        log(f"wrote section native of {args.output}")
    log(f"done in {results.runtime_s:.0f} s; {len(checks.failed)} id mismatch(es)")
    return 1 if checks.failed else 0
