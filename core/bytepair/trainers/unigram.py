"""HF's ``UnigramTrainer``: a Unigram model learned from word counts by EM, pruned to size.

Why HF's algorithm step by step: the target is HF ``tokenizers`` 0.23.3's pieces and scores (within
1e-6 relative). The steps, as HF runs them:

1. **Seeds** (``unigram_seed.py``): every character and the frequent substrings, as log shares.
2. **EM**, ``n_sub_iterations`` times per round: the E-step gives each piece its expected count
   over every word's lattice (forward-backward, weighted by the word's count); the M-step drops
   pieces expected fewer than 0.5 times and scores the rest ``digamma(count) - digamma(total)``
   (the Bayesian estimate HF and sentencepiece use).
3. **Prune** while there are more than ``1.1 * vocab_size`` pieces: a piece that its own text
   segments into other pieces is kept only if used; for the others the loss of likelihood if it were
   replaced by its second-best segmentation is estimated, and the pieces of least loss go, keeping
   ``max(1.1 * vocab_size, shrinking_factor * size)``.
4. **Finalize**: every character of the corpus (and ``initial_alphabet``) is kept (a missing one
   scored just above the lowest score), then the best pieces up to ``vocab_size`` with the special
   tokens first (``unk_token`` at 0 unless it is one of them), sorted by score.

Where HF is not deterministic, the rule here: HF visits the required characters in hash order
(which decides the order of equal scores and the small increments given to missing characters);
here they go in code point order. docs/TRAINING.md says how close that is to HF's own runs.

>>> trainer = UnigramTrainer(vocab_size=12, unk_token="<unk>", special_tokens=["<unk>"], show_progress=False)
>>> model = trainer.train_model({"hello": 5, "world": 3, "help": 2}, None)
>>> model.vocab[0], len(model.vocab) <= 12, model.encode_piece("hello") != ()
(('<unk>', 0.0), True, True)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from itertools import compress
from typing import Any

from ..bulk import gc_paused
from ..errors import TrainingError
from ..models.unigram import model as unigram_model
from ..models.unigram.lattice import UNK_PENALTY, PieceTable, best_path, lattice_nodes, walk_back
from ..models.unigram.model import Unigram
from ..models.unigram.sampling import nbest_paths
from .base import ignore_unknown
from .bpe_trainer import special_token_strings
from .progress import Reporter
from .unigram_seed import seed_pieces

__all__ = ["UnigramTrainer", "digamma"]

Pieces = list[tuple[str, float]]
_NOTHING = -math.inf


def digamma(x: float) -> float:
    """The digamma function by HF's series (exactly its steps, so scores match to the last bits).

    >>> round(digamma(1.0), 9)
    -0.577215665
    """
    result = 0.0
    while x < 7.0:
        result -= 1.0 / x
        x += 1.0
    x -= 0.5
    xx = 1.0 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    result += math.log(x) + (1.0 / 24.0) * xx2 - 7.0 / 960.0 * xx4 + (31.0 / 8064.0) * xx4 * xx2 \
        - (127.0 / 30720.0) * xx4 * xx4
    return result


Node = tuple[int, int, tuple[int, float]]
"""A node of a word's lattice during training: ``(start, end, (id, score))``."""
Spans = tuple[list[int], list[int], list[int]]
"""A word's matches against the seeds: their starts, ends and seed ids, by start, shortest first."""


def _viterbi(nodes: list[Node], n: int) -> list[tuple[int, int, int]]:
    """The best path through a word's nodes, in start order (``lattice.best_path``'s rule: strictly
    better only; a start's sum is final before its first node is read)."""
    score = [0.0] * (n + 1)
    back = [-1] * (n + 1)
    ids = [0] * (n + 1)
    for start, end, (token_id, node_score) in nodes:
        candidate = node_score + score[start]
        if back[end] < 0 or candidate > score[end]:
            score[end], back[end], ids[end] = candidate, start, token_id
    return walk_back(back, ids, n)


