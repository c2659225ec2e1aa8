"""GPT-2's reversible map between the 256 byte values and 256 printable unicode characters.

Why: GPT-2's ``encoder.json``/``vocab.bpe`` (and Hugging Face byte-level BPE files) store tokens as
text, so every byte needs a visible, non-whitespace character. Printable Latin-1 bytes map to
themselves; the other 68 (controls, space, NBSP, soft hyphen) map to U+0100 onwards, in byte order.
The order of this table is also the rank order of the 256 single-byte tokens in GPT-2.

>>> BYTE_TO_UNICODE[ord(" ")], BYTE_TO_UNICODE[ord("A")]
('Ġ', 'A')
"""

from __future__ import annotations

__all__ = ["BYTE_TO_UNICODE", "BYTES_IN_RANK_ORDER", "UNICODE_TO_BYTE", "bytes_to_visible", "visible_to_bytes"]


def _printable_byte(b: int) -> bool:
    return 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xAC or 0xAE <= b <= 0xFF


BYTES_IN_RANK_ORDER: tuple[int, ...] = tuple(
    [b for b in range(256) if _printable_byte(b)] + [b for b in range(256) if not _printable_byte(b)]
)
"""Byte values in the order GPT-2 ranks them: printable ones, then the rest."""

BYTE_TO_UNICODE: dict[int, str] = {}
_shifted = 0
for _b in range(256):
    if _printable_byte(_b):
        BYTE_TO_UNICODE[_b] = chr(_b)
    else:
        BYTE_TO_UNICODE[_b] = chr(256 + _shifted)
        _shifted += 1
del _b, _shifted

UNICODE_TO_BYTE: dict[str, int] = {ch: b for b, ch in BYTE_TO_UNICODE.items()}


def bytes_to_visible(data: bytes) -> str:
    """Token bytes -> GPT-2's visible text form."""
    return "".join(BYTE_TO_UNICODE[b] for b in data)


def visible_to_bytes(text: str) -> bytes:
    """GPT-2's visible text form -> token bytes; ``KeyError`` names a character outside the map."""
    return bytes(UNICODE_TO_BYTE[ch] for ch in text)
