"""HF's ``normalizers.ByteLevel``: every UTF-8 byte of the text as GPT-2's visible character.

Why a normalizer too: some files rewrite the text into GPT-2's 256 visible characters before
pre-tokenizing, instead of in the ``ByteLevel`` pre-tokenizer; a character's visible characters
(one per byte) all align with that character, as HF aligns them.

>>> ByteLevel().normalize_aligned("hé")
('hÃ©', [(0, 1), (1, 2), (1, 2)])
"""

from __future__ import annotations

from typing import Any

from ..text.byte_unicode import bytes_to_visible
from .base import Alignment, Normalizer

__all__ = ["ByteLevel"]


class ByteLevel(Normalizer):
    """Each byte of the text's UTF-8 as its visible character (``Ġ`` for the space)."""

    def normalize(self, text: str) -> str:
        return bytes_to_visible(text.encode("utf-8", "surrogatepass"))

    def normalize_aligned(self, text: str) -> tuple[str, Alignment | None]:
        out = self.normalize(text)
        align: Alignment = []
        for i, ch in enumerate(text):
            align.extend([(i, i + 1)] * len(ch.encode("utf-8", "surrogatepass")))
        return out, align

    def to_json(self) -> dict[str, Any]:
        return {"type": "ByteLevel"}
