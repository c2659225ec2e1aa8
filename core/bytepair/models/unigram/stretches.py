"""The best path of a long piece, stretch by stretch, each stretch's result remembered.

Why: transformers' conversion of a SentencePiece model (and so ``Tokenizer.from_sentencepiece``)
pre-tokenizes with Metaspace ``split=False``: a whole text is one piece, which the piece cache
cannot help with. No vocabulary entry has ``"▁"`` past its first character (where that holds:
``cut``), so every ``"▁"`` of the text starts a stretch no node crosses, and the best path of the
text is its stretches' best paths, one after the other - but for the rounding of the sums, which
can decide a near tie differently depending on the sum the path reaches a stretch with:

* **exact sums** (``exact_below``): every score is a multiple of ``2**-m`` (a SentencePiece score
  is a 32-bit float, ``m`` about 22), so every sum smaller than ``2**(53 - m)`` in size is exact;
  when the piece is short enough that no sum in it can be larger, every comparison goes as it
  would in exact arithmetic, which does not depend on the sum a stretch is reached with: each
  stretch's ids are worked out once, from 0, and reused (``ExactStretches``, a ``dict`` read by
  ``map`` in C);
* **otherwise** (the HF trainer's 64-bit scores, or a very long text) each stretch's path is
  remembered with the smallest gap between two scores compared in it, and reused only where that
  gap is far above what rounding at the sum it was worked out with and at the current sum can
  move (``1e-12 * (abs(sum) + 1e3)`` each; a sum of 1e6 moves by ~1e-10 a step); elsewhere it is
  worked out again from the exact sum. The sums are carried as the whole-text path makes them
  (each score added to the sum so far).

Either way the result is :func:`lattice.best_path`'s, ties included (the tests hold them equal).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import chain

from .lattice import PieceTable, path_ends, viterbi, viterbi_from

__all__ = ["STRETCHED", "BestPaths"]

STRETCHED = 48
"""Pieces this long (or longer) are cut into stretches; shorter ones are one path."""
MEMO_ENTRIES = 200_000
"""Stretches remembered at most (then forgotten, and remembered anew)."""

Path = list[tuple[int, int, int]]
Entry = tuple[tuple[int, ...], list[float], float, list[int], tuple[int, ...]]
"""A stretch's ``(ids, scores, limit, ends, path ids)`` (:meth:`BestPaths._stretch`)."""


def exact_below(scores: list[float]) -> float:
    """The size below which every sum of ``scores`` (and of its partial sums) is exact in 64-bit
    floats: ``2**(53 - m)`` where each score is a multiple of ``2**-m``.

    >>> exact_below([-1.5, -0.25, 0.0]), exact_below([-0.1])
    (2251799813685248.0, 0.25)
    """
    m = 0
    for score in scores:
        if score:
            m = max(m, score.as_integer_ratio()[1].bit_length() - 1)
    return 2.0 ** (53 - m)


class ExactStretches(dict[str, tuple[int, ...]]):
    """A stretch's text after its ``"▁"`` -> its ids, worked out on first sight (exact sums)."""

    def __init__(self, ids: Callable[[str], tuple[int, ...]], cut: str) -> None:
        super().__init__()
        self._ids = ids
        self._cut = cut

    def __missing__(self, part: str) -> tuple[int, ...]:
        ids = self._ids(self._cut + part)
        if len(self) >= MEMO_ENTRIES:
            self.clear()
        self[part] = ids
        return ids


