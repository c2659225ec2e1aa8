"""The backtracking encoder against the plain reference merge: small hand-made vocabularies (where
backtracking is subtle: tokens the merges never build, ranks out of order, ties) and real encodings."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair.models.bpe.backtrack import BacktrackEncoder
from bytepair.models.bpe.merge import merge_piece, reference_merge

ALPHABET = b"abc"


@st.composite
def vocabularies(draw: st.DrawFn) -> tuple[dict[bytes, int], list[bytes]]:
    """Every byte of ``ALPHABET`` plus random strings over it, ranked in a random order."""
    extra = draw(st.lists(st.binary(min_size=2, max_size=5).map(lambda b: bytes(ALPHABET[x % 3] for x in b)), max_size=24))
    tokens = list(dict.fromkeys([bytes((b,)) for b in ALPHABET] + extra))
    draw(st.randoms(use_true_random=False)).shuffle(tokens)
    return {t: i for i, t in enumerate(tokens)}, tokens


def _reference(data: bytes, ranks: dict[bytes, int]) -> list[int]:
    """``merge_piece``'s meaning, from the plain rule."""
    return [ranks[data]] if data in ranks else reference_merge(data, ranks)


@settings(max_examples=1500, deadline=None)
@given(vocab=vocabularies(), text=st.binary(max_size=40).map(lambda b: bytes(ALPHABET[x % 3] for x in b)))
def test_equals_reference_on_small_vocabularies(vocab: tuple[dict[bytes, int], list[bytes]], text: bytes) -> None:
    ranks, tokens = vocab
    encoder = BacktrackEncoder(ranks, tokens)
    if not text:
        assert encoder.encode(text) == []
        return
    assert encoder.encode(text) == _reference(text, ranks)
    assert encoder.encode_merges(text) == reference_merge(text, ranks)
    known = encoder.encode_known(text)  # every pair it needed was memoised by encode
    assert known == _reference(text, ranks)


@settings(max_examples=300, deadline=None)
@given(vocab=vocabularies(), texts=st.lists(st.binary(min_size=1, max_size=30), min_size=1, max_size=6))
def test_known_pairs_only_never_guess(vocab: tuple[dict[bytes, int], list[bytes]], texts: list[bytes]) -> None:
    """``encode_known`` answers exactly or not at all, after ``learn`` saw other pieces' ids."""
    ranks, tokens = vocab
    encoder = BacktrackEncoder(ranks, tokens)
    for raw in texts:
        text = bytes(ALPHABET[x % 3] for x in raw)
        ids = encoder.encode_known(text)
        expected = _reference(text, ranks)
        assert ids is None or ids == expected
        encoder.learn(expected)


def test_a_token_the_merges_never_build() -> None:
    # "bc" merges first, and neither "abc" nor "bcd" is a token: the merges never build "abcd".
    tokens = [b"a", b"b", b"c", b"d", b"bc", b"abcd"]
    ranks = {t: i for i, t in enumerate(tokens)}
    encoder = BacktrackEncoder(ranks, tokens)
    assert encoder.encode(b"abcd") == [5]  # the whole piece is a token (tiktoken's rule)
    assert encoder.encode_merges(b"abcd") == reference_merge(b"abcd", ranks) == [0, 4, 3]
    assert encoder.encode(b"abcdabcd") == reference_merge(b"abcdabcd", ranks) == [0, 4, 3, 0, 4, 3]


ENCODINGS = ("cl100k_base", "o200k_base")


def _encoder(name: str) -> tuple[BacktrackEncoder, dict[bytes, int]]:
    model = bytepair.get_encoding(name).engine.model
    return BacktrackEncoder(model.ranks, model.token_bytes), model.ranks


@pytest.mark.parametrize("name", ENCODINGS)
@settings(max_examples=200, deadline=None)
@given(data=st.binary(min_size=1, max_size=60))
def test_equals_merge_on_random_bytes(name: str, data: bytes) -> None:
    encoder, ranks = _encoder(name)
    assert encoder.encode(data) == merge_piece(data, ranks) == _reference(data, ranks)


@pytest.mark.parametrize("name", ENCODINGS)
@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="abcdefghij klmnop'日本語中文字かなカナ🙂é\u0301\n\t0123", min_size=1, max_size=80))
def test_equals_merge_on_text(name: str, text: str) -> None:
    encoder, ranks = _encoder(name)
    data = text.encode()
    assert encoder.encode(data) == merge_piece(data, ranks)


@pytest.mark.parametrize("name", ENCODINGS)
def test_equals_merge_on_real_pieces(name: str) -> None:
    """Pieces of real multilingual text, as the pre-tokenizer cuts them, against the merge."""
    enc = bytepair.get_encoding(name)
    encoder, ranks = _encoder(name)
    text = (
        "Зачем нужен токенизатор? 東京都の人口は約1400万人です。我们今天去公园散步吧。"
        "Ελληνικά κείμενα, čeština, português; naïve café déjà-vu. def f(x):\n    return x**2  # ok\n"
        "Tiếng Việt có dấu. 😀🙃👍🏽 ¿Qué tal? Überprüfung der Straßenverkehrsordnung."
    )
    rng = random.Random(5)
    pieces = enc.engine.split(text * 3 + "".join(rng.sample(text, len(text))))
    for piece in pieces:
        data = piece.encode()
        assert encoder.encode(data) == merge_piece(data, ranks), piece