class _Model:
    """The pieces during training as HF's ``Unigram::from(pieces, unk_id=0)`` sees them. Pieces are
    only ever removed after the seeds, so each word's matches against the seeds are found once
    (``spans``) and each model keeps those still in it."""

    def __init__(self, pieces: Pieces) -> None:
        self.pieces = pieces
        scores = [s for _, s in pieces if not math.isnan(s)]
        self.unk_score = min(scores, default=math.inf) - UNK_PENALTY
        self.entries = {p: (i, s) for i, (p, s) in enumerate(pieces) if i}
        self._table: PieceTable | None = None
        self._lookup: list[tuple[int, float] | None] | None = None

    @property
    def table(self) -> PieceTable:
        """The pieces' table, built on first use (the E-steps read the seeds' matches instead)."""
        if self._table is None:
            self._table = PieceTable(self.entries)
        return self._table

    def nodes(self, text: str) -> list[list[tuple[int, int, int, float]]]:
        return lattice_nodes(text, self.table, 0, self.unk_score)

    def nodes_of_spans(self, spans: list[list[tuple[int, str]]]) -> list[list[tuple[int, int, int, float]]]:
        """``nodes`` from a word's seed matches (``spans[start]``: ``(end, piece)``, shortest first)."""
        get = self.entries.get
        begins = []
        for start, here in enumerate(spans):
            nodes = []
            single = False
            for end, piece in here:
                found = get(piece)
                if found is not None:
                    nodes.append((start, end, found[0], found[1]))
                    if end == start + 1:
                        single = True
            if not single:
                nodes.append((start, start + 1, 0, self.unk_score))
            begins.append(nodes)
        return begins


    def flat_nodes(self, text: str, spans: Spans, missing: set[str], seeds: list[str]) -> list[Node]:
        """The nodes of ``text`` from its seed matches (``spans``; ``seeds``: the seed pieces by
        id), by start (then length; the unknown node last). ``missing``: the characters no piece
        of this model is (an unknown node where they stand, else none). Why ``compress``: each
        round keeps fewer of the seeds, and the matches of those gone are dropped in C."""
        if self._lookup is None:
            self._lookup = list(map(self.entries.get, seeds))
        starts, ends, ids = spans
        found = list(map(self._lookup.__getitem__, ids))
        if missing.isdisjoint(text):
            return list(compress(zip(starts, ends, found), found))
        unknown = [i for i, ch in enumerate(text) if ch in missing]
        out: list[Node] = []
        k = 0
        unk = (0, self.unk_score)
        for node in compress(zip(starts, ends, found), found):
            while k < len(unknown) and unknown[k] < node[0]:
                out.append((unknown[k], unknown[k] + 1, unk))
                k += 1
            out.append(node)  # type: ignore[arg-type]
        out.extend((i, i + 1, unk) for i in unknown[k:])
        return out

    def kept_spans(self, spans: list[Spans], seeds: list[str]) -> list[Spans]:
        """``spans`` without the matches of seeds this model no longer has (a seed once gone never
        comes back): later models' ``flat_nodes`` scan only what is left (about half of the
        seeds' matches on en at 2,000 pieces)."""
        if self._lookup is None:
            self._lookup = list(map(self.entries.get, seeds))
        get = self._lookup.__getitem__
        out: list[Spans] = []
        for starts, ends, ids in spans:
            alive = list(map(get, ids))
            out.append((list(compress(starts, alive)), list(compress(ends, alive)), list(compress(ids, alive))))
        return out

    def missing(self, chars: set[str]) -> set[str]:
        """The characters of ``chars`` that no piece of this model is."""
        return {ch for ch in chars if ch not in self.entries}


