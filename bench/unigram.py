"""Section ``unigram`` of docs/PERFORMANCE.md: the Unigram family and SentencePiece ``.model`` files
beside HF ``tokenizers`` and the ``sentencepiece`` package: first-pass encoding, and training.

    .venv/bin/python -m bench unigram              # writes the `unigram` section
    .venv/bin/python -m bench unigram --no-write --repeats 3

A SentencePiece Unigram model (8k pieces, nmt_nfkc) is trained with ``sentencepiece`` on the
en+de+fr files; HF and bytepair each load transformers' conversion of it (``from_sentencepiece``
gives the same ``tokenizer.json``) and encode a whole corpus file once, first in fresh processes
(what a user gets first: ``tokenizer_json_child.py``), then each from a new tokenizer in this
process (so no piece is cached), single-threaded (``RAYON_NUM_THREADS=1``); ``sentencepiece`` and
``bytepair.SentencePieceProcessor`` encode the same file from the ``.model``. Training is
``Tokenizer.train_from_iterator(lines, UnigramTrainer(...))`` after a Metaspace pre-tokenizer, by
each library with its own trainer object, counting included. Medians of ``--repeats`` runs, the
libraries taking turns.
"""

from __future__ import annotations

import os

os.environ.setdefault("RAYON_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from bench.common import (CORE, CORPUS, PERFORMANCE, all_fields, command_line, import_snapshot, lines_with_fields,  # noqa: E402
                          load_corpus, log, md_table, parser, replace_section, snapshot_package, timed_both, write_texts)
from bench.tokenizer_json_measure import FRESH_COLUMNS, FRESH_TEXT, Fresh, fresh_cells, fresh_first_passes  # noqa: E402

sys.path.insert(0, str(CORE))

TRAIN_FILES = ("en", "de", "fr")
ENCODE_FILES = ("en", "de", "fr", "el_cs_bg_pt", "code_python")


# Written with the section (a rewrite must not drop it): what the tables above do not show.
WHERE_TIME_GOES = (
    "Where a first pass goes: about 80% is the Viterbi over new stretches (`lattice.viterbi`, once per distinct "
    "`▁`-stretch: en 17,465 stretches, 144k positions), ~0.9 µs a position for 3.2 substring lookups and 1.9 "
    "candidate nodes; the rest is the normalizer (20-30 ms) and joining the ids. The Viterbi keeps at each end only "
    "its best node `(id, score, length)` and reads the path back by the lengths; a new stretch with an unknown run is "
    "fused straight from those nodes. The trainer pauses the cycle collector during `learn` and drops the words' "
    "matches of seeds gone once the pieces have halved. Every field read: the text is normalized again with its "
    "alignment kept as the characters not rewritten as one (`normalizers/edits.py`, composed over the converted "
    "normalizer's five steps, tens of thousands of collapsed runs of spaces in a file, each a few C steps), the "
    "whole text's ids are the ids' pass's (the piece cache keeps the last long piece's), the tokens' spans and "
    "strings are read off the one piece by the ids in C (each unknown token the next whole run of characters "
    "without a one-character entry: `models/unigram/spans.py`), and offsets, tokens and word ids are built by C "
    "loops; for 100k-200k tokens that is 0.1-0.2 s of Python (building 7 lists of that many entries, offsets' "
    "tuples among them, is a floor of a few tens of ms here) beside HF's 0.03-0.05 s in `encode`. Line by line "
    "the fields cost more than the ids: the type ids, special-tokens mask and sequence ids "
    "come from the ids' pass through the post-processor, but tokens, offsets and word ids are a second pass through "
    "the stages (added tokens, normalizer with its changes, pre-tokenizer, the piece's spans, the post-processor), "
    "a cost every short call pays that HF's `encode` has not (the last line-by-line column, every field read; the ids alone pay each call's pass through the stages, 11-16 µs a call with every piece cached, measured warm, while HF's lines take about the time of its whole-file pass). "
    "What was tried and not kept is under \"Tried and dropped\" (Unigram lines)."
)


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def spm_model(corpus: dict[str, str], folder: Path, vocab_size: int = 8000) -> Path:
    import sentencepiece as spm

    text = folder / "train.txt"
    text.write_text("\n".join(corpus[n] for n in TRAIN_FILES), encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(text), model_prefix=str(folder / "uni"), vocab_size=vocab_size,
                                   model_type="unigram", character_coverage=0.9995, minloglevel=2, num_threads=1)
    return folder / "uni.model"


