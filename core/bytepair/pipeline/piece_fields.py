"""Every field of a part's tokens at once, from what each distinct piece gives, remembered.

Why: ``TokenizerPipeline.encode`` returns tokens, offsets and word ids beside the ids. Worked out
token by token in Python they cost WordPiece and WordLevel 1.5-2.5x HF's whole first pass. But
pieces repeat (the engine's piece cache holds their ids for that reason), and where a piece is its
span's text as written, its tokens' spans relative to its start do not depend on where it stands.
So each distinct piece's ids, token strings and relative spans are worked out once (by the
pipeline's reference rule, ``TokenizerPipeline._token_char_spans``) and kept in a bounded cache,
and a part's fields are joined of them by C loops (``map``, ``chain``, ``repeat``): a repeated piece
costs a lookup, and its tokens are placed by an addition done in C. Two cases need no entry: a
piece of one token spans itself, and where a model's tokens are a word's text in order (WordPiece:
``token_char_widths``), a running sum of their widths places them all (``_tiled``).

>>> fields = PieceFields(lambda piece, width: ((len(piece),), (piece,), (0,), (width,)))
>>> out = Piecewise()
>>> append_fields(out, fields, ["ab", "c"], [0, 3], [2, 4], ids_of=lambda piece: (len(piece),),
...               token_of=None, type_id=0, word=0, shift=0, align=None, base=10)
>>> out.ids, out.offsets, out.word_ids
([2, 1], [(10, 12), (13, 14)], [0, 1])
"""

from __future__ import annotations

import gc
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import accumulate, chain, compress, islice, repeat
from operator import add, ge, itemgetter, methodcaller, ne, sub
from typing import Any

from ..models.bpe.long_pieces import LONG_PIECE_CHARS
from ..normalizers.edits import Edits
from ..processors.base import Piecewise

__all__ = ["Entry", "PieceFields", "append_fields", "fields_entry_bytes", "gc_paused", "relative_spans",
           "to_original"]

Entry = tuple[tuple[int, ...], tuple[str, ...], tuple[int, ...], tuple[int, ...]]
"""A piece's ids, its token strings (where the model names them itself; else empty, the strings
being the ids'), and each token's start and end characters within the piece."""

DEFAULT_MAX_ENTRIES = 1 << 17
DEFAULT_MAX_BYTES = 32 << 20
"""Bounds of a :class:`PieceFields` (``fields_entry_bytes``); past either it is emptied and refilled.
Why these: a first pass over one corpus file (400 kB) holds 10,000-40,000 distinct pieces, 4-10 MB
of entries; the bound keeps a stream of every word of a language from growing without end."""

_IDS, _TOKENS, _STARTS, _ENDS = (itemgetter(k) for k in range(4))
_FIRST, _LAST = itemgetter(0), itemgetter(1)
_SAMPLE = 64
_DECODE = methodcaller("decode", "utf-8", "surrogatepass")
_ODD, _HALF = (1).__and__, (1).__rrshift__


def fields_entry_bytes(piece: str, entry: Entry) -> int:
    """About the memory an entry holds: the key and the dict's slot, the four tuples (40 bytes each
    and 8 a token), an id (28; a token's string is the vocabulary's, a small int shared).

    >>> fields_entry_bytes("hello", ((7592,), ("hello",), (0,), (5,)))
    340
    """
    return 100 + 4 * len(piece) + 4 * 40 + 60 * len(entry[0])


