"""Long pieces made of a few distinct bytes (a random mix of whitespace): merged rank by rank, exactly.

Why. A run of spaces, tabs, CR, LF, NBSP and U+3000 in random order is one piece; nothing in it
repeats, so neither the piece cache nor chunk caches help, and merging it pair by pair costs a
Python step per merge (three times tiktoken's time for 250 kB with r50k). But such a piece can only
ever form the tokens made of its own bytes, and each of those can be made everywhere at once with
``bytes.replace``, a C loop: one pass over the piece per token instead of a step per merge. That
pays while those tokens are few (GPT-2's vocabularies: a few dozen whitespace tokens); cl100k and
o200k hold hundreds, with thousands of ways to split them, and keep the pair-by-pair paths.

The *closure* of a piece is the set of tokens merging can form from it: its single bytes, then every
concatenation of two closure tokens that is a token (found by trying pairs, as merging would). Symbols stand for closure tokens (one byte
each, or two when there are more than 255: a high byte then a low one, so a pattern can only match
at a symbol's start), and the passes follow the closure tokens in rank order.

Why it is exact. Before the pass for token ``C`` of rank ``r`` the sequence is the merge rule's
(``bpe_merge.py``: lowest rank first, leftmost of equals) at the moment no pair ranking below ``r``
is left. The rule now merges the pairs that make ``C`` from the left. Each merge can only create
pairs holding ``C`` as a half; if all of those rank after ``r``, the rule merges every occurrence of
``C``'s pairs left to right without overlap (making ``C`` creates no pair that makes ``C``: such a
pair's token is longer), which is what ``bytes.replace`` does (one split of ``C``) or a regex
alternation (several splits, at most one of which matches at a position), and afterwards no pair
ranks at or below ``r``. A pair ranking *below* ``r`` can only appear beside a new ``C`` if the
vocabulary has a token ``CZ`` or ``ZC`` ranking before ``C`` (tiktoken's do: four tabs rank before
three). Such a ``Z`` must then stand right after (or before) an occurrence of ``C``'s pair, or be a
``C`` made from the next occurrence, which shows in the sequence before the pass as a pattern ``A B
Z``, ``Z A B`` or ``A B A' B'`` (``A B`` and ``A' B'`` splits of ``C``). The pass looks for those
first; if one is there, ``encode`` returns None and the caller merges pair by pair as before. A pair
of rank ``r`` exists by ``r``'s pass whenever it ever will: both its halves rank before it, unless
it is such a pair of lower rank, which the checks refuse. So after the last pass no pair is left
to merge, as with the rule.

>>> ranks = {b" ": 0, b"\\t": 1, b"  ": 2, b" \\t": 3, b"   \\t": 4}
>>> merger = SmallAlphabetMerge(ranks)
>>> merger.encode(b" \\t   \\t  \\t")
[3, 4, 2, 1]
>>> from bytepair.bpe_merge import apply_merges
>>> apply_merges(b" \\t   \\t  \\t", ranks)
[3, 4, 2, 1]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import repeat
from operator import add, lshift

from .piece_cuts import MAX_DISTINCT_BYTES, distinct_bytes

__all__ = ["MAX_DISTINCT_BYTES", "SmallAlphabetMerge"]

_MAX_SPLITS = 512
"""Closures with more splits than this are left to the other paths. Each split may cost a scan of
the piece (~1 ns a byte) and merging costs ~0.4 us a byte, so past a few hundred scans passes no
longer pay: measured on random whitespace mixes of 250 kB and 1 MB, r50k's closure (23 tokens, few
splits) took 3-4.5x less time than the sides path, cl100k's and o200k's (~430 tokens, ~6,000 splits)
the same or more."""
_MAX_PLANS = 64

_Pass = tuple[int, tuple[tuple[int, int], ...], tuple[tuple[int, ...], ...]]
_HIGH = bytes(0x80 | k >> 7 for k in range(256))
_LOW = bytes(k & 0x7F for k in range(256))


@dataclass(frozen=True)
class _Plan:
    """How to merge pieces over one set of bytes (see the module docstring). Closure tokens are
    numbered singles first (in the order of ``alphabet``), then by rank."""

    singles: int
    passes: tuple[_Pass, ...]
    """Per token made by merging, in rank order: its number, its splits (pairs of numbers), and the
    danger patterns (runs of numbers) to look for before its pass."""
    ids: tuple[int, ...]
    """Number -> token id."""

    def merge(self, data: bytes, table: bytes) -> list[int] | None:
        """``data`` renamed by ``table`` (byte -> number of its single) is merged pass by pass.
        Symbols are given to tokens as they first appear, one byte each while 256 suffice (a piece
        rarely forms more), then two. How many of each symbol the sequence holds is kept, so a
        pass only looks for pairs whose two halves are there."""
        s = data.translate(table)
        sym: list[bytes] = [b""] * len(self.ids)
        count = [0] * len(self.ids)
        number: list[int] = []  # symbol index -> token number
        width = 1
        for k in range(self.singles):
            sym[k] = bytes((k,))
            count[k] = s.count(sym[k])
            number.append(k)
        for own, splits, dangers in self.passes:
            present = [(a, b) for a, b in splits if count[a] and count[b] and sym[a] + sym[b] in s]
            if not present:
                continue
            for danger in dangers:
                if all(map(count.__getitem__, danger)) and b"".join(map(sym.__getitem__, danger)) in s:
                    return None  # a merge of this rank could set off one of lower rank: not for passes
            if width == 1 and len(number) == 256:  # out of one-byte symbols: two bytes from now on
                width = 2
                widened = bytearray(2 * len(s))
                widened[0::2], widened[1::2] = s.translate(_HIGH), s.translate(_LOW)
                s = bytes(widened)
                sym = [bytes((0x80 | x[0] >> 7, x[0] & 0x7F)) if x else x for x in sym]
            k = len(number)
            made = bytes((0x80 | k >> 7, k & 0x7F)) if width == 2 else bytes((k,))
            sym[own] = made
            number.append(own)
            before = len(s)
            if len(present) == 1:
                a, b = present[0]
                s = s.replace(sym[a] + sym[b], made)
                n = (before - len(s)) // width
                count[a] -= n
                count[b] -= n
            else:  # several splits: at each position at most one can match; leftmost first
                pattern = b"|".join(re.escape(sym[a] + sym[b]) for a, b in present)
                s = re.sub(pattern, made.replace(b"\\", b"\\\\"), s)
                n = (before - len(s)) // width
                for t in {t for pair in present for t in pair}:
                    count[t] = s.count(sym[t])
            count[own] = n
        ids = [self.ids[t] for t in number]
        if width == 1:
            return list(map(ids.__getitem__, s))
        codes = map(add, map(lshift, map(_UNHIGH.__getitem__, s[0::2]), repeat(7)), s[1::2])
        return list(map(ids.__getitem__, codes))


_UNHIGH = bytes(b & 0x7F for b in range(256))


def _plan(alphabet: bytes, ranks: dict[bytes, int]) -> _Plan | None:
    """The plan for pieces over ``alphabet`` (sorted distinct bytes), or None where this merge
    does not apply (a byte that is no token) or would not pay (more than ``_MAX_SPLITS`` splits:
    the search stops there, so a refusal costs a few thousand lookups)."""
    singles = [bytes((b,)) for b in alphabet]
    if any(b not in ranks for b in singles):
        return None
    # The closure: each pair of members is tried once, when the later of the two joins.
    members = list(singles)
    splits: dict[bytes, list[tuple[bytes, bytes]]] = {}
    found = 0
    for i, new in enumerate(members):  # grows while it is walked
        for old in members[: i + 1]:
            for left, right in ((old, new), (new, old)) if old is not new else ((new, new),):
                made = left + right
                if made in ranks:
                    if made not in splits:
                        splits[made] = []
                        members.append(made)
                    splits[made].append((left, right))
                    found += 1
                    if found > _MAX_SPLITS:
                        return None
    made_by_rank = sorted(splits, key=ranks.__getitem__)
    order = [*singles, *made_by_rank]
    number = {token: k for k, token in enumerate(order)}
    # Tokens ranking before one of their halves: the pairs a pass must not set off.
    after: dict[bytes, list[bytes]] = {}  # C -> Z with CZ ranking before C
    before: dict[bytes, list[bytes]] = {}  # C -> Z with ZC ranking before C
    for token, pairs in splits.items():
        for left, right in pairs:
            if ranks[token] < ranks[left]:
                after.setdefault(left, []).append(right)
            if ranks[token] < ranks[right]:
                before.setdefault(right, []).append(left)
    passes: list[_Pass] = []
    for token in made_by_rank:
        own = number[token]
        pairs = [(number[a], number[b]) for a, b in splits[token]]
        dangers: list[tuple[int, ...]] = []
        for a, b in pairs:
            for z in after.get(token, ()):
                dangers.extend([(a, b, *p) for p in pairs] if z == token else [(a, b, number[z])])
            dangers.extend((number[z], a, b) for z in before.get(token, ()) if z != token)
        passes.append((own, tuple(pairs), tuple(dict.fromkeys(dangers))))
    return _Plan(len(singles), tuple(passes), tuple(ranks[token] for token in order))


class SmallAlphabetMerge:
    """``encode(data)``: the merge rule's ids for a piece over at most ``MAX_DISTINCT_BYTES``
    distinct bytes, or None where the rank-by-rank merge does not apply (see the module)."""

    def __init__(self, ranks: dict[bytes, int]) -> None:
        self._ranks = ranks
        self._plans: dict[bytes, _Plan | None] = {}

    def alphabet(self, data: bytes) -> bytes | None:
        """The sorted distinct bytes of ``data``, or None if there are more than ``MAX_DISTINCT_BYTES``."""
        return distinct_bytes(data, MAX_DISTINCT_BYTES)

    def encode(self, data: bytes) -> list[int] | None:
        alphabet = self.alphabet(data)
        if alphabet is None:
            return None
        if alphabet not in self._plans:
            if len(self._plans) >= _MAX_PLANS:
                self._plans.clear()
            self._plans[alphabet] = _plan(alphabet, self._ranks)
        plan = self._plans[alphabet]
        if plan is None:
            return None
        table = bytearray(256)
        for k, b in enumerate(alphabet):
            table[b] = k
        return plan.merge(data, bytes(table))
