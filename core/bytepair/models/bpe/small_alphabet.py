"""Long pieces made of a few distinct bytes (a random mix of whitespace): merged rank by rank, exactly.

Why. A run of spaces, tabs, CR, LF, NBSP and U+3000 in random order is one piece; nothing in it
repeats, so neither the piece cache nor chunk caches help, and merging it pair by pair costs a
Python step per merge (three times tiktoken's time for 250 kB with r50k). But such a piece can only
ever form the tokens made of its own bytes, and each of those can be made everywhere at once with
``bytes.replace``, a C loop: one pass over the piece per token instead of a step per merge. That
always pays while those tokens are few (GPT-2's vocabularies: a few dozen whitespace tokens).
cl100k and o200k hold hundreds, with thousands of ways to split them; ``models/bpe/long_pieces.py`` takes
this merge for them only where cutting the piece (``models/bpe/piece_cuts.py``) would leave most of it to
merge pair by pair (a run of spaces and newlines: no place to cut).

The *closure* of a piece is the set of tokens merging can form from it: its single bytes, then every
concatenation of two closure tokens that is a token. Two ways find it: trying pairs, as merging
would (cheap for small closures), and searching the vocabulary for the tokens over the piece's
bytes (cheap for large ones); tests hold them equal. Symbols stand for closure tokens (one byte
each, or two when there are more than 255: a high byte then a low one, so a pattern can only match
at a symbol's start), and the passes follow the closure tokens in rank order.

Why it is exact. Before the pass for token ``C`` of rank ``r`` the sequence is the merge rule's
(``models/bpe/merge.py``: lowest rank first, leftmost of equals) at the moment no pair ranking below ``r``
is left. The rule now merges the pairs that make ``C`` from the left. Each merge can only create
pairs holding ``C`` as a half; if all of those rank after ``r``, the rule merges every occurrence of
``C``'s pairs left to right without overlap (making ``C`` creates no pair that makes ``C``: such a
pair's token is longer), which is what ``bytes.replace`` does (one split of ``C``) or a regex
alternation (several splits, at most one of which matches at a position), and afterwards no pair
ranks at or below ``r``. A pair ranking *below* ``r`` can only appear beside a new ``C`` if the
vocabulary has a token ``CZ`` or ``ZC`` ranking before ``C`` (tiktoken's do: four tabs rank before
three). Up to the first place where the rule would merge such a pair, the rule and the pass make
the same ``C``s; there the pass leaves that ``C`` beside its ``Z``, or, if the pass took ``Z`` into
a ``C`` of its own (``Z`` a half of ``C``'s pairs), beside that ``C``. Every ``C`` after the pass
is new (a token is made in one pass only), so the pass looks for ``C Z`` and ``Z C`` (``Z`` may be
``C`` itself), and for ``C C`` when such a ``Z`` is a half of ``C``'s pairs, in its own result; if
one is there, ``encode`` returns None and the caller merges pair by pair as before (``C C`` may
refuse a pass that was sound: only ever slower, never wrong). (Looking after the pass costs one scan
per such ``Z``; looking before it, for the patterns ``A B Z`` of every split ``A B``, cost one per
split and ``Z``: thousands for a run of spaces and newlines. What stands right of each new ``C`` is
read off the sequence in one scan, so ``C Z`` is a set lookup, and it tells later passes which
pairs cannot be there, sparing their scans.) A pair of rank
``r`` exists by ``r``'s pass whenever it ever will: both its halves rank before it, unless it is
such a pair of lower rank, which the checks refuse. So after the last pass no pair is left to
merge, as with the rule.

>>> ranks = {b" ": 0, b"\\t": 1, b"  ": 2, b" \\t": 3, b"   \\t": 4}
>>> merger = SmallAlphabetMerge(ranks)
>>> merger.encode(b" \\t   \\t  \\t")
[3, 4, 2, 1]
>>> from bytepair.models.bpe.merge import apply_merges
>>> apply_merges(b" \\t   \\t  \\t", ranks)
[3, 4, 2, 1]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import repeat
from operator import add, lshift

from .piece_cuts import MAX_DISTINCT_BYTES, distinct_bytes

__all__ = ["FEW_SPLITS", "MANY_SPLITS", "MAX_DISTINCT_BYTES", "SmallAlphabetMerge"]

FEW_SPLITS = 512
"""Closures this small (GPT-2's whitespace: 23 tokens) always pay: the rank-by-rank merge took 3-4.5x
less time than the sides path on random whitespace mixes of 250 kB and 1 MB."""
MANY_SPLITS = 16_384
"""The largest closure worth a try when the sides path would merge most of the piece anyway
(cl100k's and o200k's whitespace: ~430 tokens, ~6,000 splits; a 250 kB run of spaces and newlines
took 123 ms this way against 283 ms by stitching, cl100k)."""
_MAX_PLANS = 64

_Pass = tuple[int, tuple[tuple[int, int], ...], tuple[int, ...], tuple[int, ...]]
_HIGH = bytes(0x80 | k >> 7 for k in range(256))
_LOW = bytes(k & 0x7F for k in range(256))


@dataclass(frozen=True)
class _Plan:
    """How to merge pieces over one set of bytes (see the module docstring). Closure tokens are
    numbered singles first (in the order of ``alphabet``), then by rank."""

    singles: int
    passes: tuple[_Pass, ...]
    """Per token made by merging, in rank order: its number, its splits (pairs of numbers), and the
    tokens ``Z`` with ``CZ``, then those with ``ZC``, ranking before it (to look for beside it after
    its pass)."""
    ids: tuple[int, ...]
    """Number -> token id."""

    def merge(self, data: bytes, table: bytes) -> list[int] | None:
        """``data`` renamed by ``table`` (byte -> number of its single) is merged pass by pass.
        Symbols are given to tokens as they first appear, one byte each while 256 suffice (a piece
        rarely forms more), then two. How many of each symbol the sequence holds is kept, and which
        tokens may stand right of each (a superset: the exact neighbours of a token when it is made,
        plus each later token made beside it), so a pass only scans for pairs that may be there."""
        s = data.translate(table)
        sym: list[bytes] = [b""] * len(self.ids)
        count = [0] * len(self.ids)
        number: list[int] = []  # symbol index -> token number
        width = 1
        for k in range(self.singles):
            sym[k] = bytes((k,))
            count[k] = s.count(sym[k])
            number.append(k)
        singles = {k for k in range(self.singles) if count[k]}
        right: list[set[int]] = [set(singles) for _ in self.ids]
        left: list[set[int]] = [set(singles) for _ in self.ids]
        of_sym = {sym[k]: k for k in range(self.singles)}
        for own, splits, after, before in self.passes:
            present = [(a, b) for a, b in splits if count[a] and count[b] and b in right[a] and sym[a] + sym[b] in s]
            if not present:
                continue
            if width == 1 and len(number) == 256:  # out of one-byte symbols: two bytes from now on
                width = 2
                widened = bytearray(2 * len(s))
                widened[0::2], widened[1::2] = s.translate(_HIGH), s.translate(_LOW)
                s = bytes(widened)
                sym = [bytes((0x80 | x[0] >> 7, x[0] & 0x7F)) if x else x for x in sym]
                of_sym = {sym[t]: t for t in number}
            k = len(number)
            made = bytes((0x80 | k >> 7, k & 0x7F)) if width == 2 else bytes((k,))
            sym[own] = made
            of_sym[made] = own
            number.append(own)
            before_pass = len(s)
            if len(present) == 1:
                a, b = present[0]
                s = s.replace(sym[a] + sym[b], made)
                n = (before_pass - len(s)) // width
                count[a] -= n
                count[b] -= n
            else:  # several splits: at each position at most one can match; leftmost first
                pattern = b"|".join(re.escape(sym[a] + sym[b]) for a, b in present)
                s = re.sub(pattern, made.replace(b"\\", b"\\\\"), s)
                n = (before_pass - len(s)) // width
                for t in {t for pair in present for t in pair}:
                    count[t] = s.count(sym[t])
            count[own] = n
            # What stands right of each C, exactly (found in C: the pattern starts with C's symbol);
            # what stands left of it, within what stood left of the halves it was made from.
            one = _ONE if width == 1 else _TWO
            after_c = set(map(of_sym.__getitem__, re.findall(re.escape(made) + b"(?=(" + one + b"))", s, re.S)))
            before_c = set().union(*(left[a] for a, _ in present))
            # A new C beside a Z with CZ or ZC ranking before C: the rule would have merged that
            # pair first (module docstring), so this merge does not apply. Where such a Z is itself
            # a half of C's pairs, this pass may have made it into a C: look for C C too.
            halves = any(z in {a for a, _ in present} for z in after) or any(z in {b for _, b in present} for z in before)
            if (
                (halves and own in after_c)
                or any(z in after_c for z in after)
                or any(z in before_c and count[z] and sym[z] + made in s for z in before)
            ):
                return None
            right[own], left[own] = after_c, before_c
            for x in before_c:
                right[x].add(own)
            for y in after_c:
                left[y].add(own)
        ids = [self.ids[t] for t in number]
        if width == 1:
            return list(map(ids.__getitem__, s))
        codes = map(add, map(lshift, map(_UNHIGH.__getitem__, s[0::2]), repeat(7)), s[1::2])
        return list(map(ids.__getitem__, codes))


_UNHIGH = bytes(b & 0x7F for b in range(256))
_ONE, _TWO = b".", b".."  # one symbol, in one-byte and two-byte symbols


def closure_by_pairs(alphabet: bytes, ranks: dict[bytes, int], most_splits: int) -> dict[bytes, list[tuple[bytes, bytes]]] | None:
    """The closure's tokens made by merging, each with its splits (pairs of closure tokens), found by
    trying every pair of members once, when the later of the two joins; None past ``most_splits``
    splits. Cheap when the closure is small or the limit low (a refusal costs a few thousand lookups).

    >>> closure_by_pairs(b" \\t", {b" ": 0, b"\\t": 1, b"  ": 2, b" \\t": 3, b"   \\t": 4}, 100)
    {b'  ': [(b' ', b' ')], b' \\t': [(b' ', b'\\t')], b'   \\t': [(b'  ', b' \\t')]}
    """
    members = [bytes((b,)) for b in alphabet]
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
                    if found > most_splits:
                        return None
    return splits


def closure_by_search(alphabet: bytes, ranks: dict[bytes, int], most_splits: int) -> dict[bytes, list[tuple[bytes, bytes]]] | None:
    """``closure_by_pairs``' closure (same tokens, same splits) from the tokens over ``alphabet``,
    shortest first: one is in the closure when some split of it has both halves in it. Those tokens
    are found in C, by searching the vocabulary joined by a byte not in ``alphabet`` (~10-25 ms):
    cheaper than trying pairs for closures of hundreds of tokens (cl100k's and o200k's whitespace).

    >>> ranks = {b" ": 0, b"\\t": 1, b"  ": 2, b" \\t": 3, b"   \\t": 4}
    >>> closure_by_search(b" \\t", ranks, 100) == closure_by_pairs(b" \\t", ranks, 100)
    True
    """
    members = {bytes((b,)) for b in alphabet}
    if not alphabet:
        return {}
    sep = bytes((next(b for b in range(256) if b not in alphabet),))
    joined = sep.join([b"", *ranks, b""])
    pattern = b"(?<=" + re.escape(sep) + b")[" + re.escape(alphabet) + b"]{2,}(?=" + re.escape(sep) + b")"
    splits: dict[bytes, list[tuple[bytes, bytes]]] = {}
    found = 0
    for token in sorted(set(re.findall(pattern, joined)), key=lambda t: (len(t), t)):
        ways = [(token[:k], token[k:]) for k in range(1, len(token)) if token[:k] in members and token[k:] in members]
        if ways and token in ranks:
            members.add(token)
            splits[token] = ways
            found += len(ways)
            if found > most_splits:
                return None
    return splits


def _plan(alphabet: bytes, ranks: dict[bytes, int], most_splits: int = FEW_SPLITS) -> _Plan | None:
    """The plan for pieces over ``alphabet`` (sorted distinct bytes), or None where this merge
    does not apply (a byte that is no token) or would not pay (more than ``most_splits`` splits:
    the search stops there)."""
    singles = [bytes((b,)) for b in alphabet]
    if any(b not in ranks for b in singles):
        return None
    closure = closure_by_pairs if most_splits <= FEW_SPLITS else closure_by_search
    splits = closure(alphabet, ranks, most_splits)
    if splits is None:
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
        pairs = tuple((number[a], number[b]) for a, b in splits[token])
        ahead = tuple(dict.fromkeys(number[z] for z in after.get(token, ())))
        behind = tuple(dict.fromkeys(number[z] for z in before.get(token, ())))
        passes.append((number[token], pairs, ahead, behind))
    return _Plan(len(singles), tuple(passes), tuple(ranks[token] for token in order))


class SmallAlphabetMerge:
    """``encode(data)``: the merge rule's ids for a piece over at most ``MAX_DISTINCT_BYTES``
    distinct bytes, or None where the rank-by-rank merge does not apply (see the module)."""

    def __init__(self, ranks: dict[bytes, int]) -> None:
        self._ranks = ranks
        self._plans: dict[tuple[bytes, int], _Plan | None] = {}

    def alphabet(self, data: bytes) -> bytes | None:
        """The sorted distinct bytes of ``data``, or None if there are more than ``MAX_DISTINCT_BYTES``."""
        return distinct_bytes(data, MAX_DISTINCT_BYTES)

    def encode(self, data: bytes, most_splits: int = FEW_SPLITS) -> list[int] | None:
        """The ids, or None where the merge does not apply: too many distinct bytes, a closure of
        more than ``most_splits`` splits, or a pass that could set off a lower-ranked merge."""
        alphabet = self.alphabet(data)
        if alphabet is None:
            return None
        key = (alphabet, most_splits)
        if key not in self._plans:
            if len(self._plans) >= _MAX_PLANS:
                self._plans.clear()
            self._plans[key] = _plan(alphabet, self._ranks, most_splits)
        plan = self._plans[key]
        if plan is None:
            return None
        table = bytearray(256)
        for k, b in enumerate(alphabet):
            table[b] = k
        return plan.merge(data, bytes(table))
