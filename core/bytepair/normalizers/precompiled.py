"""HF's ``Precompiled`` normalizer: SentencePiece's compiled character map applied as HF applies it.

Why HF's way and not sentencepiece's: a ``tokenizer.json`` converted from a ``.model`` (T5, ALBERT,
XLM-R, mBART) is HF's, and HF applies the map per *grapheme*: a grapheme under 6 UTF-8 bytes is
looked up whole and, if some key is a prefix of it, replaced by the *shortest* such key's string
(``"\\r\\n"`` becomes what ``"\\r"`` becomes); otherwise each of its characters is looked up alone.
sentencepiece itself takes the longest key at each byte (``normalizers/sentencepiece.py``). The
graphemes are the standard's extended grapheme clusters, with HF's Unicode data (``graphemes.py``):
where one ends decides what is looked up whole.

Offsets follow HF's bookkeeping: each rewrite tags its characters (0: replaces one input character;
+1: inserted, aligned with the input character before; a removal's count is added to the tag of the
character put out last) and the tags are walked against the input (``walk``).

>>> from ..formats.charsmap import CharsMap
>>> norm = Precompiled(CharsMap.build({"ｶ": "カ", "™": "TM", "\\x1e": ""}))
>>> norm.normalize_aligned("ｶ™\\x1eg")
('カTMg', [(0, 1), (1, 2), (2, 3), (3, 4)])
"""

from __future__ import annotations

import base64
import re
from typing import Any

from ..formats.charsmap import CharsMap
from .base import Alignment, Normalizer
from .edits import Edits, character_edits
from .graphemes import JOINING, grapheme_class, graphemes, may_join

__all__ = ["Precompiled", "graphemes", "translate", "walk"]

def _class_char(ch: str) -> str:
    """``ch`` written for a regular-expression character class."""
    return "\\" + ch if ch in "\\]^-[" else ch


def walk(tags: list[tuple[str, int]], n_input: int) -> Alignment:
    """Each output character's input span from HF's transformation tags (``NormalizedString::
    transform`` over characters of an unchanged input)."""
    align: Alignment = []
    pos = 0
    for _, change in tags:
        if change > 0:
            align.append((pos - 1, pos) if pos >= 1 else (0, 0))
            continue
        align.append((pos, pos + 1) if pos < n_input else (n_input, n_input))
        pos += 1 - change
    return align


MEMO_ENTRIES = 1 << 16
"""Entries each memo of a :class:`Precompiled` keeps before it is emptied."""
MEMO_CHARS = 1 << 20
"""Characters (keys and values) the chunk memo keeps before it is emptied; the window patterns'
keys keep a sixteenth of that. With ``MEMO_ENTRIES`` this bounds them in bytes (a test measures
them full: a few MB)."""


