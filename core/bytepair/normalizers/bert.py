"""``BertNormalizer``: BERT's text cleaning, as HF ``tokenizers`` 0.23.3 runs it.

Why one component of four steps: BERT's files name it as one (``{"type": "BertNormalizer",
"clean_text", "handle_chinese_chars", "strip_accents", "lowercase"}``), and its steps use HF's own
character classes (``bert_tables.py``), not ``unicodedata``'s. In order:

1. ``clean_text``: U+0000, U+FFFD and controls (Cc, Cf, Co) removed; other whitespace becomes " ";
2. ``handle_chinese_chars``: a space on each side of every CJK ideograph;
3. ``strip_accents`` (default: as ``lowercase``): NFD, then non-spacing marks removed;
4. ``lowercase``: each character lower-cased on its own (no final-sigma rule, as HF).

``normalize`` is the fast path (whole-string regex and ``str`` calls); ``normalize_aligned`` runs the
same steps character by character, each output character aligned with the input character it came
from (the reference; tests hold the two equal, and the alignment to HF's offsets).

>>> BertNormalizer().normalize("Héllo\\tWÖRLD 中文")
'hello world  中  文 '
"""

from __future__ import annotations

import re
import unicodedata
from functools import cached_property
from typing import Any

from .base import Alignment, Normalizer, PerCharacter, Sequence
from .unicode import NFD

__all__ = ["BertNormalizer"]


def _class(ranges: tuple[tuple[int, int], ...], extra: str = "") -> str:
    return "[" + extra + "".join(f"\\U{a:08X}-\\U{b:08X}" for a, b in ranges) + "]"


_SPACES = re.compile(r"[^\S ]")  # whitespace other than " " (controls are removed first)


class _Tables:
    """HF's character classes as patterns and sets, built on first use (not at import: a page's
    runtime snapshot holds whatever importing bytepair builds)."""

    @cached_property
    def removed(self) -> re.Pattern[str]:
        from .bert_tables import CONTROLS

        return re.compile(_class(CONTROLS, "\\x00\\uFFFD"))

    @cached_property
    def chinese(self) -> re.Pattern[str]:
        from .bert_tables import CHINESE

        return re.compile("(" + _class(CHINESE) + ")")

    @cached_property
    def marks(self) -> re.Pattern[str]:
        from .bert_tables import NON_SPACING_MARKS

        return re.compile(_class(NON_SPACING_MARKS))

    @cached_property
    def mark_set(self) -> frozenset[str]:
        from .bert_tables import NON_SPACING_MARKS

        return frozenset(chr(c) for a, b in NON_SPACING_MARKS for c in range(a, b + 1))

    @cached_property
    def lower_first(self) -> dict[str, str]:
        """Characters HF lower-cases otherwise than ``str.lower`` (its older tables)."""
        from .bert_tables import LOWERCASE_OVERRIDES

        return {"\u03a3": "\u03c3", **LOWERCASE_OVERRIDES}


_TABLES = _Tables()

MEMO_ENTRIES = 1 << 16
"""Characters whose normalization a :class:`BertNormalizer` remembers before it empties its memo:
one character each, mapped to a few (NFD, lower case), a few MB at most (a test measures it full)."""
"""Changed before ``str.lower``: capital sigma as one character (``str.lower`` alone gives a final
sigma at a word's end; HF lower-cases each character on its own), and HF's newer mappings."""


def _remove_chars(text: str, found: set[str] | frozenset[str], mapping: dict[str, str] | None = None) -> str:
    """``text`` with the characters of ``found`` (those of a large class that occur in it: a regex of
    the few, where one of the whole class, or ``str.translate``, scans 10-20x slower) removed, or
    replaced by ``mapping``'s."""
    if not found:
        return text
    pattern = re.compile("|".join(map(re.escape, sorted(found))))
    if mapping is None:
        return pattern.sub("", text)
    return pattern.sub(lambda m: mapping[m.group()], text)


