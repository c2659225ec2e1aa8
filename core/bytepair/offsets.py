"""Offsets: where each token sits in the original string, in characters.

The rule (also for tokens that hold only part of a character): a token's span is [start, end) where
``start`` is the index of the character holding the token's first byte and ``end`` is one past the
character holding its last byte. Consecutive tokens that share a character (an emoji split in two
tokens, say) therefore share that character's index, and every span is non-empty. Special tokens
span their literal text. Indices count code points of the caller's string (before lone-surrogate
repair); ``utf16_offsets`` converts them for JavaScript.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate
from collections.abc import Sequence

__all__ = ["piece_token_spans", "utf16_offsets"]


def piece_token_spans(piece: str, token_lengths: Sequence[int], base: int) -> list[tuple[int, int]]:
    """Character spans of the tokens of one piece that starts at index ``base``.

    ``token_lengths`` are the tokens' byte lengths (they add up to the piece's UTF-8 length).

    >>> piece_token_spans("a🙂", [1, 3, 1], 10)
    [(10, 11), (11, 12), (11, 12)]
    """
    byte_ends = list(accumulate(token_lengths))
    if piece.isascii():
        starts = [0, *byte_ends[:-1]]
        return [(base + s, base + e) for s, e in zip(starts, byte_ends)]
    # char_starts[k] = byte offset where character k begins.
    char_starts = [0, *accumulate(len(ch.encode("utf-8")) for ch in piece)][:-1]
    spans = []
    first = 0
    for end in byte_ends:
        start_char = bisect_right(char_starts, first) - 1
        end_char = bisect_right(char_starts, end - 1)
        spans.append((base + start_char, base + end_char))
        first = end
    return spans


def utf16_offsets(text: str, offsets: Sequence[int]) -> list[int]:
    """Convert code-point indices into ``text`` to UTF-16 code-unit indices (JavaScript's).

    >>> utf16_offsets("a🙂b", [0, 1, 2, 3])
    [0, 1, 3, 4]
    """
    if text.isascii() or max(text) <= "\uffff":
        return list(offsets)
    astral_before = [0, *accumulate(ch > "\uffff" for ch in text)]
    return [i + astral_before[i] for i in offsets]
