"""Long pieces (a run of 1 MB of one letter, spaces, emoji ...): encode by chunks, exactly.

Why it is exact. Call a token sequence *valid* if BPE of its bytes gives back that very sequence.
Two facts hold for rank-greedy BPE with any vocabulary (see github/rust-gems, crates/bpe, "Properties
of BPE"): every contiguous part of a valid sequence is valid, and two valid sequences that share a
token at the seam join into a valid sequence. So if the pieces' chunks are encoded on their own and,
at every seam, the pair (last token of the left chunk, first token of the right chunk) is itself
valid, i.e. ``BPE(left + right) == [left, right]``, the concatenation *is* BPE of the whole piece.
(By induction: a sequence is valid exactly when every adjacent pair in it is.)

Why it is fast. Chunks repeat (a run of one letter, a small emoji alphabet), so they come from the
piece cache in C; seam checks are cached per token pair and also run in C. A seam that fails is
repaired by re-encoding a few tokens on both sides of it and checking the window's outer seams. If repairs
widen too far, the piece is handed to the O(n log n) heap merge, which needs no such luck.
"""

from __future__ import annotations

import re
from itertools import accumulate, chain, compress, islice
from operator import itemgetter, not_
from typing import TYPE_CHECKING

from .bpe_merge import merge_piece

if TYPE_CHECKING:  # pragma: no cover
    from .piece_cache import PieceCache

__all__ = ["LONG_PIECE_CHARS", "LongPieceEncoder"]

LONG_PIECE_CHARS = 256
"""Pieces longer than this (in characters) take the chunked path."""

# Chunkers tried in turn, each with the share of failing seams it tolerates. Single characters suit
# a small alphabet of multi-byte characters (emoji) but need almost every seam to hold; 128-character
# chunks suit long-token runs (128 spaces is one token) and anything else, since each chunk costs far
# more than a seam repair.
_CHUNKERS = (
    (re.compile(".", re.DOTALL), 1 / 16),
    (re.compile(".{1,128}", re.DOTALL), 1.0),
)
_SAMPLE_CHARS = 2048
_MAX_REPAIR_TOKENS = 512  # a repair window wider than this means chunking does not suit the piece
_last = itemgetter(-1)
_first = itemgetter(0)


class _SeamCache(dict[tuple[int, int], bool]):
    """(left id, right id) -> whether BPE keeps the two tokens apart when they meet.

    ``merge_piece`` returns a piece that is itself a token as that token, so when the two tokens'
    bytes happen to form one, the answer is "no" even if merging would keep them apart. That can
    only cost a repair, never a wrong id: the check is never "yes" wrongly.
    """

    def __init__(self, ranks: dict[bytes, int], token_bytes: list[bytes]) -> None:
        super().__init__()
        self._ranks = ranks
        self._bytes = token_bytes

    def __missing__(self, pair: tuple[int, int]) -> bool:
        left, right = pair
        ok = merge_piece(self._bytes[left] + self._bytes[right], self._ranks) == [left, right]
        if len(self) >= 1 << 16:
            self.clear()
        self[pair] = ok
        return ok


class LongPieceEncoder:
    """Encodes pieces longer than ``LONG_PIECE_CHARS`` from chunks with verified seams."""

    def __init__(self, cache: PieceCache, ranks: dict[bytes, int], token_bytes: list[bytes]) -> None:
        self._cache = cache
        self._ranks = ranks
        self._bytes = token_bytes
        self._seams = _SeamCache(ranks, token_bytes)

    def _seam_checks(self, encoded: list[tuple[int, ...]]) -> list[bool]:
        pairs = zip(map(_last, encoded), map(_first, islice(encoded, 1, None)))
        return list(map(self._seams.__getitem__, pairs))

    def encode(self, piece: str) -> tuple[int, ...]:
        get = self._cache.__getitem__
        for chunker, tolerated in _CHUNKERS:
            sample = self._seam_checks(list(map(get, chunker.findall(piece[:_SAMPLE_CHARS]))))
            if sample and sample.count(False) > len(sample) * tolerated:
                continue
            encoded = list(map(get, chunker.findall(piece)))
            seams = self._seam_checks(encoded)
            if all(seams):
                return tuple(chain.from_iterable(encoded))
            if seams.count(False) <= len(seams) * tolerated:
                repaired = self._repair(encoded, seams)
                if repaired is not None:
                    return repaired
        return tuple(merge_piece(piece.encode("utf-8"), self._ranks))

    def _repair(self, encoded: list[tuple[int, ...]], seams: list[bool]) -> tuple[int, ...] | None:
        """Make every failing seam hold by re-encoding a window of tokens around it.

        A token sequence is valid exactly when each adjacent pair is, so replacing a window by
        its own BPE keeps everything valid once the window's two outer seams hold; the window
        widens until they do. Returns None if it would exceed ``_MAX_REPAIR_TOKENS``.
        """
        tokens = list(chain.from_iterable(encoded))
        seam_at = list(accumulate(map(len, encoded[:-1])))  # flat index of each chunk seam
        failing = list(compress(seam_at, map(not_, seams)))
        seam_ok, token_bytes, ranks = self._seams.__getitem__, self._bytes.__getitem__, self._ranks
        floor = len(tokens) + 1  # seams at or right of this were absorbed by a repair window
        for p in reversed(failing):
            if p >= floor:
                continue
            width = 2
            while True:
                lo, hi = max(0, p - width), min(len(tokens), p + width)
                ids = merge_piece(b"".join(map(token_bytes, tokens[lo:hi])), ranks)
                if (lo == 0 or seam_ok((tokens[lo - 1], ids[0]))) and (
                    hi == len(tokens) or seam_ok((ids[-1], tokens[hi]))
                ):
                    break
                width *= 2
                if width > _MAX_REPAIR_TOKENS:
                    return None
            tokens[lo:hi] = ids
            floor = lo
        return tuple(tokens)
