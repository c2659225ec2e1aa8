"""Stateful calls, kept here under integer handles until JavaScript closes them: stream decoders
(each JavaScript stream has its own state) and token counters fed a text slice by slice.

>>> h = stream_open("o200k_base")
>>> stream_feed(h, [9552, 104]), stream_feed(h, [254]), stream_close(h)
(' ', '🫠', True)
"""

from __future__ import annotations

from typing import Any

from ..decoders.token_table import StreamDecoder
from ..pipeline.blocks import TokenCounter
from ..errors import InvalidInputError
from ..text.checks import require_str
from .faces import JsonFace, face_of
from .values import js_ids, policy_options

__all__ = ["counter_close", "counter_feed", "counter_feed_bytes", "counter_finish", "counter_open", "held", "stream_close",
           "stream_feed", "stream_flush", "stream_open"]

_streams: dict[int, Any] = {}  # StreamDecoder, or JsonStream for a tokenizer.json
_next_stream = 0


def stream_open(name: str) -> int:
    global _next_stream
    decoder = face_of(name).stream_decoder()
    _next_stream += 1
    _streams[_next_stream] = decoder
    return _next_stream


def _stream(handle: Any) -> StreamDecoder:
    try:
        return _streams[handle]
    except (KeyError, TypeError):
        raise InvalidInputError(f"stream decoder {handle!r} is closed; create a new one with tok.decoder()") from None


def stream_feed(handle: int, ids: Any, kind: str = "") -> str:
    return _stream(handle).feed(js_ids(ids, kind))


def stream_flush(handle: int) -> str:
    return _stream(handle).flush()


def stream_close(handle: int) -> bool:
    """Forget a stream decoder; True if it was open (closing twice is harmless)."""
    return _streams.pop(handle, None) is not None


_counters: dict[int, TokenCounter] = {}
_next_counter = 0


def counter_open(name: str, allowed: Any = None, disallowed: Any = None, errors: Any = "strict") -> int:
    """Start counting text that arrives in pieces (``counter_feed``/``counter_feed_bytes``, then
    ``counter_finish``), in bounded memory for the OpenAI encodings and the tokenizer.json pipelines
    that ``pipeline/stream_cuts.py`` allows (``Encoding.token_counter``, ``Tokenizer.token_counter``).
    JavaScript feeds a long text slice by slice, so other calls run between the slices.

    >>> h = counter_open("o200k_base")
    >>> counter_feed(h, "hello "); counter_feed_bytes(h, b"wor"); counter_feed_bytes(h, b"ld")
    >>> counter_finish(h), counter_close(h)
    (2, False)
    """
    global _next_counter
    face = face_of(name)
    if errors not in ("strict", "replace"):
        raise InvalidInputError(f"errors must be 'strict' or 'replace', not {errors!r}")
    if isinstance(face, JsonFace):
        counter = face.tok.token_counter(errors=errors)  # in blocks where its pipeline allows (pipeline/stream_cuts.py)
    else:
        counter = face.token_counter(errors=errors, **policy_options(allowed, disallowed))
    _next_counter += 1
    _counters[_next_counter] = counter
    return _next_counter


def _counter(handle: Any) -> Any:
    try:
        return _counters[handle]
    except (KeyError, TypeError):
        raise InvalidInputError(f"token counter {handle!r} is closed") from None


def counter_feed(handle: int, text: Any) -> None:
    require_str(text)
    _counter(handle).feed(text)


def counter_feed_bytes(handle: int, data: Any) -> None:
    _counter(handle).feed_bytes(data.to_bytes() if hasattr(data, "to_bytes") else bytes(data))


def counter_finish(handle: int) -> int:
    """The total; the counter is closed (also when the rest of the text is rejected)."""
    try:
        return int(_counter(handle).finish())
    finally:
        _counters.pop(handle, None)


def counter_close(handle: int) -> bool:
    """Forget a counter (an aborted count); True if it was open."""
    return _counters.pop(handle, None) is not None


def held() -> dict[str, int]:
    """What this surface keeps between calls (``memory_stats``)."""
    return {"open_decoders": len(_streams), "open_counters": len(_counters)}
