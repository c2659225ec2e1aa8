"""Pre-tokenizers in turn (HF's ``Sequence``): each step splits every piece the steps before it made.

>>> from bytepair.pre_tokenizers import Digits, WhitespaceSplit
>>> Sequence([WhitespaceSplit(), Digits(individual_digits=True)]).split("ab12 c3")
['ab', '1', '2', 'c', '3']
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate
from typing import Any

from .base import Piece, PreTokenizer
from .pattern.splitter import has_astral
from .split import Split

__all__ = ["Sequence"]


_ASTRAL = re.compile("[\U00010000-\U0010FFFF]")


def _pieces_with_astral(pieces: list[str]) -> set[int]:
    """The indices of the pieces that hold a character above U+FFFF."""
    joined = "".join(pieces)
    if not has_astral(joined):
        return set()
    ends = list(accumulate(map(len, pieces)))
    return {bisect_right(ends, m.start()) for m in _ASTRAL.finditer(joined)}


class Sequence(PreTokenizer):
    """Each step splits every piece the steps before it made."""

    def __init__(self, pre_tokenizers: list[PreTokenizer]) -> None:
        self.steps = steps = list(pre_tokenizers)
        self.byte_level = any(step.byte_level for step in steps)

    def split(self, text: str) -> list[str]:
        pieces = [text]
        for step in self.steps:
            if step.splits_nothing:
                pieces = list(filter(None, pieces))
            elif len(pieces) == 1:
                pieces = step.split(pieces[0])
            elif isinstance(step, Split):
                # Which pieces hold an astral character, found once for all of them rather than
                # once per piece (DeepSeek-V3 has ~30k pieces at its last step).
                astral = _pieces_with_astral(pieces)
                split = step.split
                pieces = [p for i, piece in enumerate(pieces) for p in split(piece, bmp=i not in astral)]
            else:
                pieces = [p for piece in pieces for p in step.split(piece)]
        return pieces

    def spans(self, text: str) -> list[Piece]:
        pieces: list[Piece] = [(text, 0, len(text))]
        for step in self.steps:
            refined: list[Piece] = []
            for piece, start, end in pieces:
                # Where an earlier step put characters in front (Metaspace's prefix), the rest of the
                # piece still maps one to one onto the text, after them; the inserted ones span the
                # first character, as HF aligns them. Any other rewriting: the piece's whole span.
                shift = len(piece) - (end - start)
                for sub, s, e in step.spans(piece):
                    if shift >= 0:
                        first = 1 if e > s and end > start else 0
                        refined.append((sub, start + max(0, s - shift), start + max(first, e - shift)))
                    else:
                        refined.append((sub, start, end))
            pieces = refined
        return pieces

    @property  # type: ignore[override]
    def savable(self) -> bool:
        return all(step.savable for step in self.steps)

    def to_json(self) -> dict[str, Any]:
        return {"type": "Sequence", "pretokenizers": [step.to_json() for step in self.steps]}
