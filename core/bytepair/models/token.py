"""``Token``: what a model's ``tokenize(sequence)`` returns, as HF's ``tokenizers.Token``.

Why a class of its own: HF code calls ``model.tokenize("text")`` and reads ``.id``, ``.value`` and
``.offsets`` (character offsets within the sequence); every model family returns these.

>>> Token(2, "ab", (0, 2))
Token(id=2, value='ab', offsets=(0, 2))
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Token"]


class Token(NamedTuple):
    """One token of a model's ``tokenize``: its id, its string and its ``(start, end)`` characters."""

    id: int
    value: str
    offsets: tuple[int, int]

    def as_tuple(self) -> tuple[int, str, tuple[int, int]]:
        """HF's ``Token.as_tuple()``: ``(id, value, offsets)``."""
        return (self.id, self.value, self.offsets)
