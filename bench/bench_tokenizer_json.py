"""Benchmark ``bytepair.Tokenizer`` on Hugging Face ``tokenizer.json`` files against HF ``tokenizers`` and tokie.

    make bench                                                  # everything, writes docs/PERFORMANCE.md
    .venv/bin/python bench/bench_tokenizer_json.py              # this section only
    .venv/bin/python bench/bench_tokenizer_json.py --quick      # a smoke run: prints, writes nothing

Why this exists: ``bytepair.Tokenizer`` promises HF ``tokenizers``' ids from the same
``tokenizer.json``, in pure Python. Users meet it as new text in a new process (a CLI, a notebook
cell, a serverless call) or as a stream of varied documents, and only sometimes as the same text
again, so those come first: (1) first pass: a fresh process imports, loads the file and encodes one
corpus file once; (2) mixed stream: one process encodes every corpus file in turn, twice; (3) warm:
the same text again in one process (labelled as such everywhere); (4) load time of each
``tokenizer.json``; (5) how many of tokie's ids differ from HF's.

All three libraries run ``encode(text, add_special_tokens=False)`` and take ``.ids``, single
threaded (``RAYON_NUM_THREADS=1``, ``TOKENIZERS_PARALLELISM=false``). bytepair's ids must equal
HF's on every text measured: the run stops at the first difference (exit status 1). tokie's
differences are counted and reported, not fatal.

Conventions shared with ``bench_encode.py``: a snapshot of ``core/bytepair`` taken at the start and
imported by every process; fresh processes with a private bytecode cache; medians; the corpus in
``bench/corpus``. The section is written between ``<!-- tokenizer-json:begin -->`` and
``<!-- tokenizer-json:end -->`` in docs/PERFORMANCE.md; nothing else in the file changes.

The same file is also the fresh processes' script (``--child TASK ...``). Only ``sys`` and
``time`` are imported before a child's timed part, so no import is made cheaper by this script.
"""

from __future__ import annotations

import sys
import time

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing would be billed to the timed imports
if TYPE_CHECKING:
    from typing import Any

LIBRARIES = ("hf", "bytepair", "tokie")


# ------------------------------------------------------------------------------ fresh-process side
def _import(lib: str) -> Any:
    if lib == "hf":
        import tokenizers

        return tokenizers
    if lib == "bytepair":
        import bytepair

        return bytepair
    import tokie

    return tokie


def _load(lib: str, module: Any, path: str) -> Any:
    if lib == "tokie":
        return module.Tokenizer.from_file(path) if path.endswith(".tkz") else module.Tokenizer.from_json(path)
    return module.Tokenizer.from_file(path)


def encode_ids(tokenizer: Any, text: str) -> list[int]:
    """The call every library is timed on: HF's ``encode`` without special tokens, ids taken out."""
    return tokenizer.encode(text, add_special_tokens=False).ids


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def digest(ids: list[int]) -> str:
    """A short fingerprint of an id list, so processes can compare ids without shipping them."""
    import hashlib
    from array import array

    return hashlib.sha256(array("I", ids).tobytes()).hexdigest()[:16]


def _start(lib: str, model_path: str) -> tuple[Any, dict[str, float]]:
    """Import the library and load the file, timing both (wall and CPU seconds)."""
    wall, cpu = time.perf_counter(), time.process_time()
    module = _import(lib)
    wall2, cpu2 = time.perf_counter(), time.process_time()
    tokenizer = _load(lib, module, model_path)
    wall3, cpu3 = time.perf_counter(), time.process_time()
    return tokenizer, {"import_s": wall2 - wall, "load_s": wall3 - wall2, "load_cpu_s": cpu3 - cpu2,
                       "import_cpu_s": cpu2 - cpu}


