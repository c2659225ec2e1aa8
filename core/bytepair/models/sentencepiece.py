"""The segmentation rules of sentencepiece's own models (``unigram_model.cc``, ``bpe_model.cc``),
over a ``.model``'s pieces, for ``SentencePieceProcessor``.

Why not ``models.Unigram`` / ``models.BPE``: sentencepiece's rules differ from HF's in details that
change ids. Its Unigram (as of sentencepiece 0.2.3) sums scores in 32-bit floats
(each sum rounded, and taken back by the sum so far when it passes 1e5: the ties this decides are
held equal by the tests), scores a user-defined piece ``0.1 * (length - 1)`` (so it wins), never matches control, unknown or byte pieces
inside text and skips unused ones; its BPE has no merges list: the adjacent pair whose joined text
is a piece with the highest score merges first (the leftmost of equal ones), user-defined pieces
never merge, and an unused piece that was merged is split back into what it was made of.

>>> from ..formats.sentencepiece_model import Piece
>>> pieces = [Piece("<unk>", 0, 2), Piece("a", -1.0), Piece("b", -2.0), Piece("ab", -0.5)]
>>> SentencePieceModel(pieces, model_type=2, unk_id=0).encode("abxb")
[('ab', 3), ('x', 0), ('b', 2)]
"""

from __future__ import annotations

import heapq
import math
from array import array
from collections.abc import Sequence
from random import Random
from typing import Any

from ..formats.sentencepiece_model import BPE, NORMAL, UNUSED, USER_DEFINED, Piece
from .sentencepiece_stretches import STRETCHED, long_unigram
from .unigram.lattice import UNK_PENALTY, PieceTable, lattice_nodes
from .unigram.sampling import nbest_paths, sample_path

__all__ = ["SentencePieceModel"]

FLT_MAX = 3.4028234663852886e38
SPACE = "\u2581"
_STOP = object()


def f32(x: float) -> float:
    """``x`` rounded to a 32-bit float (sentencepiece's ``float``)."""
    return array("f", (x,))[0]


