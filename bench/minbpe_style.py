"""The baseline trainer of section ``training`` (bench/training.py): minbpe's plain loop, over distinct pieces.

Why: it is what a pure-Python trainer looks like before any care for speed (minbpe's
``RegexTokenizer.train``): every step recounts every pair of every piece and rewrites every piece.
It already works on distinct pieces with their counts (minbpe itself walks every chunk of the text),
so it is a generous baseline. Ties go to the first pair met, as ``max`` gives them.

>>> train_minbpe_style({"aaab": 2, "ab": 1}, 258)[:2]
[((97, 97), 256), ((97, 98), 257)]
"""

from __future__ import annotations

from collections.abc import Mapping


def train_minbpe_style(piece_counts: Mapping[str, int], vocab_size: int) -> list[tuple[tuple[int, int], int]]:
    words = [(list(piece.encode("utf-8")), c) for piece, c in piece_counts.items()]
    merges = []
    for new_id in range(256, vocab_size):
        stats: dict[tuple[int, int], int] = {}
        for ids, c in words:
            for pair in zip(ids, ids[1:]):
                stats[pair] = stats.get(pair, 0) + c
        if not stats:
            break
        pair = max(stats, key=stats.get)  # type: ignore[arg-type]
        merges.append((pair, new_id))
        words = [(_merge(ids, pair, new_id), c) if len(ids) > 1 else (ids, c) for ids, c in words]
    return merges


def _merge(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    out, i, n = [], 0, len(ids)
    while i < n:
        if i + 1 < n and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out
