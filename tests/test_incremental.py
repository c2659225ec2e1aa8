"""Incremental encoding gives exactly ``encode``'s ids, edit after edit."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair.incremental import IncrementalEncoder, safe_prefix_end

from tests.conftest import corpus_texts

TEXT = "\n".join(corpus_texts().values())


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base", "r50k_base"])
def test_random_edits_match_full_encode(name: str) -> None:
    enc = bytepair.get_encoding(name)
    inc = IncrementalEncoder(enc)
    rng = random.Random(11)
    text = TEXT[:60_000]
    for _ in range(40):
        i = rng.randrange(len(text))
        edit = rng.choice(["", "x", " ", "\n", "\nNew line ", "🫠", "日本", "<|endoftext|>"])
        text = text[:i] + edit + text[i + rng.randrange(3):]
        assert inc.encode(text, disallowed_special=()) == enc.encode(text, disallowed_special=())
        assert inc.count(text, allowed_special="all") == enc.count(text, allowed_special="all")


def test_policy_is_the_same() -> None:
    inc = IncrementalEncoder(bytepair.get_encoding("cl100k_base"))
    with pytest.raises(bytepair.DisallowedSpecialTokenError):
        inc.encode("a\n<|endoftext|>")


def test_reuses_blocks() -> None:
    enc = bytepair.get_encoding("o200k_base")
    inc = IncrementalEncoder(enc)
    text = TEXT[:50_000]
    inc.count(text)
    blocks_before = len(inc._blocks)
    assert blocks_before > 50
    inc.count(text[:25_000] + "Hello" + text[25_000:])
    assert len(inc._blocks) <= blocks_before + 2  # only the edited block is new


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab \nA1.日🙂\t'", max_size=300), st.integers(min_value=0, max_value=300))
def test_safe_prefix_gives_the_first_tokens(text: str, at_least: int) -> None:
    enc = bytepair.get_encoding("o200k_base")
    end = safe_prefix_end(text, at_least)
    assert end >= min(at_least, len(text))
    prefix_ids = enc.encode_ordinary(text[:end])
    assert enc.encode_ordinary(text)[: len(prefix_ids)] == prefix_ids


def test_uncuttable_encoding_falls_back() -> None:
    ranks = {bytes((b,)): b for b in range(256)} | {b"ab": 256}
    custom = bytepair.Encoding("custom", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    inc = IncrementalEncoder(custom)
    assert inc.encode("ab ab\nab") == custom.encode("ab ab\nab")
