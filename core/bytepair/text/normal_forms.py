"""Unicode normalization forms with each new character aligned as HF aligns it.

Why here, at the bottom: both the NFC/NFD/NFKC/NFKD normalizers (``normalizers/unicode.py``) and HF's
``NormalizedString`` (``pre_tokenizers/normalized_string.py``, whose ``nfd()`` & co. a custom
normalizer calls) need the same alignment, and the second sits below the normalizers.

>>> normal_form_aligned("NFC", "e\u0301\u0301")
('é\u0301', [(0, 1), (2, 3)])
"""

from __future__ import annotations

import unicodedata

__all__ = ["normal_form_aligned"]

Alignment = list[tuple[int, int]]


def normal_form_aligned(form: str, text: str) -> tuple[str, Alignment | None]:
    """``text`` in the normal form ``form`` (NFC, NFD, NFKC or NFKD), and for each of its characters
    the ``[start, end)`` of the one input character HF aligns it with (None: unchanged)."""
    if text.isascii() or unicodedata.is_normalized(form, text):
        return text, None
    chars, changes = _decompose(text, "NFKD" if form in ("NFKC", "NFKD") else "NFD")
    _reorder(chars, changes)
    if form in ("NFC", "NFKC"):
        chars, changes = _compose(chars, changes)
    normalized = unicodedata.normalize(form, text)
    if "".join(chars) != normalized:  # pragma: no cover - a case the steps do not model (tests look for one)
        # The text (and so the ids) stays unicodedata's; characters align by position.
        return normalized, [(min(i, len(text) - 1), min(i, len(text) - 1) + 1) for i in range(len(normalized))]
    return normalized, _walk(changes)


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
