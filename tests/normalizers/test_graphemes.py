"""Grapheme clusters (``normalizers/graphemes.py``) as HF's ``Precompiled`` finds them.

HF looks each cluster under 6 UTF-8 bytes up whole; with a rule ``a -> Q`` the text ``a`` + ``c`` is
``Q`` when ``c`` joins the ``a`` (the lookup takes the whole cluster) and ``Q`` + ``c`` when it does
not, so HF's output shows its cluster boundaries. These tests hold ours equal on every code point
after a letter, on the classes' second-order rules (Hangul, Indic conjuncts, emoji ZWJ sequences,
regional indicators, prepended marks) and on random text from every class."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bytepair.formats.charsmap import CharsMap
from bytepair.normalizers import Precompiled
from bytepair.normalizers.grapheme_tables import CLASSES, RUN_CLASSES, RUN_STARTS
from bytepair.normalizers.graphemes import grapheme_class, graphemes, may_join
from tests.normalizers.test_precompiled import _offsets_by_hf

tokenizers = pytest.importorskip("tokenizers")

def _pair(rules: dict[str, str]) -> tuple[Precompiled, object]:
    blob = CharsMap.build(rules)
    return Precompiled(blob), tokenizers.normalizers.Precompiled(blob)


def test_every_code_point_after_a_letter() -> None:
    """``a`` + each code point (surrogates aside) in one text per block of 4,096: HF and ours put
    out the same, so every character that joins a letter (Extend, ZWJ, SpacingMark) joins it here."""
    ours, hf = _pair({"a": "Q"})
    for block in range(0, 0x110000, 4096):
        text = "".join("a" + chr(c) + "b" for c in range(block, block + 4096) if not 0xD800 <= c < 0xE000)
        if text:
            assert ours.normalize(text) == hf.normalize_str(text), hex(block)


SECOND_ORDER = [
    "\u0915\u094d\u0937\u0301",  # GB9c: a conjunct across a virama
    "\u0915\u094d\u093c\u0937\u0301",  # with an extending nukta after the virama
    "\u0995\u09cd\u0981\u09b7\u0301",  # a candrabindu (combining class 0) after the virama
    "\u0995\u09cd\u200c\u09b7\u0301",  # ZWNJ ends the conjunct
    "\u0995\u09cd\u200d\u09b7\u0301",  # ZWJ does not
    "\u0915\u0937\u0301",  # no virama: no conjunct
    "\u1000\u1039\u1000\u0301",  # Myanmar's virama links a conjunct since Unicode 17.0
    "\u0e01\u0e33\u0301",  # Thai SARA AM is a spacing mark though a letter
    "\u1000\u102c\u0301",  # a spacing-combining mark that is not SpacingMark
    "\u0600ab", "\u0600\u0600a", "\u0600\r\na",  # a prepended mark takes what follows, not a control
    "\u2122\u200d\u2122\u0301", "\xa9\u0301\u200d\xa9\u0301",  # GB11: a pictograph, extends, ZWJ, a pictograph
    "\u2605\u200d\u2605\u0301",  # BLACK STAR is no pictograph in HF's data
    "a\u200d\u2122\u0301",  # ZWJ after a letter joins nothing after it
    "\U0001F600\u200d\u2122\u0301",  # an emoji begins the sequence too
    "\u1100\u1161\u0301", "\u1100\uac00\u0301", "\uac00\u11a8\u0301", "\uac01\u11a8\u0301",  # Hangul
    "\u1161\u1161\u0301", "\u11a8\u1161\u0301", "\uac00\u1161\u0301",
    "\U0001F1E6\U0001F1E6\U0001F1E6a\u0301", "\U0001F1E6a\u0301",  # regional indicators in pairs
    "a\u0897", "a\u1acf", "a\u05c8",  # marks new in Unicode 16.0 and 17.0 join; U+05C8 (17.0) is no mark
]


def test_second_order_rules_against_hf() -> None:
    rules = {"\u0937": "Q", "\u09b7": "Q", "\u0e33": "Q", "\u102c": "Q", "\u0600": "Q", "\u2122": "Q", "\xa9": "Q",
             "\u2605": "Q", "\u1161": "Q", "\u11a8": "Q", "\u1000": "Q", "a": "Q", "\uac00": "Q"}
    ours, hf = _pair(rules)
    for text in SECOND_ORDER:
        assert ours.normalize(text) == hf.normalize_str(text), ascii(text)
        assert ours.reference_normalize_aligned(text)[0] == hf.normalize_str(text), ascii(text)


def _members(name: str, limit: int) -> list[str]:
    """Up to ``limit`` characters of class ``name`` under 4 UTF-8 bytes, spread over its ranges."""
    index = CLASSES.index(name)
    found: list[str] = []
    for i, start in enumerate(RUN_STARTS):
        if RUN_CLASSES[i] == index and start < 0x10000 and not 0xD800 <= start < 0xE000:
            found.append(chr(start))
    step = max(1, len(found) // limit)
    return found[::step][:limit]


POOL = sorted({ch for name in CLASSES for ch in _members(name, 6)} | set("a\u0301\u094d\u0937\u200d\u200c\u2122\xa9"
                                                                    "\U0001F600\U0001F1E6\u0e33\u1100\u1161\u11a8"))
RULES = {ch: ("Q", "", "XY")[i % 3] for i, ch in enumerate(POOL[::3])}


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(POOL), max_size=12).map("".join))
def test_random_text_from_every_class(text: str) -> None:
    """Text of characters of every class, some of them rewritten, removed or grown: HF's text and
    offsets, by both of our paths; and a cluster boundary lies wherever ``may_join`` says one must."""
    ours, hf = _pair(RULES)
    expected = hf.normalize_str(text)
    assert ours.normalize(text) == expected
    normalized, align = ours.normalize_aligned(text)
    plain, plain_align = ours.reference_normalize_aligned(text)
    identity = [(i, i + 1) for i in range(len(text))]
    assert (normalized, align or identity) == (plain, plain_align or identity)
    if normalized:
        assert (align or identity) == _offsets_by_hf(CharsMap.build(RULES), text, normalized)
    ends = {sum(map(len, graphemes(text)[:k])) for k in range(len(graphemes(text)) + 1)}
    for i in range(1, len(text)):
        if not may_join(text[i - 1], text[i]):
            assert i in ends, (ascii(text), i)


def test_tables_are_pinned() -> None:
    """The generated table covers every code point once, in order, and names each class it uses."""
    from bytepair.normalizers import grapheme_tables

    assert grapheme_tables.UNICODE_VERSION == "17.0.0"
    assert RUN_STARTS[0] == 0 and list(RUN_STARTS) == sorted(set(RUN_STARTS)) and RUN_STARTS[-1] <= 0x10FFFF
    assert len(RUN_CLASSES) == len(RUN_STARTS) and set(RUN_CLASSES) == set(range(len(CLASSES)))
    assert [CLASSES[grapheme_class(c)] for c in "a\r\n\x00\u0301\u200d\u200c\u094d\u0915\u2122\u0e33\u0600"] == [
        "Other", "CR", "LF", "Control", "Extend", "ZWJ", "ZWNJ", "Linker", "Consonant", "Extended_Pictographic",
        "SpacingMark", "Prepend"]
    assert json.dumps(graphemes("")) == "[]"
