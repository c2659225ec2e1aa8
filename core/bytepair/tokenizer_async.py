"""The awaitable half of ``bytepair.Tokenizer``: HF's ``async_encode``, ``async_encode_batch``,
``async_encode_batch_fast`` and ``async_decode_batch``.

Why: an asyncio server (a chat front end, an OpenAI-style endpoint) counts and decodes while it
serves other requests; HF ``tokenizers`` 0.23 offers these methods for that, and code written for it
awaits them. Each returns an ``asyncio.Future`` of the running loop, as HF's do (called with no loop
running, they raise ``RuntimeError`` as HF's do), resolved by the very method it names run on the loop's
default executor thread, so the loop goes on serving between Python's switches. Where no thread can
start (Pyodide in a browser tab) the work is done at once and the future comes back resolved.

>>> import asyncio
>>> from bytepair import Tokenizer
>>> tok = Tokenizer.from_encoding("r50k_base")
>>> async def main():
...     one = await tok.async_encode("hello world")
...     return one.ids, await tok.async_decode_batch([[31373], [995]])
>>> asyncio.run(main())
([31373, 995], ['hello', ' world'])
"""

from __future__ import annotations

import asyncio
import functools
import sys
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["TokenizerAsync"]

_NO_THREADS = sys.platform == "emscripten"


def _future(work: Callable[[], Any]) -> asyncio.Future[Any]:
    loop = asyncio.get_running_loop()  # RuntimeError("no running event loop"), as HF's
    if not _NO_THREADS:
        return loop.run_in_executor(None, work)
    future = loop.create_future()
    try:
        future.set_result(work())
    except Exception as exc:  # noqa: BLE001 - handed to the awaiting code, as the executor would
        future.set_exception(exc)
    return future


class TokenizerAsync:
    """HF's awaitable methods, for :class:`~bytepair.Tokenizer` (see the module docstring)."""

    # Set by Tokenizer (tokenizer.py):
    encode: Any
    encode_batch: Any
    encode_batch_fast: Any
    decode_batch: Any

    def async_encode(self, sequence: Any, pair: Any = None, is_pretokenized: bool = False,
                     add_special_tokens: bool = True) -> asyncio.Future[Any]:
        """``encode``, awaitable."""
        return _future(functools.partial(self.encode, sequence, pair, is_pretokenized, add_special_tokens))

    def async_encode_batch(self, input: Sequence[Any], is_pretokenized: bool = False,  # noqa: A002 - HF's name
                           add_special_tokens: bool = True) -> asyncio.Future[Any]:
        """``encode_batch``, awaitable."""
        return _future(functools.partial(self.encode_batch, input, is_pretokenized, add_special_tokens))

    def async_encode_batch_fast(self, input: Sequence[Any], is_pretokenized: bool = False,  # noqa: A002 - HF's name
                                add_special_tokens: bool = True) -> asyncio.Future[Any]:
        """``encode_batch_fast``, awaitable."""
        return _future(functools.partial(self.encode_batch_fast, input, is_pretokenized, add_special_tokens))

    def async_decode_batch(self, sequences: Sequence[Sequence[int]], skip_special_tokens: bool = True) -> asyncio.Future[Any]:
        """``decode_batch``, awaitable."""
        return _future(functools.partial(self.decode_batch, sequences, skip_special_tokens))
