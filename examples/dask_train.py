"""Train a byte-level BPE tokenizer on files counted by Dask workers.

Why: counting pieces is the only pass over the corpus, and piece counts add up, so the corpus can be
counted wherever it lives and only the (small) counts travel. Each Dask partition is counted with
``bytepair.count_pieces``; the Counters are summed; ``bytepair.train_from_counts`` trains on the sum
and gives the very tokenizer ``bytepair.train`` would give on the whole corpus read in one process.

    python examples/dask_train.py data/*.txt --vocab-size 8000 --pattern gpt2 -o tokenizer.json
    python examples/dask_train.py 's3://bucket/shards/*.txt' --scheduler tcp://host:8786 ...

Without ``--scheduler`` a LocalCluster is started (``--workers`` processes). Dask is an optional
extra (``pip install 'bytepair[dask]'``), not a dependency of bytepair.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import bytepair


def _count_partition(lines: Iterable[str], pattern: str) -> list[Counter[str]]:
    return [bytepair.count_pieces(lines, pattern)]


def _add(a: Counter[str], b: Counter[str]) -> Counter[str]:
    # A new Counter: fold's ``initial`` is one object shared by the partitions of a worker's threads.
    out = a.copy()
    out.update(b)
    return out


def count_with_dask(paths: str | Sequence[str], pattern: str, *, blocksize: str | int | None = "16MiB") -> Counter[str]:
    """Piece counts of the files' lines (line ends kept, as ``bytepair train`` reads them), on the
    current Dask client (or Dask's default scheduler)."""
    import dask.bag as db

    bag = db.read_text(paths, encoding="utf-8", blocksize=blocksize)
    partials = bag.map_partitions(_count_partition, pattern)
    return partials.fold(_add, _add, initial=Counter()).compute()


def train_with_dask(paths: str | Sequence[str], vocab_size: int, *, pattern: str = "o200k_base",
                    **options: Any) -> bytepair.Tokenizer:
    """``bytepair.train`` over files, the counting done by Dask."""
    counts = count_with_dask(paths, pattern)
    return bytepair.train_from_counts(counts, vocab_size, pattern=pattern, **options)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", help="text files or globs (any fsspec URL Dask reads)")
    parser.add_argument("--vocab-size", type=int, required=True)
    parser.add_argument("--pattern", default="o200k_base")
    parser.add_argument("--special", action="append", default=[])
    parser.add_argument("--min-frequency", type=int, default=0)
    parser.add_argument("--scheduler", default=None, help="address of a running Dask scheduler")
    parser.add_argument("--workers", type=int, default=2, help="LocalCluster workers when no --scheduler")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args(argv)

    from dask.distributed import Client, LocalCluster

    start = time.perf_counter()
    cluster = None if args.scheduler else LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True)
    with Client(args.scheduler or cluster) as client:
        print(f"dask: {client.dashboard_link}")
        tok = train_with_dask(args.files, args.vocab_size, pattern=args.pattern, special_tokens=args.special,
                              min_frequency=args.min_frequency)
    if cluster is not None:
        cluster.close()
    tok.save(args.output)
    print(f"vocabulary {tok.get_vocab_size()} in {time.perf_counter() - start:.1f} s; wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
