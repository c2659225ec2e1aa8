"""What the benchmark sections share: paths, progress and timing, the corpus, the code measured, the
machine, markdown tables, and the writer of the documents' marked sections.

Why one module: every section runs on its own (``python -m bench SECTION``), and none may import
another's internals; what two sections need alike lives here, once, so that (for instance) the
native and the browser benchmarks read the corpus, fingerprint ids and date their runs the same way.

Nothing here imports bytepair at import time: the native and tokenizer-json sections must first put
a snapshot of the package on ``sys.path`` (``snapshot_package``, ``import_snapshot``), and every
helper that needs bytepair or tiktoken imports it when called.

Documents: docs/PERFORMANCE.md and docs/RELIABILITY.md are made of marked sections, each written by
the section that measures it, so re-running one never erases, or silently goes stale against,
another's numbers. Two marker styles exist (both kept, so that the documents' current sections stay
in place): ``<!-- BEGIN name -->`` ... ``<!-- END name -->`` (``replace_section``, ordered by
``SECTIONS``) and ``<!-- name:begin -->`` ... ``<!-- name:end -->`` (``replace_marked``).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import gc
import hashlib
import lzma
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from bench.tokenizer_json_child import read_fields as all_fields  # noqa: F401 (the sections' name for it)

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
CORE = REPO / "core"
PACKAGE = CORE / "bytepair"
CORPUS = BENCH / "corpus"
DOCS = REPO / "docs"
PERFORMANCE = DOCS / "PERFORMANCE.md"
RELIABILITY = DOCS / "RELIABILITY.md"
HF_DIR = REPO / "build" / "cache" / "hf"
"""The open models' tokenizer.json files, one folder each (``make hf-data``)."""

MB = 1e6
WORST_CASE_SEED = 20240601
"""The seed of the random worst-case inputs, the same in the native and the browser benchmarks."""


def parser(section: str, doc: str | None) -> argparse.ArgumentParser:
    """The option parser of ``python -m bench SECTION``, described by the first paragraph of ``doc``."""
    return argparse.ArgumentParser(
        prog=f"python -m bench {section}",
        description=(doc or "").split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


# --------------------------------------------------------------------------- progress and load
START = time.perf_counter()
LOAD_SAMPLES: list[float] = []  # 1-minute load average at each progress line: other work skews timings


def log(message: str) -> None:
    """Progress on stderr, so stdout carries only the tables; also samples the machine's load."""
    with contextlib.suppress(OSError):
        LOAD_SAMPLES.append(os.getloadavg()[0])
    print(f"[{time.perf_counter() - START:7.1f}s] {message}", file=sys.stderr, flush=True)


def elapsed_s() -> float:
    """Seconds since this process started benchmarking (since this module was imported)."""
    return time.perf_counter() - START


def load_summary() -> str:
    """Lowest, median and highest 1-minute load average seen at the progress lines."""
    if not LOAD_SAMPLES:
        return "unknown"
    low, mid, high = min(LOAD_SAMPLES), statistics.median(LOAD_SAMPLES), max(LOAD_SAMPLES)
    return f"min {low:.2f}, median {mid:.2f}, max {high:.2f} over {len(LOAD_SAMPLES)} samples"


# ------------------------------------------------------------------------------------- timing
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


def timed_both(fn: Callable[[], Any]) -> tuple[float, float]:
    """Wall and CPU seconds of ``fn()`` (CPU: this process's; on a loaded machine the steadier one)."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def lines_with_fields(module: Any, json_text: str, text: str, fields: bool = True) -> tuple[float, float]:
    """Wall and CPU seconds for a fresh ``module.Tokenizer`` (``tokenizers`` or ``bytepair``) of
    ``json_text`` to encode ``text``'s non-blank lines one call each (HF's defaults, special tokens
    added) and read every field of each (``fields=False``: the ids only): what a user encoding
    sentences gets, where each call's own cost counts."""
    tok = module.Tokenizer.from_str(json_text)
    lines = [line for line in text.splitlines() if line.strip()]
    if not fields:
        return timed_both(lambda: [tok.encode(line).ids for line in lines])
    return timed_both(lambda: [all_fields(tok.encode(line)) for line in lines])


def digest(ids: Sequence[int]) -> str:
    """A short fingerprint of an id list (sha256 of the ids as 32-bit words), to compare ids across
    processes and with the browser pages; ``fresh_process.py`` computes the same."""
    return hashlib.sha256(array("I", ids).tobytes()).hexdigest()[:16]


def clear_caches(enc: Any) -> None:
    """Empty bytepair's memo tables: the piece cache, and with it (``PieceCache.clear``) the long-piece
    encoder's seams, stitched chunks and sides."""
    enc.engine.cache.clear()


@dataclass
class Checks:
    """Every id comparison made, and the ones that failed."""

    passed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def expect(self, ok: bool, what: str) -> None:
        (self.passed if ok else self.failed).append(what)
        if not ok:
            log(f"MISMATCH: {what}")


