"""Encoded.merge / truncate / set_sequence_id / pad give HF Encoding's results, field by field."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

tokenizers = pytest.importorskip("tokenizers")

from bytepair import Tokenizer  # noqa: E402
from bytepair.errors import InvalidArgumentError  # noqa: E402
from bytepair.pipeline.encoded import Encoded  # noqa: E402

from tests.hf_reference import hf_folder  # noqa: E402

FIELDS = ("ids", "tokens", "offsets", "type_ids", "attention_mask", "special_tokens_mask", "word_ids", "sequence_ids",
          "n_sequences")


def fields(e):
    return {name: getattr(e, name) for name in FIELDS} | {"overflowing": [fields(o) for o in e.overflowing]}


@pytest.fixture(scope="module", params=["gpt2", "llama3"])
def both(request):
    path = str(hf_folder(request.param) / "tokenizer.json")
    ours, theirs = Tokenizer.from_file(path), tokenizers.Tokenizer.from_file(path)
    for tok in (ours, theirs):
        tok.no_truncation()
    return ours, theirs


def encode_both(both, text, pair=None, **kw):
    ours, theirs = both
    return ours.encode(text, pair, **kw), theirs.encode(text, pair, **kw)


TEXTS = ["one two three four five six", "hello", "", "a b c d e f g h i j"]


@pytest.mark.parametrize("max_length,stride,direction", [(3, 1, "right"), (3, 1, "left"), (2, 0, "right"), (0, 0, "right"),
                                                         (10, 0, "right"), (4, 3, "left")])
def test_truncate(both, max_length, stride, direction):
    for text in TEXTS:
        for pair in (None, "seven eight"):
            a, b = encode_both(both, text, pair)
            a.truncate(max_length, stride=stride, direction=direction)
            b.truncate(max_length, stride=stride, direction=direction)
            assert fields(a) == fields(b), (text, pair)


def test_truncate_refuses_a_stride_that_does_not_move(both):
    a, _ = encode_both(both, "one two three")
    with pytest.raises(InvalidArgumentError, match="stride"):
        a.truncate(2, stride=2)


@pytest.mark.parametrize("growing", [True, False])
def test_merge(both, growing):
    a1, b1 = encode_both(both, "hello world foo")
    a2, b2 = encode_both(both, "bar baz", "qux")
    a3, b3 = encode_both(both, "a b c d e")
    a3.truncate(2, stride=1)
    b3.truncate(2, stride=1)
    ours = Encoded.merge([a1, a2, a3], growing_offsets=growing)
    theirs = tokenizers.Encoding.merge([b1, b2, b3], growing_offsets=growing)
    assert fields(ours) == fields(theirs)
    assert fields(Encoded.merge([a3, a1])) == fields(tokenizers.Encoding.merge([b3, b1]))


@pytest.mark.parametrize("sequence_id", [0, 1, 2])
def test_set_sequence_id(both, sequence_id):
    for text, pair in (("one two", None), ("one two", "three")):
        a, b = encode_both(both, text, pair)
        a.set_sequence_id(sequence_id)
        b.set_sequence_id(sequence_id)
        assert fields(a) == fields(b)
        a.pad(9, direction="left", pad_id=7, pad_type_id=1, pad_token="P")
        b.pad(9, direction="left", pad_id=7, pad_type_id=1, pad_token="P")
        assert fields(a) == fields(b)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(alphabet="ab cdé🙂", max_size=12), min_size=1, max_size=3), st.integers(0, 6), st.integers(0, 5),
       st.sampled_from(["right", "left"]))
def test_merge_then_truncate_random(texts, max_length, stride, direction):
    path = str(hf_folder("gpt2") / "tokenizer.json")
    ours, theirs = _gpt2(path)
    a = Encoded.merge([ours.encode(t) for t in texts])
    b = tokenizers.Encoding.merge([theirs.encode(t) for t in texts])
    assert fields(a) == fields(b)
    if max_length == 0 or stride < max_length:
        a.truncate(max_length, stride, direction)
        b.truncate(max_length, stride, direction)
        assert fields(a) == fields(b)


_CACHE: dict[str, tuple] = {}


def _gpt2(path):
    if path not in _CACHE:
        _CACHE[path] = (Tokenizer.from_file(path), tokenizers.Tokenizer.from_file(path))
    return _CACHE[path]
