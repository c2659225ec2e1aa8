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

__all__ = ["FIELDS", "Ranges", "merged", "padded_ranges", "ranges_of", "set_ranges", "truncated"]

FIELDS = ("ids", "tokens", "offsets", "type_ids", "attention_mask", "special_tokens_mask", "word_ids")
"""The per-token lists besides sequence ids (those are read through the ranges)."""

Ranges = dict[int, tuple[int, int]]


def ranges_of(encoding: Encoded) -> Ranges:
    """The encoding's sequence ranges: the ones an edit left, else read off its sequence ids."""
    kept = encoding.__dict__.get("_ranges")
    if kept is not None:
        return dict(kept)
    encoding._materialize()
    if encoding.__dict__.get("_pad_sequence_id") == 0:
        return {}  # one text without a post-processor: HF keeps no ranges
    found: Ranges = {}
    for index, sequence in enumerate(encoding.sequence_ids):
        if sequence is not None:
            start, _ = found.get(sequence, (index, index))
            found[sequence] = (start, index + 1)
    for k in range(encoding.n_sequences):  # an empty text has an empty range (where does not matter)
        found.setdefault(k, (0, 0))
    return found


def set_ranges(encoding: Encoded, ranges: Ranges) -> None:
    """Give ``encoding`` these ranges, and the sequence ids and count of texts they make."""
    n = len(encoding.ids)
    encoding._ranges = dict(ranges)
    encoding._n_sequences = max(1, len(ranges))
    if not ranges:
        encoding.sequence_ids = [0] * n
        encoding._pad_sequence_id = 0
        return
    encoding._pad_sequence_id = None
    # HF reads sequence ids as: for k in 0..n_sequences, the tokens of range k (all tokens if there
    # is no range k) get k, later ones over earlier ones.
    ids: list[int | None] = [None] * n
    for k in range(len(ranges)):
        lo, hi = ranges.get(k, (0, n))
        ids[lo:hi] = [k] * len(ids[lo:hi])
    encoding.sequence_ids = ids


def _empty(cls: type[Encoded]) -> Encoded:
    out = cls([], {name: [] for name in FIELDS[1:]})
    out.overflowing = []
    set_ranges(out, {})
    return out


def _copy(encoding: Encoded) -> Encoded:
    encoding._materialize()
    out = type(encoding)(list(encoding.ids), {name: list(getattr(encoding, name)) for name in FIELDS[1:]})
    out.overflowing = [_copy(o) for o in encoding.overflowing]
    set_ranges(out, ranges_of(encoding))
    return out


def _merge_into(target: Encoded, other: Encoded, growing_offsets: bool) -> None:
    """HF's ``merge_with``: ``other`` appended to ``target``, overflows combined pairwise."""
    target._materialize()
    other._materialize()
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
    ranges = ranges_of(target)
    ranges.update({s: (lo + length, hi + length) for s, (lo, hi) in ranges_of(other).items()})
    shift = target.offsets[-1][1] if (growing_offsets and target.offsets) else 0
    for name in FIELDS:
        mine_values = getattr(target, name)
        theirs_values = getattr(other, name)
        if name == "offsets":
            theirs_values = [(s + shift, e + shift) for s, e in theirs_values]
        setattr(target, name, mine_values + list(theirs_values))
    target.overflowing = overflowing
    set_ranges(target, ranges)


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
    encoding._materialize()
    ranges: Ranges = {}  # HF's truncated encodings and their overflows keep no sequence ranges
    if max_length == 0:
        whole = _copy(encoding)  # with the ranges it had
        whole.overflowing = []
        for name in FIELDS:
            setattr(encoding, name, [])
        encoding.overflowing = [whole]
        set_ranges(encoding, ranges)
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
        set_ranges(piece, ranges)
        pieces.append(piece)
    for name in FIELDS:
        setattr(encoding, name, getattr(pieces[0], name))
    encoding.overflowing = pieces[1:]
    set_ranges(encoding, ranges)


def padded_ranges(encoding: Encoded, added: int, direction: str) -> None:
    """After ``added`` padding tokens: ranges an edit left move with the tokens (left padding), and
    the sequence ids are read through them again."""
    kept = encoding.__dict__.get("_ranges")
    if kept is None:
        return
    shift = added if direction == "left" else 0
    set_ranges(encoding, {k: (lo + shift, hi + shift) for k, (lo, hi) in kept.items()})
