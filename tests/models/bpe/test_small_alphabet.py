"""The rank-by-rank merge of long pieces over a few distinct bytes (``models/bpe/small_alphabet.py``).

It must give the merge rule's ids or decline (None), never other ids: held to ``apply_merges`` on
generated vocabularies whose ranks break every order they can (a token ranking before its halves),
and to tiktoken through the long-piece path on whitespace mixes, where it must also be the path
taken for GPT-2's vocabularies (else the tests below would pass without it running).
"""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair.models.bpe.merge import apply_merges
from bytepair.models.bpe.small_alphabet import MANY_SPLITS, MAX_DISTINCT_BYTES, SmallAlphabetMerge, closure_by_pairs, closure_by_search

MIX = " \t\r\n\u3000\u00a0"


@st.composite
def vocabularies(draw: st.DrawFn) -> dict[bytes, int]:
    """Single bytes of a small alphabet plus random multi-byte tokens over it, ranks shuffled with
    the single bytes first (as in every byte-level vocabulary), so tokens may rank before their halves."""
    letters = draw(st.lists(st.sampled_from(b"abcd \t"), min_size=2, max_size=4, unique=True))
    tokens = draw(st.lists(st.binary(min_size=2, max_size=5).map(lambda b: bytes(letters[x % len(letters)] for x in b)),
                           max_size=30, unique=True))
    order = draw(st.permutations(tokens))
    return {**{bytes((b,)): i for i, b in enumerate(letters)}, **{t: len(letters) + i for i, t in enumerate(order)}}


@settings(max_examples=400, deadline=None)
@given(vocabularies(), st.data())
def test_equals_the_merge_rule_or_declines(ranks: dict[bytes, int], data: st.DataObject) -> None:
    alphabet = bytes(sorted({t[0] for t in ranks if len(t) == 1}))
    text = data.draw(st.binary(max_size=80).map(lambda b: bytes(alphabet[x % len(alphabet)] for x in b)))
    ids = SmallAlphabetMerge(ranks).encode(text)
    if ids is not None:
        assert ids == apply_merges(text, ranks)


def test_declines_when_a_merge_would_set_off_a_lower_rank() -> None:
    # "abb" ranks before its half "ab": merging a+b next to a b must go on to abb at once.
    ranks = {b"a": 0, b"b": 1, b"abb": 2, b"ab": 3}
    merger = SmallAlphabetMerge(ranks)
    assert apply_merges(b"abbab", ranks) == [2, 3]
    assert merger.encode(b"abbab") is None  # "a b b" is there before the pass for "ab"
    assert merger.encode(b"abab") == apply_merges(b"abab", ranks) == [3, 3]


def test_several_splits_of_one_token_merge_leftmost_first() -> None:
    ranks = {b"a": 0, b"aa": 1, b"aaa": 2}
    for n in range(1, 12):
        assert SmallAlphabetMerge(ranks).encode(b"a" * n) == apply_merges(b"a" * n, ranks)


def test_alphabet_and_its_limit() -> None:
    merger = SmallAlphabetMerge({bytes((b,)): b for b in range(256)})
    assert merger.alphabet(b"ab" * 1000 + b"c") == b"abc"
    assert merger.alphabet(bytes(range(MAX_DISTINCT_BYTES))) is not None
    assert merger.alphabet(bytes(range(MAX_DISTINCT_BYTES + 1))) is None


def test_two_byte_symbols_past_255_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    """A piece that forms more than 255 tokens switches to two-byte symbols mid-piece."""
    rng = random.Random(3)
    # Every string of a and b up to 8 long, shorter ones first (so no token ranks before a half).
    tokens = [bytes(t) for n in range(2, 9) for t in sorted(itertools.product(b"ab", repeat=n), key=lambda _: rng.random())]
    ranks = {b"a": 0, b"b": 1, **{t: 2 + i for i, t in enumerate(tokens)}}
    merger = SmallAlphabetMerge(ranks)
    merged = 0
    for _ in range(3):
        text = bytes(rng.choice(b"ab") for _ in range(20_000))
        ids = merger.encode(text, most_splits=10**6)
        assert ids == apply_merges(text, ranks)
        merged += len(set(ids)) > 255  # more tokens than one-byte symbols can name
    assert merged


@pytest.mark.parametrize("name", ["r50k_base", "p50k_base"])
def test_whitespace_mix_takes_this_path_and_equals_tiktoken(tiktoken_ref, name: str) -> None:
    rng = random.Random(20240601)
    enc, ref = bytepair.get_encoding(name), tiktoken_ref(name)
    for size in (300, 5_000, 60_000):
        text = "".join(rng.choices(MIX, k=size))
        assert SmallAlphabetMerge(enc.engine.model.ranks).encode(text.encode()) is not None
        enc.engine.cache.clear()
        assert enc.encode_ordinary(text) == ref.encode_ordinary(text)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_spaces_and_newlines_take_the_larger_closure_and_equal_tiktoken(tiktoken_ref, name: str) -> None:
    """A random run of spaces and newlines has no place no token crosses, so the long-piece path
    merges it rank by rank over cl100k's / o200k's larger closure (``MANY_SPLITS``), not the small one."""
    rng = random.Random(5)
    text = "".join(rng.choices("   \n", k=20_000))
    enc = bytepair.get_encoding(name)
    merger = SmallAlphabetMerge(enc.engine.model.ranks)
    assert merger.encode(text.encode()) is None  # more than FEW_SPLITS splits
    assert merger.encode(text.encode(), MANY_SPLITS) == tiktoken_ref(name).encode_ordinary(text)
    enc.engine.cache.clear()
    assert enc.encode_ordinary(text) == tiktoken_ref(name).encode_ordinary(text)


def _as_sets(closure: dict[bytes, list[tuple[bytes, bytes]]] | None) -> dict[bytes, set[tuple[bytes, bytes]]] | None:
    return None if closure is None else {token: set(ways) for token, ways in closure.items()}


@settings(max_examples=300, deadline=None)
@given(vocabularies())
def test_both_closures_agree_on_generated_vocabularies(ranks: dict[bytes, int]) -> None:
    alphabet = bytes(sorted({t[0] for t in ranks if len(t) == 1}))
    assert _as_sets(closure_by_search(alphabet, ranks, 10**6)) == _as_sets(closure_by_pairs(alphabet, ranks, 10**6))


@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base", "o200k_base"])
@pytest.mark.parametrize("alphabet", [" \n", " \t\r\n\u3000\u00a0", "ab"])
def test_both_closures_agree_on_real_vocabularies(name: str, alphabet: str) -> None:
    ranks = bytepair.get_encoding(name).engine.model.ranks
    data = bytes(sorted(set(alphabet.encode())))
    assert _as_sets(closure_by_search(data, ranks, 10**6)) == _as_sets(closure_by_pairs(data, ranks, 10**6))
