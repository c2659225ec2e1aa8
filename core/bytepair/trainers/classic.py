"""Classic BPE (Sennrich et al. 2016): merges learnt over words, each word ending in "</w>".

Why keep it: it is the algorithm most texts teach, and it is small enough to check by hand. A word
is its characters followed by the symbol "</w>"; each step merges the adjacent pair with the highest
count (occurrences x word frequency, overlaps counted: "aaa" holds (a, a) twice), rewriting every
word left to right without overlaps. Ties go to the pair met first when the words are read in order
of first appearance and each word left to right: exactly what rebuilding a dict of pair counts each
step and taking ``max(counts, key=counts.get)`` gives (``tests/trainers/test_train_classic.py`` holds that
few-line reference and checks this module against it on random inputs).

Here the counts are kept up to date instead: words are distinct types with weights, a pair ->
words index says which words a merge touches, and a heap holds ``(-count, first word, character
offset in it, pair)``. An entry goes stale when its pair loses occurrences; it is checked when popped
and pushed back corrected. A pair that gains occurrences (only pairs holding the new symbol can) is
pushed afresh, so no entry ever ranks below its pair's true place.

>>> model = train_classic({"low": 5, "lowest": 2, "new": 6, "widest": 3}, 3)
>>> model.merges, model.counts
([('w', '</w>'), ('l', 'o'), ('n', 'e')], [11, 7, 6])
>>> model.encode_word("lowly")
['lo', 'w', 'l', 'y', '</w>']
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Mapping
from heapq import heapify, heappop, heappush

from ..errors import InvalidInputError, TrainingError, VocabFormatError

__all__ = ["END_OF_WORD", "ClassicBPE", "load_classic", "train_classic"]

END_OF_WORD = "</w>"
_FORMAT = "bytepair-classic-bpe"


class ClassicBPE:
    """A classic BPE model: ``merges`` in rank order, ``vocab`` (symbol -> id), ``encode_word``."""

    def __init__(self, merges: list[tuple[str, str]], alphabet: Iterable[str] = (), counts: list[int] | None = None) -> None:
        self.merges = list(merges)
        self.counts = list(counts) if counts is not None else []
        """The count each merged pair had when it was merged (empty for a loaded model)."""
        self.vocab: dict[str, int] = {}
        for symbol in [*alphabet, END_OF_WORD, *(a + b for a, b in self.merges)]:
            self.vocab.setdefault(symbol, len(self.vocab))
        self._ranks: dict[tuple[str, str], int] = {}
        for rank, pair in enumerate(self.merges):
            self._ranks.setdefault(pair, rank)

    def encode_word(self, word: str) -> list[str]:
        """The reference encoder: repeatedly merge the adjacent pair of lowest rank, all of its
        non-overlapping occurrences left to right."""
        symbols = [*word, END_OF_WORD]
        ranks = self._ranks
        while len(symbols) > 1:
            found = [ranks[p] for p in zip(symbols, symbols[1:]) if p in ranks]
            if not found:
                break
            symbols = rewrite(symbols, self.merges[min(found)])
        return symbols

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the model as JSON (the merges in rank order; ``load_classic`` reads it back)."""
        data = {"type": _FORMAT, "version": 1, "end_of_word": END_OF_WORD,
                "alphabet": [s for s in self.vocab if s != END_OF_WORD][: self._alphabet_size()],
                "merges": [list(p) for p in self.merges]}
        with open(path, "w", encoding="utf-8") as f:
            json.dump(data, f, ensure_ascii=False, indent=0)

    def _alphabet_size(self) -> int:
        merged = {a + b for a, b in self.merges}
        return sum(1 for s in self.vocab if s != END_OF_WORD and s not in merged)

    def __repr__(self) -> str:
        return f"ClassicBPE(merges={len(self.merges)}, vocab={len(self.vocab)})"


