"""Where each token of a Unigram piece stands: the spans behind a piece's offsets and token strings.

Why its own step: a piece's ids do not say where an unknown run or a byte-fallback run begins and
ends, and cutting the piece again to find out costs a second best path. That is the whole text when
Metaspace does not split (transformers' conversion of a SentencePiece model): reading the offsets
of 400 kB cost seconds. So the spans are read off the piece by the ids themselves wherever that is
certain, in C where the tokens' texts spell the piece (:meth:`TokenSpans.spelled`), token by token
where byte tokens are among them (:meth:`TokenSpans.read_off`), and only otherwise from the best
cut (``best_cut``) or by trying every split (:meth:`TokenSpans.walk`).

What makes a reading certain: an unknown node covers one character that has no one-character entry
(``lattice``'s rule, HF's and sentencepiece's), and a run of them is one token; so where the token
after a run begins with a character that has one, the run is a whole run of characters without one.

>>> spans = TokenSpans(["<unk>", "a", "b", "ab"], unk_id=0, byte_ids=[], best_cut=lambda piece: [])
>>> spans.cut("abxyab", (3, 0, 3))
Cut(starts=[0, 2, 4], ends=[2, 4, 6], runs=None, words=['ab', 'xy', 'ab'])
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Sequence
from itertools import accumulate, chain, compress, islice
from operator import itemgetter
from typing import NamedTuple

__all__ = ["Cut", "TokenSpans"]

Triple = tuple[int, int, tuple[int, ...]]
"""A span's start and end characters in the piece, and the ids that stand for it."""

_FIRST, _SECOND, _RUN = itemgetter(0), itemgetter(1), itemgetter(2)
_HEAD = itemgetter(slice(0, 1))


class Cut(NamedTuple):
    """A piece's spans in order, none empty: ``starts[k]``, ``ends[k]`` in characters, stood for by the ids
    ``runs[k]`` (a byte-fallback run by all its byte tokens); ``runs`` None: one id a span, the ids
    in order. ``words``: the spans' texts, where the cut was read off them (``spelled``)."""

    starts: list[int]
    ends: list[int]
    runs: list[tuple[int, ...]] | None
    words: list[str] | None = None

    @classmethod
    def of(cls, triples: Sequence[Triple]) -> Cut:
        runs = list(map(_RUN, triples))
        return cls(list(map(_FIRST, triples)), list(map(_SECOND, triples)),
                   None if all(len(run) == 1 for run in runs) else runs)


