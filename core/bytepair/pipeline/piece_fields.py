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
``token_char_widths``), a running sum of their widths over the words of several tokens places
the cuts inside them, merged into the words' bounds by a sort (``_tiled``).

>>> fields = PieceFields(lambda piece, width: ((len(piece),), (piece,), (0,), (width,)))
>>> out = Piecewise()
>>> append_fields(out, fields, ["ab", "c"], [0, 3], [2, 4], ids_of=lambda piece: (len(piece),),
...               token_of=None, type_id=0, word=0, shift=0, align=None, base=10)
>>> out.ids, out.offsets, out.word_ids
([2, 1], [(10, 12), (13, 14)], [0, 1])
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import accumulate, chain, compress, islice, repeat
from operator import add, ge, itemgetter, le, methodcaller, ne, sub
from typing import Any

from ..models.bpe.long_pieces import LONG_PIECE_CHARS
from ..normalizers.edits import Edits
from ..processors.base import Piecewise

__all__ = ["Entry", "PieceFields", "append_fields", "fields_entry_bytes", "relative_spans", "shifted_spans", "to_original"]

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
_FEW = 256
"""Up to this many pieces, a part's fields are put together piece by piece (``_append_few``)."""
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


def shifted_spans(starts: list[int], ends: list[int], shift: int, width: int) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """Tokens spanning ``[starts[k], ends[k])`` of a piece (none empty, in order: as a model's
    ``piece_char_spans`` gives them) that has ``shift`` characters put in front of the ``width``
    characters of text it stands for (Metaspace's ``"▁"``) -> their spans in that text, by the
    pipeline's rule (``_token_char_spans``): a token of put-in characters only spans the text's
    first character. None for a piece shorter than its text (the rule then places its tokens).

    >>> shifted_spans([0, 1, 4], [1, 4, 6], 1, 5)
    ((0, 0, 3), (1, 3, 5))
    """
    if shift < 0:
        return None
    if not shift:
        return tuple(starts), tuple(ends)
    if len(starts) > _FEW and starts[1:] == ends[:-1]:  # tokens one after another: their bounds moved once
        bounds = list(map(sub, chain(starts[:1], ends), repeat(shift)))
        moved_pairs: Iterable[list[int]] = (bounds[:-1], bounds[1:])
    else:
        moved_pairs = (list(map(sub, starts, repeat(shift))), list(map(sub, ends, repeat(shift))))
    out = []
    for moved, least in zip(moved_pairs, (0, 1 if width else 0)):
        k = 0
        while k < len(moved) and moved[k] < least:  # (in order: only the first tokens can fall short)
            moved[k] = least
            k += 1
        out.append(tuple(moved))
    return out[0], out[1]


