"""BertPreTokenizer's and Punctuation's punctuation is HF tokenizers 0.23.3's (the pinned ranges of
pre_tokenizers/bert_punctuation.py): every candidate code point in the default run (the P* of
Python's Unicode, the pinned ranges, and their neighbours), every code point under soak."""

from __future__ import annotations

import unicodedata

import pytest

import bytepair
from bytepair.pre_tokenizers.bert_punctuation import PUNCTUATION_RANGES

tokenizers = pytest.importorskip("tokenizers")

CODE_POINTS = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]


def candidates() -> list[int]:
    """Code points where a table of another Unicode could disagree: P* here, the pinned ranges and the
    code points on either side of each range."""
    near = {cp for a, b in PUNCTUATION_RANGES for cp in (a - 1, *range(a, b + 1), b + 1)}
    return sorted(near | {cp for cp in CODE_POINTS if unicodedata.category(chr(cp)).startswith("P")} - set(range(0xD800, 0xE000)))


def assert_as_hf(code_points: list[int]) -> None:
    pairs = ((tokenizers.pre_tokenizers.BertPreTokenizer(), bytepair.pre_tokenizers.BertPreTokenizer()),
             (tokenizers.pre_tokenizers.Punctuation(), bytepair.pre_tokenizers.Punctuation()))
    for hf, ours in pairs:
        for start in range(0, len(code_points), 512):  # one text per block: "a" + c + "a" for each
            text = " ".join(f"a{chr(cp)}a" for cp in code_points[start:start + 512])
            assert ours.pre_tokenize_str(text) == hf.pre_tokenize_str(text), (type(hf).__name__, hex(code_points[start]))


def test_punctuation_candidates_as_hf() -> None:
    assert_as_hf(candidates())


def test_newer_punctuation_stays_inside_words_as_hf() -> None:
    tok = bytepair.pre_tokenizers.BertPreTokenizer()
    assert tok.pre_tokenize_str("x\U0001183by \u166d")[0] == ("x\U0001183by", (0, 3))
    assert [p for p, _ in tok.pre_tokenize_str("x\u166dy")] == ["x", "\u166d", "y"]


@pytest.mark.soak
def test_every_code_point_as_hf_soak() -> None:
    assert_as_hf(CODE_POINTS)
