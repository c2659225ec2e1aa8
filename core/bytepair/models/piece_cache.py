"""Piece cache: pretokenized piece (str) -> token ids, filled on first sight.

Why a ``dict`` subclass: ``map(cache.__getitem__, pieces)`` then runs entirely in C for every piece
seen before (most pieces of real text repeat), and ``__missing__`` computes the rest. The cache is
bounded: when it is full it is emptied and refilled, which costs one rebuild of hot entries but never
lets memory grow with the input.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import Any

from ..bulk import LastText
from .bpe.long_pieces import LONG_PIECE_CHARS
from .bpe.piece_cuts import MAX_DISTINCT_BYTES, distinct_bytes

__all__ = ["PackedPieceCache", "PieceCache", "entry_bytes", "packed_entry_bytes"]

DEFAULT_MAX_ENTRIES = 1 << 18
# Why this many: the 14 corpus files of bench/corpus (8.3 MB, 14 languages and code) hold ~138,000
# distinct short pieces (~22 MB of entries, ~160 bytes each). At 1 << 16 a stream of them emptied the
# cache over and over, and a second pass cost as much as the first (3.8x tiktoken's time); at 1 << 18
# it costs 0.83x.
DEFAULT_MAX_BYTES = 48 << 20
"""And a bound on the entries' size (``entry_bytes``): CJK text makes pieces of 20-40 characters and
as many ids, ~490 bytes an entry, so 1 << 18 of them took 128 MB (a count of 17 MB of CJK peaked at
187 MB, against 94 MB when the cache held 1 << 16). Twice the corpus's entries fit in this."""


def entry_bytes(piece: str, ids: tuple[int, ...]) -> int:
    """About the memory a cache entry holds: the key, the tuple and the dict's slot (within 2% of
    ``sys.getsizeof`` summed over the corpus's pieces; a CJK character counts 2 bytes there, 4 here).

    >>> entry_bytes("hello", (15339,))
    128
    """
    return 100 + 4 * len(piece) + 8 * len(ids)


_BATCH_MIN_PIECES = 64
"""Fewer new pieces than this in a block are merged one by one (``PieceCache.prefetch``)."""
_BATCH_MIN_BLOCK = 1024
"""Blocks of fewer pieces are not looked at (``prefetch``): the look cost a 300-character text 30%."""


