"""Astral stand-ins: swap each character above U+FFFF for a BMP character of the same class.

Why: stdlib ``re`` compiles a character class whose ranges all lie in the BMP to a constant-time
bitmap, but checks astral ranges one by one. The letter and mark classes hold hundreds of astral
ranges, so matching them directly runs 5-10x slower. Every named class is a union of disjoint
buckets (``Lu``, ``Ll``, ... ``WS``, or none of them), so an astral character can be replaced by any
BMP character of the same bucket without changing what the pattern matches, provided the stand-in
is not a literal of the pattern and has no case variants (for ``(?i:...)`` groups). The
replacement keeps the string length, so match positions carry back to the original text.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from .unicode_classes import bucket_of_ranges, complement_ranges, merge_ranges

__all__ = ["ASTRAL_RUN", "AstralStandIns", "NoStandInError"]

ASTRAL_RUN = re.compile("[\U00010000-\U0010ffff]+")
_OTHER = "other"


class NoStandInError(ValueError):
    """No BMP character can stand in for some bucket; the caller must match astral ranges directly."""


def _case_neutral(ch: str) -> bool:
    return ch.lower() == ch and ch.upper() == ch and ch.casefold() == ch and ch.title() == ch


MAX_REMEMBERED = 1 << 16
"""Astral code points whose stand-in is kept at most (~100 bytes each: a text cycling through all
million of them grew each compiled pattern by ~100 MB)."""


class _CodePointMap(dict[int, str]):
    """``str.translate`` table that computes and remembers each astral code point's stand-in (up to
    ``MAX_REMEMBERED`` of them; then it starts again)."""

    def __init__(self, starts: list[int], stand_ins: list[str]) -> None:
        super().__init__()
        self._starts = starts
        self._stand_ins = stand_ins

    def __missing__(self, cp: int) -> str:
        stand_in = self._stand_ins[bisect_right(self._starts, cp) - 1]
        if len(self) >= MAX_REMEMBERED:
            self.clear()
        self[cp] = stand_in
        return stand_in


class AstralStandIns:
    """Replace astral characters by BMP stand-ins of the same Unicode class bucket.

    >>> AstralStandIns(frozenset()).substitute("a\\U0001F600b") != "a\\U0001F600b"
    True
    """

    def __init__(self, avoid: frozenset[str]) -> None:
        buckets = bucket_of_ranges()
        in_some_bucket = merge_ranges([r for ranges in buckets.values() for r in ranges])
        # Only buckets that reach above U+FFFF need a stand-in (Lt and white space do not).
        stand_in: dict[str, str] = {
            name: self._pick(ranges, avoid) for name, ranges in buckets.items() if ranges[-1][1] > 0xFFFF
        }
        stand_in[_OTHER] = self._pick(complement_ranges(in_some_bucket), avoid)
        # Segments covering U+10000..U+10FFFF: start code point -> stand-in.
        segments: list[tuple[int, str]] = []
        for name, ranges in buckets.items():
            for lo, hi in ranges:
                if hi > 0xFFFF:
                    segments.append((max(lo, 0x10000), stand_in[name]))
                    segments.append((hi + 1, stand_in[_OTHER]))
        segments.sort()
        starts, values = [0x10000], [stand_in[_OTHER]]
        for start, value in segments:
            if start > 0x10FFFF:
                continue
            if starts[-1] == start:
                # A bucket range that begins where another ended: the later (bucket) entry wins.
                if value != stand_in[_OTHER]:
                    values[-1] = value
                continue
            starts.append(start)
            values.append(value)
        self._table = _CodePointMap(starts, values)

    @staticmethod
    def _pick(ranges: tuple[tuple[int, int], ...], avoid: frozenset[str]) -> str:
        for lo, hi in ranges:
            for cp in range(max(lo, 0xA1), min(hi, 0xFFFF) + 1):
                ch = chr(cp)
                if 0xD800 <= cp <= 0xDFFF or ch in avoid:
                    continue
                if _case_neutral(ch):
                    return ch
        raise NoStandInError("no case-neutral BMP character outside the pattern's literals")

    def substitute(self, text: str) -> str:
        """Return ``text`` with each astral character replaced; same length, same class per index."""
        table = self._table
        return ASTRAL_RUN.sub(lambda m: m.group().translate(table), text)
