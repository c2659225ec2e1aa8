"""Tokenizer.from_sentencepiece against transformers' conversion of the same .model
(SpmConverter.build_tokenizer_from_spm_proto) run by HF tokenizers 0.23.3: the same tokenizer.json,
ids, tokens, offsets and decode; for every model trained at test time (tests/spm_reference.py)."""

from __future__ import annotations

import json

import pytest

import bytepair
from bytepair.errors import InvalidInputError, VocabFormatError
from tests.spm_reference import VARIANTS, converted, sample_texts, spm_model, spm_processor

pytest.importorskip("transformers")

# Pieces isolated by a Split after a Metaspace that rewrote the text: offsets follow the
# Sequence pre-tokenizer's spans, which lose their place there (pre_tokenizers/sequence.py).
OFFSETS_PENDING = {"nfkc_cf_symbols", "bpe_symbols"}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_same_tokenizer_as_transformers(name: str) -> None:
    hf = converted(name)
    ours = bytepair.Tokenizer.from_sentencepiece(spm_model(name))
    assert json.loads(ours.to_str()) == json.loads(hf.to_str())
    for text in sample_texts(200, seed=len(name)):
        a, b = hf.encode(text), ours.encode(text)
        assert (b.ids, b.tokens) == (a.ids, a.tokens), text
        if name not in OFFSETS_PENDING:
            assert b.offsets == a.offsets, text
        assert ours.decode(a.ids) == hf.decode(a.ids), text


@pytest.mark.parametrize("name", ["unigram", "bpe", "unigram_bytes"])
def test_agrees_with_sentencepiece_on_ordinary_text(name: str) -> None:
    """The HF face and sentencepiece give the same ids on corpus text (they differ by design on
    rare inputs, e.g. a control piece's text inside the input)."""
    ref = spm_processor(name)
    ours = bytepair.Tokenizer.from_sentencepiece(spm_model(name).read_bytes())
    texts = sample_texts(200, seed=9)[:200]
    same = sum(ours.encode(t).ids == ref.encode(t) for t in texts)
    assert same >= 196


def test_bad_input() -> None:
    with pytest.raises(InvalidInputError):
        bytepair.Tokenizer.from_sentencepiece(3)  # type: ignore[arg-type]
    with pytest.raises(VocabFormatError):
        bytepair.Tokenizer.from_sentencepiece(b"\x0a\xff")
