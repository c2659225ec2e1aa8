"""Pretokenization: split text into the pieces that BPE then encodes one by one.

Why here: the split decides the ids as much as the merges do, and it must be identical on every
interpreter. The pattern is translated to stdlib ``re`` with pinned Unicode tables (``translate.py``);
astral characters are swapped for BMP stand-ins while matching (``astral.py``) and the pieces are
then cut from the original text by length, so callers never see the stand-ins.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from functools import cache, cached_property, lru_cache
from itertools import accumulate, chain
from typing import Any

from ...errors import UnsupportedPatternError
from .astral import AstralStandIns, NoStandInError
from .translate import UntranslatablePatternError, translate
from .unicode_classes import class_ranges

__all__ = ["Pretokenizer", "compile_cut_finders", "digit_group_of", "has_astral"]



CUT_WINDOW = 4096
"""How far past a target position a block cut is looked for (``Pretokenizer.cut_near``)."""
_ASTRAL = re.compile("[\U00010000-\U0010FFFF]")


def _astral_count(text: str) -> int:
    """How many characters above U+FFFF occur: each takes two UTF-16 units. Encoding is a C loop,
    several times faster than searching for them with a regex."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2 - len(text)


def has_astral(text: str) -> bool:
    """Whether a character above U+FFFF occurs."""
    return _astral_count(text) > 0


def _as_original(text: str, pieces: list[str]) -> list[str] | None:
    """``pieces`` of ``text`` with astral stand-ins (``astral.py``), as pieces of ``text`` itself; None
    if they do not follow each other back to back over the whole text.

    Stand-ins keep lengths, so only the pieces holding an astral character differ: those are cut
    again from ``text`` (in place). Where astral characters are many (a run of emoji), every piece is
    cut again in one C-level pass instead. Cutting them all for one emoji cost a third of the split
    of a 400 kB Chinese text (o200k: 22 ms, of which findall 12).

    >>> _as_original("a\U0001F600 b c d", ["a\u2603", " b", " c", " d"])
    ['a\U0001f600', ' b', ' c', ' d']
    """
    ends = list(accumulate(map(len, pieces)))
    if (ends[-1] if ends else 0) != len(text):
        return None
    if _astral_count(text) * 4 > len(pieces):
        return list(map(text.__getitem__, map(slice, [0, *ends], ends)))
    for match in _ASTRAL.finditer(text):
        i = bisect_right(ends, match.start())
        pieces[i] = text[ends[i - 1] if i else 0 : ends[i]]
    return pieces


@cache
def _safe_cut() -> re.Pattern[str]:
    """Safe cut points (see ``cuttable``), three branches:

    1. after "\\n" preceded by a non-space and followed by a letter;
    2. before a space between two letters (group 1);
    3. after a letter or number followed by a *plain symbol*: a character that is not whitespace,
       letter, number, mark or apostrophe (group 2 holds the letter or number). This is what cuts
       text without spaces: CSV, minified JSON and JS, base64, CJK with its punctuation, log lines.

    Branches 1 and 2 start with their literal character, so ``re`` skips ahead to candidates; branch 3
    is a class test per position, only ever run over a short window. Compiled on first use."""
    letter = translate(r"\p{L}").pattern
    letter_or_number = translate(r"[\p{L}\p{N}]").pattern
    symbol = translate(r"[^\s\p{L}\p{N}\p{M}']").pattern
    return re.compile(
        r"\n(?<=" + translate(r"\S").pattern + r"\n)(?=" + letter + r")"
        r"|( )(?<=" + letter + r" )(?=" + letter + ")"
        r"|(" + letter_or_number + r")(?=" + symbol + ")"
    )


def _in_class(name: str) -> Callable[[str], bool]:
    """A membership test for one character in a named class of the pinned tables, by bisection over
    its ranges: no regex to compile (``_safe_cut`` costs ~20 ms to compile, paid by the first long
    text of every process)."""
    ranges = class_ranges(name)
    starts = [lo for lo, _ in ranges]
    ends = [hi for _, hi in ranges]

    def test(ch: str) -> bool:
        cp = ord(ch)
        i = bisect_right(starts, cp) - 1
        return i >= 0 and cp <= ends[i]

    return test


@cache
def _letter_and_space_tests() -> tuple[Callable[[str], bool], Callable[[str], bool]]:
    return _in_class("L"), _in_class("White_Space")


