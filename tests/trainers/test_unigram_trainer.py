"""trainers.UnigramTrainer against HF tokenizers 0.23.3 on the same corpus and settings: the same
pieces; scores within 1e-6 relative, but for characters missing from the trained pieces, which HF
itself scores in hash order (each 0.0001 above the last); the HF face's train_from_iterator."""

from __future__ import annotations

import json
import math

import pytest

import bytepair
from bytepair.errors import TrainingError
from bytepair.trainers import UnigramTrainer
from bytepair.trainers.unigram import digamma
from bytepair.trainers.unigram_seed import seed_pieces
from tests.spm_reference import corpus_text

tokenizers = pytest.importorskip("tokenizers")


def _lines(n: int) -> list[str]:
    return corpus_text().splitlines()[:n]


def _hf_train(lines: list[str], **options) -> list[tuple[str, float]]:
    tok = tokenizers.Tokenizer(tokenizers.models.Unigram())
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Metaspace()
    tok.train_from_iterator(lines, tokenizers.trainers.UnigramTrainer(show_progress=False, **options))
    return [tuple(entry) for entry in json.loads(tok.to_str())["model"]["vocab"]], tok


def _ours(lines: list[str], **options):
    tok = bytepair.Tokenizer(bytepair.models.Unigram())
    tok.pre_tokenizer = bytepair.pre_tokenizers.Metaspace()
    tok.train_from_iterator(lines, UnigramTrainer(show_progress=False, **options))
    return [tuple(entry) for entry in json.loads(tok.to_str())["model"]["vocab"]], tok


@pytest.mark.parametrize("n_lines, options", [
    (400, dict(vocab_size=300, unk_token="<unk>", special_tokens=["<unk>", "<pad>"])),
    (700, dict(vocab_size=600, unk_token="<unk>", special_tokens=["<s>"], shrinking_factor=0.6, max_piece_length=8)),
    (300, dict(vocab_size=250, n_sub_iterations=3, initial_alphabet=["é", "ß"])),
])
def test_same_pieces_and_scores_as_hf(n_lines: int, options: dict) -> None:
    lines = _lines(n_lines)
    hf, hf_tok = _hf_train(lines, **options)
    ours, tok = _ours(lines, **options)
    assert len(ours) == len(hf)
    specials = len(options.get("special_tokens", [])) + 1
    assert [p for p, _ in ours[:specials]] == [p for p, _ in hf[:specials]]
    theirs = dict(hf)
    assert set(dict(ours)) == set(theirs)
    characters = {p for p, _ in hf if len(p) == 1}
    for piece, score in ours:
        if len(piece) > 1 or not math.isclose(score, theirs[piece], rel_tol=1e-6):
            # A character the pieces lack: HF adds 0.0001 per such character in hash order.
            limit = 1e-6 * abs(theirs[piece]) if len(piece) > 1 else 1e-4 * len(characters)
            assert abs(score - theirs[piece]) <= limit, piece
    # The trained tokenizers cut text alike (ids may differ where equal scores are ordered differently).
    for text in lines[:50]:
        assert tok.encode(text).tokens == hf_tok.encode(text).tokens, text


def test_seed_pieces_as_hf_unit_test() -> None:
    """HF's own unit test of its seeds (trainer.rs test_unigram_chars)."""
    table = seed_pieces({"This is a": 1, "こんにちは友達": 1}, 16, 1_000_000)
    assert [p for p, _ in table] == ["s", "i", " ", "達", "友", "ん", "は", "に", "ち", "こ", "h", "a", "T", "is ", "s "]
    assert [round(s, 12) for _, s in table][-2:] == [round(-1.4663370687934272, 12), round(-1.8718021769015916, 12)]


def test_digamma_against_math() -> None:
    for x in (0.5, 1.0, 3.7, 10.0, 1234.5):
        # d/dx log Gamma(x), numerically.
        h = 1e-6
        assert math.isclose(digamma(x), (math.lgamma(x + h) - math.lgamma(x - h)) / (2 * h), rel_tol=1e-6)


def test_trainer_api_and_errors() -> None:
    trainer = UnigramTrainer(vocab_size=5, show_progress=False)
    with pytest.raises(TrainingError, match="vocab_size"):
        trainer.train_model({"abcdefg": 1}, None)
    with pytest.raises(TrainingError, match="Unigram"):
        trainer.train_model({"ab": 1}, bytepair.models.BPE({"a": 0}, []))
    with pytest.raises(TrainingError, match="shrinking_factor"):
        UnigramTrainer(shrinking_factor=1.5)
    assert type(bytepair.models.Unigram().get_trainer()).__name__ == "UnigramTrainer"
    model = UnigramTrainer(vocab_size=20, unk_token="<unk>", show_progress=False).train_model({"▁hello": 3, "▁help": 2}, None)
    assert model.vocab[0] == ("<unk>", 0.0) and model.unk_id == 0 and model.encode_piece("▁hex")[-1] == 0
