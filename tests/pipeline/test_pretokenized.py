"""``Tokenizer.encode(words, is_pretokenized=True)`` (transformers' ``is_split_into_words``) and
``Tokenizer.post_process`` against HF ``tokenizers`` on the open-model files: every field of every
encoding, single and pair, with and without special tokens, batched, truncated and padded."""

from __future__ import annotations

from functools import cache

import pytest
import tokenizers
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair.errors import InvalidInputError

from tests.hf_reference import HF_NAMES, hf_folder

FIELDS = ("ids", "tokens", "offsets", "type_ids", "attention_mask", "special_tokens_mask", "word_ids", "sequence_ids")

WORD_LISTS = [
    (["Hello", " world", "x", "<|endoftext|>", "naïve café"], None),
    (["New", "York", "is", "big", "."], ["And", " its", " pair"]),
    (["", "a", "  ", "\n", "日本語", "🙂x", "don't"], None),
    (["<|end_of_text|>", "<|im_start|>", "<s>", "<bos>"], ["x<|im_end|>y"]),
]


def fields(encoding) -> dict:
    return {name: getattr(encoding, name) for name in FIELDS}


@pytest.fixture(scope="module", params=HF_NAMES)
def pair_of(request):
    path = str(hf_folder(request.param) / "tokenizer.json")
    return tokenizers.Tokenizer.from_file(path), bytepair.Tokenizer.from_file(path)


def test_pretokenized_equals_hf(pair_of) -> None:
    hf, ours = pair_of
    for words, pair in WORD_LISTS:
        for special in (True, False):
            expected = hf.encode(words, pair, is_pretokenized=True, add_special_tokens=special)
            got = ours.encode(words, pair, is_pretokenized=True, add_special_tokens=special)
            assert fields(got) == fields(expected), (words, pair, special)
    batch = [WORD_LISTS[0][0], (WORD_LISTS[1][0], WORD_LISTS[1][1]), tuple(WORD_LISTS[2][0])]
    assert [fields(e) for e in ours.encode_batch(batch, is_pretokenized=True)] == [
        fields(e) for e in hf.encode_batch(batch, is_pretokenized=True)
    ]
    try:  # truncated (with overflow) and padded
        for tok in (hf, ours):
            tok.enable_truncation(6, stride=1)
            tok.enable_padding(length=8)
        for words, pair in WORD_LISTS:
            expected = hf.encode(words, pair, is_pretokenized=True)
            got = ours.encode(words, pair, is_pretokenized=True)
            assert fields(got) == fields(expected), (words, pair)
            # HF's sequence ids of a pair's overflows without a post-processor follow no rule we copy.
            quirk = {"sequence_ids": None} if pair is not None and ours.post_processor is None else {}
            assert [fields(e) | quirk for e in got.overflowing] == [fields(e) | quirk for e in expected.overflowing]
    finally:
        for tok in (hf, ours):
            tok.no_truncation()
            tok.no_padding()


def test_post_process_equals_hf(pair_of) -> None:
    hf, ours = pair_of
    texts = ("Hello world, this is a longer first sequence", "and its pair here")
    for truncation in (None, 5):
        first_h, second_h = (hf.encode(t, add_special_tokens=False) for t in texts)
        first_o, second_o = (ours.encode(t, add_special_tokens=False) for t in texts)
        try:
            for tok in (hf, ours):
                if truncation:
                    tok.enable_truncation(truncation)
                tok.enable_padding(length=16)
            for special in (True, False):
                # sequence_ids: those of encode(text, pair), not HF's (post_process's docstring says why).
                single = ours.post_process(first_o, None, special)
                assert fields(single) | {"sequence_ids": None} == fields(hf.post_process(first_h, None, special)) | {"sequence_ids": None}
                both = ours.post_process(first_o, second_o, special)
                assert fields(both) | {"sequence_ids": None} == fields(hf.post_process(first_h, second_h, special)) | {"sequence_ids": None}
                direct = ours.encode(*texts, add_special_tokens=special)
                assert both.sequence_ids == direct.sequence_ids and single.sequence_ids == ours.encode(texts[0], add_special_tokens=special).sequence_ids
        finally:
            for tok in (hf, ours):
                tok.no_truncation()
                tok.no_padding()


@cache
def _gpt2() -> tuple[tokenizers.Tokenizer, bytepair.Tokenizer]:
    path = str(hf_folder("gpt2") / "tokenizer.json")
    return tokenizers.Tokenizer.from_file(path), bytepair.Tokenizer.from_file(path)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="ab c'\n日🙂é.<|>", max_size=8), max_size=6))
def test_pretokenized_words_on_gpt2_are_hfs(words: list[str]) -> None:
    hf, ours = _gpt2()
    assert fields(ours.encode(words, is_pretokenized=True)) == fields(hf.encode(words, is_pretokenized=True))


def test_pretokenized_input_is_checked() -> None:
    tok = bytepair.Tokenizer.from_encoding("cl100k_base")
    with pytest.raises(InvalidInputError, match="list of words"):
        tok.encode("one text", is_pretokenized=True)
    with pytest.raises(InvalidInputError, match="each word of sequence must be a str"):
        tok.encode(["a", 3], is_pretokenized=True)
    with pytest.raises(InvalidInputError, match="list of words"):
        tok.encode(["a"], "pair text", is_pretokenized=True)
    with pytest.raises(InvalidInputError, match="post_process takes what encode"):
        tok.post_process([1, 2])