class TokenSpans:
    """``cut(piece, ids)`` for a model of token ``texts`` (by id), ``unk_id`` and the byte tokens
    ``byte_ids`` (``byte_ids[b]``: byte ``b``'s id or None; empty without byte fallback). The last
    piece's cut is kept: a piece's token strings and offsets each ask for it."""

    def __init__(self, texts: list[str], unk_id: int | None, byte_ids: list[int | None],
                 best_cut: Callable[[str], list[Triple]]) -> None:
        self.texts = texts
        self.unk_id = unk_id
        self.byte_ids = byte_ids
        self.byte_of = {token_id: b for b, token_id in enumerate(byte_ids) if token_id is not None}
        self.unwritten = frozenset([*self.byte_of, unk_id]) - {None}
        """Tokens whose text is not the text they stand for."""
        self.single = frozenset(text for text in texts if len(text) == 1)
        """Characters with a one-character entry: the only ones an unknown node never covers."""
        self.best_cut = best_cut
        self._others: re.Pattern[str] | None = None  # runs of characters without one (``spelled``)
        self._last: tuple[str, tuple[int, ...], Cut] | None = None

    def cut(self, piece: str, ids: Sequence[int]) -> Cut:
        """The spans of ``ids`` (which the model gave ``piece``, maybe sampled): ``spelled``, else
        ``read_off``, else the best cut when it gives these ids, else ``walk``."""
        ids = tuple(ids)
        last = self._last
        if last is not None and last[1] == ids and last[0] == piece:
            return last[2]
        found = self.spelled(piece, ids)
        if found is None:
            triples = self.read_off(piece, ids)
            if triples is None:
                best = self.best_cut(piece)
                if tuple(chain.from_iterable(map(_RUN, best))) == ids:
                    triples = best
                else:
                    triples = self.walk(piece, 0, list(ids), 0) or [(0, len(piece), ids)]
            found = Cut.of(triples)
        self._last = (piece, ids, found)
        return found

    def spelled(self, piece: str, ids: tuple[int, ...]) -> Cut | None:
        """The spans of ``ids`` if their tokens' texts, one after another, are ``piece`` (then their
        lengths cut it, whatever cut the model chose), each unknown token standing for the next
        whole run of characters that have no one-character entry and followed by a token that
        begins with one, or by none (so that the run it stands for is that one); None otherwise
        (a byte token; another cut).

        >>> spans = TokenSpans(["<unk>", "a", "b", "c", "bc"], unk_id=0, byte_ids=[], best_cut=lambda piece: [])
        >>> spans.spelled("abc", (1, 4)), spans.spelled("xyabc", (0, 1, 4)), spans.spelled("xy", (1,))
        (Cut(starts=[0, 1], ends=[1, 3], runs=None, words=['a', 'bc']), Cut(starts=[0, 2, 3], ends=[2, 3, 5], runs=None, words=['xy', 'a', 'bc']), None)
        """
        texts, unk = self.texts, self.unk_id
        if ids and (min(ids) < 0 or max(ids) >= len(texts)) or (self.byte_of and not self.byte_of.keys().isdisjoint(ids)):
            return None
        words = list(map(texts.__getitem__, ids))
        unknowns = 0 if unk is None else ids.count(unk)
        if unknowns:
            at = _positions(ids, unk, unknowns)
            if self._others is None:
                self._others = re.compile("[^" + "".join(map(re.escape, sorted(self.single))) + "]+" if self.single else "(?s:.+)")
            runs = self._others.findall(piece)
            following = map(texts.__getitem__, [ids[k + 1] for k in at if k + 1 < len(ids)])
            if len(runs) != len(at) or not all(map(self.single.__contains__, map(_HEAD, following))):
                return None
            deque(map(words.__setitem__, at, runs), maxlen=0)
        if "" in words or "".join(words) != piece:
            return None
        bounds = list(accumulate(map(len, words), initial=0))
        return Cut(bounds[:-1], bounds[1:], None, words)

    def read_off(self, piece: str, ids: tuple[int, ...]) -> list[Triple] | None:
        """The spans of ``ids`` read off ``piece`` in one pass where each is certain: entries' tokens
        are their texts (a run of them checked and cut at once); a run of byte tokens is the text
        its bytes decode to; an unknown run ends where the next token's text is first found, when
        that text begins with a character that has a one-character entry, or at the end. None where
        a span is not certain so.

        >>> TokenSpans(["<unk>", "a", "<0xC3>", "<0xA9>"], unk_id=0, byte_ids=[None] * 0xA9 + [3] + [None] * 25 + [2],
        ...            best_cut=lambda piece: []).read_off("aéa", (1, 2, 3, 1))
        [(0, 1, (1,)), (1, 2, (2, 3)), (2, 3, (1,))]
        """
        texts, unk, byte_of, single = self.texts, self.unk_id, self.byte_of, self.single
        n = len(ids)
        if n and (min(ids) < 0 or max(ids) >= len(texts)):
            return None
        out: list[Triple] = []
        pos = k = 0
        for mark in chain(compress(range(n), map(self.unwritten.__contains__, ids)), (n,)):
            if mark < k:
                continue  # (a byte run read already)
            if mark > k:  # entries: their texts in turn
                words = list(map(texts.__getitem__, ids[k:mark]))
                if "" in words or not piece.startswith("".join(words), pos):
                    return None
                ends = list(accumulate(map(len, words), initial=pos))
                out += zip(ends, islice(ends, 1, None), zip(ids[k:mark]))
                pos, k = ends[-1], mark
            if k == n:
                break
            if ids[k] == unk:
                following = ids[k + 1] if k + 1 < n else None
                if following is None:
                    end = len(piece)
                elif following in self.unwritten or texts[following][:1] not in single:
                    return None
                else:
                    end = piece.find(texts[following], pos + 1)
                if end <= pos or not single.isdisjoint(piece[pos:end]):
                    return None
                out.append((pos, end, (ids[k],)))
                k += 1
            else:
                first = k
                while k < n and ids[k] in byte_of:
                    k += 1
                try:
                    text = bytes([byte_of[i] for i in ids[first:k]]).decode("utf-8")
                except UnicodeDecodeError:
                    return None
                end = pos + len(text)
                if not piece.startswith(text, pos) or not single.isdisjoint(text):
                    return None
                out.append((pos, end, ids[first:k]))
            pos = end
        return out if pos == len(piece) else None

    def walk(self, piece: str, pos: int, ids: list[int], k: int) -> list[Triple] | None:
        """The spans of ``ids[k:]`` over ``piece[pos:]`` by trying each split in turn (sampled ids
        that no certain reading places)."""
        if k == len(ids):
            return [] if pos == len(piece) else None
        token_id = ids[k]
        token = self.texts[token_id] if 0 <= token_id < len(self.texts) else ""
        if token_id not in self.unwritten and token and piece.startswith(token, pos):
            rest = self.walk(piece, pos + len(token), ids, k + 1)
            if rest is not None:
                return [(pos, pos + len(token), (token_id,))] + rest
        if token_id in self.unwritten:
            for end in range(pos + 1, len(piece) + 1):
                if token_id == self.unk_id:
                    run, used = (token_id,), 1
                else:
                    data = piece[pos:end].encode("utf-8", "surrogatepass")
                    run, used = tuple(ids[k:k + len(data)]), len(data)
                    if run != tuple(self.byte_ids[b] for b in data):
                        continue
                rest = self.walk(piece, end, ids, k + used)
                if rest is not None:
                    return [(pos, end, run)] + rest
        return None


def _positions(ids: tuple[int, ...], token_id: int, count: int) -> list[int]:
    """Where ``token_id`` (``count`` times) is in ``ids``: by ``index`` (a scan in C from each one
    to the next) where it is rare, else by one comparison per id.

    >>> _positions((0, 5, 0, 7), 0, 2), _positions((0,) * 3, 0, 3)
    ([0, 2], [0, 1, 2])
    """
    if count * 16 > len(ids):
        return list(compress(range(len(ids)), map(token_id.__eq__, ids)))
    out = []
    at = -1
    for _ in range(count):
        at = ids.index(token_id, at + 1)
        out.append(at)
    return out