class PieceCache(dict[str, tuple[int, ...]]):
    """Maps a piece to its ids; missing pieces are encoded by the model and remembered.

    Pieces longer than ``LONG_PIECE_CHARS`` are not kept (they rarely repeat); a model that offers a
    ``long_piece_encoder`` (tiktoken's ranks) assembles them from cached chunks, any other merges them
    whole (its merge is O(n log n)).
    """

    def __init__(self, model: Any, max_entries: int = DEFAULT_MAX_ENTRIES, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        super().__init__()
        self.model = model
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.bytes = 0
        """The entries' size so far, by ``entry_bytes``: past ``max_bytes`` the cache is emptied."""
        self._encode = model.encode_piece
        self._clear_memos = getattr(model, "clear_memos", None)
        self._also_clear: list[Callable[[], None]] = []
        make_long = getattr(model, "long_piece_encoder", None)
        self._long = make_long(self) if make_long is not None else None
        self.packed = PackedPieceCache(self)
        self._last_long: LastText[tuple[int, ...]] = LastText()
        """The last long piece's ids (``bulk.LastText``: 4k characters and more): a whole text that is
        one piece (a converted SentencePiece model's Metaspace does not split) is looked up again
        when its fields are read."""

    @property
    def long_pieces(self) -> Any:
        """The model's encoder for long pieces (``long_pieces.LongPieceEncoder``), or None."""
        return self._long

    def prefetch(self, pieces: list[str]) -> None:
        """Encode the new pieces among ``pieces`` together, if they share a few distinct bytes.

        Why: text of a few distinct bytes cut into many short pieces that rarely repeat (random
        combining marks, split by cl100k's pattern into runs of marks) would cost a Python merge per
        piece; merged as one (``LongPieceEncoder.encode_many``) they cost one rank-by-rank merge.
        The engine calls this once per block before looking its pieces up. Other text returns
        after a look at its first pieces' bytes.
        """
        if len(pieces) < _BATCH_MIN_BLOCK or self._long is None:
            return
        head = pieces[:_BATCH_MIN_PIECES]
        sample = "".join(head).encode("utf-8", "surrogatepass")
        if distinct_bytes(sample, MAX_DISTINCT_BYTES) is None:
            return
        if 2 * sum(map(self.__contains__, head)) > len(head):
            return  # most of them are known already (a line of digits after its first block)
        new = [piece for piece in dict.fromkeys(pieces) if piece not in self and len(piece) <= LONG_PIECE_CHARS]
        if len(new) < _BATCH_MIN_PIECES:
            return
        ids = self._long.encode_many(new)
        if ids is None:
            return
        size = sum(map(entry_bytes, new, ids))
        if len(self) + len(new) > self.max_entries or self.bytes + size > self.max_bytes:
            self.clear()
        self.update(zip(new, ids))
        self.bytes += size

    def clear(self) -> None:
        """Empty the cache, and with it its packed twin, the long-piece encoder's caches of seams and
        stitched chunks, and what the model remembers of pieces (``clear_memos``, where it offers one)."""
        super().clear()
        self.bytes = 0
        self._last_long.clear()
        self.packed.clear()
        if self._long is not None:
            self._long.clear()
        if self._clear_memos is not None:
            self._clear_memos()
        for clear in self._also_clear:
            clear()

    def also_clear(self, clear: Callable[[], None]) -> None:
        """Have :meth:`clear` call ``clear`` too: what the stages around the model remember (a
        tokenizer's normalizer memos, ``TokenizerPipeline.clear_memos``)."""
        if clear not in self._also_clear:
            self._also_clear.append(clear)

    def __missing__(self, piece: str) -> tuple[int, ...]:
        if len(piece) > LONG_PIECE_CHARS:
            ids = self._last_long.get(piece)
            if ids is None:
                ids = self._long.encode(piece) if self._long is not None else None
                if ids is None:  # (the model merges it itself)
                    ids = self._encode(piece)
                self._last_long.keep(piece, ids)
            return ids
        ids = self._encode(piece)
        size = entry_bytes(piece, ids)
        if len(self) >= self.max_entries or self.bytes + size > self.max_bytes:
            self.clear()
        self[piece] = ids
        self.bytes += size
        return ids


class PackedPieceCache(dict[str, bytes]):
    """Piece -> its ids as native uint32 bytes, filled from the ``PieceCache``; bounded by entries
    and by bytes as that cache is (``packed_entry_bytes``), and emptied with it.

    Why: building an ``array('I')`` from Python ints converts every id; joining these byte strings
    does not, which makes ``Encoding.encode_to_array`` (and the browser API) several times cheaper
    per token on text seen before.
    """

    def __init__(self, ids: PieceCache) -> None:
        super().__init__()
        self._ids = ids
        self.bytes = 0
        """The entries' size so far (``packed_entry_bytes``): past the cache's ``max_bytes`` it is emptied."""

    def clear(self) -> None:
        super().clear()
        self.bytes = 0

    def __missing__(self, piece: str) -> bytes:
        packed = array("I", self._ids[piece]).tobytes()
        if len(piece) <= LONG_PIECE_CHARS:
            size = packed_entry_bytes(piece, packed)
            if len(self) >= self._ids.max_entries or self.bytes + size > self._ids.max_bytes:
                self.clear()
            self[piece] = packed
            self.bytes += size
        return packed


def packed_entry_bytes(piece: str, packed: bytes) -> int:
    """About the memory a packed entry holds: the key, the bytes object and the dict's slot.

    >>> packed_entry_bytes("hello", bytes(4))
    157
    """
    return 100 + 4 * len(piece) + 33 + len(packed)
