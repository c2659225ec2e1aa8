"""Assigning a stage to a Tokenizer takes effect (bytepair's component or HF's, converted) or is
refused with a clear error, and the result equals HF's tokenizer with the same assignment."""

from __future__ import annotations

import pytest

tokenizers = pytest.importorskip("tokenizers")

from bytepair import Tokenizer, decoders, normalizers, pre_tokenizers  # noqa: E402
from bytepair.errors import InvalidInputError, InvalidTokenError  # noqa: E402

from tests.hf_reference import hf_folder  # noqa: E402

TEXTS = ["Hello World, it's 2024!", "  Ünïcode  spaces\tand\nlines ", "don't stop-me now"]


@pytest.fixture(scope="module")
def gpt2_path():
    return str(hf_folder("gpt2") / "tokenizer.json")


def pair(path):
    return Tokenizer.from_file(path), tokenizers.Tokenizer.from_file(path)


def same(ours, theirs):
    for text in TEXTS:
        a, b = ours.encode(text), theirs.encode(text)
        assert a.ids == b.ids, text
        assert a.offsets == b.offsets, text
        assert ours.decode(a.ids) == theirs.decode(b.ids), text


@pytest.mark.parametrize("make", [
    lambda hf: (hf.pre_tokenizers.Whitespace(), "pre_tokenizer"),
    lambda hf: (hf.normalizers.Lowercase(), "normalizer"),
    lambda hf: (hf.normalizers.Sequence([hf.normalizers.NFKD(), hf.normalizers.Lowercase()]), "normalizer"),
    lambda hf: (hf.decoders.Strip(" ", 1, 0), "decoder"),
])
def test_hf_and_bytepair_stage_objects_take_effect(gpt2_path, make):
    import bytepair
    ours, theirs = pair(gpt2_path)
    ours_too, _ = pair(gpt2_path)
    hf_value, stage = make(tokenizers)
    setattr(theirs, stage, hf_value)
    setattr(ours, stage, hf_value)  # HF's own object, converted through its JSON state
    setattr(ours_too, stage, make(bytepair)[0])  # bytepair's component of the same name
    same(ours, theirs)
    same(ours_too, theirs)
    before = Tokenizer.from_file(gpt2_path)
    if stage != "decoder":
        assert [ours.encode(t).ids for t in TEXTS] != [before.encode(t).ids for t in TEXTS]


def test_model_assignment_takes_effect(gpt2_path):
    ours, theirs = pair(gpt2_path)
    model = tokenizers.models.BPE({"a": 0, "b": 1, "ab": 2, "Ġ": 3}, [("a", "b")])
    theirs.model = model
    ours.model = model
    for text in ["abab", "ab ba"]:
        assert ours.encode(text).ids == theirs.encode(text).ids
    assert ours.get_vocab_size(with_added_tokens=False) == 4


@pytest.mark.parametrize("stage", ["normalizer", "pre_tokenizer", "post_processor", "decoder", "model"])
def test_wrong_objects_are_refused(gpt2_path, stage):
    ours = Tokenizer.from_file(gpt2_path)
    with pytest.raises(InvalidInputError, match=stage):
        setattr(ours, stage, "lowercase")
    assert ours.encode("Hello").ids == tokenizers.Tokenizer.from_file(gpt2_path).encode("Hello").ids


def test_none_removes_a_stage(gpt2_path):
    ours, theirs = pair(gpt2_path)
    ours.decoder = None
    theirs.decoder = None
    ids = ours.encode("Hello world").ids
    assert ours.decode(ids) == theirs.decode(ids)


def test_id_to_token_refuses_what_hf_refuses(gpt2_path):
    ours, theirs = pair(gpt2_path)
    with pytest.raises(InvalidTokenError):
        ours.id_to_token(-1)
    with pytest.raises(OverflowError):
        theirs.id_to_token(-1)
    assert ours.id_to_token(10**9) is None and theirs.id_to_token(10**9) is None


def test_assigned_stages_are_saved_and_read_back_by_hf(gpt2_path, tmp_path):
    ours, theirs = pair(gpt2_path)
    for tok, hf in ((ours, tokenizers), (theirs, tokenizers)):
        tok.normalizer = hf.normalizers.Lowercase()
        tok.pre_tokenizer = hf.pre_tokenizers.Whitespace()
        tok.decoder = hf.decoders.Strip(" ", 1, 0)
    ours.save(str(tmp_path / "t.json"))
    again = tokenizers.Tokenizer.from_file(str(tmp_path / "t.json"))
    back = Tokenizer.from_file(str(tmp_path / "t.json"))
    for text in TEXTS:
        assert again.encode(text).ids == theirs.encode(text).ids == back.encode(text).ids


def test_a_bpe_model_follows_a_byte_level_pre_tokenizer_whichever_comes_first():
    import bytepair
    texts = ["hello world, héllo there 🙂 ça"] * 20
    results = []
    for lib in (bytepair, tokenizers):
        tok = lib.Tokenizer(lib.models.BPE())
        tok.pre_tokenizer = lib.pre_tokenizers.ByteLevel()
        tok.decoder = lib.decoders.ByteLevel()
        trainer = lib.trainers.BpeTrainer(vocab_size=300, initial_alphabet=lib.pre_tokenizers.ByteLevel.alphabet(),
                                          show_progress=False)
        tok.train_from_iterator(texts, trainer)
        encoded = tok.encode("héllo 🙂 world ça")
        again = lib.Tokenizer(lib.models.BPE())
        again.pre_tokenizer = lib.pre_tokenizers.ByteLevel()
        again.model = tok.model  # assigned after the pre-tokenizer
        results.append((encoded.ids, encoded.offsets, tok.decode(encoded.ids), again.encode("héllo 🙂").ids))
    assert results[0] == results[1]