class UnigramTrainer:
    """HF's ``trainers.UnigramTrainer(vocab_size=8000, show_progress=True, special_tokens=[],
    shrinking_factor=0.75, unk_token=None, max_piece_length=16, n_sub_iterations=2, initial_alphabet=[],
    seed_size=1000000)``."""

    family = "Unigram"

    def __init__(self, vocab_size: int = 8000, show_progress: bool = True, special_tokens: Sequence[Any] = (),
                 shrinking_factor: float = 0.75, unk_token: str | None = None, max_piece_length: int = 16,
                 n_sub_iterations: int = 2, initial_alphabet: Iterable[str] = (), seed_size: int = 1_000_000,
                 **unknown: Any) -> None:
        ignore_unknown(unknown, "UnigramTrainer")
        for name, value in (("vocab_size", vocab_size), ("max_piece_length", max_piece_length),
                            ("n_sub_iterations", n_sub_iterations), ("seed_size", seed_size)):
            if type(value) is not int or value < 0:
                raise TrainingError(f"{name} must be an int >= 0, not {value!r}")
        if not (isinstance(shrinking_factor, (int, float)) and 0 < shrinking_factor < 1):
            raise TrainingError(f"shrinking_factor must be a number between 0 and 1, not {shrinking_factor!r}")
        self.vocab_size, self.show_progress = vocab_size, bool(show_progress)
        self.special_tokens = list(special_tokens)
        self._special = special_token_strings(self.special_tokens)
        self.shrinking_factor, self.unk_token = float(shrinking_factor), unk_token
        self.max_piece_length, self.n_sub_iterations, self.seed_size = max_piece_length, n_sub_iterations, seed_size
        # HF keeps the first character of each string given.
        self.initial_alphabet = sorted({s[0] for s in initial_alphabet if s})

    def __repr__(self) -> str:
        return (f"UnigramTrainer(vocab_size={self.vocab_size}, unk_token={self.unk_token!r}, "
                f"special_tokens={self.special_tokens!r})")

    # ---------------------------------------------------------------- EM
    def e_step(self, model: _Model, sentences: list[tuple[str, int]],
               spans: list[Spans] | None = None, seeds: list[str] | None = None) -> list[float]:
        """Each piece's expected count over all sentences (``spans``: each sentence's seed matches,
        ``seeds``: the seed pieces by id).

        Forward and backward sums run over the word's nodes in start order (forward) and its
        reverse (backward), each folded with HF's log-sum-exp as it comes, written out in the loop."""
        expected = [0.0] * len(model.pieces)
        exp, log = math.exp, math.log
        missing = model.missing(set("".join([text for text, _ in sentences]))) if spans is not None else set()
        for k, (text, count) in enumerate(sentences):
            n = len(text)
            if spans is None or seeds is None:
                nodes = [(s, e, (i, score)) for here in model.nodes(text) for s, e, i, score in here]
            else:
                nodes = model.flat_nodes(text, spans[k], missing, seeds)
            # ``-inf`` where nothing is summed yet: the first term then comes out as it is
            # (``v > -inf + 50``), as HF's first term does (the scores are finite).
            alpha = [_NOTHING] * (n + 1)
            alpha[0] = 0.0
            for s, e, (_, score) in nodes:
                v = alpha[s] + score
                total = alpha[e]
                if total > v:
                    alpha[e] = total if total > v + 50.0 else total + log(exp(v - total) + 1.0)
                else:
                    alpha[e] = v if v > total + 50.0 else v + log(exp(total - v) + 1.0)
            beta = [_NOTHING] * (n + 1)
            beta[n] = 0.0
            for s, e, (_, score) in reversed(nodes):
                v = score + beta[e]
                total = beta[s]
                if total > v:
                    beta[s] = total if total > v + 50.0 else total + log(exp(v - total) + 1.0)
                else:
                    beta[s] = v if v > total + 50.0 else v + log(exp(total - v) + 1.0)
            z = alpha[n]
            for s, e, (token_id, score) in nodes:
                expected[token_id] += count * exp(alpha[s] + score + beta[e] - z)
        return expected

    @staticmethod
    def m_step(pieces: Pieces, expected: list[float]) -> Pieces:
        kept: Pieces = [(pieces[0][0], math.nan)]
        total = 0.0
        for freq, (piece, _) in zip(expected[1:], pieces[1:]):
            if freq < 0.5:
                continue
            kept.append((piece, freq))
            total += freq
        logsum = digamma(total)
        return [(piece, digamma(freq) - logsum) for piece, freq in kept]

    def prune(self, model: _Model, pieces: Pieces, sentences: list[tuple[str, int]],
              spans: list[Spans] | None = None, seeds: list[str] | None = None,
              piece_spans: dict[str, list[list[tuple[int, str]]]] | None = None, table: PieceTable | None = None) -> Pieces:
        """HF's pruning. ``piece_spans`` (filled here) and ``table``: each piece's matches against
        the seeds, found once for every round (the seeds' table)."""
        size = len(pieces)
        always_keep = [True] * size
        alternatives: list[list[int]] = [[] for _ in range(size)]
        always_keep[0] = False
        for token_id in range(1, size):
            token = pieces[token_id][0]
            if piece_spans is None or table is None:
                begins = model.nodes(token)
            else:
                found = piece_spans.get(token)
                if found is None:
                    found = piece_spans[token] = [[(end, token[start:end]) for end, _, _ in table.matches(token, start)]
                                                  for start in range(len(token))]
                begins = model.nodes_of_spans(found)
            best = nbest_paths(begins, len(token), 2)
            if len(best) == 1:
                always_keep[token_id] = True
            elif len(best[0][0]) >= 2:
                always_keep[token_id] = False
            elif len(best[0][0]) == 1:
                alternatives[token_id] = [i for _, _, i in best[1][0]]
        freq = [0.0] * size
        inverted: list[list[int]] = [[] for _ in range(size)]
        vsum = 0.0
        missing = model.missing(set("".join([text for text, _ in sentences]))) if spans is not None else set()
        for index, (text, count) in enumerate(sentences):
            vsum += count
            path = best_path(text, model.table, 0, model.unk_score) if spans is None or seeds is None else \
                _viterbi(model.flat_nodes(text, spans[index], missing, seeds), len(text))
            for _, _, token_id in path:
                freq[token_id] += count
                inverted[token_id].append(index)
        total = sum(freq)
        logsum = math.log(total)
        kept: Pieces = [pieces[0]]
        candidates: list[tuple[int, float]] = []
        for token_id in range(1, size):
            if freq[token_id] == 0.0 and not always_keep[token_id]:
                continue
            if not alternatives[token_id]:
                kept.append(pieces[token_id])
                continue
            f = sum(float(sentences[n][1]) for n in inverted[token_id])
            if f == 0.0 or math.isnan(f):
                continue
            f /= vsum
            logprob_sp = math.log(freq[token_id]) - logsum
            # HF's formula, with the number of all pieces (not of the alternatives) in it.
            logsum_alt = math.log(total + freq[token_id] * (size - 1))
            logprob_alt = sum(math.log(freq[n] + freq[token_id]) - logsum_alt for n in alternatives[token_id])
            candidates.append((token_id, f * (logprob_sp - logprob_alt)))
        desired = self.vocab_size * 11 // 10
        pruned_size = max(desired, int(size * self.shrinking_factor))
        candidates.sort(key=lambda item: -item[1])  # stable: equal losses keep id order, as HF
        for token_id, _ in candidates:
            if len(kept) == pruned_size:
                break
            kept.append(pieces[token_id])
        return kept

    # ---------------------------------------------------------------- the whole run
    def learn(self, words: Mapping[str, int]) -> tuple[list[tuple[str, float]], int | None]:
        """The final ``[(piece, score)]`` (special tokens first) and the unknown id. The cycle
        collector is off meanwhile: the run makes millions of tuples and lists and no cycles, and
        each full collection walked every word's matches again (~20% of the time on en at 2,000)."""
        with gc_paused():
            return self._learn(words)

    def _learn(self, words: Mapping[str, int]) -> tuple[list[tuple[str, float]], int | None]:
        sentences = [(w, int(n)) for w, n in words.items()]
        pieces: Pieces = [("<UNK>", math.nan)] + seed_pieces(words, self.max_piece_length, self.seed_size)
        required = sorted({ch for w in words for ch in w} | set(self.initial_alphabet))
        if len(required) > self.vocab_size:
            raise TrainingError(f"vocab_size {self.vocab_size} cannot hold the corpus's {len(required)} characters; "
                                "raise vocab_size (every character is kept)")
        desired = self.vocab_size * 11 // 10
        model = _Model(pieces)
        table = model.table
        spans: list[Spans] = []
        for text, _ in sentences:
            found = [(start, end, i) for start in range(len(text)) for end, i, _ in table.matches(text, start)]
            spans.append(([m[0] for m in found], [m[1] for m in found], [m[2] for m in found]))
        seeds = [piece for piece, _ in pieces]
        piece_spans: dict[str, list[list[tuple[int, str]]]] = {}
        # HF's estimate of the EM steps, for the progress bar (tqdm on a terminal, if installed).
        loops = int((math.log(desired) - math.log(len(pieces))) / math.log(self.shrinking_factor)) + 1 \
            if len(pieces) > desired > 0 else 1
        reporter = Reporter(None if self.show_progress else False)
        reporter.stage("EM training", loops * self.n_sub_iterations)
        steps = 0
        compacted = len(pieces)  # the pieces when ``spans`` were last left without the seeds gone
        try:
            while True:
                for _ in range(self.n_sub_iterations):
                    pieces = self.m_step(pieces, self.e_step(model, sentences, spans, seeds))
                    model = _Model(pieces)
                    if len(pieces) < compacted / 2:
                        spans, compacted = model.kept_spans(spans, seeds), len(pieces)
                    steps += 1
                    reporter.update(steps)
                if len(pieces) <= desired:
                    break
                pieces = self.prune(model, pieces, sentences, spans, seeds, piece_spans, table)
                model = _Model(pieces)
                if len(pieces) < compacted / 2:
                    spans, compacted = model.kept_spans(spans, seeds), len(pieces)
        finally:
            reporter.close()
        return self.finalize(pieces, required)

    def finalize(self, pieces: Pieces, required: list[str]) -> tuple[list[tuple[str, float]], int | None]:
        min_score = min((s for _, s in pieces if not math.isnan(s)), default=math.inf)
        existing = dict(pieces)
        out: Pieces = []
        inserted = {"<UNK>"}
        penalty = 0.0
        for ch in required:
            inserted.add(ch)
            if ch in existing:
                out.append((ch, existing[ch]))
            else:
                out.append((ch, min_score + penalty))
                penalty += 0.0001
        unk_id: int | None = None
        add_unk = False
        if self.unk_token is not None:
            unk_id = self._special.index(self.unk_token) if self.unk_token in self._special else 0
            add_unk = self.unk_token not in self._special
        room = self.vocab_size - len(self._special) - (1 if add_unk else 0)
        for piece, score in pieces:
            if piece in inserted:
                continue
            inserted.add(piece)
            out.append((piece, 0.0 if math.isnan(score) else score))
            if len(out) == room:
                break
        out.sort(key=lambda item: -item[1])
        special = [(token, 0.0) for token in self._special]
        if add_unk:
            special.insert(0, (self.unk_token, 0.0))  # type: ignore[arg-type]
        return special + out, unk_id

    def train_model(self, words: Mapping[str, int], model: Any) -> Unigram:
        """A Unigram model of ``words`` (pre-tokenized word -> count)."""
        if model is not None and not isinstance(model, Unigram):
            raise TrainingError(f"UnigramTrainer trains a Unigram model, not {type(model).__name__}; use that model's trainer")
        if not words:
            raise TrainingError("no words to train on: the corpus is empty after normalization and pre-tokenization")
        vocab, unk_id = self.learn(words)
        return Unigram(vocab, unk_id=unk_id)


unigram_model.TRAINER = UnigramTrainer
