"""One test per known trap of tokenizer re-implementations (the team's TRAPS list, numbered alike)."""

from __future__ import annotations

import re
import unicodedata

import pytest

import bytepair
from bytepair.models.bpe.merge import merge_piece
from bytepair.data.openai import CL100K_PATTERN, O200K_PATTERN, R50K_PATTERN
from bytepair.pre_tokenizers.pattern import Pretokenizer
from bytepair.pre_tokenizers.pattern.unicode_classes import class_ranges

O200K = bytepair.get_encoding("o200k_base")
CL100K = bytepair.get_encoding("cl100k_base")


def _in(name: str, ch: str) -> bool:
    return any(lo <= ord(ch) <= hi for lo, hi in class_ranges(name))


# 1. \s is Unicode White_Space: U+0085 yes, U+FEFF no, U+001C..U+001F no (stdlib re says yes).
def test_01_whitespace_is_unicode_white_space(tiktoken_ref) -> None:
    assert O200K.encode(" \x850") == [220, 126, 227, 15]
    assert re.match(r"\s", "\x1c") and not _in("White_Space", "\x1c")
    assert _in("White_Space", "\x85") and not _in("White_Space", "\ufeff")
    for name in ("o200k_base", "cl100k_base", "r50k_base"):
        for text in ("a\x1cb  \x1d\x1e\x1f c", "x\ufeff y", " \x85\x85 z", "\x1c\n\x1f"):
            assert bytepair.get_encoding(name).encode(text) == tiktoken_ref(name).encode(text), (name, text)


# 2. Unicode versions differ between interpreters; tables pinned to tiktoken's 16.0.
def test_02_unicode_version_is_pinned(tiktoken_ref) -> None:
    assert bytepair.UNICODE_VERSION == "16.0.0"
    # Letters added in Unicode 15.0 and 16.0 (Cyrillic modifiers, Kawi, Garay, Tulu-Tigalari).
    new_letters = "\U0001e030\U00011f04\U00010d4a\U000113a0"
    assert all(_in("L", ch) for ch in new_letters)
    if unicodedata.unidata_version < "15.0.0":  # CPython 3.11 does not know them yet
        assert not any(ch.isalpha() for ch in new_letters)
    for name in ("o200k_base", "cl100k_base"):
        text = f"x{new_letters}y 1{new_letters}"
        assert bytepair.get_encoding(name).encode(text) == tiktoken_ref(name).encode(text)


# 3. [^\W\d_] is not \p{L}: it differs on superscripts, fractions ...
def test_03_stdlib_letter_class_is_not_p_l(tiktoken_ref) -> None:
    for ch in "²³¹¼½":
        assert re.fullmatch(r"[^\W\d_]", ch) is not None  # stdlib calls it a letter ...
        assert not _in("L", ch) and _in("N", ch)  # ... Unicode calls it a number
    assert Pretokenizer(O200K_PATTERN).split("x²³") == ["x", "²³"]
    assert O200K.encode("x²³ ½x") == tiktoken_ref("o200k_base").encode("x²³ ½x")


# 4. cl100k's pattern is the possessive one, read as Python 3.11+ reads possessive quantifiers.
def test_04_patterns_are_tiktokens() -> None:
    openai_public = pytest.importorskip("tiktoken_ext.openai_public")
    assert R50K_PATTERN == openai_public.r50k_pat_str
    import inspect

    source = inspect.getsource(openai_public.cl100k_base)
    assert CL100K_PATTERN in source
    assert Pretokenizer(CL100K_PATTERN).split("1234567") == ["123", "456", "7"]
    # Possessive: no catastrophic backtracking on a long run followed by a mismatch.
    assert len(CL100K.encode_ordinary(" " * 50_000 + "!" * 50_000)) > 0


# 5. o200k: letters include marks, camelCase splits, contractions stay on the word, "/" joins newlines.
@pytest.mark.parametrize(
    "text",
    ["e\u0301te\u0301 nai\u0308ve", "camelCaseHTTPServer", "I'M you'Re THEY'LL", "a/\n\nb /\n/\n", "ǅungla ǈubav"],
)
def test_05_o200k_pattern_details(tiktoken_ref, text: str) -> None:
    assert O200K.encode(text) == tiktoken_ref("o200k_base").encode(text)


def test_05_o200k_pieces() -> None:
    split = Pretokenizer(O200K_PATTERN).split
    assert split("camelCaseHTTPServer") == ["camel", "Case", "HTTPServer"]
    assert split("they'RE") == ["they'RE"]
    assert split("x/\n\ny") == ["x", "/\n\n", "y"]


# 6. (?i:...) is case-insensitive only inside the group.
def test_06_case_insensitive_group_is_scoped(tiktoken_ref) -> None:
    split = Pretokenizer(O200K_PATTERN).split
    assert split("HelloWorld") == ["Hello", "World"]  # a global (?i) would glue these
    assert Pretokenizer(CL100K_PATTERN).split("it'S") == ["it", "'S"]
    for text in ("it'S HE'LL", "'ſ 'K"):
        assert CL100K.encode(text) == tiktoken_ref("cl100k_base").encode(text)


# 7. A leading BOM survives a round trip.
def test_07_bom_round_trip() -> None:
    for text in ("\ufeffhello", "\ufeff", "a\ufeff\ufeffb"):
        assert O200K.decode(O200K.encode(text)) == text
        stream = O200K.stream_decoder()
        assert "".join(stream.feed(i) for i in O200K.encode(text)) + stream.flush() == text


