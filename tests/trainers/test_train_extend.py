"""Vocabulary extension: GPT-2 + Chinese text. Every old id, merge and rank stays; fertility drops."""

from __future__ import annotations

import json

import pytest

import bytepair

from tests.conftest import corpus_texts
from tests.hf_reference import hf_folder


@pytest.fixture(scope="module")
def gpt2() -> bytepair.Tokenizer:
    return bytepair.Tokenizer.from_file(hf_folder("gpt2") / "tokenizer.json")


@pytest.fixture(scope="module")
def zh_split() -> tuple[list[str], str]:
    lines = corpus_texts()["zh"].splitlines(keepends=True)
    cut = len(lines) * 3 // 4
    return lines[:cut], "".join(lines[cut:])


@pytest.fixture(scope="module")
def extended(gpt2: bytepair.Tokenizer, zh_split: tuple[list[str], str]) -> bytepair.Tokenizer:
    return bytepair.train(zh_split[0], 50257 + 300, base=gpt2, show_progress=False)


def test_old_ids_merges_and_ranks_untouched(gpt2: bytepair.Tokenizer, extended: bytepair.Tokenizer) -> None:
    old, new = json.loads(gpt2.to_str())["model"], json.loads(extended.to_str())["model"]
    assert new["merges"][: len(old["merges"])] == old["merges"]
    assert len(new["merges"]) > len(old["merges"])
    assert all(new["vocab"][t] == i for t, i in old["vocab"].items())
    assert min(i for t, i in new["vocab"].items() if t not in old["vocab"]) == 50257
    assert extended.token_to_id("<|endoftext|>") == 50256
    assert extended.get_vocab_size() == 50257 + 300


def test_fertility_drops_on_held_out_chinese(gpt2: bytepair.Tokenizer, extended: bytepair.Tokenizer,
                                             zh_split: tuple[list[str], str]) -> None:
    held_out = zh_split[1]
    before, after = len(gpt2.encode(held_out).ids), len(extended.encode(held_out).ids)
    assert after < 0.8 * before
    assert extended.decode(extended.encode(held_out).ids) == held_out
    english = "The quick brown fox jumps over the lazy dog."
    assert extended.encode(english).ids == gpt2.encode(english).ids


def test_hf_loads_the_extension_and_encodes_alike(extended: bytepair.Tokenizer, zh_split: tuple[list[str], str]) -> None:
    tk = pytest.importorskip("tokenizers")
    theirs = tk.Tokenizer.from_str(extended.to_str())
    assert theirs.encode(zh_split[1]).ids == extended.encode(zh_split[1]).ids


def test_extension_equals_hf_style_training_from_base_merges() -> None:
    """From a base trained by bytepair (itself HF-identical), extending to N equals training to N
    directly: the base's merges are exactly the first ones the longer run makes."""
    texts = ["the cat sat on the mat", "the dog sat on the log", "a cat and a dog"] * 4
    small = bytepair.train(texts, 270, pattern="gpt2", show_progress=False)
    grown = bytepair.train(texts, 290, base=small, show_progress=False)
    direct = bytepair.train(texts, 290, pattern="gpt2", show_progress=False)
    assert json.loads(grown.to_str())["model"] == json.loads(direct.to_str())["model"]


def test_extending_with_another_pattern_is_an_error(gpt2: bytepair.Tokenizer) -> None:
    with pytest.raises(bytepair.TrainingError, match="leave pattern out"):
        bytepair.train(["你好"], 50300, base=gpt2, pattern="o200k_base", show_progress=False)
    with pytest.raises(bytepair.TrainingError, match="vocab_size > 50257"):
        bytepair.train(["你好"], 50000, base=gpt2, show_progress=False)
    bytepair.train(["你好"], 50258, base=gpt2, pattern="gpt2", show_progress=False)  # its own pattern is fine


def test_added_tokens_keep_their_ids_in_hf_after_an_extension() -> None:
    """Extending puts new tokens after the added ones (<|end|> at 300, merges from 301): HF, which
    numbers an added token the vocabulary lacks from the vocabulary's size, must still load <|end|>
    at 300 (the saved vocabulary holds it)."""
    tokenizers = pytest.importorskip("tokenizers")
    text = corpus_texts()["en"][:20_000]
    base = bytepair.train([text], 300, pattern="gpt2", show_progress=False)
    base.add_special_tokens(["<|end|>"])
    extended = bytepair.train([text], 320, base=base, show_progress=False)
    hf = tokenizers.Tokenizer.from_str(extended.to_str())
    assert extended.token_to_id("<|end|>") == hf.token_to_id("<|end|>") == 300
    assert extended.get_vocab(True) == hf.get_vocab(True)
    assert extended.encode("the<|end|> there").ids == hf.encode("the<|end|> there").ids


def test_new_special_tokens_count_in_vocab_size_when_extending() -> None:
    text = corpus_texts()["en"][:20_000]
    base = bytepair.train([text], 300, pattern="gpt2", show_progress=False)
    with pytest.raises(bytepair.TrainingError, match="vocab_size >= 303"):
        bytepair.train([text], 301, base=base, special_tokens=["<a>", "<b>", "<c>"], show_progress=False)
    extended = bytepair.train([text], 310, base=base, special_tokens=["<a>", "<b>", "<c>"], show_progress=False)
    assert extended.get_vocab_size(True) == 310
