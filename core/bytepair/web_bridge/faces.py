"""The tokenizers JavaScript names: the OpenAI encodings by name, and ``tokenizer.json`` files loaded
here under a key that every operation accepts in place of an encoding name.

For a ``tokenizer.json``, ids are ``Tokenizer.encode(text, add_special_tokens=False).ids`` (added
tokens in the text are matched, as HF does) and ``decode`` is ``decode(ids,
skip_special_tokens=False)``; the special-token policy and the decode ``errors`` mode belong to the
OpenAI family and are ignored (:class:`JsonFace` offers an ``Encoding``'s methods with those rules).

>>> import json
>>> spec = {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]}}
>>> info = load_tokenizer_json(json.dumps(spec), "tiny")
>>> face_of(info["key"]).encode_to_array("abba").tolist(), unload_tokenizer(info["key"])
([2, 1, 0], True)
"""

from __future__ import annotations

import gzip
import hashlib
import re
from array import array
from collections.abc import Iterable
from typing import Any

from ..decoders.decode_stream import DecodeStream
from ..encoding import Encoding
from ..errors import InvalidInputError, InvalidTokenError, UnknownEncodingError, UnknownModelError, VocabFormatError
from ..registry import encoding_name_for_model, get_encoding, list_encoding_names
from ..text.byte_unicode import visible_to_bytes
from ..tokenizer import Tokenizer

__all__ = ["KEY_PREFIX", "JsonFace", "JsonStream", "encoding_info", "face_of", "known_model_name", "list_encodings",
           "load_tokenizer_json", "loaded", "model_encoding", "no_template", "unload_tokenizer"]


KEY_PREFIX = "tokenizer.json:"
"""Keys of loaded tokenizer.json tokenizers start with this (no encoding name does)."""

_BYTE_TOKEN = re.compile(r"<0x([0-9A-Fa-f]{2})>")


class JsonFace:
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
            tok.chat_template_origin = no_template(name)

    def encode_to_array(self, text: str, **policy_options: Any) -> array:
        return array("I", self.tok.encode(text, add_special_tokens=False).ids)

    def count(self, text: str, **policy_options: Any) -> int:
        return self.tok.count(text)

    def is_within_token_limit(self, text: str, limit: Any, **policy_options: Any) -> int | bool:
        if isinstance(limit, float) and limit.is_integer():
            limit = int(limit)  # JavaScript numbers may arrive as floats
        return self.tok.is_within_token_limit(text, limit)

    def encode_with_offsets(self, text: str, **policy_options: Any) -> tuple[list[int], list[tuple[int, int]]]:
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
            if getattr(self.tok.model, "byte_level", False):
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

    def stream_decoder(self) -> JsonStream:
        return JsonStream(self.tok)

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


class JsonStream:
    """A tokenizer.json's streaming decoder for the JS API: HF's ``DecodeStream`` rule, the one in
    ``decoders/decode_stream.py`` (special tokens written), with the ``feed``/``flush`` of the OpenAI
    family's ``StreamDecoder``: ``feed`` gives out what the ids complete, ``flush`` what is held back
    (half a character), and starts over."""

    def __init__(self, tok: Tokenizer) -> None:
        self._tok = tok
        self._stream = DecodeStream(skip_special_tokens=False)

    def feed(self, ids: Iterable[Any]) -> str:
        out = []
        for token_id in ids:
            try:
                text = self._stream.step(self._tok, token_id)  # a bad id changes nothing
            except InvalidInputError:  # HF's step takes a negative or 64-bit id as a TypeError; JS ids are tokens
                raise InvalidTokenError(
                    f"{token_id!r} is not a token id (an integer from 0 to 2**32 - 1); check that the ids come from this tokenizer"
                ) from None
            if text is not None:
                out.append(text)
        return "".join(out)

    def flush(self) -> str:
        rest = self._stream.held_back(self._tok)
        self._stream = DecodeStream(skip_special_tokens=False)
        return rest


loaded: dict[str, JsonFace] = {}


def face_of(name: Any) -> Any:
    """The Encoding named ``name``, or the loaded tokenizer.json whose key it is."""
    if isinstance(name, str) and name.startswith(KEY_PREFIX):
        face = loaded.get(name)
        if face is None:
            raise UnknownEncodingError(
                f"no tokenizer.json is loaded under {name!r} (its tokenizer was disposed); create it again with createTokenizer()"
            )
        return face
    return get_encoding(name)


def list_encodings() -> list[str]:
    return list_encoding_names()


def model_encoding(model: str) -> str:
    """The encoding of ``model`` by tiktoken's rules (exact names, then prefixes), tried on the name as
    given and then lower-cased, so that "GPT-4o" finds gpt-4o as a user means it.

    >>> model_encoding("GPT-4o-mini"), model_encoding("gpt-3.5-turbo")
    ('o200k_base', 'cl100k_base')
    """
    return encoding_name_for_model(known_model_name(model))


def known_model_name(model: Any) -> str:
    """``model`` as tiktoken's rules know it: as given, else lower-cased ("GPT-4o" -> "gpt-4o"); the
    error for the name as given if neither is known. One rule for the encoding and the chat count.

    >>> known_model_name("GPT-4o"), known_model_name("ft:gpt-4o:acme")
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
    face = loaded.get(key)
    if face is not None:
        face.users += 1
        return face.info()
    tok = Tokenizer.from_str(text.removeprefix("\ufeff"))
    face = loaded[key] = JsonFace(tok, key, label)
    return face.info()


def unload_tokenizer(key: str) -> bool:
    """Release one load of a tokenizer.json (the last one forgets it); True if it was loaded."""
    face = loaded.get(key)
    if face is None:
        return False
    face.users -= 1
    if face.users <= 0:
        del loaded[key]
    return True


def encoding_info(name: str) -> dict[str, Any]:
    face = face_of(name)
    if isinstance(face, JsonFace):
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


def no_template(name: str) -> str:
    """What a tokenizer.json without a chat template is called in the error that says so."""
    return f"the {name} tokenizer (createTokenizer's tokenizerConfig option, or the call's chatTemplate option, gives one)"
