"""Helpers for the parts of tiktoken's ``Encoding`` that are not plain encoding: unstable-tail
completions (``encode_with_unstable``) and the optional numpy output (``encode_to_numpy``).

Why a module of its own: ``encoding.py`` only wires stages together; the completion search is a
brute-force algorithm with tiktoken's own rules and quirks, best read (and tested) on its own. It
works on plain values and callables handed in by ``Encoding``, never on its private members.

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

from .errors import BytepairError

__all__ = ["WHITE_SPACE", "MissingDependencyError", "completions", "import_numpy"]

WHITE_SPACE = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
"""Unicode's ``White_Space`` characters (what tiktoken's Rust ``char::is_whitespace`` tests; Python's
``str.isspace`` differs: it also accepts U+001C..U+001F)."""


class MissingDependencyError(BytepairError, ModuleNotFoundError):
    """An optional package that one method needs (numpy for ``encode_to_numpy``) is not installed."""


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