def bench_encode(corpus: dict[str, str], model: Path, repeats: int) -> tuple[list[list[str]], list[str]]:
    import sentencepiece as spm
    import tokenizers

    import bytepair

    json_text = bytepair.Tokenizer.from_sentencepiece(model).to_str()
    table, mismatches = [], []
    for name in ENCODE_FILES:
        text = corpus[name]
        times: dict[str, list[float]] = {"hf": [], "bytepair": [], "spm": [], "bytepair spm": [], "hf-all": [],
                                         "bytepair-all": [], "hf-all-cpu": [], "bytepair-all-cpu": [], "hf-lines": [],
                                         "bytepair-lines": [], "hf-lines-ids": [], "bytepair-lines-ids": []}
        ids: dict[str, list[int]] = {}
        fields: dict[str, tuple[list[str], list[tuple[int, int]]]] = {}
        for _ in range(repeats):
            runs = (("hf", lambda: tokenizers.Tokenizer.from_str(json_text), lambda t: t.encode(text, add_special_tokens=False).ids),
                    ("bytepair", lambda: bytepair.Tokenizer.from_str(json_text), lambda t: t.encode(text, add_special_tokens=False).ids),
                    ("spm", lambda: spm.SentencePieceProcessor(model_file=str(model)), lambda t: t.encode(text)),
                    ("bytepair spm", lambda: bytepair.SentencePieceProcessor(model_file=str(model)), lambda t: t.encode(text)))
            for lib, make, run in runs:
                tok = make()
                seconds, out = timed(lambda: run(tok))
                times[lib].append(seconds)
                ids[lib] = out
            # Every field read (tokens, offsets, word ids, masks), each library fresh again:
            for lib, module in (("hf", tokenizers), ("bytepair", bytepair)):
                tok = module.Tokenizer.from_str(json_text)
                encoding: Any = None

                def encode_all() -> None:
                    nonlocal encoding
                    encoding = tok.encode(text, add_special_tokens=False)
                    all_fields(encoding)

                seconds, cpu = timed_both(encode_all)
                times[lib + "-all"].append(seconds)
                times[lib + "-all-cpu"].append(cpu)
                fields[lib] = (encoding.tokens, encoding.offsets)
                times[lib + "-lines"].append(lines_with_fields(module, json_text, text)[1])
                times[lib + "-lines-ids"].append(lines_with_fields(module, json_text, text, fields=False)[1])
        same_hf = ids["hf"] == ids["bytepair"] and fields["hf"] == fields["bytepair"]
        same_spm = ids["spm"] == ids["bytepair spm"]
        if not (same_hf and same_spm):
            mismatches.append(name)
        mb = len(text.encode("utf-8")) / 1e6
        med = {k: statistics.median(v) for k, v in times.items()}
        log(f"{name}: " + ", ".join(f"{k} {v:.3f}s" for k, v in med.items()))
        table.append([name, f"{mb:.2f}", f"{len(ids['hf']):,}", f"{mb / med['hf']:.2f}", f"{mb / med['bytepair']:.2f}",
                      f"{med['hf'] / med['bytepair']:.2f}×", f"{mb / med['hf-all']:.2f}", f"{mb / med['bytepair-all']:.2f}",
                      f"{med['hf-all'] / med['bytepair-all']:.2f}×", f"{med['hf-all-cpu'] / med['bytepair-all-cpu']:.2f}×",
                      f"{med['hf-lines-ids'] / med['bytepair-lines-ids']:.2f}×", f"{med['hf-lines'] / med['bytepair-lines']:.2f}×",
                      f"{mb / med['spm']:.2f}", f"{mb / med['bytepair spm']:.2f}",
                      f"{med['spm'] / med['bytepair spm']:.2f}×", "yes" if same_hf else "**no**", "yes" if same_spm else "**no**"])
    return table, mismatches


def _train(lib: Any, lines: list[str], vocab_size: int) -> Any:
    tok = lib.Tokenizer(lib.models.Unigram())
    tok.pre_tokenizer = lib.pre_tokenizers.Metaspace()
    tok.train_from_iterator(lines, lib.trainers.UnigramTrainer(vocab_size=vocab_size, unk_token="<unk>",
                                                                 special_tokens=["<unk>"], show_progress=False))
    return tok


def bench_fresh(corpus: dict[str, str], model: Path, work: Path, repeats: int) -> list[list[str]]:
    """New text in a new process (what a user gets first): HF and bytepair each import, load the
    converted ``tokenizer.json`` and encode a whole file once, ids only and every field read."""
    import bytepair


    json_path = work / "unigram.json"
    json_path.write_text(bytepair.Tokenizer.from_sentencepiece(model).to_str(), encoding="utf-8")
    files = write_texts({name: corpus[name] for name in ENCODE_FILES}, work / "corpus")
    fresh = Fresh(work, work / "code", Path(bytepair.__file__).parent)
    table = []
    for name in ENCODE_FILES:
        mb = len(corpus[name].encode("utf-8")) / 1e6
        table.append([name, f"{mb:.2f}", *fresh_cells(name, fresh_first_passes(fresh, json_path, files[name], repeats), mb)])
    return table


