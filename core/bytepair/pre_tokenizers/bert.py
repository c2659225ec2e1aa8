"""Pre-tokenizers BERT-family files use: ``BertPreTokenizer``, ``CharDelimiterSplit``, ``FixedLength``
and ``UnicodeScripts``.

Why here: each is a fixed rule of HF ``tokenizers`` 0.23.3 rather than a pattern from the file.
``BertPreTokenizer`` splits on whitespace (dropped) and isolates every punctuation character (ASCII
punctuation and Unicode P* as HF's older tables have them, pinned in ``bert_punctuation.py``), written as one regex keeping its matches, so it runs on the same engine as
``Split``; ``CharDelimiterSplit`` cuts at one character (dropped); ``FixedLength`` cuts every
``length`` characters; ``UnicodeScripts`` cuts where the script changes (HF's script classes, pinned in
``script_tables.py``; spaces go with the text before them, and leading ones are dropped, as HF's).

>>> BertPreTokenizer().split("Hello, world!! ok")
['Hello', ',', 'world', '!', '!', 'ok']
>>> CharDelimiterSplit("-").split("a-b--c"), FixedLength(2).split("abcde")
(['a', 'b', 'c'], ['ab', 'cd', 'e'])
>>> UnicodeScripts().split("Hello 世界 x")
['Hello ', '世界 ', 'x']
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidInputError
from .base import Piece, PreTokenizer
from .split import Split

__all__ = ["BertPreTokenizer", "CharDelimiterSplit", "FixedLength", "UnicodeScripts"]

class BertPreTokenizer(Split):
    """Words between whitespace, each punctuation character a piece of its own."""

    remember_pieces = True  # (Split's: its fields' pass then reads the first pass's pieces)

    def __init__(self) -> None:
        from .bert_punctuation import punctuation_class  # the tables load with the first one made

        punctuation = punctuation_class()
        super().__init__(f"[{punctuation}]|[^\\s{punctuation}]+", "removed", invert=True, is_regex=True)

    def to_json(self) -> dict[str, Any]:
        return {"type": "BertPreTokenizer"}


class CharDelimiterSplit(PreTokenizer):
    """Cut at every ``delimiter`` character, which is dropped (HF's ``CharDelimiterSplit``)."""

    def __init__(self, delimiter: str) -> None:
        if not isinstance(delimiter, str) or len(delimiter) != 1:
            raise InvalidInputError(f"CharDelimiterSplit takes one character as its delimiter, not {delimiter!r}")
        self.delimiter = delimiter

    def split(self, text: str) -> list[str]:
        return [piece for piece in text.split(self.delimiter) if piece]

    def spans(self, text: str) -> list[Piece]:
        out: list[Piece] = []
        start = 0
        for piece in text.split(self.delimiter):
            if piece:
                out.append((piece, start, start + len(piece)))
            start += len(piece) + 1
        return out

    def to_json(self) -> dict[str, Any]:
        return {"type": "CharDelimiterSplit", "delimiter": self.delimiter}


class FixedLength(PreTokenizer):
    """Pieces of ``length`` characters (the last may be shorter), as HF's ``FixedLength``."""

    def __init__(self, length: int = 5) -> None:
        if type(length) is not int or length < 1:
            raise InvalidInputError(f"FixedLength's length must be an int >= 1, not {length!r}")
        self.length = length

    def spans(self, text: str) -> list[Piece]:
        n = self.length
        return [(text[i:i + n], i, min(i + n, len(text))) for i in range(0, len(text), n)]

    def to_json(self) -> dict[str, Any]:
        return {"type": "FixedLength", "length": self.length}


class UnicodeScripts(PreTokenizer):
    """A cut wherever the script changes (HF's ``UnicodeScripts``); the space belongs to every script,
    and so do the code points HF's table lacks."""

    def spans(self, text: str) -> list[Piece]:
        from .script_tables import ANY, script_class  # the tables load with the first text split

        cuts: list[int] = []
        last = -1
        for i, ch in enumerate(text):
            script = script_class(ch)
            if script != last and script != ANY:
                cuts.append(i)
                last = script
        cuts.append(len(text))
        return [(text[a:b], a, b) for a, b in zip(cuts, cuts[1:])]

    def to_json(self) -> dict[str, Any]:
        return {"type": "UnicodeScripts"}
