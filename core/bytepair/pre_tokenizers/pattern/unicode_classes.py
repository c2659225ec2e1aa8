"""Named Unicode classes (``\\p{L}``, ``\\s`` ...) as code-point ranges from the pinned tables.

Why: stdlib ``re`` has no ``\\p{..}`` and its ``\\s``/``\\d`` follow the interpreter's Unicode version, so
the classes the tokenizer patterns name are rebuilt here from ``unicode_tables`` (one Unicode version
everywhere) and handed to the pattern translator as range lists.
"""

from __future__ import annotations

from functools import cache

from .unicode_tables import CATEGORY_RANGES, UNICODE_VERSION, WHITE_SPACE

__all__ = ["CLASS_NAMES", "UNICODE_VERSION", "bucket_of_ranges", "class_ranges", "complement_ranges", "merge_ranges"]

Ranges = tuple[tuple[int, int], ...]

# Property names accepted after \p / \P, mapped to the generated buckets they are made of.
_CLASS_BUCKETS: dict[str, tuple[str, ...]] = {
    "L": ("Lu", "Ll", "Lt", "Lm", "Lo"),
    "Letter": ("Lu", "Ll", "Lt", "Lm", "Lo"),
    "Lu": ("Lu",),
    "Uppercase_Letter": ("Lu",),
    "Ll": ("Ll",),
    "Lowercase_Letter": ("Ll",),
    "Lt": ("Lt",),
    "Titlecase_Letter": ("Lt",),
    "Lm": ("Lm",),
    "Modifier_Letter": ("Lm",),
    "Lo": ("Lo",),
    "Other_Letter": ("Lo",),
    "M": ("M",),
    "Mark": ("M",),
    "N": ("Nd", "No"),
    "Number": ("Nd", "No"),
    "Nd": ("Nd",),
    "Decimal_Number": ("Nd",),
    "P": ("P",),
    "Punctuation": ("P",),
    "S": ("S",),
    "Symbol": ("S",),
    "White_Space": ("WS",),
    "Whitespace": ("WS",),
}

CLASS_NAMES = frozenset(_CLASS_BUCKETS)

# Every bucket, including white space, as disjoint range lists. Code points in none of them are
# "other" (punctuation, symbols, controls, unassigned ...).
_BUCKETS: dict[str, Ranges] = {**CATEGORY_RANGES, "WS": WHITE_SPACE}


def merge_ranges(ranges: list[tuple[int, int]]) -> Ranges:
    """Sort and join overlapping or adjacent inclusive ranges."""
    ranges.sort()
    out: list[tuple[int, int]] = []
    for lo, hi in ranges:
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return tuple(out)


def complement_ranges(ranges: Ranges) -> Ranges:
    """The code points (up to U+10FFFF) that sorted, merged ``ranges`` leave out."""
    out: list[tuple[int, int]] = []
    nxt = 0
    for lo, hi in ranges:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= 0x10FFFF:
        out.append((nxt, 0x10FFFF))
    return tuple(out)


@cache
def class_ranges(name: str) -> Ranges:
    """Sorted, merged ranges of a named class (``"L"``, ``"Nd"``, ``"White_Space"`` ...)."""
    return merge_ranges([r for bucket in _CLASS_BUCKETS[name] for r in _BUCKETS[bucket]])


def bucket_of_ranges() -> dict[str, Ranges]:
    """The disjoint buckets (``Lu`` ... ``No``, ``WS``) that every named class is a union of."""
    return dict(_BUCKETS)
