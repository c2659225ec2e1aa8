"""Long whitespace runs, bytepair against tiktoken; section `whitespace` ("Whitespace runs") of
docs/RELIABILITY.md.

    .venv/bin/python -m bench whitespace            # full run, writes the section (make bench runs it)
    .venv/bin/python -m bench whitespace --quick    # 250 kB only, cl100k; prints only

Why a section of its own: a run of whitespace such as ``"    \\n" * n`` is one pretokenized piece
of the whole input, so it exercises the long-piece encoder (chunks, seams, stitching) and nothing
else; these inputs once took 12 s per megabyte. Every row is the median of three runs, each after
emptying bytepair's caches, so a row never profits from an earlier one. tiktoken runs in-process;
where it panics (pyo3's ``PanicException`` is a ``BaseException``) bytepair is checked by decoding
its ids back to the input instead. Exits with status 1 if any ids differ from tiktoken's.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

import bytepair

from bench.common import (
    RELIABILITY,
    REPO,
    clear_caches,
    command_line,
    git,
    machine_info,
    md_table,
    median_time,
    parser,
    ratio,
    replace_marked,
)
from tests.tiktoken_offline import fill_cache, offline_tiktoken

INTRO = "# Reliability\n\nInputs that are hard on a tokenizer, and how bytepair fares on them against tiktoken.\n"
UNITS = ("    \n", " \t", " \r\n", "\n \n", "\t\n", " \u3000", "\u00a0 ", "  \n\n", " ", "\n", "\t", "\r\n")
MIX_ALPHABET = " \t\r\n\u3000\u00a0"
MIX_SEED = 20240601
WITHIN = 3.0  # the target: at most this many times tiktoken's time
COLUMNS = [
    ("encoding", "l"),
    ("input", "l"),
    ("bytes", "r"),
    ("tokens", "r"),
    ("tiktoken s", "r"),
    ("bytepair s", "r"),
    ("bytepair ÷ tiktoken", "r"),
    (f"within {WITHIN:g}×", "l"),
]


def inputs(n_bytes: int) -> dict[str, str]:
    """``unit × k`` of about ``n_bytes`` UTF-8 bytes for each unit, and a seeded random mix."""
    texts = {f"{unit!r} × {n_bytes // len(unit.encode()):,}": unit * (n_bytes // len(unit.encode())) for unit in UNITS}
    rng = random.Random(MIX_SEED)
    mix = []
    size = 0
    while size < n_bytes:
        ch = rng.choice(MIX_ALPHABET)
        size += len(ch.encode())
        mix.append(ch)
    texts[f"random mix of {MIX_ALPHABET!r}, {len(mix):,} chars"] = "".join(mix)
    return {**texts, **shaped_inputs(n_bytes)}


def time_tiktoken(encode: Callable[[str], list[int]], text: str, repeats: int) -> tuple[float | None, list[int] | None]:
    """Median seconds and ids, or (None, None) if tiktoken panics."""
    try:
        ids = encode(text)
        return median_time(partial(encode, text), repeats), ids
    except BaseException as exc:  # noqa: BLE001 - a Rust panic surfaces as a BaseException
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            raise
        return None, None


def table_ms(encodings: Sequence[str], repeats: int) -> dict[str, float]:
    """Milliseconds to build, from nothing, the tables the long-piece encoder derives from a
    vocabulary for the random inputs' bytes: the cut tables (``models/bpe/piece_cuts.py``) and the rank-by-rank
    plans (``models/bpe/small_alphabet.py``, for the mix's bytes and for spaces with newlines). Paid once per
    process, on the first such piece, and kept by the rows above (as tiktoken keeps its own tables)."""
    from bytepair.models.bpe.piece_cuts import PieceCuts
    from bytepair.models.bpe.small_alphabet import MANY_SPLITS, SmallAlphabetMerge

    samples = [
        "".join(random.Random(MIX_SEED).choices(alphabet, k=4096)).encode() for alphabet in (MIX_ALPHABET, " \n")
    ]

    def build(model: object) -> None:
        cuts, merger = PieceCuts(model.ranks, model.token_bytes), SmallAlphabetMerge(model.ranks)
        for sample in samples:
            cuts.cuts(sample)
            merger.encode(sample, MANY_SPLITS)

    return {name: 1000 * median_time(partial(build, bytepair.get_encoding(name).engine.model), repeats) for name in encodings}


def shaped_inputs(n_bytes: int) -> dict[str, str]:
    """Seeded random inputs with structure: runs of one whitespace character (1-40 long), whitespace
    units of a few characters, and spaces with newlines (three to one)."""
    rng = random.Random(MIX_SEED + 1)
    units = ["    ", "\t", "\n\n", "\u3000\u3000", " \u00a0", "\r\n", "  \n", "\t\t\n"]
    out: dict[str, str] = {}
    for label, draw in (
        ("random runs of one of ' \\t\\r\\n\\u3000\\xa0', 1-40 long", lambda: rng.choice(MIX_ALPHABET) * min(int(rng.expovariate(1 / 6)) + 1, 40)),
        ("random units " + ", ".join(map(repr, units)), lambda: rng.choice(units)),
        ("random spaces and newlines, 3 to 1", lambda: rng.choice("   \n")),
    ):
        parts, size = [], 0
        while size < n_bytes:
            part = draw()
            parts.append(part)
            size += len(part.encode())
        out[label] = "".join(parts)
    return out


def run(encodings: Sequence[str], sizes: Sequence[int], repeats: int) -> tuple[list[list[str]], list[str]]:
    """Table rows and a list of mismatches."""
    with tempfile.TemporaryDirectory(prefix="bytepair-ws-") as tmp:
        get_tiktoken = offline_tiktoken(fill_cache(Path(tmp)))
        rows, failures = [], []
        for name in encodings:
            enc, ref = bytepair.get_encoding(name), get_tiktoken(name)
            for n_bytes in sizes:
                for label, text in inputs(n_bytes).items():
                    print(f"{name} {label}", file=sys.stderr, flush=True)
                    ours = median_time(partial(enc.encode_ordinary, text), repeats, before=partial(clear_caches, enc))
                    ids = enc.encode_ordinary(text)
                    theirs, ref_ids = time_tiktoken(ref.encode_ordinary, text, repeats)
                    if ref_ids is None:
                        ok = enc.decode(ids) == text
                        cells = ["panics", f"{ours:.3f}", "–", "holds (tiktoken panics)"]
                    else:
                        ok = ids == ref_ids
                        within = "yes" if ours <= WITHIN * theirs else "**no**"
                        cells = [f"{theirs:.3f}", f"{ours:.3f}", ratio(ours, theirs), within]
                    if not ok:
                        failures.append(f"{name} {label}")
                    rows.append([name, f"`{label}`", f"{len(text.encode()):,}", f"{len(ids):,}", *cells])
    return rows, failures


def render(rows: list[list[str]], info: dict[str, str], command: str, repeats: int, tables: dict[str, float]) -> str:
    once = ", ".join(f"{name} {ms:.0f} ms" for name, ms in tables.items())
    return (
        "## Whitespace runs\n\n"
        f"Written by `python -m bench whitespace` (`bench/whitespace.py`); command: `{command}`.\n"
        f"{info['date']}; {info['cpu']}; {info['python']}; {info['versions']}; code: {info['code']}.\n\n"
        f"Each input is one pretokenized piece (a run of whitespace), so this times the long-piece encoder. "
        f"Seconds are the median of {repeats} runs; bytepair's caches are emptied before each run. "
        "Ids are compared with tiktoken's; where tiktoken panics, bytepair's are decoded back to the input.\n\n"
        + md_table(COLUMNS, rows)
        + "\n\nNot in the rows: the tables the long-piece encoder derives from the vocabulary for a piece's bytes "
        "(where no token can cross, `core/bytepair/models/bpe/piece_cuts.py`; the rank-by-rank plan, `core/bytepair/models/bpe/small_alphabet.py`), "
        f"built once per process on the first such piece and kept: {once} for the mix's bytes and for spaces with "
        f"newlines together (median of {repeats} builds from nothing).\n"
    )


def main(argv: Sequence[str]) -> int:
    p = parser("whitespace", __doc__)
    p.add_argument("--quick", action="store_true", help="250 kB, cl100k_base only; writes nothing")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--encodings", default="cl100k_base,o200k_base,r50k_base")
    p.add_argument("--output", type=Path, default=RELIABILITY)
    args = p.parse_args(argv)
    encodings = ["cl100k_base"] if args.quick else [e.strip() for e in args.encodings.split(",") if e.strip()]
    sizes = [250_000] if args.quick else [250_000, 1_000_000]
    try:
        head, dirty = git("rev-parse", "--short", "HEAD"), git("status", "--porcelain", "--", "core")
    except (OSError, subprocess.CalledProcessError):  # not a git checkout
        head, dirty = "", ""
    code = f"commit {head.strip()}" + (" plus uncommitted changes in `core/`" if dirty.strip() else "")
    code += f", bytepair imported from `{os.path.relpath(Path(bytepair.__file__).resolve().parent, REPO)}`"
    rows, failures = run(encodings, sizes, args.repeats)
    markdown = render(rows, machine_info(code), command_line(), args.repeats, table_ms(encodings, args.repeats))
    print(markdown)
    if not args.quick:
        replace_marked(args.output, "whitespace", markdown, new_file=INTRO)
    for failure in failures:
        print(f"MISMATCH: {failure}", file=sys.stderr)
    return 1 if failures else 0
