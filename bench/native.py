"""Section `native` of docs/PERFORMANCE.md: bytepair against tiktoken 0.14 and a naive pure-Python BPE.

    .venv/bin/python -m bench native            # full run (make bench runs it), writes docs/PERFORMANCE.md
    .venv/bin/python -m bench native --quick    # a smoke run: prints, writes nothing

This module parses the options, takes a snapshot of the bytepair package (``common.snapshot_package``),
and only then imports the modules that measure (``native_measure``, ``native_models``) and write the
report (``native_report``): they import bytepair, which must come from the snapshot, and so do the
fresh processes they start (``fresh_process.py``). The section measures:

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

Why one run: every number in the section then comes from the same machine, the same moment and
the same code, so the tables can be compared with each other. Every id list bytepair produces is
compared with tiktoken's, and a mismatch is reported in the document; the command then exits with
status 1.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bench.common import CORPUS, HF_DIR, PERFORMANCE, REPO, import_snapshot, parser, snapshot_package

QUICK_CORPORA = ("en", "zh", "code_python", "mixed")


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = parser("native", __doc__)
    p.add_argument(
        "--quick",
        action="store_true",
        help=f"fewer repeats and only {', '.join(QUICK_CORPORA)}; writes no file unless --output is given",
    )
    p.add_argument("--repeats", type=int, help="timed runs per measurement (default 5, or 2 with --quick)")
    p.add_argument("--encodings", default="cl100k_base,o200k_base", help="comma-separated encodings for sections 1 and 2")
    p.add_argument(
        "--models",
        default="llama3,qwen2_5",
        help="comma-separated tokenizer.json models (folders of build/cache/hf, from `make hf-data`) for the "
        "summary and section 1b, against tiktoken on their own vocabulary; empty for none",
    )
    p.add_argument("--corpus", type=Path, default=CORPUS, help="directory of NAME.txt.xz or NAME.txt files")
    p.add_argument(
        "--output",
        type=Path,
        help=f"markdown file whose section native to write (default {PERFORMANCE.relative_to(REPO)}; none with --quick)",
    )
    p.add_argument(
        "--code",
        choices=("worktree", "head"),
        default="worktree",
        help="measure core/bytepair as it is on disk at the start (default) or as committed in HEAD",
    )
    args = p.parse_args(argv)
    if args.repeats is None:
        args.repeats = 2 if args.quick else 5
    if args.repeats < 1:
        p.error("--repeats must be at least 1")
    args.worst_repeats = 1 if args.quick else 3
    if args.output is None and not args.quick:
        args.output = PERFORMANCE
    args.encodings = [e.strip() for e in args.encodings.split(",") if e.strip()]
    args.models = [m.strip() for m in args.models.split(",") if m.strip()]
    args.corpora = QUICK_CORPORA if args.quick else None
    return args


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bytepair-bench-") as tmp:
        work = Path(tmp)
        code = work / "code"
        args.code_description = snapshot_package(args.code, code)
        import_snapshot(code)
        return run(args, work, code)


def run(args: argparse.Namespace, work: Path, code: Path) -> int:
    """Measure everything, print the report, write it as section ``native`` of ``args.output``; 1 if any ids differed."""
    # Imported here, after the snapshot: these modules import bytepair (and tests.tiktoken_offline does).
    from bytepair.data import ENCODING_SPECS

    from bench import native_measure as measure
    from bench import native_models as models
    from bench import native_report as report
    from bench.common import (
        Checks, command_line, elapsed_s, load_corpus, load_summary, log, machine_info, replace_section, write_texts,
    )
    from tests.tiktoken_offline import fill_cache, offline_tiktoken

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
    measure.check_naive_reference(get_tiktoken, args.encodings, corpus)
    log("preparing fresh-process bytecode cache")
    fresh = measure.FreshProcesses(work, code, work / "tiktoken-cache")
    corpus_files = write_texts(corpus, work / "corpus")
    cases = measure.worst_case_texts()
    case_files = write_texts(cases, work / "worst")
    tiktoken_files = measure.expand_rank_files(work / "ranks")

    throughput = [
        row
        for name in args.encodings
        for row in measure.bench_throughput(name, get_tiktoken(name), corpus, corpus_files, fresh, args.repeats, checks)
    ]
    mixed = [measure.bench_mixed_stream(name, get_tiktoken(name), corpus, checks) for name in args.encodings]
    model_rows: list[measure.ThroughputRow] = []
    for model in args.models:
        rows, model_mixed = models.bench_model(model, corpus, corpus_files, fresh, args.repeats, checks)
        model_rows += rows
        mixed.append(model_mixed)
    worst = [
        row
        for name in args.encodings
        for row in measure.bench_worst_cases(name, cases, case_files, fresh, args.worst_repeats, checks)
    ]
    startup = measure.bench_startup(fresh, args.repeats, tiktoken_files)
    results = report.Results(
        info,
        command_line(),
        args,
        args.corpus.resolve(),
        throughput,
        mixed,
        worst,
        startup,
        measure.data_sizes(tiktoken_files),
        checks,
        cache_limit=report.piece_cache_limit(args.encodings[0]),
        load=load_summary(),
        runtime_s=elapsed_s(),
        models=model_rows,
    )
    document = report.render(results)
    print(document)
    if args.output is not None:
        replace_section(args.output, "native", document)
        log(f"wrote section native of {args.output}")
    log(f"done in {results.runtime_s:.0f} s; {len(checks.failed)} id mismatch(es)")
    return 1 if checks.failed else 0
