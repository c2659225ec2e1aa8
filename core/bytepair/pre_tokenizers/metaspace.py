"""SentencePiece's word marker as a pre-tokenizer (HF's ``Metaspace``): spaces become "▁", one is
put in front as ``prepend_scheme`` says, and with ``split`` each piece starts at a marker.

>>> Metaspace().split("Hey  friend")
['▁Hey', '▁', '▁friend']
"""

from __future__ import annotations

from typing import Any

from ..errors import VocabFormatError
from .base import Piece, PreTokenizer

__all__ = ["Metaspace"]


class Metaspace(PreTokenizer):
    """SentencePiece's word marker: spaces become ``replacement`` ("▁"), one is put in front as
    ``prepend_scheme`` says, and with ``split`` each piece starts at a marker."""

    def __init__(self, replacement: str = "\u2581", prepend_scheme: str = "always", split: bool = True) -> None:
        if len(replacement) != 1:
            raise VocabFormatError(f"Metaspace replacement must be one character, not {replacement!r}")
        if prepend_scheme not in ("always", "first", "never"):
            raise VocabFormatError(f"Metaspace prepend_scheme must be always, first or never, not {prepend_scheme!r}")
        self.replacement = replacement
        self.prepend_scheme = prepend_scheme
        self.split_on_marker = split
        self.first_segment = True
        """Set by the tokenizer: whether the text handed over starts the input ("first" scheme)."""

    def _rewrite(self, text: str) -> tuple[str, int]:
        text = text.replace(" ", self.replacement)
        prepend = self.prepend_scheme == "always" or (self.prepend_scheme == "first" and self.first_segment)
        if prepend and not text.startswith(self.replacement):
            return self.replacement + text, 1
        return text, 0

    def spans(self, text: str) -> list[Piece]:
        if not text:
            return []  # nothing to put a marker in front of (HF prepends to a non-empty text only)
        rewritten, shift = self._rewrite(text)
        if not self.split_on_marker:
            return [(rewritten, 0, len(text))]
        out: list[Piece] = []
        starts = [i for i, ch in enumerate(rewritten) if ch == self.replacement]
        bounds = sorted({0, *starts, len(rewritten)})
        for a, b in zip(bounds, bounds[1:]):
            out.append((rewritten[a:b], max(0, a - shift), max(0, b - shift) if b - shift > 0 else min(1, b)))
        return out

    def to_json(self) -> dict[str, Any]:
        return {"type": "Metaspace", "replacement": self.replacement, "prepend_scheme": self.prepend_scheme,
                "split": self.split_on_marker}
