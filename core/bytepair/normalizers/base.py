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

from ..errors import InvalidInputError, UnsavableError, stage_without_json
from ..pre_tokenizers.normalized_string import NormalizedString
from .edits import Edits, character_edits

__all__ = ["Alignment", "CustomNormalizer", "Normalizer", "PerCharacter", "Sequence", "identity_alignment"]

Alignment = list[tuple[int, int]]
"""For each output character, the ``[start, end)`` input characters it comes from; None: unchanged."""


def identity_alignment(n: int) -> Alignment:
    """Each of ``n`` characters from itself."""
    return [(i, i + 1) for i in range(n)]


class Normalizer:
    """Base: ``normalize`` (fast) and ``normalize_aligned`` (with each output character's source span)."""

    savable = True
    """Whether ``to_json`` can write it (a :meth:`custom` normalizer cannot)."""

    @staticmethod
    def custom(normalizer: Any) -> Normalizer:
        """HF's ``Normalizer.custom``: your own normalizer, any object with ``normalize(normalized)``
        that edits a :class:`~bytepair.NormalizedString` in place. It normalizes, with offsets as
        HF's, also inside a :class:`Sequence`, but cannot be saved in a ``tokenizer.json`` (as in
        HF: saving raises ``UnsavableError``).

        >>> class Shout:
        ...     def normalize(self, normalized):
        ...         normalized.nfkd()
        ...         normalized.filter(lambda c: c != "\u0301")
        ...         normalized.uppercase()
        >>> Normalizer.custom(Shout()).normalize_str("café ﬁ")
        'CAFE FI'
        >>> Normalizer.custom(Shout()).normalize_aligned("ﬁé")
        ('FIE', [(0, 1), (0, 1), (1, 2)])
        """
        return CustomNormalizer(normalizer)

    def normalize(self, text: str) -> str:
        return self.normalize_aligned(text)[0]

    def normalize_str(self, text: str) -> str:
        """HF's name for :meth:`normalize`."""
        return self.normalize(text)

    def normalize_aligned(self, text: str) -> tuple[str, Alignment | None]:
        raise NotImplementedError

    def normalize_edits(self, text: str) -> tuple[str, Edits | None] | None:
        """The normalized text and its alignment as :class:`~bytepair.normalizers.edits.Edits` (the
        input characters that did not become one character each; None: there are none), where
        every output character comes from one input character; None where that is not known to
        hold (the pipeline then asks :meth:`normalize_aligned`). Tests hold ``edits.aligned()``
        equal to ``normalize_aligned``'s alignment."""
        return None

    def clear_memos(self) -> None:
        """Forget what this normalizer remembers of the text it has seen (none here; Precompiled and
        BertNormalizer keep bounded memos). A tokenizer's ``engine.cache.clear()`` calls it."""

    def to_json(self) -> dict[str, Any]:
        raise stage_without_json("normalizer", self)


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

    def normalize_edits(self, text: str) -> tuple[str, Edits | None] | None:
        """Each distinct character mapped once; the changes found by :func:`character_edits`.

        >>> PerCharacter("Lowercase", str.lower).normalize_edits("İx")
        ('i̇x', Edits(changed=[(0, 2)], length=2))
        """
        outs = {ch: self._map(ch) for ch in set(text)}
        return "".join(map(outs.__getitem__, text)), character_edits(text, outs)

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
                # A non-empty span maps to a span of the step's input; an empty one (a custom
                # normalizer's character inserted at the very start, HF's (0, 0)) stays empty.
                align = inner if align is None else [(align[s][0], align[e - 1][1]) if e > s else _empty_at(align, s) for s, e in inner]
        return text, align

    def normalize_edits(self, text: str) -> tuple[str, Edits | None] | None:
        """Each step's changes composed (:meth:`Edits.then`); None if a step cannot give its own.

        >>> from .text import Prepend, Replace
        >>> Sequence([Replace(" ", "▁"), Prepend("▁")]).normalize_edits("a b")
        ('▁a▁b', Edits(changed=[(0, 2)], length=3))
        """
        edits: Edits | None = None
        for step in self.steps:
            found = step.normalize_edits(text)
            if found is None:
                return None
            text, inner = found
            if inner is not None:
                edits = inner if edits is None else edits.then(inner)
        return text, edits

    @property  # type: ignore[override]
    def savable(self) -> bool:
        return all(step.savable for step in self.steps)

    def to_json(self) -> dict[str, Any]:
        return {"type": "Sequence", "normalizers": [step.to_json() for step in self.steps]}


def _empty_at(align: Alignment, at: int) -> tuple[int, int]:
    """The empty span of the first input where position ``at`` of an aligned text is."""
    edge = align[at - 1][1] if 0 < at <= len(align) else 0
    return edge, edge


class CustomNormalizer(Normalizer):
    """A normalizer of the user's own (:meth:`Normalizer.custom`): any object with
    ``normalize(normalized: NormalizedString)`` that edits it in place. ``normalize_aligned`` hands
    it a :class:`~bytepair.NormalizedString` of the text and returns its text and its alignment in
    characters, which offsets go through as for every normalizer."""

    savable = False

    def __init__(self, normalizer: Any) -> None:
        self.normalizer = normalizer

    def normalize_aligned(self, text: str) -> tuple[str, Alignment | None]:
        method = getattr(self.normalizer, "normalize", None)
        if not callable(method):
            raise InvalidInputError(f"a custom normalizer needs a normalize(normalized) method; "
                                    f"{type(self.normalizer).__name__} has none")
        normalized = NormalizedString(text)
        method(normalized)
        align = normalized.char_alignment()
        if normalized.normalized == text and align == identity_alignment(len(text)):
            return text, None
        return normalized.normalized, align

    def to_json(self) -> dict[str, Any]:
        raise UnsavableError("a custom normalizer (Normalizer.custom) cannot be written to a tokenizer.json, as in HF; "
                             "set a normalizer of bytepair.normalizers before saving or pickling")
