"""A corpus to training-ready token shards: ``encode_corpus`` (``bytepair encode-corpus`` on the
command line), on every core or a Dask cluster, with ids identical to one process, resumable.

``encode.py`` runs it, ``documents.py`` says what the documents of a file are, ``faces.py`` which
tokenizer and how a worker gets it, ``shards.py`` how the ids are packed and where a killed run
starts again. Read the shards back with ``read_shards`` (or ``numpy.memmap``).
"""

from __future__ import annotations

import json
import os
import sys
from array import array
from collections.abc import Iterator

from .encode import CHUNK_CHARS, DEFAULT_SHARD_TOKENS, encode_corpus
from .shards import MANIFEST

__all__ = ["CHUNK_CHARS", "DEFAULT_SHARD_TOKENS", "encode_corpus", "read_shards"]


def read_shards(out_dir: str | os.PathLike[str]) -> Iterator[array]:
    """The ids of each shard ``encode_corpus`` wrote into ``out_dir``, in manifest order, as
    ``array``s (numpy-free; ``numpy.memmap(path, dtype=manifest["dtype"])`` reads them too)."""
    folder = os.fspath(out_dir)
    with open(os.path.join(folder, MANIFEST), encoding="utf-8") as f:
        manifest = json.load(f)
    for shard in manifest["shards"]:
        ids = array("H" if manifest["dtype"] == "uint16" else "I")
        with open(os.path.join(folder, shard["file"]), "rb") as f:
            ids.frombytes(f.read())
        if sys.byteorder == "big":
            ids.byteswap()
        yield ids
