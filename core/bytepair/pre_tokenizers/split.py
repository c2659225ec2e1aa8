"""Splitting at the matches of a string or a regex (HF's ``Split``), and the splitters defined by one
(``Digits``, ``Punctuation``, ``Whitespace``, ``WhitespaceSplit``).

Regex patterns run on stdlib ``re`` through the same translation as tiktoken's patterns, read as
Oniguruma reads them (``dialect="onig"``: HF runs ``Split`` on Oniguruma), with the pinned Unicode
tables (``pattern/``).

>>> Split("-", "merged_with_previous").split("a-b--c")
['a-', 'b-', '-', 'c']
>>> Split(Regex("-+"), "removed").split("a-b--c")
['a', 'b', 'c']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from ..bulk import LastText
from ..errors import VocabFormatError
from ..formats.component_json import Regex, pattern_argument
from .base import BEHAVIOR_JSON, Piece, PreTokenizer, apply_behavior, behavior_key
from .bert_punctuation import punctuation_class
from .pattern import Pretokenizer
from .pattern.safety import check_length, check_pattern

__all__ = ["Digits", "Punctuation", "Split", "Whitespace", "WhitespaceSplit"]


class Split(PreTokenizer):
    """Cut at the matches of a string or regex; ``behavior`` says where matches go; ``invert`` swaps
    the roles of matches and the text between them. As in HF, a ``str`` pattern is literal text and a
    :class:`~bytepair.Regex` a regex (``is_regex=True`` reads a ``str`` as a regex too)."""

    remember_pieces = False
    """Whether ``split`` finds a long text's pieces with the text between them and keeps them
    (``bulk.LastText``) for ``bounds``, the fields' pass over the same text: where the first pass
    is long (BERT's normalizer and WordPiece) that costs it about 1% and saves the fields' pass a
    scan; a Whitespace first pass it would slow by 10%."""

    def __init__(self, pattern: str | Regex, behavior: str = "isolated", invert: bool = False, *,
                 is_regex: bool | None = None, dialect: str = "onig") -> None:
        """``dialect="tiktoken"`` reads the regex as tiktoken's engine does (for ``Tokenizer.from_encoding``)."""
        pattern, is_regex = pattern_argument(pattern, is_regex)
        self.pattern = pattern
        self.behavior = behavior_key(behavior)
        self.invert = invert
        self.is_regex = is_regex
        self._empty_matches = False
        """Whether the regex was seen to match the empty string: its matches are then walked as
        Oniguruma walks them (``_regex_spans``), never by the fast paths of ``split``."""
        if is_regex:
            if dialect == "onig":  # a file's pattern: a stranger's, checked before and after compiling
                check_length(pattern, "the Split pattern")
            self._pretokenizer: Pretokenizer | None = Pretokenizer(pattern, dialect=dialect)
            if dialect == "onig":
                check_pattern(pattern, "the Split pattern", self._pretokenizer.regex_source)
            self._empty_matches = any(
                start == end for sample in ("", "a", "A1", " ", "\n", "aA1 \n-_.") for start, end in self._pretokenizer.spans(sample))
        else:
            if not pattern:
                raise VocabFormatError("a Split pre-tokenizer needs a non-empty string pattern")
            self._pretokenizer = None
        self._keeps_matches_only = (self._pretokenizer is not None and not self._empty_matches
                                    and not re.compile(self._pretokenizer.regex_source).groups)
        """Whether ``findall`` gives the pieces of a "removed" + ``invert`` split (no empty match, no group)."""
        self._last: LastText[list[str]] = LastText()
        """``split``'s last long text and its parts (``remember_pieces``), for ``bounds``."""

    def _match_spans(self, text: str) -> Iterable[tuple[int, int]]:
        if self._pretokenizer is not None:
            return self._regex_spans(text)
        found, pos, n = [], 0, len(self.pattern)
        while (i := text.find(self.pattern, pos)) >= 0:
            found.append((i, i + n))
            pos = i + n
        return found

    def _regex_spans(self, text: str) -> Iterator[tuple[int, int]]:
        """The matches as Oniguruma finds them. They are ``re``'s until the first empty match; from
        there the two walk differently: an empty match cuts the text too (HF keeps it), but not one
        right where the previous match ended, and after an empty match Oniguruma searches again one
        character on, where ``re`` may still find a longer match at the same place."""
        assert self._pretokenizer is not None
        previous_end = -1
        for start, end in self._pretokenizer.spans(text):
            if start == end:
                yield from self._onig_spans(text, start, previous_end)
                return
            previous_end = end
            yield start, end

    def _onig_spans(self, text: str, pos: int, previous_end: int) -> Iterator[tuple[int, int]]:
        """Oniguruma's walk from ``pos``, one search at a time (patterns that match nothing only)."""
        assert self._pretokenizer is not None
        yield from self._pretokenizer.onig_walk(text, pos, previous_end)

    def matches(self, text: str) -> list[tuple[int, int]]:
        """The ``(start, end)`` of each match in ``text``, as HF finds them (Oniguruma's walk for a
        regex, empty matches included; a string's non-overlapping occurrences), for other stages
        that rewrite matches (the ``Replace`` decoder).

        >>> Split(Regex("x*"), "isolated").matches("axb")
        [(0, 0), (1, 2), (3, 3)]
        """
        return list(self._match_spans(text))

    def _cuts(self, text: str) -> list[tuple[int, int]]:
        if self._keeps_matches_only and self.behavior == "removed" and self.invert:  # the matches are the pieces
            spans = list(self._match_spans(text))
            if all(e > s for s, e in spans):  # (an empty match, which the samples missed, walks below)
                return spans
        marked: list[tuple[int, int, bool]] = []
        prev = 0
        for start, end in self._match_spans(text):
            if start > prev:
                marked.append((prev, start, self.invert))
            marked.append((start, end, not self.invert))
            prev = end
        if prev < len(text):
            marked.append((prev, len(text), self.invert))
        return apply_behavior(marked, self.behavior)

    def split(self, text: str, *, bmp: bool = False) -> list[str]:
        """The pieces of ``text``; ``bmp``: the caller knows it has no astral character."""
        if self.behavior == "isolated" and not self.invert and self._pretokenizer is not None and not self._empty_matches:
            pieces = self._pretokenizer.split_isolated(text, bmp=bmp)
            if pieces is not None:
                return pieces
            pieces = self._pretokenizer.split(text)
            if sum(map(len, pieces)) == len(text):  # no text between matches: the pieces are all
                return [p for p in pieces if p] if "" in pieces else pieces
        elif self.behavior == "removed" and self.invert and self._keeps_matches_only:
            parts = self._pretokenizer.split_between(text) if (  # type: ignore[union-attr]
                self.remember_pieces and len(text) >= self._last.min_chars) else None
            if parts is not None:  # (the pieces with the text between them, kept for bounds)
                self._last.keep(text, parts)
            pieces = parts[1::2] if parts is not None else self._pretokenizer.split(text)  # type: ignore[union-attr]
            if "" not in pieces:
                return pieces
        return [text[s:e] for s, e in self._cuts(text)]

    def _reference_split(self, text: str) -> list[str]:
        """``split`` by walking the matches (for tests)."""
        return [text[s:e] for s, e in self._cuts(text)]

    def spans(self, text: str) -> list[Piece]:
        return [(text[s:e], s, e) for s, e in self._cuts(text)]

    def bounds(self, text: str) -> tuple[list[str], list[int], list[int]]:
        if self.behavior == "removed" and self.invert and self._keeps_matches_only:
            found = self._pretokenizer.bounds(text, self._last.get(text))  # type: ignore[union-attr]  # in C
            if "" not in found[0]:  # (an empty match, which the samples missed, walks as spans)
                return found
        return super().bounds(text)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "Split",
            "pattern": {"Regex" if self.is_regex else "String": self.pattern},
            "behavior": BEHAVIOR_JSON[self.behavior],
            "invert": self.invert,
        }