def append_fields(out: Piecewise, fields: PieceFields, pieces: list[str], starts: list[int], ends: list[int], *,
                  ids_of: Callable[[str], tuple[int, ...]], token_of: Callable[[int], str] | None, type_id: int,
                  word: int, shift: int,
                  align: Sequence[tuple[int, int]] | None, edits: Edits | None = None, base: int = 0,
                  char_widths: tuple[Mapping[int, int], Mapping[int, int]] | None = None, whole: bool = True) -> None:
    """Append the tokens of ``pieces`` (piece ``i`` spans ``[starts[i], ends[i])`` of its part,
    word ``word + i``; ``ids_of``: a piece's ids; ``token_of``: an id's token, None where the model
    names its tokens itself) to ``out``. Offsets: ``shift`` (the part's start in its normalized
    segment) is added to each span, then ``align`` (the normalizer's: normalized character ->
    ``(start, end)`` in the segment; None where it changed nothing), or ``edits`` (a per-character
    normalizer's: the characters it did not map to one) maps it, and ``base`` (the segment's start
    in the caller's text) is added. ``char_widths``: the model's ``token_char_widths()``, where a
    word's tokens are its text in order (WordPiece): the words cut into several tokens are then
    placed without an entry each (``_tiled``). ``whole``: a piece of one token is all of it (False
    for a model that may drop characters: each piece's entry then places its tokens)."""
    if len(pieces) <= _FEW:
        _append_few(out, fields, pieces, starts, ends, ids_of=ids_of, token_of=token_of, type_id=type_id, word=word,
                    shift=shift, align=align, edits=edits, base=base, whole=whole)
        return
    found = None
    # Pieces as written, each one token (WordLevel; most pieces of other models), or WordPiece's?
    # A look at the first pieces first, so that a text with longer words does not pay for a pass
    # over all of them where no entry can be spared.
    if whole and token_of is not None and (char_widths is not None or all(map((1).__eq__, map(len, map(ids_of, pieces[:_SAMPLE]))))) \
            and list(map(len, pieces)) == list(map(sub, ends, starts)):
        per_piece = list(map(ids_of, pieces))
        counts = list(map(len, per_piece))
        ids = list(chain.from_iterable(per_piece))
        if 0 in counts or "" in pieces or not all(map(le, ends, islice(starts, 1, None))):
            pass  # (else: pieces none empty, in order and apart, and so their tokens)
        elif len(ids) == len(pieces):  # each token spans its piece
            found = list(range(word, word + len(ids))), starts, ends
        elif char_widths is not None and (tiled := _tiled(per_piece, counts, starts, ends, char_widths)) is not None:
            owners, token_starts, token_ends = tiled
            found = list(map(add, owners, repeat(word))) if word else owners, token_starts, token_ends
    if found is not None:
        assert token_of is not None
        word_ids, token_starts, token_ends = found
        tokens: Any = map(token_of, ids)
    else:
        widths = list(map(sub, ends, starts))
        rewritten = list(compress(range(len(pieces)), map(ne, map(len, pieces), widths)))  # by a pre-tokenizer
        if not rewritten:
            entries: list[Entry] = list(map(fields.__getitem__, pieces))
        else:  # (Metaspace's "▁" put in front): each made for its width, not kept
            entries = [fields.entry_of(piece, width) if len(piece) != width else fields[piece]
                       for piece, width in zip(pieces, widths)]
        per_piece = list(map(_IDS, entries))
        counts = list(map(len, per_piece))
        ids = list(chain.from_iterable(per_piece))
        tokens = chain.from_iterable(map(_TOKENS, entries)) if token_of is None else map(token_of, ids)
        owner = _owners(counts)
        piece_starts = list(map(starts.__getitem__, owner))
        token_starts = list(map(add, piece_starts, chain.from_iterable(map(_STARTS, entries))))
        token_ends = list(map(add, piece_starts, chain.from_iterable(map(_ENDS, entries))))
        word_ids = list(map(add, owner, repeat(word))) if word else owner
    _extend(out, ids, tokens, _offsets(token_starts, token_ends, shift, align, edits, base, ordered=found is not None),
            word_ids, type_id)


def _append_few(out: Piecewise, fields: PieceFields, pieces: list[str], starts: list[int], ends: list[int], *,
                 ids_of: Callable[[str], tuple[int, ...]], token_of: Callable[[int], str] | None, type_id: int,
                 word: int, shift: int, align: Sequence[tuple[int, int]] | None, edits: Edits | None, base: int,
                 whole: bool) -> None:
    """``append_fields`` of a few pieces (a short text's), piece by piece: the C loops' setting-up
    costs more than they save there. A piece of one token that is its text as written spans itself;
    any other piece's entry places its tokens."""
    ids: list[int] = []
    tokens: list[str] = []
    token_starts: list[int] = []
    token_ends: list[int] = []
    word_ids: list[int] = []
    for k, piece in enumerate(pieces):
        start, end = starts[k], ends[k]
        if whole and token_of is not None and len(piece) == end - start:
            piece_ids = ids_of(piece)
            if len(piece_ids) == 1:
                ids.append(piece_ids[0])
                tokens.append(token_of(piece_ids[0]))
                token_starts.append(start)
                token_ends.append(end)
                word_ids.append(word + k)
                continue
        piece_ids, strings, relative_starts, relative_ends = (
            fields[piece] if len(piece) == end - start else fields.entry_of(piece, end - start))
        ids += piece_ids
        tokens += strings if token_of is None else map(token_of, piece_ids)
        token_starts += [start + at for at in relative_starts] if start else relative_starts
        token_ends += [start + at for at in relative_ends] if start else relative_ends
        word_ids += [word + k] * len(piece_ids)
    _extend(out, ids, tokens, _offsets(token_starts, token_ends, shift, align, edits, base), word_ids, type_id)


