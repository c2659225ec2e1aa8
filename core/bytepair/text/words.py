"""How bytepair counts words: one rule for the fertility report and the playground's word count.

Why its own module: "tokens per word" compares tokenizers across languages, and a whitespace split
makes a page of Chinese two or three words. The rule: the text is cut at whitespace
(``str.split()``). A chunk with no character of a script written without spaces is one word. In a
chunk that has such characters, each of them is one word (one Han character, kana or Thai letter =
one word: a character count, since finding real word boundaries needs a dictionary; word processors
count CJK text the same way), and so is each maximal run of the other characters that holds a letter
or a digit (Latin words inside Japanese text); runs of punctuation only (``。``, ``、``) are not words
there. The scripts without spaces, by code point: Thai and Lao (U+0E00-0EFF), Tibetan (U+0F00-0FFF),
Myanmar (U+1000-109F), Khmer (U+1780-17FF, U+19E0-19FF), Hiragana and Katakana (U+3040-30FF,
U+31F0-31FF, half-width U+FF66-FF9F), CJK ideographs (U+3400-4DBF, U+4E00-9FFF, U+F900-FAFF,
U+20000-3FFFF).

:func:`count_words` counts with a few whole-text regular expression scans (made only if the text
has such a character at all; otherwise it costs a ``str.split()``); :func:`reference_count_words` is
the rule as a plain loop over every chunk, and tests hold the two equal.

>>> count_words("Hello, world! 日本語です。ok"), count_words("東京 tower"), count_words("「東京」")
(8, 3, 2)
"""

from __future__ import annotations

import re

__all__ = ["NO_SPACE_SCRIPTS", "count_words", "reference_count_words"]

NO_SPACE_SCRIPTS = (
    (0x0E00, 0x0EFF), (0x0F00, 0x0FFF), (0x1000, 0x109F), (0x1780, 0x17FF), (0x19E0, 0x19FF),
    (0x3040, 0x30FF), (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF),
    (0xFF66, 0xFF9F), (0x20000, 0x3FFFF),
)
"""Code point ranges of the scripts written without spaces between words."""

_CLASS = "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in NO_SPACE_SCRIPTS)
_NO_SPACE = re.compile(f"[{_CLASS}]")
_OTHER_RUN = re.compile(f"[^{_CLASS}]+")
_ALNUM = re.compile(r"[^\W_]")
# Whole-text scans for count_words, so that no string is made per character or per chunk (a page of
# Chinese is one chunk per line and one word per character). ``re``'s ``\s`` is ``str.isspace``, what
# ``str.split`` cuts at; the look-behind ``(?<!\S)`` marks a chunk's start.
_RUN = re.compile(f"[{_CLASS}]+")
# Each chunk that holds such a character, as the part before its first one (a long chunk without
# one is scanned once: inside a chunk the look-behind fails at once).
_MIXED_PREFIX = re.compile(f"(?<!\\S)([^\\s{_CLASS}]*)[{_CLASS}]")
# Each run of other characters right after such a character that holds a letter or a digit, up to
# its first one (a run that starts a chunk is in the prefixes above).
_RUN_AFTER = re.compile(f"(?<=[{_CLASS}])(?:[^\\w\\s{_CLASS}]|_)*[^\\W_{_CLASS}]")


def count_words(text: str) -> int:
    """Words in ``text`` by the rule in the module docstring.

    >>> count_words("a  b\\tc\\n"), count_words("東京へ行く"), count_words("ไปไหน มา"), count_words("")
    (3, 5, 7, 0)
    """
    words = len(text.split())
    if _NO_SPACE.search(text) is None:
        return words
    prefixes = _MIXED_PREFIX.findall(text)
    # A chunk with such characters counts them and its runs with a letter or digit, not itself.
    words += sum(map(len, _RUN.findall(text))) - len(prefixes)
    words += len(_RUN_AFTER.findall(text)) + sum(1 for prefix in filter(None, prefixes) if _ALNUM.search(prefix))
    return words


def reference_count_words(text: str) -> int:
    """:func:`count_words` as a plain loop over every whitespace-separated chunk."""
    words = 0
    for chunk in text.split():
        if _NO_SPACE.search(chunk):
            words += len(_NO_SPACE.findall(chunk)) + sum(1 for run in _OTHER_RUN.findall(chunk) if _ALNUM.search(run))
        else:
            words += 1
    return words
