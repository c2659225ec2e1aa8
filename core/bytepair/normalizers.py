"""Normalizers of ``tokenizer.json`` files: how text is rewritten before it is split (NFC, Replace ...).

Why alignments: offsets must point into the caller's text, not into the rewritten one. Every
normalizer here returns, for each character it outputs, the ``[start, end)`` of the input characters
it came from; a :class:`Sequence` composes them. Most texts come out unchanged, and then the
alignment is never built (``normalize`` alone is the fast path that ids take).

Unicode normalization uses the interpreter's ``unicodedata`` (Unicode 14.0 on CPython 3.11, 16.0 in
Pyodide); text with characters assigned after 14.0 that have decompositions may normalize
differently natively than in HF. Built by :func:`normalizer_from_json`, the one factory of this stage.

>>> norm = normalizer_from_json({"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
...     {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]})
>>> norm.normalize("a b")
'▁a▁b'
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import Any

from .component_json import build
from .component_json import pattern as pattern_of
from .pretokenize.translate import translate

__all__ = ["Normalizer", "normalizer_from_json"]

Alignment = list[tuple[int, int]]
"""For each output character, the ``[start, end)`` input characters it comes from; None: unchanged."""


def identity_alignment(n: int) -> Alignment:
    return [(i, i + 1) for i in range(n)]


class Normalizer:
    """Base: ``normalize`` (fast) and ``normalize_aligned`` (with each output character's source span)."""

    def normalize(self, text: str) -> str:
        return self.normalize_aligned(text)[0]

    def normalize_aligned(self, text: str) -> tuple[str, Alignment | None]:
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        raise NotImplementedError


class _PerChar(Normalizer):
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


class UnicodeNormalizer(Normalizer):
    """NFC, NFD, NFKC or NFKD, one combining sequence (a starter and the marks after it) at a time;
    each character a sequence becomes aligns with the character it comes from (``_sources``), as
    HF aligns them. A character that composes with the one before it (Hangul jamo) joins its
    sequence too."""

    def __init__(self, form: str) -> None:
        self.form = form

    def normalize(self, text: str) -> str:
        if text.isascii() or unicodedata.is_normalized(self.form, text):
            return text
        return unicodedata.normalize(self.form, text)

    def normalize_aligned(self, text: str) -> tuple[str, Alignment | None]:
        if text.isascii() or unicodedata.is_normalized(self.form, text):
            return text, None
        form = self.form
        out: list[str] = []
        align: Alignment = []
        start, done = 0, ""  # the open sequence text[start:i] and what it normalizes to
        for i in range(len(text) + 1):
            if i < len(text):
                ch = text[i]
                joined = unicodedata.normalize(form, text[start : i + 1])
                if i == start or unicodedata.combining(ch) or joined != done + unicodedata.normalize(form, ch):
                    done = joined  # ch belongs to the open sequence (a mark, or it composes with it)
                    continue
            out.append(done)
            align.extend((start + j, start + j + 1) for j in _sources(text[start:i], done))
            if i < len(text):
                start, done = i, unicodedata.normalize(form, text[i])
        return "".join(out), align

    def to_json(self) -> dict[str, Any]:
        return {"type": self.form}


def _sources(before: str, after: str) -> list[int]:
    """For each character of ``after`` (one normalized sequence), the index in ``before`` it comes
    from: the same character where it is still there, else the first one not yet taken (a composed
    or decomposed character), else the last.

    >>> _sources("e\u0327\u0308", "ȩ\u0308"), _sources("é", "e\u0301")
    ([0, 2], [0, 0])
    """
    taken = [False] * len(before)
    out = []
    for ch in after:
        j = next((k for k, c in enumerate(before) if c == ch and not taken[k]), -1)
        if j < 0:
            j = next((k for k in range(len(before)) if not taken[k]), len(before) - 1)
        if 0 <= j < len(before):
            taken[j] = True
        out.append(max(j, 0))
    return out


class Strip(Normalizer):
    """Whitespace removed at the start (``left``) and/or end (``right``)."""

    def __init__(self, left: bool = True, right: bool = True) -> None:
        self.left, self.right = left, right

    def normalize_aligned(self, text: str) -> tuple[str, Alignment | None]:
        start, end = 0, len(text)
        if self.left:
            start = len(text) - len(text.lstrip())
        if self.right:
            end = max(start, len(text.rstrip()))
        if start == 0 and end == len(text):
            return text, None
        return text[start:end], [(i, i + 1) for i in range(start, end)]

    def to_json(self) -> dict[str, Any]:
        return {"type": "Strip", "strip_left": self.left, "strip_right": self.right}


class Replace(Normalizer):
    """Every match of a string or regex replaced by ``content``; the new characters align with the
    match's last character (as HF aligns them)."""

    def __init__(self, pattern: str, content: str, *, is_regex: bool = False) -> None:
        self.pattern, self.content, self.is_regex = pattern, content, is_regex
        self._regex = re.compile(translate(pattern, dialect="onig").pattern if is_regex else re.escape(pattern))

    def normalize(self, text: str) -> str:
        if not self.is_regex:
            return text.replace(self.pattern, self.content)
        return self._regex.sub(lambda _: self.content, text)

    def normalize_aligned(self, text: str) -> tuple[str, Alignment | None]:
        if self._regex.search(text) is None:
            return text, None
        out: list[str] = []
        align: Alignment = []
        pos = 0
        for match in self._regex.finditer(text):
            s, e = match.span()
            if s == e:
                continue
            out.append(text[pos:s])
            align.extend((i, i + 1) for i in range(pos, s))
            out.append(self.content)
            align.extend([(e - 1, e)] * len(self.content))  # HF aligns them with the match's last character
            pos = e
        out.append(text[pos:])
        align.extend((i, i + 1) for i in range(pos, len(text)))
        return "".join(out), align

    def to_json(self) -> dict[str, Any]:
        return {"type": "Replace", "pattern": {"Regex" if self.is_regex else "String": self.pattern}, "content": self.content}


class Prepend(Normalizer):
    """``prepend`` put in front of non-empty text (aligned with the first character)."""

    def __init__(self, prepend: str) -> None:
        self.prepend = prepend

    def normalize(self, text: str) -> str:
        return self.prepend + text if text else text

    def normalize_aligned(self, text: str) -> tuple[str, Alignment | None]:
        if not text:
            return text, None
        return self.prepend + text, [(0, 1)] * len(self.prepend) + identity_alignment(len(text))

    def to_json(self) -> dict[str, Any]:
        return {"type": "Prepend", "prepend": self.prepend}


class Sequence(Normalizer):
    """Each normalizer in turn; alignments compose back to the first input."""

    def __init__(self, steps: list[Normalizer]) -> None:
        self.steps = steps

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


def _strip_accents(ch: str) -> str:
    return "" if unicodedata.category(ch) in ("Mn", "Mc", "Me") else ch


def _replace(obj: dict[str, Any], where: str) -> Normalizer:
    pattern, is_regex = pattern_of(obj.get("pattern"), where + ".pattern")
    return Replace(pattern, str(obj.get("content", "")), is_regex=is_regex)


_FACTORIES: dict[str, Callable[[dict[str, Any], str], Normalizer]] = {
    "NFC": lambda o, w: UnicodeNormalizer("NFC"),
    "NFD": lambda o, w: UnicodeNormalizer("NFD"),
    "NFKC": lambda o, w: UnicodeNormalizer("NFKC"),
    "NFKD": lambda o, w: UnicodeNormalizer("NFKD"),
    "Lowercase": lambda o, w: _PerChar("Lowercase", str.lower),
    "StripAccents": lambda o, w: _PerChar("StripAccents", _strip_accents),
    "Strip": lambda o, w: Strip(bool(o.get("strip_left", True)), bool(o.get("strip_right", True))),
    "Replace": _replace,
    "Prepend": lambda o, w: Prepend(str(o.get("prepend", ""))),
    "Sequence": lambda o, w: Sequence(
        [n for i, step in enumerate(o.get("normalizers", [])) if (n := normalizer_from_json(step, f"{w}.normalizers[{i}]"))]
    ),
}


def normalizer_from_json(obj: dict[str, Any] | None, where: str = "normalizer") -> Normalizer | None:
    """The normalizer a ``tokenizer.json`` describes (None for ``null`` or an empty Sequence)."""
    made = build(obj, where, "normalizer", _FACTORIES)
    if isinstance(made, Sequence) and not made.steps:
        return None
    return made
