"""The JavaScript API's ``{ sentencepiece: bytes }`` option: a SentencePiece ``.model`` loaded as the
HF face over it, then used like any loaded ``tokenizer.json``.

Why through ``load_tokenizer_json``: ``Tokenizer.from_sentencepiece`` gives the ``tokenizer.json``
transformers builds from a ``.model``; loading that text gives the face a key every operation takes
(encode, offsets, decode, counts, ``inspect``), shared when the same model is loaded twice.

>>> info = load_sentencepiece(_tiny_model(), "tiny.model")
>>> info["name"], info["n_vocab"]
('tiny.model', 4)
>>> from . import dispatch
>>> list(dispatch("encode", info["key"], "ab")["value"])
[3]
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidInputError
from ..tokenizer import Tokenizer
from .faces import load_tokenizer_json

__all__ = ["load_sentencepiece"]


def load_sentencepiece(data: Any, name: Any = None) -> dict[str, Any]:
    """Load a ``.model`` from its bytes (a JS ``Uint8Array``) and answer its ``encoding_info``."""
    raw = data.to_bytes() if hasattr(data, "to_bytes") and not isinstance(data, int) else data
    if not isinstance(raw, (bytes, bytearray, memoryview)):
        raise InvalidInputError(f"a SentencePiece model must be given as bytes (a Uint8Array), not {type(raw).__name__}")
    label = name if isinstance(name, str) and name else "sentencepiece.model"
    return load_tokenizer_json(Tokenizer.from_sentencepiece(bytes(raw)).to_str(), label)


def _tiny_model() -> bytes:
    """A four-piece Unigram ``.model`` written by hand (for the example above)."""

    def field(number: int, payload: bytes) -> bytes:
        return bytes([number << 3 | 2, len(payload)]) + payload

    def piece(text: str, score: float, kind: int) -> bytes:
        import struct

        return field(1, field(1, text.encode()) + bytes([0x15]) + struct.pack("<f", score) + bytes([0x18, kind]))

    return piece("<unk>", 0.0, 2) + piece("▁", -1.0, 1) + piece("▁a", -2.0, 1) + piece("▁ab", -1.5, 1)
