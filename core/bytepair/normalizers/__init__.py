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

from ..formats.component_json import build
from ..formats.component_json import pattern as pattern_of
from ..pre_tokenizers.pattern.translate import translate

__all__ = ["Normalizer", "normalizer_from_json"]

Alignment = list[tuple[int, int]]
"""For each output character, the ``[start, end)`` input characters it comes from; None: unchanged."""


def identity_alignment(n: int) -> Alignment:
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
    """NFC, NFD, NFKC or NFKD, with each new character aligned as HF aligns it.

    HF (through the ``unicode-normalization-alignments`` crate) tags every character the
    normalization puts out with a *change*: the first character of a character's decomposition
    replaces it (0), the others are inserted (+1); canonical reordering moves characters with their
    tags; a composition folds a character into its starter, whose tag drops by one (-1: it replaced
    two). Then the characters are walked in order against the input's: a replacing character aligns
    with the next input character and consumes it (and as many more as its tag is below zero), an
    inserted one with the input character consumed last. So alignment is by position, not by
    identity: ``q`` + U+0307 + U+0323 is reordered to ``q`` + U+0323 + U+0307, and U+0323 aligns
    with U+0307's place. Written out here step by step (``_decompose``, ``_reorder``, ``_compose``,
    ``_walk``); the text itself is still ``unicodedata``'s, and tests hold the two equal.

    >>> UnicodeNormalizer("NFC").normalize_aligned("e\u0301\u0301")
    ('é\u0301', [(0, 1), (2, 3)])
    """

    def __init__(self, form: str) -> None:
        self.form = form

    def normalize(self, text: str) -> str:
        if text.isascii() or unicodedata.is_normalized(self.form, text):
            return text
        return unicodedata.normalize(self.form, text)

    def normalize_aligned(self, text: str) -> tuple[str, Alignment | None]:
        if text.isascii() or unicodedata.is_normalized(self.form, text):
            return text, None
        chars, changes = _decompose(text, "NFKD" if self.form in ("NFKC", "NFKD") else "NFD")
        _reorder(chars, changes)
        if self.form in ("NFC", "NFKC"):
            chars, changes = _compose(chars, changes)
        normalized = unicodedata.normalize(self.form, text)
        if "".join(chars) != normalized:  # pragma: no cover - a case the steps do not model (tests look for one)
            # The text (and so the ids) stays unicodedata's; characters align by position.
            return normalized, [(min(i, len(text) - 1), min(i, len(text) - 1) + 1) for i in range(len(normalized))]
        return normalized, _walk(changes)

    def to_json(self) -> dict[str, Any]:
        return {"type": self.form}


def _decompose(text: str, form: str) -> tuple[list[str], list[int]]:
    """Each character's full decomposition (``form`` is NFD or NFKD), tagged: 0 for its first
    character, +1 for the rest."""
    chars: list[str] = []
    changes: list[int] = []
    for ch in text:
        parts = unicodedata.normalize(form, ch) if ord(ch) >= 0x80 else ch
        chars.extend(parts)
        changes.append(0)
        changes.extend([1] * (len(parts) - 1))
    return chars, changes


def _reorder(chars: list[str], changes: list[int]) -> None:
    """Canonical ordering in place: each run of combining characters sorted by combining class
    (stably), their tags moving with them."""
    classes = list(map(unicodedata.combining, chars))
    i, n = 0, len(chars)
    while i < n:
        if not classes[i]:
            i += 1
            continue
        j = i
        while j < n and classes[j]:
            j += 1
        if j - i > 1:
            order = sorted(range(i, j), key=classes.__getitem__)
            chars[i:j] = [chars[k] for k in order]
            changes[i:j] = [changes[k] for k in order]
            classes[i:j] = [classes[k] for k in order]
        i = j


def _composite(first: str, second: str) -> str | None:
    """The primary composite of ``first`` + ``second``, or None: the one character NFC makes of
    them whose decomposition is exactly theirs."""
    joined = unicodedata.normalize("NFC", first + second)
    if len(joined) == 1 and unicodedata.normalize("NFD", joined) == unicodedata.normalize("NFD", first) + second:
        return joined
    return None


def _compose(chars: list[str], changes: list[int]) -> tuple[list[str], list[int]]:
    """Canonical composition (Unicode's algorithm: a character joins the last starter unless a
    character between them is a starter or has a class at least its own); a joined character's tag
    is added to the starter's, less one."""
    out: list[str] = []
    tags: list[int] = []
    starter = -1  # index in out of the last starter
    last_class = 0  # class of the last character kept after it (0: none yet)
    for ch, change in zip(chars, changes):
        cls = unicodedata.combining(ch)
        # (No composite has an ASCII second half: an ASCII character is never folded in.)
        if starter >= 0 and ch >= "\x80" and (starter == len(out) - 1 or 0 < last_class < cls):
            joined = _composite(out[starter], ch)
            if joined is not None:
                out[starter] = joined
                tags[starter] += change - 1
                continue
        if cls == 0:
            starter = len(out)
            last_class = 0
        else:
            last_class = cls
        out.append(ch)
        tags.append(change)
    return out, tags


def _walk(changes: list[int]) -> Alignment:
    """The alignment HF gives the tagged characters: a replacing one (tag <= 0) takes the next input
    character and consumes it and ``-tag`` more; an inserted one (tag > 0) takes the input character
    consumed last (nothing, ``(0, 0)``, at the very start)."""
    align: Alignment = []
    at = 0
    for change in changes:
        if change > 0:
            align.append((at - 1, at) if at else (0, 0))
        else:
            align.append((at, at + 1))
            at += 1 - change
    return align


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
