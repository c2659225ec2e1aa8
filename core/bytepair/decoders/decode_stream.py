"""HF's ``DecodeStream``: ids decoded one at a time, text given out once it is final.

Why here, as a class apart from the decoders: a generated token often completes nothing yet (half a
character of a byte-level emoji, a byte-fallback ``<0xF0>``), so a chat server cannot print
``decode([id])``. The rule is HF ``tokenizers`` 0.23.3's, written once, in :meth:`DecodeStream.step`:
keep a window of recent ids; decode it; once the text grew and does not end in U+FFFD (half a
character), give out what grew and move the window on. Before a step, a stream whose window has no
text yet takes the window's text as already given out when it is whole (so ``ids=`` prefills context
that is not repeated).

HF's shape: ``DecodeStream(ids=None, skip_special_tokens=False)`` whose ``step(tokenizer, id)`` takes
the tokenizer per call and an id or a list of ids. ``Tokenizer.decode_stream()`` gives the same rule
bound to one tokenizer (:class:`TokenizerDecodeStream`). tiktoken's face has its own byte-level stream
decoder (``token_table.StreamDecoder``).

>>> from bytepair import Tokenizer
>>> tok = Tokenizer.from_encoding("cl100k_base")
>>> stream = DecodeStream()
>>> [stream.step(tok, i) for i in tok.encode("hi 🫠").ids]
['hi', None, None, ' 🫠']
>>> stream = DecodeStream(ids=tok.encode("hi").ids)        # context given before: not repeated
>>> stream.step(tok, tok.encode(" there").ids)
' there'
>>> bound = tok.decode_stream()
>>> [bound.step(i) for i in tok.encode("hi 🫠").ids]
['hi', None, None, ' 🫠']
"""

from __future__ import annotations

import copy
import operator
from collections.abc import Sequence
from typing import Any

from ..errors import DecodeStreamError, InvalidInputError, TokenIdOverflowError

__all__ = ["DecodeStream", "TokenizerDecodeStream"]

_ID_LIMIT = 2**32  # HF's ids are unsigned 32-bit


def _step_ids(value: Any) -> list[int]:
    """The ids of one ``step``: an integer or a list of integers (HF's StreamInput), each a u32."""
    items = value if isinstance(value, (list, tuple)) else [value]
    out = []
    for item in items:
        try:
            token_id = operator.index(item)
        except TypeError:
            token_id = -1
        if not 0 <= token_id < _ID_LIMIT:
            raise InvalidInputError(
                f"step takes a token id (an integer from 0 to 2**32 - 1) or a list of them; got {item!r}")
        out.append(token_id)
    return out


def _prefill_ids(ids: Any) -> list[int]:
    """``ids=`` of the constructor: a sequence of integers, each a u32 (HF refuses an iterator or a str)."""
    if ids is None:
        return []
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Sequence):
        raise InvalidInputError(f"ids must be a list of token ids (the context already decoded), not {type(ids).__name__}")
    out = []
    for position, item in enumerate(ids):
        try:
            token_id = operator.index(item)
        except TypeError:
            raise InvalidInputError(f"ids must be integers; got {item!r} at position {position}") from None
        if not 0 <= token_id < _ID_LIMIT:
            raise TokenIdOverflowError(f"{token_id} at position {position} of ids is not an unsigned 32-bit token id")
        out.append(token_id)
    return out


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


class DecodeStream:
    """HF's ``tokenizers.decoders.DecodeStream``: ``step(tokenizer, id)`` returns the text ``id`` (an
    id or a list of ids) completes, or None while it is not final. ``ids`` prefills context whose text
    is not given out again (when it decodes to whole characters); special tokens are written unless
    ``skip_special_tokens``. ``tokenizer`` is anything with HF's ``decode(ids, skip_special_tokens)``."""

    def __init__(self, ids: Sequence[int] | None = None, skip_special_tokens: bool | None = False) -> None:
        if skip_special_tokens is not None and not isinstance(skip_special_tokens, bool):
            raise InvalidInputError(f"skip_special_tokens must be True or False, not {skip_special_tokens!r}")
        self._skip = bool(skip_special_tokens)
        self._ids = _prefill_ids(ids)
        self._prefix = ""
        self._prefix_index = 0

    @property
    def skip_special_tokens(self) -> bool:
        return self._skip

    def _decode(self, tokenizer: Any, ids: list[int]) -> str:
        decode = getattr(tokenizer, "decode", None)
        if not callable(decode):
            raise InvalidInputError(
                f"step takes the Tokenizer to decode with first, then the id; got {type(tokenizer).__name__}")
        return decode(ids, self._skip)

    def step(self, tokenizer: Any, id: int | Sequence[int]) -> str | None:  # noqa: A002 - HF's name
        """The text that ``id`` (one id or a list) completes, or None while more ids are needed."""
        new_ids = _step_ids(id)
        if not self._prefix and self._ids:
            context = self._decode(tokenizer, self._ids)
            if not context.endswith("\ufffd"):
                self._prefix, self._prefix_index = context, len(self._ids)
        window = [*self._ids, *new_ids]
        text = self._decode(tokenizer, window)  # a decode that raises leaves the stream as it was
        self._ids = window
        if text.endswith("\ufffd"):
            return None
        if not text.startswith(self._prefix):
            if _utf8_len(text) > _utf8_len(self._prefix):
                raise DecodeStreamError(
                    f"the decoder turned the text already given out, {self._prefix!r}, into {text!r} after id "
                    f"{self._ids[-1]}; this decoder rewrites earlier text, so decode the whole id list with decode()")
            return None
        if len(text) <= len(self._prefix):
            return None
        new = text[len(self._prefix):]
        self._ids = self._ids[self._prefix_index:]
        self._prefix = self._decode(tokenizer, self._ids)
        self._prefix_index = len(self._ids)
        return new

    def held_back(self, tokenizer: Any) -> str:
        """The text of the ids not given out yet (half a character decodes to U+FFFD), for a stream
        that ends; the stream is left as it is. bytepair's addition (HF has no flush)."""
        text = self._decode(tokenizer, self._ids)
        return text[len(self._prefix):] if text.startswith(self._prefix) else text

    def __copy__(self) -> DecodeStream:
        other = DecodeStream.__new__(DecodeStream)
        other.__dict__.update(self.__dict__)
        other._ids = list(self._ids)
        return other

    def __deepcopy__(self, memo: dict[int, Any]) -> DecodeStream:
        return copy.copy(self)

    def __repr__(self) -> str:
        return f"DecodeStream(skip_special_tokens={self._skip}, held={len(self._ids) - self._prefix_index} ids)"


class TokenizerDecodeStream:
    """The stream of ``Tokenizer.decode_stream()``: :class:`DecodeStream` bound to one tokenizer,
    ``step(id)``."""

    def __init__(self, tokenizer: Any, skip_special_tokens: bool = False, ids: Sequence[int] | None = None) -> None:
        self.tokenizer = tokenizer
        self.stream = DecodeStream(ids, skip_special_tokens)

    def step(self, token_id: int | Sequence[int]) -> str | None:
        """The text ``token_id`` (one id or a list) completes, or None while it is not final."""
        return self.stream.step(self.tokenizer, token_id)

    def held_back(self) -> str:
        """The text of the ids not given out yet (see :meth:`DecodeStream.held_back`)."""
        return self.stream.held_back(self.tokenizer)
