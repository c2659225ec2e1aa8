"""A tiny reader of the protocol buffers wire format: enough to read a SentencePiece ``.model``.

Why not the ``protobuf`` package: it is compiled (and large) and the browser bundle must stay pure
Python. A message is a run of fields, each a varint key ``(number << 3) | wire type`` and a value:
a varint (type 0), 8 bytes (1), a length-prefixed byte string (2: strings, bytes, sub-messages) or
4 bytes (5: ``float``, ``fixed32``). Groups (3, 4) are not used by SentencePiece and are refused.

>>> list(fields(bytes([0x08, 0x96, 0x01, 0x12, 0x02, 0x68, 0x69])))
[(1, 150), (2, b'hi')]
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

from ..errors import VocabFormatError

__all__ = ["as_float", "as_signed", "fields", "varint"]


def varint(data: bytes, pos: int) -> tuple[int, int]:
    """The varint at ``pos`` and the position after it.

    >>> varint(bytes([0xAC, 0x02]), 0)
    (300, 2)
    """
    result = shift = 0
    while True:
        if pos >= len(data):
            raise VocabFormatError("protobuf: the data ends inside a number; the file is truncated")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise VocabFormatError("protobuf: a number longer than 10 bytes; the file is damaged")


def fields(data: bytes) -> Iterator[tuple[int, int | bytes]]:
    """``(field number, value)`` of each field of a message, in order: an ``int`` for varints
    and fixed-width fields (raw bits), ``bytes`` for length-prefixed ones."""
    pos, end = 0, len(data)
    while pos < end:
        key, pos = varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = varint(data, pos)
            yield number, value
        elif wire == 2:
            size, pos = varint(data, pos)
            if pos + size > end:
                raise VocabFormatError("protobuf: a field runs past the end of the data; the file is truncated")
            yield number, data[pos:pos + size]
            pos += size
        elif wire == 5:
            if pos + 4 > end:
                raise VocabFormatError("protobuf: the data ends inside a 4-byte field; the file is truncated")
            yield number, int.from_bytes(data[pos:pos + 4], "little")
            pos += 4
        elif wire == 1:
            if pos + 8 > end:
                raise VocabFormatError("protobuf: the data ends inside an 8-byte field; the file is truncated")
            yield number, int.from_bytes(data[pos:pos + 8], "little")
            pos += 8
        else:
            raise VocabFormatError(f"protobuf: wire type {wire} (field {number}) is not used by this format; "
                                   "is this a SentencePiece .model file?")


def as_float(bits: int | bytes) -> float:
    """A ``float`` field's value (its 4 raw bytes, little-endian).

    >>> as_float(0x3F800000)
    1.0
    """
    return struct.unpack("<f", int(bits).to_bytes(4, "little"))[0]  # type: ignore[arg-type]


def as_signed(value: int | bytes) -> int:
    """An ``int32`` varint's value (negative numbers are written as 64-bit two's complement).

    >>> as_signed(2**64 - 1)
    -1
    """
    value = int(value)  # type: ignore[arg-type]
    return value - (1 << 64) if value >= 1 << 63 else value
