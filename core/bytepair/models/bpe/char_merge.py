"""Merging text in non-Latin scripts from whole characters, exactly: a shortcut for new pieces.

Why. A Chinese piece of six characters is 18 bytes; merging it byte by byte spends twelve of its
fifteen steps rebuilding the characters, which nearly every vocabulary holds as tokens. Starting
from the characters does the same work in three steps. It is exact when two conditions hold, and
both are checked, the first per character, the second per merge:

1. **The character is sealed where it stands**: no token of the vocabulary holds a proper part
   of the character together with the byte just before it or just after it in the piece (no token
   ends with the character's first bytes after that byte, none starts with its last bytes and
   goes on with that byte). Then every merge touching its bytes stays inside it until it is
   whole, so its bytes end in the tokens they end in alone, ``t1 .. tk``, whatever happens around
   them; ``R`` is the highest rank of those inner merges. If ``k > 1`` the character never joins
   anything (a token holding ``t1`` and a byte before it would hold part of the character), so its
   tokens are final.
2. **No merge with a pre-built character comes early**: every merge the shortcut makes that takes
   such a character (``k = 1``) as one side has a rank above the character's ``R``.

Proof sketch: run the byte-level merge ``P`` and the shortcut ``Q`` side by side. While a sealed
character is unfinished in ``P``, the pairs ``P`` can merge are ``Q``'s pairs that do not touch it,
plus the character's inner pairs (condition 1: nothing else touching its bytes is a token). So
whenever ``Q``'s lowest pair does not touch an unfinished character, ``P`` makes the same merge,
after perhaps some inner merges; when it does touch one, its rank is above that character's ``R``
(condition 2), so ``P`` first finishes the character (its inner pairs all rank lower) and then
makes the same merge. Inner merges only finish characters, so both end in the same tokens. When a
merge breaks condition 2, the piece is merged from its bytes instead (``None`` from ``merge``).
The fragments of condition 1 come from one pass over the vocabulary on first use (~6 ms for
cl100k, ~20 ms for o200k), or ready-made from the header of a bundled ``.bpr`` file; each
character's inner merge is worked out once, on first sight.

>>> ranks = {bytes([b]): b for b in range(256)}
>>> for token in (b"\\xe4\\xb8", b"\\xe4\\xb8\\xad", b"\\xe6\\x96", b"\\xe6\\x96\\x87", b"\\xe4\\xb8\\xad\\xe6\\x96\\x87"):
...     ranks[token] = len(ranks)
>>> starts = CharStarts(ranks)
>>> starts.merge("中文")  # 中 and 文 are sealed tokens; 中文 is one token
[260]
>>> from bytepair.models.bpe.merge import apply_merges
>>> apply_merges("中文".encode(), ranks)
[260]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import repeat
from operator import add, mul
from typing import TYPE_CHECKING, Any

from .merge import NO_RANK, SINGLE_BYTES, merge_steps

if TYPE_CHECKING:  # pragma: no cover
    from .pair_merge import MergeTable

__all__ = ["CHAR_MERGE_AFTER", "CHAR_MERGE_MAX_BYTES", "CharStarts", "Fragments", "LazyCharMerge", "PairCharStarts", "fragment_tables", "pack_fragments", "unpack_fragments"]

CHAR_MERGE_MAX_BYTES = 256
CHAR_MERGE_AFTER = 256
"""A model builds the character tables once this many new pieces could have used them: the tables
cost about as much as merging that many pieces byte by byte."""
"""Longer pieces take the heap merge or the long-piece path (this merge rescans its pairs each step)."""

_NOT_BUILT = -1  # guard of a part that was not pre-built (any merge may take it)

Fragments = tuple[dict[bytes, set[int]], dict[bytes, set[int]]]
"""(leading, trailing): see ``fragment_tables``."""


def _is_continuation(byte: int) -> bool:
    return 0x80 <= byte < 0xC0


def fragment_tables(tokens: Iterable[bytes]) -> Fragments:
    """The character fragments tokens begin or end with while holding other bytes too.

    ``leading[f]``: tokens start with the continuation bytes ``f`` (the end of some character) and
    go on; the set holds the bytes that follow ``f`` in them. ``trailing[f]``: tokens end with the
    unfinished character ``f`` after other bytes; the set holds the bytes just before ``f``.
    """
    leading: dict[bytes, set[int]] = {}
    trailing: dict[bytes, set[int]] = {}
    for token in tokens:
        if len(token) < 2:
            continue
        if 0x80 <= token[0] < 0xC0:
            k = 1
            while k < len(token) and 0x80 <= token[k] < 0xC0:
                k += 1
            if k < len(token):
                leading.setdefault(token[:k], set()).add(token[k])
        if token[-1] >= 0x80:
            p = len(token) - 1
            while p > 0 and 0x80 <= token[p] < 0xC0:
                p -= 1
            lead = token[p]
            need = 2 if 0xC0 <= lead < 0xE0 else 3 if lead < 0xF0 else 4
            if lead >= 0xC0 and len(token) - p < need and p > 0:
                trailing.setdefault(token[p:], set()).add(token[p - 1])
    return leading, trailing


def pack_fragments(fragments: Fragments) -> dict[str, dict[str, str]]:
    """``fragment_tables``' result as JSON-ready hex strings (bytepair's ``.bpr`` files carry it, so a
    process need not pass over the whole vocabulary to build it: ~20 ms for o200k natively, a few
    times that in the browser).

    >>> tables = fragment_tables([b"\\x80a", b"x\\xc3"])
    >>> unpack_fragments(pack_fragments(tables)) == tables
    True
    """
    return {
        name: {fragment.hex(): bytes(sorted(neighbours)).hex() for fragment, neighbours in sorted(table.items())}
        for name, table in zip(("leading", "trailing"), fragments)
    }


def unpack_fragments(packed: dict[str, dict[str, str]]) -> Fragments:
    """``pack_fragments`` undone."""
    leading, trailing = (
        {bytes.fromhex(fragment): set(bytes.fromhex(neighbours)) for fragment, neighbours in packed[name].items()}
        for name in ("leading", "trailing")
    )
    return leading, trailing


_Entry = tuple[tuple, tuple[int, ...], frozenset[int], frozenset[int], int] | None


MAX_CHARS_REMEMBERED = 1 << 16
"""Characters whose parts are kept at most (an entry is ~0.5 kB; all of Unicode would be ~600 MB,
and a text cycling through it, as a test of every code point does, grew a model that much)."""


class _CharParts(dict[str, _Entry]):
    """Character -> (the parts its bytes merge into alone, ``R`` once per part (their guards), the
    bytes that may not precede it, the bytes that may not follow it, its length in bytes); None
    for a one-byte character. Worked out on first sight; emptied when it holds
    ``MAX_CHARS_REMEMBERED`` (the characters in use come back at once)."""

    def __init__(self, owner: _Starts) -> None:
        super().__init__()
        self._owner = owner

    def __missing__(self, char: str) -> _Entry:
        value = self._owner._entry(char)
        if len(self) >= MAX_CHARS_REMEMBERED:
            self.clear()
        self[char] = value
        return value


class _Starts:
    """What both merge rules share: sealing characters, and a piece's starting parts and guards.

    A rule supplies ``_single`` (byte -> its starting part), ``_inner(data)`` (the parts the bytes
    merge into alone, and the highest merge priority used) and ``_token_bytes()`` (every token's
    bytes, for the fragments; called once, on first use).
    """

    _single: Sequence[Any]

    def __init__(self) -> None:
        self._fragments: Fragments | None = None
        self._parts = _CharParts(self)
        self._before: dict[bytes, frozenset[int]] = {}  # a character's bytes but the last -> its "before"
        self._after: dict[bytes, frozenset[int]] = {}  # its bytes but the first -> its "after"

    def _token_bytes(self) -> Iterable[bytes]:  # pragma: no cover - each rule defines it
        raise NotImplementedError

    def _load_fragments(self) -> Fragments:
        """The fragment tables, from one pass over every token (a rule may have them precomputed)."""
        return fragment_tables(self._token_bytes())

    def forget(self) -> None:
        """Forget the characters worked out so far (the fragment tables stay: they are the vocabulary's)."""
        self._parts.clear()
        self._before.clear()
        self._after.clear()

    def _inner(self, data: bytes) -> tuple[tuple, int]:  # pragma: no cover - each rule defines it
        raise NotImplementedError

    def _entry(self, char: str) -> _Entry:
        data = char.encode("utf-8", "surrogatepass")
        if len(data) < 2:
            return None
        if self._fragments is None:
            self._fragments = self._load_fragments()
        # What may precede a character depends only on its bytes but the last, what may follow it
        # only on its bytes but the first: both shared by many characters, so worked out once each.
        before = self._before.get(data[:-1])
        if before is None:
            trailing = self._fragments[1]
            before = self._before[data[:-1]] = frozenset().union(*(trailing.get(data[:j], ()) for j in range(1, len(data))))
        after = self._after.get(data[1:])
        if after is None:
            leading = self._fragments[0]
            after = self._after[data[1:]] = frozenset().union(*(leading.get(data[j:], ()) for j in range(1, len(data))))
        parts, inner = self._inner(data)
        return parts, (inner,) * len(parts), before, after, len(data)

    def _start(self, piece: str) -> tuple[list[Any], list[int]]:
        """The piece's starting parts (sealed characters pre-built, the rest single bytes) and
        each part's guard (``R`` of its character, or ``_NOT_BUILT``)."""
        single = self._single
        entries = list(map(self._parts.__getitem__, piece))
        parts: list[Any] = []
        guards: list[int] = []
        data = piece.encode("utf-8", "surrogatepass")
        at = 0  # byte offset of the current character
        last = len(data)
        for entry in entries:
            if entry is None:  # one byte
                parts.append(single[data[at]])
                guards.append(_NOT_BUILT)
                at += 1
                continue
            built, built_guards, before, after, width = entry
            end = at + width
            if (at and before and data[at - 1] in before) or (end < last and after and data[end] in after):
                parts += map(single.__getitem__, data[at:end])
                guards += repeat(_NOT_BUILT, end - at)
            else:
                parts += built
                guards += built_guards
            at = end
        return parts, guards


class CharStarts(_Starts):
    """tiktoken's rule (token ranks, ``models/bpe/merge.py``) from a piece's sealed characters."""

    def __init__(
        self, ranks: dict[bytes, int], tokens: list[bytes] | None = None, fragments: Callable[[], Fragments | None] | None = None
    ) -> None:
        """``fragments``, if given, returns the vocabulary's ``fragment_tables`` precomputed (or None)."""
        super().__init__()
        self.ranks = ranks
        self._tokens = tokens
        self._precomputed = fragments
        self._single = SINGLE_BYTES

    def _token_bytes(self) -> Iterable[bytes]:
        return self._tokens if self._tokens is not None else list(self.ranks)

    def _load_fragments(self) -> Fragments:
        found = self._precomputed() if self._precomputed is not None else None
        return found if found is not None else super()._load_fragments()

    def _inner(self, data: bytes) -> tuple[tuple, int]:
        return _inner_merge(data, self.ranks)

    def merge(self, piece: str) -> list[int] | None:
        """The merge rule's ids for ``piece`` (not itself a token), or None where the shortcut
        cannot vouch for them (condition 2 failed): then merge its bytes."""
        get = self.ranks.get
        parts, guards = self._start(piece)
        pair_ranks = list(map(get, map(add, parts, parts[1:]), repeat(NO_RANK)))
        while pair_ranks:
            best = min(pair_ranks)
            if best == NO_RANK:
                break
            i = pair_ranks.index(best)
            if best <= guards[i] or best <= guards[i + 1]:
                return None
            merged = parts[i] + parts[i + 1]
            parts[i] = merged
            guards[i] = _NOT_BUILT
            del parts[i + 1]
            del guards[i + 1]
            del pair_ranks[i]
            if i < len(pair_ranks):
                pair_ranks[i] = get(merged + parts[i + 1], NO_RANK)
            if i:
                pair_ranks[i - 1] = get(parts[i - 1] + merged, NO_RANK)
        return list(map(self.ranks.__getitem__, parts))


class PairCharStarts(_Starts):
    """Hugging Face's rule (pair ranks, ``models/bpe/pair_merge.py``) for byte-level models, from a piece's
    sealed characters. Parts are token ids; a merge's priority is its packed table value (rank
    first), which is what the guards hold. The proof is the module's, with "rank of a merge" read
    as the rank of the listed pair."""

    def __init__(self, table: MergeTable, byte_ids: Sequence[int], token_bytes: Callable[[], Iterable[bytes]]) -> None:
        super().__init__()
        self.table = table
        self._single = byte_ids
        self._tokens = token_bytes
        self._guard_of: dict[int, int] = {}  # a one-token character's token id -> its R

    def _token_bytes(self) -> Iterable[bytes]:
        return self._tokens()

    def _inner(self, data: bytes) -> tuple[tuple, int]:
        """The pair-rank merge of ``data`` alone, and the highest packed value it used (-1 if
        none). Three-byte characters (most CJK) are worked out in straight lines, one per first
        merge, as ``_inner_scan`` would; a first pass meets thousands of new characters."""
        if len(data) != 3:
            return self._inner_scan(data)
        width, get = self.table.width, self.table.packed.get
        single = self._single
        a, b, c = single[data[0]], single[data[1]], single[data[2]]
        left, right = get(a * width + b), get(b * width + c)
        if left is None and right is None:
            return (a, b, c), -1
        if right is None or (left is not None and left <= right):  # a + b first (leftmost of equals)
            ab = left % width  # type: ignore[operator]
            last = get(ab * width + c)
            return ((ab, c), left) if last is None else ((last % width,), max(left, last))  # type: ignore[type-var]
        bc = right % width
        last = get(a * width + bc)
        return ((a, bc), right) if last is None else ((last % width,), max(right, last))

    def _inner_scan(self, data: bytes) -> tuple[tuple, int]:
        """``_inner`` for any length, as ``pair_merge``'s scan of a short list."""
        width, get, none = self.table.width, self.table.packed.get, self.table.no_merge
        parts = list(map(self._single.__getitem__, data))
        values = list(map(get, map(add, map(mul, parts, repeat(width)), parts[1:]), repeat(none)))
        highest = -1
        while values:
            best = min(values)
            if best == none:
                break
            if best > highest:
                highest = best
            i = values.index(best)
            merged = best % width
            parts[i] = merged
            del parts[i + 1]
            del values[i]
            if i < len(values):
                values[i] = get(merged * width + parts[i + 1], none)
            if i:
                values[i - 1] = get(parts[i - 1] * width + merged, none)
        return tuple(parts), highest

    def _entry(self, char: str) -> _Entry:
        """The shared entry; a one-token character's guard is also kept by its token id."""
        entry = super()._entry(char)
        if entry is not None and len(entry[0]) == 1:
            self._guard_of[entry[0][0]] = entry[1][0]
        return entry

    def _start_parts(self, piece: str) -> list[int]:
        """``_start``'s parts without its guards (``merge`` reads guards by token id)."""
        single = self._single
        entries = list(map(self._parts.__getitem__, piece))
        parts: list[int] = []
        data = piece.encode("utf-8", "surrogatepass")
        at = 0  # byte offset of the current character
        last = len(data)
        for entry in entries:
            if entry is None:  # one byte
                parts.append(single[data[at]])
                at += 1
                continue
            built, _, before, after, width = entry
            end = at + width
            if (at and before and data[at - 1] in before) or (end < last and after and data[end] in after):
                parts += map(single.__getitem__, data[at:end])
            else:
                parts += built
            at = end
        return parts

    def merge(self, piece: str) -> list[int] | None:
        """The pair-rank rule's ids for ``piece``, or None where the shortcut cannot vouch for them.

        Guards are read by token id (``_guard_of``: a one-token character's ``R``), not carried in a
        list beside the parts: a part that is a pre-built character has its character's guard, as
        in ``_start``; a merged part that happens to be such a token gets a guard it need not have,
        which can only make the merge refuse (then the piece is merged from its bytes, exactly).
        Parts of characters of several tokens need no guard: those never join anything (module
        docstring). ``reference_merge`` keeps the guards list of ``_start``; tests hold them equal."""
        width, get, none = self.table.width, self.table.packed.get, self.table.no_merge
        guard = self._guard_of.get
        parts = self._start_parts(piece)
        # A comprehension over zip: ~15% cheaper than a chain of maps for these short lists.
        values = [get(a * width + b, none) for a, b in zip(parts, parts[1:])]
        while values:
            best = min(values)
            if best == none:
                break
            i = values.index(best)
            merged = best % width
            if best <= guard(parts[i], _NOT_BUILT) or best <= guard(parts[i + 1], _NOT_BUILT):
                return None
            parts[i] = merged
            del parts[i + 1]
            del values[i]
            if i < len(values):
                values[i] = get(merged * width + parts[i + 1], none)
            if i:
                values[i - 1] = get(parts[i - 1] * width + merged, none)
        return parts

    def reference_merge(self, piece: str) -> list[int] | None:
        """``merge`` with each part's guard carried beside it, as ``_start`` gives them."""
        width, get, none = self.table.width, self.table.packed.get, self.table.no_merge
        parts, guards = self._start(piece)
        values = [get(a * width + b, none) for a, b in zip(parts, parts[1:])]
        while values:
            best = min(values)
            if best == none:
                break
            i = values.index(best)
            if best <= guards[i] or best <= guards[i + 1]:
                return None
            merged = best % width
            parts[i] = merged
            guards[i] = _NOT_BUILT
            del parts[i + 1]
            del guards[i + 1]
            del values[i]
            if i < len(values):
                values[i] = get(merged * width + parts[i + 1], none)
            if i:
                values[i - 1] = get(parts[i - 1] * width + merged, none)
        return parts


class LazyCharMerge:
    """The rule both models follow for a new piece: start from its characters (``CharStarts`` or
    ``PairCharStarts``, made by ``build``) when they are mostly multi-byte, 1.5 bytes each or more
    (Cyrillic, Greek, CJK ...), and only once ``CHAR_MERGE_AFTER`` such pieces came to pay for the
    tables. Measured on the corpus's new pieces: about 0.9x the byte merge's time at 1.5-2.5 bytes a
    character, 0.5-0.6x from 2.5 on; Latin text with a few accents gains nothing. The tables cost
    one pass over the vocabulary (~20 ms for o200k) unless precomputed; English text has a handful
    of such pieces.

    >>> ranks = {bytes([b]): b for b in range(256)}
    >>> lazy = LazyCharMerge(lambda: CharStarts(ranks))
    >>> [lazy.merge("中文", "中文".encode()) for _ in range(CHAR_MERGE_AFTER)][-2:]
    [None, [228, 184, 173, 230, 150, 135]]
    """

    def __init__(self, build: Callable[[], _Starts]) -> None:
        self._build = build
        self._starts: _Starts | None = None
        self._pieces = 0  # pieces that could have taken the character merge before it was built

    def forget(self) -> None:
        """Forget what was worked out per character (``clear_memos`` of the model)."""
        if self._starts is not None:
            self._starts.forget()

    def merge(self, piece: str, data: bytes) -> list[Any] | None:
        """The merge rule's ids for ``piece`` (``data`` its UTF-8 bytes), or None: the caller
        merges its bytes (not mostly multi-byte, tables not built yet, or the shortcut declined)."""
        if not 3 * len(piece) <= 2 * len(data) <= 2 * CHAR_MERGE_MAX_BYTES:
            return None
        if self._starts is None:
            self._pieces += 1
            if self._pieces < CHAR_MERGE_AFTER:
                return None
            self._starts = self._build()
        return self._starts.merge(piece)  # type: ignore[attr-defined]


def _inner_merge(data: bytes, ranks: dict[bytes, int]) -> tuple[tuple[bytes, ...], int]:
    """The tokens merging ``data`` alone ends in, and the highest rank it used (-1 if none)."""
    parts = [data[i : i + 1] for i in range(len(data))]
    highest = max((rank for rank, _, _, _ in merge_steps(parts, ranks)), default=-1)
    return tuple(parts), highest
