"""tiktoken's BPE model: token bytes ranked by merge priority, every piece merged as its UTF-8 bytes.

Why a model object: the two faces share one engine (``engine.py``) that asks a model for the ids of
a piece; this is the model of the OpenAI encodings (and of any ``.tiktoken`` file), the other is the
``tokenizer.json`` one (``bpe_model.py``). The merge rule is in ``bpe_merge.py``, long pieces are
assembled from chunks in ``long_pieces.py``. For the HF face the vocabulary is also offered in
GPT-2's visible form (``byte_unicode.py``), built on first use.

>>> from bytepair import get_encoding
>>> model = get_encoding("r50k_base").engine.model
>>> model.encode_piece(" hello"), model.id_to_token(23748)
((23748,), 'Ġhello')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from random import Random

from .bpe_merge import apply_merges, merge_dropout
from .char_merge import CHAR_MERGE_AFTER, CHAR_MERGE_MAX_BYTES, CharStarts, Fragments
from .byte_unicode import bytes_to_visible, visible_to_bytes
from .long_pieces import LongPieceEncoder

if TYPE_CHECKING:  # pragma: no cover
    from .piece_cache import PieceCache

__all__ = ["RankModel"]


class RankModel:
    """``encode_piece(str) -> ids`` by tiktoken's rule, over ``ranks`` (token bytes -> rank = id)."""

    byte_level = True

    def __init__(
        self, ranks: dict[bytes, int], token_bytes: list[bytes], char_fragments: Callable[[], Fragments | None] | None = None
    ) -> None:
        """``token_bytes[rank]`` is the token of that rank (``b""`` where a rank is unused);
        ``char_fragments`` gives ``char_merge``'s fragment tables if they were precomputed."""
        self.ranks = ranks
        self._char_fragments = char_fragments
        self.token_bytes = token_bytes
        self.token_byte_length = list(map(len, token_bytes))
        """id -> how many bytes of text the token stands for (offsets in bulk)."""
        self._vocab: dict[str, int] | None = None
        self._chars: CharStarts | None = None
        self._char_pieces = 0  # pieces that could have taken the character merge before it was built

    def encode_piece(self, piece: str, *, dropout: float = 0.0, rng: Random | None = None) -> tuple[int, ...]:
        """Token ids of one piece; with ``dropout`` > 0, BPE-dropout drawing from ``rng`` (no
        whole-piece shortcut then, so ``dropout=1`` gives single bytes)."""
        data = piece.encode("utf-8", "surrogatepass")
        if dropout:
            return tuple(merge_dropout(data, self.ranks, dropout, rng if rng is not None else Random()))
        rank = self.ranks.get(data)
        if rank is not None:
            return (rank,)
        # Mostly multi-byte characters (1.5 bytes each or more: Cyrillic, Greek, CJK ...): start from
        # whole characters where exact (char_merge.py). Measured on the corpus's new pieces: about
        # 0.9x the byte merge's time at 1.5-2.5 bytes a character, 0.5-0.6x from 2.5 on; Latin text
        # with a few accents gains nothing, so it keeps the byte merge.
        # The character tables cost one pass over the vocabulary (~20 ms for o200k): built only once
        # enough such pieces came to pay for it (English text has a handful).
        if 3 * len(piece) <= 2 * len(data) <= 2 * CHAR_MERGE_MAX_BYTES:
            if self._chars is None:
                self._char_pieces += 1
                if self._char_pieces >= CHAR_MERGE_AFTER:
                    self._chars = CharStarts(self.ranks, self.token_bytes, self._char_fragments)
            if self._chars is not None:
                ids = self._chars.merge(piece)
                if ids is not None:
                    return tuple(ids)
        return tuple(apply_merges(data, self.ranks))

    def long_piece_encoder(self, cache: PieceCache) -> LongPieceEncoder:
        """The encoder for pieces too long to merge whole cheaply (chunks come from ``cache``)."""
        return LongPieceEncoder(cache, self.ranks, self.token_bytes)

    # ---------------------------------------------------------------- vocabulary, HF style
    @property
    def vocab(self) -> dict[str, int]:
        """Token (GPT-2's visible form) -> id."""
        if self._vocab is None:
            self._vocab = {bytes_to_visible(token): rank for token, rank in self.ranks.items()}
        return self._vocab

    def token_to_id(self, token: str) -> int | None:
        try:
            return self.ranks.get(visible_to_bytes(token))
        except KeyError:
            return None

    def id_to_token(self, token_id: int) -> str | None:
        if 0 <= token_id < len(self.token_bytes) and self.token_bytes[token_id]:
            return bytes_to_visible(self.token_bytes[token_id])
        return None

    def get_vocab_size(self) -> int:
        return len(self.ranks)

    def piece_byte_lengths(self, piece: str, ids: tuple[int, ...]) -> list[int]:
        return [self.token_byte_length[i] for i in ids]
