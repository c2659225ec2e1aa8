"""HF's ``NormalizedString``: a text being rewritten that remembers where each of its characters came from.

Why it exists: HF code plugs its own components in (``normalizers.Normalizer.custom(obj)``,
``pre_tokenizers.PreTokenizer.custom(obj)``), and those edit a ``NormalizedString`` in place (``nfd()``,
``replace(...)``, ``lowercase()`` ...) or cut it (``split``, ``ns[a:b]``). Each method here does what
HF 0.23.3's does, alignment included, so the offsets of a tokenizer with such a component come out as
HF's: every normalized character carries the ``(start, end)`` bytes of the original it stands for,
and every edit goes through :meth:`NormalizedString._transform_range`, HF's ``transform_range`` (a new
character takes the alignment of the one it replaces, an inserted one that of the character before
it). HF counts in UTF-8 bytes in a few places where it means characters (``ns[-1]`` counts from the
byte length; a slice's bounds are clamped to it); those are kept, so that the same calls give the same
strings. It lives with the pre-tokenizers, below the normalizers, because both stages hand it out.

>>> ns = NormalizedString("Héllo  wörld")
>>> ns.nfd(); ns.replace(" ", "_"); ns.lowercase()
>>> ns
NormalizedString(original="Héllo  wörld", normalized="he\u0301llo__wo\u0308rld")
>>> [(str(part), part.original) for part in ns.split("_", "removed")]
[('he\u0301llo', 'Héllo'), ('wo\u0308rld', 'wörld')]
>>> ns[1:3]
NormalizedString(original="é", normalized="e\u0301")
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from ..errors import InvalidArgumentError, InvalidInputError
from ..formats.component_json import Regex
from ..text.normal_forms import normal_form_aligned
from .pattern import Pretokenizer
from .pattern.safety import check_length, check_pattern

__all__ = ["BEHAVIORS", "NormalizedString", "find_matches", "utf8_length"]

Span = tuple[int, int]
BEHAVIORS = ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous")
"""HF's ``SplitDelimiterBehavior`` names (``split`` here, and the ``Split`` pre-tokenizer's)."""


def utf8_length(text: str) -> int:
    """Bytes of ``text`` in UTF-8 (HF's ``str::len``)."""
    return len(text.encode("utf-8", "surrogatepass"))


def _is_whitespace(ch: str) -> bool:
    """Rust's ``char::is_whitespace`` (Unicode's White_Space): ``str.isspace`` but U+001C..U+001F."""
    return ch.isspace() and not "\x1c" <= ch <= "\x1f"


@lru_cache(maxsize=64)
def _searcher_of(pattern: str) -> Pretokenizer:
    check_length(pattern, "the pattern")
    compiled = Pretokenizer(pattern, dialect="onig")
    check_pattern(pattern, "the pattern", compiled.regex_source)
    return compiled


def _regex_matches(pattern: str, text: str) -> list[tuple[int, int]]:
    """The matches of ``pattern`` in ``text`` as Oniguruma walks them (as the ``Split``
    pre-tokenizer's ``matches``)."""
    return list(_searcher_of(pattern).onig_walk(text))


def _literal_matches(pattern: str, text: str) -> list[tuple[int, int]]:
    found, pos, n = [], 0, len(pattern)
    while (i := text.find(pattern, pos)) >= 0:
        found.append((i, i + n))
        pos = i + n
    return found


def find_matches(pattern: str | Regex, text: str) -> list[tuple[int, int, bool]]:
    """HF's ``Pattern::find_matches`` in characters: ``(start, end, is_match)`` covering ``text`` in
    order (a ``str`` is literal text, a :class:`~bytepair.Regex` an Oniguruma regex).

    >>> find_matches("-", "a-b"), find_matches(Regex("x*"), "ab")
    ([(0, 1, False), (1, 2, True), (2, 3, False)], [(0, 0, True), (0, 1, False), (1, 1, True), (1, 2, False), (2, 2, True)])
    """
    if isinstance(pattern, Regex):
        source, is_regex = pattern.pattern, True
    elif isinstance(pattern, str):
        source, is_regex = pattern, False
    else:
        raise InvalidInputError(f"a pattern is a str or a bytepair.Regex, not {type(pattern).__name__}")
    if not is_regex and not source:
        # HF: an empty string matches nothing, and the whole is given as (0, number of characters)
        # in bytes; read back here as characters where that count falls on one's boundary.
        return [(0, _char_at_byte(text, len(text)), False)]
    if not text:
        return [(0, 0, False)]
    out: list[tuple[int, int, bool]] = []
    previous = 0
    for start, end in (_regex_matches if is_regex else _literal_matches)(source, text):
        if previous != start:
            out.append((previous, start, False))
        out.append((start, end, True))
        previous = end
    if previous != len(text):
        out.append((previous, len(text), False))
    return out


def _char_at_byte(text: str, byte: int) -> int:
    """The character index at UTF-8 byte ``byte`` of ``text`` (HF would panic off a boundary)."""
    at = 0
    for i, ch in enumerate(text):
        if at == byte:
            return i
        at += utf8_length(ch)
        if at > byte:
            raise InvalidInputError(f"byte {byte} is inside a character of {text!r:.40}; HF panics here")
    return len(text)


class NormalizedString:
    """HF's ``tokenizers.NormalizedString``: ``normalized`` (the text now) and ``original`` (the text
    given), aligned character by character through every edit."""

    __slots__ = ("_original", "_normalized", "_align", "_shift")

    def __init__(self, sequence: str) -> None:
        if not isinstance(sequence, str):
            raise InvalidInputError(f"NormalizedString takes a str, not {type(sequence).__name__}")
        self._original = sequence
        self._normalized = sequence
        self._align: list[Span] = []
        at = 0
        for ch in sequence:
            n = utf8_length(ch)
            self._align.append((at, at + n))
            at += n
        self._shift = 0
        """Bytes of a larger original before this one's, where it is a slice of it."""

    @classmethod
    def _of(cls, original: str, normalized: str, align: list[Span], shift: int) -> NormalizedString:
        made = cls.__new__(cls)
        made._original, made._normalized, made._align, made._shift = original, normalized, align, shift
        return made

    # ------------------------------------------------------------------ reading
    @property
    def normalized(self) -> str:
        """The normalized part of the string."""
        return self._normalized

    @property
    def original(self) -> str:
        return self._original

    def __str__(self) -> str:
        return self._normalized

    def __repr__(self) -> str:
        return f'NormalizedString(original="{self._original}", normalized="{self._normalized}")'

    def __len__(self) -> int:
        """Characters of the normalized string (an addition: HF's has no ``len``)."""
        return len(self._normalized)

    def __bool__(self) -> bool:
        """Always true, even empty, as HF's (which has no ``len``): ``if ns[a:b]:`` tests for None."""
        return True

    def offsets_original(self) -> Span:
        """Where the original of this string is, in bytes of the whole it was sliced from (HF's)."""
        return self._shift, self._shift + utf8_length(self._original)

    def byte_alignment(self) -> list[Span]:
        """For each normalized character, the ``(start, end)`` bytes of ``original`` it comes from."""
        return list(self._align)

    def char_alignment(self) -> list[Span]:
        """For each normalized character, the ``(start, end)`` characters of ``original`` it comes from
        (the form ``normalize_aligned`` returns)."""
        char_of: dict[int, int] = {}
        at = 0
        for i, ch in enumerate(self._original):
            char_of[at] = i
            at += utf8_length(ch)
        char_of[at] = len(self._original)

        def char(byte: int) -> int:
            while byte > 0 and byte not in char_of:
                byte -= 1
            return char_of.get(byte, 0)
        return [(char(s), char(e)) for s, e in self._align]

    # ------------------------------------------------------------------ HF's transform
    def _transform_range(self, start: int, end: int, dest: Iterable[tuple[str, int]], initial_offset: int) -> None:
        """HF's ``transform_range`` on normalized characters ``[start, end)``: ``dest`` gives each new
        character with its change (0: replaces the next old one; +1: inserted; -n: replaces the next
        and removes n more); ``initial_offset`` old characters are removed first."""
        old = self._align
        replaced = end - start
        used = min(initial_offset, replaced)
        offset = start + used
        chars: list[str] = []
        aligns: list[Span] = []
        for ch, change in dest:
            if change > 0:
                align = (0, 0) if offset < 1 else old[offset - 1]
            else:
                if offset >= len(old):
                    raise InvalidInputError("this edit reaches past the end of the normalized string (HF panics here)")
                align = old[offset]
            if change <= 0 and used < replaced:
                used += 1
                offset += 1
            if change < 0:
                removed = min(-change, replaced - used)
                used += removed
                offset += removed
            chars.append(ch)
            aligns.append(align)
        self._normalized = self._normalized[:start] + "".join(chars) + self._normalized[end:]
        self._align = old[:start] + aligns + old[end:]

    def _whole_range(self) -> Span | None:
        """HF's ``convert_offsets(Range::Original(..))``: the normalized characters the whole original
        maps to (those before the first one with a non-empty alignment are left out, as in HF)."""
        total = utf8_length(self._original)
        if total == 0:
            return 0, 0
        first: int | None = None
        last: int | None = None
        for i, (s, e) in enumerate(self._align):
            if total < e:
                break
            if first is None and s != e:
                first = i
            last = i + 1
        if first is not None:
            return (first, last) if last is not None else (first, first)
        return (last, last) if last is not None else None

    def _transform(self, dest: Iterable[tuple[str, int]], initial_offset: int) -> None:
        found = self._whole_range()
        if found is not None:
            self._transform_range(found[0], found[1], dest, initial_offset)

    # ------------------------------------------------------------------ edits
    def _normal_form(self, form: str) -> None:
        text, align = normal_form_aligned(form, self._normalized)
        if align is None:
            dest = [(ch, 0) for ch in text]
        else:  # each character's change, read back from which input character it aligns with
            replacing: list[int] = []
            for k, (s, e) in enumerate(align):  # an inserted one aligns with the last replaced one
                if e > s and (not replacing or s > align[replacing[-1]][0]):
                    replacing.append(k)
            starts = [align[k][0] for k in replacing] + [len(self._normalized)]
            change = {k: -(starts[j + 1] - starts[j] - 1) for j, k in enumerate(replacing)}
            dest = [(ch, change.get(k, 1)) for k, ch in enumerate(text)]
        self._transform(dest, 0)

    def nfd(self) -> None:
        """Runs the NFD normalization."""
        self._normal_form("NFD")

    def nfkd(self) -> None:
        """Runs the NFKD normalization."""
        self._normal_form("NFKD")

    def nfc(self) -> None:
        """Runs the NFC normalization."""
        self._normal_form("NFC")

    def nfkc(self) -> None:
        """Runs the NFKC normalization."""
        self._normal_form("NFKC")

    def _case(self, mapping: Callable[[str], str]) -> None:
        self._transform([(c, 1 if i else 0) for ch in self._normalized for i, c in enumerate(mapping(ch))], 0)

    def lowercase(self) -> None:
        """Lowercase the string (each character on its own, as Rust's ``char::to_lowercase``)."""
        self._case(str.lower)

    def uppercase(self) -> None:
        """Uppercase the string."""
        self._case(str.upper)

    def filter(self, func: Callable[[str], bool]) -> None:
        """Keep the characters for which ``func(char)`` is True."""
        if not callable(func):
            raise InvalidInputError("`filter` expects a callable with the signature `fn(char) -> bool`")
        removed = 0
        kept: list[tuple[str, int]] = []
        for ch in reversed(self._normalized):
            keep = func(ch)
            if not isinstance(keep, bool):
                raise InvalidInputError(f"the filter function must return a bool, not {type(keep).__name__}")
            if keep:
                kept.append((ch, -removed))
                removed = 0
            else:
                removed += 1
        kept.reverse()
        self._transform(kept, removed)

    def map(self, func: Callable[[str], str]) -> None:
        """Replace each character by ``func(char)`` (its first character, as HF takes it)."""
        if not callable(func):
            raise InvalidInputError("`map` expects a callable with the signature `fn(char) -> char`")
        dest = []
        for ch in self._normalized:
            out = func(ch)
            if not isinstance(out, str) or not out:
                raise InvalidInputError(f"the map function must return a character (a str of length 1), not {out!r:.40}")
            dest.append((out[0], 0))
        self._transform(dest, 0)

    def for_each(self, func: Callable[[str], Any]) -> None:
        """Call ``func(char)`` for each character."""
        if not callable(func):
            raise InvalidInputError("`for_each` expects a callable with the signature `fn(char)`")
        for ch in self._normalized:
            func(ch)

    def prepend(self, s: str) -> None:
        """Put ``s`` in front (aligned with the first character; nothing on an empty string, as in HF)."""
        if self._normalized:
            dest = [(c, 1 if i else 0) for i, c in enumerate(s)] + [(self._normalized[0], 1)]
            self._transform_range(0, 1, dest, 0)

    def append(self, s: str) -> None:
        """Put ``s`` at the end (aligned with the last character; with ``(0, 0)`` on an empty string)."""
        n = len(self._normalized)
        if n:
            self._transform_range(n - 1, n, [(self._normalized[-1], 0)] + [(c, 1) for c in s], 0)
        else:
            self._transform_range(0, 0, [(c, 1) for c in s], 0)

    def replace(self, pattern: str | Regex, content: str) -> None:
        """Replace each match of ``pattern`` (a ``str``, or a :class:`~bytepair.Regex`) by ``content``;
        its characters align with the match's last one."""
        offset = 0
        for start, end, is_match in find_matches(pattern, self._normalized):
            if is_match:
                s, e = max(0, start + offset), max(0, end + offset)
                self._transform_range(s, e, [(c, 1) for c in content], e - s)
                offset += len(content) - (end - start)

    def clear(self) -> None:
        """Clears the string."""
        self._transform([], utf8_length(self._normalized))

    def _strip(self, left: bool, right: bool) -> None:
        text = self._normalized
        leading = next((i for i, ch in enumerate(text) if not _is_whitespace(ch)), len(text)) if left else 0
        trailing = next((i for i, ch in enumerate(reversed(text)) if not _is_whitespace(ch)), len(text)) if right else 0
        if leading or trailing:
            self._transform([(ch, 0) for ch in text[leading:max(leading, len(text) - trailing)]], leading)

    def strip(self) -> None:
        """Strip both ends of the string."""
        self._strip(True, True)

    def lstrip(self) -> None:
        """Strip the left of the string."""
        self._strip(True, False)

    def rstrip(self) -> None:
        """Strip the right of the string."""
        self._strip(False, True)

    # ------------------------------------------------------------------ cutting
    def _slice(self, start: int, end: int) -> NormalizedString | None:
        """HF's ``slice(Range::Normalized(..))`` over normalized characters ``[start, end)``."""
        if start == end:  # HF: an empty range is itself, in bytes of the normalized, on the original
            at = utf8_length(self._normalized[:start])
            original_range = (at, at)
        elif start > end or end > len(self._align):
            return None
        else:
            original_range = (self._align[start][0], self._align[end - 1][1])
        s, e = original_range
        whole = self._original.encode("utf-8", "surrogatepass")
        try:
            original = whole[s:e].decode("utf-8", "surrogatepass") if 0 <= s <= e <= len(whole) else ""
        except UnicodeDecodeError:
            original = ""
        align = [(a - s, b - s) for a, b in self._align[start:end]]
        return NormalizedString._of(original, self._normalized[start:end], align, self._shift + s)

    def slice(self, range: int | tuple[int, int] | slice) -> NormalizedString | None:  # noqa: A002 - HF's name
        """HF's ``slice``: the part of the normalized string at ``range`` (an index, a ``(start, end)``
        pair or a ``slice``, in characters), with its original; None where HF gives None."""
        limit = utf8_length(self._normalized)  # (HF's bound: the length in bytes)
        if isinstance(range, bool) or not isinstance(range, (int, tuple, slice)):
            raise InvalidInputError(f"a NormalizedString is sliced by an int, a (start, end) pair or a slice, not {type(range).__name__}")
        if isinstance(range, int):
            if range < 0:
                if -range > limit:
                    raise InvalidArgumentError(f"{-range} is bigger than max len")
                start, end = limit + range, limit + range + 1
            else:
                start, end = range, range + 1
        elif isinstance(range, tuple):
            if len(range) != 2 or not all(isinstance(i, int) and i >= 0 for i in range):
                raise InvalidInputError(f"a range is a pair of non-negative ints, not {range!r}")
            start, end = range
        else:
            start, end, _ = range.indices(limit)  # (the step is not used; HF reads -1 as unsigned)
            start, end = (i if i >= 0 else sys.maxsize for i in (start, end))
        n = len(self._normalized)
        if start == end:  # HF's char_to_bytes: the character there, or nothing
            return self._slice(start, start) if start < n or start == 0 else None
        if start >= n:
            return None
        return self._slice(start, n if end < start else min(end, n))

    def __getitem__(self, range: int | tuple[int, int] | slice) -> NormalizedString | None:  # noqa: A002
        return self.slice(range)

    def split(self, pattern: str | Regex, behavior: str) -> list[NormalizedString]:
        """Cut at the matches of ``pattern``; ``behavior`` (HF's names: "removed", "isolated",
        "merged_with_previous", "merged_with_next", "contiguous") says where the matches go."""
        if behavior not in BEHAVIORS:
            raise InvalidArgumentError("Wrong value for SplitDelimiterBehavior, expected one of: "
                                       "`removed, isolated, merged_with_previous, merged_with_next, contiguous`")
        matches = find_matches(pattern, self._normalized)
        cuts: list[list[Any]] = []
        if behavior == "isolated":
            cuts = [[s, e, False] for s, e, _ in matches]
        elif behavior == "removed":
            cuts = [[s, e, m] for s, e, m in matches]
        elif behavior == "contiguous" or behavior == "merged_with_previous":
            previous = False
            for s, e, m in matches:
                joins = (m == previous) if behavior == "contiguous" else (m and not previous)
                if joins and cuts:
                    cuts[-1][1] = e
                else:
                    cuts.append([s, e, False])
                previous = m
        else:
            previous = False
            for s, e, m in reversed(matches):
                if m and not previous and cuts:
                    cuts[-1][0] = s
                else:
                    cuts.append([s, e, False])
                previous = m
            cuts.reverse()
        out = []
        for s, e, removed in cuts:
            if not removed:
                part = self._slice(s, e)
                if part is None:  # pragma: no cover - HF: "NormalizedString bad split"
                    raise InvalidInputError("NormalizedString bad split")
                out.append(part)
        return out
