"""``BertPreTokenizer``, ``CharDelimiterSplit`` and ``FixedLength`` against HF ``tokenizers`` 0.23.3:
the same pieces and offsets on random and chosen text, and their JSON written back as HF writes it."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bytepair.errors import InvalidInputError
from bytepair.pre_tokenizers import CharDelimiterSplit, FixedLength, pre_tokenizer_from_json

tokenizers = pytest.importorskip("tokenizers")
P = tokenizers.pre_tokenizers

HF = {"bert": lambda: P.BertPreTokenizer(), "delimiter": lambda: P.CharDelimiterSplit("-"),
      "fixed3": lambda: P.FixedLength(3), "fixed1": lambda: P.FixedLength(1), "scripts": lambda: P.UnicodeScripts()}
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30) | \
    st.text("ab-,.!¿«» \t\n\u3000\u00a0\u2028中éカひーα1", max_size=40)


@settings(max_examples=150, deadline=None)
@given(text=TEXT, name=st.sampled_from(sorted(HF)))
def test_pieces_and_offsets_as_hf(text: str, name: str) -> None:
    hf = HF[name]()
    ours = pre_tokenizer_from_json(json.loads(hf.__getstate__()))
    assert ours is not None and ours.to_json() == json.loads(hf.__getstate__())
    assert ours.pre_tokenize_str(text) == hf.pre_tokenize_str(text)
    assert ours.split(text) == [piece for piece, _ in hf.pre_tokenize_str(text)]


def test_bad_options_are_refused() -> None:
    with pytest.raises(InvalidInputError, match="one character"):
        CharDelimiterSplit("ab")
    with pytest.raises(InvalidInputError, match="length"):
        FixedLength(0)


@pytest.mark.soak
def test_unicode_scripts_every_code_point_as_hf() -> None:
    """Every code point after every other class's first one: the pinned script classes are HF's."""
    hf, ours = P.UnicodeScripts(), pre_tokenizer_from_json({"type": "UnicodeScripts"})
    chars = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    assert ours.pre_tokenize_str(chars) == hf.pre_tokenize_str(chars)
    for probe in ("a", "1", "中", "α", "\u0301", " a", "z "):
        text = "".join(probe + chars[i:i + 1] for i in range(0, len(chars), 7))
        assert ours.pre_tokenize_str(text) == hf.pre_tokenize_str(text), repr(probe)
