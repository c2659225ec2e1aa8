"""The documents of a corpus's input files, in order, and what identifies each file.

Why a module of its own: ``encode_corpus`` must see exactly the same documents whatever runs the
encoding (one process, a pool, a Dask cluster, a resumed run), so one place says what a document is:

- a plain-text file is one document, its exact UTF-8 text (CR, CRLF and a BOM kept, as ``bytepair
  count`` reads files). It is not read here but where it is encoded, in blocks (:class:`FileDocument`),
  so a file of any size is encoded in bounded memory;
- a ``.jsonl`` file (also ``.jsonl.gz``, and ``.jsonl.zst`` when ``zstandard`` is installed) gives one
  document per non-empty line: the line's JSON object's ``jsonl_field``;
- a ``.parquet`` file (``pyarrow`` installed) gives one document per row of column ``jsonl_field``.

>>> import tempfile, os
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "a.jsonl")
>>> _ = open(path, "w").write('{"text": "one"}\\n\\n{"text": "two", "id": 2}\\n')
>>> list(documents(path, "text"))
['one', 'two']
>>> input_record(path)["bytes"]
42
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from ..errors import InputDecodeError, InvalidInputError, MissingDependencyError

__all__ = ["DocumentPart", "FileDocument", "documents", "input_record", "kind_of"]

_EXTRA = "pip install 'bytepair[corpus]'"


@dataclass(frozen=True)
class FileDocument:
    """A plain-text file as one document, read (exactly, in blocks) by whoever encodes it."""

    path: str
    size: int


@dataclass(frozen=True)
class DocumentPart:
    """A block of a long document, cut where its ids cannot change (``faces.parts_of``): the parts of
    one document, encoded apart and their ids put one after another, give the document's ids.
    ``last``: the document ends with this part (its end-of-text id follows)."""

    text: str
    last: bool


def kind_of(path: str) -> str:
    """``"jsonl"``, ``"parquet"`` or ``"text"``, by the file's name.

    >>> kind_of("a.jsonl.gz"), kind_of("b.parquet"), kind_of("c.txt"), kind_of("d.json.zst")
    ('jsonl', 'parquet', 'text', 'jsonl')
    """
    name = path.lower()
    for suffix in (".gz", ".zst"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    if name.endswith((".jsonl", ".ndjson", ".json")):
        return "jsonl"
    if name.endswith(".parquet"):
        return "parquet"
    return "text"


def input_record(path: str) -> dict[str, Any]:
    """``{"path", "bytes", "sha256"}`` of an input file (what a resumed run checks is unchanged)."""
    digest = hashlib.sha256()
    size = 0
    try:
        with open(path, "rb") as f:
            while block := f.read(1 << 22):
                digest.update(block)
                size += len(block)
    except OSError as exc:
        raise InvalidInputError(f"cannot read input {path!r}: {exc.strerror or exc}") from None
    return {"path": path, "bytes": size, "sha256": digest.hexdigest()}


def documents(path: str, jsonl_field: str = "text") -> Iterator[str | FileDocument]:
    """The documents of one input file, in order (see the module docstring)."""
    kind = kind_of(path)
    if kind == "text":
        yield FileDocument(path, os.path.getsize(path))
    elif kind == "jsonl":
        yield from _jsonl_documents(path, jsonl_field)
    else:
        yield from _parquet_documents(path, jsonl_field)


def _open_binary(path: str) -> BinaryIO:
    if path.lower().endswith(".gz"):
        return gzip.open(path, "rb")  # type: ignore[return-value]
    if path.lower().endswith(".zst"):
        try:
            import zstandard
        except ImportError:
            raise MissingDependencyError(
                f"{path}: reading .zst files needs zstandard, which is not installed: {_EXTRA} "
                "(or pip install zstandard), or decompress the file first", name="zstandard") from None
        return io.BufferedReader(zstandard.open(path, "rb"))  # its reader has no readline of its own
    return open(path, "rb")


def _jsonl_documents(path: str, field: str) -> Iterator[str]:
    with _open_binary(path) as f:
        for number, raw in enumerate(f, start=1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw)
            except UnicodeDecodeError as exc:
                raise InputDecodeError(f"{path}, line {number}: not UTF-8 ({exc.reason}); convert the file to UTF-8") from None
            except ValueError as exc:
                raise InvalidInputError(f"{path}, line {number}: not a JSON object ({exc}); a .jsonl file holds one per line") from None
            text = record.get(field) if isinstance(record, dict) else None
            if not isinstance(text, str):
                found = ", ".join(map(repr, list(record)[:8])) if isinstance(record, dict) else type(record).__name__
                raise InvalidInputError(
                    f"{path}, line {number}: no text field {field!r} (found {found}); pick the field with "
                    f"--jsonl-field NAME (encode_corpus(..., jsonl_field=NAME))")
            yield text


def _parquet_documents(path: str, column: str) -> Iterator[str]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise MissingDependencyError(
            f"{path}: reading .parquet files needs pyarrow, which is not installed: {_EXTRA} (or pip install pyarrow)",
            name="pyarrow") from None
    parquet = pq.ParquetFile(path)
    if column not in parquet.schema_arrow.names:
        raise InvalidInputError(f"{path}: no column {column!r} (columns: {', '.join(parquet.schema_arrow.names)}); "
                                "pick it with --jsonl-field NAME")
    for batch in parquet.iter_batches(columns=[column], batch_size=1024):
        for text in batch.column(0).to_pylist():
            if not isinstance(text, str):
                raise InvalidInputError(f"{path}: column {column!r} holds {type(text).__name__}, not text")
            yield text
