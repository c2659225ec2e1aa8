"""The one engine both faces run: text -> pieces -> ids, through a shared piece cache.

Why one: ``Encoding`` (tiktoken's API) and ``Tokenizer`` (Hugging Face's) differ in their special-token
rules and in what they return, not in how ordinary text becomes ids. An engine holds the two stages
that do that, a pre-tokenizer (``split(text) -> pieces``) and a model (``encode_piece(piece) -> ids``:
``models/bpe/rank_model.py`` for tiktoken's ranks, ``models/bpe/merges_model.py`` for ``tokenizer.json`` merges),
and the cache in front of the model (``models/piece_cache.py``). The faces, the incremental encoder, the
stream cutter and the browser bridge all reach ids through :meth:`Engine.piece_ids`.

>>> from bytepair import get_encoding
>>> engine = get_encoding("cl100k_base").engine
>>> list(engine.piece_ids("hello world"))
[(15339,), (1917,)]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import chain
from typing import Any, Protocol

from ..models import Model
from ..models.piece_cache import PieceCache
from ..text.offsets import piece_token_spans

__all__ = ["BLOCK_CHARS", "Engine", "PieceSplitter"]

BLOCK_CHARS = 1 << 18
"""Texts longer than this are pretokenized block by block (bounded memory, early exit for limits)."""


class PieceSplitter(Protocol):
    """What a pre-tokenizer offers the engine."""

    def split(self, text: str) -> list[str]: ...


class Engine:
    """A pre-tokenizer and a model, with a bounded piece cache between them."""

    def __init__(self, model: Model, pre_tokenizer: PieceSplitter | None) -> None:
        self.model = model
        self.pre_tokenizer = pre_tokenizer
        self.cache = PieceCache(model)

    @property
    def cuttable(self) -> bool:
        """Whether long texts may be cut at the pre-tokenizer's exact cut points (``find_cut``)."""
        return bool(getattr(self.pre_tokenizer, "cuttable", False))

    def split(self, text: str) -> list[str]:
        """The pieces of ``text`` (the whole text if there is no pre-tokenizer)."""
        if self.pre_tokenizer is None:
            return [text] if text else []
        return self.pre_tokenizer.split(text)

    def piece_ids(self, text: str, *, packed: bool = False, first_block: int | None = None,
                  ids_of: Callable[[str], tuple[int, ...]] | None = None) -> Iterator[Any]:
        """Ids of ordinary text (no special tokens), one tuple per piece; with ``packed``, each as
        bytes of native uint32. Long texts are split block by block when the pre-tokenizer allows it
        (blocks start at ``first_block`` characters and double, for early exits). ``ids_of`` gives
        a piece's ids by another rule than the model's (BPE-dropout): the cache is then neither read
        nor filled."""
        if ids_of is not None:
            return map(ids_of, self.split(text))
        get = (self.cache.packed if packed else self.cache).__getitem__
        if len(text) <= (first_block or BLOCK_CHARS) or not self.cuttable:
            return map(get, self._block_pieces(text))
        blocks = self.pre_tokenizer.blocks(text, BLOCK_CHARS, first=first_block)  # type: ignore[union-attr]
        return chain.from_iterable(map(get, self._block_pieces(block)) for block in blocks)

    def _block_pieces(self, block: str) -> list[str]:
        """The pieces of one block, their new ones encoded together where that pays (``prefetch``)."""
        pieces = self.split(block)
        self.cache.prefetch(pieces)
        return pieces

    def piece_spans(self, text: str, byte_length: Callable[[int], int], base: int = 0) -> list[tuple[int, int]]:
        """Each token's ``[start, end)`` characters, found piece by piece (``text/offsets.py``'s rule;
        ``byte_length(id)`` is a token's size in bytes): the plain way, for a pattern that leaves some
        text out of every piece. ``base`` is added to every span.

        >>> from bytepair import get_encoding
        >>> enc = get_encoding("o200k_base")
        >>> enc.engine.piece_spans("hi 🫠", lambda i: len(enc.decode_single_token_bytes(i)))
        [(0, 2), (2, 4), (3, 4), (3, 4)]
        """
        spans: list[tuple[int, int]] = []
        for start, end in self.pre_tokenizer.spans(text):  # type: ignore[union-attr]
            piece = text[start:end]
            spans += piece_token_spans(piece, [byte_length(i) for i in self.cache[piece]], base + start)
        return spans
