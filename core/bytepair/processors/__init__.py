"""Post-processors of ``tokenizer.json`` files: special tokens around one sequence or a pair.

Why a stage: ``<s> A </s></s> B </s>`` (RoBERTa), ``[CLS] A [SEP] B [SEP]`` (BERT) or a template
(Llama) is the model's business, not the text's, so it is added after encoding, only when
``add_special_tokens`` asks, with ``type_ids`` telling the sequences apart. ByteLevel and RoBERTa
may also trim the spaces byte-level tokens carry from their offsets. Built by
:func:`post_processor_from_json`, the one factory of this stage.

A post-processor works on :class:`Piecewise` records (ids, tokens, offsets, type ids, special mask,
word ids), one per sequence, and returns one record.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..text.byte_unicode import BYTE_TO_UNICODE
from ..formats.component_json import build
from ..errors import VocabFormatError

__all__ = ["Piecewise", "PostProcessor", "post_processor_from_json"]

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
        if lead == len(token):
            trail = 0
        if lead:
            if (i == 0 or start == 0) and add_prefix_space and lead == 1:
                lead = 0
            start = min(start + lead, end)
        if trail and end >= trail:
            end = max(end - trail, start)
        seq.offsets[i] = (start, end)


class PostProcessor:
    """Base: the number of tokens added, and ``process`` of one or two sequences."""

    def added_tokens(self, is_pair: bool) -> int:
        return 0

    def process(self, first: Piecewise, second: Piecewise | None, add_special_tokens: bool) -> Piecewise:
        out = Piecewise()
        out.extend(first)
        if second is not None:
            out.extend(second)
        return out

    def to_json(self) -> dict[str, Any]:
        raise NotImplementedError


class ByteLevel(PostProcessor):
    """No special tokens; with ``trim_offsets``, offsets lose the spaces tokens carry."""

    def __init__(self, add_prefix_space: bool = True, trim_offsets: bool = True, use_regex: bool = True) -> None:
        self.add_prefix_space, self.trim_offsets, self.use_regex = add_prefix_space, trim_offsets, use_regex

    def process(self, first: Piecewise, second: Piecewise | None, add_special_tokens: bool) -> Piecewise:
        if self.trim_offsets:
            for seq in (first, second):
                if seq is not None:
                    trim_byte_level_offsets(seq, self.add_prefix_space)
        return super().process(first, second, add_special_tokens)

    def to_json(self) -> dict[str, Any]:
        return {"type": "ByteLevel", "add_prefix_space": self.add_prefix_space, "trim_offsets": self.trim_offsets,
                "use_regex": self.use_regex}


class TemplateProcessing(PostProcessor):
    """Templates such as ``$A`` / ``<s> $A </s> $B:1 </s>:1`` as ``tokenizer.json`` spells them."""

    def __init__(self, single: list[dict[str, Any]], pair: list[dict[str, Any]], special_tokens: dict[str, dict[str, Any]]) -> None:
        self.single, self.pair, self.special_tokens = single, pair, special_tokens
        for template in (single, pair):
            for item in template:
                if "SpecialToken" in item and item["SpecialToken"]["id"] not in special_tokens:
                    raise VocabFormatError(
                        f"post_processor: the template names {item['SpecialToken']['id']!r}, which special_tokens does not define"
                    )

    def _specials_in(self, template: list[dict[str, Any]]) -> int:
        return sum(len(self.special_tokens[item["SpecialToken"]["id"]]["ids"]) for item in template if "SpecialToken" in item)

    def added_tokens(self, is_pair: bool) -> int:
        return self._specials_in(self.pair if is_pair else self.single)

    def process(self, first: Piecewise, second: Piecewise | None, add_special_tokens: bool) -> Piecewise:
        if not add_special_tokens:
            out = Piecewise()
            out.extend(first, type_id=self._type_of("A", self.single))
            if second is not None:
                out.extend(second, type_id=self._type_of("B", self.pair))
            return out
        template = self.pair if second is not None else self.single
        out = Piecewise()
        for item in template:
            if "Sequence" in item:
                which, type_id = item["Sequence"]["id"], item["Sequence"].get("type_id", 0)
                seq = first if which == "A" else second
                if seq is not None:
                    out.extend(seq, type_id=type_id)
            else:
                spec = self.special_tokens[item["SpecialToken"]["id"]]
                out.add_special(list(spec["ids"]), list(spec["tokens"]), item["SpecialToken"].get("type_id", 0))
        return out

    @staticmethod
    def _type_of(which: str, template: list[dict[str, Any]]) -> int:
        for item in template:
            if "Sequence" in item and item["Sequence"]["id"] == which:
                return int(item["Sequence"].get("type_id", 0))
        return 0

    def to_json(self) -> dict[str, Any]:
        return {"type": "TemplateProcessing", "single": self.single, "pair": self.pair, "special_tokens": self.special_tokens}


class BertProcessing(PostProcessor):
    """``[CLS] A [SEP]`` and ``[CLS] A [SEP] B [SEP]`` (type id 1 from B on)."""

    def __init__(self, sep: tuple[str, int], cls: tuple[str, int]) -> None:
        self.sep, self.cls = sep, cls

    def added_tokens(self, is_pair: bool) -> int:
        return 3 if is_pair else 2

    def process(self, first: Piecewise, second: Piecewise | None, add_special_tokens: bool) -> Piecewise:
        if not add_special_tokens:
            return super().process(first, second, add_special_tokens)
        out = Piecewise()
        out.add_special([self.cls[1]], [self.cls[0]], 0)
        out.extend(first, type_id=0)
        out.add_special([self.sep[1]], [self.sep[0]], 0)
        if second is not None:
            out.extend(second, type_id=1)
            out.add_special([self.sep[1]], [self.sep[0]], 1)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"type": "BertProcessing", "sep": list(self.sep), "cls": list(self.cls)}


class RobertaProcessing(PostProcessor):
    """``<s> A </s>`` and ``<s> A </s></s> B </s>``; may trim byte-level offsets."""

    def __init__(self, sep: tuple[str, int], cls: tuple[str, int], trim_offsets: bool = True, add_prefix_space: bool = True) -> None:
        self.sep, self.cls, self.trim_offsets, self.add_prefix_space = sep, cls, trim_offsets, add_prefix_space

    def added_tokens(self, is_pair: bool) -> int:
        return 4 if is_pair else 2

    def process(self, first: Piecewise, second: Piecewise | None, add_special_tokens: bool) -> Piecewise:
        if self.trim_offsets:
            for seq in (first, second):
                if seq is not None:
                    trim_byte_level_offsets(seq, self.add_prefix_space)
        out = Piecewise()
        if not add_special_tokens:  # RoBERTa has no type ids: every token is 0, a pair's too
            out.extend(first, type_id=0)
            if second is not None:
                out.extend(second, type_id=0)
            return out
        out.add_special([self.cls[1]], [self.cls[0]], 0)
        out.extend(first, type_id=0)
        out.add_special([self.sep[1]], [self.sep[0]], 0)
        if second is not None:
            out.add_special([self.sep[1]], [self.sep[0]], 0)
            out.extend(second, type_id=0)
            out.add_special([self.sep[1]], [self.sep[0]], 0)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"type": "RobertaProcessing", "sep": list(self.sep), "cls": list(self.cls),
                "trim_offsets": self.trim_offsets, "add_prefix_space": self.add_prefix_space}


class Sequence(PostProcessor):
    """Each processor in turn (special tokens added once, by the step that adds them)."""

    def __init__(self, steps: list[PostProcessor]) -> None:
        self.steps = steps

    def added_tokens(self, is_pair: bool) -> int:
        return sum(step.added_tokens(is_pair) for step in self.steps)

    def process(self, first: Piecewise, second: Piecewise | None, add_special_tokens: bool) -> Piecewise:
        if not self.steps:
            return super().process(first, second, add_special_tokens)
        seqs = [first, second]
        for step in self.steps[:-1]:
            for seq in seqs:
                if seq is not None and isinstance(step, ByteLevel) and step.trim_offsets:
                    trim_byte_level_offsets(seq, step.add_prefix_space)
        return self.steps[-1].process(first, second, add_special_tokens)

    def to_json(self) -> dict[str, Any]:
        return {"type": "Sequence", "processors": [step.to_json() for step in self.steps]}


def _pair(value: Any, where: str) -> tuple[str, int]:
    if isinstance(value, (list, tuple)) and len(value) == 2 and isinstance(value[0], str) and isinstance(value[1], int):
        return value[0], value[1]
    raise VocabFormatError(f"{where}: expected [token, id], got {value!r}")


_FACTORIES: dict[str, Callable[[dict[str, Any], str], PostProcessor]] = {
    "ByteLevel": lambda o, w: ByteLevel(o.get("add_prefix_space", True), o.get("trim_offsets", True), o.get("use_regex", True)),
    "TemplateProcessing": lambda o, w: TemplateProcessing(o.get("single", []), o.get("pair", []), o.get("special_tokens", {})),
    "BertProcessing": lambda o, w: BertProcessing(_pair(o.get("sep"), w + ".sep"), _pair(o.get("cls"), w + ".cls")),
    "RobertaProcessing": lambda o, w: RobertaProcessing(
        _pair(o.get("sep"), w + ".sep"), _pair(o.get("cls"), w + ".cls"), o.get("trim_offsets", True), o.get("add_prefix_space", True)
    ),
    "Sequence": lambda o, w: Sequence(
        [p for i, step in enumerate(o.get("processors", [])) if (p := post_processor_from_json(step, f"{w}.processors[{i}]"))]
    ),
}


def post_processor_from_json(obj: dict[str, Any] | None, where: str = "post_processor") -> PostProcessor | None:
    """The post-processor a ``tokenizer.json`` describes (None for ``null``)."""
    return build(obj, where, "post-processor", _FACTORIES)
