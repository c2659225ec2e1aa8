"""What crosses the boundary: JavaScript's values read as Python's, and errors sent back as data.

JavaScript arrays and objects arrive as Pyodide proxies (``to_py``), numbers may arrive as floats,
ids as the raw bytes of a ``Uint32Array``; each reader checks what it is given and says, in the JS
API's words, what it wanted. An exception goes back as ``{name, message, token}`` (``error_info``):
the name of the nearest error class ``web/errors.mjs`` has, and a message whose advice names the
JavaScript options (``specialText``, not ``special_text``).

>>> policy_options("all", None), list(js_ids([1, 2], ""))
({'allowed_special': 'all'}, [1, 2])
"""

from __future__ import annotations

import json
import re
from array import array
from collections.abc import Iterable
from typing import Any

from ..errors import (
    BytepairError,
    DisallowedSpecialTokenError,
    EmptyCorpusError,
    InvalidInputError,
    InvalidTokenError,
    InputTooLargeError,
)

__all__ = ["JS_ERROR_NAMES", "decode_errors", "error_info", "js_error_name", "js_ids", "json_arg", "max_tokens_option", "memory_error",
           "policy_options", "to_py"]


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
    if isinstance(exc, DisallowedSpecialTokenError):  # tiktoken's words name tiktoken's arguments
        message = (
            f"the text contains the special token {exc.token!r}, which this call does not allow: pass "
            f"allowedSpecial: [{json.dumps(exc.token)}] (or \"all\") to encode it as its id, or disallowedSpecial: [] "
            "to encode it as ordinary text"
        )
    return {"name": js_error_name(exc), "message": _js_words(str(message)), "token": token if isinstance(token, str) else None}


JS_ERROR_NAMES = frozenset({
    "InvalidInputError", "InvalidTokenError", "DisallowedSpecialTokenError", "InputDecodeError", "UnknownEncodingError",
    "UnknownModelError", "UnknownTokenizerError", "VocabFormatError", "UnsupportedTokenizerError", "AssetError",
    "IntegrityError", "DisposedError", "ClosedError", "WorkerError", "AbortError", "StateError", "TemplateError",
    "ReservedLiteralError", "MissingDependencyError", "TrainingError", "InputTooLargeError", "UnsupportedPatternError",
    "CallTimeoutError",
})
"""The error classes ``web/errors.mjs`` exports (a test holds the two lists equal)."""


def js_error_name(exc: BaseException) -> str:
    """The JavaScript class an exception arrives as: its own name if ``errors.mjs`` has that class,
    else its nearest base's that it has (``VocabHashMismatchError`` is a ``VocabFormatError``); a
    strict decode's ``UnicodeDecodeError`` is an ``InputDecodeError``, a corpus with no text an
    ``InvalidInputError``, any other error of bytepair a ``BytepairError``.

    >>> js_error_name(UnicodeDecodeError("utf-8", b"\\xff", 0, 1, "invalid start byte")), js_error_name(EmptyCorpusError("no text"))
    ('InputDecodeError', 'InvalidInputError')
    """
    if isinstance(exc, UnicodeDecodeError):
        return "InputDecodeError"
    if isinstance(exc, EmptyCorpusError):
        return "InvalidInputError"
    for cls in type(exc).__mro__:
        if cls.__name__ in JS_ERROR_NAMES:
            return cls.__name__
    return "BytepairError" if isinstance(exc, BytepairError) else type(exc).__name__


_JS_OPTION = re.compile(r"\b(special_text|errors|vocab_size|min_frequency|allowed_special|disallowed_special|template_timeout"
                        r"|template_max_chars)(=|\b)('[^']*')?")
_JS_NAMES = {"special_text": "specialText", "errors": "errors", "vocab_size": "vocabSize", "min_frequency": "minFrequency",
             "allowed_special": "allowedSpecial", "disallowed_special": "disallowedSpecial",
             "template_timeout": "templateTimeout", "template_max_chars": "templateMaxChars"}


_JS_VALUES = {"NoneType": "not undefined", "JsNull": "not null", "jsnull": "not null", "JsProxy": "not a plain value",
              "True": "not true", "False": "not false", "nan": "not NaN", "inf": "not Infinity"}
_JS_VALUE = re.compile(r"\bnot (NoneType|JsNull|jsnull|JsProxy|True|False|nan|inf)\b")


