"""Text that arrives in chunks (a file, a generator, a JavaScript stream), encoded in bounded memory.

Why: counting a 70 MB file must not hold 70 MB of text, its pieces and their ids at once, and
``is_within_token_limit`` should stop reading once the limit is passed. The chunks are gathered
into *blocks* that end at exact cut points, positions where the pattern ends a piece whatever
follows (``Pretokenizer.find_cut``) and that no special token's text overlaps. Each block then
encodes on its own to exactly the ids the whole text would give. Memory is bounded by the block
size plus the longest stretch without a cut point (one huge piece, such as 1 MB of one letter,
has none, and is held whole, as it must be; a run of digits is cut between groups of three where
the pattern takes them so).

Bytes are decoded as UTF-8 exactly (CR, CRLF and a leading BOM are kept: they are tokens too);
invalid UTF-8 is an error naming the byte offset, unless ``errors="replace"`` is asked for
(``text/reading.py``).

>>> from bytepair import get_encoding
>>> enc = get_encoding("cl100k_base")
>>> enc.count_stream(["a\\r\\n", "\\r\\n  b"]) == enc.count("a\\r\\n\\r\\n  b")
True
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterable, Iterator

from ..added_tokens.scan import SpecialTokenScanner
from ..pre_tokenizers.pattern import Pretokenizer
from ..pre_tokenizers.pattern.splitter import CUT_WINDOW
from ..text.checks import require_str, str_chunks
from ..text.reading import decode_error

__all__ = ["DEFAULT_BLOCK_CHARS", "BlockCutter", "TokenCounter", "blocks_of"]

DEFAULT_BLOCK_CHARS = 1 << 18
"""Blocks are cut at the first cut point after this many characters."""


class BlockCutter:
    """Gathers text chunks into blocks whose pieces are exactly the pieces of the whole text.

    >>> from bytepair.data.openai import CL100K_PATTERN
    >>> cutter = BlockCutter(Pretokenizer(CL100K_PATTERN, cuttable=True), SpecialTokenScanner({}), 4)
    >>> list(cutter.push("id,name\\r\\n1,ab")), cutter.finish()
    (['id,name\\r\\n1'], ',ab')

    Without a cuttable pattern nothing is cut: the whole text comes out of ``finish``.
    """

    def __init__(
        self,
        pretokenizer: Pretokenizer,
        scanner: SpecialTokenScanner,
        block_chars: int = DEFAULT_BLOCK_CHARS,
        *,
        first: int | None = None,
    ) -> None:
        """Blocks are cut after about ``block_chars`` characters; with ``first``, they start at that
        size and double up to ``block_chars`` (so a reader that stops early has read little)."""
        self._pretokenizer = pretokenizer
        self._scanner = scanner
        self._max_size = max(1, block_chars)
        self._size = max(1, min(first or block_chars, block_chars))
        self._pending: list[str] = []  # chunks not yet looked at, joined when enough have come
        self._pending_chars = 0
        self._buffer = ""
        self._searched = 0  # buffer[:_searched] was searched for a cut in vain

    @property
    def cuts(self) -> bool:
        """Whether this cutter cuts at all (its pattern is cuttable); if not, the whole text is one block.

        >>> BlockCutter(Pretokenizer("a|b"), SpecialTokenScanner({})).cuts
        False
        """
        return bool(getattr(self._pretokenizer, "cuttable", False))

    def push(self, chunk: str) -> Iterator[str]:
        """Add ``chunk``; yield the blocks it completes (possibly none)."""
        require_str(chunk, "each chunk")
        if not chunk:
            return
        self._pending.append(chunk)
        self._pending_chars += len(chunk)
        if len(self._buffer) + self._pending_chars <= self._size:
            return
        buffer = self._buffer + "".join(self._pending)
        self._pending.clear()
        self._pending_chars = 0
        # A cut must leave room for a whole special token after it, so that one arriving in parts
        # is never cut through before its end has come.
        limit = len(buffer) - self._scanner.max_length
        start = 0
        search_from = max(self._searched, self._size)
        self._searched = 0
        while search_from < limit:
            cut = self._find_cut(buffer, search_from, limit, floor=start)
            if cut is None:
                if search_from + CUT_WINDOW < limit:
                    # Nothing near the target (a long run of spaces or digits): any later cut does
                    # as well, so look only near the end of what has come, not at every character.
                    search_from = max(search_from + CUT_WINDOW, limit - CUT_WINDOW)
                    continue
                # The search reached `limit`: the next one starts there.
                self._searched = limit - start
                break
            yield buffer[start:cut]
            start = cut
            self._size = min(self._max_size, 2 * self._size)
            search_from = start + self._size
        self._buffer = buffer[start:]

    def finish(self) -> str:
        """End of text: the last block (all that is left)."""
        rest = self._buffer + "".join(self._pending)
        self._buffer, self._pending, self._pending_chars, self._searched = "", [], 0, 0
        return rest

    def _find_cut(self, text: str, start: int, end: int, *, floor: int) -> int | None:
        """A cut in ``[start, end)`` near ``start`` (``Pretokenizer.cut_near``) clear of special tokens;
        ``floor`` is where the block began (a run of numbers counts its groups from there at most)."""
        window_end = min(end, start + CUT_WINDOW)
        while start < window_end:
            cut = self._pretokenizer.cut_near(text, start, window_end, floor=floor)
            if cut is None:
                return None
            # Characters around the cut decide it, so none of them may belong to a special token.
            if not self._scanner.overlaps(text, cut - 2, cut + 2):
                return cut
            start = cut + 1
        return None


def blocks_of(cutter: BlockCutter, chunks: Iterable[str]) -> Iterator[str]:
    """The blocks ``cutter`` makes of ``chunks`` (each a ``str``), the last one included: what both
    faces' ``stream_blocks`` give."""
    for chunk in str_chunks(chunks):
        yield from cutter.push(chunk)
    rest = cutter.finish()
    if rest:
        yield rest


