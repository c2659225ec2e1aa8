"""sentencepiece's Unigram best path of a long text (``SentencePieceModel._unigram``), stretch by
stretch, each stretch's result remembered.

Why: sentencepiece encodes a whole text as one lattice; in pure Python that is a lookup per
substring for every character (0.4 MB/s). No piece has ``"▁"`` past its first character (where
that holds), so every ``"▁"`` starts a stretch no node crosses, and the best path is the
stretches' paths one after the other - but for the 32-bit sums, which round at every step (by
up to 2**-24 of the sum: 0.004 near 1e5), and the renormalization when a sum passes 1e5 in size
(it is subtracted from what is reached so far). So a stretch's path is remembered with the
smallest gap between two sums compared in it and the largest distance of a sum in it from the
sum it began with (``span``), and reused only where (a) no sum in it can pass 1e5 and (b) the
gap is far above what rounding can move at the sum it was worked out with and at the current
one (``_error``); elsewhere it is worked out again, from the current sum, by the same steps as
the whole text. The sum is carried as the whole text carries it (each score added and rounded),
so the result is ``_unigram``'s, ties and renormalizations included (tests hold the two equal).
"""

from __future__ import annotations

import math
from array import array
from typing import Any

__all__ = ["STRETCHED", "long_unigram"]

STRETCHED = 48
"""Texts this long (or longer) go stretch by stretch; shorter ones are one lattice."""
RENORM = 1e5
"""sentencepiece's bound on a sum's size before it is renormalized."""
MEMO_ENTRIES = 200_000

Entry = tuple[list[tuple[str, int]], list[float], float, float, float, bool]
"""``(pieces, scores, margin, start sum, span, renormalized)`` of a stretch."""


def _error(size: float, steps: int) -> float:
    """Far above how much rounding of ``steps`` 32-bit additions near ``size`` can move a gap."""
    return 4.0 * steps * (size + 1.0) * 2.0 ** -23


def stretch_path(text: str, trie: dict[str, Any], unk_id: int, unk_score: float, start_sum: float) -> tuple[Entry, float]:
    """``_unigram``'s steps over ``text`` from a position the best path reaches with the 32-bit
    ``start_sum``: the entry (``Entry``) and the sum at the end."""
    n = len(text)
    best = array("f", bytes(4 * (n + 1)))
    best[0] = start_sum
    start_sum = best[0]
    back = [-1] * (n + 1)
    ids = [0] * (n + 1)
    step = [0.0] * (n + 1)
    get, stop = trie.get, _STOP
    rounded = array("f", (0.0,))
    frontier = 0
    margin = math.inf
    span = 0.0
    renormalized = False
    for start in range(n):
        here = best[start]
        if here < -RENORM or here > RENORM:
            for i in range(start, frontier + 1):
                if i == start or back[i] != -1:
                    best[i] = best[i] - here
            here = 0.0
            renormalized = True
        if abs(here - start_sum) > span:
            span = abs(here - start_sum)
        single = False
        for end in range(start + 1, n + 1):
            found = get(text[start:end], stop)
            if found is None:
                continue
            if found is stop:
                break
            token_id, score = found
            if end > frontier:
                frontier = end
            rounded[0] = score + here
            candidate = rounded[0]
            if back[end] < 0:
                best[end], back[end], ids[end], step[end] = candidate, start, token_id, score
            else:
                gap = candidate - best[end]
                if gap > 0:
                    best[end], back[end], ids[end], step[end] = candidate, start, token_id, score
                else:
                    gap = -gap
                if gap < margin:
                    margin = gap
            if end == start + 1:
                single = True
        if not single:
            end = start + 1
            if end > frontier:
                frontier = end
            rounded[0] = unk_score + here
            candidate = rounded[0]
            if back[end] < 0:
                best[end], back[end], ids[end], step[end] = candidate, start, unk_id, unk_score
            else:
                gap = candidate - best[end]
                if gap > 0:
                    best[end], back[end], ids[end], step[end] = candidate, start, unk_id, unk_score
                else:
                    gap = -gap
                if gap < margin:
                    margin = gap
    if abs(best[n] - start_sum) > span:
        span = abs(best[n] - start_sum)
    pieces = []
    scores = []
    end = n
    while end > 0:
        pieces.append((text[back[end]:end], ids[end]))
        scores.append(step[end])
        end = back[end]
    pieces.reverse()
    scores.reverse()
    return (pieces, scores, margin, start_sum, span, renormalized), best[n]


_STOP = object()


def long_unigram(text: str, trie: dict[str, Any], unk_id: int, unk_score: float, cut: str,
                 memo: dict[str, Entry], largest: float) -> list[tuple[str, int]]:
    """``_unigram(text)`` stretch by stretch (module docstring); ``memo``: the stretches
    remembered; ``largest``: the largest score in size (the unknown one included), so that a sum
    compared is within ``largest`` of a best sum."""
    parts = text.split(cut)
    first = parts[0]
    del parts[0]
    out: list[tuple[str, int]] = []
    total = 0.0
    if first:
        entry, total = stretch_path(first, trie, unk_id, unk_score, total)
        out += entry[0]
    rounded = array("f", (0.0,))
    get = memo.get
    for part in parts:
        entry = get(part)  # type: ignore[assignment]
        if entry is not None and not entry[5]:
            size = abs(total) + entry[4]
            steps = len(part) + 1
            if size + 1.0 + _error(size, steps) < RENORM and \
                    entry[2] > _error(abs(entry[3]) + entry[4] + largest, steps) + _error(size + largest, steps):
                out += entry[0]
                for score in entry[1]:
                    rounded[0] = score + total
                    total = rounded[0]
                continue
        entry, total = stretch_path(cut + part, trie, unk_id, unk_score, total)
        if len(memo) >= MEMO_ENTRIES:
            memo.clear()
        memo[part] = entry
        out += entry[0]
    return out
