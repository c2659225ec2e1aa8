"""``bytepair encode-corpus INPUT... -o DIR [--encoding NAME | --tokenizer PATH] [--processes N]
[--shard-tokens N] [--jsonl-field text]``: the command-line face of ``bytepair.encode_corpus``.

Writes ``DIR/shard_00000.bin``, ... and ``DIR/manifest.json`` (see ``corpus/``), shows a progress bar
on stderr when it is a terminal, and prints a summary (documents, tokens, shards, MB/s).
Run again with the same arguments after a kill or Ctrl-C, it keeps the complete shards and redoes the
rest; a folder made from other inputs or another tokenizer is refused (exit 1).
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any, BinaryIO

__all__ = ["COMMANDS", "add_parsers", "run"]

COMMANDS = ("encode-corpus",)


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, not {value!r}")
    return number


def add_parsers(sub: Any) -> None:
    from ..corpus import DEFAULT_SHARD_TOKENS

    p = sub.add_parser("encode-corpus", help="encode text, .jsonl(.gz/.zst) or .parquet files into token shards (uint16/uint32 .bin + manifest.json)")
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="a plain-text file (one document), .jsonl (one document per line; .gz, .zst) or .parquet (one per row)")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="folder for shard_NNNNN.bin and manifest.json")
    pick = p.add_mutually_exclusive_group()
    pick.add_argument("-e", "--encoding", metavar="NAME", default=None, help="encoding name (default o200k_base); see `bytepair list`")
    pick.add_argument("-t", "--tokenizer", metavar="PATH", default=None, help="a Hugging Face tokenizer.json or a folder holding one")
    p.add_argument("--processes", type=_positive, default=None, metavar="N", help="worker processes (default: every core)")
    p.add_argument("--shard-tokens", type=_positive, default=DEFAULT_SHARD_TOKENS, metavar="N",
                   help=f"ids per shard (default {DEFAULT_SHARD_TOKENS:,}); a document is split only when it alone is longer")
    p.add_argument("--jsonl-field", default="text", metavar="NAME", help="the text field of .jsonl lines and column of .parquet files (default text)")


def run(args: argparse.Namespace, out: BinaryIO) -> int:
    from ..corpus import encode_corpus

    start = time.perf_counter()
    manifest = encode_corpus(args.inputs, args.output, encoding=args.encoding, tokenizer=args.tokenizer,
                             processes=args.processes, shard_tokens=args.shard_tokens, jsonl_field=args.jsonl_field)
    seconds = time.perf_counter() - start
    shards = manifest["shards"]
    megabytes = sum(record["bytes"] for record in manifest["inputs"]) / 1e6
    out.write((
        f"{sum(s['documents'] for s in shards):,} documents, {sum(s['tokens'] for s in shards):,} tokens "
        f"({manifest['dtype']}) in {len(shards)} shards, {seconds:.2f} s ({megabytes / max(seconds, 1e-9):.3g} MB/s of input); "
        f"wrote {os.path.join(args.output, 'manifest.json')}\n").encode("utf-8"))
    return 0
