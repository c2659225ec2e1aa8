"""Decoders back to bytes: GPT-2's visible characters (``ByteLevel``) and ``<0xNN>`` tokens (``ByteFallback``).

>>> ByteLevel().decode(["Hello", "Ġw", "Ã¶", "rld"])
'Hello wörld'
>>> ByteFallback().decode_chain(["<0xC3>", "<0xB6>", "x"])
['ö', 'x']
"""

from __future__ import annotations

from typing import Any

from ..text.byte_unicode import UNICODE_TO_BYTE
from .base import Decoder

__all__ = ["ByteFallback", "ByteLevel"]


class ByteLevel(Decoder):
    """GPT-2's visible characters back to bytes, then UTF-8 (bad bytes become U+FFFD). A token with
    a character outside the byte map (an added token such as DeepSeek's) counts as its own UTF-8."""

    def decode_chain(self, tokens: list[str]) -> list[str]:
        data = bytearray()
        get = UNICODE_TO_BYTE.get
        for token in tokens:
            mapped = bytes(b for b in map(get, token) if b is not None)
            data += mapped if len(mapped) == len(token) else token.encode("utf-8", "surrogatepass")
        return [data.decode("utf-8", "replace")]

    def to_json(self) -> dict[str, Any]:
        return {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}


class ByteFallback(Decoder):
    """Runs of ``<0xNN>`` tokens back to the text their bytes spell (each byte of a run that is not
    valid UTF-8 becomes U+FFFD)."""

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out: list[str] = []
        pending = bytearray()

        def flush() -> None:
            if pending:
                try:
                    out.append(pending.decode("utf-8"))
                except UnicodeDecodeError:
                    out.extend("\ufffd" * len(pending))
                pending.clear()

        for token in tokens:
            if len(token) == 6 and token.startswith("<0x") and token.endswith(">"):
                try:
                    pending.append(int(token[3:5], 16))
                    continue
                except ValueError:
                    pass
            flush()
            out.append(token)
        flush()
        return out

    def to_json(self) -> dict[str, Any]:
        return {"type": "ByteFallback"}
