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

from ..text.normal_forms import normal_form_aligned
from .base import Alignment, Normalizer
from .edits import Edits

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
    with U+0307's place. Written out step by step (``_decompose``, ``_reorder``, ``_compose``,
    ``_walk``, in ``text/normal_forms.py``); the text itself is still ``unicodedata``'s, and tests hold
    the two equal.

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
        return normal_form_aligned(self.form, text)

    def normalize_edits(self, text: str) -> tuple[str, Edits | None] | None:
        """Unchanged text as it is; any other: None (``normalize_aligned`` aligns it)."""
        return (text, None) if text.isascii() or unicodedata.is_normalized(self.form, text) else None

    def to_json(self) -> dict[str, Any]:
        return {"type": self.form}


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
