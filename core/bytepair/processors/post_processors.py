"""The post-processors of ``tokenizer.json`` files: special tokens around one sequence or a pair.

``<s> A </s></s> B </s>`` (RoBERTa), ``[CLS] A [SEP] B [SEP]`` (BERT) or a template (Llama), with
``type_ids`` telling the sequences apart; ByteLevel and RoBERTa may also trim the spaces byte-level
tokens carry from their offsets.

>>> from bytepair.processors.base import Piecewise
>>> bert = BertProcessing(("[SEP]", 102), ("[CLS]", 101))
>>> out = bert.process(Piecewise(ids=[7], tokens=["hi"], offsets=[(0, 2)], type_ids=[0], special_tokens_mask=[0],
...                              word_ids=[0], sequence_ids=[0]), None, True)
>>> out.ids, out.tokens, bert.added_tokens(True)
([101, 7, 102], ['[CLS]', 'hi', '[SEP]'], 3)
"""

from __future__ import annotations

from typing import Any

from ..errors import VocabFormatError
from .template_spec import special_tokens_spec, template_items
from .base import Piecewise, PostProcessor, Step, trim_byte_level_offsets

__all__ = ["BertProcessing", "ByteLevel", "RobertaProcessing", "Sequence", "TemplateProcessing", "pair_json",
           "is_positional", "positional_fields", "processed_ids"]


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

    def __init__(self, single: Any = "$0", pair: Any = "$A:0 $B:1", special_tokens: Any = None) -> None:
        """HF's arguments: templates as strings (``"[CLS] $A [SEP]"``) or piece lists, special tokens
        as ``(token, id)`` tuples or ``{id, ids, tokens}`` objects (``template_spec.py``)."""
        single, pair = template_items(single), template_items(pair)
        special_tokens = special_tokens_spec(special_tokens)
        self.single, self.pair, self.special_tokens = single, pair, special_tokens
        for template in (single, pair):
            for item in template:
                if "SpecialToken" in item and item["SpecialToken"]["id"] not in special_tokens:
                    raise VocabFormatError(
                        f"post_processor: the template names {item['SpecialToken']['id']!r}, which special_tokens does not define"
                    )
        self._steps = {False: self._steps_of(single), True: self._steps_of(pair)}

    def _steps_of(self, template: list[dict[str, Any]]) -> list[tuple[str | None, int, list[int], list[str]]]:
        """A template read once: ``(text, type_id, [], [])`` for a text ("A" or "B") and ``(None,
        type_id, ids, tokens)`` for a special token."""
        steps: list[tuple[str | None, int, list[int], list[str]]] = []
        for item in template:
            if "Sequence" in item:
                steps.append((item["Sequence"]["id"], item["Sequence"].get("type_id", 0), [], []))
            else:
                spec = self.special_tokens[item["SpecialToken"]["id"]]
                steps.append((None, item["SpecialToken"].get("type_id", 0), list(spec["ids"]), list(spec["tokens"])))
        return steps

    def _specials_in(self, template: list[dict[str, Any]]) -> int:
        return sum(len(self.special_tokens[item["SpecialToken"]["id"]]["ids"]) for item in template if "SpecialToken" in item)

    def added_tokens(self, is_pair: bool) -> int:
        return self._specials_in(self.pair if is_pair else self.single)

    def layout(self, is_pair: bool, add_special_tokens: bool) -> list[Step]:
        """The template of one text or of a pair, its special tokens left out without
        ``add_special_tokens`` (as HF: the texts still take the template's order and type ids)."""
        steps = self._steps[is_pair]
        return steps if add_special_tokens else [step for step in steps if step[0] is not None]

    def to_json(self) -> dict[str, Any]:
        return {"type": "TemplateProcessing", "single": self.single, "pair": self.pair, "special_tokens": self.special_tokens}


class BertProcessing(PostProcessor):
    """``[CLS] A [SEP]`` and ``[CLS] A [SEP] B [SEP]`` (type id 1 from B on)."""

    def __init__(self, sep: tuple[str, int], cls_token: tuple[str, int]) -> None:
        """HF's argument names (``cls_token``; the file's key and this attribute are ``cls``)."""
        self.sep, self.cls = tuple(sep), tuple(cls_token)

    def added_tokens(self, is_pair: bool) -> int:
        return 3 if is_pair else 2

    def layout(self, is_pair: bool, add_special_tokens: bool) -> list[Step]:
        if not add_special_tokens:
            return super().layout(is_pair, add_special_tokens)
        sep = [self.sep[1]], [self.sep[0]]
        steps: list[Step] = [(None, 0, [self.cls[1]], [self.cls[0]]), ("A", 0, [], []), (None, 0, *sep)]
        if is_pair:
            steps += [("B", 1, [], []), (None, 1, *sep)]
        return steps

    def to_json(self) -> dict[str, Any]:
        return {"type": "BertProcessing", "sep": list(self.sep), "cls": list(self.cls)}


