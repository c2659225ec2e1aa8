"""Calls the JavaScript API makes into Python (under Pyodide), with types that cross cheaply.

Why a module of its own: the browser runs the very same core; this is only the boundary. Ids leave as
``array('I')`` (Pyodide hands the buffer to JavaScript as one ``Uint32Array`` copy, far cheaper than a
list of numbers), offsets are converted to UTF-16 code units (JavaScript string indices), and
streaming decoders are kept here under integer handles so each JavaScript stream has its own state.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
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
    "encode",
    "encode_with_offsets",
    "encoding_info",
    "inspect",
    "is_within_token_limit",
    "list_encodings",
    "model_encoding",
    "prepare",
    "stream_close",
    "stream_feed",
    "stream_flush",
    "stream_open",
    "use_verified_data_dir",
]

_streams: dict[int, StreamDecoder] = {}
_incremental: dict[str, IncrementalEncoder] = {}
_words: dict[str, int] = {}  # block -> its whitespace-separated words (blocks start after a newline)


def _block_words(block: str) -> int:
    n = _words.get(block)
    if n is None:
        if len(_words) >= 1 << 16:
            _words.clear()
        n = _words[block] = len(block.split())
    return n
_next_stream = 0


def _policy(allowed: Any, disallowed: Any) -> dict[str, Any]:
    """JavaScript passes "all", an array of names, or nothing (undefined -> None)."""
    out: dict[str, Any] = {}
    if allowed is not None:
        out["allowed_special"] = allowed if allowed == "all" else frozenset(allowed)
    if disallowed is not None:
        out["disallowed_special"] = disallowed if disallowed == "all" else frozenset(disallowed)
    return out


def _ids(ids: Any, kind: str) -> Iterable[Any]:
    """Ids from JavaScript: raw bytes of a Uint32Array/Int32Array (``kind`` "I"/"i") or a list."""
    if kind in ("I", "i"):
        values = array(kind)
        values.frombytes(ids.to_bytes() if hasattr(ids, "to_bytes") else bytes(ids))
        return values
    if hasattr(ids, "to_py"):  # a JavaScript array arrives as a proxy
        ids = ids.to_py()
    if not isinstance(ids, (list, tuple)):
        raise InvalidInputError("ids must be an array of integers or a Uint32Array/Int32Array")
    return ids


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
    return {
        "name": enc.name,
        "n_vocab": enc.n_vocab,
        "max_token_value": enc.max_token_value,
        "eot_token": enc._special_tokens.get("<|endoftext|>"),
        "special_tokens": sorted(enc.special_tokens_set),
    }


def encode(name: str, text: str, allowed: Any = None, disallowed: Any = None) -> array:
    return get_encoding(name).encode_to_array(text, **_policy(allowed, disallowed))


def count(name: str, text: str, allowed: Any = None, disallowed: Any = None) -> int:
    return get_encoding(name).count(text, **_policy(allowed, disallowed))


def is_within_token_limit(name: str, text: str, limit: int, allowed: Any = None, disallowed: Any = None) -> int | bool:
    return get_encoding(name).is_within_token_limit(text, limit, **_policy(allowed, disallowed))


def encode_with_offsets(name: str, text: str, allowed: Any = None, disallowed: Any = None) -> tuple[array, array, array]:
    """Ids and [start, end) offsets in UTF-16 code units of ``text``."""
    ids, spans = get_encoding(name).encode_with_offsets(text, **_policy(allowed, disallowed))
    starts = utf16_offsets(text, [s for s, _ in spans])
    ends = utf16_offsets(text, [e for _, e in spans])
    return array("I", ids), array("I", starts), array("I", ends)


def inspect(
    name: str, text: str, allowed: Any = None, disallowed: Any = None, max_tokens: int = 2000
) -> tuple[int, array, array, array, array, bytes, tuple[int, int, int, int]]:
    """Everything the playground shows after an edit, in one call, fast for long edited texts.

    Returns (token count; for the first ``max_tokens`` tokens only: ids, UTF-16 starts, UTF-16 ends,
    byte lengths, their bytes joined; and (UTF-16 length, code points, words, UTF-8 bytes) of
    ``text``). The count reuses the unchanged blocks of earlier texts (``IncrementalEncoder``);
    offsets are computed on a prefix cut where the pattern must end a piece, and checked against
    the first ids of the whole text.
    """
    enc = get_encoding(name)
    policy = _policy(allowed, disallowed)
    inc = _incremental.get(name)
    if inc is None:
        inc = _incremental[name] = IncrementalEncoder(enc)
    count = inc.count(text, **policy)
    shown = min(count, max(0, int(max_tokens)))
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
    starts = utf16_offsets(prefix, [s for s, _ in spans])
    ends = utf16_offsets(prefix, [e for _, e in spans])
    token_bytes = list(enc._table.each(first))
    stats = (
        len(text.encode("utf-16-le", "surrogatepass")) // 2,
        len(text),
        sum(map(_block_words, line_blocks(text))),
        len(text.encode("utf-8", "surrogatepass")),
    )
    return (
        count,
        array("I", first),
        array("I", starts),
        array("I", ends),
        array("I", map(len, token_bytes)),
        b"".join(token_bytes),
        stats,
    )


def decode(name: str, ids: Any, kind: str = "", errors: str = "replace") -> str:
    return get_encoding(name).decode(_ids(ids, kind), errors=errors)


def decode_token_bytes(name: str, ids: Any, kind: str = "") -> list[bytes]:
    """Each token's bytes (the playground shows them in hex)."""
    return get_encoding(name).decode_tokens_bytes(_ids(ids, kind))


def stream_open(name: str) -> int:
    global _next_stream
    _next_stream += 1
    _streams[_next_stream] = get_encoding(name).stream_decoder()
    return _next_stream


def _stream(handle: int) -> StreamDecoder:
    try:
        return _streams[handle]
    except KeyError:
        raise InvalidInputError(f"stream decoder {handle} is closed; create a new one with tok.decoder()") from None


def stream_feed(handle: int, ids: Any, kind: str = "") -> str:
    return _stream(handle).feed(_ids(ids, kind))


def stream_flush(handle: int) -> str:
    return _stream(handle).flush()


def stream_close(handle: int) -> None:
    _streams.pop(handle, None)
