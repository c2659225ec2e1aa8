"""HF's ``PreTokenizedString``: a text cut into splits, each a :class:`NormalizedString` of it.

Why it exists: an HF custom pre-tokenizer (``pre_tokenizers.PreTokenizer.custom(obj)``) is handed one
and calls ``split(fn)`` on it, ``fn(index, normalized_string)`` returning the new splits (slices of
the one given, maybe edited); ``get_splits`` then gives each split's text and where it is, in
characters or bytes of the original or of the normalized text, as HF 0.23.3 computes them (its
"normalized" offsets are counted in bytes and read back through the original's characters, as HF
does). ``pre_tokenizers/custom.py`` turns the splits into the ``(piece, start, end)`` spans every
bytepair pre-tokenizer gives.

>>> pretok = PreTokenizedString("Hello  wörld")
>>> pretok.split(lambda i, ns: ns.split(" ", "removed"))
>>> pretok.get_splits()
[('Hello', (0, 5), None), ('wörld', (7, 12), None)]
>>> pretok.get_splits("original", "byte")
[('Hello', (0, 5), None), ('wörld', (7, 13), None)]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import InvalidArgumentError, InvalidInputError
from ..models.token import Token
from .normalized_string import NormalizedString, utf8_length

__all__ = ["PreTokenizedString"]

Split = list[Any]  # [NormalizedString, list[Token] | None]


class PreTokenizedString:
    """HF's ``tokenizers.PreTokenizedString``: ``split``, ``normalize``, ``tokenize`` and ``get_splits``."""

    __slots__ = ("_original", "_splits")

    def __init__(self, s: str) -> None:
        if not isinstance(s, str):
            raise InvalidInputError(f"PreTokenizedString takes a str, not {type(s).__name__}")
        self._original = s
        self._splits: list[Split] = [[NormalizedString(s), None]]

    def split(self, func: Callable[[int, NormalizedString], list[NormalizedString]]) -> None:
        """Each split without tokens replaced by ``func(index, split)``: a list of NormalizedString
        (slices of the one given, from ``split`` or ``[a:b]``, so that offsets stay right); empty
        ones are dropped."""
        if not callable(func):
            raise InvalidInputError("`split` expects a callable with the signature "
                                    "`fn(index: int, normalized: NormalizedString) -> List[NormalizedString]`")
        new: list[Split] = []
        for i, (normalized, tokens) in enumerate(self._splits):
            if tokens is not None:
                new.append([normalized, tokens])
                continue
            parts = func(i, normalized)
            if isinstance(parts, (str, NormalizedString)) or not isinstance(parts, (list, tuple)):
                raise InvalidInputError(f"the split function must return a list of NormalizedString, not {type(parts).__name__}")
            for part in parts:
                if not isinstance(part, NormalizedString):
                    raise InvalidInputError(f"the split function must return a list of NormalizedString; got a {type(part).__name__}")
                if part.normalized:
                    new.append([part, None])
        self._splits = new

    def normalize(self, func: Callable[[NormalizedString], Any]) -> None:
        """``func(split)`` on each split without tokens, to edit it in place."""
        if not callable(func):
            raise InvalidInputError("`normalize` expects a callable with the signature `fn(normalized: NormalizedString)`")
        for normalized, tokens in self._splits:
            if tokens is None:
                func(normalized)

    def tokenize(self, func: Callable[[str], list[Token]]) -> None:
        """Each split without tokens given ``func(its text)``, a list of :class:`~bytepair.Token`."""
        if not callable(func):
            raise InvalidInputError("`tokenize` expects a callable with the signature `fn(str) -> List[Token]`")
        for split in self._splits:
            if split[1] is None:
                tokens = func(split[0].normalized)
                if not isinstance(tokens, (list, tuple)) or not all(isinstance(t, Token) for t in tokens):
                    raise InvalidInputError("the tokenize function must return a list of bytepair.Token")
                split[1] = list(tokens)

    def get_splits(self, offset_referential: str = "original",
                   offset_type: str = "char") -> list[tuple[str, tuple[int, int], list[Token] | None]]:
        """Each split's text, its ``(start, end)`` (in the ``"original"`` or ``"normalized"`` text, in
        ``"char"`` or ``"byte"`` units) and its tokens (None before ``tokenize``)."""
        if offset_referential not in ("original", "normalized"):
            raise InvalidArgumentError("Wrong value for OffsetReferential, expected one of `original, normalized`")
        if offset_type not in ("char", "byte"):
            raise InvalidArgumentError("Wrong value for OffsetType, expected one of `byte, char`")
        convert = _char_converter(self._original) if offset_type == "char" else None
        out = []
        at = 0
        for normalized, tokens in self._splits:
            if offset_referential == "original":
                offsets = normalized.offsets_original()
            else:
                n = utf8_length(normalized.normalized)
                offsets = (at, at + n)
                at += n
            if convert is not None:
                offsets = convert(offsets)
            out.append((normalized.normalized, offsets, None if tokens is None else list(tokens)))
        return out


def _char_converter(text: str) -> Callable[[tuple[int, int]], tuple[int, int]]:
    """HF's ``BytesToCharOffsetConverter`` over ``text``: byte offsets -> character offsets, left as
    they are where the start is not a byte of ``text``."""
    char_of: dict[int, int] = {}
    at = 0
    for i, ch in enumerate(text):
        for k in range(utf8_length(ch)):
            char_of[at + k] = i
        at += utf8_length(ch)

    def convert(offsets: tuple[int, int]) -> tuple[int, int]:
        start, end = offsets
        if start not in char_of:
            return offsets
        if end in char_of:
            return char_of[start], char_of[end]
        return char_of[start], char_of.get(end - 1, char_of[start] + 1) + 1
    return convert
