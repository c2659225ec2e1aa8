"""Calls the JavaScript API makes into Python (under Pyodide), with types that cross cheaply.

Why a module of its own: the browser runs the very same core; this is only the boundary. JavaScript
calls one function, :func:`dispatch`, which answers ``{"value": ...}`` or ``{"error": {"name",
"message", "token"}}``: plain values that Pyodide converts in one ``toJs`` (dicts become objects,
``array('I')`` a ``Uint32Array``, bytes a ``Uint8Array``), so no Python object is left behind in
JavaScript and no error has to be read back out of traceback text. Offsets are converted to UTF-16
code units (JavaScript string indices), and streaming decoders are kept here under integer handles
so each JavaScript stream has its own state until JavaScript closes it.

>>> dispatch("count", "o200k_base", "hello world")
{'value': 2}
>>> dispatch("decode", "o200k_base", [-1])["error"]["name"]
'InvalidTokenError'
"""

from __future__ import annotations

import gc
from array import array
from collections.abc import Callable, Iterable
from itertools import chain, islice
from typing import Any

from .decode import StreamDecoder
from .encoding import Encoding
from .errors import InvalidInputError
from .incremental import IncrementalEncoder, line_blocks, safe_prefix_end
from .offsets import utf16_offsets
from .registry import (
    encoding_name_for_model,
    get_encoding,
    list_encoding_names,
    use_data_dir,
)

__all__ = [
    "count",
    "decode",
    "decode_token_bytes",
    "dispatch",
    "encode",
    "encode_with_offsets",
    "encoding_info",
    "error_info",
    "inspect",
    "is_within_token_limit",
    "list_encodings",
    "memory_stats",
    "model_encoding",
    "prepare",
    "stream_close",
    "stream_feed",
    "stream_flush",
    "stream_open",
    "use_verified_data_dir",
]

_streams: dict[int, StreamDecoder] = {}
_next_stream = 0
_incremental: dict[str, IncrementalEncoder] = {}


class _BlockWords:
    """Whitespace-separated words per block, for the blocks of the last two texts only (an editor
    sends one text after another: a block that neither uses is not kept)."""

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
                n = len(block.split())
            self.current[block] = n
        return n

    def __len__(self) -> int:
        return len(self.current) + len(self.previous.keys() - self.current.keys())


_words = _BlockWords()


def error_info(exc: BaseException) -> dict[str, Any]:
    """An exception as JavaScript receives it: the class name (the JavaScript error's ``name``),
    the message, and the offending special token where there is one (else None).

    >>> from bytepair.errors import DisallowedSpecialTokenError
    >>> info = error_info(DisallowedSpecialTokenError("<|endoftext|>"))
    >>> info["name"], info["token"]
    ('DisallowedSpecialTokenError', '<|endoftext|>')
    """
    token = getattr(exc, "token", None)
    message = exc.args[0] if isinstance(exc, KeyError) and len(exc.args) == 1 else str(exc)
    return {"name": type(exc).__name__, "message": str(message), "token": token if isinstance(token, str) else None}


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
    except Exception as exc:  # noqa: BLE001 - every error crosses as data, typed by its class name
        return {"error": error_info(exc)}


def _to_py(value: Any) -> Any:
    """A JavaScript array/object arrives as a proxy; anything else is already a Python value."""
    return value.to_py() if hasattr(value, "to_py") else value


def _names(value: Any, option: str) -> Any:
    """A special-token option from JavaScript: "all" or names (an array; the JS API turns a Set into one)."""
    if value == "all":
        return value
    names = _to_py(value)
    if not isinstance(names, (list, tuple, set, frozenset)) or not all(isinstance(n, str) for n in names):
        raise InvalidInputError(f'{option} must be "all" or an array or Set of special-token strings, not {names!r}')
    return frozenset(names)


def _policy(allowed: Any, disallowed: Any) -> dict[str, Any]:
    """JavaScript passes "all", an array of names, or nothing (undefined -> None)."""
    out: dict[str, Any] = {}
    if allowed is not None:
        out["allowed_special"] = _names(allowed, "allowedSpecial")
    if disallowed is not None:
        out["disallowed_special"] = _names(disallowed, "disallowedSpecial")
    return out


def _ids(ids: Any, kind: str) -> Iterable[Any]:
    """Ids from JavaScript: raw bytes of a Uint32Array/Int32Array (``kind`` "I"/"i") or a list."""
    if kind in ("I", "i"):
        values = array(kind)
        values.frombytes(ids.to_bytes() if hasattr(ids, "to_bytes") else bytes(ids))
        return values
    ids = _to_py(ids)
    if not isinstance(ids, (list, tuple)):
        raise InvalidInputError(f"ids must be an array of integers or a Uint32Array/Int32Array, not {type(ids).__name__}")
    return ids


_DECODE_ERRORS = ("replace", "strict", "ignore")


def _decode_errors(errors: Any) -> str:
    if errors not in _DECODE_ERRORS:
        raise InvalidInputError(f"errors must be one of {', '.join(map(repr, _DECODE_ERRORS))}, not {errors!r}")
    return str(errors)


def _max_tokens(value: Any) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # JavaScript numbers may arrive as floats
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InvalidInputError(f"maxTokens must be a non-negative integer, not {value!r}")
    return value


