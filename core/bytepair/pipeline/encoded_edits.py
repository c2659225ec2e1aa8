"""HF ``Encoding``'s editing methods over :class:`~bytepair.pipeline.encoded.Encoded`: ``merge``,
``truncate`` and ``set_sequence_id``, with HF's results to the last field.

Why a module of its own: HF keeps which text a token comes from as *sequence ranges* (sequence id ->
token range, a map), not as a list, and these three methods edit the ranges; ``sequence_ids`` is then
read through them. Reproducing HF exactly means keeping the same ranges: a merge overwrites a range
of the same id (``Encoding.merge`` of two single texts leaves the first one's tokens with no sequence
id), a truncation drops them (every token then reads sequence id 0), ``set_sequence_id`` adds
a range over every token; and HF reads the sequence ids of ``n`` ranges as texts ``0..n``, each over
its range (or over every token if no range has that id), later over earlier. An encoding without
ranges (one text, no post-processor) has sequence id 0 everywhere.

>>> from bytepair.pipeline.encoded import Encoded
>>> a = Encoded([1, 2], {"tokens": ["a", "b"], "offsets": [(0, 1), (1, 2)], "type_ids": [0, 0],
...     "attention_mask": [1, 1], "special_tokens_mask": [0, 0], "word_ids": [0, 1], "sequence_ids": [0, 0],
...     "overflowing": []})
>>> m = merged([a, a], growing_offsets=True, cls=Encoded)
>>> m.ids, m.offsets, m.sequence_ids
([1, 2, 1, 2], [(0, 1), (1, 2), (2, 3), (3, 4)], [None, None, 0, 0])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import InvalidArgumentError, InvalidInputError
from ..text.checks import require_count

if TYPE_CHECKING:
    from .encoded import Encoded

__all__ = ["FIELDS", "Ranges", "merged", "ranges_from_ids", "sequence_ids_from", "truncated"]

FIELDS = ("ids", "tokens", "offsets", "type_ids", "attention_mask", "special_tokens_mask", "word_ids")
"""The per-token lists besides sequence ids (those are read through the ranges)."""

Ranges = dict[int, tuple[int, int]]


def ranges_from_ids(sequence_ids: Sequence[int | None], n_sequences: int) -> Ranges:
    """The ranges HF keeps for tokens of these sequence ids (each text's tokens are contiguous; an
    empty text has an empty range, and where it sits does not matter)."""
    found: Ranges = {}
    for index, sequence in enumerate(sequence_ids):
        if sequence is not None:
            start, _ = found.get(sequence, (index, index))
            found[sequence] = (start, index + 1)
    for k in range(n_sequences):
        found.setdefault(k, (0, 0))
    return found


def sequence_ids_from(ranges: Ranges, n: int) -> list[int | None]:
    """HF's reading of ranges as sequence ids: for k in 0..len(ranges), the tokens of range k (every
    token if there is no range k) get k, later over earlier; no ranges: 0 everywhere."""
    if not ranges:
        return [0] * n
    ids: list[int | None] = [None] * n
    for k in range(len(ranges)):
        lo, hi = ranges.get(k, (0, n))
        ids[lo:hi] = [k] * len(ids[lo:hi])
    return ids


def _empty(cls: type[Encoded]) -> Encoded:
    out = cls([], {name: [] for name in FIELDS[1:]})
    out.overflowing = []
    out.set_sequence_ranges({})
    return out


def _copy(encoding: Encoded) -> Encoded:
    encoding.materialize()
    out = type(encoding)(list(encoding.ids), {name: list(getattr(encoding, name)) for name in FIELDS[1:]})
    out.overflowing = [_copy(o) for o in encoding.overflowing]
    out.set_sequence_ranges(encoding.sequence_ranges())
    return out


def _merge_into(target: Encoded, other: Encoded, growing_offsets: bool) -> None:
    """HF's ``merge_with``: ``other`` appended to ``target``, overflows combined pairwise."""
    target.materialize()
    other.materialize()
    overflowing = []
    for mine in target.overflowing:
        for theirs in (other, *other.overflowing):
            combined = _copy(mine)
            _merge_into(combined, _copy(theirs), growing_offsets)
            overflowing.append(combined)
    for theirs in other.overflowing:
        combined = _copy(target)
        _merge_into(combined, _copy(theirs), growing_offsets)
        overflowing.append(combined)
    length = len(target.ids)
    ranges = target.sequence_ranges()
    ranges.update({s: (lo + length, hi + length) for s, (lo, hi) in other.sequence_ranges().items()})
    shift = target.offsets[-1][1] if (growing_offsets and target.offsets) else 0
    for name in FIELDS:
        mine_values = getattr(target, name)
        theirs_values = getattr(other, name)
        if name == "offsets":
            theirs_values = [(s + shift, e + shift) for s, e in theirs_values]
        setattr(target, name, mine_values + list(theirs_values))
    target.overflowing = overflowing
    target.set_sequence_ranges(ranges)


def merged(encodings: Sequence[Encoded], growing_offsets: bool = True, cls: type[Encoded] | None = None) -> Encoded:
    """HF's ``Encoding.merge``: the encodings one after another (offsets of each continuing from the
    last end before it when ``growing_offsets``), their overflows combined."""
    out = _empty(cls if cls is not None else type(encodings[0]))
    for encoding in encodings:
        _merge_into(out, _copy(encoding), growing_offsets)
    return out


def truncated(encoding: Encoded, max_length: int, stride: int = 0, direction: str = "right") -> None:
    """HF's ``Encoding.truncate``, in place: keep ``max_length`` tokens; what is cut comes back as
    ``overflowing`` windows overlapping by ``stride`` (earlier overflows are dropped, as in HF)."""
    require_count(max_length, "max_length")
    require_count(stride, "stride")
    if direction not in ("right", "left"):
        raise InvalidInputError(f"truncation direction must be 'right' or 'left', not {direction!r}")
    n = len(encoding.ids)
    if max_length >= n:
        return
    encoding.materialize()
    ranges: Ranges = {}  # HF's truncated encodings and their overflows keep no sequence ranges
    if max_length == 0:
        whole = _copy(encoding)  # with the ranges it had
        whole.overflowing = []
        for name in FIELDS:
            setattr(encoding, name, [])
        encoding.overflowing = [whole]
        encoding.set_sequence_ranges(ranges)
        return
    if stride >= max_length:
        raise InvalidArgumentError(f"stride ({stride}) must be less than max_length ({max_length}): each window "
                                   "must move forward; use a smaller stride")
    step = max_length - stride
    parts: list[tuple[int, int]] = []
    if direction == "right":
        for start in range(0, n, step):
            parts.append((start, min(start + max_length, n)))
            if parts[-1][1] == n:
                break
    else:
        for last in range(n - 1, -1, -step):
            parts.append((max(0, last + 1 - max_length), last + 1))
            if parts[-1][0] == 0:
                break
    pieces = []
    for start, stop in parts:
        piece = _empty(type(encoding))
        for name in FIELDS:
            setattr(piece, name, getattr(encoding, name)[start:stop])
        piece.set_sequence_ranges(ranges)
        pieces.append(piece)
    for name in FIELDS:
        setattr(encoding, name, getattr(pieces[0], name))
    encoding.overflowing = pieces[1:]
    encoding.set_sequence_ranges(ranges)
