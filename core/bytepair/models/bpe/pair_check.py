"""Whether two adjacent tokens stay apart under the merge rule: one memo for every caller, told
from split tables where the vocabulary has them, else by merging the pair.

Why: most new pieces of Latin-script text and code are two tokens (three in four new English
pieces, under cl100k). If ``piece = a + b`` with ``a`` and ``b`` tokens and the merge rule keeps
them apart when they meet, then ``[a, b]`` *is* the piece's BPE: a sequence whose every adjacent
pair stays apart is the merge rule's result for its bytes (the fact ``models/bpe/long_pieces.py`` stands on),
and that result is unique. :meth:`PairCheck.two_tokens` finds such a split with a few dict lookups
where the merge would take a Python step per byte; but telling whether a pair stays apart by merging
its bytes (:func:`reference_stays_apart`) would cost that very merge.

How (the check of github/rust-gems, crates/bpe, ``is_valid_token_pair``). In a vocabulary whose
merges rebuild every token, each token is made by one last merge, ``left + right``; the *split
table* holds where that merge joins (:func:`merge_splits`, computed once when a ``.bpr`` file is
written, which also checks that every token ranks above its two halves, so ranks are the order of
merges). Of the two tokens at a seam, the one with the higher rank was completed last. The check
undoes merges from the top, always the later of the two tokens at the seam, and at each step asks
whether the tokens now at the seam join into a token that ranks below the merge just undone (the
side that stayed whole is complete by then): if so, the merge rule would have joined across the
seam first, and the pair does not stay apart. When both sides are down to single bytes, nothing
could have crossed. Each step is a slice and a dict lookup. (rust-gems asks only about a token whose
own last merge joins the two; on these vocabularies the answers are the same, and this is the
merge rule's own condition.)

One check, one memo: the two-token search, the seams of long pieces (``models/bpe/long_pieces.py``) and the
backtracking encoder (``models/bpe/backtrack.py``) all ask :attr:`PairCheck.known`. A vocabulary without split
tables (one not read from a bundled ``.bpr`` file) still gets the memo; each new pair then costs a
merge of its two tokens' bytes, which is what the long-piece seams always paid.

Tests hold :meth:`PairCheck.stays_apart` to :func:`reference_stays_apart` on every pair met in
corpus text and on random pairs, and whole encodings with and without the two-token path equal.

>>> ranks = {bytes([b]): b for b in range(256)}
>>> for token in (b"ab", b"bc", b"abc"):
...     ranks[token] = len(ranks)
>>> tokens = sorted(ranks, key=ranks.get)
>>> check = PairCheck(ranks, tokens, merge_splits(ranks, tokens))
>>> check.two_tokens(b"abcc"), check.two_tokens(b"bcab")   # "abc" + "c"; "bc" + "ab" stays apart
((258, 99), (257, 256))
>>> check.stays_apart(ranks[b"a"], ranks[b"bc"]), reference_stays_apart(ranks[b"a"], ranks[b"bc"], ranks, tokens)
(False, False)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import repeat
from operator import lshift, or_

from .merge import apply_merges, merge_steps

__all__ = ["TWO_TOKEN_MAX_BYTES", "PairCheck", "merge_splits", "reference_stays_apart"]

TWO_TOKEN_MAX_BYTES = 16
"""Longer pieces are rarely two tokens, and a search that fails costs a lookup per byte. First-pass
instructions under cl100k (counted with a benchmark since retired: PERFORMANCE.md's tried-and-dropped
list), this bound against 12: English -11.5% against
-9.7%, code -8.2% against -7.1%, German -1.7% against -3.0%."""

_MAX_KNOWN_PAIRS = 1 << 18  # checked pairs remembered before the memo is emptied (bounded memory)


def merge_splits(ranks: dict[bytes, int], token_bytes: Sequence[bytes]) -> bytes | None:
    """Per rank, the byte length of the left half of the last merge that builds that token from its
    bytes (0 for single bytes and unused ranks); None where the check does not apply: the merge rule
    does not rebuild some token from its own bytes, a token ranks below one of the two halves it is
    built from (ranks are then not the order of merges), or a token is 256 bytes or longer.

    Plain and slow (a merge per token: ~1 s for cl100k): run when a ``.bpr`` file is written.

    >>> merge_splits({b"a": 0, b"b": 1, b"ab": 2, b"abb": 3}, [b"a", b"b", b"ab", b"abb"])
    b'\\x00\\x00\\x01\\x02'
    >>> merge_splits({b"a": 0, b"b": 1, b"c": 2, b"abc": 3}, [b"a", b"b", b"c", b"abc"]) is None  # no merge reaches abc
    True
    """
    splits = bytearray(len(token_bytes))
    for rank, token in enumerate(token_bytes):
        if len(token) < 2:
            continue
        if len(token) > 255:
            return None
        parts = [token[i : i + 1] for i in range(len(token))]
        halves = (b"", b"")
        for _, _, left, right in merge_steps(parts, ranks):
            halves = (left, right)
        if len(parts) != 1:
            return None  # the merges stop short of the token
        if ranks.get(parts[0]) != rank or ranks[halves[0]] > rank or ranks[halves[1]] > rank:
            return None
        splits[rank] = len(halves[0])
    return bytes(splits)


def reference_stays_apart(left: int, right: int, ranks: dict[bytes, int], token_bytes: Sequence[bytes]) -> bool:
    """Whether the merge rule keeps ``left`` and ``right`` apart: merging their bytes gives them back."""
    return apply_merges(token_bytes[left] + token_bytes[right], ranks) == [left, right]


class _KnownPairs(dict[int, bool]):
    """``left << shift | right`` -> whether the pair stays apart; filled by ``PairCheck.stays_apart``,
    emptied when full (bounded memory)."""

    def __init__(self, check: PairCheck) -> None:
        super().__init__()
        self._check = check

    def __missing__(self, key: int) -> bool:
        check = self._check
        apart = check.stays_apart(key >> check.shift, key & check.mask)
        if len(self) >= _MAX_KNOWN_PAIRS:
            self.clear()
        self[key] = apart
        return apart


class PairCheck:
    """Pair checks over one vocabulary (ranks are ids, as in tiktoken's), remembered in ``known``;
    with a split table, also the two-token search."""

    def __init__(self, ranks: dict[bytes, int], token_bytes: Sequence[bytes], splits: bytes | None = None) -> None:
        """``splits`` as :func:`merge_splits` gives them for ``ranks`` (``token_bytes[rank]`` is the
        token of that rank), or None: pairs are then checked by merging them."""
        self.ranks = ranks
        self.token_bytes = token_bytes
        self.splits = splits
        self.shift = max(len(token_bytes), 1).bit_length()
        self.mask = (1 << self.shift) - 1
        self.known = _KnownPairs(self)
        """``left << shift | right`` -> whether the pair stays apart: every caller's memo."""

    def apart(self, left: int, right: int) -> bool:
        """Whether the merge rule keeps ``left`` and ``right`` apart, remembered in ``known``.

        >>> ranks = {b"a": 0, b"b": 1, b"ab": 2}
        >>> PairCheck(ranks, [b"a", b"b", b"ab"]).apart(0, 1), PairCheck(ranks, [b"a", b"b", b"ab"]).apart(1, 0)
        (False, True)
        """
        return self.known[left << self.shift | right]

    def each_apart(self, lefts: Iterable[int], rights: Iterable[int]) -> Iterator[bool]:
        """``apart`` of each pair ``(lefts[i], rights[i])``; in C for pairs already in ``known``."""
        return map(self.known.__getitem__, map(or_, map(lshift, lefts, repeat(self.shift)), rights))

    def stays_apart(self, left: int, right: int) -> bool:
        """Whether the merge rule keeps ``left`` and ``right`` apart when they meet, worked out anew
        (``apart`` remembers): by the split walk, or without a split table by merging the pair."""
        ranks, tokens, splits = self.ranks, self.token_bytes, self.splits
        if splits is None:
            return reference_stays_apart(left, right, ranks, tokens)
        limit = len(tokens)  # above every rank: nothing undone yet
        while True:
            a, b = tokens[left], tokens[right]
            joined = ranks.get(a + b)
            # The two tokens now at the seam join into a token ranked below the merge last undone.
            if joined is not None and joined < limit:
                return False
            if left > right:  # the left token was completed last: undo it, keep its right half
                limit = left
                cut = splits[left]
                if cut:
                    left = ranks[a[cut:]]
                    continue
                limit = right + 1  # the left side is one byte: undo the right token instead
                cut = splits[right]
                if not cut:
                    return True
                right = ranks[b[:cut]]
            else:  # the right token was completed last (or they are the same): keep its left half
                limit = right + 1  # a merge of equal rank further left would go first
                cut = splits[right]
                if cut:
                    right = ranks[b[:cut]]
                    continue
                limit = left
                cut = splits[left]
                if not cut:
                    return True
                left = ranks[a[cut:]]

    def two_tokens(self, data: bytes) -> tuple[int, int] | None:
        """The piece's ids if they are two tokens (``data`` not itself a token), else None. Meant for
        a check with a split table: without one, each new pair costs the merge this saves."""
        get = self.ranks.get
        known = self.known
        shift = self.shift
        for cut in range(len(data) - 1, 0, -1):
            left = get(data[:cut])
            if left is not None:
                right = get(data[cut:])
                if right is not None and known[left << shift | right]:
                    return left, right
        return None
