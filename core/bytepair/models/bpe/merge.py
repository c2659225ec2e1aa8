"""Byte-pair merging of one piece: rank-greedy, leftmost first, exactly as tiktoken does it.

The rule: of all adjacent token pairs whose concatenation is in the vocabulary, merge the one with
the lowest rank (the leftmost of equals); repeat until no pair merges. Three implementations:

* :func:`reference_merge` - the rule written plainly (:func:`merge_steps`), O(n^2) per piece. Tests
  hold the others to it.
* :func:`_merge_short` - keeps the pair ranks in a list and lets C-level ``min``/``index`` find the
  best pair; cheapest for the short pieces that make up nearly all text.
* :func:`_merge_long` - a heap of candidate pairs over a linked list of token starts, with stale-entry
  checks, so a piece of n bytes costs O(n log n), never O(n^2) (1 MB of one letter is one piece).

BPE-dropout (subword regularisation) has the same two forms: :func:`reference_merge_dropout` and
:func:`merge_dropout`. At each step the candidate merges are taken in the order above and each is
skipped with probability ``dropout``; the first not skipped is applied; when all are skipped the
piece is done. Both draw the same random numbers in the same order, so they agree for a seed.

>>> ranks = {b"a": 0, b"b": 1, b"ab": 2, b"abab": 3}
>>> merge_piece(b"ababa", ranks)
[3, 0]
"""

from __future__ import annotations

from collections.abc import Iterator
from heapq import heapify, heappop, heappush
from itertools import compress, repeat
from random import Random

from ...errors import InvalidInputError
from operator import add, is_not, lshift, mul, or_

__all__ = ["LONG_PIECE_BYTES", "apply_merges", "check_dropout", "merge_dropout", "merge_piece", "merge_steps", "merge_three", "reference_merge", "reference_merge_dropout"]

# Above this many bytes the heap merge wins over rescanning the pair list each step.
LONG_PIECE_BYTES = 48
NO_RANK = 1 << 62
SINGLE_BYTES = tuple(bytes((b,)) for b in range(256))


def merge_steps(parts: list[bytes], ranks: dict[bytes, int]) -> Iterator[tuple[int, int, bytes, bytes]]:
    """The merge rule in its plainest form, one merge at a time: joins ``parts`` in place and yields
    each merge as ``(rank, position, left, right)``. Slow (a rescan per merge), for reading, for tests
    and for what is worked out once per token or character (``char_merge``, ``pair_check``).

    >>> parts = [b"a", b"b", b"c"]
    >>> list(merge_steps(parts, {b"a": 0, b"b": 1, b"c": 2, b"bc": 3, b"abc": 4})), parts
    ([(3, 1, b'b', b'c'), (4, 0, b'a', b'bc')], [b'abc'])
    """
    while len(parts) > 1:
        best_rank, best_i = None, -1
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and (best_rank is None or rank < best_rank):
                best_rank, best_i = rank, i
        if best_rank is None:
            return
        left, right = parts[best_i], parts[best_i + 1]
        parts[best_i : best_i + 2] = [left + right]
        yield best_rank, best_i, left, right


