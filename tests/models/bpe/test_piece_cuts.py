"""Places in a long piece no merge can cross (``models/bpe/piece_cuts.py``).

Two things must hold: the bit-plane fast path finds exactly the places the plain loops find, and
every place is sound (merging the sides apart gives the merge rule's ids for the whole piece, and no
token of the whole piece's merge crosses a place). Held on generated vocabularies where tokens rank
before their halves, and on cl100k/o200k whitespace mixes, which must also take the run rule
through the long-piece encoder and give tiktoken's ids.
"""

from __future__ import annotations

import random
from itertools import accumulate

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair.models.bpe.merge import apply_merges
from bytepair.models.bpe.piece_cuts import MAX_DISTINCT_BYTES, PieceCuts, distinct_bytes

MIX = " \t\r\n\u3000\u00a0"


@st.composite
def vocabularies(draw: st.DrawFn) -> dict[bytes, int]:
    """Every single byte, plus random multi-byte tokens over a few letters, in shuffled rank order."""
    letters = draw(st.lists(st.sampled_from(b"abcd \t\xc2\xa0"), min_size=2, max_size=5, unique=True))
    tokens = draw(st.lists(st.binary(min_size=2, max_size=5).map(lambda b: bytes(letters[x % len(letters)] for x in b)),
                           max_size=40, unique=True))
    order = draw(st.permutations(tokens))
    return {**{bytes((b,)): b for b in range(256)}, **{t: 256 + i for i, t in enumerate(order)}}


def _sides(data: bytes, cuts: list[int]) -> list[bytes]:
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]


@settings(max_examples=300, deadline=None)
@given(vocabularies(), st.data())
def test_fast_equals_plain_and_every_cut_is_sound(ranks: dict[bytes, int], data: st.DataObject) -> None:
    letters = sorted({b for t in ranks if len(t) > 1 for b in t} | {ord("a"), ord("b")})
    wide = data.draw(st.booleans())  # more than MAX_DISTINCT_BYTES distinct bytes: the pair rule
    alphabet = list(range(32, 32 + MAX_DISTINCT_BYTES + 4)) + letters if wide else letters
    piece = data.draw(st.binary(max_size=120).map(lambda b: bytes(alphabet[x % len(alphabet)] for x in b)))
    finder = PieceCuts(ranks, list(ranks))
    cuts = finder.cuts(piece)
    assert cuts == finder.reference_cuts(piece)
    whole = apply_merges(piece, ranks) if piece else []
    assert [i for side in _sides(piece, cuts) if side for i in apply_merges(side, ranks)] == whole
    token_bytes = {v: k for k, v in ranks.items()}
    ends = set(accumulate(len(token_bytes[i]) for i in whole))
    assert set(cuts) <= ends  # every place falls between two of the whole piece's tokens


def test_run_rule_cuts_inside_pairs_the_pair_rule_keeps() -> None:
    """Hand-checked: ``ab``, ``bc``, ``abc`` and ``cab`` are tokens. The pair ``ca`` sits inside
    ``cab``, so the pair rule never cuts it; the run rule does where no token shorter than 4
    bytes or 4-byte run inside one stands across it, and does not where one does."""
    ranks = {bytes([b]): b for b in range(256)}
    for token in (b"ab", b"bc", b"abc", b"cab"):
        ranks[token] = len(ranks)
    finder = PieceCuts(ranks, list(ranks))
    assert finder.cuts(b"abcab") == []  # a|b, b|c: tokens; c|a: "cab" crosses it; a|b
    assert finder.cuts(b"xcax") == [1, 2, 3]  # "xca", "cax" are in no token: c|a cut too
    pair_rule = finder.cuts(b"xcax" + bytes(range(100, 120)))  # more than 16 distinct bytes
    assert 2 not in pair_rule and pair_rule == finder.reference_cuts(b"xcax" + bytes(range(100, 120)))


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "r50k_base"])
def test_real_vocabularies_whitespace_mix(tiktoken_ref, name: str) -> None:
    enc = bytepair.get_encoding(name)
    rng = random.Random(7)
    text = "".join(rng.choices(MIX, k=6000))
    data = text.encode()
    finder = PieceCuts(enc.engine.model.ranks, enc.engine.model.token_bytes)
    assert distinct_bytes(data, MAX_DISTINCT_BYTES) is not None
    cuts = finder.cuts(data)
    assert cuts == finder.reference_cuts(data)
    assert len(cuts) > len(data) // 4  # the run rule cuts a whitespace mix every few bytes
    assert enc.encode_ordinary(text * 40) == tiktoken_ref(name).encode_ordinary(text * 40)


def test_no_separator_byte_means_no_cuts() -> None:
    """If multi-byte tokens hold every byte value, runs cannot be kept apart: no places, no risk."""
    ranks = {bytes([b]): b for b in range(256)}
    for b in range(256):
        ranks[bytes([b, b])] = len(ranks)
    finder = PieceCuts(ranks, list(ranks))
    assert finder.cuts(b"abcdef" * 10) == [] == finder.reference_cuts(b"abcdef" * 10)
