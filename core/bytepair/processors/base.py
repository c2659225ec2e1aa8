"""What every post-processor works on and offers: :class:`Piecewise` records and the interface.

A post-processor works on :class:`Piecewise` records (ids, tokens, offsets, type ids, special mask,
word ids), one per sequence, and returns one record; ``added_tokens`` says how many ids it adds
(truncation leaves room for them; HF's name ``num_special_tokens_to_add`` too).

>>> seq = Piecewise()
>>> seq.add_special([1], ["<s>"], 0); seq.ids, seq.special_tokens_mask, seq.offsets
([1], [1], [(0, 0)])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidInputError, stage_without_json
from ..text.byte_unicode import BYTE_TO_UNICODE

__all__ = ["Piecewise", "PostProcessor", "Step", "trim_byte_level_offsets"]

_SPACE = BYTE_TO_UNICODE[ord(" ")]


@dataclass
class Piecewise:
    """The parallel lists an encoding is made of."""

    ids: list[int] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    offsets: list[tuple[int, int]] = field(default_factory=list)
    type_ids: list[int] = field(default_factory=list)
    special_tokens_mask: list[int] = field(default_factory=list)
    word_ids: list[int | None] = field(default_factory=list)
    sequence_ids: list[int | None] = field(default_factory=list)

    def copy(self) -> Piecewise:
        """A copy whose lists can change without changing these."""
        return Piecewise(list(self.ids), list(self.tokens), list(self.offsets), list(self.type_ids),
                         list(self.special_tokens_mask), list(self.word_ids), list(self.sequence_ids))

    def extend(self, other: Piecewise, *, type_id: int | None = None) -> None:
        self.ids += other.ids
        self.tokens += other.tokens
        self.offsets += other.offsets
        self.type_ids += other.type_ids if type_id is None else [type_id] * len(other.ids)
        self.special_tokens_mask += other.special_tokens_mask
        self.word_ids += other.word_ids
        self.sequence_ids += other.sequence_ids

    def add_added_token(self, token_id: int, text: str, offsets: tuple[int, int], type_id: int, word: int) -> None:
        """An added token found in the text: its own word, with offsets, not in the special mask."""
        self.ids.append(token_id)
        self.tokens.append(text)
        self.offsets.append(offsets)
        self.type_ids.append(type_id)
        self.special_tokens_mask.append(0)
        self.word_ids.append(word)
        self.sequence_ids.append(type_id)

    def add_special(self, ids: list[int], tokens: list[str], type_id: int) -> None:
        n = len(ids)
        self.ids += ids
        self.tokens += tokens
        self.offsets += [(0, 0)] * n
        self.type_ids += [type_id] * n
        self.special_tokens_mask += [1] * n
        self.word_ids += [None] * n
        self.sequence_ids += [None] * n


def trim_byte_level_offsets(seq: Piecewise, add_prefix_space: bool) -> None:
    """Offsets without the spaces a byte-level token holds at its ends (HF's ``trim_offsets``)."""
    for i, (token, (start, end)) in enumerate(zip(seq.tokens, seq.offsets)):
        lead = len(token) - len(token.lstrip(_SPACE + " \t\n\r"))
        trail = len(token) - len(token.rstrip(_SPACE + " \t\n\r"))
        if lead:
            if (i == 0 or start == 0) and add_prefix_space and lead == 1:
                lead = 0
            start = min(start + lead, end)
        if trail and end >= trail:
            end = max(end - trail, start)
        seq.offsets[i] = (start, end)


Step = tuple[str | None, int | None, list[int], list[str]]
"""One step of a post-processor's :meth:`~PostProcessor.layout`: a text (``"A"`` the first, ``"B"``
the second) with its type id (None: the text's own), or special tokens ``(None, type id, ids, tokens)``."""

_TEXTS: dict[bool, list[Step]] = {False: [("A", None, [], [])], True: [("A", None, [], []), ("B", None, [], [])]}


class PostProcessor:
    """Base: the number of tokens added, and ``process`` of one or two sequences by the processor's
    :meth:`layout` (the texts as they are, one after the other, here)."""

    def added_tokens(self, is_pair: bool) -> int:
        return 0

    def layout(self, is_pair: bool, add_special_tokens: bool) -> list[Step]:
        """What :meth:`process` puts out, in order: the texts and the special tokens between them.
        ``processors.post_processors.processed_ids`` reads it to place the special tokens among ids
        alone; a processor defined elsewhere may override ``process`` instead (it is then run)."""
        return _TEXTS[is_pair]

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        """HF's name for :meth:`added_tokens`: the special tokens ``process`` adds to one sequence
        (``is_pair=False``) or a pair."""
        if not isinstance(is_pair, bool):
            raise InvalidInputError(f"is_pair must be True or False, not {is_pair!r}")
        return self.added_tokens(is_pair)

    def process(self, first: Piecewise, second: Piecewise | None, add_special_tokens: bool) -> Piecewise:
        out = Piecewise()
        for which, type_id, ids, tokens in self.layout(second is not None, add_special_tokens):
            if which is None:
                out.add_special(ids, tokens, type_id or 0)
            else:
                seq = first if which == "A" else second
                if seq is not None:
                    out.extend(seq, type_id=type_id)
        return out

    def to_json(self) -> dict[str, Any]:
        raise stage_without_json("post-processor", self)
