"""Two helpers for work done in bulk over long inputs: the cyclic garbage collector paused while
many objects are built, and what a stage made of the last long text it was given, kept for a
second pass over the same text.

Why here, at the bottom of the layers: the pipeline (a text's fields), the trainers (Unigram's
runs), the normalizers and the pre-tokenizers use them, and none of them may import another's.

Why a second pass finds work done: ``Tokenizer.encode`` gives the ids at once and builds the other
fields (offsets, word ids) only when one is read, by normalizing and pre-tokenizing the text again.
Where a stage keeps what it made of its last long input (:class:`LastText`: BertNormalizer's
output, BertPreTokenizer's pieces with the text between them), that second pass reads it instead of
doing the work twice. (Other pre-tokenizers keep nothing: finding the text between pieces in the
first pass made a WordLevel first pass on 400 kB 10% slower.)

>>> last = LastText(min_chars=3)
>>> text = "hello"
>>> last.keep(text, "HELLO"); last.get(text), last.get("other"), last.get("hello!"[:5])
('HELLO', None, 'HELLO')
>>> with gc_paused():
...     pairs = [(i, i + 1) for i in range(3)]
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

__all__ = ["LastText", "gc_paused"]

T = TypeVar("T")

MIN_CHARS = 1 << 12
MAX_CHARS = 1 << 22
"""The texts a :class:`LastText` keeps: shorter ones cost little to redo; past the longest, a text
and what was made of it would stay held (up to 2 x 16 MB) until the next one replaces them."""


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector paused (if it runs) for the block: a build that makes hundreds
    of thousands of tuples and lists holding no cycle (a text's offsets, a trainer's lattices) would
    otherwise have its young objects walked again and again as they are made. (The objects are
    walked once when it runs again: tuples of plain values are then dropped from its lists.)"""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class LastText(Generic[T]):
    """What a stage made of the last text it was given, for that text only (compared by identity,
    then by value), and only for a text of ``min_chars`` to ``max_chars`` characters. One entry:
    a stream of texts keeps one; threads that share the stage may replace each other's, never read
    another text's. Not pickled (a copy starts empty)."""

    __slots__ = ("_last", "min_chars", "max_chars")

    def __init__(self, min_chars: int = MIN_CHARS, max_chars: int = MAX_CHARS) -> None:
        self.min_chars = min_chars
        self.max_chars = max_chars
        self._last: tuple[str, T] | None = None

    def keep(self, text: str, made: T) -> None:
        """Remember ``made`` for ``text`` if its length is in range; a shorter text leaves the last
        one kept (a stage's calls on single characters between two passes), a longer one drops it."""
        if len(text) >= self.min_chars:
            self._last = (text, made) if len(text) <= self.max_chars else None

    def get(self, text: str) -> T | None:
        """What was kept for ``text``, or None."""
        last = self._last
        if last is None or (last[0] is not text and last[0] != text):
            return None
        return last[1]

    def clear(self) -> None:
        self._last = None

    def __reduce__(self) -> tuple[Any, ...]:
        return (LastText, (self.min_chars, self.max_chars))
