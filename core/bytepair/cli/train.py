"""``bytepair train`` and ``bytepair train-classic``: the command-line face of training.

``bytepair train FILE... --vocab-size N [--pattern NAME|REGEX] [--special TOKEN]... [--min-frequency K]
[--max-token-length L] [--base tokenizer.json] -o tokenizer.json`` reads the files line by line
(UTF-8, line ends kept, as HF's trainer reads files), shows progress on stderr when it is a terminal,
writes the tokenizer.json and prints a summary (time, merges, bytes per token on the input) to stderr.
``bytepair train-classic FILE... --merges N -o model.json`` learns classic BPE over the
whitespace-separated words of the files.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from ..errors import InputDecodeError

__all__ = ["add_parsers", "run"]

COMMANDS = ("train", "train-classic")


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("train", help="train a byte-level BPE tokenizer.json (Hugging Face's merges)")
    p.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files")
    p.add_argument("--vocab-size", type=int, required=True, metavar="N", help="vocabulary size, special tokens included")
    p.add_argument("--pattern", default=None, metavar="NAME|REGEX",
                   help="encoding name whose regex cuts the text (gpt2, cl100k_base, o200k_base ...) or a regex; "
                        "default o200k_base (or the base's)")
    p.add_argument("--special", action="append", default=[], metavar="TOKEN", help="a special token (repeatable)")
    p.add_argument("--min-frequency", type=int, default=0, metavar="K", help="stop when the best pair occurs fewer times")
    p.add_argument("--max-token-length", type=int, default=None, metavar="L", help="HF's limit on token length (characters)")
    p.add_argument("--base", default=None, metavar="PATH", help="extend this tokenizer.json, or a folder holding one (its ids and merges stay)")
    p.add_argument("-o", "--output", required=True, metavar="PATH", help="where to write tokenizer.json")
    p = sub.add_parser("train-classic", help="train classic BPE (words + </w>) over whitespace-separated words")
    p.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files")
    p.add_argument("--merges", type=int, required=True, metavar="N", help="number of merges")
    p.add_argument("-o", "--output", required=True, metavar="PATH", help="where to write the model (JSON)")


def _lines(paths: Sequence[str]) -> Iterator[str]:
    for path in paths:
        with open(path, encoding="utf-8", newline="") as f:
            try:
                yield from f
            except UnicodeDecodeError as exc:
                raise InputDecodeError(f"{path}: not UTF-8 (bad byte {exc.object[exc.start]:#04x}); convert it to UTF-8 first") from None


def _say(message: str) -> None:
    sys.stderr.write(f"bytepair: {message}\n")
    sys.stderr.flush()


def run(args: argparse.Namespace) -> int:
    from ..trainers import train_classic
    from ..training import train_from_counts
    from ..trainers.counts import count_with, resolve_pattern
    from ..trainers.progress import Reporter

    start = time.perf_counter()
    if args.command == "train-classic":
        words: Counter[str] = Counter()
        for line in _lines(args.files):
            words.update(line.split())
        model = train_classic(words, args.merges)
        model.save(args.output)
        _say(f"{len(model.merges)} merges from {len(words)} distinct words in {time.perf_counter() - start:.1f} s; "
             f"wrote {args.output}")
        return 0
    from ..tokenizer import Tokenizer

    # A folder holding tokenizer.json is taken too, as -t and `manifest` take it.
    base = None if not args.base else Tokenizer.from_pretrained(args.base) if os.path.isdir(args.base) else Tokenizer.from_file(args.base)
    if base is not None:
        from ..trainers.extend import BaseModel

        split = BaseModel(base, args.pattern).split
    else:
        split = resolve_pattern("o200k_base" if args.pattern is None else args.pattern).split
    reporter = Reporter()
    reporter.stage("count", None)
    counts = count_with(_lines(args.files), split, on_text=reporter.update if reporter.active else None)
    reporter.close()
    tok = train_from_counts(counts, args.vocab_size, pattern=args.pattern, special_tokens=args.special,
                            min_frequency=args.min_frequency, max_token_length=args.max_token_length, base=base)
    seconds = time.perf_counter() - start
    tok.save(args.output)
    merges = len(json.loads(tok.to_str())["model"]["merges"])
    n_bytes = sum(len(piece.encode("utf-8", "replace")) * c for piece, c in counts.items())
    n_tokens = sum(tok.count(piece) * c for piece, c in counts.items())
    _say(f"{merges} merges, vocabulary {tok.get_vocab_size()}, in {seconds:.1f} s; "
         f"{n_bytes / max(n_tokens, 1):.2f} bytes per token on the input ({n_tokens} tokens); wrote {args.output}")
    return 0