# 8. Streaming decode state is per stream.
def test_08_stream_decoders_do_not_share_state() -> None:
    a_ids, b_ids = O200K.encode("🫠"), O200K.encode("🦜")
    assert len(a_ids) > 1 and len(b_ids) > 1  # each emoji spans several tokens
    a, b = O200K.stream_decoder(), O200K.stream_decoder()
    out_a, out_b = [], []
    for i in range(max(len(a_ids), len(b_ids))):  # interleaved, half characters pending in both
        if i < len(a_ids):
            out_a.append(a.feed(a_ids[i]))
        if i < len(b_ids):
            out_b.append(b.feed(b_ids[i]))
    assert "".join(out_a) + a.flush() == "🫠"
    assert "".join(out_b) + b.flush() == "🦜"


# 9. Lone surrogates: pairs are joined, lone ones become U+FFFD, as in tiktoken; never an exception.
@pytest.mark.parametrize("text", ["\ud83d\ude00", "a\ud800b", "\udfff", "x\ud83d", "\ud83d\ud83d\ude00\ude00"])
def test_09_lone_surrogates(tiktoken_ref, text: str) -> None:
    for name in ("o200k_base", "cl100k_base"):
        enc, ref = bytepair.get_encoding(name), tiktoken_ref(name)
        assert enc.encode(text) == ref.encode(text)
        assert enc.encode_ordinary(text) == ref.encode_ordinary(text)
        assert enc.count(text) == len(ref.encode(text))
    ids, spans = O200K.encode_with_offsets(text)
    assert all(0 <= s < e <= len(text) for s, e in spans)


# 10. Special-token ids are tiktoken's.
def test_10_special_token_ids() -> None:
    assert O200K.encode("<|endofprompt|>", allowed_special="all") == [200018]
    assert O200K.eot_token == 199999
    assert CL100K.encode("<|endofprompt|>", allowed_special="all") == [100276]
    harmony = bytepair.get_encoding("o200k_harmony")
    assert harmony.encode("<|start|><|message|><|end|>", allowed_special="all") == [200006, 200008, 200007]


# 11. Ranks rank the merged bytes (tiktoken), not the pair (HF): a vocabulary where they disagree.
def test_11_rank_is_of_the_merged_bytes(tiktoken_ref) -> None:
    import tiktoken

    ranks = {bytes((b,)): b for b in range(256)}
    ranks.update({b"bc": 256, b"ab": 257, b"abc": 258, b"ca": 259})
    ref = tiktoken.Encoding("t", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    ours = bytepair.Encoding("t", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    for text in ("abc", "abca", "cabc", "abcabc", "bcab"):
        assert ours.encode(text) == ref.encode(text), text
    # "bc" merges first; "a"+"bc" is the token "abc" by its bytes, though HF's merge list (pairs
    # (b,c), (a,b), (ab,c)) has no rule for (a, bc) and would stop at [a, bc].
    assert merge_piece(b"zabc", ranks) == [ranks[b"z"], ranks[b"abc"]]


# 12. Offsets: code points in Python, UTF-16 code units for JavaScript.
def test_12_offsets_for_emoji_and_cjk_extension_b() -> None:
    text = "a🫠b𠀀c"
    ids, spans = O200K.encode_with_offsets(text)
    pieces = {text[s:e] for s, e in spans}
    assert {"🫠", "𠀀"} <= pieces or any("🫠" in p for p in pieces)
    starts = [s for s, _ in spans]
    assert bytepair.utf16_offsets(text, starts)[-1] == starts[-1] + 2
    assert bytepair.utf16_offsets(text, [0, 1, 2, 3, 4, 5]) == [0, 1, 3, 4, 6, 7]


# 13. Long runs stay exact (and, by the merge algorithm, close to linear).
@pytest.mark.parametrize("text", ["x" * 20_000, " " * 100_000, "ab" * 30_000, "🙂" * 20_000, "7" * 30_000])
def test_13_long_runs_match_tiktoken(tiktoken_ref, text: str) -> None:
    for name in ("o200k_base", "cl100k_base"):
        assert bytepair.get_encoding(name).encode(text) == tiktoken_ref(name).encode(text)


# 14. tiktoken agrees with Unicode 16.0 and not with the `regex` module's newer tables; so do we.
def test_14_regex_module_disagrees_with_tiktoken(tiktoken_ref) -> None:
    regex = pytest.importorskip("regex")
    every_char = "".join(chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF)
    letters = {ord(ch) for ch in regex.findall(r"\p{L}", every_char)}
    ours = {cp for lo, hi in class_ranges("L") for cp in range(lo, hi + 1)}
    assert letters != ours  # the package knows letters tiktoken does not
    newer = sorted(letters - ours)[:50]
    text = "".join("a" + chr(cp) + " " for cp in newer)
    assert O200K.encode(text) == tiktoken_ref("o200k_base").encode(text)


# 15. Where tiktoken panics (o200k, 1,000,000 spaces), bytepair holds.
def test_15_million_spaces_on_o200k() -> None:
    text = " " * 1_000_000
    ids = O200K.encode(text)
    assert O200K.decode(ids) == text
    assert O200K.count(text) == len(ids)
    space_128 = O200K.encode_single_token(" " * 128)
    assert ids.count(space_128) == 1_000_000 // 128