class RobertaProcessing(PostProcessor):
    """``<s> A </s>`` and ``<s> A </s></s> B </s>``; may trim byte-level offsets."""

    def __init__(self, sep: tuple[str, int], cls_token: tuple[str, int], trim_offsets: bool = True,
                 add_prefix_space: bool = True) -> None:
        self.sep, self.cls, self.trim_offsets, self.add_prefix_space = tuple(sep), tuple(cls_token), trim_offsets, add_prefix_space

    def added_tokens(self, is_pair: bool) -> int:
        return 4 if is_pair else 2

    def process(self, first: Piecewise, second: Piecewise | None, add_special_tokens: bool) -> Piecewise:
        if self.trim_offsets:
            for seq in (first, second):
                if seq is not None:
                    trim_byte_level_offsets(seq, self.add_prefix_space)
        return super().process(first, second, add_special_tokens)

    def layout(self, is_pair: bool, add_special_tokens: bool) -> list[Step]:
        texts: list[Step] = [("A", 0, [], []), ("B", 0, [], [])]  # RoBERTa has no type ids: every token is 0, a pair's too
        if not add_special_tokens:
            return texts if is_pair else texts[:1]
        sep: Step = (None, 0, [self.sep[1]], [self.sep[0]])
        steps: list[Step] = [(None, 0, [self.cls[1]], [self.cls[0]]), texts[0], sep]
        if is_pair:
            steps += [sep, texts[1], sep]
        return steps

    def to_json(self) -> dict[str, Any]:
        return {"type": "RobertaProcessing", "sep": list(self.sep), "cls": list(self.cls),
                "trim_offsets": self.trim_offsets, "add_prefix_space": self.add_prefix_space}


class Sequence(PostProcessor):
    """Each processor in turn (special tokens added once, by the step that adds them)."""

    def __init__(self, processors: list[PostProcessor]) -> None:
        self.steps = list(processors)

    def added_tokens(self, is_pair: bool) -> int:
        return sum(step.added_tokens(is_pair) for step in self.steps)

    def layout(self, is_pair: bool, add_special_tokens: bool) -> list[Step]:
        """The last step's (the earlier ones only trim offsets)."""
        if not self.steps:
            return super().layout(is_pair, add_special_tokens)
        return self.steps[-1].layout(is_pair, add_special_tokens)

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


def pair_json(value: Any, where: str) -> tuple[str, int]:
    """A ``[token, id]`` pair of a ``tokenizer.json`` (``sep``, ``cls``)."""
    if isinstance(value, (list, tuple)) and len(value) == 2 and isinstance(value[0], str) and isinstance(value[1], int):
        return value[0], value[1]
    raise VocabFormatError(f"{where}: expected [token, id], got {value!r}")


def is_positional(processor: PostProcessor) -> bool:
    """Whether ``processor`` is one of these, whose type ids and special tokens depend on no token
    (a subclass defined elsewhere may look at the tokens)."""
    if type(processor) is Sequence:
        return all(map(is_positional, processor.steps))
    return type(processor) in (PostProcessor, ByteLevel, TemplateProcessing, BertProcessing, RobertaProcessing)


def positional_fields(processor: PostProcessor, n_first: int, n_second: int | None,
                      add_special_tokens: bool) -> dict[str, list[Any]]:
    """The type ids, special-tokens mask and sequence ids a processor ``is_positional`` gives texts
    of ``n_first`` (and ``n_second``) tokens: they depend on the counts alone, so an encoding made
    by ids can have them without its tokens (``Tokenizer.encode``).

    >>> bert = BertProcessing(("[SEP]", 102), ("[CLS]", 101))
    >>> positional_fields(bert, 2, 1, True)["type_ids"], positional_fields(bert, 2, None, True)["special_tokens_mask"]
    ([0, 0, 0, 0, 1, 1], [1, 0, 0, 1])
    """
    type_ids: list[int] = []
    mask: list[int] = []
    sequence_ids: list[int | None] = []
    for which, type_id, ids, _ in processor.layout(n_second is not None, add_special_tokens):
        if which is None:
            n = len(ids)
            type_ids += [type_id or 0] * n
            mask += [1] * n
            sequence_ids += [None] * n
            continue
        own, n = (0, n_first) if which == "A" else (1, n_second)
        if n is not None:
            type_ids += [own if type_id is None else type_id] * n
            mask += [0] * n
            sequence_ids += [own] * n
    return {"type_ids": type_ids, "special_tokens_mask": mask, "sequence_ids": sequence_ids}


def processed_ids(processor: PostProcessor | None, first: list[int], second: list[int] | None,
                  add_special_tokens: bool) -> list[int]:
    """``processor.process(...).ids`` of texts given by their ids alone (None: no processor): the
    special tokens placed by the processor's layout where it ``is_positional``, else by ``process``.

    >>> processed_ids(BertProcessing(("[SEP]", 102), ("[CLS]", 101)), [7, 8], [9], True)
    [101, 7, 8, 102, 9, 102]
    """
    if processor is None:
        return first if second is None else first + second
    if not is_positional(processor):
        return processor.process(Piecewise(ids=first), None if second is None else Piecewise(ids=second),
                                 add_special_tokens).ids
    out: list[int] = []
    for which, _, ids, _ in processor.layout(second is not None, add_special_tokens):
        if which is None:
            out += ids
        elif which == "A":
            out += first
        elif second is not None:
            out += second
    return out
