"""Places in a long piece no merge can cross, so that its sides can be merged one by one, exactly.

Why. A long piece that does not repeat (a random mix of spaces, tabs, CR, LF, NBSP and U+3000)
cannot come from cached chunks. But a merge that joins the bytes on either side of a place ``p``
makes a token that holds ``data[p-1:p+1]``; if no token of the vocabulary can hold bytes that
stand across ``p``, nothing ever joins them, and merging each side between two such places on its
own is merging the whole piece. Sides are short and repeat, so ``models/bpe/long_pieces.py`` takes them from
a cache. The more places are found, the shorter and more repetitive the sides.

Two rules, both sound (a place they report is one no token can cross):

* **pair rule**, any piece: cut where the byte pair ``data[p-1:p+1]`` stands inside no token.
* **run rule**, pieces of at most ``MAX_DISTINCT_BYTES`` distinct bytes: cut where no *blocking
  run* stands across ``p``. The blocking runs are the tokens shorter than ``GRAM`` (4) bytes and
  every ``GRAM``-byte run inside a token. A token crossing ``p`` is either one of the short ones
  or holds a ``GRAM``-byte run across ``p``. In a 250 kB mix of spaces, tabs, CR, LF, NBSP and
  U+3000 it finds about twice the places of the pair rule (cl100k: 84,000 against 46,000), and the
  distinct sides between them hold 36 kB instead of 130 kB. Runs of 3 left the mix without U+3000
  with 98 kB of distinct sides, runs of 4 with 51 kB; runs of 5 cost more in masks than they saved.

The fast path uses C-level loops only. The pair rule looks up a 65,536-entry table. The run rule
treats the piece as bit planes: one Python int per distinct byte, holding a 1 in byte ``i`` where
``data[i]`` is that byte (from ``bytes.translate``). The ends of each blocking run come from a shift
and an AND per byte of it, and shifts of those mark the places it crosses, at about 10 µs per
operation for 250 kB. :meth:`PieceCuts.reference_cuts` applies the same rules with plain loops;
tests hold the two equal.

Both rules need the runs inside tokens, found over the tokens joined with a byte that no
multi-byte token holds (0xFF in byte-level vocabularies, as no UTF-8 text holds it), so no run
straddles two tokens. A vocabulary whose multi-byte tokens hold every byte value gets no cuts.

>>> ranks = {bytes([b]): b for b in range(256)}
>>> for token in (b"ab", b"bc", b"abc"):
...     ranks[token] = len(ranks)
>>> cuts = PieceCuts(ranks, list(ranks))
>>> cuts.cuts(b"abcabxbc")  # "ca", "bx", "xb" are no tokens, and no token holds a 4-byte run across them
[3, 5, 6]
>>> cuts.cuts(b"abcabxbc") == cuts.reference_cuts(b"abcabxbc")
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import reduce
from itertools import compress, repeat
from operator import add, mul, or_

__all__ = ["GRAM", "MAX_DISTINCT_BYTES", "PieceCuts", "distinct_bytes"]

GRAM = 4
"""Runs this long inside tokens block a place (with shorter runs that are tokens); see the module."""
MAX_DISTINCT_BYTES = 16
"""Pieces with more distinct bytes take the pair rule (bit planes: one int per distinct byte, and a
few per pair of them)."""

_ZERO_TO_ONE = b"\x01" + bytes(255)
_SEPARATORS = (0xFF, 0xFE, 0xC0, 0xC1, *range(0xF5, 0xFE))  # bytes no UTF-8 text holds


def _one_hot(byte: int) -> bytes:
    """A ``bytes.translate`` table sending ``byte`` to 1 and every other byte to 0."""
    table = bytearray(256)
    table[byte] = 1
    return bytes(table)


def distinct_bytes(data: bytes, most: int) -> bytes | None:
    """The sorted distinct bytes of ``data``, or None if there are more than ``most``. Found from the
    first kilobyte, then checked over the rest by deleting them (C loops).

    >>> distinct_bytes(b"abcab" * 1000, 4), distinct_bytes(bytes(range(10)), 4)
    (b'abc', None)
    """
    seen = set(data[:1024])
    while len(seen) <= most:
        rest = data.translate(None, bytes(seen))
        if not rest:
            return bytes(sorted(seen))
        seen.update(rest[:1024])
    return None


class PieceCuts:
    """``cuts(data)``: the places (1 .. len - 1) no merge can cross, by the module's two rules."""

    def __init__(self, ranks: dict[bytes, int], token_bytes: Sequence[bytes]) -> None:
        self._ranks = ranks
        self._tokens = token_bytes
        self._separator: int | None = -1  # found on first use; None when there is none
        self._apart: list[bool] | None = None  # pair code -> no token holds the pair
        self._gram_tables: dict[bytes, dict[int, dict[bytes, bytes]]] = {}

    def _joined(self) -> bytes | None:
        """All tokens joined by a byte that no multi-byte token holds (None if every byte is held)."""
        if self._separator is None:
            return None
        for b in _SEPARATORS if self._separator < 0 else (self._separator,):
            sep = bytes((b,))
            joined = sep.join(self._tokens)
            if joined.count(sep) == max(len(self._tokens) - 1, 0) + (sep in self._ranks):
                self._separator = b
                return joined
        self._separator = None
        return None

    @property
    def separator(self) -> int | None:
        """A byte that no multi-byte token holds and no UTF-8 text holds (None if there is none):
        bytes joined by it merge as if apart (``LongPieceEncoder.encode_many``)."""
        if self._separator is not None and self._separator < 0:
            self._joined()
        return self._separator

    def cuts(self, data: bytes) -> list[int]:
        if len(data) < 2:
            return []
        alphabet = distinct_bytes(data, MAX_DISTINCT_BYTES)
        if alphabet is not None:
            return self._gram_cuts(data, alphabet)
        return self._pair_cuts(data)

    def _pair_cuts(self, data: bytes) -> list[int]:
        if self._apart is None:
            joined = self._joined()
            if joined is None:
                return []
            inside = set(map(add, map(mul, joined[:-1], repeat(256)), joined[1:]))
            sep = self._separator
            inside.difference_update(code for b in range(256) for code in (sep * 256 + b, b * 256 + sep))
            self._apart = [code not in inside for code in range(65536)]
        apart = self._apart.__getitem__
        codes = map(add, map(mul, data[:-1], repeat(256)), data[1:])
        return list(compress(range(1, len(data)), map(apart, codes)))

    def _tables(self, alphabet: bytes) -> dict[int, dict[bytes, bytes]] | None:
        """The blocking runs over ``alphabet`` (see the module), grouped for :meth:`_gram_cuts`:
        length -> (run without its last byte -> the last bytes it takes). Runs of length
        ``GRAM`` are found inside the runs of ``alphabet`` bytes in the joined tokens, and the
        shorter ones are those maximal runs that are tokens themselves (a token made of
        ``alphabet`` bytes stands between two separators)."""
        tables = self._gram_tables.get(alphabet)
        if tables is None:
            joined = self._joined()
            if joined is None:
                return None
            allowed = bytes(b for b in alphabet if b != self._separator)
            runs = set(re.findall(b"[" + re.escape(allowed) + b"]{2,}", joined)) if allowed else set()
            blocking = {run for run in runs if len(run) < GRAM and run in self._ranks}
            blocking.update(run[i : i + GRAM] for run in runs for i in range(len(run) - GRAM + 1))
            tables = {}
            for run in sorted(blocking):
                lasts = tables.setdefault(len(run), {})
                lasts[run[:-1]] = lasts.get(run[:-1], b"") + run[-1:]
            if len(self._gram_tables) >= 64:
                self._gram_tables.clear()
            self._gram_tables[alphabet] = tables
        return tables

    def _gram_cuts(self, data: bytes, alphabet: bytes) -> list[int]:
        tables = self._tables(alphabet)
        if tables is None:
            return []
        n = len(data)
        plane = {a: int.from_bytes(data.translate(_one_hot(a)), "little") for a in alphabet}
        # ends[r]: byte i set where data[i - len(r) + 1 : i + 1] == r (built prefix by prefix).
        ends: dict[bytes, int] = {bytes((a,)): p for a, p in plane.items()}

        def end(run: bytes) -> int:
            mask = ends.get(run)
            if mask is None:
                mask = ends[run] = (end(run[:-1]) << 8) & plane[run[-1]]
            return mask

        unsafe = 0
        for length, groups in tables.items():
            # Byte i set where a blocking run of this length ends at i, crossing places i - length + 2 .. i.
            found = reduce(or_, ((end(head) << 8) & reduce(or_, map(plane.__getitem__, lasts)) for head, lasts in groups.items()), 0)
            for shift in range(length - 1):
                unsafe |= found >> (8 * shift)
        places = unsafe.to_bytes(n + 1, "little")[1:n].translate(_ZERO_TO_ONE)
        return list(compress(range(1, n), places))

    def reference_cuts(self, data: bytes) -> list[int]:
        """The same places by plain loops over the tokens and the piece (slow; for tests)."""
        if self._joined() is None or len(data) < 2:
            return []
        tokens = list(self._tokens)
        n = len(data)
        if distinct_bytes(data, MAX_DISTINCT_BYTES) is None:
            inside = {t[i : i + 2] for t in tokens for i in range(len(t) - 1)}
            return [p for p in range(1, n) if data[p - 1 : p + 1] not in inside]
        inside = {t[i : i + GRAM] for t in tokens for i in range(len(t) - GRAM + 1)}
        blocks = [(length, self._ranks) for length in range(2, GRAM)] + [(GRAM, inside)]
        return [
            p
            for p in range(1, n)
            if not any(data[i : i + length] in found for length, found in blocks for i in range(max(0, p - length + 1), min(p, n - length + 1)))
        ]
