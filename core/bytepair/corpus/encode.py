"""``bytepair.encode_corpus``: a corpus of files to training-ready token shards, on every core (or a
Dask cluster), exact, resumable.

Why this shape: one pure-Python core encodes a few MB/s, so the documents go to workers in chunks
of about :data:`CHUNK_CHARS` characters. Each worker encodes its chunk and writes the ids itself,
packed, into ``DIR/.parts/`` (never sending millions of ints back through pickling); the process
that owns ``DIR`` packs the parts into shards in document order (``shards.py``), so the shards are
byte-identical for any number of workers, any executor and after any resume. A worker holds one
chunk (a plain-text file is read in blocks): its memory is bounded by ``CHUNK_CHARS`` and the
tokenizer. At most two chunks per worker are in flight.

>>> import tempfile, os, numpy
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "a.txt")
>>> _ = open(path, "w").write("hello world")
>>> manifest = encode_corpus([path], os.path.join(folder, "out"), encoding="gpt2", processes=1, progress=False)
>>> manifest["dtype"], manifest["shards"], manifest["complete"]
('uint16', [{'file': 'shard_00000.bin', 'tokens': 3, 'documents': 1}], True)
>>> numpy.memmap(os.path.join(folder, "out", "shard_00000.bin"), dtype=manifest["dtype"]).tolist()
[31373, 995, 50256]
"""

from __future__ import annotations

import os
import shutil
import sys
from array import array
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future
from typing import Any

from ..encoding import Encoding
from ..errors import InvalidInputError
from ..tokenizer import Tokenizer
from ..parallel import process_context
from . import faces
from .documents import FileDocument, documents, input_record, kind_of
from .shards import MANIFEST, OPTIONS, ShardWriter, resume_point, write_json

__all__ = ["CHUNK_CHARS", "DEFAULT_SHARD_TOKENS", "encode_chunk", "encode_corpus"]

DEFAULT_SHARD_TOKENS = 100_000_000
"""Ids per shard unless asked otherwise (FineWeb's and nanoGPT's shards hold 100 M)."""
CHUNK_CHARS = 1 << 20
"""About this many characters of documents go to a worker at a time."""

Chunk = list["str | FileDocument"]


def encode_chunk(spec: faces.WorkerSpec, chunk: Chunk, part: str, dtype: str, eot: int) -> tuple[bytes, int]:
    """Encode a chunk's documents, each followed by ``eot``, into the file ``part``; return each
    document's id count (packed ``array('Q')``) and the chunk's size in UTF-8 bytes. Runs in a
    worker (any process that sees ``part``'s folder)."""
    face = faces.load(spec)
    counts = array("Q")
    size = 0
    with open(part, "wb") as out:
        for document in chunk:
            n = 0
            for run in faces.document_ids(face, document):
                ids = array("H" if dtype == "uint16" else "I", run)
                if sys.byteorder == "big":
                    ids.byteswap()
                ids.tofile(out)
                n += len(ids)
            array("H" if dtype == "uint16" else "I", [eot]).tofile(out)  # < 2**16 when dtype is uint16
            counts.append(n + 1)
            size += document.size if isinstance(document, FileDocument) else len(document.encode("utf-8", "surrogatepass"))
    return counts.tobytes(), size