class TokenCounter:
    """Counts tokens of text pushed to it piece by piece (``str`` or UTF-8 bytes), in bounded memory.

    For callers that are handed chunks rather than asking for them: a JavaScript stream, a socket,
    a progress callback. Get one from ``Encoding.token_counter()``.

    >>> from bytepair import get_encoding
    >>> counter = get_encoding("o200k_base").token_counter()
    >>> counter.feed("Hello, "); counter.feed_bytes("wörld".encode()[:2]); counter.feed_bytes("wörld".encode()[2:])
    >>> counter.finish() == get_encoding("o200k_base").count("Hello, wörld")
    True
    """

    def __init__(self, cutter: BlockCutter, count_block: Callable[[str], int], *, errors: str = "strict") -> None:
        self._cutter = cutter
        self._count_block = count_block
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors)
        self._bytes_seen = 0
        self.total = 0
        """Tokens in the blocks completed so far (the rest is counted by ``finish``)."""

    def feed(self, text: str) -> None:
        """Add text."""
        for block in self._cutter.push(text):
            self.total += self._count_block(block)

    def feed_bytes(self, data: bytes) -> None:
        """Add UTF-8 bytes (a character may be split between calls)."""
        held = len(self._decoder.getstate()[0])
        try:
            text = self._decoder.decode(bytes(data))
        except UnicodeDecodeError as exc:
            raise decode_error("input", self._bytes_seen - held + exc.start, exc) from None
        self._bytes_seen += len(data)
        self.feed(text)

    def finish(self) -> int:
        """End of input: the total count."""
        try:
            rest = self._decoder.decode(b"", final=True)
        except UnicodeDecodeError as exc:
            raise decode_error("input", self._bytes_seen - len(exc.object) + exc.start, exc) from None
        self.feed(rest)
        self.total += self._count_block(self._cutter.finish())
        return self.total
