"""A per-character normalizer's alignment, kept as the few characters it did not map to one.

Why: a normalizer such as BERT's maps each character on its own, and almost every character to one
character (lower case, accents stripped); the rest are removed controls and CJK ideographs with a
space on each side. Written out character by character (``normalize_aligned``'s list of pairs) the
alignment of a 400 kB text costs more than the tokens' every other field. Kept as the changed
characters only (``BertNormalizer.normalize_edits``), a token's offsets are its normalized ones
shifted by what the changes before it added or removed: one addition per token, in C, between
changes (:meth:`Edits.offsets`); the character-by-character forms are derived where needed.

>>> edits = Edits([(1, 0), (3, 3)], 5)  # "a\\x07b中c" -> "ab 中 c": removed, then spaced
>>> edits.sources()
[0, 2, 3, 3, 3, 4]
>>> list(edits.offsets([0, 1, 3], [1, 2, 6], 100))
[(100, 101), (102, 103), (103, 105)]

Steps of a :class:`~bytepair.normalizers.Sequence` whose alignments are each of this kind (every
output character from one input character: Replace, Prepend, per-character maps, Precompiled's
one-character rewrites) give their changes, and :meth:`Edits.then` composes them, so a converted
SentencePiece model's normalizer (Precompiled and four Replace steps) is aligned without a pair
per character either.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import deque
from collections.abc import Iterable, Iterator
from itertools import chain, compress, islice, repeat
from operator import add, itemgetter, le, ne, sub
from typing import NamedTuple

__all__ = ["Edits", "character_edits"]

_INDEX, _COUNT = itemgetter(0), itemgetter(1)

SPARSE_TOKENS_PER_EDIT = 40
"""Offsets are shifted change by change (four bisections and slices each, ~10 µs) while there are at
least this many tokens per change; past that (a CJK text, a converted SentencePiece normalizer's
collapsed runs of spaces), read off the whole list of sources in C. Measured on the bench's 400 kB
files through a converted Unigram model (9k-85k changes, 20-1.6 tokens per change): the list of
sources 1.4-7x faster there."""
FEW_UNEVEN = 64
"""Up to this many distinct characters whose output is not one character are found by a regex of
them (:func:`character_edits`); past it, every character's output length is read."""