def prepare() -> None:
    """Import every module of the package and compile every bundled pattern and special-token matcher.

    The bundle's build calls this before taking Pyodide's memory snapshot, so a page that starts
    from the snapshot needs neither the package files nor any compiling (the rank data are loaded
    per encoding, on demand).
    """
    import importlib
    import pkgutil

    from . import __name__ as package
    from . import __path__ as package_path
    from .openai_encodings import ENCODING_SPECS
    from .pretokenize import Pretokenizer
    from .special_scan import SpecialTokenScanner

    for module in pkgutil.walk_packages(package_path, package + "."):
        if module.name != package + ".__main__":  # that one runs the CLI when imported
            importlib.import_module(module.name)
    for spec in ENCODING_SPECS.values():
        Pretokenizer(spec.pattern, cuttable=True)
        SpecialTokenScanner(spec.special_tokens).find("", frozenset(spec.special_tokens))


def use_verified_data_dir(directory: str) -> None:
    """Rank files come from ``directory``, where the runtime writes each one only after checking its
    size and sha256 against the bundle's manifest (so Python need not hash them again)."""
    use_data_dir(directory, verified=True)


def list_encodings() -> list[str]:
    return list_encoding_names()


def model_encoding(model: str) -> str:
    return encoding_name_for_model(model)


def encoding_info(name: str) -> dict[str, Any]:
    enc: Encoding = get_encoding(name)
    specials = enc.special_tokens_set
    return {
        "name": enc.name,
        "n_vocab": enc.n_vocab,
        "max_token_value": enc.max_token_value,
        "eot_token": enc.eot_token if "<|endoftext|>" in specials else None,
        "special_tokens": sorted(specials),
    }


def encode(name: str, text: str, allowed: Any = None, disallowed: Any = None) -> array:
    return get_encoding(name).encode_to_array(text, **_policy(allowed, disallowed))


def count(name: str, text: str, allowed: Any = None, disallowed: Any = None) -> int:
    return get_encoding(name).count(text, **_policy(allowed, disallowed))


def is_within_token_limit(name: str, text: str, limit: int, allowed: Any = None, disallowed: Any = None) -> int | bool:
    return get_encoding(name).is_within_token_limit(text, limit, **_policy(allowed, disallowed))


def encode_with_offsets(name: str, text: str, allowed: Any = None, disallowed: Any = None) -> dict[str, array]:
    """Ids and [start, end) offsets in UTF-16 code units of ``text``."""
    ids, spans = get_encoding(name).encode_with_offsets(text, **_policy(allowed, disallowed))
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
    enc = get_encoding(name)
    policy = _policy(allowed, disallowed)
    limit = _max_tokens(max_tokens)
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
    _words.new_version()
    return {
        "count": count,
        "ids": array("I", first),
        "starts": array("I", utf16_offsets(prefix, [s for s, _ in spans])),
        "ends": array("I", utf16_offsets(prefix, [e for _, e in spans])),
        "lengths": array("I", map(len, token_bytes)),
        "bytes": b"".join(token_bytes),
        "utf16_length": len(text.encode("utf-16-le", "surrogatepass")) // 2,
        "code_points": len(text),
        "words": sum(map(_words, line_blocks(text))),
        "utf8_bytes": len(text.encode("utf-8", "surrogatepass")),
    }


def decode(name: str, ids: Any, kind: str = "", errors: Any = "replace") -> str:
    return get_encoding(name).decode(_ids(ids, kind), errors=_decode_errors(errors))


def decode_token_bytes(name: str, ids: Any, kind: str = "") -> list[bytes]:
    """Each token's bytes (the playground shows them in hex)."""
    return get_encoding(name).decode_tokens_bytes(_ids(ids, kind))


def stream_open(name: str) -> int:
    global _next_stream
    decoder = get_encoding(name).stream_decoder()
    _next_stream += 1
    _streams[_next_stream] = decoder
    return _next_stream


def _stream(handle: Any) -> StreamDecoder:
    try:
        return _streams[handle]
    except (KeyError, TypeError):
        raise InvalidInputError(f"stream decoder {handle!r} is closed; create a new one with tok.decoder()") from None


def stream_feed(handle: int, ids: Any, kind: str = "") -> str:
    return _stream(handle).feed(_ids(ids, kind))


def stream_flush(handle: int) -> str:
    return _stream(handle).flush()


def stream_close(handle: int) -> bool:
    """Forget a stream decoder; True if it was open (closing twice is harmless)."""
    return _streams.pop(handle, None) is not None


def memory_stats() -> dict[str, int]:
    """What the bridge holds, for leak checks: open stream decoders, cached blocks and word counts,
    and the interpreter's live container objects (after a collection)."""
    gc.collect()
    return {
        "open_decoders": len(_streams),
        "cached_blocks": sum(inc.cached_blocks() for inc in _incremental.values()),
        "cached_word_counts": len(_words),
        "python_objects": len(gc.get_objects()),
    }


_OPERATIONS: dict[str, Callable[..., Any]] = {
    name: globals()[name] for name in __all__ if name not in ("dispatch", "error_info", "prepare")
}