def _quick_cut(text: str, start: int, limit: int, tries: int = 128) -> int | None:
    """A safe cut by ``_safe_cut``'s first two branches, found with ``str.find`` and table lookups:
    before a space between two letters, or after a newline that follows a non-space and precedes a
    letter (the cut lies in ``[start, limit)``; it may see one character past ``limit`` as the regex
    does). Not always the *first* cut point, which ``blocks`` does not need: any safe cut gives the
    same pieces. None after ``tries`` candidates of each kind (then the regex decides).

    >>> text = "one two\\nthree"
    >>> _quick_cut(text, 1, len(text)), _quick_cut(text, 4, len(text))
    (3, 8)
    """
    is_letter, is_space = _letter_and_space_tests()
    end = min(limit, len(text) - 1)  # both rules read the character after the candidate
    best = None
    pos = start
    for _ in range(tries):
        i = text.find(" ", pos, end)
        if i < 0:
            break
        if is_letter(text[i + 1]):
            if i > 0 and is_letter(text[i - 1]):
                best = i
                break
            pos = i + 1
        else:
            pos = i + 2  # a space at i + 1 follows a non-letter: no cut there either
    pos = max(start - 1, 0)
    stop = min(end, limit - 1) if best is None else best  # the cut, i + 1, must stay under limit
    for _ in range(tries):
        i = text.find("\n", pos, stop)
        if i < 0:
            break
        if i > 0 and not is_space(text[i - 1]) and is_letter(text[i + 1]):
            return i + 1
        pos = i + 1
    return best


@cache
def _non_number() -> re.Pattern[str]:
    return re.compile(translate(r"[^\p{N}]").pattern)


def compile_cut_finders() -> None:
    """Compile now the patterns that finding cuts in long texts compiles on first use. A process
    that is snapshotted (the browser bundle) calls this first: in Pyodide that first use cost a
    page's first long CJK, JSON or base64 text, or its first long count, 143 ms and 39 ms."""
    _safe_cut()
    _non_number()


def _run_start(text: str, floor: int, pos: int) -> int:
    """Where the run of numbers holding ``text[pos]`` begins (``floor`` at the lowest). ASCII digits
    are skipped with ``str.rstrip`` a slice at a time (C speed: a regex class test costs ~1.5 us a
    character, 9 s on a 17 MB line of digits); any other character is tested on its own.

    >>> _run_start("ab12٣45", 0, 6), _run_start("12345", 2, 4)
    (2, 2)
    """
    i = pos
    whole_checked = False
    while i > floor:
        segment = text[max(floor, i - 4096) : i]
        digits = len(segment) - len(segment.rstrip("0123456789"))
        i -= digits
        if digits < len(segment):  # text[i - 1] is no ASCII digit: a number of another script?
            if _non_number().match(text, i - 1):
                return i
            i -= 1
        elif not whole_checked and i > floor:
            # A long run: see at once whether it reaches the floor (a line of digits: one C pass
            # over the block instead of a slice and a strip per 4096 characters).
            whole_checked = True
            rest = text[floor:i]
            if rest.isascii() and rest.isdigit():
                return floor
    return floor


def _digit_cut(text: str, floor: int, start: int, limit: int, group: int) -> int | None:
    """A cut inside a run of numbers (``\\p{N}``) for a pattern whose only alternative that takes them
    is ``\\p{N}{1,group}``: its pieces there are groups of ``group`` counted from the run's start, so
    a cut after a whole group, with a number on both sides, leaves every piece as it was. The run's
    start is looked for back to ``floor`` (the previous cut, from which groups count anew) and no
    further; the cut lies in ``[start, limit)``.

    >>> _digit_cut("ab1234567890", 0, 4, 12, 3), _digit_cut("1234567", 0, 1, 7, 3), _digit_cut("12 4", 0, 1, 4, 3)
    (5, 3, None)
    """
    if start >= limit or start >= len(text) - 1 or _non_number().match(text, start):
        return None
    run_start = _run_start(text, floor, start)
    cut = start + (run_start - start) % group
    if cut == run_start:
        cut += group  # a cut at the run's start is no cut inside it
    if cut >= limit or cut >= len(text) or _non_number().search(text, start, cut + 1):
        return None  # the run ends before (what follows it is for the other rules)
    return cut


def _cut_position(match: re.Match[str]) -> int:
    """Where a ``_safe_cut`` match cuts: before the space, after the letter or number, or after "\\n"."""
    if match.group(1):
        return match.start()
    return match.end()


_GROUPS_OF = {r"\p{N}{1,3}": 3, r"\p{N}{1,3}+": 3, r"\p{N}": 1}


