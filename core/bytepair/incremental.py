"""Incremental encoding: re-encode only the parts of a text that changed since the last call.

Why: an editor (the playground) encodes the whole text again after every keystroke. The text is cut
into blocks at *content-defined* safe points, after a line break that follows a non-space and is
followed by a letter, where the pattern always ends a piece whatever comes next (the same property
that lets long texts be pretokenized block by block, see ``Pretokenizer``). An edit changes only
the blocks it touches, and every other block is found in a cache keyed by its text. The ids are
exactly those of ``Encoding.encode``; encodings whose pattern is not known to be cuttable fall back
to encoding the whole text.

>>> from bytepair import get_encoding
>>> inc = IncrementalEncoder(get_encoding("o200k_base"))
>>> inc.count("Hello\\nworld") == get_encoding("o200k_base").count("Hello\\nworld")
True
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from itertools import chain

from .encoding import AllowedSpecial, DisallowedSpecial, Encoding
from .pre_tokenizers.pattern.translate import translate
from .text.checks import require_str

__all__ = ["IncrementalEncoder", "line_blocks", "safe_prefix_end"]



@cache
def _line_cut() -> re.Pattern[str]:
    """"\\n" after a non-space, before a letter; the literal comes first so ``re`` jumps from one
    newline to the next. Compiled on first use."""
    return re.compile(r"\n(?<=" + translate(r"\S").pattern + r"\n)(?=" + translate(r"\p{L}").pattern + ")")


class IncrementalEncoder:
    """Encodes successive versions of a text, reusing the ids of unchanged blocks."""

    def __init__(self, encoding: Encoding, *, max_cached_chars: int = 1 << 23) -> None:
        self.encoding = encoding
        self._cuttable = encoding.engine.cuttable
        self._blocks: dict[str, tuple[int, ...]] = {}
        self._previous: dict[str, tuple[int, ...]] = {}  # the blocks of the version before (new_version)
        self._cached_chars = 0
        self._max_cached_chars = max_cached_chars

    def _block_ids(self, block: str) -> tuple[int, ...]:
        ids = self._blocks.get(block)
        if ids is None:
            ids = self._previous.get(block)
            if ids is None:
                ids = tuple(chain.from_iterable(self.encoding.engine.piece_ids(block)))
            if self._cached_chars + len(block) > self._max_cached_chars:
                self._blocks.clear()
                self._cached_chars = 0
            self._blocks[block] = ids
            self._cached_chars += len(block)
        return ids

    def new_version(self) -> None:
        """Say that the next calls encode a new version of one text (an editor's buffer after an edit).

        From then on only the blocks of the version before and of the new one are kept: the cache
        holds about two texts however long the editing goes on, instead of every block ever seen
        (up to ``max_cached_chars``). Without calls to this method every block is kept until that
        bound is reached.

        >>> from bytepair import get_encoding
        >>> inc = IncrementalEncoder(get_encoding("o200k_base"))
        >>> for text in ["one.\\nTwo", "one.\\nThree", "one.\\nFour"]:
        ...     inc.new_version()
        ...     n = inc.count(text)
        >>> inc.cached_blocks()
        3
        """
        self._previous = self._blocks
        self._blocks = {}
        self._cached_chars = 0

    def cached_blocks(self) -> int:
        """How many blocks' ids are kept (for memory checks)."""
        return len(self._blocks) + len(self._previous.keys() - self._blocks.keys())

    def _ordinary(self, text: str) -> Iterator[tuple[int, ...]]:
        if not self._cuttable:
            return iter((tuple(chain.from_iterable(self.encoding.engine.piece_ids(text))),))
        return map(self._block_ids, _line_blocks(text))

    def ids(
        self,
        text: str,
        *,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> Iterator[tuple[int, ...]]:
        """Token ids of ``text`` as a stream of tuples (one per block or special token)."""
        require_str(text)
        segments = self.encoding.special_segments(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
        return chain.from_iterable(
            self._ordinary(segment) if special_id is None else ((special_id,),) for segment, special_id in segments
        )

    def encode(self, text: str, **policy: AllowedSpecial | DisallowedSpecial) -> list[int]:
        """Same as ``Encoding.encode``, but fast when ``text`` differs little from earlier texts."""
        return list(chain.from_iterable(self.ids(text, **policy)))  # type: ignore[arg-type]

    def count(self, text: str, **policy: AllowedSpecial | DisallowedSpecial) -> int:
        """Same as ``Encoding.count``, but fast when ``text`` differs little from earlier texts."""
        return sum(map(len, self.ids(text, **policy)))  # type: ignore[arg-type]


def line_blocks(text: str) -> Iterator[str]:
    """``text`` cut at its content-defined safe points (see the module docstring).

    >>> list(line_blocks("one.\\ntwo\\n three"))
    ['one.\\n', 'two\\n three']
    """
    return _line_blocks(text)


def _line_blocks(text: str) -> Iterator[str]:
    start = 0
    for match in _line_cut().finditer(text):
        cut = match.end()
        yield text[start:cut]
        start = cut
    yield text[start:]


def safe_prefix_end(text: str, at_least: int) -> int:
    """The smallest content-defined cut at or after ``at_least`` (or ``len(text)``): encoding
    ``text[:end]`` gives exactly the first tokens of ``text``."""
    match = _line_cut().search(text, max(at_least - 1, 0))
    return match.end() if match else len(text)
