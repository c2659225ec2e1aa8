"""Published BERT-family files against HF ``tokenizers`` 0.23.3: all-MiniLM-L6-v2's ``tokenizer.json``
(BERT's uncased 30,522-token WordPiece with its normalizer, pre-tokenizer, template, decoder, and its
own truncation and padding at 128) and seqio's BERT ``vocab.txt`` through ``WordPiece.from_file``; both
from pinned packages (``tests/hf_reference.published_file``)."""

from __future__ import annotations

import functools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair import models

from tests.hf_reference import published_file
from tests.hf_wordpiece import TEXTS, corpus_lines

tokenizers = pytest.importorskip("tokenizers")

FIELDS = ("ids", "tokens", "offsets", "word_ids", "type_ids", "special_tokens_mask", "attention_mask")
LANGUAGES = ("en", "de", "fr", "es", "el_cs_bg_pt", "code_python")


@functools.cache
def minilm() -> tuple[object, bytepair.Tokenizer]:
    path = published_file("all_minilm_l6_v2")
    return tokenizers.Tokenizer.from_file(str(path)), bytepair.Tokenizer.from_file(str(path))


def assert_same(a, b, text) -> None:
    for field in FIELDS:
        assert getattr(b, field) == getattr(a, field), (field, text)
    assert [getattr(o, "ids") for o in b.overflowing] == [o.ids for o in a.overflowing], text


def test_minilm_corpus_and_edge_cases_as_hf() -> None:
    hf, ours = minilm()
    lines = TEXTS + [line for name in LANGUAGES for line in corpus_lines(name, 6_000)[:25]]
    for text in lines:
        a, b = hf.encode(text), ours.encode(text)
        assert_same(a, b, text)  # truncated and padded at 128, as the file says
        assert ours.decode(b.ids) == hf.decode(a.ids), text
    long_text = " ".join(corpus_lines("en", 3_000))
    assert_same(hf.encode(long_text, TEXTS[0]), ours.encode(long_text, TEXTS[0]), "pair")
    assert [e.ids for e in ours.encode_batch(TEXTS)] == [e.ids for e in hf.encode_batch(TEXTS)]
    assert json.loads(ours.to_str()) == json.loads(hf.to_str())


def test_minilm_whole_files_without_truncation_as_hf() -> None:
    hf, ours = minilm()
    for name in ("en", "de", "el_cs_bg_pt"):
        text = "\n".join(corpus_lines(name, 40_000))
        hf.no_truncation(), hf.no_padding()
        ours.no_truncation(), ours.no_padding()
        try:
            a, b = hf.encode(text), ours.encode(text)
            assert (b.ids, b.offsets, b.word_ids) == (a.ids, a.offsets, a.word_ids), name
        finally:
            hf.enable_truncation(128), hf.enable_padding(length=128)
            ours.enable_truncation(128), ours.enable_padding(length=128)


@settings(max_examples=60, deadline=None)
@given(text=st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=50)
       | st.text("Aaéü中文 ,.!?'\t\n\u0301\u200b##[UNK]", max_size=80))
def test_minilm_random_text_as_hf(text: str) -> None:
    hf, ours = minilm()
    assert_same(hf.encode(text), ours.encode(text), text)


def test_vocab_txt_from_file_as_hf() -> None:
    path = str(published_file("seqio_wordpiece_vocab"))
    assert models.WordPiece.read_file(path) == tokenizers.models.WordPiece.read_file(path)
    hf = tokenizers.Tokenizer(tokenizers.models.WordPiece.from_file(path, unk_token="[UNK]"))
    hf.normalizer = tokenizers.normalizers.BertNormalizer(lowercase=False)
    hf.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    ours = bytepair.Tokenizer(models.WordPiece.from_file(path, unk_token="[UNK]"),
                              normalizer=bytepair.normalizers.BertNormalizer(lowercase=False),
                              pre_tokenizer=bytepair.pre_tokenizers.BertPreTokenizer())
    for text in TEXTS + corpus_lines("en", 4_000)[:20]:
        a, b = hf.encode(text), ours.encode(text)
        assert (b.ids, b.tokens, b.offsets) == (a.ids, a.tokens, a.offsets), text
