"""Every code point, checked against tiktoken's own regex engine.

1. Class tables: a tiktoken encoding whose pattern is just ``\\p{K}`` and whose vocabulary is the 256
   bytes returns the UTF-8 bytes of exactly the characters in K (unmatched text yields no tokens).
   That is tiktoken's Unicode data for K, for all 1,112,064 code points at once; the pinned tables
   must agree (this is how the Unicode version, 16.0, was found).
2. The stdlib translation, with astral stand-ins, must select the same characters.
3. The full pipeline gives tiktoken's ids for every code point in a few contexts.
"""

from __future__ import annotations

import pytest

import bytepair
from bytepair.pre_tokenizers.pattern import Pretokenizer
from bytepair.pre_tokenizers.pattern.unicode_classes import class_ranges

ALL_CHARS = "".join(chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF)
CLASSES = {"L": r"\p{L}", "Lu": r"\p{Lu}", "Ll": r"\p{Ll}", "Lt": r"\p{Lt}", "Lm": r"\p{Lm}",
           "Lo": r"\p{Lo}", "M": r"\p{M}", "N": r"\p{N}", "White_Space": r"\s"}


@pytest.fixture(scope="module")
def tiktoken_members(tiktoken_ref):
    import tiktoken

    bytes_only = {bytes((b,)): b for b in range(256)}

    def members(pattern: str) -> str:
        # By blocks of 64k characters: a class's members do not depend on their neighbours, and the
        # ids of the whole text at once are 4.4 million ints.
        probe = tiktoken.Encoding("probe", pat_str=pattern, mergeable_ranks=bytes_only, special_tokens={})
        blocks = (ALL_CHARS[i : i + (1 << 16)] for i in range(0, len(ALL_CHARS), 1 << 16))
        return "".join(bytes(probe.encode_ordinary(block)).decode("utf-8") for block in blocks)

    return members


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_pinned_tables_equal_tiktoken_engine(tiktoken_members, name: str) -> None:
    expected = tiktoken_members(CLASSES[name])
    ours = "".join(chr(cp) for lo, hi in class_ranges(name) for cp in range(lo, hi + 1) if not 0xD800 <= cp <= 0xDFFF)
    assert ours == expected, f"{name}: {len(set(ours) ^ set(expected))} code points differ"


@pytest.mark.parametrize(
    "pattern",
    [*CLASSES.values(), r"\S", r"[^\s\p{L}\p{N}]", r"[^\r\n\p{L}\p{N}]", r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", r"\P{L}"],
)
def test_translated_pattern_selects_what_tiktoken_selects(tiktoken_members, pattern: str) -> None:
    splitter = Pretokenizer(pattern)
    ours = "".join("".join(splitter.split(ALL_CHARS[i : i + (1 << 16)])) for i in range(0, len(ALL_CHARS), 1 << 16))
    expected = tiktoken_members(pattern)
    assert ours == expected, f"{pattern}: {len(set(ours) ^ set(expected))} code points differ"


CONTEXTS = {
    "cl100k_base": [" {}a"],
    "o200k_base": ["A{}1", "a{}'S"],
    "r50k_base": ["'{}'s "],
}


@pytest.mark.slow
@pytest.mark.parametrize(("name", "context"), [(n, c) for n, cs in CONTEXTS.items() for c in cs])
def test_every_code_point_in_context(tiktoken_ref, name: str, context: str) -> None:
    enc, ref = bytepair.get_encoding(name), tiktoken_ref(name)
    step = 8192
    for start in range(0, len(ALL_CHARS), step):
        text = "\n".join(context.format(ch) for ch in ALL_CHARS[start : start + step])
        if enc.encode_ordinary(text) != ref.encode_ordinary(text):
            bad = [ch for ch in ALL_CHARS[start : start + step]
                   if enc.encode_ordinary(context.format(ch)) != ref.encode_ordinary(context.format(ch))]
            pytest.fail(f"{name} {context!r}: code points differ: {[hex(ord(c)) for c in bad[:20]]}")