def digit_group_of(pattern: str) -> int | None:
    r"""How a pattern cuts runs of numbers, read off its alternatives: groups of three (``\p{N}{1,3}``:
    cl100k, o200k, Llama 3), one (a lone ``\p{N}``: Qwen), or None when any other alternative may take
    a number (``\p{N}+``: r50k, GPT-2) or none does (no cut inside a run). Numbers inside a negated
    class (``[^\p{L}\p{N}]``) are ones an alternative does not take.

    >>> digit_group_of(r"\p{L}+|\p{N}{1,3}|[^\s\p{L}\p{N}]+"), digit_group_of(r" ?\p{L}+| ?\p{N}+")
    (3, None)
    """
    groups = set()
    for alternative in pattern.split("|"):
        if r"\p{N}" not in re.sub(r"\[\^(?:\\.|[^\]])*\]", "", alternative):
            continue
        if alternative not in _GROUPS_OF:
            return None
        groups.add(_GROUPS_OF[alternative])
    return groups.pop() if len(groups) == 1 else None


class Pretokenizer:
    """Split text by a tokenizer pattern, exactly as tiktoken's engine does.

    >>> Pretokenizer(r"\\p{L}+|\\p{N}{1,3}|\\s+|[^\\s\\p{L}\\p{N}]+").split("abc 12345!")
    ['abc', ' ', '123', '45', '!']
    """

    engine: str
    """``"re"`` (translated, exact) or ``"regex"`` (fallback for untranslatable user patterns)."""

    def __init__(self, pattern: str, *, cuttable: bool = False, dialect: str = "tiktoken", digit_group: int | None = -1) -> None:
        """``cuttable`` declares that the pattern ends a piece, whatever follows, (a) after a newline
        that follows a non-space and precedes a letter, (b) after a letter followed by a space and
        a letter and (c) after a letter or number followed by a plain symbol (not whitespace, letter,
        number, mark or apostrophe). It holds for the OpenAI patterns: in each of them, no alternative
        that can match a letter or number goes on to match such a symbol, and no alternative reads
        past it to decide (tests check it on corpus and generated text). Long texts and streams are
        then pretokenized block by block, cut at such points."""
        self.pattern = pattern
        self.dialect = dialect
        """``"tiktoken"`` (Rust regex reading) or ``"onig"`` (Oniguruma's, for tokenizer.json)."""
        self._cuttable = cuttable
        self.digit_group = digit_group_of(pattern) if digit_group == -1 else digit_group
        """Runs of numbers are cut every this many (``_digit_cut``): 3 for ``\\p{N}{1,3}``, 1 for a
        lone ``\\p{N}``, None where a run is one piece (``\\p{N}+``); read off the pattern."""
        self._regex, self._stand_ins, self.engine = _compile(pattern, dialect)

    @property
    def regex_source(self) -> str | None:
        """The pattern the engine runs (the translation, with classes spelled out), for checks."""
        return getattr(self._regex, "pattern", None)

    @property
    def cuttable(self) -> bool:
        """Whether ``blocks`` may cut long texts (see ``__init__``)."""
        return self._cuttable

    def _matchable(self, text: str) -> str | None:
        """The text to run the pattern on if it differs from ``text`` (astral stand-ins), else None."""
        if self._stand_ins is None or text.isascii() or not has_astral(text):
            return None
        return self._stand_ins.substitute(text)

    def split(self, text: str) -> list[str]:
        """All pieces of ``text`` in order."""
        swapped = self._matchable(text)
        if swapped is None:
            return self._regex.findall(text)
        pieces = _as_original(text, self._regex.findall(swapped))
        if pieces is None:
            # Some text matched no alternative, so pieces are not back to back: cut by span.
            return [text[m.start() : m.end()] for m in self._regex.finditer(swapped)]
        return pieces

    def split_isolated(self, text: str, *, bmp: bool = False) -> list[str] | None:
        """Hugging Face's "isolated" split: the matches and the non-empty text between them, in
        order; None when the caller must walk the matches itself (an empty match, whose handling
        differs between engines, or a pattern with groups).

        Why: a ``Sequence`` of ``Split`` steps (DeepSeek-V3: digits, then CJK runs, then the rest)
        runs each later step on every piece of the one before, and most of those pieces hold text
        that no match covers. Walking ``finditer`` in Python there cost a third of a first pass on
        Chinese; ``split`` finds the same gaps in C (both scan as ``findall`` does). ``bmp``: the
        caller knows the text has no astral character (so no stand-ins), saving the check."""
        if self._regex.groups:
            return None
        swapped = None if bmp else self._matchable(text)
        subject = text if swapped is None else swapped
        matches = self._regex.findall(subject)
        if sum(map(len, matches)) == len(text):  # back to back
            out = [p for p in matches if p] if "" in matches else matches
        elif "" in matches:
            return None
        else:
            gaps = self._regex.split(subject)  # the text around the same (non-empty) matches
            if len(gaps) != len(matches) + 1:  # pragma: no cover - the two scans always agree
                return None
            out = list(filter(None, chain.from_iterable(zip(gaps, matches))))
            if gaps[-1]:
                out.append(gaps[-1])
        if swapped is None:
            return out
        return _as_original(text, out)

    def find_cut(self, text: str, start: int, end: int | None = None) -> int | None:
        """The first safe cut point ``p`` with ``start <= p < end`` (a position where ``text[:p]`` and
        ``text[p:]`` split into exactly the pieces of ``text``), or None. Needs ``cuttable``.

        Characters past ``end`` are not looked at, so a stream may call it on what it has so far: a
        cut whose rule needs to see the next character is simply not found yet, never wrong.

        >>> from bytepair.data.openai import CL100K_PATTERN
        >>> Pretokenizer(CL100K_PATTERN, cuttable=True).find_cut('{"a":1,"b":2}', 3)
        6
        """
        if not self._cuttable:
            return None
        limit = len(text) if end is None else min(end, len(text))
        # endpos = limit + 1: a cut at limit - 1 may need one character of lookahead, which is there.
        match = _safe_cut().search(text, start, min(limit + 1, len(text)))
        if match is None:
            return None
        cut = _cut_position(match)  # >= start: every branch cuts at or after where it matched
        return cut if cut < limit else None

    def cut_near(self, text: str, start: int, end: int | None = None, *, floor: int = 0) -> int | None:
        """A safe cut point in ``[start, end)``, looked for only in the first ``CUT_WINDOW``
        characters from ``start``, or None. Not always the first one (any safe cut gives the same
        pieces); characters past ``end`` are not looked at, as in ``find_cut``.

        Why a window: text without cut points (a run of spaces, digits or one letter) would
        otherwise cost a class test of the regex per character, ~1-2 us each, for every search.
        Inside a run of numbers, where the pattern takes them in groups (``digit_group``), a cut
        falls between two groups counted from the run's start, or from ``floor`` (the previous cut)
        if the run began before it.

        >>> from bytepair.data.openai import CL100K_PATTERN
        >>> splitter = Pretokenizer(CL100K_PATTERN, cuttable=True)
        >>> splitter.cut_near("one two", 0), splitter.cut_near(" " * 10_000 + "a b", 0)
        (3, None)
        """
        if not self._cuttable:
            return None
        limit = start + CUT_WINDOW if end is None else min(end, start + CUT_WINDOW)
        cut = _quick_cut(text, start, limit)
        if cut is None:
            cut = self.find_cut(text, start, limit)
        if cut is None and self.digit_group:
            cut = _digit_cut(text, floor, start, limit, self.digit_group)
        return cut

    def blocks(self, text: str, size: int, *, first: int | None = None) -> Iterator[str]:
        """``text`` in consecutive blocks of about ``size`` characters whose pieces are the pieces of
        ``text`` (cut only where ``cuttable`` allows; otherwise the text is one block). With ``first``,
        blocks start at that size and double up to ``size`` (an early exit then reads little)."""
        if not self._cuttable or len(text) <= (first or size):
            yield text
            return
        start = 0
        target_size = first or size
        while len(text) - start > target_size:
            # Look for a cut only a little past the target, so text without any (a run of spaces,
            # digits) costs one short search, not a scan of everything left. A match cut short by
            # the window end (its lookahead unable to see) is simply not found: never a wrong cut.
            cut = self.cut_near(text, start + target_size, floor=start)
            if cut is None:
                break
            yield text[start:cut]
            start = cut
            target_size = min(size, 2 * target_size)
        yield text[start:]

    def onig_walk(self, text: str, pos: int = 0, previous_end: int = -1) -> Iterator[tuple[int, int]]:
        """The matches from ``pos`` as Oniguruma walks them (HF's ``Split`` and ``NormalizedString``):
        an empty match counts, but not one where the previous match ended, and after an empty match
        the search goes on one character further; the stand-ins are swapped in once."""
        subject = self._matchable(text) or text
        search = self._regex.search
        while pos <= len(text):
            match = search(subject, pos)
            if match is None:
                return
            start, end = match.span()
            if start == end:
                if end != previous_end:
                    yield start, end
                    previous_end = end
                pos = end + 1
            else:
                yield start, end
                previous_end = pos = end

    def bounds(self, text: str, parts: list[str] | None = None) -> tuple[list[str], list[int], list[int]]:
        """Every match of ``text``, its start and its end, in C loops: ``re.split`` by the pattern in
        one group (``parts``: that split, made before by :meth:`split_between`) gives the text
        between matches and the matches in turn, whose running sum of lengths is every start and
        end (``_reference_bounds`` reads ``finditer``'s match objects instead, in twice the time).

        >>> Pretokenizer(r"\\w+").bounds("hi you!")
        (['hi', 'you'], [0, 3], [2, 6])
        """
        swapped = self._matchable(text)
        between = self._between
        if between is None:
            return self._reference_bounds(text)
        if parts is None or swapped is not None:
            parts = between.split(text if swapped is None else swapped)  # text before a match, the match, ..., the rest
        cum = list(accumulate(map(len, parts)))
        starts, ends = cum[:-1:2], cum[1::2]
        if swapped is None:
            return parts[1::2], starts, ends
        return list(map(text.__getitem__, map(slice, starts, ends))), starts, ends

    def split_between(self, text: str) -> list[str] | None:
        """``bounds``' split of ``text`` (its pieces: every second part), or None where it takes none."""
        between = self._between if self._matchable(text) is None else None
        return None if between is None else between.split(text)

    @cached_property
    def _between(self) -> re.Pattern[str] | None:
        """The pattern in one group (``bounds``, ``split_between``), or None where that is not the
        same search (another engine, a pattern of groups, or flags that must lead it); found once
        (``re.compile``'s own cache hashes the pattern: 1 µs a call)."""
        regex = self._regex
        try:
            return None if self.engine != "re" or regex.groups else re.compile("(" + regex.pattern + ")", regex.flags)
        except re.error:
            return None

    def _reference_bounds(self, text: str) -> tuple[list[str], list[int], list[int]]:
        """``bounds`` read off ``finditer``'s match objects."""
        swapped = self._matchable(text)
        matches = list(self._regex.finditer(text if swapped is None else swapped))
        if not matches:
            return [], [], []
        match_type = type(matches[0])  # re's, or the regex package's for a pattern re cannot run
        starts, ends = list(map(match_type.start, matches)), list(map(match_type.end, matches))
        if swapped is None:
            return list(map(match_type.group, matches)), starts, ends
        return list(map(text.__getitem__, map(slice, starts, ends))), starts, ends

    def spans(self, text: str, pos: int = 0) -> Iterator[tuple[int, int]]:
        """Lazily yield ``(start, end)`` of each piece from ``pos`` on (for offsets and early exit)."""
        swapped = self._matchable(text)
        for match in self._regex.finditer(text if swapped is None else swapped, pos):
            yield match.span()


