"""Calls the JavaScript API makes into Python (under Pyodide), with types that cross cheaply.

Why a package of its own: the browser runs the very same core; this is only the boundary. JavaScript
calls one function, :func:`dispatch`, which answers ``{"value": ...}`` or ``{"error": {"name",
"message", "token"}}``: plain values that Pyodide converts in one ``toJs`` (dicts become objects,
``array('I')`` a ``Uint32Array``, bytes a ``Uint8Array``), so no Python object is left behind in
JavaScript and no error has to be read back out of traceback text (``values.py``).

One module per surface: ``faces.py`` (the tokenizers JavaScript names: OpenAI encodings and loaded
``tokenizer.json`` files), ``tokens.py`` (ids, UTF-16 offsets, the playground's ``inspect``),
``streams.py`` (stream decoders and token counters under handles), ``chat.py``, ``training.py``,
``cli.py`` (``npx bytepair``), ``analysis.py`` (the Analyse tab) and ``startup.py`` (the snapshot's
``prepare``, warming up, memory checks).

>>> dispatch("count", "o200k_base", "hello world")
{'value': 2}
>>> dispatch("decode", "o200k_base", [-1])["error"]["name"]
'InvalidTokenError'
>>> import json
>>> spec = {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "<s>": 3}, "merges": ["a b"]},
...         "added_tokens": [{"id": 3, "content": "<s>", "special": True}]}
>>> info = dispatch("load_tokenizer_json", json.dumps(spec), "tiny")["value"]
>>> info["family"], info["name"], info["n_vocab"], info["special_tokens"]
('tokenizer.json', 'tiny', 4, ['<s>'])
>>> list(dispatch("encode", info["key"], "ab<s>ba")["value"])
[2, 3, 1, 0]
>>> dispatch("load_tokenizer_json", "{", "broken")["error"]["name"]
'VocabFormatError'
>>> unload_tokenizer(info["key"])
True
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

from .analysis import analysis_markdown, analyze
from .chat import chat_count, chat_encode, chat_settings
from .cli import run_cli
from .sentencepiece import load_sentencepiece
from .tokens import count, decode, decode_token_bytes, encode, encode_with_offsets, forget_caches, inspect, is_within_token_limit
from .faces import KEY_PREFIX, encoding_info, list_encodings, load_tokenizer_json, model_encoding, unload_tokenizer
from .startup import WARM_UP_PARTS, memory_stats, prepare, use_verified_data_dir, warm_up
from .streams import (
    counter_close,
    counter_feed,
    counter_feed_bytes,
    counter_finish,
    counter_open,
    stream_close,
    stream_feed,
    stream_flush,
    stream_open,
)
from .training import AbortError, train_close, train_feed, train_finish, train_open
from .values import JS_ERROR_NAMES, error_info, js_error_name, memory_error

__all__ = [
    "AbortError",
    "JS_ERROR_NAMES",
    "KEY_PREFIX",
    "WARM_UP_PARTS",
    "analysis_markdown",
    "analyze",
    "chat_count",
    "chat_encode",
    "chat_settings",
    "count",
    "counter_close",
    "counter_feed",
    "counter_feed_bytes",
    "counter_finish",
    "counter_open",
    "decode",
    "decode_token_bytes",
    "dispatch",
    "encode",
    "encode_with_offsets",
    "encoding_info",
    "error_info",
    "inspect",
    "is_within_token_limit",
    "js_error_name",
    "list_encodings",
    "load_sentencepiece",
    "load_tokenizer_json",
    "memory_stats",
    "model_encoding",
    "prepare",
    "run_cli",
    "settle_interrupt",
    "stream_close",
    "stream_feed",
    "stream_flush",
    "stream_open",
    "train_close",
    "train_feed",
    "train_finish",
    "train_open",
    "unload_tokenizer",
    "use_verified_data_dir",
    "warm_up",
]


def dispatch(op: str, *args: Any) -> dict[str, Any]:
    """Call the bridge function named ``op``: ``{"value": result}`` or ``{"error": error_info(...)}``.

    Every exception is answered, not raised: an exception that crossed into JavaScript would be
    formatted with its traceback there and rebuilt from that text.
    """
    function = _OPERATIONS.get(op)
    if function is None:
        return {"error": {"name": "InvalidInputError", "message": f"unknown bridge operation {op!r}", "token": None}}
    try:
        return {"value": function(*args)}
    except MemoryError:
        # Said in strings made once what the call held is freed: the bundled Pyodide garbles a string
        # it converts from above 2 GB of wasm memory, where one made mid-failure may sit.
        gc.collect()
        return {"error": error_info(memory_error(op, args))}
    except Exception as exc:  # noqa: BLE001 - every error crosses as data, typed by its class name
        return {"error": error_info(exc)}
    except KeyboardInterrupt:  # JavaScript wrote SIGINT into Pyodide's interrupt buffer: the call was aborted
        forget_caches()
        return {"error": {"name": "AbortError", "message": f"{op} was interrupted (its AbortSignal fired)", "token": None}}


def settle_interrupt() -> bool:
    """Run a few bytecodes, so that an interrupt Pyodide took in just as a call ended is raised (and
    answered by :func:`dispatch`) here, not in the next call."""
    for _ in range(64):
        pass
    return True


_OPERATIONS: dict[str, Callable[..., Any]] = {function.__name__: function for function in (
    chat_count,
    chat_encode,
    chat_settings,
    analysis_markdown,
    analyze,
    count,
    counter_close,
    counter_feed,
    counter_feed_bytes,
    counter_finish,
    counter_open,
    decode,
    decode_token_bytes,
    encode,
    encode_with_offsets,
    encoding_info,
    inspect,
    is_within_token_limit,
    list_encodings,
    load_sentencepiece,
    load_tokenizer_json,
    memory_stats,
    model_encoding,
    run_cli,
    settle_interrupt,
    stream_close,
    stream_feed,
    stream_flush,
    stream_open,
    train_close,
    train_feed,
    train_finish,
    train_open,
    unload_tokenizer,
    use_verified_data_dir,
    warm_up,
)}
"""The bridge functions JavaScript calls by name through :func:`dispatch`."""
