"""Normalizers that rewrite text by rules: ``Strip``, ``Replace``, ``Prepend``, ``Lowercase``, ``StripAccents``.

>>> Replace(" ", "▁").normalize_aligned("a b")
('a▁b', [(0, 1), (1, 2), (2, 3)])
"""

from __future__ import annotations

import re
import unicodedata
from itertools import chain, repeat
from operator import itemgetter, sub
from typing import Any

from ..formats.component_json import Regex, pattern_argument
from ..pre_tokenizers.pattern.safety import check_length, check_pattern
from ..pre_tokenizers.pattern.translate import translate
from .base import Alignment, Normalizer, PerCharacter, identity_alignment
from .edits import Edits

__all__ = ["Lowercase", "Nmt", "Prepend", "Replace", "Strip", "StripAccents"]

_FIRST, _SECOND = itemgetter(0), itemgetter(1)
_SPACES_AT_ENDS = r"\A +| +\z"


class Strip(Normalizer):
    """Whitespace removed at the start (``left``) and/or end (``right``)."""

    def __init__(self, left: bool = True, right: bool = True) -> None:
        self.left, self.right = left, right

    def _kept(self, text: str) -> tuple[int, int]:
        """The ``[start, end)`` of ``text`` that stays."""
        start = len(text) - len(text.lstrip()) if self.left else 0
        return start, max(start, len(text.rstrip())) if self.right else len(text)

    def normalize_aligned(self, text: str) -> tuple[str, Alignment | None]:
        start, end = self._kept(text)
        if start == 0 and end == len(text):
            return text, None
        return text[start:end], [(i, i + 1) for i in range(start, end)]

    def normalize_edits(self, text: str) -> tuple[str, Edits | None] | None:
        start, end = self._kept(text)
        if start == 0 and end == len(text):
            return text, None
        return text[start:end], Edits([(i, 0) for i in chain(range(start), range(end, len(text)))], len(text))

    def to_json(self) -> dict[str, Any]:
        return {"type": "Strip", "strip_left": self.left, "strip_right": self.right}


class Replace(Normalizer):
    """Every match of a string or regex replaced by ``content``; the new characters align with the
    match's last character (as HF aligns them). A ``str`` pattern is literal text, a
    :class:`~bytepair.Regex` a regex (as in HF)."""

    def __init__(self, pattern: str | Regex, content: str, *, is_regex: bool | None = None) -> None:
        pattern, is_regex = pattern_argument(pattern, is_regex)
        self.pattern, self.content, self.is_regex = pattern, content, is_regex
        check_length(pattern, "the Replace pattern")
        source = translate(pattern, dialect="onig").pattern if is_regex else re.escape(pattern)
        if is_regex:
            check_pattern(pattern, "the Replace pattern", source)
        self._regex = re.compile(source)
        self._template = content.replace("\\", "\\\\")  # (``re.sub``'s replacement: the content as it stands)
        self._strips = is_regex and pattern == _SPACES_AT_ENDS and not content
        """The pattern transformers' converter writes for ``remove_extra_whitespaces``, removing
        spaces at both ends: ``str.strip`` does it without trying the regex at every space."""

    def normalize(self, text: str) -> str:
        if not self.is_regex:
            return text.replace(self.pattern, self.content)
        if self._strips:
            return text.strip(" ")
        return self._regex.sub(self._template, text)

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

    def normalize_edits(self, text: str) -> tuple[str, Edits | None] | None:
        """As :meth:`normalize_aligned`, the changes only: a match's characters removed but its
        last, which becomes ``content``.

        >>> Replace(Regex(" {2,}"), " ").normalize_edits("a   b"), Replace(" ", "▁").normalize_edits("a b")
        (('a b', Edits(changed=[(1, 0), (2, 0)], length=5)), ('a▁b', None))
        """
        if not self.is_regex and len(self.pattern) == 1 and len(self.content) == 1:
            return text.replace(self.pattern, self.content), None  # one character for one
        if self._strips:
            start, end = len(text) - len(text.lstrip(" ")), len(text.rstrip(" "))
            removed = list(chain(range(start), range(max(start, end), len(text))))
            return text[start:end], Edits(list(zip(removed, repeat(0))), len(text)) if removed else None
        spans = [match.span() for match in self._regex.finditer(text)]
        if not spans:
            return text, None
        if any(s == e for s, e in spans):
            return None  # (empty matches: normalize_aligned's own rule)
        width = len(self.content)
        if width == 1:  # (a run collapsed to one character: all of it but its last removed)
            removed = chain.from_iterable(map(range, map(_FIRST, spans), map(sub, map(_SECOND, spans), repeat(1))))
            changed = list(zip(removed, repeat(0)))
        else:
            changed = [item for s, e in spans for item in chain(zip(range(s, e - 1), repeat(0)), ((e - 1, width),))
                       if item[1] != 1]
        return self._regex.sub(self._template, text), Edits(changed, len(text)) if changed else None

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

    def normalize_edits(self, text: str) -> tuple[str, Edits | None] | None:
        if not text or not self.prepend:
            return text, None
        return self.prepend + text, Edits([(0, 1 + len(self.prepend))], len(text))

    def to_json(self) -> dict[str, Any]:
        return {"type": "Prepend", "prepend": self.prepend}


def _strip_accents(ch: str) -> str:
    return "" if unicodedata.category(ch) in ("Mn", "Mc", "Me") else ch


class Lowercase(PerCharacter):
    """Every character lower-cased (``str.lower``), as HF's ``normalizers.Lowercase()``."""

    def __init__(self) -> None:
        super().__init__("Lowercase", str.lower)


class StripAccents(PerCharacter):
    """Combining marks removed (run it after NFD / NFKD, as in HF)."""

    def __init__(self) -> None:
        super().__init__("StripAccents", _strip_accents)


_NMT_TABLE: dict[int, str | None] = {
    **{c: None for c in (*range(0x01, 0x09), 0x0B, *range(0x0E, 0x20), 0x7F, 0x8F, 0x9F)},
    **{c: " " for c in (0x09, 0x0A, 0x0C, 0x0D, 0x1680, *range(0x200B, 0x2010), 0x2028, 0x2029, 0x2581, 0xFEFF, 0xFFFD)},
}
"""HF's ``do_nmt`` (``normalizers/unicode.rs``): ASCII controls but tab, newlines and form feed removed
(and U+008F, U+009F), and code points SentencePiece counts as whitespace made a space."""


class Nmt(PerCharacter):
    """SentencePiece's ``nmt`` rules as HF's ``normalizers.Nmt()``: control characters removed, other
    spaces (tab, newlines, U+200B-U+200F, U+2028/9, U+2581 ``▁``, BOM, U+FFFD) made " ".

    >>> Nmt().normalize("a\\tb\\x01c\\u200bd")
    'a bc d'
    """

    def __init__(self) -> None:
        super().__init__("Nmt", lambda ch: ch.translate(_NMT_TABLE))

    def normalize(self, text: str) -> str:
        return text.translate(_NMT_TABLE)
