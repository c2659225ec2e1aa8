"""Extended grapheme clusters (UAX #29) as HF's ``Precompiled`` normalizer finds them.

Why a module of its own: HF looks each cluster under 6 UTF-8 bytes up whole, so a cluster cut one
character early or late changes the normalized text (a Thai SARA AM rewritten with the mark after it
dropped, or kept). The rules are the standard's (GB3-GB13, with GB9c's Indic conjuncts and GB11's
emoji sequences) over the classes ``build/gen_grapheme_tables.py`` pins in ``grapheme_tables``, which
match ``tokenizers`` 0.23.3 (tests/normalizers/test_graphemes.py). ``graphemes`` is the plain rule
walk; ``may_join`` answers, from two neighbours alone, whether a boundary *might* be missing between
them, so callers can cut a long text into stretches that certainly begin and end clusters.

>>> [len(cluster) for cluster in graphemes("e\\u0301\\r\\n\\u0915\\u094d\\u0937\\u0301\\u2122\\u200d\\u2122")]
[2, 2, 4, 3]
"""

from __future__ import annotations

from bisect import bisect_right

from .grapheme_tables import CLASSES, RUN_CLASSES, RUN_STARTS

__all__ = ["JOINING", "grapheme_class", "graphemes", "may_join"]

(OTHER, CR, LF, CONTROL, EXTEND, ZWJ, RI, PREPEND, SPACING_MARK, L, V, T, LV, LVT, PICTOGRAPHIC, CONSONANT,
 LINKER, ZWNJ) = range(len(CLASSES))
assert CLASSES[ZWNJ] == "ZWNJ" and CLASSES[PICTOGRAPHIC] == "Extended_Pictographic"

_BREAKS_AROUND = frozenset((CR, LF, CONTROL))
_EXTENDING = frozenset((EXTEND, ZWJ, SPACING_MARK, LINKER, ZWNJ))  # GB9, GB9a: never a boundary before
_GCB_EXTEND = frozenset((EXTEND, LINKER, ZWNJ))  # Grapheme_Cluster_Break=Extend (GB11's Extend*)
_CONJUNCT_EXTEND = frozenset((EXTEND, ZWJ))  # Indic_Conjunct_Break=Extend
_AFTER_L = frozenset((L, V, LV, LVT))
_HANGUL_VOWEL = frozenset((V, T))
# Classes whose character may join the one before it, whatever that is (given the right one), and
# those after which the next character may join. A text with none of either is one character per
# cluster: LF joins only after CR, GB9c's consonant only after an extend, GB11's pictograph only
# after ZWJ, a Hangul syllable only after a leading jamo (L), each of them listed here.
_JOINS_BEFORE = _EXTENDING | {V, T}
_JOINS_AFTER = frozenset((CR, PREPEND, ZWJ, RI, L))


def grapheme_class(ch: str) -> int:
    """The index into ``grapheme_tables.CLASSES`` of ``ch``'s class."""
    return RUN_CLASSES[bisect_right(RUN_STARTS, ord(ch)) - 1]


JOINING = frozenset(i for i, _ in enumerate(CLASSES) if i in _JOINS_BEFORE or i in _JOINS_AFTER)
"""The classes of the characters without which every cluster of a text is one character."""


def may_join(before: str, ch: str) -> bool:
    """Whether some text could have no cluster boundary between ``before`` and ``ch`` (False: a
    boundary there is certain, whatever comes before ``before``).

    >>> may_join("a", "b"), may_join("a", "\\u0301"), may_join("\\u200d", "™"), may_join("a", "™")
    (False, True, True, False)
    """
    this = grapheme_class(ch)
    if this in _JOINS_BEFORE:
        return True
    previous = grapheme_class(before)
    return previous in _JOINS_AFTER or (this == CONSONANT and previous in _GCB_EXTEND | _CONJUNCT_EXTEND)


def graphemes(text: str) -> list[str]:
    """``text`` cut into extended grapheme clusters.

    >>> [len(cluster) for cluster in graphemes("a\\u0301b\\r\\n\\x0f\\u0301\\u0600x🇫🇷🇩")]
    [2, 1, 2, 1, 1, 2, 2, 1]
    """
    if not text:
        return []
    classes = [grapheme_class(ch) for ch in text]
    out: list[str] = []
    start = 0
    previous = classes[0]
    emoji = 1 if previous == PICTOGRAPHIC else 0  # GB11: ExtPict Extend* seen (1) and then a ZWJ (2)
    conjunct = 1 if previous == CONSONANT else 0  # GB9c: a consonant and extends seen (1), with a linker (2)
    regional = 1 if previous == RI else 0  # regional indicators in a row, ending at previous
    for i in range(1, len(classes)):
        this = classes[i]
        if previous == CR and this == LF:
            joined = True
        elif previous in _BREAKS_AROUND or this in _BREAKS_AROUND:
            joined = False
        elif previous == L:
            joined = this in _AFTER_L or this in _EXTENDING
        elif previous in (LV, V) and this in _HANGUL_VOWEL or previous in (LVT, T) and this == T:
            joined = True
        else:
            joined = (this in _EXTENDING or previous == PREPEND or (this == CONSONANT and conjunct == 2)
                      or (this == PICTOGRAPHIC and emoji == 2) or (this == RI and regional % 2 == 1))
        if not joined:
            out.append(text[start:i])
            start = i
        emoji = 1 if this == PICTOGRAPHIC else (emoji if this in _GCB_EXTEND and emoji == 1 else
                                                 2 if this == ZWJ and emoji == 1 else 0)
        conjunct = 1 if this == CONSONANT else (2 if this == LINKER and conjunct else
                                                 conjunct if this in _CONJUNCT_EXTEND else 0)
        regional = regional + 1 if this == RI else 0
        previous = this
    out.append(text[start:])
    return out
