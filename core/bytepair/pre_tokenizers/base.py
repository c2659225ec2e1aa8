"""What every pre-tokenizer offers, and HF's delimiter behaviours.

Every component offers the same two methods:

* ``split(text) -> list[str]``: the pieces, fast (this is the path ids take);
* ``spans(text) -> list[(piece, start, end)]``: each piece with the ``[start, end)`` characters of
  ``text`` it comes from (offsets). A piece may differ from its span's text where the component
  rewrites it (Metaspace turns spaces into "▁"; ByteLevel may add a space in front).

HF's ``PreTokenizer.custom(obj)`` (your own ``pre_tokenize(pretok)``, HF's jieba example) is
:class:`CustomPreTokenizer`: its spans are the splits of a :class:`~bytepair.PreTokenizedString`.
"""

from __future__ import annotations

import re
from operator import itemgetter
from typing import Any

from ..errors import InvalidInputError, UnsavableError, VocabFormatError, stage_without_json
from .normalized_string import BEHAVIORS
from .pre_tokenized_string import PreTokenizedString

__all__ = ["BEHAVIORS", "BEHAVIOR_JSON", "CustomPreTokenizer", "Piece", "PreTokenizer", "apply_behavior", "behavior_key"]

Piece = tuple[str, int, int]



class PreTokenizer:
    """Base: ``split`` and ``spans`` of one text; subclasses implement ``spans`` (and may speed up ``split``)."""

    byte_level = False
    """True for ByteLevel (and a Sequence holding it): the model then reads pieces as bytes."""

    savable = True
    """Whether ``to_json`` can write it (a :meth:`custom` pre-tokenizer cannot)."""

    @staticmethod
    def custom(pre_tokenizer: Any) -> PreTokenizer:
        """HF's ``PreTokenizer.custom``: your own pre-tokenizer, any object whose
        ``pre_tokenize(pretok)`` cuts a :class:`~bytepair.PreTokenizedString` (``pretok.split(fn)``,
        ``fn(index, normalized_string)`` returning slices of it). It splits, also inside a
        ``Sequence``, but cannot be saved in a ``tokenizer.json`` (as in HF: saving raises
        ``UnsavableError``).

        >>> class Dashes:
        ...     def pre_tokenize(self, pretok):
        ...         pretok.split(lambda i, ns: ns.split("-", "removed"))
        >>> PreTokenizer.custom(Dashes()).pre_tokenize_str("ab-cd--é")
        [('ab', (0, 2)), ('cd', (3, 5)), ('é', (7, 8))]
        """
        return CustomPreTokenizer(pre_tokenizer)

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

    def bounds(self, text: str) -> tuple[list[str], list[int], list[int]]:
        """``spans`` as three lists: the pieces, their starts and their ends (the form the
        pipeline's offsets are computed on; a splitter may find them without the triples).

        >>> from bytepair.pre_tokenizers import Whitespace
        >>> Whitespace().bounds("hi, you")
        (['hi', ',', 'you'], [0, 2, 4], [2, 3, 7])
        """
        spans = self.spans(text)
        return list(map(itemgetter(0), spans)), list(map(itemgetter(1), spans)), list(map(itemgetter(2), spans))

    def pre_tokenize_str(self, text: str) -> list[tuple[str, tuple[int, int]]]:
        """HF's ``pre_tokenize_str``: each piece with its ``(start, end)`` characters, in the form the
        model reads it (a byte-level step's pieces in GPT-2's visible characters, as HF shows them).

        >>> from bytepair.pre_tokenizers import ByteLevel
        >>> ByteLevel(add_prefix_space=False).pre_tokenize_str("Hi wörld")
        [('Hi', (0, 2)), ('ĠwÃ¶rld', (2, 8))]
        """
        from ..text.byte_unicode import bytes_to_visible

        return [(bytes_to_visible(piece.encode("utf-8", "surrogatepass")) if self.byte_level else piece, (start, end))
                for piece, start, end in self.spans(text)]

    def to_json(self) -> dict[str, Any]:
        raise stage_without_json("pre-tokenizer", self)


class CustomPreTokenizer(PreTokenizer):
    """A pre-tokenizer of the user's own (:meth:`PreTokenizer.custom`). ``spans(text)`` hands it a
    :class:`~bytepair.PreTokenizedString` of ``text`` and reads the splits back as ``(piece, start,
    end)``: the pieces as it left them, the spans in characters of ``text``
    (``get_splits("original", "char")``), which the pipeline maps through the normalizer's
    alignment as every pre-tokenizer's. So the object is given the normalized text as both
    ``original`` and ``normalized`` (in HF ``original`` is the text before the normalizer), and a
    piece it rewrites is placed as the pipeline places rewritten pieces (Metaspace's: characters
    put in front stand at the piece's first character)."""

    savable = False

    def __init__(self, pre_tokenizer: Any) -> None:
        self.pre_tokenizer = pre_tokenizer

    def spans(self, text: str) -> list[Piece]:
        method = getattr(self.pre_tokenizer, "pre_tokenize", None)
        if not callable(method):
            raise InvalidInputError(f"a custom pre-tokenizer needs a pre_tokenize(pretok) method; "
                                    f"{type(self.pre_tokenizer).__name__} has none")
        pretok = PreTokenizedString(text)
        method(pretok)
        return [(piece, start, end) for piece, (start, end), _ in pretok.get_splits("original", "char")]

    def to_json(self) -> dict[str, Any]:
        raise UnsavableError("a custom pre-tokenizer (PreTokenizer.custom) cannot be written to a tokenizer.json, as in HF; "
                             "set a pre-tokenizer of bytepair.pre_tokenizers before saving or pickling")


def apply_behavior(matches: list[tuple[int, int, bool]], behavior: str) -> list[tuple[int, int]]:
    """HF's delimiter behaviours over ``(start, end, is_match)`` spans covering the text in order.

    >>> apply_behavior([(0, 1, False), (1, 2, True), (2, 3, True), (3, 4, False)], "merged_with_next")
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


BEHAVIOR_JSON = {
    "removed": "Removed",
    "isolated": "Isolated",
    "merged_with_previous": "MergedWithPrevious",
    "merged_with_next": "MergedWithNext",
    "contiguous": "Contiguous",
}


def behavior_key(name: str) -> str:
    """``"MergedWithPrevious"`` (a ``tokenizer.json``'s spelling) or ``"merged_with_previous"`` -> the latter."""
    key = re.sub(r"(?<!^)(?=[A-Z])", "_", str(name)).lower()
    if key not in BEHAVIORS:
        raise VocabFormatError(f"unknown split behavior {name!r}; expected one of {', '.join(BEHAVIOR_JSON.values())}")
    return key
