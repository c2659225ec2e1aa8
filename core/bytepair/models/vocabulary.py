"""What the vocabulary-only models (``WordPiece``, ``WordLevel``) share: a token -> id table read
both ways, HF's model methods over it (``token_to_id``, ``id_to_token``, ``get_vocab``,
``tokenize``), and the trainer each family trains with by default.

Why a base of its own: neither model has merges; a piece becomes its ids by looking tokens up, so
the vocabulary, its checks (one token per id, ids within 32 bits) and the way a missing unknown
token is refused are the same code for both. ``DEFAULT_TRAINERS`` is filled by ``trainers/`` (a layer
above the models), so that ``model.get_trainer()`` gives HF's trainer of the family without the
models importing the trainers.

>>> from bytepair.models.wordlevel import WordLevel
>>> model = WordLevel({"hello": 0, "[UNK]": 1}, unk_token="[UNK]")
>>> [tuple(t) for t in model.tokenize("hello")], model.get_vocab()
([(0, 'hello', (0, 5))], {'hello': 0, '[UNK]': 1})
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..errors import InvalidInputError, VocabFormatError
from .token import Token

__all__ = ["DEFAULT_TRAINERS", "MAX_ID", "VocabularyModel", "checked_vocab"]

MAX_ID = (1 << 32) - 1
"""Ids are 32-bit, as HF reads them."""

DEFAULT_TRAINERS: dict[str, Callable[[], Any]] = {}
"""Model type (``"WordPiece"``) -> a function making HF's default trainer for it (set by ``trainers/``)."""


def checked_vocab(vocab: Any, where: str) -> dict[str, int]:
    """``vocab`` as a dict token -> id, or :class:`~bytepair.errors.VocabFormatError` naming ``where``."""
    if vocab is None:
        return {}
    if not isinstance(vocab, Mapping):
        raise VocabFormatError(f"{where}.vocab must be an object of token -> id, not {type(vocab).__name__}")
    out = dict(vocab)
    for token, token_id in out.items():
        if not isinstance(token, str) or type(token_id) is not int or not 0 <= token_id <= MAX_ID:
            raise VocabFormatError(
                f"{where}.vocab: {token!r}: {token_id!r} is not a token string with an integer id from 0 to 2**32 - 1")
    return out


class VocabularyModel:
    """A vocabulary both ways and the methods HF's models offer over it; subclasses define
    ``TYPE``, ``encode_piece`` and ``tokenize``."""

    TYPE = ""
    token_byte_length = None
    """Offsets are found token by token (``piece_byte_lengths``): these models are not byte-level."""

    def __init__(self, vocab: Mapping[str, int] | None, unk_token: str, where: str) -> None:
        if not isinstance(unk_token, str):
            raise InvalidInputError(f"{where}.unk_token must be a string such as \"[UNK]\", not {type(unk_token).__name__}")
        self.vocab = checked_vocab(vocab, where)
        self.unk_token = unk_token
        self._id_to_token = {token_id: token for token, token_id in self.vocab.items()}
        self._where = where

    # ---------------------------------------------------------------- vocabulary
    def token_to_id(self, token: str) -> int | None:
        return self.vocab.get(token)

    def id_to_token(self, token_id: int) -> str | None:
        return self._id_to_token.get(token_id)

    def get_vocab_size(self) -> int:
        return len(self.vocab)

    def get_vocab(self) -> dict[str, int]:
        """Token -> id (a copy)."""
        return dict(self.vocab)

    def vocabulary_json(self) -> dict[str, Any]:
        """``model.vocab`` as HF writes it: ordered by id."""
        return {"vocab": dict(sorted(self.vocab.items(), key=lambda item: item[1]))}

    def get_trainer(self) -> Any:
        """HF's default trainer of this family (``trainers.WordPieceTrainer()`` ...)."""
        make = DEFAULT_TRAINERS.get(self.TYPE)
        if make is None:
            raise InvalidInputError(f"no trainer is registered for {self.TYPE}; import bytepair.trainers first")
        return make()

    def unk_id(self) -> int:
        """The unknown token's id, or :class:`~bytepair.errors.VocabFormatError` as HF refuses a text
        that needs it when the vocabulary lacks it."""
        found = self.vocab.get(self.unk_token)
        if found is None:
            raise VocabFormatError(
                f"{self.TYPE}: the unknown token {self.unk_token!r} is not in the vocabulary, and this text needs it; "
                "add it to the vocabulary (or train with it among the special tokens)")
        return found

    def tokens_of(self, pieces: list[tuple[int, int, int]], sequence: str) -> list[Token]:
        """``Token``s from ``(id, start, end)`` character spans, with HF's byte offsets."""
        starts = [0]
        for ch in sequence:
            starts.append(starts[-1] + len(ch.encode("utf-8", "surrogatepass")))
        return [Token(token_id, self._id_to_token.get(token_id, ""), (starts[s], starts[e])) for token_id, s, e in pieces]

    def to_json(self) -> dict[str, Any]:
        raise NotImplementedError