def _clean(ch: str) -> str:
    if _TABLES.removed.match(ch):
        return ""
    return " " if ch.isspace() else ch


def _chinese(ch: str) -> str:
    return f" {ch} " if _TABLES.chinese.match(ch) else ch


def _mark(ch: str) -> str:
    return "" if _TABLES.marks.match(ch) else ch


def _lower(ch: str) -> str:
    return (_TABLES.lower_first.get(ch) if ch != "\u03a3" else None) or ch.lower()


class BertNormalizer(Normalizer):
    """HF's ``normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=None,
    lowercase=True)``."""

    def __init__(self, clean_text: bool = True, handle_chinese_chars: bool = True, strip_accents: bool | None = None,
                 lowercase: bool = True) -> None:
        self.clean_text = bool(clean_text)
        self.handle_chinese_chars = bool(handle_chinese_chars)
        self.strip_accents = None if strip_accents is None else bool(strip_accents)
        self.lowercase = bool(lowercase)
        strip = self.lowercase if self.strip_accents is None else self.strip_accents
        self._strip = strip
        steps: list[Normalizer] = []
        if self.clean_text:
            steps.append(PerCharacter("CleanText", _clean))
        if self.handle_chinese_chars:
            steps.append(PerCharacter("ChineseChars", _chinese))
        if strip:
            steps += [NFD(), PerCharacter("NonSpacingMarks", _mark)]
        if self.lowercase:
            steps.append(PerCharacter("Lowercase", _lower))
        self._steps = Sequence(steps)
        self._memo: dict[str, str] = {}
        """Character -> what the steps make of it alone (the characters of a text repeat)."""

    def normalize(self, text: str) -> str:
        if self.clean_text:
            text = _SPACES.sub(" ", _TABLES.removed.sub("", text))
        if self.handle_chinese_chars and not text.isascii():
            text = _TABLES.chinese.sub(r" \1 ", text)
        if self._strip and not text.isascii():
            text = unicodedata.normalize("NFD", text)
            text = _remove_chars(text, _TABLES.mark_set.intersection(text))
        if self.lowercase:
            if not text.isascii():
                text = _remove_chars(text, _TABLES.lower_first.keys() & set(text), _TABLES.lower_first)
            text = text.lower()
        return text

    def clear_memos(self) -> None:
        """Forget the memo of each character's normalization (a tokenizer's ``engine.cache.clear()`` calls it)."""
        self._memo.clear()

    def normalize_aligned(self, text: str) -> tuple[str, Alignment | None]:
        """Each step maps a character on its own, but for NFD's reordering of combining marks across
        characters: so when the text normalized whole equals its characters normalized one by one
        (memoized), each output character aligns with the character it came from, and the steps
        need not run one by one (``_reference_normalize_aligned``; tests hold the two equal)."""
        memo = self._memo
        if len(memo) >= MEMO_ENTRIES:  # bounded: a text of every character must not keep them all
            memo.clear()
        outs = [memo.get(ch) or memo.setdefault(ch, self.normalize(ch) or "") for ch in text]
        joined = "".join(outs)
        if joined != self.normalize(text):
            return self._reference_normalize_aligned(text)
        if len(joined) == len(text) and all(len(out) == 1 for out in outs):
            return joined, None
        align: Alignment = []
        for i, out in enumerate(outs):
            if out:
                align += [(i, i + 1)] * len(out)
        return joined, align

    def _reference_normalize_aligned(self, text: str) -> tuple[str, Alignment | None]:
        """The steps in turn, each with its alignment (``base.Sequence``)."""
        return self._steps.normalize_aligned(text)

    def to_json(self) -> dict[str, Any]:
        return {"type": "BertNormalizer", "clean_text": self.clean_text, "handle_chinese_chars": self.handle_chinese_chars,
                "strip_accents": self.strip_accents, "lowercase": self.lowercase}
