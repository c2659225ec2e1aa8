"""Decoders of ``tokenizer.json`` files: how token strings become text again (ByteLevel, Metaspace ...).

Why a chain: as in HF, each decoder turns a list of token strings into a new list
(``decode_chain``, ``base.py``), so a :class:`Sequence` can run Replace, ByteFallback, Fuse and Strip
in turn; ``decode`` joins the last list. Built by :func:`decoder_from_json`, the one factory of this
stage. tiktoken's face decodes without token strings: ids to bytes through one table
(``token_table.py``, with its streaming decoder); HF's ``DecodeStream`` (ids one at a time, through
any tokenizer's ``decode``) is ``decode_stream.py``.

>>> decoder_from_json({"type": "ByteLevel"}).decode(["Hello", "Ġw", "Ã¶", "rld"])
'Hello wörld'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..formats.component_json import Regex, build, pattern
from .base import CustomDecoder, Decoder, Sequence
from .byte_level import ByteFallback, ByteLevel
from .decode_stream import DecodeStream
from .strings import BPEDecoder, Fuse, Metaspace, Replace, Strip
from .wordpiece import CTC, WordPiece

__all__ = ["BPEDecoder", "CTC", "ByteFallback", "ByteLevel", "CustomDecoder", "DecodeStream", "Decoder", "Fuse", "Metaspace", "Replace", "Sequence", "Strip",
           "WordPiece", "decoder_from_json"]


def _replace(obj: dict[str, Any], where: str) -> Decoder:
    text, is_regex = pattern(obj.get("pattern"), where + ".pattern")
    return Replace(Regex(text) if is_regex else text, str(obj.get("content", "")))


_FACTORIES: dict[str, Callable[[dict[str, Any], str], Decoder]] = {
    "ByteLevel": lambda o, w: ByteLevel(),
    "Metaspace": lambda o, w: Metaspace(
        o.get("replacement", "\u2581"),
        o.get("prepend_scheme", "always" if o.get("add_prefix_space", True) else "never"),
        o.get("split", True),
    ),
    "ByteFallback": lambda o, w: ByteFallback(),
    "Fuse": lambda o, w: Fuse(),
    "Strip": lambda o, w: Strip(str(o.get("content", " ")), int(o.get("start", 0)), int(o.get("stop", 0))),
    "Replace": _replace,
    "BPEDecoder": lambda o, w: BPEDecoder(str(o.get("suffix", "</w>"))),
    "WordPiece": lambda o, w: WordPiece(str(o.get("prefix", "##")), bool(o.get("cleanup", True))),
    "CTC": lambda o, w: CTC(str(o.get("pad_token", "<pad>")), str(o.get("word_delimiter_token", "|")),
                            bool(o.get("cleanup", True))),
    "Sequence": lambda o, w: Sequence(
        [d for i, step in enumerate(o.get("decoders", [])) if (d := decoder_from_json(step, f"{w}.decoders[{i}]"))]
    ),
}


def decoder_from_json(obj: dict[str, Any] | None, where: str = "decoder") -> Decoder | None:
    """The decoder a ``tokenizer.json`` describes (None for ``null``)."""
    return build(obj, where, "decoder", _FACTORIES)