class Precompiled(Normalizer):
    """``normalizers.Precompiled(precompiled_charsmap)`` as HF (the blob as bytes or base64 text)."""

    def __init__(self, precompiled_charsmap: bytes | str) -> None:
        blob = base64.b64decode(precompiled_charsmap) if isinstance(precompiled_charsmap, str) else bytes(precompiled_charsmap)
        self.charsmap = CharsMap(blob)
        self._memo: dict[str, str | None] = {}
        self._memo_chars = 0
        self._seen: set[str] = set()  # characters looked at, and of them those that
        self._starting: set[str] = set()  # begin some rule
        self._joining: set[str] = set()  # may be in a cluster of several (a combining mark, a joiner, CR, ...)
        self._rewrites: dict[str, str] = {}  # and what those that begin a rule become alone, where it is a rule
        self._patterns: dict[str, re.Pattern[str]] = {}
        self._pattern_chars = 0

    def clear_memos(self) -> None:
        """Forget every memo (what each chunk becomes, which characters begin or join a rule, the
        compiled window patterns): each is bounded (``MEMO_ENTRIES``, ``MEMO_CHARS``), and this
        empties them all (a tokenizer's ``engine.cache.clear()`` calls it)."""
        for memo in (self._memo, self._seen, self._starting, self._joining, self._rewrites, self._patterns):
            memo.clear()
        self._memo_chars = self._pattern_chars = 0

    def _transform(self, chunk: str) -> str | None:
        found = self._memo.get(chunk, self)
        if found is self:
            matches = self.charsmap.prefix_matches(chunk.encode("utf-8", "surrogatepass"), 0, stop_at_zero=True)
            found = self.charsmap.rewrite(matches[0][1]) if matches else None
            size = len(chunk) + len(found or "")
            if len(self._memo) >= MEMO_ENTRIES or self._memo_chars + size > MEMO_CHARS:
                self._memo.clear()
                self._memo_chars = 0
            self._memo[chunk] = found
            self._memo_chars += size
        return found  # type: ignore[return-value]

    def _dirty(self, text: str) -> list[str]:
        """The characters of ``text`` that begin some rule (the others pass through unchanged); each
        character is looked at once and sorted into sets, so a text costs a few set operations in C."""
        chars = set(text)
        new = chars - self._seen
        if new:
            if len(self._seen) + len(new) > MEMO_ENTRIES:  # one entry per distinct character seen: bounded too
                for memo in (self._seen, self._starting, self._joining, self._rewrites):
                    memo.clear()
                new = chars
            for ch in new:
                if ch != "\x00" and self.charsmap.starts_key(ch.encode("utf-8", "surrogatepass")):
                    self._starting.add(ch)
                    norm = self._transform(ch)
                    if norm is not None:
                        self._rewrites[ch] = norm
                if grapheme_class(ch) in JOINING:
                    self._joining.add(ch)
            self._seen |= new
        return list(chars & self._starting) if self._starting else []

    def _windows(self, text: str, dirty: list[str]) -> list[tuple[int, int]]:
        """The stretches of whole graphemes around every character that begins a rule, merged."""
        key = "".join(sorted(dirty))
        pattern = self._patterns.get(key)
        if pattern is None:
            if len(self._patterns) > 256 or self._pattern_chars + len(key) > MEMO_CHARS // 16:
                self._patterns.clear()
                self._pattern_chars = 0
            self._pattern_chars += len(key)
            pattern = self._patterns[key] = re.compile("[" + "".join(map(_class_char, key)) + "]")
        n = len(text)
        windows: list[tuple[int, int]] = []
        for found in pattern.finditer(text):
            start = end = found.start()
            if windows and start < windows[-1][1]:
                continue
            while start > 0 and may_join(text[start - 1], text[start]):
                start -= 1
            end += 1
            while end < n and may_join(text[end - 1], text[end]):
                end += 1
            if windows and start <= windows[-1][1]:
                windows[-1] = (windows[-1][0], end)
            else:
                windows.append((start, end))
        return windows

    def _tags(self, text: str, tags: list[tuple[str, int]]) -> bool:
        """HF's transformation tags of ``text``, graphemes looked up whole then by character."""
        modified = False
        for cluster in graphemes(text):
            if len(cluster.encode("utf-8", "surrogatepass")) < 6:
                norm = self._transform(cluster)
                if norm is not None:
                    modified = True
                    _replace(tags, cluster, norm)
                    continue
            for ch in cluster:
                norm = self._transform(ch)
                if norm is not None:
                    modified = True
                    _replace(tags, ch, norm)
                else:
                    tags.append((ch, 0))
        return modified

    def _single_characters(self, text: str, dirty: list[str]) -> dict[int, str] | None:
        """Where every grapheme of ``text`` is one character (no combining mark, joiner or CR), the
        rewrite of each character that has one (for ``str.translate``); None otherwise. (``_dirty``
        has looked at each character of ``text``.)"""
        if not self._joining.isdisjoint(text):
            return None
        rewrites = self._rewrites
        return {ord(ch): rewrites[ch] for ch in rewrites.keys() & dirty}

    def normalize(self, text: str) -> str:
        dirty = self._dirty(text)
        if not dirty:
            return text
        table = self._single_characters(text, dirty)
        if table is not None:
            return translate(text, table)
        parts, last = [], 0
        for start, end in self._windows(text, dirty):
            tags: list[tuple[str, int]] = []
            self._tags(text[start:end], tags)
            parts.append(text[last:start])
            parts.append("".join(c for c, _ in tags))
            last = end
        parts.append(text[last:])
        return "".join(parts)

    def normalize_aligned(self, text: str) -> tuple[str, Alignment | None]:
        dirty = self._dirty(text)
        if not dirty:
            return text, None
        table = self._single_characters(text, dirty)
        if table is not None:
            if not table:
                return text, None
            if all(len(norm) == 1 for norm in table.values()):
                return translate(text, table), None  # one character for one: positions unchanged
            tags: list[tuple[str, int]] = []
            get = table.get
            for ch in text:
                norm = get(ord(ch))
                if norm is None:
                    tags.append((ch, 0))
                else:
                    _replace(tags, ch, norm)
            return "".join(c for c, _ in tags), walk(tags, len(text))
        tags = []
        modified, last = False, 0
        for start, end in self._windows(text, dirty):
            tags.extend(zip(text[last:start], [0] * (start - last)))
            modified = self._tags(text[start:end], tags) or modified
            last = end
        tags.extend(zip(text[last:], [0] * (len(text) - last)))
        if not modified:
            return text, None
        return "".join(c for c, _ in tags), walk(tags, len(text))

    def normalize_edits(self, text: str) -> tuple[str, Edits | None] | None:
        """Where every grapheme of ``text`` is one character, its rewrite and the characters not
        rewritten as one (a removal aligns nothing, as ``walk`` reads HF's tags); None otherwise,
        or where a removal's count lands on no tag or on an inserted one (``_removals_aligned``).

        >>> norm = Precompiled(CharsMap.build({"™": "TM", "\x1e": ""}))
        >>> norm.normalize_edits("a™g\x1e"), norm.normalize_edits("a™\x1eg")
        (('aTMg', Edits(changed=[(1, 2), (3, 0)], length=4)), None)
        """
        dirty = self._dirty(text)
        if not dirty:
            return text, None
        table = self._single_characters(text, dirty)
        if table is None:
            return None
        edits = character_edits(text, {chr(code): norm for code, norm in table.items()})
        if edits is not None and not _removals_aligned(edits):
            return None
        return translate(text, table), edits

    def reference_normalize_aligned(self, text: str) -> tuple[str, Alignment | None]:
        """The plain form: every grapheme of the text looked up (tests hold the two equal)."""
        tags: list[tuple[str, int]] = []
        if not self._tags(text, tags):
            return text, None
        return "".join(c for c, _ in tags), walk(tags, len(text))

    def to_json(self) -> dict[str, Any]:
        return {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(self.charsmap.blob).decode("ascii")}