class SentencePieceModel:
    """``encode(normalized) -> [(piece, id)]`` by the model type's rule (1: Unigram, 2: BPE)."""

    def __init__(self, pieces: Sequence[Piece], *, model_type: int, unk_id: int) -> None:
        self.pieces = list(pieces)
        self.model_type = model_type
        self.unk_id = unk_id
        self.matchable: dict[str, int] = {}  # NORMAL, USER_DEFINED, UNUSED: what text can match
        self.reserved: dict[str, int] = {}  # CONTROL, UNKNOWN, BYTE
        for i, p in enumerate(self.pieces):
            (self.matchable if p.type in (NORMAL, USER_DEFINED, UNUSED) else self.reserved).setdefault(p.piece, i)
        normal = [p.score for p in self.pieces if p.type == NORMAL]
        self.min_score = min(normal, default=FLT_MAX)
        self.unk_score = f32(self.min_score - UNK_PENALTY)
        self.user_defined = {p.piece for p in self.pieces if p.type == USER_DEFINED}
        self.max_length = max(map(len, self.matchable), default=0)
        # The beginnings (up to 4 characters) of matchable pieces: a position whose next characters
        # begin none is left early (as sentencepiece's trie walk stops).
        self.prefixes = {piece[:n] for piece in self.matchable for n in range(1, min(len(piece), 4) + 1)}
        self._table: PieceTable | None = None
        # Every beginning of a matchable piece -> ``(id, score in the best path)`` of the piece
        # it is, None where it is only a beginning (or an unused piece): ``_unigram``'s one lookup
        # per substring, a walk from a start ending at the first substring that begins none.
        self._trie: dict[str, tuple[int, float] | None] = dict.fromkeys(
            (piece[:n] for piece in self.matchable for n in range(1, len(piece))), None)
        for piece, i in self.matchable.items():
            if self.pieces[i].type != UNUSED:
                self._trie[piece] = (i, self._score(i, len(piece.encode("utf-8", "surrogatepass"))))
            else:
                self._trie.setdefault(piece, None)
        # "▁" never past the first character of a piece: long texts go stretch by stretch
        # (``sentencepiece_stretches.py``).
        self._cut = SPACE if not any(SPACE in piece[1:] for piece in self.matchable) else None
        self._stretches: dict[str, Any] = {}
        self._largest = max([abs(self.unk_score)] + [abs(v[1]) for v in self._trie.values() if v is not None])

    def piece_to_id(self, piece: str) -> int:
        """sentencepiece's ``PieceToId``: a reserved piece, else a matchable one, else ``unk_id``."""
        found = self.reserved.get(piece)
        if found is None:
            found = self.matchable.get(piece, self.unk_id)
        return found

    def _score(self, token_id: int, length: int) -> float:
        """A piece's score in a path; a user-defined piece's ``0.1 * (length - 1)`` (a bonus that
        makes it win), its length in UTF-8 bytes in the best path, in characters in the lattice."""
        p = self.pieces[token_id]
        if p.type == USER_DEFINED:
            return f32(0.1 * (length - 1))
        return p.score

    # ---------------------------------------------------------------- Unigram
    def _unigram(self, text: str) -> list[tuple[str, int]]:
        """``EncodeOptimized`` (sentencepiece 0.2.3): the best path in 32-bit sums; when the sum
        reaching a position passes 1e5 in size, it is subtracted from every position reached
        so far from there on (so long texts keep their precision: the ties this decides are
        sentencepiece's)."""
        n = len(text)
        best = array("f", bytes(4 * (n + 1)))
        back = [-1] * (n + 1)
        ids = [0] * (n + 1)
        get, stop = self._trie.get, _STOP
        rounded = array("f", (0.0,))  # a 32-bit slot: a sum stored and read back is the float sum
        frontier = 0
        for start in range(n):
            here = best[start]
            if here < -1e5 or here > 1e5:
                for i in range(start, frontier + 1):
                    if i == start or back[i] != -1:
                        best[i] = best[i] - here
                here = 0.0
            single = False
            for end in range(start + 1, n + 1):
                found = get(text[start:end], stop)
                if found is None:
                    continue
                if found is stop:
                    break
                token_id, score = found
                if end > frontier:
                    frontier = end
                rounded[0] = score + here
                candidate = rounded[0]
                if back[end] < 0 or candidate > best[end]:
                    best[end], back[end], ids[end] = candidate, start, token_id
                if end == start + 1:
                    single = True
            if not single:
                end = start + 1
                if end > frontier:
                    frontier = end
                rounded[0] = self.unk_score + here
                candidate = rounded[0]
                if back[end] < 0 or candidate > best[end]:
                    best[end], back[end], ids[end] = candidate, start, self.unk_id
        out = []
        end = n
        while end > 0:
            out.append((text[back[end]:end], ids[end]))
            end = back[end]
        out.reverse()
        return out

    def _lattice(self, text: str) -> list[list[tuple[int, int, int, float]]]:
        if self._table is None:
            self._table = PieceTable({piece: (i, self._score(i, len(piece)))
                                      for piece, i in self.matchable.items() if self.pieces[i].type != UNUSED})
        return lattice_nodes(text, self._table, self.unk_id, self.unk_score)

    # ---------------------------------------------------------------- BPE
    def _bpe(self, text: str, *, dropout: float = 0.0, rng: Random | None = None) -> list[tuple[str, int]]:
        """``bpe::Model::SampleEncode``: merge by piece score; ``dropout``: skip each merge with that chance."""
        symbols: list[str] = []
        frozen: list[bool] = []
        i = 0
        while i < len(text):
            n = self._symbol_length(text, i)
            symbols.append(text[i:i + n])
            frozen.append(n > 0 and text[i:i + n] in self.user_defined)
            i += max(n, 1)
        count = len(symbols)
        prev = list(range(-1, count - 1))
        nxt = list(range(1, count + 1))
        nxt[-1] = -1
        agenda: list[tuple[float, int, int, int]] = []
        unmerged: dict[str, tuple[str, str]] = {}

        def add(left: int, right: int) -> None:
            if left < 0 or right < 0 or frozen[left] or frozen[right]:
                return
            joined = symbols[left] + symbols[right]
            token_id = self.matchable.get(joined)
            if token_id is None:
                return
            heapq.heappush(agenda, (-self.pieces[token_id].score, left, right, len(joined)))
            if self.pieces[token_id].type == UNUSED:
                unmerged[joined] = (symbols[left], symbols[right])

        for k in range(1, count):
            add(k - 1, k)
        while agenda:
            _, left, right, size = heapq.heappop(agenda)
            if not symbols[left] or not symbols[right] or len(symbols[left]) + len(symbols[right]) != size:
                continue
            if dropout > 0 and (dropout >= 1 or (rng or Random()).random() < dropout):
                continue
            symbols[left] += symbols[right]
            nxt[left] = nxt[right]
            if nxt[right] >= 0:
                prev[nxt[right]] = left
            symbols[right] = ""
            add(prev[left], left)
            add(left, nxt[left])
        out: list[tuple[str, int]] = []
        k = 0 if count else -1
        while k != -1:
            self._resegment(symbols[k], unmerged, out)
            k = nxt[k]
        return out

    def _symbol_length(self, text: str, i: int) -> int:
        for n in range(min(max(map(len, self.user_defined), default=0), len(text) - i), 1, -1):
            if text[i:i + n] in self.user_defined:
                return n
        return 1

    def _resegment(self, piece: str, unmerged: dict[str, tuple[str, str]], out: list[tuple[str, int]]) -> None:
        token_id = self.piece_to_id(piece)
        if self.pieces[token_id].type != UNUSED or piece not in unmerged:
            out.append((piece, token_id))
            return
        left, right = unmerged[piece]
        self._resegment(left, unmerged, out)
        self._resegment(right, unmerged, out)

    # ---------------------------------------------------------------- the model's API
    def encode(self, normalized: str) -> list[tuple[str, int]]:
        if not normalized:
            return []
        if self.model_type == BPE:
            return self._bpe(normalized)
        if self._cut is None or len(normalized) < STRETCHED or not math.isfinite(self._largest):
            return self._unigram(normalized)
        return long_unigram(normalized, self._trie, self.unk_id, self.unk_score, self._cut, self._stretches, self._largest)

    def nbest(self, normalized: str, size: int) -> list[tuple[list[tuple[str, int]], float]]:
        """The ``size`` best segmentations and their scores (Unigram only)."""
        if not normalized:
            return [([], 0.0)]
        paths = nbest_paths(self._lattice(normalized), len(normalized), size)
        return [([(normalized[s:e], i) for s, e, i in path], score) for path, score in paths]

    def sample(self, normalized: str, alpha: float, rng: Random) -> list[tuple[str, int]]:
        """One segmentation drawn with probability ``∝ exp(alpha * score)`` (Unigram), or BPE
        with each merge dropped with probability ``alpha`` (BPE-dropout)."""
        if not normalized:
            return []
        if self.model_type == BPE:
            return self._bpe(normalized, dropout=alpha, rng=rng)
        return [(normalized[s:e], i) for s, e, i in sample_path(self._lattice(normalized), len(normalized), alpha, rng)]

    def sample_nbest(self, normalized: str, size: int, alpha: float, rng: Random) -> list[tuple[str, int]]:
        """One of the ``size`` best, drawn with probability ``∝ exp(alpha * score)``."""
        paths = self.nbest(normalized, size)
        top = max(score for _, score in paths)
        weights = [math.exp(alpha * (score - top)) for _, score in paths]
        pick = rng.random() * sum(weights)
        for (path, _), w in zip(paths, weights):
            pick -= w
            if pick < 0:
                return path
        return paths[-1][0]

