"""Reading text as exact UTF-8, a megabyte at a time: files, binary streams and their errors.

Why exactly: CR, CRLF and a leading BOM are tokens too, so the bytes are decoded as they are (no
newline translation, no BOM stripping); invalid UTF-8 is an error naming the byte offset, unless
``errors="replace"`` is asked for. The chunks then go to a block cutter (``pipeline/blocks.py``),
which regroups them into blocks that encode exactly on their own.
"""

from __future__ import annotations

import codecs
import io
import os
from collections.abc import Iterator
from typing import BinaryIO

from ..errors import InputDecodeError, InvalidInputError

__all__ = ["DEFAULT_CHUNK_BYTES", "decode_error", "read_utf8_chunks"]

DEFAULT_CHUNK_BYTES = 1 << 20
"""Files are read this many bytes at a time."""


def decode_error(origin: str, at: int, exc: UnicodeDecodeError) -> InputDecodeError:
    return InputDecodeError(
        f"{origin}: invalid UTF-8 at byte {at} ({exc.reason}: {exc.object[exc.start:exc.end]!r}). "
        "Convert the file to UTF-8, or pass errors='replace' (command line: --errors replace) "
        "to count it with U+FFFD in place of the bad bytes."
    )


def read_utf8_chunks(
    file: str | bytes | os.PathLike[str] | BinaryIO,
    *,
    errors: str = "strict",
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
) -> Iterator[str]:
    """Text of a file (a path or a binary file object) as ``str`` chunks, decoded as UTF-8 exactly.

    Line ends and a leading BOM are kept as they are. Invalid UTF-8 raises
    :class:`~bytepair.InputDecodeError` with the byte offset, unless ``errors`` is ``"replace"``
    (U+FFFD for each bad sequence) or another codec error handler.

    >>> list(read_utf8_chunks(io.BytesIO(b"\\xef\\xbb\\xbfa\\r\\nb"), chunk_bytes=2))
    ['\\ufeffa', '\\r\\n', 'b']
    """
    if isinstance(file, (str, bytes, os.PathLike)):
        with open(file, "rb") as f:
            yield from _decode_chunks(f, errors, chunk_bytes, os.fsdecode(file))
        return
    if isinstance(file, io.TextIOBase):
        raise InvalidInputError(
            "expected a path or a file opened in binary mode ('rb'), not a file opened in text mode: "
            "text mode would turn CRLF into LF and change the count"
        )
    if not hasattr(file, "read"):
        raise InvalidInputError(f"expected a path or a file opened in binary mode ('rb'), not {type(file).__name__}")
    yield from _decode_chunks(file, errors, chunk_bytes, str(getattr(file, "name", "input")))


def _decode_chunks(f: BinaryIO, errors: str, chunk_bytes: int, origin: str) -> Iterator[str]:
    decoder = codecs.getincrementaldecoder("utf-8")(errors)
    offset = 0  # bytes read before the current chunk
    while True:
        data = f.read(chunk_bytes)
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise InvalidInputError(f"{origin}: read() returned {type(data).__name__}; open the file in binary mode ('rb')")
        final = not data
        held = len(decoder.getstate()[0])  # bytes of an incomplete character from the chunk before
        try:
            text = decoder.decode(data, final=final)
        except UnicodeDecodeError as exc:
            raise decode_error(origin, offset - held + exc.start, exc) from None
        if text:
            yield text
        if final:
            return
        offset += len(data)
