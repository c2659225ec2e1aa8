"""The Unigram model (HF's ``tokenizers.models.Unigram``): a vocabulary of pieces with log
probabilities, and the most probable segmentation of each piece.

Why its own model: BPE merges pairs in a fixed order; Unigram scores every way to cut a piece and
keeps the best (``lattice.py``), and can draw other cuts at random for subword regularisation
(``sampling.py``, with ``alpha`` and ``nbest_size`` as HF's and a ``seed`` of ours, so that a run
can be repeated). T5, ALBERT, XLM-R, mBART and every SentencePiece Unigram ``.model`` use it.

HF's rules for what comes out: a run of unknown characters is one token (the unknown id, whose
token string is the run's own text, as HF's ``Encoding.tokens`` shows it); with ``byte_fallback``
such a run becomes the ``<0xNN>`` tokens of its UTF-8 bytes when all 256 exist.

>>> model = Unigram([("<unk>", 0.0), ("a", -1.0), ("b", -2.0), ("ab", -2.5)], unk_id=0)
>>> model.encode_piece("abxyab"), [t.value for t in model.tokenize("abxyab")]
((3, 0, 3), ['ab', 'xy', 'ab'])
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from itertools import chain, compress, repeat
from random import Random
from typing import Any

from ...errors import InvalidArgumentError, VocabFormatError
from ..token import Token
from .lattice import UNK_PENALTY, PieceTable, best_path, fuse_unknown, lattice_nodes
from .spans import TokenSpans
from .stretches import BestPaths
from .sampling import sample_nbest, sample_path

__all__ = ["TRAINER", "Unigram"]

TRAINER: Any = None
"""The trainer class of this family, set by ``trainers/unigram.py`` when it is imported."""


class Unigram:
    """``encode_piece(str) -> ids`` by the best (or a sampled) segmentation, plus the vocabulary."""

    def __init__(
        self,
        vocab: Sequence[tuple[str, float]] | None = None,
        unk_id: int | None = None,
        byte_fallback: bool = False,
        alpha: float | None = None,
        nbest_size: int | None = None,
        *,
        seed: int | None = None,
        where: str = "model",
    ) -> None:
        """``vocab``: ``[(piece, score), ...]`` in id order (None: HF's default, ``[("<unk>", 0.0)]``
        with ``unk_id`` 0). ``alpha``: sample segmentations (smoothing, 0 < alpha); ``nbest_size``:
        among the n best only. ``seed``: the random source of sampling (ours; HF's is unseeded)."""
        if vocab is None:
            vocab, unk_id = [("<unk>", 0.0)], 0 if unk_id is None else unk_id
        self.vocab = [(str(piece), float(score)) for piece, score in vocab]
        if unk_id is not None:
            if not self.vocab:
                raise VocabFormatError(f"{where}.vocab is empty but unk_id is set; at least <unk> is needed")
            if not (isinstance(unk_id, int) and 0 <= unk_id < len(self.vocab)):
                raise VocabFormatError(f"{where}.unk_id {unk_id!r} is not an index of {where}.vocab ({len(self.vocab)} entries)")
        self.unk_id = unk_id
        self.byte_fallback = bool(byte_fallback)
        self.alpha = alpha
        self.nbest_size = nbest_size
        self.seed = seed
        self.rng = Random(seed)
        self._ids = {piece: i for i, (piece, _) in enumerate(self.vocab)}  # a repeated piece: its last id, as HF
        self.table = PieceTable({piece: (self._ids[piece], self.vocab[self._ids[piece]][1]) for piece in self._ids})
        self.min_score = min((score for _, score in self.vocab), default=math.inf)
        self.unk_score = self.min_score - UNK_PENALTY
        self._byte_ids = [self._ids.get(f"<0x{b:02X}>") for b in range(256)] if self.byte_fallback else []
        self._spans = TokenSpans([piece for piece, _ in self.vocab], unk_id, self._byte_ids, self._best_cut)
        """Where each token of a piece stands (``spans.py``), for offsets and token strings."""
        # "▁" never inside a piece: every "▁" of a text starts a stretch no piece crosses (long
        # pieces, as Metaspace without split gives, are cut there; ``_best``).
        self._cut = "\u2581" if not any("\u2581" in piece[1:] for piece in self._ids) else None
        unk_piece = self.vocab[unk_id][0] if unk_id is not None else ""
        safe = self._cut is not None and (
            unk_id is None or (self._ids.get(self._cut) not in (None, unk_id) and not unk_piece.startswith(self._cut)))
        self._paths = BestPaths(self.table, unk_id, self.unk_score, self._cut, safe, self._path_ids,
                                None if self.byte_fallback else self._node_ids) \
            if self.table.finite and (unk_id is None or math.isfinite(self.unk_score)) else None
        """The best paths (``stretches.py``) where every score is finite; else :func:`best_path`."""
        self.dropout = float(alpha) if alpha and 0 < alpha <= 1 else 0.0
        """What ``Tokenizer.encode`` reads to sample (as BPE's dropout): ``alpha`` when set, so that
        each call draws anew from its seeded generator (``encode(..., seed=)``) past the piece cache."""
        self.token_byte_length = None  # not byte-level: offsets come from piece_byte_lengths

    # ---------------------------------------------------------------- vocabulary
    def token_to_id(self, token: str) -> int | None:
        return self._ids.get(token)

    def id_to_token(self, token_id: int) -> str | None:
        return self.vocab[token_id][0] if 0 <= token_id < len(self.vocab) else None

    def get_vocab_size(self) -> int:
        return len(self.vocab)

    def get_vocab(self) -> dict[str, int]:
        """Piece -> id (HF's ``get_vocab``)."""
        return dict(self._ids)

    def vocabulary_json(self) -> dict[str, Any]:
        """``model.vocab`` as a ``tokenizer.json`` writes it: ``[[piece, score], ...]``."""
        return {"vocab": [[piece, score] for piece, score in self.vocab]}

    def to_json(self) -> dict[str, Any]:
        """The whole ``tokenizer.json`` model object, as HF writes it."""
        return {"type": "Unigram", "unk_id": self.unk_id, **self.vocabulary_json(), "byte_fallback": self.byte_fallback}

    def save(self, folder: str | os.PathLike[str], prefix: str | None = None) -> list[str]:
        """Writes ``unigram.json`` (or ``{prefix}-unigram.json``) into ``folder``, as HF's ``save``."""
        path = os.path.join(os.fspath(folder), f"{prefix}-unigram.json" if prefix else "unigram.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_json(), f, ensure_ascii=False, indent=2)
        return [path]

    def get_trainer(self) -> Any:
        """A ``UnigramTrainer`` with HF's defaults (``trainers/unigram.py`` sets ``TRAINER``: the
        trainers sit above the models)."""
        if TRAINER is None:
            raise InvalidArgumentError("import bytepair.trainers for Unigram's trainer")
        return TRAINER()

    # ---------------------------------------------------------------- encoding
    def segments(self, piece: str, *, sample: bool | None = None, rng: Random | None = None) -> list[tuple[int, int, int]]:
        """The piece's cut as ``(start, end, id)`` in characters, unknown runs fused (not yet
        split into bytes). ``sample``: draw a cut (None: when ``alpha`` is set, as HF)."""
        if not piece:
            return []
        if sample is None:
            sample = bool(self.alpha)
        if not sample:
            return fuse_unknown(self._best(piece), self.unk_id)
        nodes = lattice_nodes(piece, self.table, self.unk_id, self.unk_score)
        alpha = float(self.alpha or 0.0)
        if self.nbest_size is not None and self.nbest_size > 0:
            path = sample_nbest(nodes, len(piece), self.nbest_size, alpha, rng or self.rng)
        else:
            path = sample_path(nodes, len(piece), alpha, rng or self.rng)
        return fuse_unknown(path, self.unk_id)

    def _best(self, piece: str) -> list[tuple[int, int, int]]:
        """:func:`best_path` of ``piece`` (unknown nodes not fused), stretch by stretch when long
        (``stretches.py``)."""
        if self._paths is None:
            return best_path(piece, self.table, self.unk_id, self.unk_score)
        return self._paths.path(piece)

    def _path_ids(self, piece: str, path: list[tuple[int, int, int]]) -> tuple[int, ...]:
        """The ids of a best path through ``piece``: unknown runs fused, into bytes with byte fallback."""
        unk = self.unk_id
        if unk is None or all(token_id != unk for _, _, token_id in path):
            return tuple([token_id for _, _, token_id in path])  # every segment a vocabulary entry
        if self.byte_fallback:
            return tuple(i for _, token_id, _ in self._tokens(piece, fuse_unknown(path, unk)) for i in token_id)
        return self._node_ids(piece, [(token_id, 0.0, end - start) for start, end, token_id in path])

    def _node_ids(self, piece: str, nodes: list[tuple[int, float, int]]) -> tuple[int, ...]:
        """The ids of a best path through ``piece`` given as ``(id, score, length)`` nodes (as
        ``lattice.viterbi`` gives it), without byte fallback: ``_tokens`` of the fused path in one
        pass (a first pass over text in another script is mostly unknown runs); a run's id is that
        of its text if it is an entry."""
        unk = self.unk_id
        get = self._ids.get
        out = []
        run = -1  # where the unknown run being read starts
        run_end = pos = 0
        for node in nodes:
            token_id = node[0]
            end = pos + node[2]
            if token_id == unk:
                if run < 0:
                    run = pos
                run_end = end
            else:
                if run >= 0:
                    out.append(get(piece[run:run_end], unk))
                    run = -1
                out.append(token_id)
            pos = end
        if run >= 0:
            out.append(get(piece[run:run_end], unk))
        return tuple(out)

    def encode_piece(self, piece: str, *, dropout: float = 0.0, rng: Random | None = None) -> tuple[int, ...]:
        """Token ids of one piece: the best cut; a sampled one when ``alpha`` is set, or when
        ``dropout`` (what ``Tokenizer.encode(..., dropout=)`` passes) is given: for a Unigram model it
        is the sampling ``alpha``, drawn from ``rng``."""
        if not piece:
            return ()
        if dropout:
            saved = self.alpha
            self.alpha = self.alpha or dropout
            try:
                segments = self.segments(piece, sample=True, rng=rng)
            finally:
                self.alpha = saved
        elif self.alpha:
            segments = self.segments(piece, rng=rng)
        elif self._paths is not None:
            return self._paths.ids(piece)
        else:
            segments = self.segments(piece)
        unk = self.unk_id
        if unk is None or all(token_id != unk for _, _, token_id in segments):
            return tuple([token_id for _, _, token_id in segments])  # every segment a vocabulary entry
        return tuple(i for _, token_id, _ in self._tokens(piece, segments) for i in token_id)

    def _tokens(self, piece: str, segments: list[tuple[int, int, int]]) -> list[tuple[str, tuple[int, ...], tuple[int, int]]]:
        """``(token string, ids, (start, end))`` per segment: an unknown run as its byte tokens
        where ``byte_fallback`` has them all, else as the unknown id with the run's own text."""
        out = []
        for start, end, token_id in segments:
            text = piece[start:end]
            if token_id == self.unk_id and self._ids.get(text) is None and self.byte_fallback:
                byte_ids = [self._byte_ids[b] for b in text.encode("utf-8", "surrogatepass")]
                if None not in byte_ids:
                    out.append((text, tuple(byte_ids), (start, end)))  # type: ignore[arg-type]
                    continue
            out.append((text, (self._ids.get(text, token_id),), (start, end)))
        return out

    def tokenize(self, sequence: str) -> list[Token]:
        """HF's ``Model.tokenize``: the tokens with their UTF-8 byte offsets in ``sequence`` (each
        byte-fallback token spans its whole unknown run, as HF's)."""
        tokens = []
        offset = 0
        for text, ids, _ in self._tokens(sequence, self.segments(sequence)):
            n = len(text.encode("utf-8", "surrogatepass"))
            if len(ids) > 1 or (self.byte_fallback and ids[0] != self._ids.get(text) and ids[0] != self.unk_id):
                tokens.extend(Token(i, self.vocab[i][0], (offset, offset + n)) for i in ids)
            else:
                tokens.append(Token(ids[0], text, (offset, offset + n)))
            offset += n
        return tokens

    def piece_tokens(self, piece: str, ids: tuple[int, ...]) -> list[str]:
        """The token strings of ``ids`` (which this model gave ``piece``) as HF's ``Encoding``
        shows them: an unknown run's token is the run's own text."""
        starts, ends, runs, words = self._spans.cut(piece, ids)
        if words is not None:  # (read off the tokens' texts: an unknown run's own text in its place)
            return words
        if runs is None:  # a token a span: the vocabulary's strings, an unknown run's own text
            tokens = list(map(self._spans.texts.__getitem__, ids))
            if self.unk_id is not None and self.unk_id in ids:
                for k in compress(range(len(ids)), map(self.unk_id.__eq__, ids)):
                    tokens[k] = piece[starts[k]:ends[k]]
            return tokens
        out = []
        for start, end, run in zip(starts, ends, runs):
            if len(run) == 1 and run[0] == self.unk_id:
                out.append(piece[start:end])
            else:
                out.extend(self.vocab[i][0] for i in run)
        return out

    def piece_byte_lengths(self, piece: str, ids: tuple[int, ...]) -> list[int]:
        """How many UTF-8 bytes of ``piece`` each of its ``ids`` covers (for offsets): each token of
        a byte-fallback run the whole run, as HF's."""
        return [n for _, n in self._byte_spans(piece, ids)]

    def piece_byte_starts(self, piece: str, ids: tuple[int, ...]) -> list[int]:
        """The first UTF-8 byte of ``piece`` each of its ``ids`` covers (a byte-fallback run's tokens
        all start where the run does)."""
        return [s for s, _ in self._byte_spans(piece, ids)]

    def piece_char_spans(self, piece: str, ids: tuple[int, ...]) -> tuple[list[int], list[int]]:
        """Each of ``ids``' first and end characters in ``piece`` (a byte-fallback run's tokens each
        the whole run, as HF's): :meth:`piece_byte_lengths` in characters, for the pipeline's bulk
        path (its byte-wise rule, ``_token_char_spans``, is the reference).

        >>> Unigram([("<unk>", 0.0), ("a", -1.0), ("b", -2.0), ("ab", -2.5)], unk_id=0).piece_char_spans("abxyab", (3, 0, 3))
        ([0, 2, 4], [2, 4, 6])
        """
        starts, ends, runs, _ = self._spans.cut(piece, ids)
        if runs is None:
            return starts, ends
        counts = list(map(len, runs))
        return list(chain.from_iterable(map(repeat, starts, counts))), list(chain.from_iterable(map(repeat, ends, counts)))

    def _byte_spans(self, piece: str, ids: tuple[int, ...]) -> list[tuple[int, int]]:
        starts, ends, runs, _ = self._spans.cut(piece, ids)
        out = []
        pos = 0
        for start, end, run in zip(starts, ends, runs if runs is not None else zip(ids)):
            n = len(piece[start:end].encode("utf-8", "surrogatepass"))
            out.extend([(pos, n)] * len(run))
            pos += n
        return out

    def _best_cut(self, piece: str) -> list[tuple[int, int, tuple[int, ...]]]:
        """The best cut's spans and their ids (``spans.TokenSpans``' last resort but one)."""
        return [(s, e, run) for _, run, (s, e) in self._tokens(piece, self.segments(piece, sample=False))]

    def nbest(self, piece: str, n: int) -> list[list[str]]:
        """The ``n`` best segmentations of ``piece`` as token strings, best first (HF's lattice
        ``nbest_tokens``; unknown runs not fused)."""
        from .sampling import nbest_paths  # noqa: PLC0415

        nodes = lattice_nodes(piece, self.table, self.unk_id, self.unk_score)
        return [[piece[s:e] for s, e, _ in path] for path, _ in nbest_paths(nodes, len(piece), n)]


def unigram_from_json(obj: dict[str, Any], origin: str, *, byte_level: bool = False, parts: Any = None) -> Unigram:
    """The model of a ``tokenizer.json`` whose ``model.type`` is ``"Unigram"`` (``MODEL_READERS``).

    >>> unigram_from_json({"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["a", -1.0]]}, "t").encode_piece("ab")
    (1, 0)
    """
    vocab = obj.get("vocab")
    if not isinstance(vocab, list) or not all(
            isinstance(e, (list, tuple)) and len(e) == 2 and isinstance(e[0], str)
            and isinstance(e[1], (int, float)) and not isinstance(e[1], bool) for e in vocab):
        raise VocabFormatError(f"{origin}: model.vocab of a Unigram model must be a list of [piece, score] pairs")
    unk_id = obj.get("unk_id")
    if unk_id is not None and (type(unk_id) is not int or unk_id < 0):
        raise VocabFormatError(f"{origin}: model.unk_id must be null or an index into model.vocab, not {unk_id!r}")
    return Unigram([(p, s) for p, s in vocab], unk_id=unk_id, byte_fallback=bool(obj.get("byte_fallback", False)),
                   where=f"{origin}: model")
