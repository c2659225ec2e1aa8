"""Pattern translation and splitting: exact pieces, stand-ins, block cuts, and the regex fallback."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bytepair.openai_encodings import CL100K_PATTERN, O200K_PATTERN, R50K_PATTERN
from bytepair.pretokenize import Pretokenizer
from bytepair.pretokenize.astral import AstralStandIns
from bytepair.pretokenize.translate import UntranslatablePatternError, translate

from .conftest import corpus_texts

PATTERNS = {"r50k": R50K_PATTERN, "cl100k": CL100K_PATTERN, "o200k": O200K_PATTERN}


def test_dollar_means_end_of_text() -> None:
    # Python's $ also matches before a final newline; Rust's (tiktoken's) does not.
    assert translate(r"\s++$").pattern.endswith(r"\Z")
    split = Pretokenizer(R50K_PATTERN).split
    assert split("a  \n") == ["a", "  \n"]
    assert split("a  \nb") == ["a", " ", " ", "\n", "b"] or split("a  \nb") == ["a", "  ", "\n", "b"]
    assert "".join(split("a  \nb")) == "a  \nb"


def test_classes_expand_to_ranges() -> None:
    t = translate(r"[^\s\p{L}]+")
    assert r"\p" not in t.pattern and r"\s" not in t.pattern
    assert re.fullmatch(t.pattern, "12!") and not re.fullmatch(t.pattern, "a")
    assert re.fullmatch(translate(r"\s").pattern, "\x85") and not re.fullmatch(translate(r"\s").pattern, "\x1c")
    assert re.fullmatch(translate(r"\x{1F600}").pattern, "😀")
    assert translate(r"\x{1F600}").has_astral_literal
    assert re.fullmatch(translate(r"(?<word>\p{L}+)").pattern, "abc")


@pytest.mark.parametrize("pattern", [r"\w+", r"\bx", r"\p{Han}", r"[[:alpha:]]", r"[a&&b]", r"(?m)^x", r"\X"])
def test_untranslatable_syntax_is_named(pattern: str) -> None:
    with pytest.raises(UntranslatablePatternError, match="regex"):
        translate(pattern)


def test_regex_fallback_for_user_patterns() -> None:
    pytest.importorskip("regex")
    split = Pretokenizer(r"\p{Han}+|\w+|\s+")
    assert split.engine == "regex"
    assert split.split("漢字 abc") == ["漢字", " ", "abc"]
    assert Pretokenizer(O200K_PATTERN).engine == "re"


def test_stand_ins_avoid_pattern_literals_and_case() -> None:
    stand_ins = AstralStandIns(frozenset("ϒĸ"))
    swapped = stand_ins.substitute("𝐀𝐚😀𠀀")
    assert len(swapped) == 4 and max(swapped) <= "\uffff"
    assert "ϒ" not in swapped and "ĸ" not in swapped
    assert all(ch.lower() == ch.upper() == ch for ch in swapped)


def test_pattern_with_astral_literal_matches_directly() -> None:
    split = Pretokenizer(r"😀+|[^😀]+")
    assert split.split("a😀😀b𝐀") == ["a", "😀😀", "b𝐀"]


def test_pieces_are_cut_from_the_original_text() -> None:
    text = "x𝐀𝐛c 😀😀! 𠀀𠀀1"
    pieces = Pretokenizer(O200K_PATTERN).split(text)
    assert "".join(pieces) == text
    assert pieces == [m.group() for m in __import__("regex").finditer(O200K_PATTERN, text)]


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_block_cuts_keep_pieces_on_corpus(name: str) -> None:
    split = Pretokenizer(PATTERNS[name], cuttable=True)
    for text in corpus_texts().values():
        blocks = list(split.blocks(text, 500))
        assert "".join(blocks) == text and len(blocks) > 5
        assert [p for b in blocks for p in split.split(b)] == split.split(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="aB \n\r\t!/'sS1é\u0301日🙂\x85\u3000ǅ", max_size=200), st.sampled_from(sorted(PATTERNS)))
def test_block_cuts_keep_pieces_property(text: str, name: str) -> None:
    split = Pretokenizer(PATTERNS[name], cuttable=True)
    blocks = list(split.blocks(text, 3))
    assert "".join(blocks) == text
    assert [p for b in blocks for p in split.split(b)] == split.split(text)


def test_spans_cover_text() -> None:
    text = "Hello 𝐀 world\n\n"
    split = Pretokenizer(O200K_PATTERN)
    assert [text[s:e] for s, e in split.spans(text)] == split.split(text)


def test_offsets_when_the_pattern_skips_text() -> None:
    import bytepair

    ranks = {bytes((b,)): b for b in range(256)} | {b"ab": 256}
    enc = bytepair.Encoding("letters_only", pat_str=r"[a-z]+", mergeable_ranks=ranks, special_tokens={})
    ids, spans = enc.encode_with_offsets("ab, cd!")
    assert ids == enc.encode("ab, cd!") == [256, 99, 100]
    assert spans == [(0, 2), (4, 5), (5, 6)]