class BestPaths:
    """``ids(piece)`` and ``path(piece)`` of the best cut, for scores that are all finite.

    ``to_ids(text, path)``: the ids of a best path through ``text`` (the model fuses unknown runs,
    and gives byte fallback its bytes). ``safe``: each stretch begins with the one-character
    ``"▁"`` entry (not the unknown id), so no unknown run crosses from one stretch into the next
    and a piece's ids are its stretches' ids, one after the other. ``node_ids(text, nodes)``:
    ``to_ids`` of a path given as :func:`lattice.viterbi` gives it (None: by ``to_ids``)."""

    def __init__(self, table: PieceTable, unk_id: int | None, unk_score: float, cut: str | None, safe: bool,
                 to_ids: Callable[[str, Path], tuple[int, ...]],
                 node_ids: Callable[[str, list[tuple[int, float, int]]], tuple[int, ...]] | None = None) -> None:
        self.trie = table.trie
        self.unk_id = unk_id
        self.unk_score = unk_score
        self.cut = cut
        self.safe = safe and cut is not None
        self.to_ids = to_ids
        self.node_ids = node_ids
        scores = [score for _, score in table.entries.values()] + ([unk_score] if unk_id is not None else [])
        self.exact_below = exact_below(scores)
        self.largest = max(map(abs, scores), default=0.0)
        self.exact = ExactStretches(self.plain_ids, cut or "")
        self.memo: dict[str, Entry] = {}

    def clear(self) -> None:
        self.exact.clear()
        self.memo.clear()

    def plain_ids(self, text: str) -> tuple[int, ...]:
        """The ids of ``text``'s best path, as one path."""
        nodes = viterbi(text, self.trie, self.unk_id, self.unk_score)
        ids = tuple([node[0] for node in nodes])
        if self.unk_id is None or self.unk_id not in ids:
            return ids
        if self.node_ids is not None:
            return self.node_ids(text, nodes)
        ends = path_ends(nodes)
        return self.to_ids(text, list(zip([0, *ends], ends, ids)))

    def path(self, piece: str) -> Path:
        """The best path, unknown nodes not fused (:func:`lattice.best_path`'s)."""
        if self.cut is None or len(piece) < STRETCHED:
            nodes = viterbi(piece, self.trie, self.unk_id, self.unk_score)
            ends = path_ends(nodes)
            return list(zip([0, *ends], ends, [node[0] for node in nodes]))
        path: Path = []
        at = 0
        for stretch, entry in self._stretches(piece):
            ends = [at + end for end in entry[3]]
            path.extend(zip([at, *ends], ends, entry[4]))
            at += len(stretch)
        return path

    def ids(self, piece: str) -> tuple[int, ...]:
        """The best path's ids (``to_ids`` of :meth:`path`)."""
        if len(piece) < STRETCHED or not self.safe:
            if len(piece) < STRETCHED or self.cut is None:
                return self.plain_ids(piece)
            return self.to_ids(piece, self.path(piece))
        parts = piece.split(self.cut)
        first = parts[0]
        del parts[0]
        if len(piece) * self.largest < self.exact_below:
            out = list(self.plain_ids(first)) if first else []
            out += chain.from_iterable(map(self.exact.__getitem__, parts))
            return tuple(out)
        # ``_stretches`` inlined (ids only).
        out = []
        total = 0.0
        if first:
            entry, total = self._stretch(first, total)
            out += entry[0]
        memo = self.memo
        get = memo.get
        cut = self.cut
        for part in parts:
            entry = get(part)
            if entry is not None and -entry[2] < total < entry[2]:
                out += entry[0]
                for score in entry[1]:
                    total = score + total
                continue
            entry, total = self._stretch(cut + part, total)  # type: ignore[operator]
            if len(memo) >= MEMO_ENTRIES:
                memo.clear()
            memo[part] = entry
            out += entry[0]
        return tuple(out)

    def _stretches(self, piece: str) -> Iterator[tuple[str, Entry]]:
        """``(stretch, entry)`` for each stretch of ``piece`` (the sums carried, module docstring):
        each ``"▁"`` starts one, the first starts at 0."""
        cut = self.cut
        parts = iter(piece.split(cut))  # type: ignore[arg-type]
        first = next(parts)
        total = 0.0
        if first:
            entry, total = self._stretch(first, total)
            yield first, entry
        memo = self.memo
        for part in parts:
            stretch = cut + part  # type: ignore[operator]
            entry = memo.get(part)  # type: ignore[assignment]
            if entry is not None and -entry[2] < total < entry[2]:
                for score in entry[1]:
                    total = score + total
            else:
                entry, total = self._stretch(stretch, total)
                if len(memo) >= MEMO_ENTRIES:
                    memo.clear()
                memo[part] = entry
            yield stretch, entry

    def _stretch(self, stretch: str, total: float) -> tuple[Entry, float]:
        """The entry of ``stretch`` reached with the sum ``total``, and the sum at its end.
        ``limit``: the sizes of later sums at which the path is reused, from ``margin >
        1e-12 * (abs(total) + 1e3) + 1e-12 * (abs(later) + 1e3)`` solved for ``abs(later)``."""
        ends, nodes, end, margin = viterbi_from(stretch, self.trie, self.unk_id, self.unk_score, total)
        path_ids = tuple([node[0] for node in nodes])
        ids = path_ids if self.unk_id is None or self.unk_id not in path_ids else \
            self.to_ids(stretch, list(zip([0, *ends], ends, path_ids)))
        return (ids, [node[1] for node in nodes], margin * 1e12 - abs(total) - 2e3, ends, path_ids), end