def child_load(lib: str, model_path: str) -> dict[str, Any]:
    """Import and load only; an error (an unsupported file) is reported, not raised."""
    try:
        _, times = _start(lib, model_path)
    except Exception as exc:  # reported in the table: some libraries reject some files
        return {"error": f"{type(exc).__name__}: {str(exc)[:160]}"}
    return times


def child_first(lib: str, model_path: str, text_file: str) -> dict[str, Any]:
    """Import, load, then one timed encode of the file: empty caches, as a new process meets new text."""
    tokenizer, result = _start(lib, model_path)
    text = _read(text_file)
    wall, cpu = time.perf_counter(), time.process_time()
    ids = encode_ids(tokenizer, text)
    result["encode_s"] = time.perf_counter() - wall
    result["encode_cpu_s"] = time.process_time() - cpu
    result["n_tokens"] = len(ids)
    result["digest"] = digest(ids)
    return result


def child_stream(lib: str, model_path: str, rounds: str, *text_files: str) -> dict[str, Any]:
    """Import, load, then encode the files in turn, ``rounds`` times over, each call timed."""
    tokenizer, result = _start(lib, model_path)
    texts = [_read(path) for path in text_files]
    times: list[list[float]] = []
    cpu_times: list[list[float]] = []
    digests: list[list[str]] = []
    for _ in range(int(rounds)):
        round_times, round_cpu, round_digests = [], [], []
        for text in texts:
            wall, cpu = time.perf_counter(), time.process_time()
            ids = encode_ids(tokenizer, text)
            round_times.append(time.perf_counter() - wall)
            round_cpu.append(time.process_time() - cpu)
            round_digests.append(digest(ids))  # outside the timed call
        times.append(round_times)
        cpu_times.append(round_cpu)
        digests.append(round_digests)
    result.update(times_s=times, times_cpu_s=cpu_times, digests=digests)
    return result


def child_warm_bytecode() -> dict[str, Any]:
    """Import everything once so that the private bytecode cache holds it; say where bytepair came from."""
    import bytepair
    import tokenizers  # noqa: F401

    try:
        import tokie  # noqa: F401
    except ImportError:
        pass
    digest([1])
    return {"bytepair_file": bytepair.__file__}


CHILD_TASKS = {"load": child_load, "first": child_first, "stream": child_stream, "warm-bytecode": child_warm_bytecode}

if __name__ == "__main__" and sys.argv[1:2] == ["--child"]:
    task, *task_args = sys.argv[2:]
    _result = CHILD_TASKS[task](*task_args)
    import json

    print(json.dumps(_result))
    sys.exit(0)

# ----------------------------------------------------------------------------------- benchmark side
import argparse  # noqa: E402  (below the child dispatch on purpose: see the module docstring)
import contextlib  # noqa: E402
import gzip  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
DEFAULT_OUTPUT = REPO / "docs" / "PERFORMANCE.md"
HF_DIR = REPO / "build" / "cache" / "hf"
BEGIN, END = "<!-- tokenizer-json:begin -->", "<!-- tokenizer-json:end -->"
MODELS = ("llama3", "qwen2_5", "deepseek_v3", "gpt2")
MEASURED_CORPORA = ("en", "zh", "code_python")
MODEL_NAMES = {"llama3": "Llama 3", "qwen2_5": "Qwen2.5", "qwen3": "Qwen3", "deepseek_v3": "DeepSeek-V3",
               "gpt2": "GPT-2", "llama2": "Llama 2"}
