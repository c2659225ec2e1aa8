"""GPT-2's byte-level step (HF's ``ByteLevel``): optionally a space in front, optionally GPT-2's split.

ByteLevel's byte-to-character mapping is not done here: the BPE model reads the piece's UTF-8 bytes
directly (``models/bpe/merges_model.py``); only ``pre_tokenize_str`` shows pieces in GPT-2's
visible characters, as HF does.

>>> ByteLevel(add_prefix_space=True).split("Hi there")
[' Hi', ' there']
"""

from __future__ import annotations

from typing import Any

from .base import Piece, PreTokenizer
from .split import Split

__all__ = ["GPT2_PATTERN", "ByteLevel"]

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
"""The pattern ByteLevel splits with when ``use_regex`` is on (GPT-2's)."""


class ByteLevel(PreTokenizer):
    """GPT-2's byte-level step: optionally a space in front, optionally GPT-2's split; the pieces'
    bytes are then read by the model in their visible form."""

    byte_level = True

    def __init__(self, add_prefix_space: bool = True, trim_offsets: bool = True, use_regex: bool = True) -> None:
        self.add_prefix_space = add_prefix_space
        self.trim_offsets = trim_offsets
        self.use_regex = use_regex
        self._split = Split(GPT2_PATTERN, "isolated", is_regex=True) if use_regex else None

    @staticmethod
    def alphabet() -> list[str]:
        """The 256 visible characters the bytes become (HF's ``ByteLevel.alphabet()``, the
        ``initial_alphabet`` a byte-level ``BpeTrainer`` is given).

        >>> len(ByteLevel.alphabet()), "Ġ" in ByteLevel.alphabet()
        (256, True)
        """
        from ..text.byte_unicode import BYTE_TO_UNICODE

        return sorted(BYTE_TO_UNICODE[b] for b in range(256))

    @property
    def splits_nothing(self) -> bool:
        return not self.add_prefix_space and self._split is None

    def split(self, text: str) -> list[str]:
        if self.add_prefix_space and not text.startswith(" "):
            text = " " + text
        if self._split is None:
            return [text] if text else []
        return self._split.split(text)

    def spans(self, text: str) -> list[Piece]:
        shift = 0
        if self.add_prefix_space and not text.startswith(" ") and text:
            text, shift = " " + text, 1
        pieces = [(text, 0, len(text))] if self._split is None else self._split.spans(text)
        # The added space belongs to the first character of the original text.
        return [(p, max(0, s - shift), max(0, e - shift) if e - shift > 0 else min(1, e)) for p, s, e in pieces if p]

    def to_json(self) -> dict[str, Any]:
        return {"type": "ByteLevel", "add_prefix_space": self.add_prefix_space, "trim_offsets": self.trim_offsets,
                "use_regex": self.use_regex}
