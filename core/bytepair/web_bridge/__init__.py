"""Calls the JavaScript API makes into Python (under Pyodide), with types that cross cheaply.

Why a module of its own: the browser runs the very same core; this is only the boundary. JavaScript
calls one function, :func:`dispatch`, which answers ``{"value": ...}`` or ``{"error": {"name",
"message", "token"}}``: plain values that Pyodide converts in one ``toJs`` (dicts become objects,
``array('I')`` a ``Uint32Array``, bytes a ``Uint8Array``), so no Python object is left behind in
JavaScript and no error has to be read back out of traceback text. Offsets are converted to UTF-16
code units (JavaScript string indices), and streaming decoders are kept here under integer handles
so each JavaScript stream has its own state until JavaScript closes it.

Two families answer the same operations: the OpenAI encodings, by name, and any BPE
``tokenizer.json`` (``bytepair.Tokenizer``), loaded from its text by :func:`load_tokenizer_json`
under a key that every operation then accepts in place of an encoding name. For the latter,
ids are ``Tokenizer.encode(text, add_special_tokens=False).ids`` (added tokens in the text are
matched, as HF does) and ``decode`` is ``decode(ids, skip_special_tokens=False)``; the
special-token policy and the decode ``errors`` mode belong to the OpenAI family and are ignored.

Chat (``chat_count``, ``chat_encode``) takes the messages and options as JSON text: for an OpenAI
model, ``bytepair.count_chat`` (and the harmony ids for gpt-oss); for a tokenizer.json with a chat
template (``chat_settings`` gives it the template of its ``tokenizer_config.json``),
``Tokenizer.apply_chat_template``, whose jinja2 JavaScript installs before the first such call.

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
from collections import Counter, deque
import gzip
import hashlib
import json
import random
import re
from array import array
from collections.abc import Callable, Iterable
from itertools import chain, islice
from typing import Any

from ..text.byte_unicode import visible_to_bytes
from ..llm.chat_count import count_chat, harmony_ids
from ..llm.chat_template import template_settings
from ..decoders.token_table import StreamDecoder
from ..encoding import Encoding
from ..pipeline.engine import Engine
from ..errors import (
    BytepairError,
    DisallowedSpecialTokenError,
    EmptyCorpusError,
    InvalidInputError,
    InvalidTokenError,
    TrainingError,
    UnknownEncodingError,
    UnknownModelError,
    UnsupportedTokenizerError,
    VocabFormatError,
)
from ..incremental import IncrementalEncoder, line_blocks, safe_prefix_end
from ..text.offsets import utf16_offsets
from ..pipeline.blocks import TokenCounter
from ..registry import (
    encoding_name_for_model,
    get_encoding,
    list_encoding_names,
    use_data_dir,
)
from ..text.checks import require_str
from ..tokenizer import Tokenizer
from ..text.words import count_words

__all__ = [
    "chat_count",
    "chat_encode",
    "chat_settings",
    "analysis_markdown",
    "analyze",
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
    "list_encodings",
    "load_tokenizer_json",
    "memory_stats",
    "model_encoding",
    "prepare",
    "run_cli",
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

_streams: dict[int, Any] = {}  # StreamDecoder, or _JsonStream for a tokenizer.json
_next_stream = 0
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

KEY_PREFIX = "tokenizer.json:"
"""Keys of loaded tokenizer.json tokenizers start with this (no encoding name does)."""

_BYTE_TOKEN = re.compile(r"<0x([0-9A-Fa-f]{2})>")


class _JsonFace:
    """A loaded ``tokenizer.json`` with the methods the operations call on an ``Encoding``. The
    special-token policy is accepted and ignored: added tokens in the text are always matched, as
    HF does; decode always replaces invalid UTF-8 (HF's decoders do)."""

    def __init__(self, tok: Tokenizer, key: str, name: str) -> None:
        self.tok = tok
        self.key = key
        self.name = name
        self.users = 1
        added = tok.get_added_tokens_decoder()
        self._added = {token_id: t.content for token_id, t in added.items()}
        self.special_tokens = [t.content for _, t in sorted(added.items()) if t.special]
        self._bytes: dict[int, bytes] = {}
        self.chat_tokens: dict[str, str] = {}  # bos_token, eos_token ... from tokenizer_config.json
        if tok.chat_template is None:
            tok.chat_template_origin = _no_template(name)

    def encode_to_array(self, text: str, **_policy: Any) -> array:
        return array("I", self.tok.encode(text, add_special_tokens=False).ids)

    def count(self, text: str, **_policy: Any) -> int:
        return self.tok.count(text)

    def is_within_token_limit(self, text: str, limit: Any, **_policy: Any) -> int | bool:
        if isinstance(limit, float) and limit.is_integer():
            limit = int(limit)  # JavaScript numbers may arrive as floats
        return self.tok.is_within_token_limit(text, limit)

    def encode_with_offsets(self, text: str, **_policy: Any) -> tuple[list[int], list[tuple[int, int]]]:
        encoded = self.tok.encode(text, add_special_tokens=False)
        return encoded.ids, encoded.offsets

    def decode(self, ids: Iterable[Any], errors: str = "replace") -> str:
        return self.tok.decode(list(ids), skip_special_tokens=False)

    def decode_tokens_bytes(self, ids: Iterable[Any]) -> list[bytes]:
        return [self.token_bytes(token_id, position) for position, token_id in enumerate(ids)]

    def token_bytes(self, token_id: Any, position: int = 0) -> bytes:
        """The text bytes a token stands for (for display): an added token's UTF-8, a byte-level
        token's bytes, ``<0xNN>`` byte-fallback tokens' byte, else the token with ``▁`` as a space."""
        cached = self._bytes.get(token_id) if isinstance(token_id, int) else None
        if cached is not None:
            return cached
        content = self._added.get(token_id) if isinstance(token_id, int) and not isinstance(token_id, bool) else None
        if content is not None:
            data = content.encode("utf-8", "surrogatepass")
        else:
            token = self._token(token_id, position)
            match = _BYTE_TOKEN.fullmatch(token)
            if self.tok.model.byte_level:
                try:
                    data = visible_to_bytes(token)
                except (KeyError, ValueError):
                    data = token.encode("utf-8", "surrogatepass")
            elif match is not None:
                data = bytes([int(match[1], 16)])
            else:
                data = token.replace("\u2581", " ").encode("utf-8", "surrogatepass")
        self._bytes[token_id] = data
        return data

    def _token(self, token_id: Any, position: int) -> str:
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            raise InvalidTokenError(f"token ids must be integers; got {type(token_id).__name__} {token_id!r} at position {position}")
        token = self.tok.id_to_token(token_id) if token_id >= 0 else None
        if token is None:
            raise InvalidTokenError(
                f"{token_id!r} at position {position} is not a token id of the {self.name} tokenizer "
                f"(vocabulary size {self.tok.get_vocab_size()}); check that the ids come from this tokenizer"
            )
        return token

    def stream_decoder(self) -> _JsonStream:
        return _JsonStream(self.tok)

    def info(self) -> dict[str, Any]:
        return {
            "family": "tokenizer.json",
            "key": self.key,
            "name": self.name,
            "n_vocab": self.tok.get_vocab_size(),
            "max_token_value": max(self.tok.get_vocab().values(), default=0),
            "eot_token": None,
            "special_tokens": list(self.special_tokens),
        }


class _JsonStream:
    """A tokenizer.json's streaming decoder: HF's ``DecodeStream`` rule (decode a window of recent
    ids with ``skip_special_tokens=False``; emit what grew once it does not end in U+FFFD) with the
    ``feed``/``flush`` of the OpenAI family's ``StreamDecoder`` (flush emits what is held back)."""

    def __init__(self, tok: Tokenizer) -> None:
        self._tok = tok
        self._ids: list[int] = []
        self._prefix = ""
        self._prefix_index = 0

    def feed(self, ids: Iterable[Any]) -> str:
        out = []
        for token_id in ids:
            window = [*self._ids, token_id]
            text = self._tok.decode(window, skip_special_tokens=False)  # a bad id raises; nothing changed
            self._ids = window
            if len(text) > len(self._prefix) and not text.endswith("\ufffd"):
                out.append(text[len(self._prefix):])
                self._ids = self._ids[self._prefix_index:]
                self._prefix = self._tok.decode(self._ids, skip_special_tokens=False)
                self._prefix_index = len(self._ids)
        return "".join(out)

    def flush(self) -> str:
        text = self._tok.decode(self._ids, skip_special_tokens=False)
        rest = text[len(self._prefix):] if len(text) > len(self._prefix) else ""
        self._ids, self._prefix, self._prefix_index = [], "", 0
        return rest


_loaded: dict[str, _JsonFace] = {}


def _face(name: Any) -> Any:
    """The Encoding named ``name``, or the loaded tokenizer.json whose key it is."""
    if isinstance(name, str) and name.startswith(KEY_PREFIX):
        face = _loaded.get(name)
        if face is None:
            raise UnknownEncodingError(
                f"no tokenizer.json is loaded under {name!r} (its tokenizer was disposed); create it again with createTokenizer()"
            )
        return face
    return get_encoding(name)


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
    "ReservedLiteralError", "MissingDependencyError", "TrainingError",
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


_JS_OPTION = re.compile(r"\b(special_text|errors|vocab_size|min_frequency|allowed_special|disallowed_special)(=|\b)('[^']*')?")
_JS_NAMES = {"special_text": "specialText", "errors": "errors", "vocab_size": "vocabSize", "min_frequency": "minFrequency",
             "allowed_special": "allowedSpecial", "disallowed_special": "disallowedSpecial"}


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
    for position, token_id in enumerate(ids):
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            kind = "null" if token_id is None or type(token_id).__name__ == "JsNull" else type(token_id).__name__
            raise InvalidTokenError(f"token ids must be integers; got {kind} at position {position}")
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

    from .. import __name__ as package
    from .. import __path__ as package_path
    from ..data.openai import ENCODING_SPECS
    from ..pre_tokenizers.pattern import Pretokenizer
    from ..pre_tokenizers.pattern.splitter import compile_cut_finders
    from ..added_tokens.scan import SpecialTokenScanner

    for module in pkgutil.walk_packages(package_path, package + "."):
        if module.name != package + ".__main__":  # that one runs the CLI when imported
            importlib.import_module(module.name)
    for spec in ENCODING_SPECS.values():
        Pretokenizer(spec.pattern, cuttable=True)
        SpecialTokenScanner(spec.special_tokens).find("", frozenset(spec.special_tokens))
    compile_cut_finders()


def use_verified_data_dir(directory: str) -> None:
    """Rank files come from ``directory``, where the runtime writes each one only after checking its
    size and sha256 against the bundle's manifest (so Python need not hash them again)."""
    use_data_dir(directory, verified=True)


def list_encodings() -> list[str]:
    return list_encoding_names()


def model_encoding(model: str) -> str:
    """The encoding of ``model`` by tiktoken's rules (exact names, then prefixes), tried on the name as
    given and then lower-cased, so that "GPT-4o" finds gpt-4o as a user means it.

    >>> model_encoding("GPT-4o-mini"), model_encoding("gpt-3.5-turbo")
    ('o200k_base', 'cl100k_base')
    """
    return encoding_name_for_model(_known_model_name(model))


def _known_model_name(model: Any) -> str:
    """``model`` as tiktoken's rules know it: as given, else lower-cased ("GPT-4o" -> "gpt-4o"); the
    error for the name as given if neither is known. One rule for the encoding and the chat count.

    >>> _known_model_name("GPT-4o"), _known_model_name("ft:gpt-4o:acme")
    ('gpt-4o', 'ft:gpt-4o:acme')
    """
    if not isinstance(model, str):
        raise InvalidInputError(f"model must be a model name (a string such as 'gpt-4o'), not {type(model).__name__}")
    try:
        encoding_name_for_model(model)
        return model
    except UnknownModelError:
        if model.lower() == model:
            raise
        try:
            encoding_name_for_model(model.lower())
            return model.lower()
        except UnknownModelError:
            pass
        raise


def load_tokenizer_json(data: Any, name: Any = None) -> dict[str, Any]:
    """Load a ``tokenizer.json`` from its text, or its UTF-8 bytes (gzip-compressed or not), and answer
    its :func:`encoding_info`, whose ``key`` every operation accepts in place of an encoding name.
    The key is made from the file's sha256: loading the same file again shares the loaded one (until
    each load is matched by an :func:`unload_tokenizer`)."""
    label = name if isinstance(name, str) and name else "tokenizer.json"
    raw = data.to_bytes() if hasattr(data, "to_bytes") and not isinstance(data, int) else data  # a JS Uint8Array
    if isinstance(raw, (bytes, bytearray, memoryview)):
        raw = bytes(raw)
        if raw[:2] == b"\x1f\x8b":
            try:
                raw = gzip.decompress(raw)
            except (OSError, EOFError, ValueError) as exc:
                raise VocabFormatError(f"{label}: the gzip data is damaged ({exc}); give the tokenizer.json itself") from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise VocabFormatError(f"{label}: not UTF-8 JSON (bad byte at offset {exc.start}); is this a tokenizer.json?") from None
    elif isinstance(raw, str):
        text = raw
        raw = text.encode("utf-8", "surrogatepass")
    else:
        raise InvalidInputError(f"a tokenizer.json must be given as text or bytes, not {type(raw).__name__}")
    key = KEY_PREFIX + hashlib.sha256(raw).hexdigest()[:24]
    face = _loaded.get(key)
    if face is not None:
        face.users += 1
        return face.info()
    tok = Tokenizer.from_str(text.removeprefix("\ufeff"))
    face = _loaded[key] = _JsonFace(tok, key, label)
    return face.info()


def unload_tokenizer(key: str) -> bool:
    """Release one load of a tokenizer.json (the last one forgets it); True if it was loaded."""
    face = _loaded.get(key)
    if face is None:
        return False
    face.users -= 1
    if face.users <= 0:
        del _loaded[key]
    return True


def encoding_info(name: str) -> dict[str, Any]:
    face = _face(name)
    if isinstance(face, _JsonFace):
        return face.info()
    enc: Encoding = face
    specials = enc.special_tokens_set
    return {  # no "family" (JavaScript reads its absence as "openai") and no "key" (it is the name)
        "name": enc.name,
        "n_vocab": enc.n_vocab,
        "max_token_value": enc.max_token_value,
        "eot_token": enc.eot_token if "<|endoftext|>" in specials else None,
        "special_tokens": sorted(specials),
    }


def encode(name: str, text: str, allowed: Any = None, disallowed: Any = None) -> array:
    return _face(name).encode_to_array(text, **_policy(allowed, disallowed))


def count(name: str, text: str, allowed: Any = None, disallowed: Any = None) -> int:
    return _face(name).count(text, **_policy(allowed, disallowed))


def is_within_token_limit(name: str, text: str, limit: int, allowed: Any = None, disallowed: Any = None) -> int | bool:
    require_str(text)  # JavaScript passes one string (Encoding also takes an iterable of chunks)
    return _face(name).is_within_token_limit(text, limit, **_policy(allowed, disallowed))


def encode_with_offsets(name: str, text: str, allowed: Any = None, disallowed: Any = None) -> dict[str, array]:
    """Ids and [start, end) offsets in UTF-16 code units of ``text``."""
    ids, spans = _face(name).encode_with_offsets(text, **_policy(allowed, disallowed))
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
    face = _face(name)
    policy = _policy(allowed, disallowed)
    limit = _max_tokens(max_tokens)
    if isinstance(face, _JsonFace):
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


def _inspect_json(face: _JsonFace, text: str, limit: int) -> dict[str, Any]:
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
    return _face(name).decode(_ids(ids, kind), errors=_decode_errors(errors))


def decode_token_bytes(name: str, ids: Any, kind: str = "") -> list[bytes]:
    """Each token's bytes (the playground shows them in hex)."""
    return _face(name).decode_tokens_bytes(_ids(ids, kind))


def stream_open(name: str) -> int:
    global _next_stream
    decoder = _face(name).stream_decoder()
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
    face = _face(name)
    if errors not in ("strict", "replace"):
        raise InvalidInputError(f"errors must be 'strict' or 'replace', not {errors!r}")
    if isinstance(face, _JsonFace):
        counter = face.tok.token_counter(errors=errors)  # in blocks where its pipeline allows (pipeline/stream_cuts.py)
    else:
        counter = face.token_counter(errors=errors, **_policy(allowed, disallowed))
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


def run_cli(argv: Any, cwd: str | None = None) -> dict[str, Any]:
    """Run the ``bytepair`` command line (``bytepair.cli``) with ``argv``: the npm package's
    ``npx bytepair`` is this very program, so its commands, flags, messages and exit codes are the
    Python CLI's. Answers ``{"code", "stdout" (bytes), "stderr" (str)}``; standard input is the
    interpreter's own."""
    import contextlib
    import io
    import os

    from ..cli import main

    args = [str(a) for a in _to_py(argv)]
    out = io.BytesIO()
    text_out = io.StringIO()  # --help and --version print text
    err = io.StringIO()
    if cwd is not None:
        os.chdir(cwd)
    with contextlib.redirect_stdout(text_out), contextlib.redirect_stderr(err):
        try:
            code = main(args, stdout=out)
        except SystemExit as exc:  # argparse: usage errors (2), --help and --version (0)
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return {"code": code, "stdout": text_out.getvalue().encode() + out.getvalue(), "stderr": err.getvalue()}


# ---------------------------------------------------------------- chat
def _json_arg(text: Any, what: str) -> Any:
    if not isinstance(text, str):
        raise InvalidInputError(f"{what} must arrive as JSON text, not {type(text).__name__}")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise InvalidInputError(f"{what} is not valid JSON ({exc})") from None


_CHAT_OPTIONS = {
    "model", "tools", "addGenerationPrompt", "specialText", "returnAssistantMask", "returnText",
    "chatTemplate", "continueFinalMessage", "documents", "variables",
}


def _chat_options(options_json: Any) -> dict[str, Any]:
    options = _json_arg(options_json, "the chat options") if options_json is not None else {}
    if not isinstance(options, dict):
        raise InvalidInputError(f"the chat options must be an object, not {type(options).__name__}")
    unknown = sorted(set(options) - _CHAT_OPTIONS)
    if unknown:
        raise InvalidInputError(f"unknown chat option(s) {', '.join(unknown)}; known: {', '.join(sorted(_CHAT_OPTIONS))}")
    return options


def chat_settings(name: str, config_json: Any) -> bool:
    """Give a loaded tokenizer.json the chat template and token strings of its ``tokenizer_config.json``
    (the whole file, or the part a template reads); True if it has a template.

    >>> spec = '{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}}'
    >>> key = load_tokenizer_json(spec, "tiny")["key"]
    >>> chat_settings(key, '{"chat_template": "{{ bos_token }}", "bos_token": "a"}')
    True
    >>> unload_tokenizer(key)
    True
    """
    face = _face(name)
    if not isinstance(face, _JsonFace):
        raise InvalidInputError(f"{name} is an OpenAI encoding: chat templates belong to tokenizer.json tokenizers")
    config = _json_arg(config_json, "tokenizer_config.json")
    if not isinstance(config, dict):
        raise VocabFormatError("tokenizer_config.json must hold a JSON object")
    face.tok.chat_template, face.chat_tokens = template_settings(config)
    has_template = face.tok.chat_template is not None
    face.tok.chat_template_origin = f"the {face.name} tokenizer_config.json" if has_template else _no_template(face.name)
    return has_template


def _no_template(name: str) -> str:
    return f"the {name} tokenizer (createTokenizer's tokenizerConfig option, or the call's chatTemplate option, gives one)"


def _openai_chat(name: str, options: dict[str, Any]) -> str:
    """The model a chat call on an OpenAI encoding is for, checked against the encoding."""
    model = options.get("model")
    if model is None:
        raise InvalidInputError(
            "chat token counts depend on the model, not only the encoding: open the tokenizer with "
            "createTokenizer({ model: 'gpt-4o' }) or pass { model } to the chat call"
        )
    known = _known_model_name(model)
    encoding = encoding_name_for_model(known)
    if encoding != _face(name).name:
        raise InvalidInputError(f"{model} uses {encoding}, not {name}: open createTokenizer({{ model: {model!r} }})")
    return known


def _apply_template(face: _JsonFace, messages: Any, options: dict[str, Any]) -> dict[str, Any]:
    variables = options.get("variables") or {}
    if not isinstance(variables, dict):
        raise InvalidInputError("variables must be an object of template variables (such as { enable_thinking: false })")
    kwargs: dict[str, Any] = {
        **face.chat_tokens, **variables,
        "add_generation_prompt": bool(options.get("addGenerationPrompt", False)),
        "tools": options.get("tools"),
        "special_text": options.get("specialText", "escape"),
        "continue_final_message": bool(options.get("continueFinalMessage", False)),
    }
    for key, option in (("chat_template", "chatTemplate"), ("documents", "documents")):
        if options.get(option) is not None:
            kwargs[key] = options[option]
    mask = bool(options.get("returnAssistantMask", False))
    out = face.tok.apply_chat_template(messages, tokenize=True, return_dict=True, return_assistant_tokens_mask=mask, **kwargs)
    answer: dict[str, Any] = {"ids": array("I", out["input_ids"])}
    if mask:
        answer["assistant_mask"] = bytes(out["assistant_masks"])
    if options.get("returnText"):
        answer["text"] = face.tok.apply_chat_template(messages, tokenize=False, **kwargs)
    return answer


def chat_encode(name: str, messages_json: Any, options_json: Any = None) -> dict[str, Any]:
    """The ids of a chat: a tokenizer.json's chat template applied (``{"ids", "assistant_mask"?,
    "text"?}``), or for gpt-oss the harmony format; other OpenAI models publish a count rule only.

    >>> list(chat_encode("o200k_harmony", '[{"role": "user", "content": "Hi"}]', '{"model": "gpt-oss-20b"}')["ids"])[:2]
    [200006, 1428]
    """
    messages = _json_arg(messages_json, "messages")
    options = _chat_options(options_json)
    face = _face(name)
    if isinstance(face, _JsonFace):
        return _apply_template(face, messages, options)
    model = _openai_chat(name, options)
    if not model.startswith("gpt-oss"):
        raise UnsupportedTokenizerError(
            f"OpenAI does not publish the token sequence {model} sees for a chat, only how to count it: use countChat "
            "(exact ids exist for gpt-oss, whose harmony format is published)"
        )
    if options.get("tools"):
        raise UnsupportedTokenizerError("gpt-oss tool definitions are not rendered here; put them in a developer message")
    return {"ids": array("I", harmony_ids(messages))}


def chat_count(name: str, messages_json: Any, options_json: Any = None) -> int:
    """Tokens of a chat: ``bytepair.count_chat`` for an OpenAI model (the cookbook's rule, with
    ``tools``), else the length of :func:`chat_encode`'s ids.

    >>> chat_count("o200k_base", '[{"role": "user", "content": "Hello!"}]', '{"model": "gpt-4o"}')
    9
    """
    messages = _json_arg(messages_json, "messages")
    options = _chat_options(options_json)
    face = _face(name)
    if isinstance(face, _JsonFace):
        return len(_apply_template(face, messages, {**options, "returnAssistantMask": False, "returnText": False})["ids"])
    return count_chat(messages, model=_openai_chat(name, options), tools=options.get("tools"))


# Training: JavaScript feeds the texts in slices (``train_feed``; other calls and an abort run between
# them), then ``train_finish`` runs the merge loop, reporting to a JavaScript function that may ask to stop.

_trainings: dict[int, _Training] = {}
_next_training = 0
MERGES_REPORTED = 256
"""Each training progress report carries the merges learned since the previous one, at most this many (the latest)."""
REPORT_SECONDS = 0.05
"""Training progress is reported at most this often (and for the first and last merge)."""


class AbortError(TrainingError):
    """The JavaScript caller stopped a training (its AbortSignal fired); nothing was trained."""


class _Training:
    """One training under way: the pattern and the piece counts of the texts fed so far."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.counts: Counter[str] = Counter()
        self.texts = 0


def train_open(pattern: Any = None) -> int:
    """Start a training that cuts texts with ``pattern`` (an encoding name or a regex; default
    o200k_base), checked here so that a bad pattern fails before any text is sent.

    >>> h = train_open("gpt2"); train_feed(h, ["low lower", "lowest"])
    2
    >>> result = train_finish(h, 258, [], 0, lambda *event: False)
    >>> result["merges"], result["vocab_size"]
    (2, 258)
    >>> train_close(h)
    False
    """
    global _next_training
    from ..trainers import count_pieces

    pattern = pattern or "o200k_base"
    count_pieces([], pattern)  # compiles the pattern: TrainingError if it does not
    _next_training += 1
    _trainings[_next_training] = _Training(pattern)
    return _next_training


def _training(handle: Any) -> _Training:
    try:
        return _trainings[handle]
    except (KeyError, TypeError):
        raise InvalidInputError(f"training {handle!r} is finished or closed; start a new one with train()") from None


def train_feed(handle: int, texts: Any) -> int:
    """Count the pieces of ``texts`` (a list of str) into the training; answers the texts counted so far."""
    from ..trainers import count_pieces

    training = _training(handle)
    texts = _to_py(texts)
    if not isinstance(texts, (list, tuple)):
        raise InvalidInputError(f"texts must be an array of strings, not {type(texts).__name__}")
    training.counts.update(count_pieces(texts, training.pattern))
    training.texts += len(texts)
    return training.texts


def train_finish(handle: int, vocab_size: Any, special_tokens: Any, min_frequency: Any,
                 report: Callable[..., Any]) -> dict[str, Any]:
    """Train on what was fed (``bytepair.train_from_counts``) and close the training. ``report(phase,
    done, total, merges_json)`` hears of the merges about every REPORT_SECONDS (``merges_json``: those
    learned since the previous report, the last being the ``done``-th, as a JSON array of ``[left,
    right]``); if it answers true, training stops with AbortError.
    Answers ``{"json": tokenizer.json text, "merges": merges learned, "vocab_size": n}``."""
    import json
    import time

    from ..training import train_from_counts

    training = _training(handle)
    del _trainings[handle]
    latest: deque[tuple[str, str]] = deque(maxlen=MERGES_REPORTED)
    last = [0.0]

    def send(done: int, total: int | None) -> Any:
        merges = json.dumps(list(latest), ensure_ascii=False)
        latest.clear()
        return report("merging", done, total, merges)

    def progress(stage: str, done: int, total: int | None) -> None:
        now = time.monotonic()
        if stage == "merge" and (done == total or done <= 1 or now - last[0] >= REPORT_SECONDS):
            last[0] = now
            if send(done, total):
                raise AbortError("training stopped: the AbortSignal fired")

    tok = train_from_counts(training.counts, _int_option(vocab_size, "vocabSize"), pattern=training.pattern,
                            special_tokens=_strings(special_tokens, "specialTokens"),
                            min_frequency=_int_option(min_frequency, "minFrequency"),
                            progress=progress, on_merge=lambda left, right: latest.append((left, right)))
    text = tok.to_str(pretty=True)
    merges = len(json.loads(text)["model"]["merges"])
    send(merges, merges)  # the total, and the last merges after an early stop
    return {"json": text, "merges": merges, "vocab_size": tok.get_vocab_size()}


def train_close(handle: Any) -> bool:
    """Forget a training that will not be finished (an aborted one); True if it was open."""
    return _trainings.pop(handle, None) is not None


def _int_option(value: Any, option: str) -> Any:
    """A JavaScript number that is a whole number, as an int (the trainer checks the range)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise TrainingError(f"{option} must be a whole number, not {value!r}")
    return value


def _strings(value: Any, option: str) -> list[str]:
    value = _to_py(value)
    if value is None:
        return []
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise TrainingError(f"{option} must be an array of strings, not {value!r}")
    return list(value)


def memory_stats() -> dict[str, int]:
    """What the bridge holds, for leak checks: open stream decoders, cached blocks and word counts,
    and the interpreter's live container objects (after a collection)."""
    gc.collect()
    return {
        "open_decoders": len(_streams),
        "open_counters": len(_counters),
        "loaded_tokenizers": len(_loaded),
        "open_trainings": len(_trainings),
        "cached_blocks": sum(inc.cached_blocks() for inc in _incremental.values()),
        "cached_word_counts": len(_words),
        "python_objects": len(gc.get_objects()),
    }


# ---------------------------------------------------------------- warming the engine up after start
WARM_UP_PARTS = 8
"""How many parts :func:`warm_up` has; the worker asks for one per task after its first ``open``, so
a request that arrives meanwhile waits for one part at most."""

_WARM_UP_SCRIPTS = (
    "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "àâäçéèêëîïôöùûüßñ",
    "абвгдежзийклмнопрстуфхцчшщыьэюя", "的一是不了人我在有他这中大来上国个到说们", "あいうえおかきくけこさしすせそ",
)


def warm_up(name: str, part: int) -> int:
    """Encode one part of a made-up text (new words in several scripts, digits, punctuation) through
    a throwaway engine over ``name``'s model and pre-tokenizer; the face's own piece cache is not
    touched. Returns how many tokens the part made: 0 past the last part (``WARM_UP_PARTS``).

    Why: a WebAssembly engine first runs Pyodide's interpreter, ``re`` and ``dict`` code in a quick
    baseline compilation and optimises what turns out hot only later. The first big text on a fresh
    page then paid for that: a 400 kB first pass in Chromium took 292 ms, and 239 ms once ~5 kB of new
    words had gone through first (median of 4 pages, o200k). The worker runs these parts while it
    waits for requests, right after the runtime started.

    >>> cache = get_encoding("r50k_base").engine.cache
    >>> before = len(cache)
    >>> warm_up("r50k_base", 0) > 0, warm_up("r50k_base", WARM_UP_PARTS), len(cache) == before
    (True, 0, True)
    """
    if not isinstance(part, int) or part < 0:
        raise InvalidInputError(f"warm_up part must be an integer from 0, not {part!r}")
    face = _face(name)
    if part >= WARM_UP_PARTS:
        return 0
    engine = face.tok.engine if isinstance(face, _JsonFace) else face.engine
    throwaway = Engine(engine.model, engine.pre_tokenizer)
    rng = random.Random(part)
    words = []
    for _ in range(150):
        letters = rng.choice(_WARM_UP_SCRIPTS)
        word = "".join(rng.choices(letters, k=rng.randint(2, 9)))
        words.append(word if rng.random() < 0.8 else f"{word}{rng.randint(0, 99_999)}{rng.choice(',.;:!?')}")
    return sum(map(len, throwaway.piece_ids(" ".join(words))))


# ---------------------------------------------------------------- analysis (the playground's Analyse tab)
_ANALYSIS_PARTS = ("tokenizer", "fertility", "vocabulary")
_analysis_cache: dict[tuple[str, str, int], Any] = {}  # (part, name, limit) -> the part without a corpus
_ANALYSIS_CACHE_SIZE = 16


def analyze(part: Any, names: Any, corpus: Any = None, limit: Any = 20) -> Any:
    """One part of ``bytepair.analysis.analyze(names, corpus=corpus, limit=limit)`` on tokenizers
    loaded here (encoding names or tokenizer.json keys). JavaScript asks for the parts one at a time,
    so that it can show progress and other calls are answered in between, and puts them together
    into the same dict: ``"tokenizer"`` (one name) is that tokenizer's entry of ``tokenizers``,
    ``"fertility"`` (all names; needs a corpus) is ``fertility``, ``"vocabulary"`` (one name) its
    entry of ``vocabulary``. Each tokenizer's summary and corpus-free vocabulary report are kept,
    so analysing another text redoes only the corpus part (the unused tokens).

    >>> analyze("tokenizer", ["r50k_base"])["vocab_size"]
    50257
    >>> analyze("fertility", ["r50k_base"], {"en": "Hello, world!"})["rows"][0]["tokens_per_word"]
    2.0
    >>> analyze("vocabulary", ["r50k_base"], {"en": "Hello, world!"})["unused"]["seen"]
    4
    """
    if part not in _ANALYSIS_PARTS:
        raise InvalidInputError(f"part must be one of {', '.join(map(repr, _ANALYSIS_PARTS))}, not {part!r}")
    keys = _to_py(names)
    if isinstance(keys, str) or not isinstance(keys, (list, tuple)) or not keys or not all(isinstance(k, str) for k in keys):
        raise InvalidInputError(f"names must be a non-empty array of tokenizer names, not {keys!r}")
    if part != "fertility" and len(keys) != 1:
        raise InvalidInputError(f"the {part!r} part is asked for one tokenizer at a time, not {len(keys)}")
    texts = _analysis_corpus(corpus)
    size = int(limit) if isinstance(limit, float) and limit.is_integer() else limit
    if not isinstance(size, int) or isinstance(size, bool) or not 1 <= size <= 1000:
        raise InvalidInputError(f"limit (examples listed per kind) must be an integer from 1 to 1000, not {limit!r}")
    for stale in [k for k in _analysis_cache if k[1].startswith(KEY_PREFIX) and k[1] not in _loaded]:
        del _analysis_cache[stale]  # its tokenizer.json was unloaded
    from ..analysis import fertility

    if part == "fertility":
        if texts is None:
            raise InvalidInputError("the fertility part needs a corpus: an object of label -> text")
        return fertility([_analysis_view(k) for k in keys], texts)
    if part == "tokenizer":
        return _analysis_cached(("tokenizer", keys[0], 0), lambda: _summary(keys[0]))
    report, unreachable = _analysis_cached(("vocabulary", keys[0], size), lambda: _vocabulary(keys[0], size))
    if texts is None:
        return report
    from ..analysis import unused_tokens

    return {**report, "unused": unused_tokens(_analysis_view(keys[0]), texts, unreachable=unreachable, limit=size)}


def _analysis_corpus(corpus: Any) -> dict[str, str] | None:
    if corpus is None or type(corpus).__name__ == "JsNull":
        return None
    texts = _to_py(corpus)
    if not isinstance(texts, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in texts.items()):
        raise InvalidInputError("corpus must be an object of label -> text (strings), e.g. {text: \"...\"}")
    return texts


def _analysis_view(name: str) -> Any:
    """The analysis view of a loaded tokenizer, named as JavaScript names it."""
    from ..analysis import TokenizerView

    face = _face(name)
    if isinstance(face, _JsonFace):
        view = TokenizerView.of(face.tok)
        view.name = face.name
        return view
    return TokenizerView.of(face)


def _analysis_cached(key: tuple[str, str, int], make: Callable[[], Any]) -> Any:
    value = _analysis_cache.get(key)
    if value is None:
        value = make()
        while len(_analysis_cache) >= _ANALYSIS_CACHE_SIZE:
            del _analysis_cache[next(iter(_analysis_cache))]
        _analysis_cache[key] = value
    return value


def _summary(name: str) -> dict[str, Any]:
    from ..analysis import tokenizer_summary

    return tokenizer_summary(_analysis_view(name))


def _vocabulary(name: str, limit: int) -> tuple[dict[str, Any], list[int]]:
    """The corpus-free vocabulary report, and the ids of all its unreachable tokens (the report lists
    the first ``limit``; only when there are more are they found again)."""
    from ..analysis import unreachable_tokens, vocabulary_report

    view = _analysis_view(name)
    report = vocabulary_report(view, limit=limit)
    listed = report["unreachable"]
    if listed["count"] <= len(listed["tokens"]):
        return report, [t["id"] for t in listed["tokens"]]
    return report, [t["id"] for t in unreachable_tokens(view)]


def analysis_markdown(report: Any) -> str:
    """``bytepair.analysis.to_markdown`` of a report (given as its JSON text): what ``bytepair
    analyze`` prints, for the playground's "Copy Markdown".

    >>> analysis_markdown('{"tokenizers": [], "vocabulary": []}')
    '# Tokenizer analysis\\n\\n| tokenizer | kind | vocab | merge rule | sha256 |\\n|:---|---:|---:|---:|---:|\\n'
    """
    import json

    from ..analysis import to_markdown

    if not isinstance(report, str):
        raise InvalidInputError(f"the report must be given as its JSON text, not {type(report).__name__}")
    try:
        data = json.loads(report)
        return to_markdown(data)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InvalidInputError(f"not a report of bytepair.analysis.analyze ({type(exc).__name__}: {exc}); pass what analyze() returned") from None


_OPERATIONS: dict[str, Callable[..., Any]] = {
    name: globals()[name] for name in __all__ if name not in ("dispatch", "error_info", "prepare")
}
