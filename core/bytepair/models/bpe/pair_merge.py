"""Byte-pair merging by *pair* rank, as Hugging Face ``tokenizers`` does it (``tokenizer.json`` models).

tiktoken ranks a merged token (``models/bpe/merge.py``); a ``tokenizer.json`` ranks the *pair* that makes
it: merge ``i`` of the ``merges`` list joins token ``a`` and token ``b`` into the vocabulary entry
``a + b``. The rule: of all adjacent symbol pairs that are listed merges, apply the one of lowest
rank (the leftmost of equals); repeat until no listed pair is left. The two rules agree on
vocabularies trained the usual way, not in general (a concatenation that is a token but was never
listed as a merge of those two parts does not merge here), so ``tokenizer.json`` files use this one.

Symbols are token ids. A merge table maps ``left * width + right`` (one int: cheaper to hash than a
tuple) to ``rank * width + new_id``, so comparing the packed values compares ranks first.

* :func:`reference_pair_merge` - the rule written plainly, for tests and for reading.
* :func:`pair_merge` - a pair-value list scanned in C for short pieces, a heap with stale-entry
  checks for long ones (O(n log n), never O(n^2)).

With BPE-dropout, :func:`reference_pair_merge_dropout` (plain) and the heap in :func:`pair_merge`
take the candidates in that same order and skip each with probability ``dropout`` (one
``rng.random()`` per candidate, in order, as HF's merge loop does); they agree for a seed.

>>> table = MergeTable([(0, 1), (3, 1)], [3, 4], width=8)   # a+b -> 3 (rank 0), 3+b -> 4 (rank 1)
>>> pair_merge([0, 1, 1, 0, 1], table)
[4, 3]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from heapq import heapify, heappop, heappush
from itertools import repeat
from operator import add, itemgetter, mul
from random import Random

__all__ = ["MergeTable", "pair_merge", "reference_pair_merge", "reference_pair_merge_dropout"]

_LONG_SYMBOLS = 48  # above this many symbols the heap wins over rescanning the pair list


class MergeTable:
    """The ranked merges of a model: ``(left, right) -> (rank, merged id)``, packed into ints."""

    def __init__(self, pairs: Iterable[tuple[int, int]], merged_ids: Iterable[int], *, width: int) -> None:
        """``pairs[i]`` merges into ``merged_ids[i]`` with rank ``i``; ``width`` exceeds every id.
        A pair listed twice keeps its first (lowest) rank, as HF does."""
        self.width = width
        pairs = list(pairs)
        lefts, rights = list(map(itemgetter(0), pairs)), list(map(itemgetter(1), pairs))
        keys = list(map(add, map(mul, lefts, repeat(width)), rights))
        values = list(map(add, map(mul, range(len(keys)), repeat(width)), merged_ids))
        # Built from the last merge to the first, so that a pair listed twice keeps its first rank.
        self.packed: dict[int, int] = dict(zip(reversed(keys), reversed(values)))
        self.no_merge = (len(keys) + 1) * width
        """A value above every packed value: stands for "no merge" in lists the merge loops scan."""

    def __len__(self) -> int:
        return len(self.packed)

    def lookup(self, left: int, right: int) -> tuple[int, int] | None:
        """``(rank, merged id)`` of a pair, or None if it is not a merge."""
        value = self.packed.get(left * self.width + right)
        return None if value is None else divmod(value, self.width)


def reference_pair_merge(symbols: Sequence[int], table: MergeTable) -> list[int]:
    """The rule in its plainest form: find the lowest-ranked listed pair (leftmost), merge, repeat."""
    parts = list(symbols)
    while len(parts) > 1:
        best: tuple[int, int] | None = None
        for i in range(len(parts) - 1):
            found = table.lookup(parts[i], parts[i + 1])
            if found is not None and (best is None or found[0] < best[0]):
                best = (found[0], i)
        if best is None:
            break
        i = best[1]
        parts[i : i + 2] = [table.lookup(parts[i], parts[i + 1])[1]]  # type: ignore[index]
    return parts


def pair_merge(symbols: list[int], table: MergeTable, *, dropout: float = 0.0, rng: Random | None = None) -> list[int]:
    """Merge ``symbols`` (token ids) by the table's pair ranks; ``symbols`` is not modified.

    With ``dropout`` > 0 each merge about to be applied is skipped with that probability (BPE-dropout,
    as HF does it: a skipped pair may merge later, once another merge has been applied).
    """
    if dropout > 0.0:
        return _merge_dropout(symbols, table, dropout, rng if rng is not None else Random())
    if len(symbols) <= _LONG_SYMBOLS:
        return _merge_short(symbols, table)
    return _merge_long(symbols, table)


def _merge_short(symbols: list[int], table: MergeTable) -> list[int]:
    width, get, none = table.width, table.packed.get, table.no_merge
    parts = list(symbols)
    values = [get(a * width + b, none) for a, b in zip(parts, parts[1:])]  # cheaper than a chain of maps here
    while values:
        best = min(values)
        if best == none:
            break
        i = values.index(best)
        merged = best % width
        parts[i] = merged
        del parts[i + 1]
        del values[i]
        if i < len(values):
            values[i] = get(merged * width + parts[i + 1], none)
        if i:
            values[i - 1] = get(parts[i - 1] * width + merged, none)
    return parts


def _merge_long(symbols: list[int], table: MergeTable) -> list[int]:
    width, get = table.width, table.packed.get
    n = len(symbols)
    ids = list(symbols)
    # Positions form a linked list; nxt[p] == -1 marks p as merged into its left neighbour.
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    # Heap keys: (packed value, position): lowest rank first, then leftmost.
    heap = [(v, p) for p in range(n - 1) if (v := get(ids[p] * width + ids[p + 1])) is not None]
    heapify(heap)
    while heap:
        value, p = heappop(heap)
        q = nxt[p]
        # Stale unless p is still a symbol and it and its right neighbour still make this pair.
        if q < 0 or q >= n or get(ids[p] * width + ids[q]) != value:
            continue
        ids[p] = value % width
        after = nxt[q]
        nxt[p] = after
        nxt[q] = -1
        if after < n:
            prv[after] = p
            v = get(ids[p] * width + ids[after])
            if v is not None:
                heappush(heap, (v, p))
        before = prv[p]
        if before >= 0:
            v = get(ids[before] * width + ids[p])
            if v is not None:
                heappush(heap, (v, before))
    out = []
    p = 0
    while p < n:
        out.append(ids[p])
        p = nxt[p]
    return out


def reference_pair_merge_dropout(symbols: Sequence[int], table: MergeTable, dropout: float, rng: Random) -> list[int]:
    """BPE-dropout, plainly: candidates sorted (rank, then leftmost), each skipped when
    ``rng.random() < dropout``; the first kept one merges; stop once all were skipped."""
    width, get = table.width, table.packed.get
    parts = list(symbols)
    while len(parts) > 1:
        candidates = sorted(
            (v, i) for i in range(len(parts) - 1) if (v := get(parts[i] * width + parts[i + 1])) is not None
        )
        for value, i in candidates:
            if rng.random() >= dropout:
                parts[i : i + 2] = [value % width]
                break
        else:
            break
    return parts


def _merge_dropout(symbols: list[int], table: MergeTable, dropout: float, rng: Random) -> list[int]:
    """The reference's draws and merges, with the heap of ``_merge_long``: skipped candidates are
    set aside and pushed back once a merge is applied."""
    if dropout >= 1.0:
        return list(symbols)
    width, get = table.width, table.packed.get
    n = len(symbols)
    ids = list(symbols)
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    heap = [(v, p) for p in range(n - 1) if (v := get(ids[p] * width + ids[p + 1])) is not None]
    heapify(heap)
    skipped: list[tuple[int, int]] = []
    draw = rng.random
    while heap:
        entry = heappop(heap)
        value, p = entry
        q = nxt[p]
        if q < 0 or q >= n or get(ids[p] * width + ids[q]) != value:
            continue
        if draw() < dropout:
            skipped.append(entry)
            continue
        ids[p] = value % width
        after = nxt[q]
        nxt[p], nxt[q] = after, -1
        if after < n:
            prv[after] = p
            if (v := get(ids[p] * width + ids[after])) is not None:
                heappush(heap, (v, p))
        before = prv[p]
        if before >= 0 and (v := get(ids[before] * width + ids[p])) is not None:
            heappush(heap, (v, before))
        for old in skipped:
            heappush(heap, old)
        skipped.clear()
    out = []
    p = 0
    while p < n:
        out.append(ids[p])
        p = nxt[p]
    return out
