"""What every normalizer offers: the rewritten text, and where each of its characters came from.

Why alignments: offsets must point into the caller's text, not into the rewritten one. Every
normalizer returns, for each character it outputs, the ``[start, end)`` of the input characters it
came from; a :class:`Sequence` composes them. Most texts come out unchanged, and then the alignment
is never built (``normalize`` alone is the fast path that ids take).

>>> PerCharacter("Lowercase", str.lower).normalize_aligned("Straße")
('straße', None)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Alignment", "Normalizer", "PerCharacter", "Sequence", "identity_alignment"]

Alignment = list[tuple[int, int]]
"""For each output character, the ``[start, end)`` input characters it comes from; None: unchanged."""


def identity_alignment(n: int) -> Alignment:
    """Each of ``n`` characters from itself."""
    return [(i, i + 1) for i in range(n)]


class Normalizer:
    """Base: ``normalize`` (fast) and ``normalize_aligned`` (with each output character's source span)."""

    def normalize(self, text: str) -> str:
        return self.normalize_aligned(text)[0]

    def normalize_str(self, text: str) -> str:
        """HF's name for :meth:`normalize`."""
        return self.normalize(text)

    def normalize_aligned(self, text: str) -> tuple[str, Alignment | None]:
        raise NotImplementedError

    def clear_memos(self) -> None:
        """Forget what this normalizer remembers of the text it has seen (none here; Precompiled and
        BertNormalizer keep bounded memos). A tokenizer's ``engine.cache.clear()`` calls it."""

    def to_json(self) -> dict[str, Any]:
        raise NotImplementedError


class PerCharacter(Normalizer):
    """A normalizer that maps each character on its own (to zero, one or several characters)."""

    def __init__(self, name: str, mapping: Callable[[str], str]) -> None:
        self.name = name
        self._map = mapping

    def normalize(self, text: str) -> str:
        return "".join(map(self._map, text))

    def normalize_aligned(self, text: str) -> tuple[str, Alignment | None]:
        out = list(map(self._map, text))
        joined = "".join(out)
        if len(joined) == len(text) and all(len(m) == 1 for m in out):
            return joined, None  # one character for one: positions unchanged
        align: Alignment = []
        for i, mapped in enumerate(out):
            align.extend([(i, i + 1)] * len(mapped))
        return joined, align

    def to_json(self) -> dict[str, Any]:
        return {"type": self.name}


class Sequence(Normalizer):
    """Each normalizer in turn; alignments compose back to the first input."""

    def __init__(self, normalizers: list[Normalizer]) -> None:
        self.steps = list(normalizers)

    def clear_memos(self) -> None:
        for step in self.steps:
            step.clear_memos()

    def normalize(self, text: str) -> str:
        for step in self.steps:
            text = step.normalize(text)
        return text

    def normalize_aligned(self, text: str) -> tuple[str, Alignment | None]:
        align: Alignment | None = None
        for step in self.steps:
            text, inner = step.normalize_aligned(text)
            if inner is not None:
                # Every span is non-empty, so each maps to a span of the step's input.
                align = inner if align is None else [(align[s][0], align[e - 1][1]) for s, e in inner]
        return text, align

    def to_json(self) -> dict[str, Any]:
        return {"type": "Sequence", "normalizers": [step.to_json() for step in self.steps]}