def encode_corpus(
    inputs: Sequence[str | os.PathLike[str]],
    out_dir: str | os.PathLike[str],
    *,
    encoding: str | Encoding | None = None,
    tokenizer: str | os.PathLike[str] | Tokenizer | None = None,
    processes: int | None = None,
    shard_tokens: int = DEFAULT_SHARD_TOKENS,
    jsonl_field: str = "text",
    progress: bool | None = None,
    executor: Executor | None = None,
) -> dict[str, Any]:
    """Encode the documents of ``inputs`` (in order) into ``out_dir/shard_NNNNN.bin`` and
    ``out_dir/manifest.json``; return the manifest.

    ``processes``: worker processes (default: every core; 1 encodes in this process);
    ``executor``: run the chunks there instead (e.g. a Dask ``client.get_executor()``: its workers
    must see ``out_dir``); ``progress``: a tqdm bar on stderr (default: when stderr is a terminal).
    Run again with the same arguments after a kill, it keeps the complete shards and redoes the rest.
    """
    paths = _inputs(inputs)
    if not isinstance(shard_tokens, int) or isinstance(shard_tokens, bool) or shard_tokens < 1:
        raise InvalidInputError(f"shard_tokens must be a positive int, not {shard_tokens!r}")
    if processes is not None and (not isinstance(processes, int) or processes < 1):
        raise InvalidInputError(f"processes must be a positive int (or None for every core), not {processes!r}")
    face = faces.resolve(encoding=encoding, tokenizer=tokenizer)
    folder = os.fspath(out_dir)
    os.makedirs(folder, exist_ok=True)
    header = {"dtype": faces.dtype_for(face), "eot": faces.end_of_text(face), "tokenizer": faces.identity(face),
              "inputs": [input_record(path) for path in paths]}
    options = {"shard_tokens": shard_tokens, "jsonl_field": jsonl_field}
    shards = resume_point(folder, header, options)
    manifest = {**header, "shards": shards, "complete": False}
    write_json(os.path.join(folder, OPTIONS), options)
    write_json(os.path.join(folder, MANIFEST), manifest)
    parts = os.path.join(folder, ".parts")
    shutil.rmtree(parts, ignore_errors=True)
    os.makedirs(parts)
    spec = faces.worker_spec(face, parts)

    def closed(shard: dict[str, Any]) -> None:
        shards.append(shard)
        write_json(os.path.join(folder, MANIFEST), manifest)

    writer = ShardWriter(folder, len(shards), shard_tokens, header["dtype"], closed)
    skip = sum(shard["documents"] for shard in shards)
    chunks = _chunks((doc for path in paths for doc in documents(path, jsonl_field)), skip)
    bar: Any = None  # None: not made yet; False: none wanted
    try:
        for (counts, size), part in _run(chunks, spec, parts, header, processes, executor):
            writer.add_part(part, array("Q", counts))
            if bar is None:  # made once the workers run: tqdm's monitor thread must not be forked
                bar = _progress(progress, paths, skip == 0)
            if bar is not False:
                bar.update(size)
                bar.set_postfix(tokens=f"{sum(s['tokens'] for s in shards) + writer.tokens:,}", refresh=False)
        writer.finish()
    finally:
        if bar is not None and bar is not False:
            bar.close()
    manifest["complete"] = True
    write_json(os.path.join(folder, MANIFEST), manifest)
    shutil.rmtree(parts, ignore_errors=True)
    return manifest


def _inputs(inputs: Sequence[str | os.PathLike[str]]) -> list[str]:
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    paths = [os.fspath(path) for path in inputs]
    if not paths:
        raise InvalidInputError("no input files: give at least one text, .jsonl or .parquet file")
    missing = [path for path in paths if not os.path.isfile(path)]
    if missing:
        raise InvalidInputError(f"input {missing[0]!r} is not a file")
    return paths


def _chunks(docs: Iterable[str | FileDocument], skip: int) -> Iterator[Chunk]:
    """Documents after the first ``skip``, in chunks of about ``CHUNK_CHARS`` characters."""
    chunk: Chunk = []
    size = 0
    for index, doc in enumerate(docs):
        if index < skip:
            continue
        chunk.append(doc)
        size += doc.size if isinstance(doc, FileDocument) else len(doc)
        if size >= CHUNK_CHARS:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


def _run(chunks: Iterator[Chunk], spec: faces.WorkerSpec, parts: str, header: dict[str, Any],
         processes: int | None, executor: Executor | None) -> Iterator[tuple[tuple[bytes, int], str]]:
    """Each chunk's result and part file, in order, with at most two chunks per worker in flight."""
    workers = processes or os.cpu_count() or 1
    args = (header["dtype"], header["eot"])
    if executor is None and workers == 1:
        for index, chunk in enumerate(chunks):
            part = os.path.join(parts, f"part_{index:08d}.bin")
            yield encode_chunk(spec, chunk, part, *args), part
        return
    own = executor is None
    if executor is None:
        from concurrent.futures import ProcessPoolExecutor  # imported only where processes run

        executor = ProcessPoolExecutor(workers, mp_context=process_context())
    pool = executor
    pending: deque[tuple[Future[tuple[bytes, int]], str]] = deque()
    try:
        for index, chunk in enumerate(chunks):
            part = os.path.join(parts, f"part_{index:08d}.bin")
            pending.append((pool.submit(encode_chunk, spec, chunk, part, *args), part))
            if len(pending) >= 2 * workers:
                future, done = pending.popleft()
                yield future.result(), done
        while pending:
            future, done = pending.popleft()
            yield future.result(), done
    finally:
        for future, _ in pending:
            future.cancel()
        if own:
            pool.shutdown(wait=True, cancel_futures=True)


def _progress(show: bool | None, paths: list[str], fresh: bool) -> Any:
    """A tqdm bar in MB of text (its total known when every input is plain text), or False."""
    if show is None:
        show = sys.stderr.isatty()
    if not show:
        return False
    try:
        from tqdm import tqdm
    except ImportError:
        return False
    total = sum(os.path.getsize(p) for p in paths) if fresh and all(kind_of(p) == "text" for p in paths) else None
    return tqdm(total=total, unit="B", unit_scale=True, desc="encode-corpus", dynamic_ncols=True)