def _extend(out: Piecewise, ids: list[int], tokens: Iterable[str], offsets: Iterable[tuple[int, int]],
            word_ids: list[int], type_id: int) -> None:
    """Append a part's tokens to ``out``: text tokens of sequence ``type_id``, none special."""
    n = len(ids)
    out.ids += ids
    out.tokens += tokens
    out.offsets += offsets
    out.type_ids += [type_id] * n
    out.special_tokens_mask += [0] * n
    out.word_ids += word_ids
    out.sequence_ids += [type_id] * n


def _tiled(per_piece: list[tuple[int, ...]], counts: list[int], starts: list[int], ends: list[int],
           char_widths: tuple[Mapping[int, int], Mapping[int, int]]) -> tuple[list[int], list[int], list[int]] | None:
    """Owners (each token's piece), starts and ends of the tokens of pieces ``[starts[i], ends[i])``
    (``counts``: their tokens' numbers, none 0) that cover their pieces one after another, each as
    many characters as ``char_widths`` says (a piece of one token: all of it); None if some piece
    is not covered exactly so (then each piece's entry places them).

    Only the pieces of several tokens are worked on: the cuts inside them (each a token's end and
    the next one's start) are merged into the pieces' starts and ends by a sort of two sorted runs
    (a merge, in C), as their pieces' indices into the owners (``_owners``).

    >>> _tiled([(0,), (1, 2)], [1, 2], [0, 4], [3, 9], ({0: 9, 1: 2, 2: 1}, {0: 9, 1: 2, 2: 3}))
    ([0, 1, 1], [0, 4, 6], [3, 6, 9])
    """
    first, later = char_widths
    many = list(compress(range(len(counts)), map((1).__lt__, counts)))
    if not many:
        return list(range(len(counts))), starts, ends
    many_counts = list(map(counts.__getitem__, many))
    ids = list(chain.from_iterable(map(per_piece.__getitem__, many)))
    widths = list(map(later.__getitem__, ids))
    heads = list(accumulate(many_counts, initial=0))  # each piece's first token, and the end
    firsts = heads[:-1]
    deque(map(widths.__setitem__, firsts, map(first.__getitem__, map(ids.__getitem__, firsts))), maxlen=0)
    if 0 in widths:
        return None
    cum = list(accumulate(widths, initial=0))
    at_heads = list(map(cum.__getitem__, heads))
    many_starts = list(map(starts.__getitem__, many))
    if list(map(sub, islice(at_heads, 1, None), at_heads)) != list(map(sub, map(ends.__getitem__, many), many_starts)):
        return None
    inner = list(map(sub, many_counts, repeat(1)))  # each piece's cuts
    keep = [True] * len(cum)  # the cuts: every running sum but the pieces' bounds
    deque(map(keep.__setitem__, heads, repeat(False)), maxlen=0)
    cuts = list(map(add, compress(cum, keep),
                    chain.from_iterable(map(repeat, map(sub, many_starts, at_heads), inner))))
    token_starts = starts + cuts
    token_starts.sort()
    token_ends = ends + cuts
    token_ends.sort()
    owners = list(range(len(counts)))
    owners += chain.from_iterable(map(repeat, many, inner))
    owners.sort()
    return owners, token_starts, token_ends


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
             edits: Edits | None, base: int, *, ordered: bool = False) -> Iterable[tuple[int, int]]:
    """``(start, end)`` in the caller's text of tokens spanning ``[starts[k], ends[k])`` of the part
    (``ordered``: the caller knows them none empty, each after the one before)."""
    if align is None and edits is None:
        shift += base
    if shift:
        starts = list(map(add, starts, repeat(shift)))
        ends = list(map(add, ends, repeat(shift)))
    if align is None and edits is None:
        return zip(starts, ends)
    if (not ordered and any(map(ge, starts, ends))) or (edits is None and not align):  # empty tokens: the rule's own cases
        whole = align if edits is None else edits.aligned()
        return [to_original(whole, s, e, base) for s, e in zip(starts, ends)]
    if edits is not None:
        return edits.offsets(starts, ends, base, ordered=ordered)
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
