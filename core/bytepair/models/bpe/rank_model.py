"""tiktoken's BPE model: token bytes ranked by merge priority, every piece merged as its UTF-8 bytes.

Why a model object: the two faces share one engine (``pipeline/engine.py``) that asks a model for the ids of
a piece; this is the model of the OpenAI encodings (and of any ``.tiktoken`` file), the other is the
``tokenizer.json`` one (``models/bpe/merges_model.py``). The merge rule is in ``models/bpe/merge.py``, long pieces are
assembled from chunks in ``models/bpe/long_pieces.py``. For the HF face the vocabulary is also offered in
GPT-2's visible form (``text/byte_unicode.py``), built on first use.

>>> from bytepair import get_encoding
>>> model = get_encoding("r50k_base").engine.model
>>> model.encode_piece(" hello"), model.id_to_token(23748)
((23748,), 'Ġhello')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from random import Random

from .merge import apply_merges, merge_dropout, merge_three
from .char_merge import CharStarts, Fragments, LazyCharMerge, fragment_tables, pack_fragments
from ...errors import InvalidInputError, VocabFormatError
from ...text.byte_unicode import bytes_to_visible, visible_to_bytes
from .long_pieces import LongPieceEncoder
from .pair_check import TWO_TOKEN_MAX_BYTES, PairCheck, merge_splits
from ...formats.packed_ranks import pack_ranks

if TYPE_CHECKING:  # pragma: no cover
    from ..piece_cache import PieceCache

__all__ = ["RankModel", "check_ranks", "pack_rank_file", "rank_ordered"]


class RankModel:
    """``encode_piece(str) -> ids`` by tiktoken's rule, over ``ranks`` (token bytes -> rank = id)."""

    byte_level = True

    def __init__(
        self,
        ranks: dict[bytes, int],
        token_bytes: list[bytes],
        char_fragments: Callable[[], Fragments | None] | None = None,
        merge_splits: bytes | None = None,
    ) -> None:
        """``token_bytes[rank]`` is the token of that rank (``b""`` where a rank is unused);
        ``char_fragments`` gives ``char_merge``'s fragment tables if they were precomputed;
        ``merge_splits`` the split table of ``models/bpe/pair_check.py`` (a bundled ``.bpr`` file carries it),
        which lets a new piece of two tokens be found without merging."""
        self.ranks = ranks
        self._char_fragments = char_fragments
        self.token_bytes = token_bytes
        self.token_byte_length = list(map(len, token_bytes))
        """id -> how many bytes of text the token stands for (offsets in bulk)."""
        self._vocab: dict[str, int] | None = None
        self._chars = LazyCharMerge(lambda: CharStarts(self.ranks, self.token_bytes, self._char_fragments))
        self._pairs = PairCheck(ranks, token_bytes, merge_splits)
        self._two_tokens = self._pairs.two_tokens if merge_splits is not None else None

    def encode_piece(self, piece: str, *, dropout: float = 0.0, rng: Random | None = None) -> tuple[int, ...]:
        """Token ids of one piece; with ``dropout`` > 0, BPE-dropout drawing from ``rng`` (no
        whole-piece shortcut then, so ``dropout=1`` gives single bytes)."""
        data = piece.encode("utf-8", "surrogatepass")
        if dropout:
            return tuple(merge_dropout(data, self.ranks, dropout, rng if rng is not None else Random()))
        rank = self.ranks.get(data)
        if rank is not None:
            return (rank,)
        if len(data) == 3:
            return merge_three(data, self.ranks)
        # Short pieces that are not mostly multi-byte (those start from characters) are most often
        # two tokens: look for them by their split before merging.
        if self._two_tokens is not None and len(data) <= TWO_TOKEN_MAX_BYTES and 2 * len(data) < 3 * len(piece):
            two = self._two_tokens(data)
            if two is not None:
                return two
        ids = self._chars.merge(piece, data)
        if ids is not None:
            return tuple(ids)
        return tuple(apply_merges(data, self.ranks))

    @property
    def pair_check(self) -> PairCheck:
        """The pair check (``models/bpe/pair_check.py``) of this model's new pieces and long-piece seams. Its
        ``splits`` are None when the vocabulary came without split tables (one not read from a
        bundled ``.bpr`` file): then there is no two-token search, and new pairs are merged."""
        return self._pairs

    def clear_memos(self) -> None:
        """Forget the pair checks and characters remembered so far (``PieceCache.clear`` calls this, so
        that a cleared cache measures text never seen and memory goes back to where it started)."""
        self._pairs.known.clear()
        self._chars.forget()

    def long_piece_encoder(self, cache: PieceCache) -> LongPieceEncoder:
        """The encoder for pieces too long to merge whole cheaply (chunks come from ``cache``)."""
        return LongPieceEncoder(cache, self.ranks, self.token_bytes, char_merge=self._chars.merge, pairs=self._pairs)

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