SINGLE_THREAD = {"RAYON_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
MB = 1e6


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true",
                        help="Llama 3 only, en and zh, one repeat, a stream of those two files; writes nothing")
    parser.add_argument("--repeats", type=int, help="processes or calls per measurement, median taken (default 3)")
    parser.add_argument("--models", help=f"comma-separated folders of build/cache/hf (default {','.join(MODELS)})")
    parser.add_argument("--corpora", help=f"corpus files timed one by one (default {','.join(MEASURED_CORPORA)})")
    parser.add_argument("--corpus", type=Path, default=BENCH / "corpus", help="directory of NAME.txt.xz files")
    parser.add_argument("--output", type=Path, help="markdown file to write the section into (default "
                        f"{DEFAULT_OUTPUT.relative_to(REPO)}; none with --quick)")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                        help="time with the process's CPU time (default: steadier on a shared machine; every "
                        "library runs single-threaded) or wall-clock time")
    parser.add_argument("--code", choices=("worktree", "head"), default="worktree",
                        help="measure core/bytepair as on disk at the start (default) or as committed in HEAD")
    args = parser.parse_args(argv)
    if args.repeats is None:
        args.repeats = 1 if args.quick else 3
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    args.models = _names(args.models, ("llama3",) if args.quick else MODELS)
    args.corpora = _names(args.corpora, ("en", "zh") if args.quick else MEASURED_CORPORA)
    if args.output is None and not args.quick:
        args.output = DEFAULT_OUTPUT
    return args


def _names(value: str | None, default: Sequence[str]) -> list[str]:
    return [n.strip() for n in value.split(",") if n.strip()] if value else list(default)


