"""Truncation of one sequence or a pair, as Hugging Face ``tokenizers`` cuts them, with the overflow.

Why a module of its own: the cut is the tokenizer's business after the model and before the
post-processor adds its special tokens (HF's ``TokenizerImpl::post_process``): the budget is
``max_length`` less the special tokens the post-processor will add; ``longest_first`` shares it
between a pair, ``only_first``/``only_second`` cut one side; with a ``stride``, what is cut off comes
back as overflow windows that overlap by ``stride`` tokens. The settings are checked here once, for
``Tokenizer.enable_truncation`` and for a ``tokenizer.json``'s ``truncation`` alike.

>>> seq = Piecewise(ids=list(range(10)), tokens=list("abcdefghij"), offsets=[(i, i + 1) for i in range(10)],
...                 type_ids=[0] * 10, special_tokens_mask=[0] * 10, word_ids=list(range(10)), sequence_ids=[0] * 10)
>>> [w.ids for w in windows(seq, 4, 1, "right")]
[[0, 1, 2, 3], [3, 4, 5, 6], [6, 7, 8, 9]]
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidArgumentError, InvalidInputError
from ..text.checks import require_count
from .base import Piecewise

__all__ = ["STRATEGIES", "longest_first", "truncate", "truncation_from_json", "truncation_json", "truncation_settings", "windows"]

STRATEGIES = ("longest_first", "only_first", "only_second")
_JSON_STRATEGIES = {"longest_first": "LongestFirst", "only_first": "OnlyFirst", "only_second": "OnlySecond"}
_FIELDS = ("ids", "tokens", "offsets", "type_ids", "special_tokens_mask", "word_ids", "sequence_ids")


def truncation_settings(max_length: int, stride: int, strategy: str, direction: str, room: int) -> dict[str, Any]:
    """Checked settings (``room``: ``max_length`` less the special tokens a single text gets)."""
    if strategy not in STRATEGIES:
        raise InvalidInputError(f"truncation strategy must be longest_first, only_first or only_second, not {strategy!r}")
    if direction not in ("right", "left"):
        raise InvalidInputError(f"truncation direction must be 'right' or 'left', not {direction!r}")
    require_count(max_length, "max_length")
    require_count(stride, "stride")
    if 0 <= room < stride:  # HF's check (it skips a max_length below the special tokens' number)
        raise InvalidArgumentError(
            f"truncation stride ({stride}) must not exceed the length left for the text ({room} of max_length "
            f"{max_length}, the rest being special tokens); lower the stride or raise max_length"
        )
    return {"max_length": max_length, "stride": stride, "strategy": strategy, "direction": direction}


def truncation_json(settings: dict[str, Any] | None) -> dict[str, Any] | None:
    """The settings as a ``tokenizer.json``'s ``truncation`` object."""
    if settings is None:
        return None
    return {"direction": settings["direction"].capitalize(), "max_length": settings["max_length"],
            "strategy": _JSON_STRATEGIES[settings["strategy"]], "stride": settings["stride"]}


def truncation_from_json(obj: dict[str, Any]) -> tuple[int, int, str, str]:
    """``enable_truncation``'s arguments from a ``tokenizer.json``'s ``truncation`` object."""
    names = {json_name: name for name, json_name in _JSON_STRATEGIES.items()}
    strategy = names.get(obj.get("strategy", "LongestFirst"), "longest_first")
    return int(obj.get("max_length", 512)), int(obj.get("stride", 0)), strategy, str(obj.get("direction", "Right")).lower()


def longest_first(n1: int, n2: int, budget: int) -> tuple[int, int]:
    """How many tokens of each sequence ``longest_first`` keeps (HF's rule): the shorter keeps all
    it can up to half the budget, the longer the rest; if both are too long they split the budget,
    the odd token going to the longer one (to the second when they are equally long).

    >>> longest_first(10, 3, 8), longest_first(10, 9, 7), longest_first(9, 9, 7), longest_first(5, 9, 8)
    ((5, 3), (4, 3), (3, 4), (4, 4))
    """
    short = min(n1, n2)
    keep_long = short if short > budget else max(short, budget - short)
    keep_short = short
    if keep_short + keep_long > budget:
        keep_short = budget // 2
        keep_long = keep_short + budget % 2
    return (keep_long, keep_short) if n1 > n2 else (keep_short, keep_long)


def _slice(seq: Piecewise, start: int, stop: int) -> Piecewise:
    return Piecewise(*(getattr(seq, name)[start:stop] for name in _FIELDS))


def windows(seq: Piecewise, max_len: int, stride: int, direction: str) -> list[Piecewise]:
    """``seq`` cut to ``max_len`` tokens, with the overflow in further windows overlapping by ``stride``
    (HF's truncation): the first window is the kept one."""
    n = len(seq.ids)
    if n <= max_len:
        return [seq]
    if max_len == 0:
        return [Piecewise(), seq]
    step = max_len - stride
    if step <= 0:
        raise InvalidInputError(f"truncation stride ({stride}) must be smaller than the length left for the text ({max_len})")
    starts = list(range(0, n, step))
    while len(starts) > 1 and starts[-2] + max_len >= n:
        starts.pop()
    if direction == "right":
        return [_slice(seq, s, min(s + max_len, n)) for s in starts]
    return [_slice(seq, max(0, n - s - max_len), n - s) for s in starts]


def truncate(first: Piecewise, second: Piecewise | None, settings: dict[str, Any], added: int
             ) -> tuple[Piecewise, Piecewise | None, list[Piecewise], list[Piecewise]]:
    """The kept first and second sequences and the overflow windows of each, for ``settings`` and
    ``added`` special tokens still to come."""
    if added > settings["max_length"]:
        return first, second, [], []  # HF's budget wraps around below zero: nothing is cut
    budget = settings["max_length"] - added
    stride, direction, strategy = settings["stride"], settings["direction"], settings["strategy"]
    if budget == 0:  # HF cuts each text to nothing, each keeping its whole self as one overflow
        empty = _slice(first, 0, 0)
        if second is None:
            return empty, None, ([first] if first.ids else []), []
        return empty, _slice(second, 0, 0), ([first] if first.ids else []), ([second] if second.ids else [])
    if second is None:
        if strategy == "only_second" and len(first.ids) > budget:
            raise InvalidInputError("truncation strategy only_second needs a pair of sequences (this single text "
                                    "is longer than max_length); use longest_first or only_first")
        kept = windows(first, budget, stride, direction)
        return kept[0], None, kept[1:], []
    n1, n2 = len(first.ids), len(second.ids)
    if n1 + n2 <= budget:
        return first, second, [], []
    if strategy == "longest_first":
        keep1, keep2 = longest_first(n1, n2, budget)
        w1 = windows(first, keep1, stride, direction)
        w2 = windows(second, keep2, stride, direction)
        return w1[0], w2[0], w1[1:], w2[1:]
    if strategy == "only_first":
        if n2 >= budget:
            raise InvalidInputError("truncation only_first cannot fit: the second sequence alone exceeds max_length")
        w1 = windows(first, budget - n2, stride, direction)
        return w1[0], second, w1[1:], []
    if n1 >= budget:
        raise InvalidInputError("truncation only_second cannot fit: the first sequence alone exceeds max_length")
    w2 = windows(second, budget - n1, stride, direction)
    return first, w2[0], [], w2[1:]
