"""Long pieces of a ``tokenizer.json``'s byte-level BPE, encoded by the tiktoken face's long-piece
machinery: the same merges, read as tiktoken's ranks.

Why: HF's merge of one piece (``pair_merge``) is O(n log n) but holds every symbol of the piece as
Python objects; a 20 MB piece (Llama 3's pattern makes random a-z one piece) took minutes and GBs.
``long_pieces.py`` encodes such pieces by chunks, exactly, in bounded memory, but it reasons about
tiktoken's rule (merge the adjacent pair whose *merged token* has the lowest rank). When a byte-level
model's merges follow id order (``formats/rank_table.py``'s check, which Llama 3, Qwen 2.5, GPT-2
and DeepSeek V3 pass), HF's rule (the adjacent *pair* listed first) merges exactly as tiktoken's rule
over ids as ranks, so a :class:`RankModel` of those ranks, with a piece cache of its own, encodes
the long pieces. Tokens that no merge makes (special tokens in ``vocab``, as GPT-2's
``<|endoftext|>``) are left out of the ranks: HF's merge never makes them either. A model whose
merges do not follow id order keeps its own merge (:func:`ranked_long_pieces` gives None).

The piece cache asks for this encoder when it is made; the rank model is built only when the
first long piece comes (~0.3 s for Llama 3's 128 K tokens).

>>> from bytepair.models.bpe.merges_model import BPEModel
>>> from bytepair.text.byte_unicode import BYTE_TO_UNICODE
>>> vocab = {BYTE_TO_UNICODE[b]: b for b in range(256)} | {"ab": 256, "abab": 257}
>>> model = BPEModel(vocab, [("a", "b"), ("ab", "ab")], byte_level=True)
>>> from bytepair.models.piece_cache import PieceCache
>>> long = ranked_long_pieces(model, PieceCache)
>>> long.encode("ab" * 300) == model.encode_piece("ab" * 300) == (257,) * 150
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...errors import UnsavableError
from .rank_model import RankModel

__all__ = ["RankedLongPieces", "ranked_long_pieces"]


class RankedLongPieces:
    """``encode(piece)`` of long pieces through a rank model of the same merges, built on first use."""

    def __init__(self, ranks: Callable[[], dict[bytes, int] | None], cache_type: Callable[[Any], Any]) -> None:
        self._ranks = ranks
        self._cache_type = cache_type
        self._encoder: Any = None
        self._fallback = False

    def encode(self, piece: str) -> tuple[int, ...] | None:
        """The ids of ``piece``, or None when the merges cannot be read as ranks (the caller merges)."""
        if self._encoder is None and not self._fallback:
            ranks = self._ranks()
            if ranks is None:
                self._fallback = True
            else:
                token_bytes = [b""] * (max(ranks.values()) + 1)
                for token, rank in ranks.items():
                    token_bytes[rank] = token
                self._encoder = self._cache_type(RankModel(ranks, token_bytes)).long_pieces
        return None if self._encoder is None else self._encoder.encode(piece)

    def encode_many(self, pieces: list[str]) -> None:
        """Short new pieces stay with the model's own merge (the piece cache then merges them one by one)."""
        return None

    def clear(self) -> None:
        """Forget the rank model's caches (its ranks stay)."""
        if self._encoder is not None:
            self._encoder.clear()


def ranked_long_pieces(model: Any, cache_type: Callable[[Any], Any]) -> RankedLongPieces | None:
    """The long-piece encoder of a byte-level ``BPEModel`` (None for any other: prefixes, suffixes and
    byte fallback make symbols other than bytes). ``cache_type`` makes the rank model's piece cache."""
    if not model.byte_level or model.byte_fallback or model.continuing_subword_prefix or model.end_of_word_suffix:
        return None

    def ranks() -> dict[bytes, int] | None:
        made = {left + right for left, right in model.merges}
        unmade = {token for token in model.vocab if len(token) > 1 and token not in made}
        try:
            return model.rank_table(exclude=unmade)  # type: ignore[no-any-return]
        except UnsavableError:
            return None

    return RankedLongPieces(ranks, cache_type)
