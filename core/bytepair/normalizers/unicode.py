"""Unicode normalization (NFC, NFD, NFKC, NFKD) with each new character aligned as HF aligns it.

Unicode normalization uses the interpreter's ``unicodedata`` (Unicode 14.0 on CPython 3.11, 16.0 in
Pyodide); text with characters assigned after 14.0 that have decompositions may normalize
differently natively than in HF.

>>> NFKC().normalize("ﬁ")
'fi'
"""

from __future__ import annotations

import unicodedata
from typing import Any

from .base import Alignment, Normalizer

__all__ = ["NFC", "NFD", "NFKC", "NFKD", "UnicodeNormalizer"]


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


class NFC(UnicodeNormalizer):
    """HF's ``normalizers.NFC()``."""

    def __init__(self) -> None:
        super().__init__("NFC")


class NFD(UnicodeNormalizer):
    """HF's ``normalizers.NFD()``."""

    def __init__(self) -> None:
        super().__init__("NFD")


class NFKC(UnicodeNormalizer):
    """HF's ``normalizers.NFKC()``."""

    def __init__(self) -> None:
        super().__init__("NFKC")


class NFKD(UnicodeNormalizer):
    """HF's ``normalizers.NFKD()``."""

    def __init__(self) -> None:
        super().__init__("NFKD")
