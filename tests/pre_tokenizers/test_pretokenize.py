"""Pattern translation and splitting: exact pieces, stand-ins, block cuts, and the regex fallback."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bytepair.data.openai import CL100K_PATTERN, O200K_PATTERN, R50K_PATTERN
from bytepair.pre_tokenizers.pattern import Pretokenizer
from bytepair.pre_tokenizers.pattern.astral import AstralStandIns
from bytepair.pre_tokenizers.pattern.translate import UntranslatablePatternError, translate

from tests.conftest import corpus_texts

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


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(["a", " bc", "D", "1", "!", " ", "\n", "é", "中", "😀", "𝐀", "𝐚b", " 𠀀"]), max_size=80),
    st.sampled_from(sorted(PATTERNS)),
)
def test_pieces_with_few_or_many_astral_characters(words: list[str], name: str) -> None:
    """Few astral characters among many pieces: only the pieces holding one are cut again from the
    text; many: all are. Both must give the pieces of the pattern run on the original text."""
    regex = pytest.importorskip("regex")
    text = "".join(words)
    assert Pretokenizer(PATTERNS[name]).split(text) == regex.findall(PATTERNS[name], text)


def test_one_astral_character_in_a_long_text() -> None:
    regex = pytest.importorskip("regex")
    text = "word " * 500 + "𝐀x 😀😀 y" + " end" * 500
    assert Pretokenizer(O200K_PATTERN).split(text) == regex.findall(O200K_PATTERN, text)


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_block_cuts_keep_pieces_on_corpus(name: str) -> None:
    split = Pretokenizer(PATTERNS[name], cuttable=True)
    for text in corpus_texts().values():
        blocks = list(split.blocks(text, 500))
        assert "".join(blocks) == text and len(blocks) > 5
        assert [p for b in blocks for p in split.split(b)] == split.split(text)


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_block_cuts_in_long_runs_of_digits(name: str) -> None:
    """Runs of digits longer than the 4096 characters ``_run_start`` strips at a time: a whole line
    of them (found in one pass back to the previous cut), one with a digit of another script or a
    space inside, and one that starts after letters."""
    split = Pretokenizer(PATTERNS[name], cuttable=True)
    digits = "".join(random.Random(5).choices("0123456789", k=30_000))
    for text in (digits, "ab " + digits, digits[:9001] + "\u0663" + digits[9001:], "x" + digits[:12_345] + " y " + digits):
        blocks = list(split.blocks(text, 5000, first=100))
        assert "".join(blocks) == text
        assert len(blocks) > 3 or split.digit_group is None
        assert [p for b in blocks for p in split.split(b)] == split.split(text)


@settings(max_examples=600, deadline=None)
@given(
    st.text(alphabet="aB \n\r\t!/'sS1é\u0301日🙂\x85\u3000ǅ,\":{}=+²٣，。ー-_.", max_size=200),
    st.sampled_from(sorted(PATTERNS)),
)
def test_block_cuts_keep_pieces_property(text: str, name: str) -> None:
    split = Pretokenizer(PATTERNS[name], cuttable=True)
    blocks = list(split.blocks(text, 3))
    assert "".join(blocks) == text
    assert [p for b in blocks for p in split.split(b)] == split.split(text)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="ab \n\r\t\u3000\u00a0é\u0301中。,'1", max_size=120), st.integers(0, 130), st.integers(1, 130))
def test_quick_cut_is_a_cut_of_the_safe_cut_rule(text: str, start: int, width: int) -> None:
    """``blocks`` first looks for a cut with ``str.find`` and table lookups (no regex to compile): every
    cut it gives must be one the ``_safe_cut`` rule gives at that very place, inside the window."""
    from bytepair.pre_tokenizers.pattern.splitter import _cut_position, _quick_cut, _safe_cut

    cut = _quick_cut(text, start, start + width)
    if cut is not None:
        assert start <= cut < min(start + width, len(text))
        assert any(_cut_position(m) == cut for m in _safe_cut().finditer(text, max(cut - 1, 0), min(cut + 2, len(text))))


def test_quick_cut_finds_cuts_in_prose() -> None:
    from bytepair.pre_tokenizers.pattern.splitter import _quick_cut

    for name, text in corpus_texts().items():
        if name not in ("zh", "ja"):  # no spaces; cuts there come from newlines or the regex
            assert _quick_cut(text, len(text) // 2, len(text) // 2 + 4096) is not None, name


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


def _realistic_texts_without_spaces() -> dict[str, str]:
    import base64
    import json
    import random

    rng = random.Random(7)
    rows = [f"{i},{rng.randrange(10**6)},name_{rng.randrange(999)},2026-11-{i % 28 + 1:02d},\"x;y\"" for i in range(400)]
    words = ["alpha", "beta", "gamma", "日本", "значение", "42", "3.14"]
    obj = [{rng.choice(words): [rng.choice(words), rng.randrange(1000), None, True]} for _ in range(300)]
    return {
        "csv": "\r\n".join(rows),
        "json": json.dumps(obj, separators=(",", ":"), ensure_ascii=False),
        "js": "function f(a,b){return a.map(x=>x*2).filter(Boolean)};" * 200,
        "base64": base64.b64encode(rng.randbytes(12000)).decode(),
        "cjk": "今天天气很好，我们去公园散步。そして、友達に会いました！" * 300,
        "log": "".join(f"[2026-11-23T08:{i % 60:02d}:00Z]INFO[worker-{i % 7}]request_id={rng.randrange(10**9)};status=200|" for i in range(300)),
    }


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_block_cuts_found_in_text_without_spaces(name: str) -> None:
    """CSV, minified JSON/JS, base64, CJK and one-line logs have cut points every few characters."""
    split = Pretokenizer(PATTERNS[name], cuttable=True)
    for kind, text in _realistic_texts_without_spaces().items():
        blocks = list(split.blocks(text, 200))
        assert len(blocks) > len(text) // 400, kind
        assert [p for b in blocks for p in split.split(b)] == split.split(text), kind


def test_find_cut_never_needs_text_past_end() -> None:
    """A cut found in text[:end] is a cut of every continuation (what streaming relies on)."""
    split = Pretokenizer(PATTERNS["o200k"], cuttable=True)
    text = "ab,cd e\nf"
    for end in range(len(text) + 1):
        cut = split.find_cut(text, 0, end)
        if cut is not None:
            for tail in ("", "'s", "\u0301", " x", "1"):
                whole = text[:end] + tail
                assert split.split(whole[:cut]) + split.split(whole[cut:]) == split.split(whole)
