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
from collections.abc import Iterable, Iterator
from itertools import chain, compress, islice, repeat
from operator import add, le, ne, sub
from typing import NamedTuple

__all__ = ["Edits", "character_edits"]

SPARSE_TOKENS_PER_EDIT = 8
"""Offsets are shifted change by change (a few Python steps each) while there are at least this
many tokens per change; past that (a CJK text), read off the whole list of sources in C."""
FEW_UNEVEN = 64
"""Up to this many distinct characters whose output is not one character are found by a regex of
them (:func:`character_edits`); past it, every character's output length is read."""


class Edits(NamedTuple):
    """Characters ``changed[k] = (index, n)`` of a segment of ``length`` characters became ``n``
    characters (0: removed) each; every other character became one. In order of ``index``."""

    changed: list[tuple[int, int]]
    length: int

    def sources(self) -> list[int]:
        """Each normalized character's index in the segment."""
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

        >>> Edits([(1, 0), (3, 3)], 5).then(Edits([(0, 2), (3, 0)], 6))  # "a\x07b中c": a doubled, 中 gone
        Edits(changed=[(0, 2), (1, 0), (3, 2)], length=5)
        """
        if later is None or not later.changed:
            return self
        counts = dict(self.changed)
        changes = iter(self.changed)
        pending = next(changes, None)
        grown = 0  # output characters minus input ones before ``pending``
        for at, n in later.changed:
            while pending is not None and at >= pending[0] + grown + pending[1]:
                grown += pending[1] - 1
                pending = next(changes, None)
            source = pending[0] if pending is not None and at >= pending[0] + grown else at - grown
            counts[source] = counts.get(source, 1) - 1 + n
        return Edits(sorted(item for item in counts.items() if item[1] != 1), self.length)

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
            return zip(map(add, first, repeat(base)), map(add, last, repeat(base + 1)))
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
