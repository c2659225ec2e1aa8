"""Long pieces through the tokenizer.json face (models/bpe/ranked_long_pieces.py) give HF tokenizers
0.23.3's ids: Llama 3 and Qwen 2.5 on single pieces of thousands of characters (random letters of
several scripts, repeats, whitespace runs), and the model's own merge where the chunked path is
not taken."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from tests.hf_reference import hf_folder

tokenizers = pytest.importorskip("tokenizers")

ALPHABETS = ["abcdefghijklmnopqrstuvwxyz", "abc", "ab", "абвгдеёжзийклмнопрстуфхцчшщъыьэюя", "的一是不了人我在有他这为之大来以个中上们",
             "aéèêëàâîïôùûüç", "αβγδεζηθικλμνξοπρστυφχψω"]


@pytest.fixture(scope="module", params=["llama3", "qwen2_5"])
def pair(request: pytest.FixtureRequest):
    path = str(hf_folder(request.param) / "tokenizer.json")
    ours = bytepair.Tokenizer.from_file(path)
    theirs = tokenizers.Tokenizer.from_file(path)
    yield ours, theirs
    ours.engine.cache.clear()


def _check(pair, text: str) -> None:
    ours, theirs = pair
    assert ours.engine.cache.long_pieces.encode("q" * 300) is not None  # the chunked path, not the merge
    expected = theirs.encode(text, add_special_tokens=False).ids
    assert ours.encode(text, add_special_tokens=False).ids == expected
    assert ours.count(text) == len(expected)


@pytest.mark.parametrize("alphabet", ALPHABETS)
def test_random_letters_as_one_piece(pair, alphabet: str) -> None:
    rng = random.Random(len(alphabet))
    _check(pair, "".join(rng.choice(alphabet) for _ in range(6000)))


@pytest.mark.parametrize("text", ["a" * 5000, "ab" * 3000, "abc" * 2000 + "x", " " * 3000 + "a", "\n \n  " * 700,
                                  "é" * 3000, "ذ" * 2000, "xyz" + "q" * 4000])
def test_runs(pair, text: str) -> None:
    _check(pair, text)


@settings(max_examples=30, deadline=None)
@given(st.text(st.sampled_from("abcdeéαб的"), min_size=257, max_size=1500))
def test_random_long_pieces(pair, text: str) -> None:
    _check(pair, text)


def test_models_whose_merges_are_not_ranks_keep_their_merge() -> None:
    from bytepair.models.bpe.merges_model import BPEModel
    from bytepair.text.byte_unicode import BYTE_TO_UNICODE

    vocab = {BYTE_TO_UNICODE[b]: b for b in range(256)} | {"bc": 256, "ab": 257}
    from bytepair.models.piece_cache import PieceCache

    model = BPEModel(vocab, [("a", "b"), ("b", "c")], byte_level=True)  # merge order is not id order
    cache = PieceCache(model)
    assert cache.long_pieces.encode("abc" * 100) is None
    # HF's rule merges the listed-first pair "ab"; ranking tokens by id would have merged "bc" (256) first.
    assert cache["abc" * 100] == model.encode_piece("abc" * 100) == (257, 99) * 100


@pytest.mark.parametrize("name", ["gpt2", "deepseek_v3", "gpt4o"])
def test_other_byte_level_files(name: str) -> None:
    path = str(hf_folder(name) / "tokenizer.json")
    ours, theirs = bytepair.Tokenizer.from_file(path), tokenizers.Tokenizer.from_file(path)
    rng = random.Random(7)
    for alphabet in ("abcdefghijklmnopqrstuvwxyz", "абвгд"):
        _check((ours, theirs), "".join(rng.choice(alphabet) for _ in range(3000)))
