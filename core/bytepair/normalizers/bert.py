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

from ..bulk import LastText
from .base import Alignment, Normalizer, PerCharacter, Sequence
from .edits import Edits, character_edits
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


PROBE_CHARS = 1 << 12
"""From this length on, ``normalize`` reads a text's distinct characters first, to skip the passes
that would change nothing (a set costs less than one regex pass over the text)."""


def _leads_with_mark(ch: str) -> bool:
    """Whether ``ch``'s NFD begins with a combining mark (one NFD may move across characters)."""
    return unicodedata.combining(unicodedata.normalize("NFD", ch)[:1] or "a") != 0


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
        self._mark_leads: set[str] = set()
        """The characters of the memo whose NFD begins with a combining mark (``normalize_edits``)."""
        self._last: LastText[str] = LastText()
        """``normalize``'s last long text and its output: the ids' pass's, for the fields' (``normalize_edits``)."""

    def normalize(self, text: str) -> str:
        if text.isascii() and text.isprintable():  # (``_plain``: the common short text, each character itself)
            return self._plain(text)
        source = text
        # A long text's distinct characters tell which passes would change nothing (no control, no
        # CJK: each regex pass over 400 kB costs 3-5 ms); decomposed, they hold every mark and
        # every letter of HF's own lower case the passes can meet.
        chars = "".join(set(text)) if len(text) >= PROBE_CHARS else None
        if self.clean_text:
            if chars is None or _TABLES.removed.search(chars):
                text = _TABLES.removed.sub("", text)
            if chars is None or _SPACES.search(chars):
                text = _SPACES.sub(" ", text)
        if self.handle_chinese_chars and not text.isascii() and (chars is None or _TABLES.chinese.search(chars)):
            text = _TABLES.chinese.sub(r" \1 ", text)
        if self._strip and not text.isascii():
            text = unicodedata.normalize("NFD", text)
            chars = None if chars is None else unicodedata.normalize("NFD", chars)
            text = _remove_chars(text, _TABLES.mark_set.intersection(text if chars is None else chars))
        if self.lowercase:
            if not text.isascii():
                text = _remove_chars(text, _TABLES.lower_first.keys() & set(text if chars is None else chars),
                                     _TABLES.lower_first)
            text = text.lower()
        self._last.keep(source, text)
        return text

    def _plain(self, text: str) -> str:
        """``normalize`` of printable ASCII (``" "`` to ``"~"``): no control, other whitespace, CJK
        ideograph or mark is there, so every step keeps each character but lower case, which
        ``str.lower`` gives for ASCII. Why apart: the steps' checks cost a sentence more than this
        (BERT's line-by-line fields: 8 µs of a 50-character line's normalizing with its alignment, 1 µs here).

        >>> BertNormalizer()._plain("Hello, World!"), BertNormalizer(lowercase=False)._plain("Hi")
        ('hello, world!', 'Hi')
        """
        out = text.lower() if self.lowercase else text
        self._last.keep(text, out)
        return out

    def clear_memos(self) -> None:
        """Forget the memo of each character's normalization (a tokenizer's ``engine.cache.clear()`` calls it)."""
        self._memo.clear()
        self._mark_leads.clear()
        self._last.clear()

    def normalize_aligned(self, text: str) -> tuple[str, Alignment | None]:
        """Each output character aligned with the input character it came from
        (:meth:`normalize_edits`), or where NFD may reorder marks across characters, the steps'
        alignments in turn (``_reference_normalize_aligned``; tests hold the two equal)."""
        found = self.normalize_edits(text)
        if found is None:
            return self._reference_normalize_aligned(text)
        normalized, edits = found
        return normalized, None if edits is None else edits.aligned()

    def normalize_edits(self, text: str) -> tuple[str, Edits | None] | None:
        """The normalized text and the characters that did not become one character each
        (:class:`~bytepair.normalizers.edits.Edits`; None: there are none); or None where
        the text holds a character whose NFD begins with a combining mark, which NFD may reorder
        across characters (then only the steps in turn align it).

        Why it holds: each step maps a character on its own but for NFD's reordering of combining
        marks, which moves a mark only within a run of them, and such a run crosses from one
        character's output into the next only if the next one's begins with a mark. So the text's
        normalization is its characters' (memoized), and only the characters whose output is not
        one character (removed controls, spaced CJK, expansions) need finding: a regex of them.

        >>> BertNormalizer().normalize_edits("a\x07b中")
        ('ab 中 ', Edits(changed=[(1, 0), (3, 3)], length=4))
        """
        if text.isascii() and text.isprintable():
            return self._plain(text), None
        memo, leads = self._memo, self._mark_leads
        normalized = self._last.get(text)  # (the ids' pass normalized this text last)
        if len(memo) >= MEMO_ENTRIES:  # bounded: a text of every character must not keep them all
            self.clear_memos()
        outs = {}
        for ch in set(text):
            out = memo.get(ch)
            if out is None:
                out = memo[ch] = self.normalize(ch) or ""
                if _leads_with_mark(ch):
                    leads.add(ch)
            outs[ch] = out
        if self._strip and leads and not leads.isdisjoint(outs):
            return None
        if normalized is None:
            normalized = "".join(map(outs.__getitem__, text))  # (a third of normalize's time: no regex passes)
        return normalized, character_edits(text, outs)

    def _reference_normalize_aligned(self, text: str) -> tuple[str, Alignment | None]:
        """The steps in turn, each with its alignment (``base.Sequence``)."""
        return self._steps.normalize_aligned(text)

    def to_json(self) -> dict[str, Any]:
        return {"type": "BertNormalizer", "clean_text": self.clean_text, "handle_chinese_chars": self.handle_chinese_chars,
                "strip_accents": self.strip_accents, "lowercase": self.lowercase}