def reference_merge(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    """The merge rule's ids for ``piece``, by :func:`merge_steps`; tests hold the fast paths to it."""
    parts = [bytes((b,)) for b in piece]
    for _ in merge_steps(parts, ranks):
        pass
    return [ranks[p] for p in parts]


def merge_piece(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    """Token ids of one pretokenized piece (UTF-8 bytes). Every single byte must be in ``ranks``.

    A piece that is itself a token is that token (as in tiktoken), whether or not merging would reach it.
    """
    rank = ranks.get(piece)
    if rank is not None:
        return [rank]
    return apply_merges(piece, ranks)


def apply_merges(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    """The merge rule alone, without ``merge_piece``'s whole-piece lookup: for parts of a piece.

    >>> ranks = {b"a": 0, b"b": 1, b"c": 2, b"d": 3, b"bc": 4, b"ab": 5, b"cd": 6, b"abcd": 7}
    >>> merge_piece(b"abcd", ranks), apply_merges(b"abcd", ranks)  # "bc" first: "ab", "cd" never form
    ([7], [0, 4, 3])
    """
    if len(piece) == 3:
        return list(merge_three(piece, ranks))
    if len(piece) <= LONG_PIECE_BYTES:
        return _merge_short(piece, ranks)
    return _merge_long(piece, ranks)


def merge_three(piece: bytes, ranks: dict[bytes, int]) -> tuple[int, ...]:
    """The merge rule for exactly three bytes, written out: of the two pairs the lower-ranked one
    that is a token merges (the left one if both are the same token: ``b"ddd"``), then the piece is
    whole if it is a token. Two lookups where the rule's loop takes a list and a step per merge;
    a first pass meets many such pieces (base64 and other random text, single CJK characters).
    Tests hold it to :func:`reference_merge` on every three-byte string over a few bytes.

    >>> ranks = {b"a": 0, b"b": 1, b"c": 2, b"bc": 3, b"ab": 4, b"abc": 5}
    >>> merge_three(b"abc", ranks), merge_three(b"cab", ranks), merge_three(b"cba", ranks)
    ((5,), (2, 4), (2, 1, 0))
    """
    get = ranks.get
    left = get(piece[:2])
    right = get(piece[1:])
    if left is not None and (right is None or left <= right):
        two = (left, ranks[piece[2:]])
    elif right is not None:
        two = (ranks[piece[:1]], right)
    else:
        return (ranks[piece[:1]], ranks[piece[1:2]], ranks[piece[2:]])
    whole = get(piece)
    return (whole,) if whole is not None else two


def _merge_short(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    get = ranks.get
    parts = list(map(SINGLE_BYTES.__getitem__, piece))
    # pair_ranks[i] is the rank of parts[i] + parts[i + 1] (or NO_RANK).
    pair_ranks = list(map(get, map(add, parts, parts[1:]), repeat(NO_RANK)))
    while pair_ranks:
        best = min(pair_ranks)
        if best == NO_RANK:
            break
        i = pair_ranks.index(best)
        merged = parts[i] + parts[i + 1]
        parts[i] = merged
        del parts[i + 1]
        del pair_ranks[i]
        if i < len(pair_ranks):
            pair_ranks[i] = get(merged + parts[i + 1], NO_RANK)
        if i:
            pair_ranks[i - 1] = get(parts[i - 1] + merged, NO_RANK)
    return list(map(ranks.__getitem__, parts))


_PAIR_TABLE_AFTER = 1 << 17
"""Bytes of long pieces a vocabulary merges before its pair table is built. The table (~5 ms for
o200k) saves ~50 ns a byte over looking the first pairs up as bytes (``_first_pair_ranks``), so it
pays from ~100 kB on; a first pass over a page of prose meets only a few kB of long pieces."""
_PAIR_TABLES: dict[int, tuple[dict[bytes, int], list[int | None] | int]] = {}


def _pair_table(ranks: dict[bytes, int], more: int = 0) -> list[int | None] | None:
    """Rank of each two-byte token, indexed by ``256 * first + second`` (None where it is none);
    built once per vocabulary (kept with it, so an id is never reused while the table lives), once
    ``_PAIR_TABLE_AFTER`` bytes of long pieces have asked for it (``more`` counts them); None before."""
    entry = _PAIR_TABLES.get(id(ranks))
    if entry is None or entry[0] is not ranks:
        if len(_PAIR_TABLES) >= 16:
            _PAIR_TABLES.clear()
        entry = _PAIR_TABLES[id(ranks)] = (ranks, 0)
    seen = entry[1]
    if not isinstance(seen, int):
        return seen
    if seen + more < _PAIR_TABLE_AFTER:
        _PAIR_TABLES[id(ranks)] = (ranks, seen + more)
        return None
    table: list[int | None] = [None] * 65536
    for token, rank in ranks.items():
        if len(token) == 2:
            table[token[0] * 256 + token[1]] = rank
    _PAIR_TABLES[id(ranks)] = (ranks, table)
    return table


def _first_pair_ranks(piece: bytes, ranks: dict[bytes, int], table: list[int | None] | None) -> list[int | None]:
    """The rank of each adjacent byte pair of ``piece`` (None where it is no token): from the pair
    table if there is one (``_pair_table``), else looked up as bytes."""
    if table is None:
        parts = list(map(SINGLE_BYTES.__getitem__, piece))
        return list(map(ranks.get, map(add, parts, parts[1:])))
    return list(map(table.__getitem__, map(add, map(mul, piece[:-1], repeat(256)), piece[1:])))


def _merge_long(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    get = ranks.get
    n = len(piece)
    # Tokens are identified by their start offset. nxt[s] is the start of the following token (n at
    # the end); nxt[s] == -1 marks s as no longer a token start. prv mirrors it.
    nxt = list(range(1, n + 1))
    nxt.append(-1)
    prv = list(range(-1, n))
    # Heap keys pack (rank, start, end) into one int so comparisons stay cheap; smallest rank first,
    # then leftmost start, which is exactly the tie-break of the reference.
    shift = n.bit_length() + 1
    mask = (1 << shift) - 1
    # Ranks of all adjacent byte pairs and the heap keys, built by C-level maps: for long pieces
    # this start-up used to cost as much as a third of the merge.
    first = _first_pair_ranks(piece, ranks, _pair_table(ranks, n))
    present = list(map(is_not, first, repeat(None)))
    starts = list(compress(range(n - 1), present))
    found = list(compress(first, present))
    heap = list(map(or_, map(lshift, map(or_, map(lshift, found, repeat(shift)), starts), repeat(shift)),
                    map(add, starts, repeat(2))))
    heapify(heap)
    while heap:
        key = heappop(heap)
        end = key & mask
        start = (key >> shift) & mask
        mid = nxt[start]
        # Stale unless the pair starting at `start` still ends at `end` (same bytes, same rank).
        if mid < 0 or mid >= n or nxt[mid] != end:
            continue
        nxt[start] = end
        nxt[mid] = -1
        if end < n:
            prv[end] = start
            after = nxt[end]
            rank = get(piece[start:after])
            if rank is not None:
                heappush(heap, (((rank << shift) | start) << shift) | after)
        before = prv[start]
        if before >= 0:
            rank = get(piece[before:end])
            if rank is not None:
                heappush(heap, (((rank << shift) | before) << shift) | end)
    out = []
    start = 0
    while start < n:
        end = nxt[start]
        out.append(ranks[piece[start:end]])
        start = end
    return out


def reference_merge_dropout(piece: bytes, ranks: dict[bytes, int], dropout: float, rng: Random) -> list[int]:
    """BPE-dropout in its plainest form: candidates sorted (rank, then leftmost), each skipped when
    ``rng.random() < dropout``; the first kept one merges; stop when every candidate was skipped.

    >>> ranks = {b"a": 0, b"b": 1, b"ab": 2}
    >>> reference_merge_dropout(b"abab", ranks, 0.0, Random(0)), reference_merge_dropout(b"abab", ranks, 1.0, Random(0))
    ([2, 2], [0, 1, 0, 1])
    """
    parts = [bytes((b,)) for b in piece]
    while len(parts) > 1:
        found = ((ranks.get(parts[i] + parts[i + 1]), i) for i in range(len(parts) - 1))
        for _, i in sorted((rank, i) for rank, i in found if rank is not None):
            if rng.random() >= dropout:
                parts[i : i + 2] = [parts[i] + parts[i + 1]]
                break
        else:
            break
    return [ranks[p] for p in parts]


def merge_dropout(piece: bytes, ranks: dict[bytes, int], dropout: float, rng: Random) -> list[int]:
    """:func:`reference_merge_dropout` with a heap: the valid candidates pop in the same order and
    draw the same random numbers; skipped ones go back once a merge is applied. A merge costs
    O(log n) plus the skips before it (``dropout / (1 - dropout)`` on average).

    >>> ranks = {b"a": 0, b"b": 1, b"ab": 2}
    >>> merge_dropout(b"abab", ranks, 0.5, Random(1)) == reference_merge_dropout(b"abab", ranks, 0.5, Random(1))
    True
    """
    if dropout >= 1.0:
        return [ranks[bytes((b,))] for b in piece]
    get = ranks.get
    n = len(piece)
    nxt = list(range(1, n + 1))  # nxt[s]: start of the next token, or -1 once s is merged away
    prv = list(range(-1, n))
    heap = [(rank, s, s + 2) for s in range(n - 1) if (rank := get(piece[s : s + 2])) is not None]
    heapify(heap)
    skipped: list[tuple[int, int, int]] = []
    draw = rng.random
    while heap:
        entry = heappop(heap)
        _, start, end = entry
        mid = nxt[start]
        if mid < 0 or mid >= n or nxt[mid] != end:
            continue  # stale: the two tokens it joins are not both there any more
        if draw() < dropout:
            skipped.append(entry)
            continue
        nxt[start], nxt[mid] = end, -1
        if end < n:
            prv[end] = start
            if (rank := get(piece[start : nxt[end]])) is not None:
                heappush(heap, (rank, start, nxt[end]))
        before = prv[start]
        if before >= 0 and (rank := get(piece[before:end])) is not None:
            heappush(heap, (rank, before, end))
        for old in skipped:
            heappush(heap, old)
        skipped.clear()
    out = []
    start = 0
    while start < n:
        out.append(ranks[piece[start : nxt[start]]])
        start = nxt[start]
    return out


def check_dropout(dropout: object) -> float:
    """``dropout`` as a probability (None -> 0.0), or :class:`InvalidInputError` saying what is allowed."""
    if dropout is None:
        return 0.0
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0.0 <= dropout <= 1.0:
        raise InvalidInputError(f"dropout must be None or a number from 0 to 1 (the chance to skip each merge), not {dropout!r}")
    return float(dropout)
