"""Pre-tokenizers of ``tokenizer.json`` files: how normalized text is cut into the pieces BPE sees.

Why a module per stage kind: a reader looking for HF's ``Split`` or ``Metaspace`` finds it here, built
from its JSON by :func:`pre_tokenizer_from_json`, the one factory of this stage. Every component
offers the same two methods:

* ``split(text) -> list[str]``: the pieces, fast (this is the path ids take);
* ``spans(text) -> list[(piece, start, end)]``: each piece with the ``[start, end)`` characters of
  ``text`` it comes from (offsets). A piece may differ from its span's text where the component
  rewrites it (Metaspace turns spaces into "▁"; ByteLevel may add a space in front).

Regex patterns run on stdlib ``re`` through the same translation as tiktoken's patterns, read as
Oniguruma reads them (``dialect="onig"``: HF runs ``Split`` on Oniguruma), with the pinned Unicode
tables. ByteLevel's byte-to-character mapping is not done here: the BPE model reads the piece's
UTF-8 bytes directly (``models/bpe/merges_model.py``).

>>> pre = pre_tokenizer_from_json({"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithPrevious"})
>>> pre.split("a-b--c")
['a-', 'b-', '-', 'c']
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..formats.component_json import build
from ..formats.component_json import pattern as pattern_of
from ..errors import VocabFormatError
from .pattern import Pretokenizer
from .pattern.splitter import _has_astral

__all__ = [
    "GPT2_PATTERN",
    "ByteLevel",
    "Digits",
    "Metaspace",
    "PreTokenizer",
    "Punctuation",
    "Sequence",
    "Split",
    "Whitespace",
    "WhitespaceSplit",
    "pre_tokenizer_from_json",
]

Piece = tuple[str, int, int]

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
"""The pattern ByteLevel splits with when ``use_regex`` is on (GPT-2's)."""

BEHAVIORS = ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous")


class PreTokenizer:
    """Base: ``split`` and ``spans`` of one text; subclasses implement ``spans`` (and may speed up ``split``)."""

    byte_level = False
    """True for ByteLevel (and a Sequence holding it): the model then reads pieces as bytes."""

    @property
    def splits_nothing(self) -> bool:
        """Whether ``split`` returns a non-empty text unchanged as its one piece (and nothing for
        an empty one): a ``Sequence`` then only drops empty pieces instead of calling the step on
        each (a call per piece cost ~10% of a first pass on Chinese with Llama 3)."""
        return False

    def spans(self, text: str) -> list[Piece]:
        raise NotImplementedError

    def split(self, text: str) -> list[str]:
        return [piece for piece, _, _ in self.spans(text)]

    def pre_tokenize_str(self, text: str) -> list[tuple[str, tuple[int, int]]]:
        """HF's ``pre_tokenize_str``: each piece with its ``(start, end)`` characters, in the form the
        model reads it (a byte-level step's pieces in GPT-2's visible characters, as HF shows them).

        >>> pre_tokenizer_from_json({"type": "ByteLevel", "add_prefix_space": False}).pre_tokenize_str("Hi wörld")
        [('Hi', (0, 2)), ('ĠwÃ¶rld', (2, 8))]
        """
        from ..text.byte_unicode import bytes_to_visible

        return [(bytes_to_visible(piece.encode("utf-8", "surrogatepass")) if self.byte_level else piece, (start, end))
                for piece, start, end in self.spans(text)]

    def to_json(self) -> dict[str, Any]:
        raise NotImplementedError


# ---------------------------------------------------------------- splitting by a pattern


def _apply_behavior(matches: list[tuple[int, int, bool]], behavior: str) -> list[tuple[int, int]]:
    """HF's delimiter behaviours over ``(start, end, is_match)`` spans covering the text in order.

    >>> _apply_behavior([(0, 1, False), (1, 2, True), (2, 3, True), (3, 4, False)], "merged_with_next")
    [(0, 1), (1, 2), (2, 4)]
    """
    out: list[list[int]] = []
    if behavior == "isolated":
        out = [[s, e] for s, e, _ in matches]
    elif behavior == "removed":
        out = [[s, e] for s, e, is_match in matches if not is_match]
    elif behavior == "merged_with_previous":
        previous_match = False
        for s, e, is_match in matches:
            if is_match and not previous_match and out:
                out[-1][1] = e
            else:
                out.append([s, e])
            previous_match = is_match
    elif behavior == "merged_with_next":
        previous_match = False
        for s, e, is_match in reversed(matches):
            if is_match and not previous_match and out:
                out[-1][0] = s
            else:
                out.append([s, e])
            previous_match = is_match
        out.reverse()
    elif behavior == "contiguous":
        previous: bool | None = None
        for s, e, is_match in matches:
            if is_match == previous and out:
                out[-1][1] = e
            else:
                out.append([s, e])
            previous = is_match
    return [(s, e) for s, e in out if e > s]


class Split(PreTokenizer):
    """Cut at the matches of a string or regex; ``behavior`` says where matches go; ``invert`` swaps
    the roles of matches and the text between them."""

    def __init__(self, pattern: str, behavior: str = "isolated", *, invert: bool = False, is_regex: bool = True,
                 dialect: str = "onig") -> None:
        """``dialect="tiktoken"`` reads the regex as tiktoken's engine does (for ``Tokenizer.from_encoding``)."""
        self.pattern = pattern
        self.behavior = _behavior(behavior)
        self.invert = invert
        self.is_regex = is_regex
        self._empty_matches = False
        """Whether the regex was seen to match the empty string: its matches are then walked as
        Oniguruma walks them (``_regex_spans``), never by the fast paths of ``split``."""
        if is_regex:
            self._pretokenizer: Pretokenizer | None = Pretokenizer(pattern, dialect=dialect)
            self._empty_matches = any(
                start == end for sample in ("", "a", "A1", " ", "\n", "aA1 \n-_.") for start, end in self._pretokenizer.spans(sample))
        else:
            if not pattern:
                raise VocabFormatError("a Split pre-tokenizer needs a non-empty string pattern")
            self._pretokenizer = None

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
        search = self._pretokenizer.searcher(text)
        while pos <= len(text):
            found = search(pos)
            if found is None:
                return
            start, end = found
            if start == end:
                if end != previous_end:
                    yield start, end
                    previous_end = end
                pos = end + 1
            else:
                yield start, end
                previous_end = pos = end

    def _cuts(self, text: str) -> list[tuple[int, int]]:
        marked: list[tuple[int, int, bool]] = []
        prev = 0
        for start, end in self._match_spans(text):
            if start > prev:
                marked.append((prev, start, self.invert))
            marked.append((start, end, not self.invert))
            prev = end
        if prev < len(text):
            marked.append((prev, len(text), self.invert))
        return _apply_behavior(marked, self.behavior)

    def split(self, text: str, *, bmp: bool = False) -> list[str]:
        """The pieces of ``text``; ``bmp``: the caller knows it has no astral character."""
        if self.behavior == "isolated" and not self.invert and self._pretokenizer is not None and not self._empty_matches:
            pieces = self._pretokenizer.split_isolated(text, bmp=bmp)
            if pieces is not None:
                return pieces
            pieces = self._pretokenizer.split(text)
            if sum(map(len, pieces)) == len(text):  # no text between matches: the pieces are all
                return [p for p in pieces if p] if "" in pieces else pieces
        return [text[s:e] for s, e in self._cuts(text)]

    def _reference_split(self, text: str) -> list[str]:
        """``split`` by walking the matches (for tests)."""
        return [text[s:e] for s, e in self._cuts(text)]

    def spans(self, text: str) -> list[Piece]:
        return [(text[s:e], s, e) for s, e in self._cuts(text)]

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "Split",
            "pattern": {"Regex" if self.is_regex else "String": self.pattern},
            "behavior": _BEHAVIOR_JSON[self.behavior],
            "invert": self.invert,
        }


