"""The fast merge paths (short list, heap, chunked long pieces) against the plain reference rule."""

from __future__ import annotations

import random
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair.models.bpe.merge import (
    _PAIR_TABLE_AFTER,
    _first_pair_ranks,
    _merge_long,
    _merge_short,
    _pair_table,
    apply_merges,
    merge_piece,
    merge_three,
    reference_merge,
)
from bytepair.models.bpe.long_pieces import LONG_PIECE_CHARS
from bytepair.models.piece_cache import PieceCache
from bytepair.models.bpe.rank_model import RankModel

ENC = bytepair.get_encoding("o200k_base")
RANKS = ENC._mergeable_ranks
TOKEN_BYTES = [ENC._table.single(i) if i < len(RANKS) else b"" for i in range(len(RANKS))]


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=1, max_size=80))
def test_short_and_heap_equal_reference_on_bytes(data: bytes) -> None:
    expected = reference_merge(data, RANKS)
    assert _merge_short(data, RANKS) == expected
    assert _merge_long(data, RANKS) == expected
    assert apply_merges(data, RANKS) == expected  # the reference rule has no whole-piece lookup either
    assert merge_piece(data, RANKS) == expected


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abcdefghij klmnop日本語🙂é\n", min_size=1, max_size=120))
def test_paths_equal_reference_on_text(text: str) -> None:
    data = text.encode()
    assert _merge_short(data, RANKS) == _merge_long(data, RANKS) == reference_merge(data, RANKS)


def test_merge_three_equals_reference() -> None:
    """The written-out rule for three bytes against the plain rule: every string over four bytes
    with a vocabulary where each shape occurs (left or right pair first, a whole piece reached by
    either, a whole-piece token no merge reaches), then o200k's three-byte tokens and random bytes."""
    ranks = {bytes([b]): b for b in range(256)}
    for token in (b"bc", b"ab", b"ca", b"abc", b"bca", b"aa", b"aaa", b"cab", b"dcd", b"dd"):
        ranks[token] = len(ranks)
    shapes = set()
    for data in map(bytes, product(b"abcd", repeat=3)):
        expected = reference_merge(data, ranks)
        assert list(merge_three(data, ranks)) == expected, data
        shapes.add(len(expected))
    assert shapes == {1, 2, 3}
    rng = random.Random(11)
    cases = [token for token in RANKS if len(token) == 3] + [rng.randbytes(3) for _ in range(20_000)]
    for data in cases:
        assert list(merge_three(data, RANKS)) == reference_merge(data, RANKS), data
        assert apply_merges(data, RANKS) == reference_merge(data, RANKS)


def test_merge_matches_tiktoken_single_piece(tiktoken_ref) -> None:
    ref = tiktoken_ref("o200k_base")
    rng = random.Random(7)
    for _ in range(300):
        data = bytes(rng.choice(b"aaabbc \xe6\x97\xa5\xf0\x9f\x99\x82") for _ in range(rng.randint(1, 200)))
        assert merge_piece(data, RANKS) == ref._encode_single_piece(data)


def _long_piece_cases() -> list[str]:
    rng = random.Random(3)
    return [
        "x" * 5000,
        " " * 5000,
        "ab" * 2000,
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(5000)),
        "".join(chr(rng.randint(0x1F600, 0x1F64F)) for _ in range(1500)),
        "".join(rng.choice("日本語中文字") for _ in range(2000)),
        "".join(rng.choice(["🙂", "x", "xx", " "]) for _ in range(3000)),
        "".join(chr(rng.randint(0x80, 0x10FFF)) for _ in range(1000)).encode("utf-8", "replace").decode("utf-8", "replace"),
        "=" * 1000 + "-" * 1000 + "=" * 999,
    ]


@pytest.mark.parametrize("piece", _long_piece_cases(), ids=lambda p: f"{p[:3]!r}x{len(p)}")
def test_chunked_long_pieces_equal_heap_merge(piece: str) -> None:
    assert len(piece) > LONG_PIECE_CHARS
    cache = PieceCache(RankModel(RANKS, TOKEN_BYTES))
    assert list(cache[piece]) == _merge_long(piece.encode(), RANKS)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "ab", "x" * 7, " ", "🙂", "日本", "\u0301"]), min_size=100, max_size=600))
def test_chunked_long_pieces_property(parts: list[str]) -> None:
    piece = "".join(parts)
    if len(piece) <= LONG_PIECE_CHARS:
        piece = piece * (LONG_PIECE_CHARS // max(1, len(piece)) + 2)
    cache = PieceCache(RankModel(RANKS, TOKEN_BYTES))
    assert list(cache[piece]) == _merge_long(piece.encode(), RANKS)


def test_cache_is_bounded() -> None:
    cache = PieceCache(RankModel(RANKS, TOKEN_BYTES), max_entries=100)
    for i in range(1000):
        cache[f"w{i}"]
    assert len(cache) <= 100
    assert cache["hello"] == (RANKS[b"hello"],)


def test_cache_is_bounded_by_size_too() -> None:
    """Long pieces with many ids (CJK runs) fill memory long before the entry bound: the cache is
    emptied once its entries' estimated size passes ``max_bytes``, both one by one and by prefetch."""
    from bytepair.models.piece_cache import entry_bytes

    cache = PieceCache(RankModel(RANKS, TOKEN_BYTES), max_bytes=20_000)
    pieces = ["".join(chr(0x4E00 + (i * 7 + j) % 3000) for j in range(30)) for i in range(400)]
    for piece in pieces:
        cache[piece]
        assert cache.bytes == sum(entry_bytes(p, ids) for p, ids in cache.items()) <= 20_000
    assert 0 < len(cache) < 400
    kept = [p for p in pieces if p in cache]
    # Prefetch (a few distinct bytes in many new pieces: merged together) adds a block's new pieces
    # at once, emptying the cache first when they would pass the bound.
    cache.prefetch([f"{i % 7}{i}" for i in range(3000)])
    assert cache.bytes == sum(entry_bytes(p, ids) for p, ids in cache.items()) and "66" in cache and len(cache) == 3000
    assert not any(p in cache for p in kept)
    assert [i for p in pieces[:50] for i in cache[p]] == ENC.encode_ordinary("".join(pieces[:50]))


def test_heap_merge_with_a_two_byte_token_of_rank_zero() -> None:
    """The heap's start-up reads two-byte ranks from a table once one is built: rank 0 must count
    as a rank, before the table and after it."""
    ranks = {b"ab": 0, **{bytes((b,)): b + 1 for b in range(256)}, b"abab": 257}
    piece = b"ab" * 40 + b"c"
    assert _pair_table(ranks) is None  # a new vocabulary has no table yet
    assert _merge_long(piece, ranks) == reference_merge(piece, ranks)
    assert _pair_table(ranks, _PAIR_TABLE_AFTER) is not None
    assert _merge_long(piece, ranks) == reference_merge(piece, ranks)


@settings(max_examples=100, deadline=None)
@given(st.binary(min_size=2, max_size=200))
def test_first_pair_ranks_from_the_table_equal_the_lookups(data: bytes) -> None:
    """The pair table is built only after ~128 kB of long pieces (a first pass over prose seldom
    meets that many); the ranks it gives must be the ones looked up as bytes."""
    expected = [RANKS.get(data[i : i + 2]) for i in range(len(data) - 1)]
    assert _first_pair_ranks(data, RANKS, None) == expected
    assert _first_pair_ranks(data, RANKS, _pair_table(RANKS, _PAIR_TABLE_AFTER)) == expected
