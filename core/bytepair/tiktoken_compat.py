"""The parts of tiktoken's ``Encoding`` that are not plain encoding: unstable-tail completions
(``encode_with_unstable``), bytes that are not UTF-8 (``_encode_bytes``), the optional numpy output
(``encode_to_numpy``) and tiktoken's semi-private single-piece methods, as :class:`TiktokenExtras`,
a base class of ``Encoding``.

Why a module of its own: ``encoding.py`` wires the stages into tiktoken's everyday API; these are its
corners, with tiktoken's own rules and quirks, best read (and tested) on their own. The completion
search works on plain values and callables handed in, never on an encoding's members.

The completion search, for the bytes ``unstable`` of the last piece (the only part of the text
whose tokens may still change when more text is appended):

1. every vocabulary token that starts with ``unstable`` is a one-token completion;
2. for every split ``unstable = head + tail`` (``tail`` non-empty, ``head`` non-empty), every token
   ``t`` that starts with ``tail`` gives the text ``head + t``, encoded with the pattern if it is
   valid UTF-8 (else BPE of the bytes); its tokens up to the first that reaches ``len(unstable)``
   bytes are a completion;
3. if ``unstable`` ends in a whitespace character (Unicode ``White_Space``) after something else,
   BPE of the part before it followed by BPE of that character is a completion (the pattern's
   ``\\s+(?!\\S)`` can split a run of spaces once more text follows).

That is exactly the candidate set tiktoken 0.14 builds; tests compare the two on corpus prefixes.

A toy vocabulary where "ab" may grow into "abc" or stay "ab" followed by something else:

>>> from bytepair.models.bpe.merge import merge_piece
>>> ranks = {bytes((b,)): b for b in range(256)} | {b"ab": 256, b"abc": 257}
>>> tokens = {rank: token for token, rank in ranks.items()}
>>> bpe = lambda data: merge_piece(data, ranks)
>>> completions(b"ab", sorted(ranks), ranks.__getitem__, lambda i: len(tokens[i]), lambda s: bpe(s.encode()), bpe)
[[256], [257]]
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType
from typing import Any

from .added_tokens.policy import AllowedSpecial, DisallowedSpecial
from .errors import DECODE_ADVICE, InvalidInputError, MissingDependencyError, sized, too_large
from .models.bpe.merge import merge_piece, reference_merge
from .parallel import BatchPool
from .text.checks import repair_surrogates, require_str

__all__ = ["WHITE_SPACE", "MissingDependencyError", "TiktokenExtras", "completions", "import_numpy"]

WHITE_SPACE = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
"""Unicode's ``White_Space`` characters (what tiktoken's Rust ``char::is_whitespace`` tests; Python's
``str.isspace`` differs: it also accepts U+001C..U+001F)."""


def import_numpy() -> ModuleType:
    """numpy, or :class:`MissingDependencyError` saying how to get it (bytepair never requires it)."""
    try:
        import numpy
    except ImportError:
        raise MissingDependencyError(
            "encode_to_numpy needs numpy, which is not installed: `pip install numpy`. "
            "Without numpy, encode_to_array() returns the same ids as an array('I').",
            name="numpy",
        ) from None
    return numpy


def tokens_with_prefix(sorted_tokens: Sequence[bytes], prefix: bytes) -> Iterator[bytes]:
    """Tokens of ``sorted_tokens`` (sorted bytewise) that start with ``prefix``, in order.

    >>> list(tokens_with_prefix([b"a", b"ab", b"abc", b"b"], b"ab"))
    [b'ab', b'abc']
    """
    for i in range(bisect_left(sorted_tokens, prefix), len(sorted_tokens)):
        token = sorted_tokens[i]
        if not token.startswith(prefix):
            return
        yield token


def last_char(data: bytes) -> tuple[str | None, int]:
    """The last UTF-8 character of ``data`` and its size in bytes; ``(None, 1)`` if it is not valid.

    >>> last_char("aé".encode()), last_char(b"a\\x80")
    (('é', 2), (None, 1))
    """
    for size in range(1, min(4, len(data)) + 1):
        try:
            char = data[-size:].decode("utf-8")
        except UnicodeDecodeError:
            continue
        if len(char) == 1:
            return char, size
        break
    return None, 1


def completions(
    unstable: bytes,
    sorted_tokens: Sequence[bytes],
    rank_of: Callable[[bytes], int],
    token_len: Callable[[int], int],
    encode_text: Callable[[str], list[int]],
    bpe: Callable[[bytes], list[int]],
) -> list[list[int]]:
    """Every token sequence that may continue ``unstable`` (see the module docstring), sorted.

    ``sorted_tokens``: the mergeable tokens' bytes, sorted; ``rank_of``: token bytes -> id;
    ``token_len``: id -> its length in bytes; ``encode_text``: ordinary encoding of a str (pattern,
    then BPE); ``bpe``: byte-pair merge of bytes with no whole-token shortcut (as tiktoken here).
    """
    found: set[tuple[int, ...]] = set()
    if not unstable:
        return []
    for token in tokens_with_prefix(sorted_tokens, unstable):
        found.add((rank_of(token),))
    for i in range(1, len(unstable)):
        head, tail = unstable[:i], unstable[i:]
        for token in tokens_with_prefix(sorted_tokens, tail):
            candidate = head + token
            try:
                ids = encode_text(candidate.decode("utf-8"))
            except UnicodeDecodeError:
                ids = bpe(candidate)
            seq: list[int] = []
            covered = 0
            for token_id in ids:
                seq.append(token_id)
                covered += token_len(token_id)
                if covered >= len(unstable):
                    break
            found.add(tuple(seq))
    if len(unstable) > 1:
        char, size = last_char(unstable)
        if char in WHITE_SPACE and len(unstable) > size:
            found.add((*bpe(unstable[:-size]), *bpe(unstable[-size:])))
    return sorted(map(list, found))


class TiktokenExtras:
    """tiktoken's remaining public and semi-private ``Encoding`` methods, with its semantics: a base
    class of :class:`~bytepair.Encoding`, which holds the tables they read."""

    _mergeable_ranks: dict[bytes, int]
    _special_ids: frozenset[int]
    _table: Any
    _policy: Any
    _scanner: Any
    engine: Any
    encode: Callable[..., list[int]]
    encode_ordinary: Callable[[str], list[int]]
    encode_to_array: Callable[..., Any]
    decode: Callable[..., str]
    decode_bytes: Callable[..., bytes]
    token_byte_values: Callable[[], list[bytes]]
    decode_tokens_bytes: Callable[[Sequence[int]], list[bytes]]

    def encode_batch(
        self,
        text: Sequence[str],
        *,
        num_threads: int = 8,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> list[list[int]]:
        """``encode`` each text, over up to ``num_threads`` worker processes (threads on a
        free-threaded CPython; sequential in the browser and for small batches: ``parallel.py``).
        The ids and their order are those of the sequential loop."""
        texts = list(text)
        for t in texts:
            require_str(t)
        if self.batch_pool.workers_for(num_threads, sum(map(len, texts))) > 1:
            for t in texts:  # refused here, in the caller's words, before any worker starts
                self._policy.allowed(t, allowed_special, disallowed_special)
        try:
            return self.batch_pool.map("encode", texts, kind="ids", workers=num_threads,
                                       allowed_special=allowed_special, disallowed_special=disallowed_special)
        except MemoryError as exc:
            raise too_large(exc, f"encoding a batch of {sized(texts, 'texts')}", "encode fewer texts at a time") from None

    def encode_ordinary_batch(self, text: Sequence[str], *, num_threads: int = 8) -> list[list[int]]:
        """``encode_ordinary`` each text, in parallel as ``encode_batch``."""
        texts = list(text)
        for t in texts:
            require_str(t)
        try:
            return self.batch_pool.map("encode_ordinary", texts, kind="ids", workers=num_threads)
        except MemoryError as exc:
            raise too_large(exc, f"encoding a batch of {sized(texts, 'texts')}", "encode fewer texts at a time") from None

    def decode_batch(self, batch: Sequence[Sequence[int]], *, errors: str = "replace", num_threads: int = 8) -> list[str]:
        """``decode`` each sequence (in parallel as ``encode_batch`` for big batches)."""
        try:
            seqs = [list(tokens) for tokens in batch]
            return self.batch_pool.map("decode", seqs, kind="str", workers=num_threads, errors=errors)
        except MemoryError as exc:
            raise too_large(exc, f"decoding a batch of {sized(batch, 'id lists')}", "decode fewer id lists at a time") from None

    def decode_bytes_batch(self, batch: Sequence[Sequence[int]], *, num_threads: int = 8) -> list[bytes]:
        """``decode_bytes`` each sequence (in parallel as ``encode_batch`` for big batches)."""
        try:
            seqs = [list(tokens) for tokens in batch]
            return self.batch_pool.map("decode_bytes", seqs, kind="bytes", workers=num_threads)
        except MemoryError as exc:
            raise too_large(exc, f"decoding a batch of {sized(batch, 'id lists')}", "decode fewer id lists at a time") from None

    @property
    def batch_pool(self) -> BatchPool:
        """The workers of this encoding's batch methods, started on first need (``parallel.py``)."""
        pool = self.__dict__.get("_batch_pool")
        if pool is None:
            pool = self.__dict__["_batch_pool"] = BatchPool(self)
        return pool

    def decode_with_offsets(self, tokens: Sequence[int]) -> tuple[str, list[int]]:
        """Text and, per token, the index of the first character holding any of its bytes (tiktoken's rule).

        Raises ``UnicodeDecodeError`` if the tokens do not decode to valid UTF-8, as tiktoken does.
        """
        try:
            token_bytes = self.decode_tokens_bytes(tokens)
            text_len = 0
            offsets = []
            for token in token_bytes:
                continuation = bool(token) and 0x80 <= token[0] < 0xC0
                offsets.append(max(0, text_len - continuation))
                text_len += sum(1 for byte in token if not 0x80 <= byte < 0xC0)
            text = b"".join(token_bytes).decode("utf-8", errors="strict")
        except MemoryError as exc:
            raise too_large(exc, f"decoding {sized(tokens, 'ids')} with offsets", DECODE_ADVICE) from None
        return text, offsets

    def encode_to_numpy(
        self,
        text: str,
        *,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> Any:
        """``encode`` as a numpy ``uint32`` array. numpy is optional: without it this raises
        :class:`~bytepair.MissingDependencyError` (``encode_to_array`` needs nothing)."""
        ids = self.encode_to_array(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
        numpy = import_numpy()
        return numpy.frombuffer(ids, dtype=numpy.uint32) if ids.itemsize == 4 else numpy.array(ids, dtype=numpy.uint32)

    def encode_with_unstable(
        self,
        text: str,
        *,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> tuple[list[int], list[list[int]]]:
        """Stable tokens, and every token sequence that may follow them once more text is appended.

        The tokens of the last piece (and of all-whitespace tokens before it) are left out of the
        stable part: appending text could change them. The completions are tiktoken's (their order is
        sorted here; tiktoken's is arbitrary). Slow for a long or all-space last piece: it encodes one
        candidate per vocabulary token that could straddle the end.

        >>> from bytepair import get_encoding
        >>> stable, completions = get_encoding("r50k_base").encode_with_unstable("hello fanta")
        >>> stable, [277, 4910] in completions, len(completions)
        ([31373], True, 1432)
        """
        require_str(text)
        allowed = self._policy.allowed(text, allowed_special, disallowed_special)
        tokens, last = self._ids_and_last_piece_len(repair_surrogates(text), allowed)
        if not last:
            return tokens, []
        last = self._widen_over_spaces(tokens, last)
        unstable = self._table.join(tokens[-last:])
        del tokens[-last:]
        if "_sorted_token_bytes" not in self.__dict__:
            self._sorted_token_bytes = self.token_byte_values()
        token_len = self._table.single
        return tokens, completions(
            unstable,
            self._sorted_token_bytes,
            self._mergeable_ranks.__getitem__,
            lambda token: len(token_len(token)),
            self.encode_ordinary,
            self._merge_without_shortcut,
        )

    def _encode_single_piece(self, text_or_bytes: str | bytes) -> list[int]:
        """BPE of ``text_or_bytes`` as one piece: no pattern split, no special tokens (tiktoken's).

        >>> from bytepair import get_encoding
        >>> get_encoding("r50k_base")._encode_single_piece("helloqqqq")
        [31373, 38227, 38227]
        """
        if isinstance(text_or_bytes, str):
            return list(self.engine.cache[repair_surrogates(text_or_bytes)])
        if not isinstance(text_or_bytes, (bytes, bytearray, memoryview)):
            raise InvalidInputError(f"expected str or bytes, not {type(text_or_bytes).__name__}")
        data = bytes(text_or_bytes)
        try:
            return list(self.engine.cache[data.decode("utf-8")])
        except UnicodeDecodeError:
            return merge_piece(data, self._mergeable_ranks)

    def _encode_only_native_bpe(self, text: str) -> list[int]:
        """``encode_ordinary`` the plain way: split the whole text with the pattern, merge each piece
        (no piece cache, no blocks, no long-piece chunking). A reference path that tests hold equal."""
        require_str(text)
        ranks = self._mergeable_ranks
        pieces = self.engine.pre_tokenizer.split(repair_surrogates(text))
        return [i for piece in pieces for i in merge_piece(piece.encode("utf-8"), ranks)]

    def _encode_bytes(self, data: bytes) -> list[int]:
        """Encode bytes that need not be valid UTF-8, as tiktoken does.

        Valid UTF-8 is ``encode_ordinary`` of its text. Otherwise the valid prefix is encoded, then
        its last piece (widened over trailing all-whitespace tokens) is merged again together with
        the remaining bytes, as one piece; so a truncated character joins the piece it ends.
        ``decode_bytes`` always gives ``data`` back.

        >>> from bytepair import get_encoding
        >>> get_encoding("cl100k_base")._encode_bytes(b" \\xec\\x8b\\xa4\\xed")
        [62085]
        """
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise InvalidInputError(f"expected bytes, not {type(data).__name__} (use encode() for text)")
        data = bytes(data)
        try:
            return self.encode_ordinary(data.decode("utf-8"))
        except UnicodeDecodeError as exc:
            valid = exc.start
        tokens, last = self._ids_and_last_piece_len(data[:valid].decode("utf-8"), frozenset())
        last = self._widen_over_spaces(tokens, last)
        rest = data[valid:]
        if tokens and last:
            rest = self._table.join(tokens[-last:]) + rest
            del tokens[-last:]
        tokens += merge_piece(rest, self._mergeable_ranks)
        return tokens

    def _ids_and_last_piece_len(self, text: str, allowed: frozenset[str]) -> tuple[list[int], int]:
        """Ids of (repaired) ``text`` with ``allowed`` special tokens, and how many of them the last
        piece gave (0 if the text ends with a special token or is empty)."""
        tokens: list[int] = []
        last = 0
        segments = self._scanner.segments(text, allowed) if allowed else ((text, None),)
        for segment, special_id in segments:
            if special_id is not None:
                tokens.append(special_id)
                last = 0
                continue
            for ids in self.engine.piece_ids(segment):
                tokens += ids
                last = len(ids)
        return tokens, last

    def _widen_over_spaces(self, tokens: list[int], last: int) -> int:
        """``last`` extended over the tokens before it while all are made of spaces, tabs and
        newlines (if the last piece starts with one): such splits may vanish when text is appended."""
        def all_space(token: int) -> bool:
            return token not in self._special_ids and not self._table.single(token).strip(b" \n\t")

        if last and all_space(tokens[-last]):
            while last < len(tokens) and all_space(tokens[-last - 1]):
                last += 1
        return last

    def _merge_without_shortcut(self, data: bytes) -> list[int]:
        """BPE of ``data`` even if ``data`` is itself a token (tiktoken merges so in a few places)."""
        if data in self._mergeable_ranks:  # a single token: short, so the plain merge is cheap
            return reference_merge(data, self._mergeable_ranks)
        return merge_piece(data, self._mergeable_ranks)
