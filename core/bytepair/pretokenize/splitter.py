"""Pretokenization: split text into the pieces that BPE then encodes one by one.

Why here: the split decides the ids as much as the merges do, and it must be identical on every
interpreter. The pattern is translated to stdlib ``re`` with pinned Unicode tables (``translate.py``);
astral characters are swapped for BMP stand-ins while matching (``astral.py``) and the pieces are
then cut from the original text by length, so callers never see the stand-ins.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache, lru_cache
from itertools import accumulate
from typing import Any

from ..errors import UnsupportedPatternError
from .astral import AstralStandIns, NoStandInError
from .translate import UntranslatablePatternError, translate

__all__ = ["Pretokenizer"]



_CUT_WINDOW = 4096


def _has_astral(text: str) -> bool:
    """Whether a character above U+FFFF occurs: each takes two UTF-16 units. Encoding is a C loop,
    several times faster than searching for one with a regex."""
    return len(text.encode("utf-16-le", "surrogatepass")) != 2 * len(text)


@cache
def _safe_cut() -> re.Pattern[str]:
    """Safe cut points (see ``cuttable``): after "\\n" preceded by a non-space and followed by a
    letter, and before a space between two letters (group 1). Each branch starts with its literal
    character, so ``re`` skips ahead to candidates instead of trying every position. Compiled on
    first use."""
    letter = translate(r"\p{L}").pattern
    return re.compile(
        r"\n(?<=" + translate(r"\S").pattern + r"\n)(?=" + letter + r")|( )(?<=" + letter + r" )(?=" + letter + ")"
    )


class Pretokenizer:
    """Split text by a tokenizer pattern, exactly as tiktoken's engine does.

    >>> Pretokenizer(r"\\p{L}+|\\p{N}{1,3}|\\s+|[^\\s\\p{L}\\p{N}]+").split("abc 12345!")
    ['abc', ' ', '123', '45', '!']
    """

    engine: str
    """``"re"`` (translated, exact) or ``"regex"`` (fallback for untranslatable user patterns)."""

    def __init__(self, pattern: str, *, cuttable: bool = False) -> None:
        """``cuttable`` declares that the pattern ends a piece, whatever follows, (a) after a newline
        that follows a non-space and precedes a letter and (b) after a letter followed by a space and
        a letter. It holds for the OpenAI patterns (tests check it on corpus and generated text);
        long texts are then pretokenized block by block, cut at such points."""
        self.pattern = pattern
        self._cuttable = cuttable
        self._regex, self._stand_ins, self.engine = _compile(pattern)

    @property
    def cuttable(self) -> bool:
        """Whether ``blocks`` may cut long texts (see ``__init__``)."""
        return self._cuttable

    def _matchable(self, text: str) -> str | None:
        """The text to run the pattern on if it differs from ``text`` (astral stand-ins), else None."""
        if self._stand_ins is None or text.isascii() or not _has_astral(text):
            return None
        return self._stand_ins.substitute(text)

    def split(self, text: str) -> list[str]:
        """All pieces of ``text`` in order."""
        swapped = self._matchable(text)
        if swapped is None:
            return self._regex.findall(text)
        ends = list(accumulate(map(len, self._regex.findall(swapped))))
        if ends and ends[-1] != len(text):
            # Some text matched no alternative, so pieces are not back to back: cut by span.
            return [text[m.start() : m.end()] for m in self._regex.finditer(swapped)]
        return list(map(text.__getitem__, map(slice, [0, *ends], ends)))

    def blocks(self, text: str, size: int) -> Iterator[str]:
        """``text`` in consecutive blocks of about ``size`` characters whose pieces are the pieces of
        ``text`` (cut only where ``cuttable`` allows; otherwise the text is one block)."""
        if not self._cuttable or len(text) <= size:
            yield text
            return
        start = 0
        while len(text) - start > size:
            # Look for a cut only a little past the target, so text without any (a run of spaces,
            # digits) costs one short search, not a scan of everything left. A match cut short by
            # the window end (its lookahead unable to see) is simply not found: never a wrong cut.
            target = start + size
            match = _safe_cut().search(text, target, target + _CUT_WINDOW)
            if match is None:
                break
            cut = match.start() if match.group(1) else match.end()
            yield text[start:cut]
            start = cut
        yield text[start:]

    def spans(self, text: str, pos: int = 0) -> Iterator[tuple[int, int]]:
        """Lazily yield ``(start, end)`` of each piece from ``pos`` on (for offsets and early exit)."""
        swapped = self._matchable(text)
        for match in self._regex.finditer(text if swapped is None else swapped, pos):
            yield match.span()


@lru_cache(maxsize=32)
def _compile(pattern: str) -> tuple[Any, AstralStandIns | None, str]:
    """Compiled matcher, astral stand-ins (or None) and engine name for ``pattern``; cached, since
    encodings often share a pattern and compiling the expanded classes costs tens of milliseconds."""
    try:
        translation = translate(pattern, bmp_only=True)
        stand_ins: AstralStandIns | None = None
        try:
            if translation.has_astral_literal:
                raise NoStandInError("the pattern names astral characters")
            stand_ins = AstralStandIns(avoid=translation.literals)
        except NoStandInError:
            translation = translate(pattern, bmp_only=False)
        return re.compile(translation.pattern), stand_ins, "re"
    except UntranslatablePatternError as exc:
        return _compile_with_regex_package(pattern, exc), None, "regex"
    except re.error as exc:
        raise UnsupportedPatternError(f"invalid pretokenization pattern {pattern!r}: {exc}") from None


def _compile_with_regex_package(pattern: str, why: UntranslatablePatternError) -> Any:
    try:
        import regex
    except ImportError:
        raise UnsupportedPatternError(
            f"{why}. Without it, use only \\p{{L}}, \\p{{Lu}}, \\p{{Ll}}, \\p{{Lt}}, \\p{{Lm}}, \\p{{Lo}}, "
            "\\p{M}, \\p{N}, \\p{Nd}, \\s, \\d and literal syntax"
        ) from None
    try:
        return regex.compile(pattern)
    except regex.error as exc:
        raise UnsupportedPatternError(f"invalid pretokenization pattern {pattern!r}: {exc}") from None
