"""Piece cache: pretokenized piece (str) -> token ids, filled on first sight.

Why a ``dict`` subclass: ``map(cache.__getitem__, pieces)`` then runs entirely in C for every piece
seen before (most pieces of real text repeat), and ``__missing__`` computes the rest. The cache is
bounded: when it is full it is emptied and refilled, which costs one rebuild of hot entries but never
lets memory grow with the input.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable

from .bpe_merge import merge_piece
from .long_pieces import LONG_PIECE_CHARS, LongPieceEncoder

__all__ = ["ModelPieceCache", "PackedPieceCache", "PieceCache"]

DEFAULT_MAX_ENTRIES = 1 << 16


class PieceCache(dict[str, tuple[int, ...]]):
    """Maps a piece to its ids; missing pieces are encoded with BPE and remembered."""

    def __init__(self, ranks: dict[bytes, int], token_bytes: list[bytes], max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        super().__init__()
        self.ranks = ranks
        self.max_entries = max_entries
        self._long = LongPieceEncoder(self, ranks, token_bytes)
        self.packed = PackedPieceCache(self)

    def clear(self) -> None:
        """Empty the cache, and the long-piece encoder's caches of seams and stitched chunks with it."""
        super().clear()
        self._long.clear()

    def __missing__(self, piece: str) -> tuple[int, ...]:
        if len(piece) > LONG_PIECE_CHARS:
            # Long pieces are assembled from cached chunks; they are too rare to be worth keeping.
            return self._long.encode(piece)
        ids = tuple(merge_piece(piece.encode("utf-8"), self.ranks))
        if len(self) >= self.max_entries:
            self.clear()
        self[piece] = ids
        return ids


class PackedPieceCache(dict[str, bytes]):
    """Piece -> its ids as native uint32 bytes, filled from the ``PieceCache``.

    Why: building an ``array('I')`` from Python ints converts every id; joining these byte strings
    does not, which makes ``Encoding.encode_to_array`` (and the browser API) several times cheaper
    per token on text seen before.
    """

    def __init__(self, ids: PieceCache) -> None:
        super().__init__()
        self._ids = ids

    def __missing__(self, piece: str) -> bytes:
        packed = array("I", self._ids[piece]).tobytes()
        if len(self) >= self._ids.max_entries:
            self.clear()
        if len(piece) <= LONG_PIECE_CHARS:
            self[piece] = packed
        return packed


class ModelPieceCache(dict[str, tuple[int, ...]]):
    """Piece -> ids for any model's ``encode_piece`` (the ``tokenizer.json`` face), bounded like
    :class:`PieceCache`. Pieces longer than ``LONG_PIECE_CHARS`` are encoded each time, not kept:
    they rarely repeat, and the model's own merge is O(n log n) on them."""

    def __init__(self, encode_piece: Callable[[str], tuple[int, ...]], max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        super().__init__()
        self._encode = encode_piece
        self.max_entries = max_entries

    def __missing__(self, piece: str) -> tuple[int, ...]:
        ids = self._encode(piece)
        if len(piece) <= LONG_PIECE_CHARS:
            if len(self) >= self.max_entries:
                self.clear()
            self[piece] = ids
        return ids