class Digits(Split):
    """Numbers apart from the rest: each digit alone (``individual_digits``) or runs of digits."""

    def __init__(self, individual_digits: bool = False) -> None:
        self.individual_digits = individual_digits
        super().__init__(r"\p{N}" if individual_digits else r"\p{N}+", "isolated")

    def to_json(self) -> dict[str, Any]:
        return {"type": "Digits", "individual_digits": self.individual_digits}


class Punctuation(Split):
    """Punctuation characters (Unicode P* and ASCII punctuation) cut out, as ``behavior`` says."""

    _ASCII = "".join(re.escape(c) for c in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")

    def __init__(self, behavior: str = "isolated") -> None:
        super().__init__(r"[\p{P}" + self._ASCII + "]", behavior)

    def to_json(self) -> dict[str, Any]:
        return {"type": "Punctuation", "behavior": _BEHAVIOR_JSON[self.behavior]}


class Whitespace(Split):
    """Words and runs of other non-space characters; whitespace is dropped (``\\w+|[^\\w\\s]+``)."""

    def __init__(self) -> None:
        # \w as Rust's regex reads it: letters, marks, decimal digits, connector punctuation.
        word = r"[\p{L}\p{M}\p{Nd}_\u203F\u2040\u2054\uFE33\uFE34\uFE4D-\uFE4F\uFF3F\u200C\u200D]"
        super().__init__(word + r"+|[^" + word[1:-1] + r"\s]+", "removed", invert=True)

    def to_json(self) -> dict[str, Any]:
        return {"type": "Whitespace"}


class WhitespaceSplit(Split):
    """Runs of non-whitespace; whitespace is dropped."""

    def __init__(self) -> None:
        super().__init__(r"\s+", "removed")

    def to_json(self) -> dict[str, Any]:
        return {"type": "WhitespaceSplit"}


# ---------------------------------------------------------------- rewriting pre-tokenizers


class ByteLevel(PreTokenizer):
    """GPT-2's byte-level step: optionally a space in front, optionally GPT-2's split; the pieces'
    bytes are then read by the model in their visible form."""

    byte_level = True

    def __init__(self, add_prefix_space: bool = True, trim_offsets: bool = True, use_regex: bool = True) -> None:
        self.add_prefix_space = add_prefix_space
        self.trim_offsets = trim_offsets
        self.use_regex = use_regex
        self._split = Split(GPT2_PATTERN, "isolated") if use_regex else None

    @property
    def splits_nothing(self) -> bool:
        return not self.add_prefix_space and self._split is None

    def split(self, text: str) -> list[str]:
        if self.add_prefix_space and not text.startswith(" "):
            text = " " + text
        if self._split is None:
            return [text] if text else []
        return self._split.split(text)

    def spans(self, text: str) -> list[Piece]:
        shift = 0
        if self.add_prefix_space and not text.startswith(" ") and text:
            text, shift = " " + text, 1
        pieces = [(text, 0, len(text))] if self._split is None else self._split.spans(text)
        # The added space belongs to the first character of the original text.
        return [(p, max(0, s - shift), max(0, e - shift) if e - shift > 0 else min(1, e)) for p, s, e in pieces if p]

    def to_json(self) -> dict[str, Any]:
        return {"type": "ByteLevel", "add_prefix_space": self.add_prefix_space, "trim_offsets": self.trim_offsets,
                "use_regex": self.use_regex}


class Metaspace(PreTokenizer):
    """SentencePiece's word marker: spaces become ``replacement`` ("▁"), one is put in front as
    ``prepend_scheme`` says, and with ``split`` each piece starts at a marker."""

    def __init__(self, replacement: str = "\u2581", prepend_scheme: str = "always", split: bool = True) -> None:
        if len(replacement) != 1:
            raise VocabFormatError(f"Metaspace replacement must be one character, not {replacement!r}")
        if prepend_scheme not in ("always", "first", "never"):
            raise VocabFormatError(f"Metaspace prepend_scheme must be always, first or never, not {prepend_scheme!r}")
        self.replacement = replacement
        self.prepend_scheme = prepend_scheme
        self.split_on_marker = split
        self.first_segment = True
        """Set by the tokenizer: whether the text handed over starts the input ("first" scheme)."""

    def _rewrite(self, text: str) -> tuple[str, int]:
        text = text.replace(" ", self.replacement)
        prepend = self.prepend_scheme == "always" or (self.prepend_scheme == "first" and self.first_segment)
        if prepend and not text.startswith(self.replacement):
            return self.replacement + text, 1
        return text, 0

    def spans(self, text: str) -> list[Piece]:
        rewritten, shift = self._rewrite(text)
        if not rewritten:
            return []
        if not self.split_on_marker:
            return [(rewritten, 0, len(text))]
        out: list[Piece] = []
        starts = [i for i, ch in enumerate(rewritten) if ch == self.replacement]
        bounds = sorted({0, *starts, len(rewritten)})
        for a, b in zip(bounds, bounds[1:]):
            out.append((rewritten[a:b], max(0, a - shift), max(0, b - shift) if b - shift > 0 else min(1, b)))
        return out

    def to_json(self) -> dict[str, Any]:
        return {"type": "Metaspace", "replacement": self.replacement, "prepend_scheme": self.prepend_scheme,
                "split": self.split_on_marker}


_ASTRAL = re.compile("[\U00010000-\U0010FFFF]")


def _pieces_with_astral(pieces: list[str]) -> set[int]:
    """The indices of the pieces that hold a character above U+FFFF."""
    joined = "".join(pieces)
    if not _has_astral(joined):
        return set()
    ends = list(accumulate(map(len, pieces)))
    return {bisect_right(ends, m.start()) for m in _ASTRAL.finditer(joined)}


class Sequence(PreTokenizer):
    """Each step splits every piece the steps before it made."""

    def __init__(self, steps: list[PreTokenizer]) -> None:
        self.steps = steps
        self.byte_level = any(step.byte_level for step in steps)

    def split(self, text: str) -> list[str]:
        pieces = [text]
        for step in self.steps:
            if step.splits_nothing:
                pieces = list(filter(None, pieces))
            elif len(pieces) == 1:
                pieces = step.split(pieces[0])
            elif isinstance(step, Split):
                # Which pieces hold an astral character, found once for all of them rather than
                # once per piece (DeepSeek-V3 has ~30k pieces at its last step).
                astral = _pieces_with_astral(pieces)
                split = step.split
                pieces = [p for i, piece in enumerate(pieces) for p in split(piece, bmp=i not in astral)]
            else:
                pieces = [p for piece in pieces for p in step.split(piece)]
        return pieces

    def spans(self, text: str) -> list[Piece]:
        pieces: list[Piece] = [(text, 0, len(text))]
        for step in self.steps:
            refined: list[Piece] = []
            for piece, start, end in pieces:
                same = len(piece) == end - start
                for sub, s, e in step.spans(piece):
                    # Where an earlier step rewrote the piece, its characters no longer map one to one.
                    refined.append((sub, start + s, start + e) if same else (sub, start, end))
            pieces = refined
        return pieces

    def to_json(self) -> dict[str, Any]:
        return {"type": "Sequence", "pretokenizers": [step.to_json() for step in self.steps]}


# ---------------------------------------------------------------- from tokenizer.json

_BEHAVIOR_JSON = {
    "removed": "Removed",
    "isolated": "Isolated",
    "merged_with_previous": "MergedWithPrevious",
    "merged_with_next": "MergedWithNext",
    "contiguous": "Contiguous",
}


def _behavior(name: str) -> str:
    key = re.sub(r"(?<!^)(?=[A-Z])", "_", str(name)).lower()
    if key not in BEHAVIORS:
        raise VocabFormatError(f"unknown split behavior {name!r}; expected one of {', '.join(_BEHAVIOR_JSON.values())}")
    return key


def _split(obj: dict[str, Any], where: str) -> PreTokenizer:
    pattern, is_regex = pattern_of(obj.get("pattern"), where + ".pattern")
    return Split(pattern, obj.get("behavior", "Isolated"), invert=bool(obj.get("invert", False)), is_regex=is_regex)


_FACTORIES: dict[str, Callable[[dict[str, Any], str], PreTokenizer]] = {
    "Split": _split,
    "ByteLevel": lambda o, w: ByteLevel(o.get("add_prefix_space", True), o.get("trim_offsets", True), o.get("use_regex", True)),
    "Metaspace": lambda o, w: Metaspace(
        o.get("replacement", "\u2581"),
        o.get("prepend_scheme", "always" if o.get("add_prefix_space", True) else "never"),
        o.get("split", True),
    ),
    "Digits": lambda o, w: Digits(bool(o.get("individual_digits", False))),
    "Punctuation": lambda o, w: Punctuation(o.get("behavior", "Isolated")),
    "Whitespace": lambda o, w: Whitespace(),
    "WhitespaceSplit": lambda o, w: WhitespaceSplit(),
    "Sequence": lambda o, w: Sequence(
        [pre_tokenizer_from_json(step, f"{w}.pretokenizers[{i}]") for i, step in enumerate(o.get("pretokenizers", []))]
    ),
}


def pre_tokenizer_from_json(obj: dict[str, Any] | None, where: str = "pre_tokenizer") -> PreTokenizer | None:
    """The pre-tokenizer a ``tokenizer.json`` describes (None for ``null``)."""
    return build(obj, where, "pre-tokenizer", _FACTORIES)
