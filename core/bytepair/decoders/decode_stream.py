"""HF's ``DecodeStream``: ids decoded one at a time, text given out once it is final.

The rule is HF's: decode a window of recent ids and emit what grew, once it does not end in U+FFFD
(half a character). tiktoken's face has its own, byte-level stream decoder
(``token_table.StreamDecoder``); this one goes through the tokenizer's decoder, so it works for any
``tokenizer.json``.

>>> from bytepair import Tokenizer
>>> tok = Tokenizer.from_encoding("cl100k_base")
>>> stream = tok.decode_stream()
>>> [stream.step(i) for i in tok.encode("hi 🫠").ids]
['hi', None, None, ' 🫠']
"""

from __future__ import annotations

from typing import Any

__all__ = ["DecodeStream"]


class DecodeStream:
    """Decodes ids one at a time through ``tokenizer.decode``, holding back text until it is final."""

    def __init__(self, tokenizer: Any, skip_special_tokens: bool = True) -> None:
        self._tok = tokenizer
        self._skip = skip_special_tokens
        self._ids: list[int] = []
        self._prefix = ""
        self._prefix_index = 0

    def step(self, token_id: int) -> str | None:
        """The text ``token_id`` completes, or None while it is not final."""
        self._ids.append(token_id)
        text = self._tok.decode(self._ids, self._skip)
        if len(text) > len(self._prefix) and not text.endswith("\ufffd"):
            new = text[len(self._prefix):]
            self._ids = self._ids[self._prefix_index:]
            self._prefix = self._tok.decode(self._ids, self._skip)
            self._prefix_index = len(self._ids)
            return new
        return None
