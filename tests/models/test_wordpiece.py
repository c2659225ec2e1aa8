"""WordPiece and WordLevel against HF ``tokenizers`` 0.23.3: BERT-family files built with HF
(``tests/hf_wordpiece.py``: every option of the model and of BERT's components) give the same ids,
tokens, offsets, word ids, masks and decoded text on corpus lines, hand-picked edge cases and random
text; the models' own methods (``tokenize``, ``save``, ``from_file``, ``to_json``) as HF's."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bytepair
from bytepair import models
from bytepair.errors import VocabFormatError

from tests.hf_wordpiece import TEXTS, VARIANTS, corpus_lines, hf_variant, hf_variant_json

tokenizers = pytest.importorskip("tokenizers")

FIELDS = ("ids", "tokens", "offsets", "word_ids", "type_ids", "special_tokens_mask", "attention_mask")


@functools.cache
def ours(name: str) -> bytepair.Tokenizer:
    """bytepair's Tokenizer of the variant's file (one per variant for the module)."""
    return bytepair.Tokenizer.from_str(hf_variant_json(name))


def assert_same(hf_enc, our_enc, text) -> None:
    for field in FIELDS:
        assert getattr(our_enc, field) == getattr(hf_enc, field), (field, text)


@pytest.fixture(scope="module", params=sorted(VARIANTS))
def pair(request):
    return request.param, hf_variant(request.param), ours(request.param)


def test_texts_and_corpus_lines_encode_and_decode_as_hf(pair) -> None:
    name, hf, tok = pair
    lines = TEXTS + corpus_lines("fr", 20_000)[:150] + corpus_lines("el_cs_bg_pt", 8_000)[-40:]
    for text in lines:
        hf_enc, our_enc = hf.encode(text), tok.encode(text)
        assert_same(hf_enc, our_enc, text)
        for skip in (True, False):
            assert tok.decode(our_enc.ids, skip_special_tokens=skip) == hf.decode(hf_enc.ids, skip_special_tokens=skip), text
    hf_pair, our_pair = hf.encode(TEXTS[0], TEXTS[1]), tok.encode(TEXTS[0], TEXTS[1])
    assert_same(hf_pair, our_pair, "pair")
    assert [e.ids for e in tok.encode_batch(TEXTS)] == [e.ids for e in hf.encode_batch(TEXTS)]


def test_file_is_written_back_as_read(pair) -> None:
    name, hf, tok = pair
    assert json.loads(tok.to_str()) == json.loads(hf.to_str())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40)
       | st.text("abcdeéèüß中文 ,.!?'\t\n\u0301\u200b-", max_size=60))
def test_random_text_as_hf(text: str) -> None:
    for name in ("bert-uncased", "bert-cased", "bert-short-words", "wordlevel"):
        assert_same(hf_variant(name).encode(text), ours(name).encode(text), text)


# ---------------------------------------------------------------- the models' own methods
VOCAB = {"[UNK]": 0, "un": 1, "##aff": 2, "##able": 3, "é": 4, "##a": 5, "##é": 6, "a": 7, "##ff": 8}


@pytest.mark.parametrize("word", ["unaffable", "éaé", "unknown", "", "a" * 12, "aéa", "##a", "unaffableé"])
@pytest.mark.parametrize("max_chars", [100, 5])
def test_tokenize_as_hf(word: str, max_chars: int) -> None:
    hf = tokenizers.models.WordPiece(VOCAB, unk_token="[UNK]", max_input_chars_per_word=max_chars)
    ours_model = models.WordPiece(VOCAB, unk_token="[UNK]", max_input_chars_per_word=max_chars)
    assert [tuple(t) for t in ours_model.tokenize(word)] == [(t.id, t.value, t.offsets) for t in hf.tokenize(word)]
    level_hf = tokenizers.models.WordLevel(VOCAB, unk_token="[UNK]")
    if word:
        assert [tuple(t) for t in models.WordLevel(VOCAB, "[UNK]").tokenize(word)] == \
            [(t.id, t.value, t.offsets) for t in level_hf.tokenize(word)]


@settings(max_examples=200, deadline=None)
@given(word=st.text("aébu#nfl", max_size=14), prefix=st.sampled_from(["##", "", "@"]))
def test_longest_match_shortcut_is_hf_loop(word: str, prefix: str) -> None:
    vocab = {t.replace("##", prefix): i for i, t in enumerate(VOCAB)}
    model = models.WordPiece(vocab, continuing_subword_prefix=prefix)
    assert model._spans(word) == model._reference_spans(word)


def test_missing_unknown_token_is_refused_as_hf() -> None:
    model = models.WordPiece({"a": 0})
    assert model.encode_piece("a") == (0,)
    with pytest.raises(VocabFormatError, match="not in the vocabulary"):
        model.encode_piece("b")
    with pytest.raises(Exception, match="Missing"):
        tokenizers.models.WordPiece({"a": 0}).tokenize("b")
    with pytest.raises(VocabFormatError, match="not in the vocabulary"):
        models.WordLevel({"a": 0}).encode_piece("b")


def test_save_and_from_file_as_hf(tmp_path: Path) -> None:
    vocab = {**VOCAB, "trailing ": 9}
    hf = tokenizers.models.WordPiece(vocab, unk_token="[UNK]")
    (hf_path,) = hf.save(str(tmp_path), "hf")
    (our_path,) = models.WordPiece(vocab).save(tmp_path, "ours")
    assert Path(our_path).read_bytes() == Path(hf_path).read_bytes()
    assert models.WordPiece.read_file(hf_path) == tokenizers.models.WordPiece.read_file(hf_path)
    loaded = models.WordPiece.from_file(hf_path, unk_token="[UNK]", max_input_chars_per_word=7)
    assert json.loads(tokenizers.models.WordPiece.from_file(hf_path, unk_token="[UNK]", max_input_chars_per_word=7)
                      .__getstate__()) == loaded.to_json()
    level = tokenizers.models.WordLevel(vocab, unk_token="[UNK]")
    (level_path,) = level.save(str(tmp_path))
    (our_level,) = models.WordLevel(vocab, "[UNK]").save(tmp_path, "ours")
    assert json.loads(Path(our_level).read_text()) == json.loads(Path(level_path).read_text())
    assert models.WordLevel.from_file(level_path, "[UNK]").to_json() == json.loads(level.__getstate__())


def test_model_assigned_to_a_tokenizer_encodes_as_hf() -> None:
    hf = tokenizers.Tokenizer(tokenizers.models.WordPiece(VOCAB, unk_token="[UNK]"))
    hf.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    tok = bytepair.Tokenizer(models.WordPiece(VOCAB), pre_tokenizer=bytepair.pre_tokenizers.BertPreTokenizer())
    for text in ("unaffable é a", "unknown!", "aéa un##aff"):
        assert_same(hf.encode(text), tok.encode(text), text)
    assert json.loads(tok.to_str())["model"] == json.loads(hf.to_str())["model"]
    assert models.WordPiece().get_trainer().continuing_subword_prefix == "##"
    assert models.WordLevel().unk_token == json.loads(tokenizers.models.WordLevel().__getstate__())["unk_token"]