def load_classic(path: str | os.PathLike[str]) -> ClassicBPE:
    """Read a model written by ``ClassicBPE.save``."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as exc:
        raise VocabFormatError(f"cannot read classic BPE model {os.fspath(path)!r}: {exc}") from None
    if not isinstance(data, dict) or data.get("type") != _FORMAT or not isinstance(data.get("merges"), list):
        raise VocabFormatError(f"{os.fspath(path)!r} is not a classic BPE model written by bytepair (ClassicBPE.save)")
    try:
        return ClassicBPE([(a, b) for a, b in data["merges"]], data.get("alphabet", ()))
    except (ValueError, TypeError) as exc:
        raise VocabFormatError(f"{os.fspath(path)!r}: its merges or alphabet are malformed ({exc}); write it with ClassicBPE.save") from None


def rewrite(symbols: list[str], pair: tuple[str, str]) -> list[str]:
    """Merge every non-overlapping occurrence of ``pair``, left to right.

    >>> rewrite(["a", "a", "a", "b"], ("a", "a"))
    ['aa', 'a', 'b']
    """
    a, b = pair
    out: list[str] = []
    i, n = 0, len(symbols)
    while i < n:
        if i + 1 < n and symbols[i] == a and symbols[i + 1] == b:
            out.append(a + b)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def word_counts(words: Mapping[str, int] | Iterable[str]) -> dict[str, int]:
    """Word -> count in order of first appearance, from a mapping or an iterable of words."""
    if isinstance(words, str):
        raise InvalidInputError("words must be a mapping word -> count or an iterable of words, not one str; "
                                "split it first: text.split()")
    counts: dict[str, int] = dict(words) if isinstance(words, Mapping) else Counter(words)
    for word, c in counts.items():
        if not isinstance(word, str) or not isinstance(c, int):
            raise InvalidInputError(f"words must be str with int counts; found {word!r}: {c!r}")
    return {w: c for w, c in counts.items() if w and c > 0}


def train_classic(words: Mapping[str, int] | Iterable[str], num_merges: int) -> ClassicBPE:
    """Learn ``num_merges`` merges (fewer if every word becomes one symbol)."""
    if not isinstance(num_merges, int) or num_merges < 0:
        raise TrainingError(f"num_merges must be an int >= 0, not {num_merges!r}")
    types = word_counts(words)
    if not types:
        raise TrainingError("no words to train on: give a non-empty mapping or iterable of non-empty words")
    state = _State(types)
    merges, counts = [], []
    for _ in range(num_merges):
        best = state.pop_best()
        if best is None:
            break
        count, pair = best
        merges.append(pair)
        counts.append(count)
        state.merge(pair)
    alphabet = list(dict.fromkeys(ch for w in types for ch in w))
    return ClassicBPE(merges, alphabet, counts)


class _State:
    """Word types as symbol lists with weights, pair counts, a pair -> words index and the heap."""

    def __init__(self, types: dict[str, int]) -> None:
        self.words = [[*w, END_OF_WORD] for w in types]
        self.weights = list(types.values())
        self.counts: dict[tuple[str, str], int] = {}
        self.index: dict[tuple[str, str], set[int]] = {}
        for i, w in enumerate(self.words):
            self._add(i, w, 1)
        self.heap = [self._entry(p) for p in self.counts]
        heapify(self.heap)

    def _add(self, i: int, w: list[str], sign: int) -> None:
        c = self.weights[i] * sign
        counts, index = self.counts, self.index
        for p in zip(w, w[1:]):
            counts[p] = counts.get(p, 0) + c
            if sign > 0:
                index.setdefault(p, set()).add(i)

    def _first(self, pair: tuple[str, str]) -> tuple[int, int]:
        """(first word holding ``pair``, character offset of its first occurrence there)."""
        i = min(self.index[pair])
        w, offset = self.words[i], 0
        for p in zip(w, w[1:]):
            if p == pair:
                return i, offset
            offset += len(p[0])
        raise AssertionError("index out of date")  # pragma: no cover

    def _entry(self, pair: tuple[str, str]) -> tuple[int, int, int, tuple[str, str]]:
        i, offset = self._first(pair)
        return -self.counts[pair], i, offset, pair

    def pop_best(self) -> tuple[int, tuple[str, str]] | None:
        heap = self.heap
        while heap:
            entry = heappop(heap)
            pair = entry[3]
            if self.counts.get(pair, 0) <= 0:
                continue
            current = self._entry(pair)
            if current == entry:
                return -entry[0], pair
            heappush(heap, current)
        return None

    def merge(self, pair: tuple[str, str]) -> None:
        """Rewrite every word holding ``pair``; update counts and index; push the pairs that gained."""
        new = pair[0] + pair[1]
        gained: set[tuple[str, str]] = set()
        index, counts = self.index, self.counts
        for i in index.pop(pair):
            old = self.words[i]
            self._add(i, old, -1)
            w = self.words[i] = rewrite(old, pair)
            self._add(i, w, 1)
            after = set(zip(w, w[1:]))
            for p in set(zip(old, old[1:])) - after:
                found = index.get(p)
                if found is not None:
                    found.discard(i)
                    if not found:  # the pair is gone from every word: its count is 0
                        del index[p]
                        counts.pop(p, None)
            gained.update(p for p in after if new in p)
        counts.pop(pair, None)
        for p in gained:
            if counts.get(p, 0) > 0:
                heappush(self.heap, self._entry(p))
