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
from collections.abc import Iterable, Sequence
from typing import Any
from itertools import accumulate, repeat
from operator import add, sub

__all__ = ["first_token_at", "piece_token_spans", "token_spans", "utf16_offsets"]

# 1 for a byte that starts a character, 0 for a UTF-8 continuation byte (0x80..0xBF).
_STARTS_CHARACTER = bytes(0 if 0x80 <= b < 0xC0 else 1 for b in range(256))


def token_spans(data: bytes, token_lengths: Iterable[int]) -> tuple[list[int], list[int]] | None:
    """Character spans of consecutive tokens whose bytes make up ``data`` (UTF-8), all in C.

    ``starts_at[i]`` counts the characters that begin at or before byte i, so the character holding
    byte b is number ``starts_at[b] - 1``: a token [b0, b1) spans characters from
    ``starts_at[b0] - 1`` to ``starts_at[b1 - 1]``. Returns None if the tokens do not cover ``data``
    exactly (a pattern that skips text); the caller then goes piece by piece.

    >>> token_spans("a🫠".encode(), [1, 3, 1])
    ([0, 1, 1], [1, 2, 2])
    """
    byte_ends = list(accumulate(token_lengths))
    if not byte_ends:
        return ([], []) if not data else None
    if byte_ends[-1] != len(data):
        return None
    starts_at = list(accumulate(data.translate(_STARTS_CHARACTER)))
    byte_starts = [0, *byte_ends[:-1]]
    starts = list(map(sub, map(starts_at.__getitem__, byte_starts), repeat(1)))
    ends = list(map(starts_at.__getitem__, map(sub, byte_ends, repeat(1))))
    return starts, ends


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


def first_token_at(offsets: Sequence[tuple[int, int]], char: int, starts: Sequence[int] | None = None) -> int | None:
    """The index of the first token whose ``[start, end)`` holds character ``char`` (several do
    where a character is split into byte tokens), or None; ``offsets`` in text order, ``starts``
    their starts if the caller keeps them (for many lookups).

    >>> first_token_at([(0, 2), (2, 4), (3, 4), (3, 4)], 3), first_token_at([(0, 2)], 5)
    (1, None)
    """
    if starts is None:
        starts = [start for start, _ in offsets]
    index = bisect_right(starts, char) - 1
    while index > 0 and offsets[index - 1][0] <= char < offsets[index - 1][1]:
        index -= 1
    return index if index >= 0 and offsets[index][0] <= char < offsets[index][1] else None


def utf16_offsets(text: str, offsets: Sequence[int] | Sequence[tuple[int, int]]) -> list[Any]:
    """Convert code-point indices into ``text`` to UTF-16 code-unit indices (JavaScript's).

    ``offsets`` are indices, or ``(start, end)`` spans as ``encode_with_offsets`` returns them
    (the result then holds spans too).

    >>> utf16_offsets("a🙂b", [0, 1, 2, 3])
    [0, 1, 3, 4]
    >>> utf16_offsets("a🙂b", [(0, 1), (1, 2), (2, 3)])
    [(0, 1), (1, 3), (3, 4)]
    """
    spans = bool(offsets) and isinstance(offsets[0], tuple)
    if text.isascii() or len(text.encode("utf-16-le", "surrogatepass")) == 2 * len(text):
        return [tuple(span) for span in offsets] if spans else list(offsets)  # type: ignore[arg-type]
    astral_before = [0, *accumulate(map(_is_astral, text))]
    if spans:
        return [(s + astral_before[s], e + astral_before[e]) for s, e in offsets]  # type: ignore[misc]
    return list(map(add, offsets, map(astral_before.__getitem__, offsets)))  # type: ignore[arg-type]


def _is_astral(ch: str) -> bool:
    return ch > "\uffff"
