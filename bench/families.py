"""Section ``families`` of docs/PERFORMANCE.md: the subword families other than BPE (WordPiece,
WordLevel, and any family a row is added for) beside HF ``tokenizers``: encoding speed on a first
pass over new text, and training time with HF's trainer objects.

    .venv/bin/python -m bench families              # writes the `families` section
    .venv/bin/python -m bench families --no-write --repeats 3

HF single-threaded (``RAYON_NUM_THREADS=1``, set before HF is imported). A first pass is one
``encode(text, add_special_tokens=False)`` of a whole corpus file by a tokenizer loaded just before
from the same ``tokenizer.json`` (so no piece is cached): first in fresh processes (what a user gets
first: ``tokenizer_json_child.py``, the libraries taking turns), then in this process; the ids of
both are compared. Training is ``Tokenizer.train_from_iterator(lines, trainer)`` from a new model,
counting included. Times are medians of ``--repeats`` runs, the libraries taking turns.

Extending: each family is a row in ``ENCODE_ROWS`` (a function building its ``tokenizer.json``, and
the corpus files) or ``TRAIN_ROWS`` (a function training it with a library's own trainer objects).
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
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from bench.common import (CORE, CORPUS, HF_DIR, PERFORMANCE, all_fields, command_line, import_snapshot,  # noqa: E402
                          lines_with_fields, load_corpus, log, md_table, parser, replace_section, snapshot_package,
                          timed_both, write_texts)
from bench.tokenizer_json_measure import FRESH_COLUMNS, FRESH_TEXT, Fresh, fresh_cells, fresh_first_passes  # noqa: E402

sys.path.insert(0, str(CORE))

CORPUS_NAMES = ("en", "de", "fr", "el_cs_bg_pt", "code_python")
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def _lines(corpus: dict[str, str], names: Sequence[str]) -> list[str]:
    return [line for name in names for line in corpus[name].splitlines()]


def bert_wordpiece_json(corpus: dict[str, str]) -> str:
    """A BERT-style file (BertNormalizer, BertPreTokenizer, WordPiece 16k, BERT's template), trained by HF."""
    import tokenizers as tk

    tok = tk.Tokenizer(tk.models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = tk.normalizers.BertNormalizer()
    tok.pre_tokenizer = tk.pre_tokenizers.BertPreTokenizer()
    tok.decoder = tk.decoders.WordPiece()
    tok.train_from_iterator(_lines(corpus, ("en", "de", "fr")),
                            tk.trainers.WordPieceTrainer(vocab_size=16000, special_tokens=SPECIALS, show_progress=False))
    return tok.to_str()


def wordlevel_json(corpus: dict[str, str]) -> str:
    """A WordLevel file over Whitespace words (20k), trained by HF."""
    import tokenizers as tk

    tok = tk.Tokenizer(tk.models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = tk.pre_tokenizers.Whitespace()
    tok.train_from_iterator(_lines(corpus, ("en", "de", "fr")),
                            tk.trainers.WordLevelTrainer(vocab_size=20000, special_tokens=SPECIALS, show_progress=False))
    return tok.to_str()


def gpt2_json(corpus: dict[str, str]) -> str:
    """GPT-2's published ``tokenizer.json`` (BPE; ``make hf-data`` puts it in build/cache/hf): a row
    for reference, where the BPE path's per-call cost shows beside the other families'."""
    path = HF_DIR / "gpt2" / "tokenizer.json"
    if not path.is_file():
        raise SystemExit(f"no {path}: run `make hf-data`")
    return path.read_text(encoding="utf-8")


@dataclass
class EncodeRow:
    """One family's file and the corpus files it encodes."""

    family: str
    build: Callable[[dict[str, str]], str]
    corpus: Sequence[str] = CORPUS_NAMES


def _train(lib: Any, family: str, lines: list[str], vocab_size: int) -> Any:
    """``lib`` (``tokenizers`` or ``bytepair``) trains ``family`` on ``lines`` with BERT's normalizer
    and pre-tokenizer (Whitespace for WordLevel)."""
    models, trainers = lib.models, lib.trainers
    model = {"WordPiece": lambda: models.WordPiece(unk_token="[UNK]"),
             "WordLevel": lambda: models.WordLevel(unk_token="[UNK]"),
             "BPE": lambda: models.BPE() if lib.__name__ == "tokenizers" else models.BPE({}, [])}[family]()
    tok = lib.Tokenizer(model)
    tok.normalizer = lib.normalizers.BertNormalizer()
    tok.pre_tokenizer = lib.pre_tokenizers.Whitespace() if family == "WordLevel" else lib.pre_tokenizers.BertPreTokenizer()
    trainer = getattr(trainers, {"BPE": "BpeTrainer"}.get(family, family + "Trainer"))(
        vocab_size=vocab_size, special_tokens=SPECIALS, show_progress=False)
    tok.train_from_iterator(lines, trainer)
    return tok


@dataclass
class TrainRow:
    """One family trained by both libraries on the same lines."""

    family: str
    vocab_size: int
    corpus: Sequence[str] = ("en", "de", "fr")
    train: Callable[[Any, str, list[str], int], Any] = _train


ENCODE_ROWS: list[EncodeRow] = [EncodeRow("WordPiece (BERT-style, 16k)", bert_wordpiece_json),
                                EncodeRow("WordLevel (20k)", wordlevel_json),
                                EncodeRow("BPE (GPT-2's tokenizer.json, for reference)", gpt2_json, ("en", "de", "code_python"))]
TRAIN_ROWS: list[TrainRow] = [TrainRow("WordPiece", 8000), TrainRow("WordPiece", 30000), TrainRow("BPE", 8000),
                              TrainRow("WordLevel", 30000)]


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def bench_fresh(rows: Sequence[EncodeRow], jsons: dict[str, str], corpus: dict[str, str], work: Path,
                repeats: int) -> list[list[str]]:
    """New text in a new process (what a user gets first): HF and bytepair each import, load the
    row's ``tokenizer.json`` and encode a whole file once, ids only and every field read."""
    import bytepair


    files = write_texts({name: corpus[name] for row in rows for name in row.corpus}, work / "corpus")
    fresh = Fresh(work, work / "code", Path(bytepair.__file__).parent)
    table = []
    for k, row in enumerate(rows):
        json_path = work / f"family-{k}.json"
        json_path.write_text(jsons[row.family], encoding="utf-8")
        for name in row.corpus:
            mb = len(corpus[name].encode("utf-8")) / 1e6
            got = fresh_first_passes(fresh, json_path, files[name], repeats)
            table.append([row.family, name, f"{mb:.2f}", *fresh_cells(f"{row.family} {name}", got, mb)])
    return table


def bench_encode(rows: Sequence[EncodeRow], jsons: dict[str, str], corpus: dict[str, str],
                 repeats: int) -> tuple[list[list[str]], list[str]]:
    import bytepair
    import tokenizers

    table, mismatches = [], []
    for row in rows:
        text_json = jsons[row.family]
        for name in row.corpus:
            text = corpus[name]
            times: dict[str, list[float]] = {"hf": [], "bytepair": [], "hf-all": [], "bytepair-all": [],
                                             "hf-all-cpu": [], "bytepair-all-cpu": [], "hf-lines": [], "bytepair-lines": [],
                                             "hf-lines-ids": [], "bytepair-lines-ids": []}
            ids: dict[str, list[int]] = {}
            for _ in range(repeats):
                for lib, module in (("hf", tokenizers), ("bytepair", bytepair)):
                    tok = module.Tokenizer.from_str(text_json)
                    seconds, encoding = timed(lambda: tok.encode(text, add_special_tokens=False))
                    times[lib].append(seconds)
                    ids[lib] = encoding.ids
                    # Every field read (bytepair builds tokens, offsets and word ids when first read):
                    tok = module.Tokenizer.from_str(text_json)
                    seconds, cpu = timed_both(lambda: all_fields(tok.encode(text, add_special_tokens=False)))
                    times[lib + "-all"].append(seconds)
                    times[lib + "-all-cpu"].append(cpu)
                    times[lib + "-lines"].append(lines_with_fields(module, text_json, text)[1])
                    times[lib + "-lines-ids"].append(lines_with_fields(module, text_json, text, fields=False)[1])
            if ids["hf"] != ids["bytepair"]:
                mismatches.append(f"{row.family} {name}")
            mb = len(text.encode("utf-8")) / 1e6
            hf, ours = statistics.median(times["hf"]), statistics.median(times["bytepair"])
            hf_all, ours_all = statistics.median(times["hf-all"]), statistics.median(times["bytepair-all"])
            hf_cpu, ours_cpu = statistics.median(times["hf-all-cpu"]), statistics.median(times["bytepair-all-cpu"])
            hf_lines, ours_lines = statistics.median(times["hf-lines"]), statistics.median(times["bytepair-lines"])
            hf_lines_ids, ours_lines_ids = statistics.median(times["hf-lines-ids"]), statistics.median(times["bytepair-lines-ids"])
            log(f"{row.family} {name}: hf {hf:.3f}s bytepair {ours:.3f}s; every field: hf {hf_all:.3f}s bytepair {ours_all:.3f}s")
            table.append([row.family, name, f"{mb:.2f}", f"{len(ids['hf']):,}", f"{mb / hf:.2f}", f"{mb / ours:.2f}",
                          f"{hf / ours:.2f}×", f"{mb / hf_all:.2f}", f"{mb / ours_all:.2f}", f"{hf_all / ours_all:.2f}×",
                          f"{hf_cpu / ours_cpu:.2f}×", f"{hf_lines_ids / ours_lines_ids:.2f}×", f"{hf_lines / ours_lines:.2f}×",
                          "yes" if ids["hf"] == ids["bytepair"] else "**no**"])
    return table, mismatches


def bench_train(rows: Sequence[TrainRow], corpus: dict[str, str], repeats: int) -> list[list[str]]:
    import bytepair
    import tokenizers

    table = []
    for row in rows:
        lines = _lines(corpus, row.corpus)
        times: dict[str, list[float]] = {"hf": [], "bytepair": []}
        vocabs: dict[str, set[str]] = {}
        for _ in range(repeats):
            for lib, module in (("hf", tokenizers), ("bytepair", bytepair)):
                seconds, tok = timed(lambda: row.train(module, row.family, lines, row.vocab_size))
                times[lib].append(seconds)
                vocabs[lib] = set(tok.get_vocab())
        hf, ours = statistics.median(times["hf"]), statistics.median(times["bytepair"])
        log(f"train {row.family} {row.vocab_size}: hf {hf:.2f}s bytepair {ours:.2f}s")
        same = len(vocabs["hf"] & vocabs["bytepair"])
        table.append([row.family, f"{row.vocab_size:,}", "+".join(row.corpus),
                      f"{sum(len(corpus[n].encode('utf-8')) for n in row.corpus) / 1e6:.2f}",
                      f"{hf:.2f}", f"{ours:.2f}", f"{ours / hf:.2f}×", f"{same:,} of {len(vocabs['hf']):,}"])
    return table


def main(argv: Sequence[str] | None = None) -> int:
    args_parser = parser("families", __doc__)
    args_parser.add_argument("--repeats", type=int, default=5)
    args_parser.add_argument("--no-write", action="store_true", help="print the section instead of writing it")
    args = args_parser.parse_args(argv)
    corpus = load_corpus(CORPUS, None)
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bytepair-bench-families-") as tmp:
        work = Path(tmp)
        code_description = snapshot_package("worktree", work / "code")
        import_snapshot(work / "code")  # (this process and the fresh ones time the same code)
        jsons = {}
        for row in ENCODE_ROWS:
            log(f"building {row.family}")
            jsons[row.family] = row.build(corpus)
        fresh_table = bench_fresh(ENCODE_ROWS, jsons, corpus, work, args.repeats)
        encode_table, mismatches = bench_encode(ENCODE_ROWS, jsons, corpus, args.repeats)
    train_table = bench_train(TRAIN_ROWS, corpus, max(1, args.repeats // 2 + 1))
    markdown = "\n\n".join([
        "## Families: WordPiece and WordLevel beside HF tokenizers (and BPE for reference)",
        f"Command: `{command_line()}`; the first table from fresh processes, the others with both libraries in one process; HF single-threaded "
        "(`RAYON_NUM_THREADS=1`); medians, the libraries taking turns; load average "
        f"{load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end, on {os.cpu_count()} cores; "
        f"bytepair: {code_description}.",
        "### First pass: new text in a fresh process",
        FRESH_TEXT,
        md_table([("file", "l"), ("text", "l"), ("MB", "r"), *FRESH_COLUMNS], fresh_table),
        "### First pass in one process: a fresh tokenizer encodes a whole corpus file; line by line",
        "The same files in the benchmark's own process, each run from a new tokenizer (no piece cached, but the "
        "process warm). `.ids` only (bytepair builds the other fields when first read; HF in `encode`), then every "
        "field read (tokens, offsets, word ids, masks); then the file's lines one `encode(line)` call each (special "
        "tokens added, as by default), `.ids` only and every field read, each from a fresh tokenizer (what a user "
        "encoding sentences gets: each call's own cost counts):",
        md_table([("file", "l"), ("text", "l"), ("MB", "r"), ("tokens", "r"), ("HF MB/s", "r"), ("bytepair MB/s", "r"),
                  ("bytepair speed vs HF", "r"), ("HF MB/s, all fields", "r"), ("bytepair MB/s, all fields", "r"),
                  ("bytepair speed vs HF, all fields", "r"), ("the same by CPU time", "r"),
                  ("line by line, ids (CPU)", "r"), ("line by line, all fields (CPU)", "r"), ("same ids", "l")],
                 encode_table),
        "Ids come through the engine's piece cache (one lookup per new word, whole words taken at once). "
        "The other fields are built when first read, from a second pass over the text that reads what "
        "the first left: BertNormalizer's output and BertPreTokenizer's pieces with the text between them "
        "(`bulk.LastText`; found by `re.split` with the pattern in a group, so their starts and ends are "
        "one running sum of lengths; other pre-tokenizers split again that way). Then C loops over the words "
        "(`pipeline/piece_fields.py`): a word of one token spans its piece as it stands; the cuts inside "
        "WordPiece's words of several tokens (their text in order) come from a running sum of per-id "
        "widths over those words only, merged into the words' bounds by a sort of two sorted runs; other "
        "models' words are worked out once per distinct word and kept (bounded in bytes, emptied with the "
        "piece cache); BertNormalizer's alignment is kept as the few characters it does not map to one "
        "character (`normalizers/edits.py`). Line by line (the last column reads every field), the ids and the type ids, "
        "special-tokens mask and sequence ids come from the ids' pass, through the post-processor's layout (its "
        "special tokens and the texts in order: they depend on the texts' token counts alone); tokens, offsets and word ids are a second pass through the "
        "stages (a part of up to 256 words put together word by word), a cost every short call pays that "
        "HF's `encode` has not.",
        "### Training with HF's trainer objects (`train_from_iterator`, counting included)",
        md_table([("family", "l"), ("vocab", "r"), ("corpus", "l"), ("MB", "r"), ("HF s", "r"), ("bytepair s", "r"),
                  ("bytepair time vs HF", "r"), ("tokens in both", "r")], train_table),
    ])
    if args.no_write:
        print(markdown)
    else:
        replace_section(PERFORMANCE, "families", markdown)
        log(f"wrote the families section of {PERFORMANCE}")
    if mismatches:
        log(f"MISMATCH: ids differ from HF for {', '.join(mismatches)}")
        return 1
    return 0
