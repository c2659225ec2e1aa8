"""The seed vocabulary of HF's Unigram trainer: every character, and the frequent substrings that a
suffix tree of the corpus has as nodes.

Why no suffix array here: HF builds a suffix array of the distinct words joined by ``\\0`` (esaxx)
and keeps each internal node of its suffix tree: a substring that occurs at least twice and is
*right-branching* (not every occurrence is followed by the same character, ``\\0`` counting as
one), with its number of occurrences. Only nodes of 2 to ``max_piece_length`` characters without
``\\0`` are kept, so the same set is found by counting every substring of up to
``max_piece_length + 1`` characters of each distinct word: a substring is a node exactly when it
occurs twice or more and no one-character extension occurs as often. This gives HF's seeds
exactly (the node set does not depend on the order of the words, so neither does this) without
building a suffix array in Python.

Scores and order as HF: characters weighted by the words' counts, most frequent first (ties: the
larger character first); substrings scored occurrences x length (occurrences in the distinct words,
not weighted), best first (ties: the larger string first); ``seed_size`` in all; then each score
becomes its log share of the total.

>>> [piece for piece, _ in seed_pieces({"This is a": 1, "こんにちは友達": 1}, 16, 1000)]
['s', 'i', ' ', '達', '友', 'ん', 'は', 'に', 'ち', 'こ', 'h', 'a', 'T', 'is ', 's ']
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping

__all__ = ["seed_pieces"]


def seed_pieces(words: Mapping[str, int], max_piece_length: int, seed_size: int) -> list[tuple[str, float]]:
    """``(piece, log probability)`` of the seed vocabulary of ``words`` (word -> count)."""
    chars: Counter[str] = Counter()
    for word, count in words.items():
        for ch in word:
            if ch != "\0":
                chars[ch] += count
    occurrences = substring_counts(words, max_piece_length + 1)
    # The most frequent one-character extension of each substring (``\0``: the word's end).
    extended: dict[str, int] = {}
    for sub, n in occurrences.items():
        if len(sub) >= 3:
            stem = sub[:-1]
            if extended.get(stem, 0) < n:
                extended[stem] = n
    nodes = [(n * len(sub), sub) for sub, n in occurrences.items()
             if 2 <= len(sub) <= max_piece_length and "\0" not in sub and n >= 2 and extended.get(sub, 0) < n]
    seeds: list[tuple[str, float]] = [(ch, float(n)) for n, ch in sorted(((n, ch) for ch, n in chars.items()), reverse=True)]
    nodes.sort(reverse=True)  # strings compare by code point, as HF's ties
    for score, sub in nodes:
        if len(seeds) >= seed_size:
            break
        seeds.append((sub, float(score)))
    total = math.log(sum(score for _, score in seeds))
    return [(piece, math.log(score) - total) for piece, score in seeds]


def substring_counts(words: Mapping[str, int], longest: int) -> Counter[str]:
    """Occurrences of every substring of up to ``longest`` characters in the distinct ``words``,
    each word followed by ``\\0`` (so a substring ending a word also counts as ``sub + "\\0"``)."""
    counts: Counter[str] = Counter()
    for word in words:
        if not word:
            continue
        text = word + "\0"
        n = len(text)
        for start in range(n - 1):
            stop = min(n, start + longest)
            counts.update(text[start:end] for end in range(start + 1, stop + 1))
    return counts
