"""SentencePiece's compiled character map (``precompiled_charsmap``): bytes -> its rewrite rules.

Why its own module: a ``.model`` file and a ``tokenizer.json``'s ``Precompiled`` normalizer carry
the same blob, and both normalizers (HF's ``normalizers/precompiled.py`` and sentencepiece's
``normalizers/sentencepiece.py``) look rules up in it. The blob is a little-endian ``u32`` size,
a Darts-clone double-array trie of that many bytes (``u32`` units) whose keys are the UTF-8 of the
text a rule rewrites, and then the rewritten strings, each ended by a zero byte; a key's value is
its string's offset.

A unit of the double array packs: ``has_leaf`` (bit 8), ``value`` (the low 31 bits, of a leaf),
``label`` (the low byte and bit 31) and the offset to the children (bits 10-31, shifted left by 8
when bit 9 is set).

>>> charsmap = CharsMap(bytes(CharsMap.build({"ｶ": "カ", "ab": "x"})))
>>> charsmap.prefix_matches("abc".encode(), 0), charsmap.rewrite(charsmap.prefix_matches("ab".encode(), 0)[0][1])
([(2, 0)], 'x')
"""

from __future__ import annotations

import struct
from array import array

from ..errors import VocabFormatError

__all__ = ["CharsMap"]


class CharsMap:
    """The trie and rewritten strings of a ``precompiled_charsmap`` blob."""

    def __init__(self, blob: bytes) -> None:
        if not blob:  # no rules (an identity map)
            blob = b"\x00\x00\x00\x00"
        elif len(blob) <= 4:
            raise VocabFormatError("precompiled_charsmap is too short to hold its trie; the file is damaged")
        (size,) = struct.unpack_from("<I", blob)
        if (size >= len(blob) and size) or size % 4:
            raise VocabFormatError("precompiled_charsmap's trie size exceeds the blob; the file is damaged")
        units = array("I", blob[4:4 + size])
        if units.itemsize != 4:  # pragma: no cover - every platform Python runs on has a 4-byte "I"
            raise VocabFormatError("this platform has no 32-bit unsigned array type")
        if struct.pack("=I", 1) != struct.pack("<I", 1):  # pragma: no cover - big-endian hosts
            units.byteswap()
        self.units = units
        self.blob = blob
        self.strings = blob[4 + size:]
        self._cache: dict[int, str] = {}

    def prefix_matches(self, data: bytes, start: int, *, stop_at_zero: bool = False) -> list[tuple[int, int]]:
        """``(length, value)`` of every key that is a prefix of ``data[start:]``, shortest first
        (``stop_at_zero``: a zero byte ends the key, as HF's reader does)."""
        units = self.units
        n = len(units)
        out = []
        unit = units[0] if n else 0
        pos = (unit >> 10) << ((unit & 512) >> 6)
        for i in range(start, len(data)):
            c = data[i]
            if stop_at_zero and c == 0:
                break
            pos ^= c
            if pos >= n:
                break
            unit = units[pos]
            if (unit & 0x800000FF) != c:
                break
            pos ^= (unit >> 10) << ((unit & 512) >> 6)
            if unit & 256 and pos < n:
                out.append((i - start + 1, units[pos] & 0x7FFFFFFF))
        return out

    def starts_key(self, data: bytes) -> bool:
        """Whether some key begins with ``data`` (a walk of the trie that does not fall off)."""
        units = self.units
        n = len(units)
        unit = units[0] if n else 0
        pos = (unit >> 10) << ((unit & 512) >> 6)
        for c in data:
            pos ^= c
            if pos >= n:
                return False
            unit = units[pos]
            if (unit & 0x800000FF) != c:
                return False
            pos ^= (unit >> 10) << ((unit & 512) >> 6)
        return bool(data)

    def rewrite(self, value: int) -> str:
        """The string a key's ``value`` points to."""
        found = self._cache.get(value)
        if found is None:
            end = self.strings.find(b"\x00", value)
            raw = self.strings[value:end if end >= 0 else len(self.strings)]
            found = self._cache[value] = raw.decode("utf-8", "replace")
        return found

    @staticmethod
    def build(rules: dict[str, str]) -> bytes:
        """A blob for ``rules`` (text -> replacement), for tests and hand-made rules: a plain
        double array built key by key (not sentencepiece's layout, but read the same way)."""
        strings = bytearray()
        values = {}
        for key in sorted(rules):
            values[key.encode()] = len(strings)
            strings += rules[key].encode() + b"\x00"
        units: list[int] = [0]
        used = {0}
        bases: set[int] = set()  # two nodes on one base would each read the other's children as theirs

        def place(prefix: bytes, node: int) -> None:
            keys = sorted({k for k in values if k.startswith(prefix)})
            labels = sorted({k[len(prefix)] for k in keys if len(k) > len(prefix)})
            leaf = prefix in values
            wanted = labels + ([0] if leaf else [])
            base = 1
            while base in bases or any((base ^ lab) in used for lab in wanted) or (base ^ node) >= 1 << 21:
                base += 1
            bases.add(base)
            for lab in wanted:
                used.add(base ^ lab)
            size = max(base ^ lab for lab in wanted) + 1 if wanted else 0
            if size > len(units):
                units.extend([0] * (size - len(units)))
            units[node] = (units[node] & 0x800000FF) | ((base ^ node) << 10) | (256 if leaf else 0)
            if leaf:
                units[base] = 0x80000000 | values[prefix]  # a leaf unit: bit 31 keeps its label unmatched
            for lab in labels:
                child = base ^ lab
                units[child] = lab
                place(prefix + bytes([lab]), child)

        place(b"", 0)
        # Room for every byte after every node, as Darts-clone leaves it: HF's reader does not check
        # the array's end before it looks.
        units.extend([0] * ((max(bases) | 0xFF) + 1 - len(units)))
        trie = struct.pack(f"<{len(units)}I", *units)
        return struct.pack("<I", len(trie)) + trie + bytes(strings)
