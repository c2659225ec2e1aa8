"""``Encoded``: what ``Tokenizer.encode`` returns, with HF ``Encoding``'s fields and index lookups.

Why lazy: ``ids`` are computed at once, through the engine's fast path; the other fields (tokens,
offsets, masks, word ids) are built the first time one of them is read, so code that only wants ids
never pays for them. :func:`post_processed` makes one from a sequence (or a pair) the way HF's
``post_process`` does: truncation with its overflow windows, then the post-processor.

>>> from bytepair import Tokenizer
>>> enc = Tokenizer.from_encoding("cl100k_base").encode("hello world")
>>> enc.ids, enc.tokens, enc.word_to_tokens(1)
([15339, 1917], ['hello', 'Ġworld'], (1, 2))
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import Any

from ..errors import InvalidInputError
from ..text.checks import require_count
from ..processors.base import Piecewise, PostProcessor
from ..processors.truncation import truncate
from ..text.offsets import first_token_at
from .encoded_edits import Ranges, merged, ranges_from_ids, sequence_ids_from, truncated

__all__ = ["Encoded", "post_processed", "to_piecewise"]


_LAZY_FIELDS = ("tokens", "offsets", "type_ids", "attention_mask", "special_tokens_mask", "word_ids", "sequence_ids",
                "overflowing")
_POSITIONAL_FIELDS = ("type_ids", "special_tokens_mask", "sequence_ids")


class Encoded:
    """What ``Tokenizer.encode`` returns, with HF ``Encoding``'s attribute names.

    ``ids`` are computed at once, through the engine's fast path; the other fields (tokens, offsets,
    masks, word ids) are built the first time one of them is read, so code that only wants ids never
    pays for them. ``positional``, where given, makes the fields that depend on the texts' token
    counts alone (type ids, special-tokens mask, sequence ids: what transformers reads beside the
    ids), so that reading them costs no second pass through the pipeline.
    """

    def __init__(self, ids: list[int], fields: dict[str, Any] | None = None,
                 build: Callable[[], Encoded] | None = None, *, n_sequences: int | None = None,
                 positional: Callable[[], dict[str, list[Any]]] | None = None) -> None:
        self.ids = ids
        self._build = build
        self._positional = positional
        self._n_sequences = n_sequences
        if fields is not None:
            self.__dict__.update(fields)

    def __getattr__(self, name: str) -> Any:
        # Only called for attributes not set yet: the lazy fields.
        if name in _POSITIONAL_FIELDS and self.__dict__.get("_positional") is not None:
            self.__dict__.update(self._positional())
            self._positional = None
            return self.__dict__[name]
        if name in _LAZY_FIELDS and self.__dict__.get("_build") is not None:
            self._materialize(name)
            return self.__dict__[name]
        raise AttributeError(name)

    def _materialize(self, reading: str = "fields") -> None:
        """Build the lazy fields now (before anything changes the ids, such as padding)."""
        build = self.__dict__.get("_build")
        if build is None:
            return
        full = build()
        self._build = self._positional = None
        if full.ids != self.ids:
            raise InvalidInputError(
                "the tokenizer was changed (tokens added, truncation or padding set) between encode() and reading "
                f"this result's {reading}; read the fields you need before changing the tokenizer"
            )
        for field_name in _LAZY_FIELDS:
            self.__dict__[field_name] = full.__dict__[field_name]
        if "_pad_sequence_id" in full.__dict__:
            self._pad_sequence_id = full._pad_sequence_id

    def __getstate__(self) -> dict[str, Any]:
        """Pickles with every field built (as HF's ``Encoding`` pickles), not the tokenizer behind it."""
        self._materialize()
        return {**self.__dict__, "_build": None, "_positional": None}

    def __len__(self) -> int:
        return len(self.ids)

    def __repr__(self) -> str:
        return f"Encoded(num_tokens={len(self.ids)}, ids={self.ids[:8]}{'...' if len(self.ids) > 8 else ''})"

    @property
    def words(self) -> list[int | None]:
        return self.word_ids

    # ---------------------------------------------------------------- HF's index lookups
    def token_to_sequence(self, token_index: int) -> int | None:
        """Which text of a pair token ``token_index`` comes from (None for an added special token)."""
        return self.sequence_ids[token_index]

    def token_to_chars(self, token_index: int) -> tuple[int, int] | None:
        """The ``[start, end)`` characters of a token in its own text (None for an added special token)."""
        return None if self.sequence_ids[token_index] is None else self.offsets[token_index]

    def token_to_word(self, token_index: int) -> int | None:
        """The word (pre-tokenized piece) a token belongs to, counted in its own text."""
        return self.word_ids[token_index]

    def char_to_token(self, char_pos: int, sequence_index: int = 0) -> int | None:
        """The first token of text ``sequence_index`` that holds character ``char_pos`` (several do
        where a character is split into byte tokens); None if none does.

        >>> from bytepair import Tokenizer
        >>> tok = Tokenizer.from_encoding("cl100k_base")
        >>> enc = tok.encode("hi 🫠", add_special_tokens=False)
        >>> enc.char_to_token(0), enc.char_to_token(3), enc.token_to_chars(3), enc.char_to_token(9)
        (0, 1, (3, 4), None)
        """
        own = [i for i, sequence in enumerate(self.sequence_ids) if sequence == sequence_index]
        if not own:
            return None
        lo, hi = own[0], own[-1] + 1  # a text's tokens are contiguous
        index = first_token_at(self.offsets[lo:hi], char_pos)
        return None if index is None else lo + index

    def char_to_word(self, char_pos: int, sequence_index: int = 0) -> int | None:
        """The word holding character ``char_pos`` of text ``sequence_index``."""
        index = self.char_to_token(char_pos, sequence_index)
        return None if index is None else self.word_ids[index]

    def word_to_tokens(self, word_index: int, sequence_index: int = 0) -> tuple[int, int] | None:
        """The ``[first, last + 1)`` token range of word ``word_index`` of text ``sequence_index``."""
        found = [i for i, (sequence, word) in enumerate(zip(self.sequence_ids, self.word_ids))
                 if sequence == sequence_index and word == word_index]
        return (found[0], found[-1] + 1) if found else None

    def word_to_chars(self, word_index: int, sequence_index: int = 0) -> tuple[int, int] | None:
        """The ``[start, end)`` characters of word ``word_index`` of text ``sequence_index``."""
        tokens = self.word_to_tokens(word_index, sequence_index)
        return None if tokens is None else (self.offsets[tokens[0]][0], self.offsets[tokens[1] - 1][1])

    @property
    def n_sequences(self) -> int:
        """How many texts this encodes: 1, or 2 for a pair (an empty text counts, as in HF)."""
        given = self._n_sequences
        return given if given is not None else max(1, len({s for s in self.sequence_ids if s is not None}))

    @classmethod
    def from_piecewise(cls, seq: Piecewise, *, copy: bool = True) -> Encoded:
        """A finished encoding of the post-processor's record (its lists taken as they are, not
        copied, where ``copy`` is False: a record made for this encoding alone)."""
        own = list if copy else _same
        return cls(own(seq.ids), {
            "tokens": own(seq.tokens), "offsets": own(seq.offsets), "type_ids": own(seq.type_ids),
            "attention_mask": [1] * len(seq.ids), "special_tokens_mask": own(seq.special_tokens_mask),
            "word_ids": own(seq.word_ids), "sequence_ids": own(seq.sequence_ids), "overflowing": [],
        })

    # ---------------------------------------------------------------- HF's edits (encoded_edits.py)
    @staticmethod
    def merge(encodings: list[Encoded], growing_offsets: bool = True) -> Encoded:
        """One encoding of several, one after another (HF's ``Encoding.merge``)."""
        return merged(encodings, growing_offsets, cls=Encoded)

    def truncate(self, max_length: int, stride: int = 0, direction: str = "right") -> None:
        """Keep ``max_length`` tokens; the rest become ``overflowing`` windows (HF's ``truncate``)."""
        truncated(self, max_length, stride, direction)

    def set_sequence_id(self, sequence_id: int) -> None:
        """Mark every token as from text ``sequence_id`` (HF's ``set_sequence_id``)."""
        require_count(sequence_id, "sequence_id")
        ranges = self.sequence_ranges()
        ranges[sequence_id] = (0, len(self.ids))
        self.set_sequence_ranges(ranges)

    def packed(self) -> tuple[Any, ...]:
        """The encoding as compact plain data for another process (numbers as packed ``array``
        bytes, not pickled lists); :meth:`unpacked` gives it back, equal in every field.

        >>> from bytepair import Tokenizer
        >>> enc = Tokenizer.from_encoding("cl100k_base").encode("hi there")
        >>> again = Encoded.unpacked(enc.packed())
        >>> (again.ids, again.offsets, again.word_ids) == (enc.ids, enc.offsets, enc.word_ids)
        True
        """
        self._materialize()
        none_as = (lambda values: array("q", [-1 if v is None else v for v in values]).tobytes())
        return (array("Q", self.ids).tobytes(), list(self.tokens), array("Q", [i for o in self.offsets for i in o]).tobytes(),
                array("Q", self.type_ids).tobytes(), array("Q", self.attention_mask).tobytes(),
                array("Q", self.special_tokens_mask).tobytes(), none_as(self.word_ids), none_as(self.sequence_ids),
                [o.packed() for o in self.overflowing], self.__dict__.get("_n_sequences"),
                self.__dict__.get("_pad_sequence_id", ...), self.__dict__.get("_ranges"))

    @classmethod
    def unpacked(cls, data: tuple[Any, ...]) -> Encoded:
        """The encoding :meth:`packed` gave."""
        ids, tokens, offsets, type_ids, attention, special, words, sequences, overflowing, n, pad_id, ranges = data
        flat = array("Q", offsets).tolist()
        out = cls(array("Q", ids).tolist(), {
            "tokens": tokens, "offsets": list(zip(flat[::2], flat[1::2])), "type_ids": array("Q", type_ids).tolist(),
            "attention_mask": array("Q", attention).tolist(), "special_tokens_mask": array("Q", special).tolist(),
            "word_ids": [None if v < 0 else v for v in array("q", words)],
            "sequence_ids": [None if v < 0 else v for v in array("q", sequences)],
            "overflowing": [cls.unpacked(o) for o in overflowing]}, n_sequences=n)
        if pad_id is not ...:
            out._pad_sequence_id = pad_id
        if ranges is not None:
            out._ranges = ranges
        return out

    def materialize(self) -> None:
        """Build every field now (they are otherwise built when first read)."""
        self._materialize()

    def sequence_ranges(self) -> Ranges:
        """Text id -> ``(first, last + 1)`` token range, as HF keeps them (none for one text without
        a post-processor)."""
        kept = self.__dict__.get("_ranges")
        if kept is not None:
            return dict(kept)
        self._materialize()
        if self.__dict__.get("_pad_sequence_id") == 0:
            return {}
        return ranges_from_ids(self.sequence_ids, self.n_sequences)

    def set_sequence_ranges(self, ranges: Ranges) -> None:
        """Give the encoding these ranges, and the sequence ids and count of texts HF reads off them."""
        self._ranges = dict(ranges)
        self._n_sequences = max(1, len(ranges))
        self._pad_sequence_id = None if ranges else 0
        self.sequence_ids = sequence_ids_from(ranges, len(self.ids))

    def pad(self, length: int, *, direction: str = "right", pad_id: int = 0, pad_type_id: int = 0,
            pad_token: str = "[PAD]") -> None:
        """Pad to ``length`` (nothing if already as long), on the right or the left (keywords only,
        as in HF)."""
        if direction not in ("right", "left"):
            raise InvalidInputError(f"padding direction must be 'right' or 'left', not {direction!r}")
        for extra in self.__dict__.get("overflowing", ()):  # HF pads the overflows first, whatever the main length
            extra.pad(length, direction=direction, pad_id=pad_id, pad_type_id=pad_type_id, pad_token=pad_token)
        n = length - len(self.ids)
        if n <= 0:
            return
        self._materialize()
        # Padding has no sequence id, except where HF keeps no sequence ranges (one text, no
        # post-processor): its sequence_ids are then 0 throughout, padding included.
        pad_sequence_id = self.__dict__.get("_pad_sequence_id")
        for name, value in (("ids", pad_id), ("tokens", pad_token), ("offsets", (0, 0)), ("type_ids", pad_type_id),
                            ("attention_mask", 0), ("special_tokens_mask", 1), ("word_ids", None), ("sequence_ids", pad_sequence_id)):
            values = getattr(self, name)
            setattr(self, name, values + [value] * n if direction == "right" else [value] * n + values)
        kept = self.__dict__.get("_ranges")
        if kept is not None:  # ranges an edit set move with the tokens, as HF's do
            shift = n if direction == "left" else 0
            self.set_sequence_ranges({k: (lo + shift, hi + shift) for k, (lo, hi) in kept.items()})


def _same(values: list[Any]) -> list[Any]:
    return values


def to_piecewise(encoding: Encoded, sequence_id: int = 0) -> Piecewise:
    """An encoding's fields as the lists the post-processor works on. Its type ids stay as they are
    (a post-processor's template sets its own; with none, HF keeps them)."""
    return Piecewise(list(encoding.ids), list(encoding.tokens), list(encoding.offsets), list(encoding.type_ids),
                     list(encoding.special_tokens_mask), list(encoding.word_ids), [sequence_id] * len(encoding.ids))


def post_processed(first: Piecewise, second: Piecewise | None, add_special_tokens: bool, processor: PostProcessor | None,
                   truncation: dict[str, Any] | None) -> Encoded:
    """HF's ``post_process`` of one sequence or a pair: truncation (with its overflow), then the
    post-processor (``None``: none, which adds nothing). ``first`` and ``second`` are the caller's
    to give up: without overflows the post-processor works on them as they are."""
    overflow_first: list[Piecewise] = []
    overflow_second: list[Piecewise] = []
    step = processor if processor is not None else PostProcessor()
    if truncation is not None:
        added = processor.added_tokens(second is not None) if (processor is not None and add_special_tokens) else 0
        first, second, overflow_first, overflow_second = truncate(first, second, truncation, added)

    def combined(a: Piecewise, b: Piecewise | None, copy: bool = True) -> Encoded:  # on copies: a processor may trim in place
        if copy:
            a, b = a.copy(), None if b is None else b.copy()
        return Encoded.from_piecewise(step.process(a, b, add_special_tokens), copy=False)

    # The texts' records are made for this call: used once (no overflow), they need no copy.
    encoded = combined(first, second, copy=bool(overflow_first or overflow_second))
    encoded._n_sequences = 1 if second is None else 2  # as HF counts them, empty ones included
    # HF merges the two texts' encodings with their overflows (``Encoding::merge_with``): each
    # overflow of the first with the kept second (holding, as its own overflows, that overflow with
    # each overflow of the second), then with each overflow of the second; then the kept first with
    # each overflow of the second (holding each overflow of the first with it).
    for extra in overflow_first:
        with_second = combined(extra, second)
        with_second.overflowing = [combined(extra, extra2) for extra2 in overflow_second]
        encoded.overflowing.append(with_second)
        encoded.overflowing += [combined(extra, extra2) for extra2 in overflow_second]
    for extra2 in overflow_second:
        with_first = combined(first, extra2)
        with_first.overflowing = [combined(extra, extra2) for extra in overflow_first]
        encoded.overflowing.append(with_first)
    if processor is None and second is None:
        # HF keeps no sequence ranges for one text without a post-processor: every token's
        # sequence id is 0, padding's too. (The overflows of a pair without one get ids that
        # follow no rule this copies; they are left as encode gives them.)
        for each in (encoded, *encoded.overflowing):
            each._pad_sequence_id = 0
    return encoded
