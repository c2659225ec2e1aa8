"""Encoding and decoding for JavaScript: ids as ``Uint32Array``, offsets in UTF-16 code units, and
``inspect``, everything the playground shows after an edit in one round trip.

>>> encode("o200k_base", "hello world").tolist(), count("o200k_base", "hello world")
([24912, 2375], 2)
>>> decode("o200k_base", [24912, 2375])
'hello world'
"""

from __future__ import annotations

import re
from array import array
from itertools import chain, islice
from typing import Any

from ..encoding import Encoding
from ..incremental import IncrementalEncoder, line_blocks, safe_prefix_end
from ..text.checks import require_str
from ..text.offsets import utf16_offsets
from ..text.words import count_words
from .faces import JsonFace, face_of
from .values import decode_errors, js_ids, max_tokens_option, policy_options

__all__ = ["count", "decode", "decode_token_bytes", "encode", "encode_with_offsets", "forget_caches", "held", "inspect",
           "is_within_token_limit"]

_incremental: dict[str, IncrementalEncoder] = {}


class _BlockWords:
    """Words per block (``words.count_words``: whitespace-separated, each character in scripts
    written without spaces), for the blocks of the last two texts only (an editor sends one text
    after another: a block that neither uses is not kept). Blocks end at newlines, so the counts add up."""

    def __init__(self) -> None:
        self.current: dict[str, int] = {}
        self.previous: dict[str, int] = {}

    def new_version(self) -> None:
        self.previous, self.current = self.current, {}

    def __call__(self, block: str) -> int:
        n = self.current.get(block)
        if n is None:
            n = self.previous.get(block)
            if n is None:
                n = count_words(block)
            self.current[block] = n
        return n

    def __len__(self) -> int:
        return len(self.current) + len(self.previous.keys() - self.current.keys())


_words = _BlockWords()

def encode(name: str, text: str, allowed: Any = None, disallowed: Any = None) -> array:
    return face_of(name).encode_to_array(text, **policy_options(allowed, disallowed))


def count(name: str, text: str, allowed: Any = None, disallowed: Any = None) -> int:
    return face_of(name).count(text, **policy_options(allowed, disallowed))


def is_within_token_limit(name: str, text: str, limit: int, allowed: Any = None, disallowed: Any = None) -> int | bool:
    require_str(text)  # JavaScript passes one string (Encoding also takes an iterable of chunks)
    return face_of(name).is_within_token_limit(text, limit, **policy_options(allowed, disallowed))


def encode_with_offsets(name: str, text: str, allowed: Any = None, disallowed: Any = None) -> dict[str, array]:
    """Ids and [start, end) offsets in UTF-16 code units of ``text``."""
    ids, spans = face_of(name).encode_with_offsets(text, **policy_options(allowed, disallowed))
    starts = utf16_offsets(text, [s for s, _ in spans])
    ends = utf16_offsets(text, [e for _, e in spans])
    return {"ids": array("I", ids), "starts": array("I", starts), "ends": array("I", ends)}


def inspect(name: str, text: str, allowed: Any = None, disallowed: Any = None, max_tokens: Any = 2000) -> dict[str, Any]:
    """Everything the playground shows after an edit, in one call, fast for long edited texts.

    Returns ``count`` (tokens in the whole text); for the first ``max_tokens`` tokens only:
    ``ids``, UTF-16 ``starts`` and ``ends``, byte ``lengths`` and their ``bytes`` joined; and
    ``utf16_length``, ``code_points``, ``words`` and ``utf8_bytes`` of ``text``. The count
    reuses the unchanged blocks of the previous text (``IncrementalEncoder.new_version``: each
    call is taken as the next version of one edited text, so only two texts' blocks are kept);
    offsets are computed on a prefix cut where the pattern must end a piece, and checked against
    the first ids of the whole text.
    """
    face = face_of(name)
    policy = policy_options(allowed, disallowed)
    limit = max_tokens_option(max_tokens)
    if isinstance(face, JsonFace):
        return _inspect_json(face, text, limit)
    enc: Encoding = face
    inc = _incremental.get(name)
    if inc is None:
        inc = _incremental[name] = IncrementalEncoder(enc)
    inc.new_version()
    count = inc.count(text, **policy)
    shown = min(count, limit)
    first = list(islice(chain.from_iterable(inc.ids(text, **policy)), shown))  # blocks come from the cache
    window_ids: list[int] = []
    spans: list[tuple[int, int]] = []
    end = 0
    if shown:
        guess = len(text) * shown * 5 // (4 * count) + 256  # a little more than needed: one pass
        while True:
            end = safe_prefix_end(text, guess)
            window_ids, spans = enc.encode_with_offsets(text[:end], **policy)
            if len(window_ids) >= shown or end >= len(text):
                break
            guess *= 2
        if window_ids[:shown] != first:  # cannot happen by construction; be safe, not fast
            end = len(text)
            window_ids, spans = enc.encode_with_offsets(text, **policy)
    spans = spans[:shown]
    prefix = text[:end]
    token_bytes = enc.decode_tokens_bytes(first)
    return _inspection(text, count, first, prefix, spans, token_bytes)


