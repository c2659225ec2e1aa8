"""Classic BPE: the efficient trainer against the few-line reference, ties included."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair.trainers.classic import END_OF_WORD, rewrite


def reference_merges(words: dict[str, int] | list[str], num_merges: int) -> list[tuple[tuple[str, str], int]]:
    """The oracle: rebuild pair counts each step, take max (first met wins), rewrite every word."""
    types = dict(words) if isinstance(words, dict) else dict(Counter(words))
    vocab = [([*w, END_OF_WORD], c) for w, c in types.items() if w and c > 0]
    out = []
    for _ in range(num_merges):
        counts: dict[tuple[str, str], int] = {}
        for symbols, c in vocab:
            for pair in zip(symbols, symbols[1:]):
                counts[pair] = counts.get(pair, 0) + c
        if not counts:
            break
        best = max(counts, key=counts.get)  # type: ignore[arg-type]
        out.append((best, counts[best]))
        vocab = [(rewrite(symbols, best), c) for symbols, c in vocab]
    return out


def _merged(model: bytepair.ClassicBPE) -> list[str]:
    return [f"{a + b}({n})" for (a, b), n in zip(model.merges, model.counts)]


def test_worked_example_one() -> None:
    model = bytepair.train_classic({"low": 5, "lowest": 2, "new": 6, "widest": 3}, 10)
    assert " ".join(_merged(model)) == (
        "w</w>(11) lo(7) ne(6) new</w>(6) low</w>(5) es(5) est(5) est</w>(5) wi(3) wid(3)")


def test_worked_example_two() -> None:
    model = bytepair.train_classic({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 10)
    assert " ".join(_merged(model)) == (
        "es(9) est(9) est</w>(9) lo(7) low(7) ne(6) new(6) newest</w>(6) low</w>(5) wi(3)")


def test_iterable_of_words_counts_them() -> None:
    words = ["low"] * 5 + ["lowest"] * 2 + ["new"] * 6 + ["widest"] * 3
    assert bytepair.train_classic(words, 10).merges == bytepair.train_classic(
        {"low": 5, "lowest": 2, "new": 6, "widest": 3}, 10).merges


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(alphabet="abc", min_size=1, max_size=8), st.integers(1, 4), min_size=1, max_size=8),
       st.integers(0, 25))
def test_equal_to_reference_on_random_words(words: dict[str, int], num_merges: int) -> None:
    model = bytepair.train_classic(words, num_merges)
    assert list(zip(model.merges, model.counts)) == reference_merges(words, num_merges)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet="ab</w>", min_size=1, max_size=10), min_size=1, max_size=12), st.integers(0, 30))
def test_equal_to_reference_with_end_marker_text_in_words(words: list[str], num_merges: int) -> None:
    model = bytepair.train_classic(words, num_merges)
    assert list(zip(model.merges, model.counts)) == reference_merges(words, num_merges)


def _reference_encode(word: str, merges: list[tuple[str, str]]) -> list[str]:
    symbols = [*word, END_OF_WORD]
    for pair in merges:  # applying merges in rank order is the textbook encoder
        symbols = rewrite(symbols, pair)
    return symbols


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet="abcd", min_size=1, max_size=8), min_size=1, max_size=10),
       st.text(alphabet="abcde", min_size=1, max_size=12))
def test_encode_word(words: list[str], word: str) -> None:
    model = bytepair.train_classic(words, 15)
    assert model.encode_word(word) == _reference_encode(word, model.merges)
    assert "".join(model.encode_word(word)) == word + END_OF_WORD


def test_vocab_and_save_load(tmp_path: Path) -> None:
    model = bytepair.train_classic({"low": 5, "lowest": 2, "new": 6, "widest": 3}, 10)
    assert list(model.vocab)[:3] == ["l", "o", "w"] and model.vocab["wid"] == len(model.vocab) - 1
    assert set(model.vocab.values()) == set(range(len(model.vocab)))
    model.save(tmp_path / "m.json")
    loaded = bytepair.load_classic(tmp_path / "m.json")
    assert loaded.merges == model.merges and loaded.vocab == model.vocab
    assert loaded.encode_word("lowest") == model.encode_word("lowest") == ["lo", "w", "est</w>"]
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(bytepair.VocabFormatError, match="not a classic BPE model"):
        bytepair.load_classic(tmp_path / "bad.json")


def test_bad_input() -> None:
    with pytest.raises(bytepair.TrainingError, match="no words"):
        bytepair.train_classic([], 3)
    with pytest.raises(bytepair.TrainingError, match="num_merges"):
        bytepair.train_classic(["a"], -1)
    with pytest.raises(bytepair.InvalidInputError, match="not one str"):
        bytepair.train_classic("low lower", 3)
    with pytest.raises(bytepair.InvalidInputError, match="str with int counts"):
        bytepair.train_classic({"low": "5"}, 3)


def test_cli_train_classic(tmp_path: Path) -> None:
    corpus = tmp_path / "words.txt"
    corpus.write_text("low " * 5 + "lowest " * 2 + "\n" + "new " * 6 + "widest " * 3, encoding="utf-8")
    out = tmp_path / "model.json"
    run = subprocess.run([sys.executable, "-m", "bytepair", "train-classic", str(corpus), "--merges", "10", "-o", str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert bytepair.load_classic(out).merges == bytepair.train_classic(
        {"low": 5, "lowest": 2, "new": 6, "widest": 3}, 10).merges
    assert "10 merges" in run.stderr