class Edits(NamedTuple):
    """Characters ``changed[k] = (index, n)`` of a segment of ``length`` characters became ``n``
    characters (0: removed) each; every other character became one. In order of ``index``."""

    changed: list[tuple[int, int]]
    length: int

    def sources(self) -> list[int]:
        """Each normalized character's index in the segment, in C loops: the characters not removed
        once each (a converted SentencePiece normalizer's collapsed runs of spaces, tens of thousands
        in a text), then those that became several characters once more for each further one,
        merged in by a sort of two sorted runs (a merge, in C: a few ``…`` made ``...`` in a text
        cost 26-48 ms character by character, :meth:`reference_sources`). Where most changes grow
        (BertNormalizer's spaced CJK), :meth:`reference_sources`.

        >>> Edits([(1, 0), (2, 0)], 4).sources(), Edits([(0, 2), (1, 0), (3, 3)], 5).sources()
        ([0, 3], [0, 0, 2, 3, 3, 3, 4])
        """
        changed, length = self.changed, self.length
        if not changed:
            return list(range(length))
        counts = list(map(_COUNT, changed))
        grown = list(compress(changed, map((1).__lt__, counts)))
        if len(grown) * 4 > len(changed):
            return self.reference_sources()
        kept = bytearray(b"\x01") * length
        deque(map(kept.__setitem__, compress(map(_INDEX, changed), map((0).__eq__, counts)), repeat(0)), maxlen=0)
        out = list(compress(range(length), kept))
        if grown:
            out += chain.from_iterable(map(repeat, map(_INDEX, grown), map(sub, map(_COUNT, grown), repeat(1))))
            out.sort()
        return out

    def reference_sources(self) -> list[int]:
        """:meth:`sources`, run by run (tests hold the two equal)."""
        runs: list[Iterable[int]] = []
        done = 0
        for index, n in self.changed:
            runs += (range(done, index), repeat(index, n))
            done = index + 1
        runs.append(range(done, self.length))
        return list(chain.from_iterable(runs))

    def aligned(self) -> list[tuple[int, int]]:
        """``normalize_aligned``'s form: each normalized character's ``(start, end)`` in the segment."""
        sources = self.sources()
        return list(zip(sources, map(add, sources, repeat(1))))

    def then(self, later: Edits | None) -> Edits:
        """These changes followed by ``later``'s (``later`` edits this one's output): each change of
        ``later`` at an output character counts against the input character that one came from.
        Between two of these changes, ``later``'s are shifted by what the changes before added or
        removed, a slice at a time (found by bisection): a Python step per change of this one's.

        >>> Edits([(1, 0), (3, 3)], 5).then(Edits([(0, 2), (3, 0)], 6))  # "a\x07b中c": a doubled, 中 gone
        Edits(changed=[(0, 2), (1, 0), (3, 2)], length=5)
        """
        if later is None or not later.changed:
            return self
        if not self.changed:
            return Edits(later.changed, self.length)
        after = later.changed
        at_later = list(map(_INDEX, after))
        out: list[tuple[int, int]] = []
        k = 0  # ``later``'s first change not placed yet
        grown = 0  # output characters minus input ones before the change at hand
        for index, n in self.changed:
            at = index + grown  # where the change's output begins
            before = bisect_left(at_later, at, k)
            out += _shifted(after[k:before], grown)
            k = bisect_left(at_later, at + n, before)  # ``later``'s changes within its output count against ``index``
            total = n + sum(map(_COUNT, after[before:k])) - (k - before)
            if total != 1:
                out.append((index, total))
            grown += n - 1
        out += _shifted(after[k:], grown)
        return Edits(out, self.length)

    def offsets(self, starts: list[int], ends: list[int], base: int, *, ordered: bool = False) -> Iterator[tuple[int, int]]:
        """Tokens spanning ``[starts[k], ends[k])`` of the normalized segment (none empty)
        -> ``(start, end)`` in the caller's text, where the segment starts at ``base``: a token
        starts at its first character's source and ends after its last one's. ``ordered``: the
        caller knows the starts and the ends each in order (else they are looked at)."""
        if len(self.changed) * SPARSE_TOKENS_PER_EDIT > len(starts) or not (
                ordered or (_ordered(starts) and _ordered(ends))):
            sources = self.sources()
            first = map(sources.__getitem__, starts)
            last = map(sources.__getitem__, map(sub, ends, repeat(1)))
            return zip(map(add, first, repeat(base)) if base else first, map(add, last, repeat(base + 1)))
        out_starts: list[Iterable[int]] = []
        out_ends: list[Iterable[int]] = []
        i = j = 0  # the first start, and the first end, not placed yet
        grown = 0  # normalized characters minus the segment's, before the change at hand
        for index, n in self.changed:
            at = index + grown  # where the change's output begins, normalized
            # Before it, characters map one to one: shifted by ``grown``.
            i2, j2 = bisect_left(starts, at, i), bisect_left(ends, at + 1, j)
            out_starts.append(map(add, starts[i:i2], repeat(base - grown)) if base != grown else starts[i:i2])
            out_ends.append(map(add, ends[j:j2], repeat(base - grown)) if base != grown else ends[j:j2])
            # Within its output, every character comes from ``index``.
            i, j = bisect_left(starts, at + n, i2), bisect_left(ends, at + n + 1, j2)
            out_starts.append(repeat(base + index, i - i2))
            out_ends.append(repeat(base + index + 1, j - j2))
            grown += n - 1
        out_starts.append(map(add, starts[i:], repeat(base - grown)) if base != grown else starts[i:])
        out_ends.append(map(add, ends[j:], repeat(base - grown)) if base != grown else ends[j:])
        return zip(chain.from_iterable(out_starts), chain.from_iterable(out_ends))


def _shifted(changes: list[tuple[int, int]], grown: int) -> Iterable[tuple[int, int]]:
    """``changes`` of an output moved back by ``grown`` characters (where nothing before them is one's own)."""
    return zip(map(sub, map(_INDEX, changes), repeat(grown)), map(_COUNT, changes)) if grown else changes


def _ordered(values: list[int]) -> bool:
    return all(map(le, values, islice(values, 1, None)))


def character_edits(text: str, outs: dict[str, str]) -> Edits | None:
    """The changes of ``text`` rewritten character by character as ``outs`` says (a character not
    in it stays as it is): those whose output is not one character; None where there are none.

    >>> character_edits("a\x07b中", {"a": "a", "\x07": "", "b": "b", "中": " 中 "})
    Edits(changed=[(1, 0), (3, 3)], length=4)
    """
    uneven = [ch for ch, out in outs.items() if len(out) != 1]
    if not uneven:
        return None
    if len(uneven) > FEW_UNEVEN:  # (a CJK text: each ideograph spaced)
        lengths = list(map(len, map(outs.get, text, text)))
        changed = list(compress(range(len(text)), map(ne, lengths, repeat(1))))
        return Edits(list(zip(changed, map(lengths.__getitem__, changed))), len(text))
    pattern = re.compile("[" + "".join(map(re.escape, uneven)) + "]")
    return Edits([(found.start(), len(outs[found.group()])) for found in pattern.finditer(text)], len(text))
