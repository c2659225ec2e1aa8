"""The families-exact section (docs/RELIABILITY.md) counts a call as a mismatch when any field
differs from HF's: if it could not see a difference, its table of zeros would prove nothing."""

from __future__ import annotations

import tokenizers

import bytepair
from tests.bench.bench_modules import import_bench

CORPUS = {"a": "Hello wörld, hello again.\nSecond line  here.\nThird one.\nFourth.", "b": "Zweite Datei.\nNoch eine Zeile."}


def _wordlevel_json() -> str:
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tok.train_from_iterator(CORPUS.values(), tokenizers.trainers.WordLevelTrainer(special_tokens=["[UNK]"], show_progress=False))
    return tok.to_str()


def test_equal_tokenizers_give_no_mismatch():
    exact = import_bench("families_exact")
    calls, bad = exact.check_tokenizer(_wordlevel_json(), CORPUS, lines=4)
    # per file: whole + its lines (4 and 2) + a pair of the first two (lines // 2 = 2) + decode
    assert calls == (1 + 4 + 1 + 1) + (1 + 2 + 1 + 1)
    assert bad == []


def test_a_field_that_differs_is_counted(monkeypatch):
    exact = import_bench("families_exact")
    encode = bytepair.Tokenizer.encode

    def shifted(self, *args, **kwargs):
        encoding = encode(self, *args, **kwargs)
        encoding.offsets = [(start + 1, end + 1) for start, end in encoding.offsets]
        return encoding

    monkeypatch.setattr(bytepair.Tokenizer, "encode", shifted)
    calls, bad = exact.check_tokenizer(_wordlevel_json(), CORPUS, lines=4)
    assert len(bad) == calls - 2  # every encode call; the two decodes agree
    assert all(": offsets (" in what for what in bad)
