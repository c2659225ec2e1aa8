"""Word counts (``bytepair.text.words``): the fast count equals the plain rule, and the rule itself."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bytepair import web_bridge
from bytepair.analysis import count_words as analysis_count_words
from bytepair.text.words import NO_SPACE_SCRIPTS, count_words, reference_count_words

# Characters from every side of the rule: Latin letters and digits, punctuation, whitespace of
# several kinds (str.split's, including U+001C..U+001F and U+3000), each script written without
# spaces at both ends of its range, and CJK punctuation next to them.
_ALPHABET = list("ab1_-.,!'") + [" ", "\t", "\n", "\x1c", "\x85", "\u3000", "\u00a0", "\u2028"] + [
    chr(c) for lo, hi in NO_SPACE_SCRIPTS for c in (lo, hi)
] + ["。", "、", "「", "」", "日", "本", "ก", "🫠", "é"]


@given(st.lists(st.sampled_from(_ALPHABET), max_size=60).map("".join))
@settings(max_examples=800, deadline=None)
def test_count_words_equals_the_plain_rule(text: str) -> None:
    assert count_words(text) == reference_count_words(text)


def test_counts_of_the_rule() -> None:
    assert [count_words(t) for t in ("", "  \n", "a b  c", "東京へ行く", "東京 tower", "AI技術", "「東京」", "x=1;y=2")] == [
        0, 0, 3, 5, 3, 3, 2, 1
    ]
    # str.split's whitespace: no-break space and U+3000 (ideographic space) are, U+200B is not.
    assert count_words("a\u00a0b") == 2 and count_words("東\u3000京") == 2 and count_words("a\u200bb") == 1
    assert analysis_count_words is count_words  # one rule: the fertility report re-exports it


def test_a_long_chunk_without_such_characters_is_scanned_once() -> None:
    text = "日 " + "x" * 2_000_000
    assert count_words(text) == 2 == reference_count_words(text)


def test_the_playground_counts_chinese_by_character() -> None:
    text = "分词器把文本切分成模型能够读取的片段。\n同一段话, 在不同的编码下.\n"
    stats = web_bridge.inspect("o200k_base", text, None, [], 0)
    assert stats["words"] == count_words(text) == 18 + 4 + 7 != len(text.split())
