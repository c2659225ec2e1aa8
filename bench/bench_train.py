"""Training speed and memory: bytepair.train against HF BpeTrainer, rustbpe, bpeasy and a
minbpe-style pure-Python loop, on bench/corpus, at 8k and 32k vocabularies.

Each trainer runs in its own fresh subprocess (``--child``), which reads the corpus lines, trains,
and reports its CPU time (user + system: all threads), wall time and peak RSS
(``resource.getrusage``'s ``ru_maxrss``; CPU time is the fair measure on a shared machine, and the
ratio column compares it with HF single-threaded, which includes the Python interpreter and the corpus text,
the same for every trainer). Every trainer gets GPT-2's pattern. HF runs twice: with
``RAYON_NUM_THREADS=1`` (the target: bytepair within 3x of its single-thread time) and with its
default thread pool. The minbpe-style baseline (bench/minbpe_style.py) has a time limit.

    .venv/bin/python bench/bench_train.py            # writes the `training` section of docs/PERFORMANCE.md
    .venv/bin/python bench/bench_train.py --vocab 8000 --no-write
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
CORPUS = BENCH / "corpus"
TRAINERS = ("bytepair", "hf-1-thread", "hf-default", "rustbpe", "bpeasy", "minbpe-style")


def corpus_lines() -> list[str]:
    lines: list[str] = []
    for path in sorted(CORPUS.glob("*.txt.xz")):
        lines.extend(lzma.open(path, "rt", encoding="utf-8").read().splitlines(keepends=True))
    return lines


def _train(name: str, lines: list[str], vocab: int) -> int:
    """Train; return the number of merges made (a check that each trainer did the work)."""
    from bytepair.pre_tokenizers import GPT2_PATTERN

    if name == "bytepair":
        import bytepair

        tok = bytepair.train(lines, vocab, pattern="gpt2", show_progress=False)
        return tok.get_vocab_size() - 256
    if name.startswith("hf"):
        from tokenizers import Tokenizer, models, pre_tokenizers, trainers

        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        trainer = trainers.BpeTrainer(vocab_size=vocab, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                      show_progress=False)
        tok.train_from_iterator(lines, trainer)
        return tok.get_vocab_size() - 256
    if name == "rustbpe":
        import rustbpe

        tok = rustbpe.Tokenizer()
        tok.train_from_iterator(iter(lines), vocab, pattern=GPT2_PATTERN)
        return tok.vocab_size - 256
    if name == "bpeasy":
        import bpeasy

        return len(bpeasy.train_bpe(iter(lines), GPT2_PATTERN, 128, vocab)) - 256
    if name == "minbpe-style":
        import bytepair
        from minbpe_style import train_minbpe_style

        return len(train_minbpe_style(bytepair.count_pieces(lines, "gpt2"), vocab))
    raise SystemExit(f"unknown trainer {name}")


def child(name: str, vocab: int) -> None:
    sys.path[:0] = [str(REPO / "core"), str(BENCH)]
    lines = corpus_lines()
    before = resource.getrusage(resource.RUSAGE_SELF)
    wall = time.perf_counter()
    merges = _train(name, lines, vocab)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(json.dumps({"cpu": cpu, "wall": wall, "rss_mb": after.ru_maxrss / 1024, "merges": merges}))


def run(name: str, vocab: int, timeout: float) -> dict[str, float] | None:
    env = dict(os.environ, PYTHONPATH=str(REPO / "core"))
    if name == "hf-1-thread":
        env["RAYON_NUM_THREADS"] = "1"
    try:
        done = subprocess.run([sys.executable, __file__, "--child", name, str(vocab)], capture_output=True, text=True,
                              env=env, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return None
    except subprocess.CalledProcessError as exc:
        raise SystemExit(f"{name} failed:\n{exc.stderr}") from None
    return json.loads(done.stdout.strip().splitlines()[-1])


def table(results: dict[tuple[str, int], dict[str, float] | None], vocabs: list[int], timeout: float) -> str:
    rows = ["| trainer | vocab | merges | CPU s | CPU ÷ HF 1-thread | wall s | peak RSS MB |",
            "|:---|---:|---:|---:|---:|---:|---:|"]
    for vocab in vocabs:
        ref = results.get(("hf-1-thread", vocab))
        for name in TRAINERS:
            r = results.get((name, vocab), "skip")
            if r == "skip":
                continue
            if r is None:
                rows.append(f"| {name} | {vocab:,} | | | | stopped at {timeout:.0f} | |")
                continue
            ratio = f"{r['cpu'] / ref['cpu']:.2f}×" if ref else ""
            rows.append(f"| {name} | {vocab:,} | {r['merges']:,} | {r['cpu']:.2f} | {ratio} | {r['wall']:.2f} | {r['rss_mb']:.0f} |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--child", nargs=2, metavar=("TRAINER", "VOCAB"))
    parser.add_argument("--vocab", type=int, action="append", help="vocabulary sizes (default 8000 and 32000)")
    parser.add_argument("--trainers", default=",".join(TRAINERS))
    parser.add_argument("--baseline-timeout", type=float, default=300.0)
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--output", default=str(REPO / "docs" / "PERFORMANCE.md"))
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]))
        return
    vocabs = args.vocab or [8000, 32000]
    names = args.trainers.split(",")
    size = sum(len(line.encode("utf-8")) for line in corpus_lines())
    results: dict[tuple[str, int], dict[str, float] | None] = {}
    for vocab in vocabs:
        for name in names:
            results[(name, vocab)] = run(name, vocab, args.baseline_timeout if name == "minbpe-style" else 3600)
            print(name, vocab, results[(name, vocab)], file=sys.stderr)
    command = "bench/bench_train.py" + "".join(f" --vocab {v}" for v in args.vocab or [])
    markdown = (
        f"## Training\n\n`{command}` on {time.strftime('%Y-%m-%d')}, {platform.machine()} "
        f"({os.cpu_count()} cores, shared), Python {platform.python_version()}; corpus: every bench/corpus file, "
        f"{size / 1e6:.1f} MB, read line by line; GPT-2's pattern for every trainer; each trainer in a fresh "
        "process (times exclude reading the corpus; RSS includes it and the interpreter).\n\n"
        + table(results, vocabs, args.baseline_timeout)
        + "\n\nbytepair's merges and vocabulary equal HF's for the same settings (tests/test_train_byte_level.py); "
        "rustbpe and bpeasy break ties by byte values, so their merges differ from HF's at the first tie.\n"
    )
    print(markdown)
    if not args.no_write:
        sys.path.insert(0, str(BENCH))
        import report

        report.replace_section(Path(args.output), "training", markdown)


if __name__ == "__main__":
    main()
