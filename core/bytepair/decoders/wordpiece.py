"""Decoders of WordPiece-family files: ``WordPiece`` (``##`` joins, spaces elsewhere) and ``CTC``.

Why together: both undo word-piece tokens with the same ``cleanup`` rule of HF ``tokenizers``
0.23.3 (spaces before punctuation and English contractions removed: ``" ."`` -> ``"."``,
``" n't"`` -> ``"n't"``, ``" do not"`` -> ``" don't"`` ...). ``CTC`` is the decoder of speech models'
character vocabularies: repeated tokens collapse, the pad token vanishes, the word delimiter is a space.

>>> WordPiece().decode(["hello", "##s", "world", "!"])
'hellos world!'
>>> CTC().decode(["<pad>", "h", "h", "e", "l", "<pad>", "l", "o", "|", "w"])
'hello w'
"""

from __future__ import annotations

from itertools import groupby
from typing import Any

from .base import Decoder

__all__ = ["CTC", "WordPiece", "cleanup"]

_CLEANUPS = ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"), (" 'm", "'m"),
             (" do not", " don't"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"))


def cleanup(text: str) -> str:
    """HF's ``cleanup`` of decoded word pieces, each replacement in turn."""
    for old, new in _CLEANUPS:
        text = text.replace(old, new)
    return text


class WordPiece(Decoder):
    """HF's ``decoders.WordPiece(prefix="##", cleanup=True)``: a token after the first loses ``prefix``
    if it starts with it, and gets a space in front otherwise."""

    def __init__(self, prefix: str = "##", cleanup: bool = True) -> None:
        self.prefix, self.cleanup = prefix, bool(cleanup)

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for i, token in enumerate(tokens):
            if i:
                token = token.replace(self.prefix, "", 1) if token.startswith(self.prefix) else " " + token
            out.append(cleanup(token) if self.cleanup else token)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"type": "WordPiece", "prefix": self.prefix, "cleanup": self.cleanup}


class CTC(Decoder):
    """HF's ``decoders.CTC(pad_token="<pad>", word_delimiter_token="|", cleanup=True)``."""

    def __init__(self, pad_token: str = "<pad>", word_delimiter_token: str = "|", cleanup: bool = True) -> None:
        self.pad_token, self.word_delimiter_token, self.cleanup = pad_token, word_delimiter_token, bool(cleanup)

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for token, _ in groupby(tokens):
            text = token.replace(self.pad_token, "")
            if self.cleanup:
                text = cleanup(text).replace(self.word_delimiter_token, " ")
            if text:
                out.append(text)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"type": "CTC", "pad_token": self.pad_token, "word_delimiter_token": self.word_delimiter_token,
                "cleanup": self.cleanup}
