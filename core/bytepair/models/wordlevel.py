"""WordLevel: each pre-tokenized word is one token, or the unknown token (HF's ``models.WordLevel``).

Why its own model: the simplest family (a word-to-id table, as in the classic word-level language
models), which HF ``tokenizers`` loads and trains (``WordLevelTrainer``); a word missing from the
vocabulary becomes ``unk_token``, and a text that needs it when the vocabulary lacks it is refused.

>>> model = WordLevel({"hello": 0, "world": 1, "<unk>": 2}, unk_token="<unk>")
>>> model.encode_piece("world"), model.encode_piece("moon")
((1,), (2,))
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import VocabFormatError
from .token import Token
from .vocabulary import VocabularyModel

__all__ = ["WordLevel", "wordlevel_from_json"]


class WordLevel(VocabularyModel):
    """HF's ``models.WordLevel(vocab=None, unk_token=None)`` (HF's default unknown token is ``"<unk>"``)."""

    TYPE = "WordLevel"

    def __init__(self, vocab: Mapping[str, int] | None = None, unk_token: str | None = None, *,
                 where: str = "model") -> None:
        super().__init__(vocab, "<unk>" if unk_token is None else unk_token, where)

    @staticmethod
    def read_file(vocab: str | os.PathLike[str]) -> dict[str, int]:
        """A ``vocab.json`` (token -> id) as HF reads it."""
        try:
            data = json.loads(Path(vocab).read_text(encoding="utf-8"))
        except OSError as exc:
            raise VocabFormatError(f"{vocab}: cannot read the vocabulary ({exc.strerror or exc})") from None
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise VocabFormatError(f"{vocab}: not a JSON object of token -> id ({exc})") from None
        if not isinstance(data, dict):
            raise VocabFormatError(f"{vocab}: not a JSON object of token -> id")
        return data

    @classmethod
    def from_file(cls, vocab: str | os.PathLike[str], unk_token: str | None = None) -> WordLevel:
        """The model of a ``vocab.json``."""
        return cls(cls.read_file(vocab), unk_token, where=str(vocab))

    def encode_piece(self, piece: str) -> tuple[int, ...]:
        found = self.vocab.get(piece)
        return (self.unk_id() if found is None else found,)

    def tokenize(self, sequence: str) -> list[Token]:
        """HF's ``Model.tokenize``: the word as one token, byte offsets."""
        return self.tokens_of([(self.encode_piece(sequence)[0], 0, len(sequence))], sequence)

    def piece_byte_lengths(self, piece: str, ids: tuple[int, ...]) -> list[int]:
        return [len(piece.encode("utf-8", "surrogatepass"))] * len(ids)

    def to_json(self) -> dict[str, Any]:
        """The ``model`` object of a ``tokenizer.json``, in HF's key order."""
        return {"type": "WordLevel", **self.vocabulary_json(), "unk_token": self.unk_token}

    def save(self, folder: str | os.PathLike[str], prefix: str | None = None) -> list[str]:
        """``vocab.json`` (``{prefix}-vocab.json``) in ``folder``, in id order; the paths written."""
        path = Path(folder) / (f"{prefix}-vocab.json" if prefix else "vocab.json")
        path.write_text(json.dumps(self.vocabulary_json()["vocab"], ensure_ascii=False, separators=(",", ":")),
                        encoding="utf-8")
        return [str(path)]


def wordlevel_from_json(obj: dict[str, Any], origin: str, *, byte_level: bool = False, parts: Any = None) -> WordLevel:
    """A ``WordLevel`` from its ``tokenizer.json`` object (``pipeline/tokenizer_json.py``'s reader)."""
    unk = obj.get("unk_token", "<unk>")
    if not isinstance(unk, str):
        raise VocabFormatError(f"{origin}: model.unk_token must be a string, not {unk!r}")
    return WordLevel(obj.get("vocab"), unk, where=f"{origin}: model")