def pack_rank_file(ranks: dict[bytes, int], *, name: str, source_sha256: str | None = None) -> bytes:
    """A ``.bpr`` file (``formats/packed_ranks.py``) of ``ranks`` with this model's tables worked out
    once and stored beside them: ``char_merge``'s fragment tables and ``pair_check``'s merge splits.

    >>> from bytepair.formats import read_packed_ranks
    >>> ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256, b"abc": 257}
    >>> packed = read_packed_ranks(pack_rank_file(ranks, name="tiny"))
    >>> packed.ranks() == ranks, packed.splits[256:]
    (True, b'\\x01\\x02')
    """
    tokens = rank_ordered(name, ranks)
    return pack_ranks(ranks, name=name, source_sha256=source_sha256,
                      char_fragments=pack_fragments(fragment_tables(tokens)), merge_splits=merge_splits(ranks, tokens))


def rank_ordered(name: str, ranks: dict[bytes, int]) -> list[bytes]:
    """Token bytes indexed by rank (``b""`` where a rank is unused); rejects shared ranks."""
    if not isinstance(ranks, dict) or not ranks:
        raise VocabFormatError(f"{name}: mergeable_ranks must be a non-empty dict of bytes -> rank")
    top = max(ranks.values())
    if not isinstance(top, int) or top >= 4 * len(ranks) + 1024:
        raise VocabFormatError(f"{name}: ranks must be integers 0..n-1 (nearly dense); the largest is {top!r}")
    tokens = [b""] * (top + 1)
    for token, rank in ranks.items():
        if not isinstance(rank, int) or rank < 0 or not isinstance(token, bytes) or not token:
            raise VocabFormatError(f"{name}: mergeable_ranks must map non-empty bytes to ranks >= 0; got {token!r}: {rank!r}")
        if tokens[rank]:
            raise VocabFormatError(f"{name}: two mergeable tokens share a rank ({rank})")
        tokens[rank] = token
    return tokens


def check_ranks(
    name: str,
    ranks: dict[bytes, int],
    token_bytes: list[bytes],
    special: dict[str, int],
    explicit_n_vocab: int | None,
) -> None:
    """tiktoken's checks of an ``Encoding``'s tables: every byte a token, special ids apart from the
    ranks, special tokens as non-empty strings, and the size ``explicit_n_vocab`` says."""
    missing = [b for b in range(256) if bytes((b,)) not in ranks]
    if missing:
        raise VocabFormatError(
            f"{name}: mergeable_ranks lacks {len(missing)} single-byte token(s) (first: {bytes((missing[0],))!r}); "
            "byte-level BPE needs all 256 so that any text can be encoded"
        )
    wide = [i for i in special.values() if not (type(i) is int and 0 <= i < 1 << 32)]
    if wide:
        raise VocabFormatError(f"{name}: special token ids must be integers from 0 to 2**32 - 1, not {wide[:5]}")
    clash = sorted(i for i in special.values() if i < len(token_bytes) and token_bytes[i])
    if clash:
        raise VocabFormatError(f"{name}: special token id(s) {clash[:5]} are also mergeable ranks")
    odd = next((t for t in special if not isinstance(t, str)), None)
    if odd is not None:
        hint = " (decode them: {token.decode(): id})" if isinstance(odd, (bytes, bytearray)) else ""
        raise InvalidInputError(f"{name}: special_tokens keys must be str, not {type(odd).__name__}{hint}")
    if not all(special):
        raise VocabFormatError(f"{name}: special tokens must be non-empty strings")
    if explicit_n_vocab is not None:
        actual = len(ranks) + len(special)
        top = max([len(token_bytes) - 1, *special.values()])
        if actual != explicit_n_vocab or top != explicit_n_vocab - 1:
            raise VocabFormatError(f"{name}: expected {explicit_n_vocab} tokens with ids 0..{explicit_n_vocab - 1}, got {actual} (max id {top})")
