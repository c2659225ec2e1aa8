"""The model stage: a piece in, its token ids out (HF's ``tokenizers.models``).

Every model offers the engine one method, ``encode_piece(piece) -> ids`` (:class:`Model`), and the
faces a vocabulary (``token_to_id``, ``id_to_token``, ``get_vocab_size``). ``bpe/`` holds both BPE
models (tiktoken's ranks, a ``tokenizer.json``'s merges) and every kernel that merges a piece;
``piece_cache.py`` the cache the engine puts in front of any model. ``BPE`` is HF's name for the
``tokenizer.json`` model.

>>> model = BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")])
>>> model.encode_piece("abab"), model.id_to_token(2)
((2, 2), 'ab')
"""

from __future__ import annotations

from typing import Any, Protocol

from .bpe import BPEModel, RankModel
from .token import Token
from .unigram import Unigram
from .wordlevel import WordLevel
from .wordpiece import WordPiece

__all__ = ["BPE", "BPEModel", "Model", "RankModel", "Token", "Unigram", "WordLevel", "WordPiece"]

BPE = BPEModel
"""HF's name (``tokenizers.models.BPE``) for the merges model of a ``tokenizer.json``."""


class Model(Protocol):
    """What a model offers the engine and the faces (``long_piece_encoder``, ``clear_memos`` and
    ``drops_unknown``, True where a piece's tokens may leave characters out, are optional). ``vocabulary_json()`` gives the keys of the model's ``tokenizer.json`` object that hold
    its vocabulary (a tokenizer keeps the rest of the file and writes these back from the model);
    ``to_json()`` the whole object (for a model assigned to a tokenizer, and ``save``)."""

    def encode_piece(self, piece: str) -> tuple[int, ...]: ...

    def token_to_id(self, token: str) -> int | None: ...

    def id_to_token(self, token_id: int) -> str | None: ...

    def get_vocab_size(self) -> int: ...

    def vocabulary_json(self) -> dict[str, Any]: ...

    def to_json(self) -> dict[str, Any]: ...