def _js_words(message: str) -> str:
    """A message's advice in the JavaScript API's words: ``special_text='escape'`` is
    ``specialText: "escape"``, ``vocab_size`` is ``vocabSize`` (the options that messages name);
    the command line's spelling is dropped.

    Python's names for the JavaScript values a message says it got are JavaScript's (``NoneType`` is
    ``undefined``, Pyodide's ``JsNull`` is ``null``, ``True`` is ``true``, ``nan`` is ``NaN``).

    >>> _js_words("pass special_text='escape', or errors='replace' (command line: --errors replace); vocab_size >= 256")
    'pass specialText: "escape", or errors: "replace"; vocabSize >= 256'
    >>> _js_words("text must be a str, not JsNull; limit must be a non-negative int, not nan; ids, not NoneType")
    'text must be a string, not null; limit must be a non-negative integer, not NaN; ids, not undefined'
    """
    message = message.replace(" (command line: --errors replace)", "")
    message = message.replace(
        "install the `regex` package to use this pattern",
        "this runtime cannot run this pattern (it would need Python's `regex` package, which the bundle does not ship)",
    )
    message = _JS_VALUE.sub(lambda match: _JS_VALUES[match.group(1)], message)
    message = message.replace("must be a str,", "must be a string,").replace("non-negative int,", "non-negative integer,")

    def js(match: re.Match[str]) -> str:
        name, value = _JS_NAMES[match.group(1)], match.group(3)
        if match.group(2) != "=":
            return name + (value or "")
        return f"{name}: " + (json.dumps(value[1:-1]) if value else "")

    return _JS_OPTION.sub(js, message)


_MEMORY_ADVICE = {
    "encode": "count it with count() (it keeps no ids; a Blob or ReadableStream is counted in blocks), or encode smaller parts",
    "decode": "decode the ids in parts (decodeStream(), or decoder())",
    "chat": "pass fewer or shorter messages, or a lower templateMaxChars",
}
_MEMORY_OPS = {"encode": "encode", "encode_with_offsets": "encode", "inspect": "encode", "count": "encode",
               "is_within_token_limit": "encode", "decode": "decode", "decode_token_bytes": "decode",
               "chat_encode": "chat", "chat_count": "chat"}


def memory_error(op: str, args: tuple[Any, ...]) -> InputTooLargeError:
    """What to say when the bridge function ``op`` ran out of memory, in the JavaScript API's words:
    how big its input was and what to do.

    >>> memory_error("decode", ("o200k_base", bytes(400), "I"))
    InputTooLargeError('out of memory in decode (100 ids): decode the ids in parts (decodeStream(), or decoder())')
    """
    kind = _MEMORY_OPS.get(op)
    size = ""
    if kind == "decode":
        nbytes = next((n for a in args if isinstance(n := getattr(a, "byteLength", len(a) if isinstance(a, bytes) else None), int)), None)
        size = f" ({nbytes // 4:,} ids)" if nbytes is not None else ""
    elif kind == "encode" and len(args) > 1 and isinstance(args[1], str):
        size = f" ({len(args[1]):,} characters)"
    return InputTooLargeError(f"out of memory in {op}{size}: {_MEMORY_ADVICE.get(kind or '', 'pass a smaller input')}")


def to_py(value: Any) -> Any:
    """A JavaScript array/object arrives as a proxy; anything else is already a Python value."""
    return value.to_py() if hasattr(value, "to_py") else value


def _names(value: Any, option: str) -> Any:
    """A special-token option from JavaScript: "all" or names (an array; the JS API turns a Set into one)."""
    if value == "all":
        return value
    names = to_py(value)
    if not isinstance(names, (list, tuple, set, frozenset)) or not all(isinstance(n, str) for n in names):
        raise InvalidInputError(f'{option} must be "all" or an array or Set of special-token strings, not {names!r}')
    return frozenset(names)


def policy_options(allowed: Any, disallowed: Any) -> dict[str, Any]:
    """JavaScript passes "all", an array of names, or nothing (undefined -> None)."""
    out: dict[str, Any] = {}
    if allowed is not None:
        out["allowed_special"] = _names(allowed, "allowedSpecial")
    if disallowed is not None:
        out["disallowed_special"] = _names(disallowed, "disallowedSpecial")
    return out


def js_ids(ids: Any, kind: str) -> Iterable[Any]:
    """Ids from JavaScript: raw bytes of a Uint32Array/Int32Array (``kind`` "I"/"i") or a list."""
    if kind in ("I", "i"):
        values = array(kind)
        values.frombytes(ids.to_bytes() if hasattr(ids, "to_bytes") else bytes(ids))
        return values
    ids = to_py(ids)
    if not isinstance(ids, (list, tuple)):
        raise InvalidInputError(f"ids must be an array of integers or a Uint32Array/Int32Array, not {type(ids).__name__}")
    for position, token_id in enumerate(ids):
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            kind = "null" if token_id is None or type(token_id).__name__ == "JsNull" else type(token_id).__name__
            raise InvalidTokenError(f"token ids must be integers; got {kind} at position {position}")
    return ids


_DECODE_ERRORS = ("replace", "strict", "ignore")


def decode_errors(errors: Any) -> str:
    if errors not in _DECODE_ERRORS:
        raise InvalidInputError(f"errors must be one of {', '.join(map(repr, _DECODE_ERRORS))}, not {errors!r}")
    return str(errors)


def max_tokens_option(value: Any) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # JavaScript numbers may arrive as floats
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InvalidInputError(f"maxTokens must be a non-negative integer, not {value!r}")
    return value


def json_arg(text: Any, what: str) -> Any:
    """A value JavaScript sent as JSON text."""
    if not isinstance(text, str):
        raise InvalidInputError(f"{what} must arrive as JSON text, not {type(text).__name__}")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise InvalidInputError(f"{what} is not valid JSON ({exc})") from None
