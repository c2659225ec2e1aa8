"""``bytepair.encode_corpus``: a corpus of files to training-ready token shards, on every core (or a
Dask cluster), exact, resumable.

Why this shape: one pure-Python core encodes a few MB/s, so the documents go to workers in chunks
of about :data:`CHUNK_CHARS` characters; a document longer than that (one big plain-text file, a
huge ``.jsonl`` line) is cut into parts where its ids cannot change (``faces.parts_of``: the blocks
the face's ``stream_blocks`` makes of a stream), so that one big file, too, runs on every core. Each
worker encodes its chunk and writes the ids itself,
packed, into ``DIR/.parts/`` (never sending millions of ints back through pickling); the process
that owns ``DIR`` packs the parts into shards in document order (``shards.py``), so the shards are
byte-identical for any number of workers, any executor and after any resume (the cuts are made
the same way whatever runs the parts, and a part's ids are those of its stretch of the document). A
worker holds one chunk (a plain-text file it reads itself is read in blocks): its memory is bounded
by ``CHUNK_CHARS`` and the tokenizer. At most two chunks per worker are in flight.

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
from .documents import DocumentPart, FileDocument, documents, input_record, kind_of
from .shards import MANIFEST, OPTIONS, ShardWriter, resume_point, write_json

__all__ = ["CHUNK_CHARS", "DEFAULT_SHARD_TOKENS", "encode_chunk", "encode_corpus"]

DEFAULT_SHARD_TOKENS = 100_000_000
"""Ids per shard unless asked otherwise (FineWeb's and nanoGPT's shards hold 100 M)."""
CHUNK_CHARS = 1 << 18
"""About this many characters of documents go to a worker at a time. Measured on the bench corpus
(5.6 MB, 2 processes, load 9): the two workers' last chunks ended 0.43-0.47 s apart with 1 << 20
(6% of the run: one of them idle), 0.03-0.17 s with 1 << 18, at the same CPU time."""

Chunk = list["str | FileDocument | DocumentPart"]


def encode_chunk(spec: faces.WorkerSpec, chunk: Chunk, part: str, dtype: str, eot: int) -> tuple[bytes, int, bool]:
    """Encode a chunk's documents, each followed by ``eot``, into the file ``part``; return the id
    count of each document that ends in the chunk or is left open at its end (packed ``array('Q')``;
    the first may go on with a document an earlier chunk left open), the chunk's size in UTF-8 bytes,
    and whether its last document goes on in the next chunk. Runs in a worker (any process that sees
    ``part``'s folder)."""
    face = faces.load(spec)
    counts = array("Q")
    size = n = 0
    code = "H" if dtype == "uint16" else "I"
    with open(part, "wb") as out:
        for document in chunk:
            text = document.text if isinstance(document, DocumentPart) else document
            for run in faces.document_ids(face, text):
                ids = array(code, run)
                if sys.byteorder == "big":
                    ids.byteswap()
                ids.tofile(out)
                n += len(ids)
            size += document.size if isinstance(document, FileDocument) else len(text.encode("utf-8", "surrogatepass"))
            if not isinstance(document, DocumentPart) or document.last:
                array(code, [eot]).tofile(out)  # < 2**16 when dtype is uint16
                counts.append(n + 1)
                n = 0
    open_end = isinstance(chunk[-1], DocumentPart) and not chunk[-1].last
    if open_end:
        counts.append(n)
    return counts.tobytes(), size, open_end


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
    chunks = _chunks(_items((doc for path in paths for doc in documents(path, jsonl_field)), skip, face))
    bar: Any = None  # None: not made yet; False: none wanted
    try:
        for (counts, size, open_end), part in _run(chunks, spec, parts, header, processes, executor):
            writer.add_part(part, array("Q", counts), open_end=open_end)
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


def _items(docs: Iterable[str | FileDocument], skip: int, face: faces.Face) -> Iterator[str | FileDocument | DocumentPart]:
    """The documents after the first ``skip``, those longer than ``CHUNK_CHARS`` in parts (when the
    face can cut them: ``faces.parts_of``); a document in parts is read here, in blocks."""
    for index, doc in enumerate(docs):
        if index < skip:
            continue
        blocks = faces.parts_of(face, doc) if _size(doc) > CHUNK_CHARS else None
        if blocks is None:
            yield doc
            continue
        held = next(blocks)
        for block in blocks:
            yield DocumentPart(held, False)
            held = block
        yield DocumentPart(held, True)


def _size(item: str | FileDocument | DocumentPart) -> int:
    return item.size if isinstance(item, FileDocument) else len(item.text if isinstance(item, DocumentPart) else item)


def _chunks(items: Iterable[str | FileDocument | DocumentPart]) -> Iterator[Chunk]:
    """Documents and parts in chunks of about ``CHUNK_CHARS`` characters."""
    chunk: Chunk = []
    size = 0
    for item in items:
        chunk.append(item)
        size += _size(item)
        if size >= CHUNK_CHARS:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


def _run(chunks: Iterator[Chunk], spec: faces.WorkerSpec, parts: str, header: dict[str, Any],
         processes: int | None, executor: Executor | None) -> Iterator[tuple[tuple[bytes, int, bool], str]]:
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
    pending: deque[tuple[Future[tuple[bytes, int, bool]], str]] = deque()
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
