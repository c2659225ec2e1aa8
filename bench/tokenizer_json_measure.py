"""The measurements of section ``tokenizer-json`` (``tokenizer_json.py``): fresh-process first
passes, streams and loads (``tokenizer_json_child.py``), warm runs in this process, and how tokie's
ids differ from HF's.

Why apart from the section's entry and its report: what is timed, and with which clock, is what a
reader checks first. Imported by ``tokenizer_json.py`` after its snapshot of bytepair is on
``sys.path``. The clock (``--clock``) is set once per run with ``set_clock``.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import BENCH, HF_DIR, REPO, log
from bench.tokenizer_json_child import encode_ids, import_library, load_tokenizer

CHILD = BENCH / "tokenizer_json_child.py"
SINGLE_THREAD = {"RAYON_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}


# ---------------------------------------------------------------------------------- fresh processes
class Fresh:
    """Runs ``tokenizer_json_child.py`` tasks in new interpreters that import the snapshot of bytepair.

    As in ``native_measure.FreshProcesses``: a private ``PYTHONPYCACHEPREFIX`` filled once by a warm-up child,
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
        proc = subprocess.run([sys.executable, str(CHILD), task, *args], env=self._env,
                              capture_output=True, text=True, cwd=REPO, check=False)
        if proc.returncode != 0:
            raise SystemExit(f"fresh process {task} {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
        return json.loads(proc.stdout.strip().splitlines()[-1])


def fresh_first_passes(fresh: Fresh, json_path: Path, text_path: Path, repeats: int,
                       libs: Sequence[str] = ("hf", "bytepair")) -> dict[str, dict[str, float]]:
    """What a user gets from new text in a new process, for each library: ``{"ids": {lib: seconds},
    "fields": {lib: seconds}}``, medians of ``repeats`` fresh processes (the libraries and the two
    tasks taking turns) of one ``encode`` of the file, without and with every field read. Stops the
    run where two libraries' ids or offsets differ."""
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {task: {lib: [] for lib in libs} for task in ("ids", "fields")}
    for _ in range(repeats):
        for task, child in (("ids", "first"), ("fields", "fields")):
            for lib in libs:
                runs[task][lib].append(fresh.run(child, lib, str(json_path), str(text_path)))
    seen = {(r["digest"], r.get("offsets_digest")) for task in runs.values() for lib in libs for r in task[lib]
            if "offsets_digest" in r}
    ids_seen = {r["digest"] for task in runs.values() for lib in libs for r in task[lib]}
    if len(seen) != 1 or len(ids_seen) != 1:
        raise SystemExit(f"fresh processes on {text_path.name}: the libraries' ids or offsets differ")
    return {task: {lib: median([r[timed("encode_s")] for r in by_lib[lib]]) for lib in libs}
            for task, by_lib in runs.items()}


FRESH_COLUMNS = [("HF MB/s", "r"), ("bytepair MB/s", "r"), ("bytepair speed vs HF", "r"), ("HF MB/s, all fields", "r"),
                 ("bytepair MB/s, all fields", "r"), ("bytepair speed vs HF, all fields", "r")]
"""The columns of :func:`fresh_cells` (the families and unigram sections' first table)."""
FRESH_TEXT = ("What a user gets first: a new Python process imports the library, loads the `tokenizer.json`, and one "
              "`encode(text, add_special_tokens=False)` of a whole corpus file is timed (CPU time, HF single-threaded), "
              "`.ids` only, then (in other processes) every field read (tokens, offsets, word ids, masks). Ids and "
              "offsets are checked equal across the libraries.")


def fresh_cells(name: str, got: dict[str, dict[str, float]], mb: float) -> list[str]:
    """:data:`FRESH_COLUMNS` of :func:`fresh_first_passes`' medians for a text of ``mb`` MB (logged as ``name``)."""
    ids, fields = got["ids"], got["fields"]
    log(f"{name} fresh: ids hf {ids['hf']:.3f}s bytepair {ids['bytepair']:.3f}s; "
        f"every field hf {fields['hf']:.3f}s bytepair {fields['bytepair']:.3f}s")
    return [f"{mb / ids['hf']:.2f}", f"{mb / ids['bytepair']:.2f}", f"{ids['hf'] / ids['bytepair']:.2f}×",
            f"{mb / fields['hf']:.2f}", f"{mb / fields['bytepair']:.2f}", f"{fields['hf'] / fields['bytepair']:.2f}×"]


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
CLOCK = "cpu"  # set from --clock by set_clock(); chooses which of the two recorded times the tables use


def set_clock(clock: str) -> None:
    """Time with ``"cpu"`` (the process's CPU time) or ``"wall"`` from here on."""
    global CLOCK
    CLOCK = clock


def timed(name: str) -> str:
    """The result key for a time under the chosen clock: ``encode_s`` or ``encode_cpu_s``."""
    return name[: -len("_s")] + "_cpu_s" if CLOCK == "cpu" else name


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def median_call(fn: Callable[[], Any], repeats: int, checks: Checks, lib: str) -> float:
    """Median seconds of ``repeats`` calls under the chosen clock, garbage collected before each."""
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
                     fresh: Fresh, libs: Sequence[str], repeats: int, checks: Checks,
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
                 fresh: Fresh, libs: Sequence[str], repeats: int, rounds: int, checks: Checks) -> StreamRow:
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
               libs: Sequence[str], repeats: int, checks: Checks) -> list[WarmRow]:
    """In this process: each library loads the file once, then times the same text after one untimed encode."""
    loaded = {lib: load_tokenizer(lib, import_library(lib), str(path)) for lib in libs}
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


def bench_load(models: Sequence[str], fresh: Fresh, libs: Sequence[str], repeats: int, work: Path
               ) -> tuple[list[LoadRow], dict[str, float]]:
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
            load_tokenizer("tokie", import_library("tokie"), str(path)).save(str(tkz))
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
