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

@pytest.mark.parametrize("name", list(VARIANTS))
def test_same_tokenizer_as_transformers(name: str) -> None:
    hf = converted(name)
    ours = bytepair.Tokenizer.from_sentencepiece(spm_model(name))
    assert json.loads(ours.to_str()) == json.loads(hf.to_str())
    for text in sample_texts(120, seed=len(name)):
        a, b = hf.encode(text), ours.encode(text)
        assert (b.ids, b.tokens) == (a.ids, a.tokens), text
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


@pytest.mark.parametrize("class_name, variant", [
    ("T5Tokenizer", "unigram"), ("XLMRobertaTokenizer", "unigram"), ("AlbertTokenizer", "unigram"),
    ("MBartTokenizer", "unigram"), ("CamembertTokenizer", "unigram"), ("DebertaV2Tokenizer", "unigram"),
    ("LlamaTokenizer", "bpe"), ("LlamaTokenizer", "bpe_bytes"),
])
def test_model_family_tokenizer_json(class_name: str, variant: str) -> None:
    """The tokenizer.json transformers writes for T5, XLM-R, ALBERT, mBART, CamemBERT, DeBERTa-v2 and
    Llama 2 from a .model (their own converters and post-processors), read by bytepair: ids, tokens,
    type ids, special-token masks and offsets of single texts and pairs, and decode, as HF's."""
    transformers = pytest.importorskip("transformers")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hf = getattr(transformers, class_name)(vocab_file=str(spm_model(variant))).backend_tokenizer
    ours = bytepair.Tokenizer.from_str(hf.to_str())
    for text in sample_texts(80, seed=2):
        for pair in (None, "a second text"):
            a, b = (hf.encode(text, pair), ours.encode(text, pair)) if pair else (hf.encode(text), ours.encode(text))
            assert (b.ids, b.tokens, b.type_ids, b.special_tokens_mask, b.offsets) == \
                (a.ids, a.tokens, a.type_ids, a.special_tokens_mask, a.offsets), (text, pair)
            assert ours.decode(a.ids) == hf.decode(a.ids)
            assert ours.decode(a.ids, skip_special_tokens=False) == hf.decode(a.ids, skip_special_tokens=False)
