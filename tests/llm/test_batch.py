"""Batches: bytepair.collate against transformers' tokenizer.pad / DataCollatorWithPadding, and
Tokenizer.enable_padding / enable_truncation / encode_batch against HF tokenizers 0.23.3."""

from __future__ import annotations

import itertools
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair import Tokenizer, collate

from tests.hf_reference import hf_folder

os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROWS = [[11, 12, 13], [21], [31, 32, 33, 34, 35], []]


@pytest.fixture(scope="module")
def hf_gpt2():
    transformers = pytest.importorskip("transformers")
    tok = transformers.PreTrainedTokenizerFast(tokenizer_file=str(hf_folder("gpt2") / "tokenizer.json"))
    tok.pad_token = "<|endoftext|>"
    return tok


@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize("multiple", [None, 4, 8])
@pytest.mark.parametrize("max_length", [None, 6])
def test_collate_equals_transformers_pad(hf_gpt2, side, multiple, max_length):
    hf_gpt2.padding_side = side
    padding = "max_length" if max_length else True
    want = hf_gpt2.pad({"input_ids": ROWS}, padding=padding, max_length=max_length, pad_to_multiple_of=multiple)
    got = collate(ROWS, pad_id=hf_gpt2.pad_token_id, padding_side=side, pad_to_multiple_of=multiple, max_length=max_length)
    assert got == dict(want)


def test_collate_numpy_equals_data_collator_with_padding(hf_gpt2):
    transformers = pytest.importorskip("transformers")
    np = pytest.importorskip("numpy")
    hf_gpt2.padding_side = "left"
    features = [{"input_ids": r, "token_type_ids": [0] * (len(r) - 1) + [1] * min(1, len(r))} for r in ROWS]
    want = transformers.DataCollatorWithPadding(hf_gpt2, pad_to_multiple_of=8, return_tensors="np")(features)
    got = collate(features, pad_id=hf_gpt2.pad_token_id, padding_side="left", pad_to_multiple_of=8, return_tensors="np")
    assert set(got) == set(want) == {"input_ids", "attention_mask", "token_type_ids"}
    for key in want:
        assert got[key].dtype == want[key].dtype == np.int64
        assert (got[key] == want[key]).all()


def test_collate_labels_mask_only_padding():
    eot = 50256  # a real end-of-text id that is also the pad id: kept as a label
    batch = collate([[1, eot], [2]], pad_id=eot, labels=True)
    assert batch["labels"] == [[1, eot], [2, -100]]
    left = collate([[1, eot], [2]], pad_id=eot, labels=True, padding_side="left")
    assert left["labels"] == [[1, eot], [-100, 2]] and left["attention_mask"] == [[1, 1], [0, 1]]
    own = collate([{"input_ids": [1, 2], "labels": [5, 6]}, {"input_ids": [3], "labels": [7]}], pad_id=0)
    assert own["labels"] == [[5, 6], [7, -100]]


def test_collate_takes_encoded_results():
    tok = Tokenizer.from_file(hf_folder("gpt2") / "tokenizer.json")
    encoded = tok.encode_batch([("Hello world", "a pair"), ("Hi", "there you are")])
    batch = collate(encoded, pad_id=50256, padding_side="left")
    n = max(len(e.ids) for e in encoded)
    assert [len(r) for r in batch["input_ids"]] == [n, n]
    for row, mask, types, e in zip(batch["input_ids"], batch["attention_mask"], batch["token_type_ids"], encoded):
        pad = n - len(e.ids)
        assert row == [50256] * pad + e.ids and mask == [0] * pad + e.attention_mask and types == [0] * pad + e.type_ids
    assert not all(t == 0 for t in batch["token_type_ids"][1])  # the pair's type ids came through


