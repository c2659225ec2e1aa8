"""Section ``tokenizer-json`` of docs/PERFORMANCE.md: ``bytepair.Tokenizer`` on Hugging Face
``tokenizer.json`` files against HF ``tokenizers`` and tokie.

    .venv/bin/python -m bench tokenizer-json              # this section (make bench runs it), writes the doc
    .venv/bin/python -m bench tokenizer-json --quick      # a smoke run: prints, writes nothing

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

Conventions shared with section ``native``: a snapshot of ``core/bytepair`` taken at the start and
imported by every process (``common.snapshot_package``); fresh processes with a private bytecode
cache (``tokenizer_json_child.py``); medians; the corpus in ``bench/corpus``. The section is written
between ``<!-- tokenizer-json:begin -->`` and ``<!-- tokenizer-json:end -->`` in docs/PERFORMANCE.md;
nothing else in the file changes. Measuring is in ``tokenizer_json_measure.py``, the tables and
words in ``tokenizer_json_report.py``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bench.common import CORPUS, HF_DIR, PERFORMANCE, REPO, import_snapshot, parser, snapshot_package

MODELS = ("llama3", "qwen2_5", "deepseek_v3", "gpt2")
MEASURED_CORPORA = ("en", "zh", "code_python")


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = parser("tokenizer-json", __doc__)
    p.add_argument("--quick", action="store_true",
                   help="Llama 3 only, en and zh, one repeat, a stream of those two files; writes nothing")
    p.add_argument("--repeats", type=int, help="processes or calls per measurement, median taken (default 3)")
    p.add_argument("--models", help=f"comma-separated folders of build/cache/hf (default {','.join(MODELS)})")
    p.add_argument("--corpora", help=f"corpus files timed one by one (default {','.join(MEASURED_CORPORA)})")
    p.add_argument("--corpus", type=Path, default=CORPUS, help="directory of NAME.txt.xz files")
    p.add_argument("--output", type=Path, help="markdown file to write the section into (default "
                   f"{PERFORMANCE.relative_to(REPO)}; none with --quick)")
    p.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                   help="time with the process's CPU time (default: steadier on a shared machine; every "
                   "library runs single-threaded) or wall-clock time")
    p.add_argument("--code", choices=("worktree", "head"), default="worktree",
                   help="measure core/bytepair as on disk at the start (default) or as committed in HEAD")
    args = p.parse_args(argv)
    if args.repeats is None:
        args.repeats = 1 if args.quick else 3
    if args.repeats < 1:
        p.error("--repeats must be at least 1")
    args.models = _names(args.models, ("llama3",) if args.quick else MODELS)
    args.corpora = _names(args.corpora, ("en", "zh") if args.quick else MEASURED_CORPORA)
    if args.output is None and not args.quick:
        args.output = PERFORMANCE
    return args


def _names(value: str | None, default: Sequence[str]) -> list[str]:
    return [n.strip() for n in value.split(",") if n.strip()] if value else list(default)


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    from bench.tokenizer_json_measure import SINGLE_THREAD

    os.environ.update(SINGLE_THREAD)  # before tokenizers or tokie are imported in this process
    with tempfile.TemporaryDirectory(prefix="bytepair-bench-json-") as tmp:
        work = Path(tmp)
        code = work / "code"
        code_description = snapshot_package(args.code, code)
        import_snapshot(code)
        return run(args, work, code, code_description)


def run(args: argparse.Namespace, work: Path, code: Path, code_description: str) -> int:
    """Measure, print the section, write it to ``args.output``; a difference in bytepair's ids stops the run."""
    # Imported here, after the snapshot: bytepair must come from it.
    import bytepair
    import tokenizers

    from bench.common import command_line, elapsed_s, load_corpus, load_summary, log, machine_info, replace_marked, write_texts
    from bench.tokenizer_json_child import digest, encode_ids
    from bench.tokenizer_json_measure import (
        Checks, FirstRow, Fresh, StreamRow, TokieDiff, WarmRow, bench_first_pass, bench_load, bench_stream, bench_warm,
        set_clock, token_byte_lengths, tokie_diff,
    )
    from bench.tokenizer_json_report import MODEL_NAMES, ratio_range, render

    set_clock(args.clock)

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

    everything = load_corpus(args.corpus, None)
    for name in args.corpora:
        if name not in everything:
            raise SystemExit(f"no corpus file {name!r} in {args.corpus}")
    stream_names = list(args.corpora) if args.quick else list(everything)
    files = write_texts(everything, work / "corpus")
    measured = {name: everything[name] for name in args.corpora}
    stream = {name: everything[name] for name in stream_names}
    log(f"models: {', '.join(args.models)}; files: {', '.join(args.corpora)}; libraries: {', '.join(libs)}; "
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
                                  tokie_first_equal)
        streams.append(bench_stream(model, path, stream, files, reference, fresh, libs, args.repeats, 2, checks))
        warm += bench_warm(model, path, measured, reference_ids, libs, args.repeats, checks)
        if "tokie" in libs:
            log(f"tokie ids against HF's, {model}")
            tk = tokie.Tokenizer.from_json(str(path))
            diffs.append(tokie_diff(model, reference_ids, {n: encode_ids(tk, t) for n, t in everything.items()},
                                    token_byte_lengths(hf)))
    load_models = list(args.models) if args.quick else [  # the files `make hf-data` fetches
        m for m in MODEL_NAMES if (HF_DIR / m / "tokenizer.json").is_file()]
    loads, imports = bench_load(load_models, fresh, libs, args.repeats, work)

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
        "args": args, "info": machine_info(code_description), "versions": versions, "libs": libs,
        "command": command_line(), "first": first, "stream": streams, "warm": warm, "load": loads,
        "imports": imports, "tokie": diffs, "tokie_note": tokie_note, "stream_names": stream_names,
        "checks": checks, "load_errors": load_errors, "load_avg": load_summary(),
        "runtime_s": elapsed_s(),
    }
    document = render(results)
    print(document)
    if args.output is not None:
        replace_marked(args.output, "tokenizer-json", document, new_file="# Performance\n")
        log(f"wrote the tokenizer-json section of {args.output}")
    log(f"done; {len(checks.passed)} id comparisons, all equal")
    return 0