@lru_cache(maxsize=32)
def _compile(pattern: str, dialect: str = "tiktoken") -> tuple[Any, AstralStandIns | None, str]:
    """Compiled matcher, astral stand-ins (or None) and engine name for ``pattern``; cached, since
    encodings often share a pattern and compiling the expanded classes costs tens of milliseconds."""
    try:
        translation = translate(pattern, bmp_only=True, dialect=dialect)
        stand_ins: AstralStandIns | None = None
        try:
            if translation.has_astral_literal:
                raise NoStandInError("the pattern names astral characters")
            stand_ins = AstralStandIns(avoid=translation.literals)
        except NoStandInError:
            translation = translate(pattern, bmp_only=False, dialect=dialect)
        return re.compile(translation.pattern), stand_ins, "re"
    except UntranslatablePatternError as exc:
        return _compile_with_regex_package(pattern, exc), None, "regex"
    except re.error as exc:
        raise UnsupportedPatternError(f"invalid pretokenization pattern {pattern!r}: {exc}") from None


def _compile_with_regex_package(pattern: str, why: UntranslatablePatternError) -> Any:
    try:
        import regex
    except ImportError:
        error = UnsupportedPatternError(
            f"{why}. Without it, use only \\p{{L}}, \\p{{Lu}}, \\p{{Ll}}, \\p{{Lt}}, \\p{{Lm}}, \\p{{Lo}}, "
            "\\p{M}, \\p{N}, \\p{Nd}, \\s, \\d and literal syntax"
        )
        error.missing_package = "regex"  # a valid pattern this runtime cannot run: not a malformed file
        raise error from None
    try:
        return regex.compile(pattern)
    except regex.error as exc:
        raise UnsupportedPatternError(f"invalid pretokenization pattern {pattern!r}: {exc}") from None
