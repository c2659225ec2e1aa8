"""Pre-tokenizers of ``tokenizer.json`` files: how normalized text is cut into the pieces BPE sees.

A reader looking for HF's ``Split`` or ``Metaspace`` finds it in this package under HF's name, built
from its JSON by :func:`pre_tokenizer_from_json`, the one factory of this stage: the interface every
component offers is in ``base.py`` (``split`` for ids, ``spans`` for offsets), the components in
``split.py``, ``byte_level.py``, ``metaspace.py`` and ``sequence.py``. The regex engine they share with
tiktoken's patterns is ``pattern/`` (translation to stdlib ``re``, pinned Unicode tables, the splitter
itself, ``Pretokenizer``).

>>> pre = pre_tokenizer_from_json({"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithPrevious"})
>>> pre.split("a-b--c")
['a-', 'b-', '-', 'c']
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..errors import UnsavableError
from ..formats.component_json import build
from ..formats.component_json import pattern as pattern_of
from ..formats.rank_table import check_reads_alike
from .base import BEHAVIORS, PreTokenizer
from .bert import BertPreTokenizer, CharDelimiterSplit, FixedLength, UnicodeScripts
from .byte_level import GPT2_PATTERN, ByteLevel
from .metaspace import Metaspace
from .sequence import Sequence
from .split import Digits, Punctuation, Split, Whitespace, WhitespaceSplit

__all__ = [
    "BEHAVIORS",
    "GPT2_PATTERN",
    "BertPreTokenizer",
    "ByteLevel",
    "CharDelimiterSplit",
    "Digits",
    "FixedLength",
    "Metaspace",
    "PreTokenizer",
    "Punctuation",
    "Sequence",
    "Split",
    "UnicodeScripts",
    "Whitespace",
    "WhitespaceSplit",
    "pre_tokenizer_from_json",
    "tiktoken_pattern",
]


def _split(obj: dict[str, Any], where: str) -> PreTokenizer:
    pattern, is_regex = pattern_of(obj.get("pattern"), where + ".pattern")
    return Split(pattern, obj.get("behavior", "Isolated"), invert=bool(obj.get("invert", False)), is_regex=is_regex)


_FACTORIES: dict[str, Callable[[dict[str, Any], str], PreTokenizer]] = {
    "Split": _split,
    "ByteLevel": lambda o, w: ByteLevel(o.get("add_prefix_space", True), o.get("trim_offsets", True), o.get("use_regex", True)),
    "Metaspace": lambda o, w: Metaspace(
        o.get("replacement", "\u2581"),
        o.get("prepend_scheme", "always" if o.get("add_prefix_space", True) else "never"),
        o.get("split", True),
    ),
    "Digits": lambda o, w: Digits(bool(o.get("individual_digits", False))),
    "Punctuation": lambda o, w: Punctuation(o.get("behavior", "Isolated")),
    "Whitespace": lambda o, w: Whitespace(),
    "WhitespaceSplit": lambda o, w: WhitespaceSplit(),
    "BertPreTokenizer": lambda o, w: BertPreTokenizer(),
    "CharDelimiterSplit": lambda o, w: CharDelimiterSplit(o.get("delimiter", "")),
    "FixedLength": lambda o, w: FixedLength(o.get("length", 5)),
    "UnicodeScripts": lambda o, w: UnicodeScripts(),
    "Sequence": lambda o, w: Sequence(
        [pre_tokenizer_from_json(step, f"{w}.pretokenizers[{i}]") for i, step in enumerate(o.get("pretokenizers", []))]
    ),
}


def pre_tokenizer_from_json(obj: dict[str, Any] | None, where: str = "pre_tokenizer") -> PreTokenizer | None:
    """The pre-tokenizer a ``tokenizer.json`` describes (None for ``null``)."""
    return build(obj, where, "pre-tokenizer", _FACTORIES)


def tiktoken_pattern(pre: PreTokenizer | None) -> str:
    """The one regex a tiktoken ``Encoding`` would split with to give ``pre``'s pieces (byte-level),
    or :class:`~bytepair.errors.UnsavableError` saying why there is none.

    >>> tiktoken_pattern(ByteLevel(add_prefix_space=False)) == GPT2_PATTERN
    True
    """
    steps = pre.steps if isinstance(pre, Sequence) else [pre]
    if isinstance(pre, ByteLevel) and pre.use_regex and not pre.add_prefix_space:
        return GPT2_PATTERN
    if len(steps) == 2 and isinstance(steps[0], Split) and isinstance(steps[1], ByteLevel):
        split, byte_level = steps
        keeps_matches = (split.behavior, split.invert) in (("isolated", False), ("removed", True))
        if split.is_regex and keeps_matches and not byte_level.use_regex and not byte_level.add_prefix_space:
            return check_reads_alike(split.pattern)
    raise UnsavableError(
        f"the pre-tokenizer ({json.dumps(pre.to_json()) if pre is not None else 'none'}) is not one regex split followed by "
        "ByteLevel (or ByteLevel's own GPT-2 split without a prefix space), so a tiktoken Encoding cannot split text the "
        "same way; save as tokenizer.json instead"
    )