def _inspection(text: str, count: int, ids: list[int], prefix: str, spans: list[tuple[int, int]],
                token_bytes: list[bytes]) -> dict[str, Any]:
    """The answer of :func:`inspect`, from the shown tokens' ids, spans into ``prefix`` and bytes."""
    _words.new_version()
    return {
        "count": count,
        "ids": array("I", ids),
        "starts": array("I", utf16_offsets(prefix, [s for s, _ in spans])),
        "ends": array("I", utf16_offsets(prefix, [e for _, e in spans])),
        "lengths": array("I", map(len, token_bytes)),
        "bytes": b"".join(token_bytes),
        "utf16_length": len(text.encode("utf-16-le", "surrogatepass")) // 2,
        "code_points": len(text),
        "words": sum(map(_words, line_blocks(text))),
        "utf8_bytes": len(text.encode("utf-8", "surrogatepass")),
    }


def _inspect_json(face: JsonFace, text: str, limit: int) -> dict[str, Any]:
    """:func:`inspect` for a tokenizer.json. The count is the fast path's (its pieces are cached); ids
    and offsets come from encoding a prefix that ends after a line break followed by a non-space
    character, accepted only if counting the prefix and the rest apart gives the whole count (else
    the whole text is encoded)."""
    tok = face.tok
    count = tok.count(text)
    shown = min(count, limit)
    end = len(text)
    if shown < count:
        guess = len(text) * shown * 5 // (4 * count) + 256
        while guess < len(text):
            cut = _line_cut(text, guess)
            head = tok.count(text[:cut])
            if cut < len(text) and head >= shown and head + tok.count(text[cut:]) == count:
                end = cut
                break
            guess *= 2
    encoded = tok.encode(text[:end], add_special_tokens=False)
    ids = encoded.ids[:shown]
    return _inspection(text, count, ids, text[:end], encoded.offsets[:shown], face.decode_tokens_bytes(ids))


def _line_cut(text: str, at: int) -> int:
    """The first index at or after ``at`` that follows a line break and holds a non-space character
    (``len(text)`` if there is none).

    >>> _line_cut("ab\\n  c\\nd", 1)
    7
    """
    match = _LINE_START.search(text, at)
    return match.end() if match else len(text)


_LINE_START = re.compile(r"\n(?=\S)")


def decode(name: str, ids: Any, kind: str = "", errors: Any = "replace") -> str:
    return face_of(name).decode(js_ids(ids, kind), errors=decode_errors(errors))


def decode_token_bytes(name: str, ids: Any, kind: str = "") -> list[bytes]:
    """Each token's bytes (the playground shows them in hex)."""
    return face_of(name).decode_tokens_bytes(js_ids(ids, kind))


def forget_caches() -> None:
    """Empty what an interrupted call may have left half-updated: every engine's piece cache, the
    incremental encoders and the word counts (they fill again as text is encoded)."""
    from ..registry import ENCODINGS
    from .faces import loaded

    _incremental.clear()
    _words.current.clear()
    _words.previous.clear()
    for enc in ENCODINGS.values():
        enc.engine.cache.clear()
    for face in loaded.values():
        face.tok.engine.cache.clear()


def held() -> dict[str, int]:
    """What this surface keeps between calls (``memory_stats``)."""
    return {"cached_blocks": sum(inc.cached_blocks() for inc in _incremental.values()), "cached_word_counts": len(_words)}
