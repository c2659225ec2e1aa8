"""Decoding: ids -> bytes -> text, in one piece or as a stream.

Why a table: ``b"".join(map(table.__getitem__, ids))`` runs in C. Invalid ids are caught by the same
lookup (out of range, not an integer) plus one check for negatives, which Python lists would
otherwise read from the end.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterable

from ..errors import InvalidTokenError

__all__ = ["StreamDecoder", "TokenTable"]


class TokenTable:
    """id -> token bytes, for ordinary and special tokens alike.

    Ids are held in a list (lookups in C); a special token whose id lies far beyond the vocabulary
    (tiktoken allows any id, say 2**40) is kept in a dict instead, so the list never grows with it.

    >>> table = TokenTable("t", [b"a", b"b"], {"<|x|>": 2**40})
    >>> table.join([0, 2**40, 1])
    b'a<|x|>b'
    """

    _DENSE_SLACK = 1 << 16  # special ids up to this far past the vocabulary stay in the list

    def __init__(self, name: str, token_bytes: list[bytes], special_tokens: dict[str, int]) -> None:
        self.name = name
        dense_limit = len(token_bytes) + self._DENSE_SLACK
        self._sparse: dict[int, bytes] = {}
        size = max([len(token_bytes) - 1, *(i for i in special_tokens.values() if i < dense_limit)]) + 1
        table: list[bytes | None] = list(token_bytes)
        table.extend([None] * (size - len(table)))
        # Unused ranks hold b"" in token_bytes; they must not decode (they are rare: find them in C).
        unused = -1
        try:
            while True:
                unused = table.index(b"", unused + 1)
                table[unused] = None
        except ValueError:
            pass
        for text, token_id in special_tokens.items():
            # Two names may share an id (o200k_harmony: <|endofprompt|> and <|reserved_200018|>);
            # the first defined is the canonical one, as in tiktoken.
            if token_id >= dense_limit:
                self._sparse.setdefault(token_id, text.encode("utf-8"))
            elif table[token_id] is None:
                table[token_id] = text.encode("utf-8")
        self._table = table
        self.max_id = max(size - 1, *self._sparse) if self._sparse else size - 1

    def __len__(self) -> int:
        return len(self._table)

    def _lookup(self, token: object) -> bytes | None:
        try:
            if token >= 0:  # type: ignore[operator]
                value = self._table[token]  # type: ignore[index]
                if value is not None:
                    return value
        except IndexError:
            return self._sparse.get(token)  # type: ignore[call-overload]
        except TypeError:
            pass
        return None

    def single(self, token: int) -> bytes:
        """Bytes of one id; :class:`InvalidTokenError` if it is not a token."""
        value = self._lookup(token)
        if value is None:
            raise self._error(token, None)
        return value

    def join(self, ids: Iterable[int]) -> bytes:
        """Bytes of a sequence of ids."""
        if not isinstance(ids, (list, tuple)):
            ids = list(ids)
        try:
            # A None (unused id) makes join raise TypeError, caught below like a bad index.
            data = b"".join(map(self._table.__getitem__, ids))  # type: ignore[arg-type]
            if not ids or min(ids) >= 0:
                return data
        except (TypeError, IndexError):
            pass
        parts = []
        for position, token in enumerate(ids):
            value = self._lookup(token)
            if value is None:
                raise self._error(token, position)
            parts.append(value)
        return b"".join(parts)

    def each(self, ids: Iterable[int]) -> map:
        """The bytes of each id, lazily, for ids this encoding produced (not checked)."""
        if self._sparse:
            return map(self.single, ids)
        return map(self._table.__getitem__, ids)

    def _error(self, token: object, position: int | None) -> InvalidTokenError:
        where = "" if position is None else f" at position {position}"
        if isinstance(token, bool) or not hasattr(token, "__index__"):
            return InvalidTokenError(
                f"token ids must be integers; got {type(token).__name__} {token!r}{where}"
            )
        return InvalidTokenError(
            f"{token!r}{where} is not a token id of {self.name}: valid ids are 0..{self.max_id}"
            " (some may be unused); check that the ids come from this encoding"
        )


class StreamDecoder:
    """Turns ids into text as they arrive, holding back bytes of an incomplete UTF-8 character.

    Each instance keeps its own state, so concurrent streams never mix (a shared decoder would leak
    half a character from one stream into another).

    >>> from bytepair import get_encoding
    >>> enc = get_encoding("o200k_base")
    >>> stream = enc.stream_decoder()
    >>> ids = enc.encode("🙂!")
    >>> "".join(stream.feed(i) for i in ids) + stream.flush()
    '🙂!'
    """

    def __init__(self, table: TokenTable, errors: str = "replace") -> None:
        self._table = table
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors)

    def feed(self, ids: int | Iterable[int]) -> str:
        """Add one id or several; return the text that is now complete."""
        data = self._table.single(ids) if isinstance(ids, int) else self._table.join(ids)
        return self._decoder.decode(data)

    def flush(self) -> str:
        """End of stream: return what is left (incomplete bytes become U+FFFD with errors="replace")."""
        text = self._decoder.decode(b"", final=True)
        self._decoder.reset()
        return text
