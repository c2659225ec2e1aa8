"""One trainer of section ``training``, in a fresh process: ``python bench/training_child.py TRAINER VOCAB``.

Why a script of its own: each trainer's CPU time, wall time and peak RSS are read from the process
that ran it alone (``resource.getrusage``), so that process holds the interpreter, the corpus lines
and one trainer, and imports no module of the benchmark's own beyond this one (and the minbpe-style
baseline when that is the trainer). ``training.py`` starts it with ``core/`` and the repository on
``PYTHONPATH``; it prints one JSON object on stdout.
"""

from __future__ import annotations

import json
import lzma
import resource
import sys
import time
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "corpus"


def corpus_lines() -> list[str]:
    """Every line of every bench/corpus file, in file-name order (line ends kept)."""
    lines: list[str] = []
    for path in sorted(CORPUS.glob("*.txt.xz")):
        lines.extend(lzma.open(path, "rt", encoding="utf-8").read().splitlines(keepends=True))
    return lines


def train(name: str, lines: list[str], vocab: int) -> int:
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

        from bench.minbpe_style import train_minbpe_style

        return len(train_minbpe_style(bytepair.count_pieces(lines, "gpt2"), vocab))
    raise SystemExit(f"unknown trainer {name}")


def child(name: str, vocab: int) -> None:
    lines = corpus_lines()
    before = resource.getrusage(resource.RUSAGE_SELF)
    wall = time.perf_counter()
    merges = train(name, lines, vocab)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(json.dumps({"cpu": cpu, "wall": wall, "rss_mb": after.ru_maxrss / 1024, "merges": merges}))


if __name__ == "__main__":
    child(sys.argv[1], int(sys.argv[2]))
