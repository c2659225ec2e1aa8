"""A deliberately naive, exact byte-level BPE tokenizer: the yardstick for bytepair's speed.

Why it exists: it is the textbook algorithm with nothing clever in it (no piece cache, no heap, no
chunking, no translated pattern), so the benchmark can show what bytepair's machinery buys over
the obvious pure-Python implementation. It is exact, and the benchmark checks it against tiktoken
before timing it.

1. Pretokenize with the ``regex`` package, using the encoding's pattern as is
   (``regex`` understands ``\\p{..}`` classes and possessive quantifiers).
2. For each piece's UTF-8 bytes, start from single bytes and repeatedly merge the adjacent pair
   whose concatenation has the lowest rank (leftmost on ties) until no pair is a token.

Each merge step rescans the whole piece, so a piece of n bytes costs O(n^2): fine for ordinary
words, hopeless for 1 MB of one letter (the benchmark does not try). Lone surrogates are not
repaired (tiktoken replaces them with U+FFFD); they raise ``UnicodeEncodeError`` here.
"""

from __future__ import annotations

import regex

__all__ = ["NaiveTokenizer", "merge_piece"]


def merge_piece(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    """Rank-greedy BPE of one piece: merge the lowest-ranked adjacent pair until none is a token."""
    parts = [piece[i : i + 1] for i in range(len(piece))]
    while len(parts) > 1:
        best_rank: int | None = None
        best_index = -1
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and (best_rank is None or rank < best_rank):  # strict <: leftmost wins
                best_rank, best_index = rank, i
        if best_rank is None:
            break
        parts[best_index : best_index + 2] = [parts[best_index] + parts[best_index + 1]]
    return [ranks[part] for part in parts]


class NaiveTokenizer:
    """``encode_ordinary`` only: special-token text is encoded as ordinary text, like tiktoken's."""

    def __init__(self, pattern: str, ranks: dict[bytes, int]) -> None:
        self._pattern = regex.compile(pattern)
        self._ranks = ranks

    def encode_ordinary(self, text: str) -> list[int]:
        """Token ids of ``text``: every regex piece merged on its own, then concatenated."""
        ids: list[int] = []
        for piece in self._pattern.findall(text):
            ids.extend(merge_piece(piece.encode("utf-8"), self._ranks))
        return ids