class Digits(Split):
    """Numbers apart from the rest: each digit alone (``individual_digits``) or runs of digits."""

    def __init__(self, individual_digits: bool = False) -> None:
        self.individual_digits = individual_digits
        super().__init__(r"\p{N}" if individual_digits else r"\p{N}+", "isolated", is_regex=True)

    def to_json(self) -> dict[str, Any]:
        return {"type": "Digits", "individual_digits": self.individual_digits}


class Punctuation(Split):
    """Punctuation characters (ASCII punctuation and Unicode P* as HF's tables have them:
    ``bert_punctuation.py``) cut out, as ``behavior`` says."""

    def __init__(self, behavior: str = "isolated") -> None:
        super().__init__(f"[{punctuation_class()}]", behavior, is_regex=True)

    def to_json(self) -> dict[str, Any]:
        return {"type": "Punctuation", "behavior": BEHAVIOR_JSON[self.behavior]}


class Whitespace(Split):
    """Words and runs of other non-space characters; whitespace is dropped (``\\w+|[^\\w\\s]+``)."""

    def __init__(self) -> None:
        # \w as Rust's regex reads it: letters, marks, decimal digits, connector punctuation.
        word = r"[\p{L}\p{M}\p{Nd}_\u203F\u2040\u2054\uFE33\uFE34\uFE4D-\uFE4F\uFF3F\u200C\u200D]"
        super().__init__(word + r"+|[^" + word[1:-1] + r"\s]+", "removed", invert=True, is_regex=True)

    def to_json(self) -> dict[str, Any]:
        return {"type": "Whitespace"}


class WhitespaceSplit(Split):
    """Runs of non-whitespace; whitespace is dropped."""

    def __init__(self) -> None:
        super().__init__(r"\s+", "removed", is_regex=True)

    def to_json(self) -> dict[str, Any]:
        return {"type": "WhitespaceSplit"}