# ---------------------------------------------------------------------------------- fresh processes
class Fresh:
    """Runs ``--child`` tasks of this file in new interpreters that import the snapshot of bytepair.

    As in ``suite.FreshProcesses``: a private ``PYTHONPYCACHEPREFIX`` filled once by a warm-up child,
    then ``PYTHONDONTWRITEBYTECODE=1``, so every timed child reads the same bytecode.
    """

    def __init__(self, work: Path, code: Path, bytepair_dir: Path) -> None:
        path = os.pathsep.join(filter(None, [str(code), os.environ.get("PYTHONPATH")]))
        self._env = dict(os.environ, PYTHONPATH=path, PYTHONPYCACHEPREFIX=str(work / "pyc"), **SINGLE_THREAD)
        self._env.pop("PYTHONDONTWRITEBYTECODE", None)
        warm = self.run("warm-bytecode")
        if Path(warm["bytepair_file"]).resolve().parent != bytepair_dir.resolve():
            raise SystemExit(f"fresh processes import bytepair from {warm['bytepair_file']}, not the snapshot")
        self._env["PYTHONDONTWRITEBYTECODE"] = "1"

    def run(self, task: str, *args: str) -> dict[str, Any]:
        proc = subprocess.run([sys.executable, __file__, "--child", task, *args], env=self._env,
                              capture_output=True, text=True, cwd=REPO, check=False)
        if proc.returncode != 0:
            raise SystemExit(f"fresh process {task} {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
        return json.loads(proc.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------------------- results
@dataclass
class Libs:
    """One number per library (None: not measured, e.g. tokie missing or failing)."""

    hf: float | None = None
    bytepair: float | None = None
    tokie: float | None = None

    def get(self, lib: str) -> float | None:
        return getattr(self, lib)


@dataclass
class FirstRow:
    model: str
    corpus: str
    n_bytes: int
    n_tokens: int
    encode_s: Libs
    load_s: Libs


@dataclass
class StreamRow:
    model: str
    n_files: int
    n_bytes: int  # one round
    rounds: int
    total_s: Libs
    round_s: dict[str, list[float]]  # library -> median seconds of each round


@dataclass
class WarmRow:
    model: str
    corpus: str
    n_bytes: int
    encode_s: Libs


@dataclass
class LoadRow:
    model: str
    file_bytes: int
    load_s: Libs
    errors: dict[str, str]
    tkz_bytes: int | None = None
    tkz_load_s: float | None = None


@dataclass
class TokieDiff:
    model: str
    files: int
    files_differing: list[str]
    hf_tokens: int
    tokie_tokens: int
    hf_tokens_not_reproduced: int
    aligned: bool  # both id lists cover the same bytes, so positions can be compared


@dataclass
class Checks:
    """Every comparison of bytepair's ids with HF's (the first failure stops the run); CPU ÷ wall of encodes."""

    passed: list[str] = field(default_factory=list)
    cpu_over_wall: dict[str, float] = field(default_factory=dict)  # library -> largest ratio seen

    def threads(self, lib: str, cpu: float, wall: float) -> None:
        """Record CPU ÷ wall of one timed call: above 1 would mean more than one thread worked."""
        if wall > 0.01:  # shorter calls are too short for the two clocks' resolution
            self.cpu_over_wall[lib] = max(self.cpu_over_wall.get(lib, 0.0), cpu / wall)

    def expect(self, ok: bool, what: str) -> None:
        if not ok:
            raise SystemExit(f"MISMATCH: bytepair's ids differ from HF tokenizers' ({what}); not benchmarking wrong output")
        self.passed.append(what)


# ------------------------------------------------------------------------------------- measuring
CLOCK = "cpu"  # set from --clock by run(); chooses which of the two recorded times the tables use


def timed(name: str) -> str:
    """The result key for a time under the chosen clock: ``encode_s`` or ``encode_cpu_s``."""
    return name[: -len("_s")] + "_cpu_s" if CLOCK == "cpu" else name


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def median_call(fn: Callable[[], Any], repeats: int, checks: Checks, lib: str) -> float:
    """Median seconds of ``repeats`` calls under the chosen clock, garbage collected before each."""
    import gc

    times = []
    for _ in range(repeats):
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        checks.threads(lib, cpu, wall)
        times.append(cpu if CLOCK == "cpu" else wall)
    return median(times)


def bench_first_pass(model: str, path: Path, corpus: dict[str, str], files: dict[str, Path], reference: dict[str, str],
                     fresh: Fresh, libs: Sequence[str], repeats: int, checks: Checks, log: Callable[[str], None],
                     tokie_digests: dict[tuple[str, str], bool]) -> list[FirstRow]:
    rows = []
    for name in corpus:
        log(f"first pass {model} {name}")
        runs: dict[str, list[dict[str, Any]]] = {lib: [] for lib in libs}
        for _ in range(repeats):  # the libraries take turns, so a busy moment hits all of them
            for lib in libs:
                runs[lib].append(fresh.run("first", lib, str(path), str(files[name])))
        for lib in ("hf", "bytepair"):
            checks.expect(all(r["digest"] == reference[name] for r in runs[lib]),
                          f"{model} {name}: {lib} first pass in a fresh process")
        if "tokie" in runs:
            tokie_digests[(model, name)] = all(r["digest"] == reference[name] for r in runs["tokie"])
        for lib in libs:
            for r in runs[lib]:
                checks.threads(lib, r["encode_cpu_s"], r["encode_s"])
        rows.append(FirstRow(
            model, name, len(corpus[name].encode("utf-8")), runs["hf"][0]["n_tokens"],
            Libs(**{lib: median([r[timed("encode_s")] for r in runs[lib]]) for lib in libs}),
            Libs(**{lib: median([r[timed("load_s")] for r in runs[lib]]) for lib in libs}),
        ))
    return rows


def bench_stream(model: str, path: Path, stream: dict[str, str], files: dict[str, Path], reference: dict[str, str],
                 fresh: Fresh, libs: Sequence[str], repeats: int, rounds: int, checks: Checks,
                 log: Callable[[str], None]) -> StreamRow:
    log(f"mixed stream {model}: {len(stream)} files × {rounds}")
    args = [str(files[name]) for name in stream]
    runs: dict[str, list[dict[str, Any]]] = {lib: [] for lib in libs}
    for _ in range(repeats):
        for lib in libs:
            runs[lib].append(fresh.run("stream", lib, str(path), str(rounds), *args))
    expected = [reference[name] for name in stream]
    for lib in ("hf", "bytepair"):
        checks.expect(all(d == expected for r in runs[lib] for d in r["digests"]),
                      f"{model}: {lib} mixed stream, every file, every round")
    for lib in libs:
        for r in runs[lib]:
            for cpus, walls in zip(r["times_cpu_s"], r["times_s"]):
                for cpu, wall in zip(cpus, walls):
                    checks.threads(lib, cpu, wall)
    key = timed("times_s")
    return StreamRow(
        model, len(stream), sum(len(t.encode("utf-8")) for t in stream.values()), rounds,
        Libs(**{lib: median([sum(map(sum, r[key])) for r in runs[lib]]) for lib in libs}),
        {lib: [median([sum(r[key][i]) for r in runs[lib]]) for i in range(rounds)] for lib in libs},
    )


def bench_warm(model: str, path: Path, corpus: dict[str, str], reference_ids: dict[str, list[int]],
               libs: Sequence[str], repeats: int, checks: Checks, log: Callable[[str], None]) -> list[WarmRow]:
    """In this process: each library loads the file once, then times the same text after one untimed encode."""
    loaded = {lib: _load(lib, _import(lib), str(path)) for lib in libs}
    rows = []
    for name, text in corpus.items():
        log(f"warm same text {model} {name}")
        times = {}
        for lib in libs:
            ids = encode_ids(loaded[lib], text)  # the warm-up
            if lib != "tokie":
                checks.expect(ids == reference_ids[name], f"{model} {name}: {lib} in-process")
            times[lib] = median_call(lambda t=loaded[lib]: encode_ids(t, text), repeats, checks, lib)
        rows.append(WarmRow(model, name, len(text.encode("utf-8")), Libs(**times)))
    return rows


def bench_load(models: Sequence[str], fresh: Fresh, libs: Sequence[str], repeats: int, work: Path,
               log: Callable[[str], None]) -> tuple[list[LoadRow], dict[str, float]]:
    """Fresh-process load of every tokenizer.json in build/cache/hf, and of tokie's own .tkz form."""
    rows = []
    imports: dict[str, list[float]] = {lib: [] for lib in libs}
    for model in models:
        log(f"load {model}")
        path = HF_DIR / model / "tokenizer.json"
        runs: dict[str, list[dict[str, Any]]] = {lib: [] for lib in libs}
        for _ in range(repeats):
            for lib in libs:
                runs[lib].append(fresh.run("load", lib, str(path)))
        errors = {lib: r[0]["error"] for lib, r in runs.items() if "error" in r[0]}
        for lib, r in runs.items():
            imports[lib] += [x[timed("import_s")] for x in r if "import_s" in x]
        row = LoadRow(model, path.stat().st_size,
                      Libs(**{lib: median([x[timed("load_s")] for x in r]) for lib, r in runs.items()
                              if lib not in errors}),
                      errors)
        if "tokie" in libs and "tokie" not in errors:
            tkz = work / f"{model}.tkz"
            _load("tokie", _import("tokie"), str(path)).save(str(tkz))
            row.tkz_bytes = tkz.stat().st_size
            row.tkz_load_s = median([fresh.run("load", "tokie", str(tkz))[timed("load_s")] for _ in range(repeats)])
        rows.append(row)
    return rows, {lib: median(v) for lib, v in imports.items() if v}


def token_byte_lengths(hf_tokenizer: Any) -> Callable[[int], int]:
    """Bytes of input each id stands for, from the vocabulary's byte-level (GPT-2 visible) spelling."""
    from bytepair.text.byte_unicode import UNICODE_TO_BYTE

    memo: dict[int, int] = {}

    def length(token_id: int) -> int:
        if token_id not in memo:
            token = hf_tokenizer.id_to_token(token_id) or ""
            memo[token_id] = len(token) if all(c in UNICODE_TO_BYTE for c in token) else len(token.encode("utf-8"))
        return memo[token_id]

    return length


def spans(ids: Sequence[int], length: Callable[[int], int]) -> list[tuple[int, int, int]]:
    """(start byte, end byte, id) of each token."""
    out, pos = [], 0
    for token_id in ids:
        n = length(token_id)
        out.append((pos, pos + n, token_id))
        pos += n
    return out


def tokie_diff(model: str, hf_ids: dict[str, list[int]], tokie_ids: dict[str, list[int]], length: Callable[[int], int]
               ) -> TokieDiff:
    """HF tokens that tokie does not produce at the same byte span: a token-level count, not just ``!=``."""
    differing, not_reproduced, aligned = [], 0, True
    for name, ours in hf_ids.items():
        theirs = tokie_ids[name]
        if ours == theirs:
            continue
        differing.append(name)
        a, b = spans(ours, length), spans(theirs, length)
        aligned &= a[-1][1] == b[-1][1] if a and b else len(a) == len(b)
        not_reproduced += len(set(a) - set(b))
    return TokieDiff(model, len(hf_ids), differing, sum(map(len, hf_ids.values())), sum(map(len, tokie_ids.values())),
                     not_reproduced, aligned)


# ---------------------------------------------------------------------------------------- reporting
def mbps(n_bytes: float, seconds: float | None) -> str:
    return "–" if seconds is None else f"{n_bytes / MB / seconds:.2f}"


def speed_ratio(ours: float | None, theirs: float | None) -> str:
    """Throughput ratio from two times: 2.00× = twice HF's MB/s."""
    return "–" if ours is None or theirs is None else f"{theirs / ours:.2f}×"


def secs(seconds: float | None) -> str:
    return "–" if seconds is None else f"{seconds:.3f}"


def verdict(ratio: float, target: float) -> str:
    return "met" if ratio >= target else "**not met**"


def first_pass_table(rows: list[FirstRow], md_table: Callable[..., str], libs: Sequence[str]) -> str:
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


def stream_table(rows: list[StreamRow], md_table: Callable[..., str]) -> str:
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


def warm_table(rows: list[WarmRow], md_table: Callable[..., str]) -> str:
    columns = [("model", "l"), ("corpus", "l"), ("HF MB/s", "r"), ("bytepair MB/s", "r"), ("tokie MB/s", "r"),
               ("bytepair × HF throughput", "r"), ("≥ 3×", "l"), ("tokie × HF throughput", "r")]
    body = []
    for r in rows:
        x = r.encode_s.hf / r.encode_s.bytepair
        body.append([MODEL_NAMES.get(r.model, r.model), r.corpus, mbps(r.n_bytes, r.encode_s.hf),
                     mbps(r.n_bytes, r.encode_s.bytepair), mbps(r.n_bytes, r.encode_s.tokie), f"{x:.2f}×",
                     verdict(x, 3), speed_ratio(r.encode_s.tokie, r.encode_s.hf)])
    return md_table(columns, body)


def load_table(rows: list[LoadRow], md_table: Callable[..., str]) -> str:
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


def tokie_table(diffs: list[TokieDiff], md_table: Callable[..., str]) -> str:
    columns = [("model", "l"), ("files differing", "r"), ("HF tokens tokie does not reproduce", "r"),
               ("tokie tokens ÷ HF tokens", "r"), ("files with differences", "l")]
    body = [[MODEL_NAMES.get(d.model, d.model), f"{len(d.files_differing)} / {d.files}",
             f"{d.hf_tokens_not_reproduced:,} / {d.hf_tokens:,} ({d.hf_tokens_not_reproduced / d.hf_tokens:.3%})"
             + ("" if d.aligned else " †"),
             f"{d.tokie_tokens:,} / {d.hf_tokens:,}", ", ".join(d.files_differing) or "none"] for d in diffs]
    return md_table(columns, body)


def ratio_range(values: Sequence[float]) -> str:
    return f"{min(values):.2f}×" if min(values) == max(values) else f"{min(values):.2f}–{max(values):.2f}×"


def render(res: dict[str, Any], suite: Any) -> str:
    a, info, md = res["args"], res["info"], suite.md_table
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
Generated by `bench/bench_tokenizer_json.py`; every number in this section comes from this one run.

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
  `make bench` runs the same script as `.venv/bin/python bench/bench_tokenizer_json.py`.
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

{first_pass_table(first, md, res["libs"])}

### 2. Mixed stream: every corpus file in turn, twice, in one process

One fresh process per library loads the file, then encodes all {stream[0].n_files} corpus files one after
another, then all of them again ({", ".join(f"`{n}`" for n in res["stream_names"])}). MB/s over
the whole stream (load excluded); bytepair's two rounds are shown apart: the second round meets
text the piece cache has seen, within its bound.

{stream_table(stream, md)}

### 3. Warm: the same text again, in one process

**Warm same-text figures: the text was encoded once, untimed, just before.** bytepair's piece cache
then answers most pieces (HF's BPE model keeps a bounded word cache of its own; every library gets
the same warm-up call). This is bytepair's best case, not what a new document sees: sections 1 and
2 are.

{warm_table(warm, md)}

### 4. Loading a tokenizer.json

A fresh process imports the library (not in the time), then times `Tokenizer.from_file(path)`
(tokie: `Tokenizer.from_json(path)`); median of {a.repeats}. "fails": the library rejects the file.
tokie's `.tkz` is its own compact binary form (`Tokenizer.save`, loaded with `Tokenizer.from_file`);
bytepair has no compact converted form for `tokenizer.json` yet.

{load_table(res["load"], md)}
{res["load_errors"]}

### 5. tokie's ids against HF's

Every corpus file ({tokie_files} files), encoded by HF and by tokie in this process. A HF
token counts as not reproduced when tokie has no token with the same id over the same bytes
(positions from the tokens' byte lengths), so one different split counts its few tokens, not the
rest of the file.

{tokie_table(res["tokie"], md) if res["tokie"] else "tokie was not measured: " + tokie_note}
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


def replace_marked(path: Path, markdown: str) -> None:
    """Put ``markdown`` between this section's markers in ``path`` (added at the end if absent)."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Performance\n"
    block = f"{BEGIN}\n{markdown.strip()}\n{END}"
    if text.count(BEGIN) != text.count(END) or text.count(BEGIN) > 1:
        raise SystemExit(f"{path}: the {BEGIN} / {END} markers are unbalanced or repeated; fix the file by hand")
    if BEGIN in text:
        start, end = text.index(BEGIN), text.index(END) + len(END)
        if end < start:
            raise SystemExit(f"{path}: {END} comes before {BEGIN}; fix the file by hand")
        text = text[:start] + block + text[end:]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")


# --------------------------------------------------------------------------------------------- main
def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.update(SINGLE_THREAD)  # before tokenizers or tokie are imported in this process
    sys.path.insert(0, str(BENCH))
    from bench_encode import snapshot_package

    with tempfile.TemporaryDirectory(prefix="bytepair-bench-json-") as tmp:
        work = Path(tmp)
        code = work / "code"
        code_description = snapshot_package(args.code, code)
        sys.path.insert(0, str(code))
        sys.path.insert(1, str(REPO))
        import bytepair

        if Path(bytepair.__file__).resolve().parent != (code / "bytepair").resolve():
            raise SystemExit(f"imported bytepair from {bytepair.__file__}, not from the snapshot in {code}")
        import suite

        return run(args, work, code, code_description, suite)


def run(args: argparse.Namespace, work: Path, code: Path, code_description: str, suite: Any) -> int:
    global CLOCK
    CLOCK = args.clock
    import bytepair
    import tokenizers

    missing = [m for m in args.models if not (HF_DIR / m / "tokenizer.json").is_file()]
    if missing:
        raise SystemExit(f"no build/cache/hf/<name>/tokenizer.json for {', '.join(missing)}: run `make hf-data`")
    versions = {"bytepair": bytepair.__version__, "hf": tokenizers.__version__, "tokie": "not installed"}
    libs = ["hf", "bytepair"]
    try:
        import tokie

        from importlib.metadata import version

        versions["tokie"] = version("tokie")
        libs.append("tokie")
    except ImportError:
        pass

    everything = suite.load_corpus(args.corpus, None)
    for name in args.corpora:
        if name not in everything:
            raise SystemExit(f"no corpus file {name!r} in {args.corpus}")
    stream_names = list(args.corpora) if args.quick else list(everything)
    files = suite.write_texts(everything, work / "corpus")
    measured = {name: everything[name] for name in args.corpora}
    stream = {name: everything[name] for name in stream_names}
    suite.log(f"models: {', '.join(args.models)}; files: {', '.join(args.corpora)}; libraries: {', '.join(libs)}; "
              f"repeats: {args.repeats}")
    fresh = Fresh(work, code, Path(bytepair.__file__).parent)
    checks = Checks()
    first: list[FirstRow] = []
    streams: list[StreamRow] = []
    warm: list[WarmRow] = []
    diffs: list[TokieDiff] = []
    tokie_first_equal: dict[tuple[str, str], bool] = {}
    for model in args.models:
        path = HF_DIR / model / "tokenizer.json"
        hf = tokenizers.Tokenizer.from_file(str(path))
        reference_ids = {name: encode_ids(hf, text) for name, text in everything.items()}
        reference = {name: digest(ids) for name, ids in reference_ids.items()}
        first += bench_first_pass(model, path, measured, files, reference, fresh, libs, args.repeats, checks,
                                  suite.log, tokie_first_equal)
        streams.append(bench_stream(model, path, stream, files, reference, fresh, libs, args.repeats, 2, checks,
                                    suite.log))
        warm += bench_warm(model, path, measured, reference_ids, libs, args.repeats, checks, suite.log)
        if "tokie" in libs:
            suite.log(f"tokie ids against HF's, {model}")
            tk = tokie.Tokenizer.from_json(str(path))
            diffs.append(tokie_diff(model, reference_ids, {n: encode_ids(tk, t) for n, t in everything.items()},
                                    token_byte_lengths(hf)))
    load_models = list(args.models) if args.quick else [  # the files `make hf-data` fetches
        m for m in MODEL_NAMES if (HF_DIR / m / "tokenizer.json").is_file()]
    loads, imports = bench_load(load_models, fresh, libs, args.repeats, work, suite.log)

    if "tokie" not in libs:
        tokie_note = "not installed (`pip install tokie` failed or was not run), so not measured."
    else:
        n_diff = sum(len(d.files_differing) for d in diffs)
        tokie_note = (f"{ratio_range([r.encode_s.hf / r.encode_s.tokie for r in first])} HF's throughput on a "
                      f"first pass, {ratio_range([r.encode_s.hf / r.encode_s.tokie for r in warm])} warm; "
                      f"its ids differ from HF's in {n_diff} of {sum(d.files for d in diffs)} model × file "
                      "encodings (section 5).")
    load_errors = "".join("\n" + f"- {MODEL_NAMES.get(r.model, r.model)}, {lib} fails: `{msg}`"
                            for r in loads for lib, msg in r.errors.items())
    results = {
        "args": args, "info": suite.machine_info(code_description), "versions": versions, "libs": libs,
        "command": suite.command_line(), "first": first, "stream": streams, "warm": warm, "load": loads,
        "imports": imports, "tokie": diffs, "tokie_note": tokie_note, "stream_names": stream_names,
        "checks": checks, "load_errors": load_errors, "load_avg": suite.load_summary(),
        "runtime_s": time.perf_counter() - suite._START,
    }
    document = render(results, suite)
    print(document)
    if args.output is not None:
        replace_marked(args.output, document)
        suite.log(f"wrote the tokenizer-json section of {args.output}")
    suite.log(f"done; {len(checks.passed)} id comparisons, all equal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