# ------------------------------------------------------------------------------------- corpus
CORPUS_ORDER = ("en", "de", "fr", "es", "it", "pl", "ru", "uk", "el_cs_bg_pt", "vi", "zh", "ja", "code_python", "mixed")
MIN_CORPUS_BYTES = 1000  # smaller files (scripts_misc.txt is 1 byte) say nothing about throughput


def corpus_files() -> list[Path]:
    """The bundled corpus files (``bench/corpus/*.txt.xz``), sorted by name."""
    return sorted(CORPUS.glob("*.txt.xz"))


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


def write_texts(texts: dict[str, str], directory: Path) -> dict[str, Path]:
    """Write texts to files so that fresh processes can read exactly the same input."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = {}
    for i, (name, text) in enumerate(texts.items()):
        paths[name] = directory / f"{i:02d}.txt"
        paths[name].write_text(text, encoding="utf-8")
    return paths


# ---------------------------------------------------------------------------- the code measured
def git(*args: str) -> str:
    """Output of a git command in the repo, unstripped (porcelain lines start with a space)."""
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout


def snapshot_package(mode: str, destination: Path) -> str:
    """Copy the bytepair package into ``destination/bytepair``; return a description of what was copied.

    Why a snapshot: a run takes minutes and starts many fresh processes. If someone edits ``core/``
    meanwhile, the fresh processes would time other code than the benchmark's own process. Every
    process imports the same frozen copy instead: the working tree as it was at the start
    (``mode="worktree"``), or the committed ``HEAD`` (``mode="head"``).
    """
    if mode == "head":
        for name in git("ls-tree", "-r", "--name-only", "HEAD", "core/bytepair").splitlines():
            target = destination / Path(name).relative_to("core")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(
                subprocess.run(["git", "show", f"HEAD:{name}"], cwd=REPO, capture_output=True, check=True).stdout
            )
        return f"commit {git('rev-parse', '--short', 'HEAD').strip()}, `core/bytepair` as committed (`--code head`)"
    shutil.copytree(PACKAGE, destination / "bytepair", ignore=shutil.ignore_patterns("__pycache__"))
    try:
        head = git("rev-parse", "--short", "HEAD").strip()
        dirty = git("status", "--porcelain", "--", "core")
    except (OSError, subprocess.CalledProcessError):
        return "the working tree's `core/bytepair` (not a git checkout)"
    if not dirty.strip():
        return f"commit {head}; `core/` had no uncommitted changes"
    changed = ", ".join(f"`{line[3:]}`" for line in dirty.splitlines())
    return f"commit {head} plus uncommitted changes in {changed}"


def import_snapshot(code: Path) -> ModuleType:
    """``import bytepair`` from the snapshot in ``code`` (ahead of the editable install's path entry);
    stop if this process had already imported it from elsewhere."""
    sys.path.insert(0, str(code))
    import bytepair

    if Path(bytepair.__file__).resolve().parent != (code / "bytepair").resolve():
        raise SystemExit(f"imported bytepair from {bytepair.__file__}, not from the snapshot in {code}")
    return bytepair


# -------------------------------------------------------------------------------- the machine
def cpu_model() -> str | None:
    """The CPU's model name from /proc/cpuinfo, or None where there is none."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return None


def machine_info(code_description: str) -> dict[str, str]:
    """What the numbers depend on: CPU, cores, Python, library versions, the code measured."""
    try:
        nproc = subprocess.run(["nproc"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        nproc = str(os.cpu_count())
    import bytepair
    import regex
    import tiktoken

    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": f"{cpu_model() or 'unknown'}, `nproc` = {nproc}",
        "python": f"{platform.python_implementation()} {platform.python_version()} ({platform.system()} {platform.machine()})",
        "versions": f"bytepair {bytepair.__version__}, tiktoken {tiktoken.__version__}, regex {regex.__version__}",
        "code": code_description,
        "bytecode": "set" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "not set",
    }


def command_line() -> str:
    """The command as typed (``.venv/bin/python -m bench SECTION ...``), with the interpreter path
    relative to the repo when it lives there."""
    argv = list(sys.orig_argv)
    with contextlib.suppress(ValueError):
        argv[0] = str(Path(argv[0]).relative_to(REPO))
    return shlex.join(argv)


# ------------------------------------------------------------------------------------ markdown
Column = tuple[str, str]  # (header, "l" or "r" alignment)


def md_table(columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> str:
    """A markdown table with aligned columns."""
    marks = {"l": ":---", "r": "---:"}
    lines = [
        "| " + " | ".join(header for header, _ in columns) + " |",
        "|" + "|".join(marks[align] for _, align in columns) + "|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def ratio(ours: float, theirs: float) -> str:
    """A time ratio as the tables print it: ``1.23×``."""
    return f"{ours / theirs:.2f}×"


# ------------------------------------------------------------------- the documents' sections
# docs/PERFORMANCE.md's ``BEGIN``/``END`` sections in document order, with the command that writes
# each; the order places a section that is written for the first time, and the list goes into the
# intro of a new file.
SECTIONS: dict[str, str] = {
    "native": "`python -m bench native`: bytepair on CPython against tiktoken (Rust) and a naive BPE",
    "browser-startup": "`python -m bench browser`: the browser bundle's start-up (cold and warm) and download size",
    "browser": "`python -m bench browser`: the browser bundle in headless Chromium against JavaScript tokenizers",
    "playground": "`python -m bench browser`: the playground's first load and its latency from keystroke to updated view",
    "training": "`python -m bench training`: bytepair.train against HF BpeTrainer, rustbpe, bpeasy and a minbpe-style loop",
    "families": "`python -m bench families`: WordPiece and WordLevel (and other families) beside HF tokenizers: first pass, training",
    "corpus": "`python -m bench corpus`: encode_corpus on 1 and 2 processes and a Dask LocalCluster, batches beside tiktoken; long pieces beside HF",
    "analysis": "`python -m bench analysis`: vocabulary reports, manifests, a diff and fertility (bytepair.analysis)",
    "runtimes": "`python -m bench runtimes`: the npm package in Node, Deno and Bun, cold and warm; its size beside gpt-tokenizer and tiktoken",
    "training-web": "`python -m bench training-web`: the JS API's train() in headless Chromium, 1 MB at 8k",
}


def begin_marker(name: str) -> str:
    return f"<!-- BEGIN {name} -->"


def end_marker(name: str) -> str:
    return f"<!-- END {name} -->"


def intro() -> str:
    """The head of a new file: what it is and which command writes which section."""
    listed = "\n".join(f"- `{name}`: {what}" for name, what in SECTIONS.items())
    return (
        "# Performance\n\n"
        "Generated, section by section, by the benchmarks (`python -m bench SECTION`); `make bench` runs\n"
        "them all (`python -m bench all`). Each section comes from one run of its command, on the machine it\n"
        "names, and a command rewrites only its own section (between the `BEGIN`/`END` comments), so\n"
        "re-run it rather than edit its numbers. Sections:\n\n"
        f"{listed}\n"
    )


def wrap(name: str, markdown: str) -> str:
    """The section's markdown between its markers, with exactly one newline before the end marker."""
    return f"{begin_marker(name)}\n{markdown.strip()}\n{end_marker(name)}"


def section_span(text: str, name: str) -> tuple[int, int] | None:
    """Start and end offsets of the whole marked section (markers included), or None if absent."""
    pattern = re.compile(re.escape(begin_marker(name)) + r".*?" + re.escape(end_marker(name)), re.DOTALL)
    matches = list(pattern.finditer(text))
    if len(matches) > 1:
        raise ValueError(f"section {name!r} appears {len(matches)} times; fix the file by hand")
    if not matches and (begin_marker(name) in text or end_marker(name) in text):
        raise ValueError(f"section {name!r} has only one of its two markers; fix the file by hand")
    return (matches[0].start(), matches[0].end()) if matches else None


def insertion_point(text: str, name: str) -> int:
    """Where a new section goes: before the first present section that SECTIONS lists after it."""
    names = list(SECTIONS)
    later = names[names.index(name) + 1 :] if name in SECTIONS else []
    for other in later:
        span = section_span(text, other)
        if span is not None:
            return span[0]
    return len(text)


def has_section(path: Path, name: str) -> bool:
    """Whether ``path`` exists and holds section ``name``."""
    return path.exists() and section_span(path.read_text(encoding="utf-8"), name) is not None


def replace_section(path: Path, name: str, markdown: str) -> None:
    """Replace section ``name`` of ``path`` with ``markdown``, keeping every other byte of the file.

    An absent section is added (in SECTIONS order where the neighbours exist, else at the end); a
    missing file is created with the intro first.
    """
    text = path.read_text(encoding="utf-8") if path.exists() else intro()
    block = wrap(name, markdown)
    span = section_span(text, name)
    if span is not None:
        text = text[: span[0]] + block + text[span[1] :]
    else:
        at = insertion_point(text, name)
        before, after = text[:at].rstrip("\n"), text[at:]
        text = f"{before}\n\n{block}\n" + (f"\n{after}" if after else "")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")


def replace_marked(path: Path, name: str, markdown: str, new_file: str) -> None:
    """Put ``markdown`` between ``<!-- name:begin -->`` and ``<!-- name:end -->`` in ``path``, keeping
    the rest of the file; an absent section goes at the end, a missing file starts as ``new_file``."""
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    text = path.read_text(encoding="utf-8") if path.exists() else new_file
    block = f"{begin}\n{markdown.strip()}\n{end}"
    if text.count(begin) > 1 or text.count(end) > 1 or (begin in text) != (end in text):
        raise SystemExit(f"{path}: the markers {begin} / {end} are unbalanced or repeated; fix the file by hand")
    if begin in text:
        start, stop = text.index(begin), text.index(end) + len(end)
        if stop < start:
            raise SystemExit(f"{path}: {end} comes before {begin}; fix the file by hand")
        text = text[:start] + block + text[stop:]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