def _removals_aligned(edits: Edits) -> bool:
    """Whether ``walk`` aligns each output character with the one input character it came from:
    a removal adds its count to the tag put out last, which must be a replacing one (the last
    character before the removed ones became one character). Where the text begins with removed
    characters (no tag yet) or they follow a character that grew (its last tag is an inserted one,
    which the count turns into a replacing one), ``walk`` aligns by position instead.

    >>> _removals_aligned(Edits([(1, 0), (2, 0)], 4)), _removals_aligned(Edits([(0, 2), (1, 0)], 2))
    (True, False)
    """
    counts = dict(edits.changed)
    for index, n in edits.changed:
        if n == 0:
            before = index - 1
            while counts.get(before) == 0:
                before -= 1
            if before < 0 or counts.get(before, 1) > 1:
                return False
    return True


_REPLACED_RULES = 24
"""At most this many rules are applied by ``str.replace`` (``translate``)."""


def translate(text: str, table: dict[int, str]) -> str:
    """``text.translate(table)``, by one ``str.replace`` per rule where there are few rules and no
    rewrite holds a character some rule rewrites (then the order of the rules does not matter).
    Why: outside ASCII, CPython's ``translate`` looks every character up in the table (0.2 s for
    400 KB of English with its ``…`` and no-break spaces); a replace is a scan in C.

    >>> translate("a…b\\nc", {ord("…"): "...", ord("\\n"): " "}), translate("ab", {ord("a"): "b", ord("b"): "c"})
    ('a...b c', 'bc')
    """
    if not table:
        return text
    if len(table) > _REPLACED_RULES or not set(map(chr, table)).isdisjoint("".join(table.values())):
        return text.translate(table)
    for code, new in table.items():
        text = text.replace(chr(code), new)
    return text


def _replace(tags: list[tuple[str, int]], old: str, new: str) -> None:
    """HF's tags for ``old`` rewritten as ``new``: all 0, the last ``diff`` inserted (+1) when it
    grew; when it shrank, the count added to the tag put out last (before or in ``new``)."""
    diff = len(new) - len(old)
    tags.extend((c, 0) for c in new)
    if diff > 0:
        for k in range(len(tags) - diff, len(tags)):
            tags[k] = (tags[k][0], 1)
    elif diff < 0 and tags:
        c, change = tags[-1]
        tags[-1] = (c, change + diff)
