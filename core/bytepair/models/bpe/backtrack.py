"""Exact BPE of a piece without merging byte by byte: longest tokens first, with backtracking.

Why: text never seen before misses the piece cache, and the merge rule (``models/bpe/merge.py``) then
costs a Python step per byte of every new piece; Cyrillic, Chinese and Japanese pieces are long.
This encoder takes a few dict lookups per *token* instead, and gives the same ids.

Why it is exact. Call a token sequence *valid* if the merge rule (``apply_merges``) applied to its
bytes gives back that very sequence. BPE of a piece is then its only valid sequence, and (see
github/rust-gems, crates/bpe, "Properties of BPE", the same facts ``models/bpe/long_pieces.py`` stands on) a
sequence is valid exactly when each adjacent pair of tokens in it is. So a depth-first search that
lays tokens from left to right, tries at each position the tokens that start there from the longest
down, and keeps a token only if it forms a valid pair with the token before, finds BPE's sequence:
the first sequence it completes is valid. Positions from which the search once failed to finish are
remembered, so no position is explored twice. A piece that is itself a token is that token (as in
tiktoken), so ``encode`` has ``merge_piece``'s meaning; ``apply_merges`` only differs for a piece
that is a token the merges never build, which ``encode_merges`` checks.

Why it is fast in pure Python. The tokens that start at a position are found by slicing and dict
lookups, only at the lengths some token starting with the same three bytes has (a table built on
first use, not at load). Whether two tokens stay apart is memoised per pair of ids (in
``pair_check.PairCheck.known``, the memo every caller shares); pairs repeat far more than pieces
do, so on new text most checks are one lookup in C.

Where it is used: nowhere by default yet. Measured on bench/corpus (cl100k, each file once, CPU
time): with its pair memo warm it takes 2-3x less time than the merge for the pieces of a file;
with the memo cold (text never seen) each new pair costs a merge of two tokens, and the first
pass took 5.9x tiktoken's time against the merge's 3.9x (``encode_known`` with ``learn``: 4.9x).
On the long pieces of random letters it was 3x slower than stitching with the heap merge. Pair
checks are now cheap (``models/bpe/pair_check.py``: rust-gems' split tables), yet with them a first pass of
``en`` under cl100k that took this search for short pieces still executed 1,011 M instructions
(its length table, built on first use, included) against 594 M for the engine's way: the merge,
with two-token pieces found by their split (an instruction count since retired). So the engine keeps that,
and this stays a tested exact alternative.

>>> ranks = {b"a": 0, b"b": 1, b"c": 2, b"d": 3, b"bc": 4, b"ab": 5, b"cd": 6, b"abcd": 7}
>>> enc = BacktrackEncoder(ranks, [b"a", b"b", b"c", b"d", b"bc", b"ab", b"cd", b"abcd"])
>>> enc.encode(b"abcd"), enc.encode(b"abcdab"), enc.encode_merges(b"abcd")
([7], [0, 4, 3, 5], [0, 4, 3])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import repeat

from .merge import apply_merges
from .pair_check import PairCheck

__all__ = ["BacktrackEncoder"]

_SHORT = (2, 1)  # lengths always tried last: tokens shorter than the three-byte key


class BacktrackEncoder:
    """``encode(bytes) -> ids`` by tiktoken's rule over ``ranks``, a few lookups per token."""

    def __init__(self, ranks: dict[bytes, int], token_bytes: Sequence[bytes], pairs: PairCheck | None = None) -> None:
        """``token_bytes[id]`` is the token with that id (``ranks[token_bytes[id]] == id``);
        ``pairs`` a pair check over them (a model's ``pair_check``, whose memo this shares), else
        one without split tables."""
        self._ranks = ranks
        self._bytes = token_bytes
        check = pairs if pairs is not None else PairCheck(ranks, token_bytes)
        self._shift = check.shift
        self._pairs = check.known
        self._self_valid: dict[int, bool] = {}
        self._lengths: dict[bytes, tuple[int, ...]] | None = None

    def clear(self) -> None:
        """Forget memoised pairs (benchmarks measure a cold start); the length table stays."""
        self._pairs.clear()
        self._self_valid.clear()

    def _length_table(self) -> dict[bytes, tuple[int, ...]]:
        """Three-byte prefix -> lengths (longest first) of the tokens that start with it, then 2, 1."""
        by_prefix: dict[bytes, set[int]] = {}
        for token in self._ranks:
            if len(token) >= 3:
                by_prefix.setdefault(token[:3], set()).add(len(token))
        shared: dict[tuple[int, ...], tuple[int, ...]] = {}
        table = {}
        for prefix, lengths in by_prefix.items():
            key = tuple(sorted(lengths, reverse=True)) + _SHORT
            table[prefix] = shared.setdefault(key, key)
        self._lengths = table
        return table

    def encode(self, data: bytes) -> list[int]:
        """BPE of ``data`` with tiktoken's whole-piece rule: ``merge_piece(data, ranks)``."""
        ids = self._search(data, self._pairs.__getitem__)
        assert ids is not None
        return ids

    def encode_known(self, data: bytes) -> list[int] | None:
        """As ``encode``, from memoised pairs only: None as soon as an unknown pair is met (the
        caller merges the piece and hands the result to ``learn``). On new text this skips the
        pair checks that cost a merge each, and still takes the piece in a few lookups once its
        pairs have been seen in other pieces."""
        return self._search(data, self._pairs.get)

    def learn(self, ids: Sequence[int]) -> None:
        """Remember that every adjacent pair of a piece's BPE ids stays apart (true of any BPE result)."""
        shift = self._shift
        self._pairs.update(dict.fromkeys(map(int.__or__, map(int.__lshift__, ids[:-1], repeat(shift)), ids[1:]), True))

    def _search(self, data: bytes, pair_ok: Callable[[int], bool | None]) -> list[int] | None:
        get = self._ranks.get
        rank = get(data)
        if rank is not None:
            return [rank]
        lengths = (self._lengths or self._length_table()).get
        token_len = self._bytes.__getitem__
        shift = self._shift
        n = len(data)
        out: list[int] = []
        dead: set[int] = set()  # positions from which no valid completion exists
        prev = -1
        pos = 0
        limit = n  # longest token allowed at pos (shorter than a token just taken back)
        while pos < n:
            for length in lengths(data[pos : pos + 3], _SHORT):
                if length > limit:
                    continue
                end = pos + length
                token = get(data[pos:end])
                if token is None or end in dead:
                    continue
                if prev >= 0:
                    ok = pair_ok(prev << shift | token)
                    if not ok:
                        if ok is None:
                            return None
                        continue
                out.append(token)
                prev, pos = token, end
                limit = n - pos
                break
            else:
                # Nothing valid starts here: take the last token back and try shorter ones there.
                if not out:  # only if a single byte is missing from the vocabulary
                    return apply_merges(data, self._ranks)
                dead.add(pos)
                token = out.pop()
                limit = len(token_len(token)) - 1
                pos -= limit + 1
                prev = out[-1] if out else -1
        return out

    def encode_merges(self, data: bytes) -> list[int]:
        """The merge rule alone (``apply_merges``): as ``encode``, but a piece that is a token the
        merges never build is merged."""
        ids = self.encode(data)
        if len(ids) == 1:
            token = ids[0]
            ok = self._self_valid.get(token)
            if ok is None:
                ok = self._self_valid[token] = apply_merges(data, self._ranks) == ids
            if not ok:
                return apply_merges(data, self._ranks)
        return ids