def test_collate_truncation_and_bad_input():
    assert collate(ROWS, pad_id=0, max_length=2, truncation=True)["input_ids"] == [[11, 12], [21, 0], [31, 32], [0, 0]]
    assert collate(ROWS, pad_id=0, max_length=2, truncation=True, padding_side="left")["input_ids"][2] == [34, 35]
    assert collate([], pad_id=0) == {"input_ids": [], "attention_mask": []}
    with pytest.raises(bytepair.InvalidInputError, match="truncation=True"):
        collate(ROWS, pad_id=0, max_length=2)
    with pytest.raises(bytepair.InvalidInputError, match="padding_side"):
        collate(ROWS, pad_id=0, padding_side="middle")
    with pytest.raises(bytepair.InvalidInputError, match="pad_id"):
        collate(ROWS, pad_id=None)  # type: ignore[arg-type]
    with pytest.raises(bytepair.InvalidInputError, match="ints only"):
        collate([[1, "2"]], pad_id=0)
    with pytest.raises(bytepair.InvalidInputError, match="sequence of ints"):
        collate(["hello"], pad_id=0)
    with pytest.raises(bytepair.InvalidInputError, match="attention_mask has 1"):
        collate([{"input_ids": [1, 2], "attention_mask": [1]}], pad_id=0)
    with pytest.raises(bytepair.InvalidInputError, match="same fields"):
        collate([{"input_ids": [1], "labels": [1]}, {"input_ids": [2]}, [3]], pad_id=0, labels=False)
    with pytest.raises(bytepair.InvalidInputError, match="return_tensors"):
        collate(ROWS, pad_id=0, return_tensors="pt")
    with pytest.raises(bytepair.InvalidInputError, match="pad_to_multiple_of"):
        collate(ROWS, pad_id=0, pad_to_multiple_of=0)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(0, 1000), max_size=12), max_size=6), st.sampled_from(["right", "left"]),
       st.one_of(st.none(), st.integers(1, 8)))
def test_collate_properties(rows, side, multiple):
    batch = collate(rows, pad_id=-1, padding_side=side, pad_to_multiple_of=multiple, labels=True)
    width = {len(r) for r in batch["input_ids"]}
    assert len(width) <= 1
    if width and multiple:
        assert width.pop() % multiple == 0
    for row, ids, mask, labels in zip(rows, batch["input_ids"], batch["attention_mask"], batch["labels"]):
        assert [i for i, m in zip(ids, mask) if m] == row == [x for x in labels if x != -100]
        assert sum(mask) == len(row)
        assert (mask == sorted(mask, reverse=True)) if side == "right" else (mask == sorted(mask))


# ---------------------------------------------------------------- Tokenizer padding and truncation vs HF

TEXTS = ["Hello world, this is a test of truncation.", "Short one", "A much longer sentence that keeps going and going."]
PAIRS = [("Hello world, this is", "a pair of texts that is longer than the first"), ("x", "y z"),
         ("one two three four five six seven", "eight")]


def _fields(encodings) -> list:
    return [(e.ids, e.attention_mask, e.type_ids, e.special_tokens_mask, [(o.ids, o.attention_mask) for o in e.overflowing])
            for e in encodings]


@pytest.mark.parametrize("name", ["gpt2", "llama3", "llama2"])
def test_padding_and_truncation_equal_hf(name):
    tokenizers = pytest.importorskip("tokenizers")
    path = str(hf_folder(name) / "tokenizer.json")
    ours, ref = Tokenizer.from_file(path), tokenizers.Tokenizer.from_file(path)
    cases = 0
    for max_len, stride, strategy, t_side, p_side, multiple, length in itertools.product(
            [5, 8, 13], [0, 2], ["longest_first", "only_first", "only_second"], ["right", "left"], ["right", "left"],
            [None, 4], [None, 16]):
        for tok in (ours, ref):
            tok.enable_truncation(max_len, stride=stride, strategy=strategy, direction=t_side)
            tok.enable_padding(direction=p_side, pad_id=7, pad_token="[P]", length=length, pad_to_multiple_of=multiple)
        for batch in (TEXTS, PAIRS):
            try:
                want = _fields(ref.encode_batch(batch))
            except BaseException:  # HF raises (only_* cannot fit) or panics (stride >= room left)
                with pytest.raises(bytepair.InvalidInputError):
                    ours.encode_batch(batch)
                continue
            assert _fields(ours.encode_batch(batch)) == want, (max_len, stride, strategy, t_side, p_side, multiple, length)
            cases += 1
    assert cases > 300
