"""Encode a corpus into token shards on a Dask cluster: ``bytepair.encode_corpus`` with its chunks run
by Dask workers.

Why it is byte-identical to one process: ``encode_corpus`` cuts the documents into chunks the same
way whatever runs them, each worker writes its chunk's ids to a part file, and the client packs the
parts into shards in document order. Dask only replaces the process pool (``client.get_executor()``),
so the workers must see the output folder *and the inputs*: a worker writes its part files into
``-o``, and it reads a small plain-text input's bytes itself (``.jsonl`` and ``.parquet`` documents, and
the blocks of a document over ``bytepair.corpus.CHUNK_CHARS`` characters, are read by the client and
sent). A LocalCluster sees both; on a real cluster put the inputs and ``-o`` on a
shared filesystem, under the same paths on every machine.

    python examples/dask_encode.py data/*.jsonl -o shards/ --encoding cl100k_base
    python examples/dask_encode.py /shared/data/*.txt -o /shared/shards --scheduler tcp://host:8786 --tokenizer tokenizer.json

Without ``--scheduler`` a LocalCluster of ``--workers`` processes is started. Run it again after a
kill: it resumes as ``bytepair encode-corpus`` does. Dask is an optional extra
(``pip install 'bytepair[dask]'``), not a dependency of bytepair.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

import bytepair
from bytepair.corpus import DEFAULT_SHARD_TOKENS


def encode_with_dask(client: Any, inputs: Sequence[str], out_dir: str, **options: Any) -> dict[str, Any]:
    """``bytepair.encode_corpus`` with the chunks encoded on ``client``'s workers; returns the manifest."""
    workers = max(1, len(client.scheduler_info()["workers"]))
    return bytepair.encode_corpus(inputs, out_dir, executor=client.get_executor(), processes=workers, **options)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("inputs", nargs="+", help="text, .jsonl(.gz/.zst) or .parquet files")
    parser.add_argument("-o", "--output", required=True, help="folder for the shards and manifest.json")
    pick = parser.add_mutually_exclusive_group()
    pick.add_argument("--encoding", default=None, help="encoding name (default o200k_base)")
    pick.add_argument("--tokenizer", default=None, help="a tokenizer.json or a folder holding one")
    parser.add_argument("--shard-tokens", type=int, default=DEFAULT_SHARD_TOKENS)
    parser.add_argument("--jsonl-field", default="text")
    parser.add_argument("--scheduler", default=None, help="address of a running Dask scheduler (tcp://host:8786)")
    parser.add_argument("--workers", type=int, default=2, help="LocalCluster workers when no --scheduler")
    args = parser.parse_args(argv)

    from dask.distributed import Client, LocalCluster

    start = time.perf_counter()
    cluster = None if args.scheduler else LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                                                       dashboard_address=None)
    try:
        with Client(args.scheduler or cluster) as client:
            manifest = encode_with_dask(client, args.inputs, args.output, encoding=args.encoding,
                                        tokenizer=args.tokenizer, shard_tokens=args.shard_tokens,
                                        jsonl_field=args.jsonl_field)
    finally:
        if cluster is not None:
            cluster.close()
    tokens = sum(shard["tokens"] for shard in manifest["shards"])
    print(f"{tokens:,} tokens in {len(manifest['shards'])} shards, {time.perf_counter() - start:.1f} s; wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
