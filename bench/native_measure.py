"""The measurements of section ``native`` (sections 0-4 of it); imported by ``native.py`` after its
snapshot of bytepair is on ``sys.path``, never before.

Why apart from the report: what is timed, and how, is what a reader checks first; the tables and
their words are in ``native_report.py``, the ``tokenizer.json`` models (section 1b) in
``native_models.py``. Fresh-process measurements run ``fresh_process.py`` in new interpreters that
import the same snapshot.
"""

from __future__ import annotations

import contextlib
import gc
import gzip
import json
import os
import random
import shutil
import statistics
import string
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import bytepair
from bytepair.data import ENCODING_SPECS
from bytepair.formats import expand_to_tiktoken_text, read_packed_ranks

from bench.common import BENCH, REPO, WORST_CASE_SEED, Checks, clear_caches, digest, log, median_time
from bench.naive_reference import NaiveTokenizer

FRESH_PROCESS = BENCH / "fresh_process.py"
PACKAGE_DATA = Path(bytepair.__file__).resolve().parent / "data"
WORST_CASE_BYTES = 1_000_000


def mergeable_ranks(enc: bytepair.Encoding) -> dict[bytes, int]:
    """The encoding's ranks (token bytes -> rank), as its engine's rank model holds them."""
    return enc.engine.model.ranks


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
        proc = subprocess.run(
            [sys.executable, str(FRESH_PROCESS), *argv], env=env, capture_output=True, text=True, cwd=REPO, check=False
        )
        if proc.returncode != 0:
            raise SystemExit(f"fresh process {argv} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
        return json.loads(proc.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------------------- inputs
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


def check_naive_reference(get_tiktoken: Callable[[str], Any], encodings: Sequence[str], corpus: dict[str, str]) -> None:
    """Fail loudly unless the naive reference gives tiktoken's ids on a small mixed sample."""
    sample = "".join(text[:2000] for text in corpus.values()) + (
        " don't  I'LL 12345 x\r\n\n  \t end 🫠😀 <|endoftext|> 3.14159 über\u00a0naïve   "
    )
    for name in encodings:
        naive = NaiveTokenizer(ENCODING_SPECS[name].pattern, mergeable_ranks(bytepair.get_encoding(name)))
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
    naive = NaiveTokenizer(ENCODING_SPECS[name].pattern, mergeable_ranks(enc))
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
