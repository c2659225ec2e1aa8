"""Benchmark bytepair against tiktoken 0.14 and a naive pure-Python BPE; section `native` of docs/PERFORMANCE.md.

    make bench                                          # full run (and bench_web.py), writes docs/PERFORMANCE.md
    .venv/bin/python bench/bench_encode.py --quick      # a smoke run: prints, writes nothing

This file is the entry point: it parses the options, takes a snapshot of the bytepair package,
and only then imports ``suite.py``, which does the measuring and writes the report (only its own
section ``native`` of the file: ``report.py``; ``bench_web.py`` writes section ``browser``). Why a snapshot:
the run takes minutes and starts many fresh processes. If someone edits ``core/`` meanwhile, the
fresh processes would time other code than the benchmark's own process. Every process imports the
same frozen copy instead: the working tree as it was at the start (default), or the committed
``HEAD`` (``--code head``).

The script exits with status 1 if any id list bytepair produced differs from tiktoken's.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
PACKAGE = REPO / "core" / "bytepair"
DEFAULT_OUTPUT = REPO / "docs" / "PERFORMANCE.md"
QUICK_CORPORA = ("en", "zh", "code_python", "mixed")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"fewer repeats and only {', '.join(QUICK_CORPORA)}; writes no file unless --output is given",
    )
    parser.add_argument("--repeats", type=int, help="timed runs per measurement (default 5, or 2 with --quick)")
    parser.add_argument(
        "--encodings", default="cl100k_base,o200k_base", help="comma-separated encodings for sections 1 and 2"
    )
    parser.add_argument(
        "--models",
        default="llama3,qwen2_5",
        help="comma-separated tokenizer.json models (folders of build/cache/hf, from `make hf-data`) for the "
        "summary and section 1b, against tiktoken on their own vocabulary; empty for none",
    )
    parser.add_argument(
        "--corpus", type=Path, default=BENCH / "corpus", help="directory of NAME.txt.xz or NAME.txt files"
    )
    parser.add_argument(
        "--output",
        type=Path,
        help=f"markdown file whose section native to write (default {DEFAULT_OUTPUT.relative_to(REPO)}; none with --quick)",
    )
    parser.add_argument(
        "--code",
        choices=("worktree", "head"),
        default="worktree",
        help="measure core/bytepair as it is on disk at the start (default) or as committed in HEAD",
    )
    args = parser.parse_args(argv)
    if args.repeats is None:
        args.repeats = 2 if args.quick else 5
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    args.worst_repeats = 1 if args.quick else 3
    if args.output is None and not args.quick:
        args.output = DEFAULT_OUTPUT
    args.encodings = [e.strip() for e in args.encodings.split(",") if e.strip()]
    args.models = [m.strip() for m in args.models.split(",") if m.strip()]
    args.corpora = QUICK_CORPORA if args.quick else None
    return args


def git(*args: str) -> str:
    """Output of a git command in the repo, unstripped (porcelain lines start with a space)."""
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout


def snapshot_package(mode: str, destination: Path) -> str:
    """Copy the bytepair package into ``destination/bytepair``; return a description of what was copied."""
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


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bytepair-bench-") as tmp:
        work = Path(tmp)
        code = work / "code"
        args.code_description = snapshot_package(args.code, code)
        sys.path.insert(0, str(code))  # ahead of the editable install's path entry
        sys.path.insert(1, str(REPO))  # tests.tiktoken_offline, shared with the test suite
        import bytepair

        if Path(bytepair.__file__).resolve().parent != (code / "bytepair").resolve():
            raise SystemExit(f"imported bytepair from {bytepair.__file__}, not from the snapshot in {code}")
        import suite

        return suite.run(args, work, code)


if __name__ == "__main__":
    sys.exit(main())