class PieceFields(dict[str, Entry]):
    """Piece -> its :data:`Entry`, made by ``entry_of(piece, width)`` (``width``: the characters of
    text the piece stands for; ``len(piece)`` for every entry kept here) on first sight, bounded in
    entries and in bytes: when full it is emptied and refilled."""

    def __init__(self, entry_of: Callable[[str, int], Entry], max_entries: int = DEFAULT_MAX_ENTRIES,
                 max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        super().__init__()
        self.entry_of = entry_of
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.bytes = 0
        """The entries' size so far (``fields_entry_bytes``)."""

    def clear(self) -> None:
        super().clear()
        self.bytes = 0

    def __missing__(self, piece: str) -> Entry:
        entry = self.entry_of(piece, len(piece))
        if len(piece) > LONG_PIECE_CHARS:  # rarely repeats (as in the piece cache)
            return entry
        size = fields_entry_bytes(piece, entry)
        if len(self) >= self.max_entries or self.bytes + size > self.max_bytes:
            self.clear()
        self[piece] = entry
        self.bytes += size
        return entry


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector paused (if it runs) for the block: building a text's fields
    makes hundreds of thousands of tuples (offsets, entries) that hold no cycle, and the passes the
    collector makes over them as they are made cost a fifth of the build."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def relative_spans(piece: str, lengths: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """Each token's start and end characters in ``piece``, for tokens of ``lengths`` UTF-8 bytes
    that follow each other from its first byte, each at least one byte and ending on a character's
    boundary; None for any other tokens (the pipeline's rule, ``_token_char_spans``, then places them).

    >>> relative_spans("unaffable", [2, 3, 4]), relative_spans("für", [3, 1]), relative_spans("für", [2, 2])
    (((0, 2, 5), (2, 5, 9)), ((0, 2), (2, 3)), None)
    >>> relative_spans("λόγος", [4, 6]), relative_spans("λόγος", [3, 7])
    (((0, 2), (2, 5)), None)
    """
    if not lengths or min(lengths) <= 0:
        return None
    bounds = list(accumulate(lengths, initial=0))
    if piece.isascii():
        if bounds[-1] > len(piece):
            return None
    elif "\x80" <= min(piece) and max(piece) < "\u0800":  # two bytes a character (Greek, Cyrillic ...)
        if bounds[-1] > 2 * len(piece) or any(map(_ODD, bounds)):
            return None
        bounds = list(map(_HALF, bounds))
    else:  # bytes -> characters: each token's bytes decode alone where it ends at a character's boundary
        data = piece.encode("utf-8", "surrogatepass")
        if bounds[-1] > len(data):
            return None
        try:
            bounds = list(accumulate(map(len, map(_DECODE, map(data.__getitem__, map(slice, bounds, bounds[1:])))),
                                     initial=0))
        except UnicodeDecodeError:
            return None
    return tuple(bounds[:-1]), tuple(bounds[1:])


def append_fields(out: Piecewise, fields: PieceFields, pieces: list[str], starts: list[int], ends: list[int], *,
                  ids_of: Callable[[str], tuple[int, ...]], token_of: Callable[[int], str] | None, type_id: int,
                  word: int, shift: int,
                  align: Sequence[tuple[int, int]] | None, edits: Edits | None = None, base: int = 0,
                  char_widths: tuple[Mapping[int, int], Mapping[int, int]] | None = None) -> None:
    """Append the tokens of ``pieces`` (piece ``i`` spans ``[starts[i], ends[i])`` of its part,
    word ``word + i``; ``ids_of``: a piece's ids; ``token_of``: an id's token, None where the model
    names its tokens itself) to ``out``. Offsets: ``shift`` (the part's start in its normalized
    segment) is added to each span, then ``align`` (the normalizer's: normalized character ->
    ``(start, end)`` in the segment; None where it changed nothing), or ``edits`` (a per-character
    normalizer's: the characters it did not map to one) maps it, and ``base`` (the segment's start
    in the caller's text) is added. ``char_widths``: the model's ``token_char_widths()``, where a
    word's tokens are its text in order (WordPiece): the words cut into several tokens are then
    placed without an entry each (``_tiled``)."""
    widths = list(map(sub, ends, starts))
    lengths = list(map(len, pieces))
    # One token a piece, as written (WordLevel; most pieces of other models)? A look at the first
    # pieces first, so that a text with longer words does not pay for a pass over all of them.
    sample = list(map(len, map(ids_of, pieces[:_SAMPLE])))
    whole = token_of is not None and sample.count(1) == len(sample) and lengths == widths
    if whole:
        per_piece = list(map(ids_of, pieces))
        ids = list(chain.from_iterable(per_piece))
        whole = len(ids) == len(pieces) and list(map(len, per_piece)).count(1) == len(pieces)
    if whole:  # each token spans its piece
        assert token_of is not None
        tokens: Any = map(token_of, ids)
        token_starts, token_ends = starts, ends
        word_ids: list[Any] = list(range(word, word + len(ids)))
    elif char_widths is not None and token_of is not None and lengths == widths and (
            found := _tiled(list(map(ids_of, pieces)), starts, widths, char_widths)) is not None:
        ids, word_ids, token_starts, token_ends = found
        tokens = map(token_of, ids)
        if word:
            word_ids = list(map(add, word_ids, repeat(word)))
    else:
        entries: list[Entry] = list(map(fields.__getitem__, pieces))
        if lengths != widths:  # pieces a pre-tokenizer rewrote (Metaspace's "▁" put in front): made for their width
            for i in compress(range(len(pieces)), map(ne, lengths, widths)):
                entries[i] = fields.entry_of(pieces[i], widths[i])
        per_piece = list(map(_IDS, entries))
        counts = list(map(len, per_piece))
        ids = list(chain.from_iterable(per_piece))
        tokens = chain.from_iterable(map(_TOKENS, entries)) if token_of is None else map(token_of, ids)
        owner = _owners(counts)
        piece_starts = list(map(starts.__getitem__, owner))
        token_starts = list(map(add, piece_starts, chain.from_iterable(map(_STARTS, entries))))
        token_ends = list(map(add, piece_starts, chain.from_iterable(map(_ENDS, entries))))
        word_ids = list(map(add, owner, repeat(word))) if word else owner
    n = len(ids)
    out.ids += ids
    out.tokens += tokens
    out.offsets += _offsets(token_starts, token_ends, shift, align, edits, base)
    out.type_ids += [type_id] * n
    out.special_tokens_mask += [0] * n
    out.word_ids += word_ids
    out.sequence_ids += [type_id] * n


def _tiled(per_piece: list[tuple[int, ...]], starts: list[int], widths: list[int],
           char_widths: tuple[Mapping[int, int], Mapping[int, int]]) -> tuple[list[int], list[int], list[int], list[int]] | None:
    """Ids, owners (each token's piece), starts and ends of tokens that cover their pieces one
    after another, each as many characters as ``char_widths`` says (a piece of one token: all of
    it); None if some piece is not covered exactly so (then each piece's entry places them).

    >>> _tiled([(0,), (1, 2)], [0, 4], [3, 5], ({0: 9, 1: 2, 2: 1}, {0: 9, 1: 2, 2: 3}))
    ([0, 1, 2], [0, 1, 1], [0, 4, 6], [3, 6, 9])
    """
    first, later = char_widths
    counts = list(map(len, per_piece))
    if 0 in counts:
        return None
    ids = list(chain.from_iterable(per_piece))
    heads = list(accumulate(counts, initial=0))  # each piece's first token, and the end
    firsts = heads[:-1]
    token_widths = list(map(later.__getitem__, ids))
    deque(map(token_widths.__setitem__, firsts, map(first.__getitem__, map(ids.__getitem__, firsts))), maxlen=0)
    alone = list(map((1).__eq__, counts))
    deque(map(token_widths.__setitem__, compress(firsts, alone), compress(widths, alone)), maxlen=0)
    cum = list(accumulate(token_widths, initial=0))
    at_firsts = list(map(cum.__getitem__, firsts))
    if list(map(sub, map(cum.__getitem__, islice(heads, 1, None)), at_firsts)) != widths:
        return None
    owners = _owners(counts)
    shifts = list(map(sub, starts, at_firsts))
    piece_shifts = list(map(shifts.__getitem__, owners))
    return ids, owners, list(map(add, piece_shifts, cum)), list(map(add, piece_shifts, islice(cum, 1, None)))


def _owners(counts: list[int]) -> list[int]:
    """Each token's piece, for pieces of ``counts`` tokens: where every piece has one, every piece
    once and its further tokens' merged in (a sort of two sorted runs: a merge, in C), which costs
    less than a ``repeat`` a piece.

    >>> _owners([1, 3, 1, 2]), _owners([2, 0, 1])
    ([0, 1, 1, 1, 2, 3, 3], [0, 0, 2])
    """
    if 0 in counts:
        return list(chain.from_iterable(map(repeat, range(len(counts)), counts)))
    longer = list(compress(range(len(counts)), map(ne, counts, repeat(1))))
    owners = list(range(len(counts)))
    owners += chain.from_iterable(map(repeat, longer, map(sub, map(counts.__getitem__, longer), repeat(1))))
    owners.sort()
    return owners


def _offsets(starts: list[int], ends: list[int], shift: int, align: Sequence[tuple[int, int]] | None,
             edits: Edits | None, base: int) -> Iterable[tuple[int, int]]:
    """``(start, end)`` in the caller's text of tokens spanning ``[starts[k], ends[k])`` of the part."""
    if align is None and edits is None:
        shift += base
    if shift:
        starts = list(map(add, starts, repeat(shift)))
        ends = list(map(add, ends, repeat(shift)))
    if align is None and edits is None:
        return zip(starts, ends)
    if any(map(ge, starts, ends)) or (edits is None and not align):  # empty tokens: the rule's own cases
        whole = align if edits is None else edits.aligned()
        return [to_original(whole, s, e, base) for s, e in zip(starts, ends)]
    if edits is not None:
        return edits.offsets(starts, ends, base)
    assert align is not None
    first = map(_FIRST, map(align.__getitem__, starts))
    last = map(_LAST, map(align.__getitem__, map(sub, ends, repeat(1))))
    if base:
        return zip(map(add, first, repeat(base)), map(add, last, repeat(base)))
    return zip(first, last)


def to_original(align: Sequence[tuple[int, int]] | None, start: int, end: int, base: int) -> tuple[int, int]:
    """Characters ``[start, end)`` of a normalized segment -> ``(start, end)`` in the caller's text
    (``align``: the normalizer's, None where it changed nothing; ``base``: the segment's start).

    >>> to_original([(0, 1), (2, 3)], 0, 2, 10), to_original(None, 0, 2, 10)
    ((10, 13), (10, 12))
    """
    if align is None:
        return base + start, base + end
    if not align:
        return base, base
    if end <= start:
        at = align[min(start, len(align) - 1)][0] if start < len(align) else align[-1][1]
        return base + at, base + at
    return base + align[start][0], base + align[end - 1][1]
