"""``SentencePieceModel`` encodes a long Unigram text stretch by stretch (each ``"▁"`` starts
one, each stretch's path remembered: ``models/sentencepiece_stretches.py``); these tests hold it
to the plain whole-text lattice (``_unigram``) and to ``sentencepiece`` itself: near ties in the
32-bit sums, texts long enough that the sums are renormalized past 1e5, unknown characters,
user-defined pieces."""

from __future__ import annotations

import random

import pytest

from bytepair.formats.sentencepiece_model import Piece
from bytepair.models.sentencepiece import SentencePieceModel
from bytepair.models.sentencepiece_stretches import STRETCHED
from tests.spm_reference import corpus_text, spm_model, spm_processor

spm = pytest.importorskip("sentencepiece")


def _random_model(rnd: random.Random) -> SentencePieceModel:
    pieces = {"▁" * (rnd.random() < 0.5) + "".join(rnd.choice("ab-é") for _ in range(rnd.randint(1, 4))) for _ in range(25)}
    pieces.add("▁")
    # Scores such that sums tie or nearly tie (1.5 = 0.75 + 0.75; 0.1-steps that round).
    grid = [0.75, 1.5, 3.0, 0.1, 0.2, 0.3, 2.25]
    out = [Piece("<unk>", 0.0, 2)] + [Piece(p, -rnd.choice(grid) * rnd.choice([1, 1, 2]), 1) for p in sorted(pieces)]
    if rnd.random() < 0.3:
        out.append(Piece("ab-", 0.0, 4))  # user-defined
    return SentencePieceModel(out, model_type=1, unk_id=0)


def test_stretches_equal_the_whole_lattice() -> None:
    rnd = random.Random(7)
    for case in range(40):
        model = _random_model(rnd)
        assert model._cut is not None
        for _ in range(2):
            n = rnd.randint(30_000, 60_000) if case % 4 == 0 else rnd.randint(STRETCHED, 400)  # long ones pass 1e5
            text = "".join(rnd.choice(["▁", "a", "b", "-", "é", "c", "ab", "--", "▁a", "x"]) for _ in range(n))
            assert model.encode(text) == model._unigram(text)


def test_long_texts_as_sentencepiece() -> None:
    """Whole corpus texts (sums renormalized many times) give sentencepiece's ids."""
    for name in ("unigram", "unigram_bytes", "nfkc_cf_symbols"):
        import bytepair

        ours = bytepair.SentencePieceProcessor(model_file=str(spm_model(name)))
        ref = spm_processor(name)
        text = corpus_text()
        for chunk in (text, text[: len(text) // 3], text.replace("\n", " ")):
            assert ours.encode(chunk) == ref.encode(chunk), name