def bench_train(corpus: dict[str, str], rows: Sequence[tuple[Sequence[str], int]], repeats: int) -> list[list[str]]:
    import tokenizers

    import bytepair

    table = []
    for files, vocab_size in rows:
        lines = [line for n in files for line in corpus[n].splitlines()]
        times: dict[str, list[float]] = {"hf": [], "bytepair": []}
        vocabs: dict[str, set[str]] = {}
        for _ in range(repeats):
            for lib, module in (("hf", tokenizers), ("bytepair", bytepair)):
                seconds, tok = timed(lambda: _train(module, lines, vocab_size))
                times[lib].append(seconds)
                vocabs[lib] = set(tok.get_vocab())
        hf, ours = statistics.median(times["hf"]), statistics.median(times["bytepair"])
        log(f"train {'+'.join(files)} {vocab_size}: hf {hf:.2f}s bytepair {ours:.2f}s")
        mb = sum(len(corpus[n].encode("utf-8")) for n in files) / 1e6
        table.append(["+".join(files), f"{mb:.2f}", f"{vocab_size:,}", f"{hf:.2f}", f"{ours:.2f}", f"{ours / hf:.2f}×",
                      f"{len(vocabs['hf'] & vocabs['bytepair']):,} of {len(vocabs['hf']):,}"])
    return table


def main(argv: Sequence[str] | None = None) -> int:
    args_parser = parser("unigram", __doc__)
    args_parser.add_argument("--repeats", type=int, default=5)
    args_parser.add_argument("--no-write", action="store_true", help="print the section instead of writing it")
    args = args_parser.parse_args(argv)
    corpus = load_corpus(CORPUS, None)
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bytepair-bench-unigram-") as tmp:
        work = Path(tmp)
        code_description = snapshot_package("worktree", work / "code")
        import_snapshot(work / "code")  # (this process and the fresh ones time the same code)
        model = spm_model(corpus, work)
        fresh_table = bench_fresh(corpus, model, work, args.repeats)
        encode_table, mismatches = bench_encode(corpus, model, args.repeats)
    train_table = bench_train(corpus, [(("en",), 2000), (TRAIN_FILES, 8000)], max(1, args.repeats // 2))
    markdown = "\n\n".join([
        "## Unigram and SentencePiece beside HF tokenizers and sentencepiece",
        f"Command: `{command_line()}`; the first table from fresh processes, the others with all libraries in one process; HF single-threaded (`RAYON_NUM_THREADS=1`); "
        f"medians, the libraries taking turns; load average {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} "
        f"at the end, on {os.cpu_count()} cores; bytepair: {code_description}.",
        "### First pass: new text in a fresh process (Unigram 8k trained by sentencepiece on en+de+fr)",
        FRESH_TEXT + " The `tokenizer.json` is transformers' conversion of the model.",
        md_table([("text", "l"), ("MB", "r"), *FRESH_COLUMNS], fresh_table),
        "### First pass in one process: a fresh tokenizer encodes a whole corpus file; line by line; sentencepiece",
        "The same model in the benchmark's own process, each run from a new tokenizer (no piece cached, "
        "but the process warm: the libraries, their allocators and the machine's caches have run before). "
        "HF and bytepair load the same converted `tokenizer.json`; sentencepiece and `bytepair.SentencePieceProcessor` "
        "the `.model`. `.ids` only (bytepair builds the other fields when first read; HF in `encode`), then every "
        "field read (tokens, offsets, word ids, masks) from a fresh tokenizer again; the converted normalizer and "
        "Metaspace without split make the whole text one piece. Line by line: the file's lines one `encode(line)` "
        "call each (special tokens added, as by default), `.ids` only, then every field read, each from a fresh "
        "tokenizer (each call's own cost counts).",
        md_table([("text", "l"), ("MB", "r"), ("tokens", "r"), ("HF MB/s", "r"), ("bytepair MB/s", "r"),
                  ("bytepair speed vs HF", "r"), ("HF MB/s, all fields", "r"), ("bytepair MB/s, all fields", "r"),
                  ("bytepair speed vs HF, all fields", "r"), ("the same by CPU time", "r"),
                  ("line by line, ids (CPU)", "r"), ("line by line, all fields (CPU)", "r"), ("sentencepiece MB/s", "r"),
                  ("bytepair spm MB/s", "r"), ("bytepair speed vs sentencepiece", "r"),
                  ("same ids, tokens and offsets as HF", "l"), ("same ids as sentencepiece", "l")], encode_table),
        "### Training with UnigramTrainer (`train_from_iterator` after Metaspace, counting included)",
        md_table([("corpus", "l"), ("MB", "r"), ("vocab", "r"), ("HF s", "r"), ("bytepair s", "r"),
                  ("bytepair time vs HF", "r"), ("pieces in both", "r")], train_table),
        WHERE_TIME_GOES,
    ])
    if args.no_write:
        print(markdown)
    else:
        replace_section(PERFORMANCE, "unigram", markdown)
        log(f"wrote the unigram section of {PERFORMANCE}")
    if mismatches:
        log(f"MISMATCH: ids differ for {', '.join(mismatches)}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
