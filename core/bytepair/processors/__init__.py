"""Post-processors of ``tokenizer.json`` files: special tokens around one sequence or a pair.

Why a stage: ``<s> A </s></s> B </s>`` (RoBERTa), ``[CLS] A [SEP] B [SEP]`` (BERT) or a template
(Llama) is the model's business, not the text's, so it is added after encoding, only when
``add_special_tokens`` asks, with ``type_ids`` telling the sequences apart. ByteLevel and RoBERTa
may also trim the spaces byte-level tokens carry from their offsets. Built by
:func:`post_processor_from_json`, the one factory of this stage.

Also here, as HF's tokenizer applies them around the post-processor: truncation before it
(``truncation.py``: the budget leaves room for the special tokens) and padding after it
(``padding.py``). ``base.py`` holds the records every step works on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..formats.component_json import build
from .base import Piecewise, PostProcessor
from .post_processors import BertProcessing, ByteLevel, RobertaProcessing, Sequence, TemplateProcessing, pair_json

__all__ = [
    "BertProcessing",
    "ByteLevel",
    "Piecewise",
    "PostProcessor",
    "RobertaProcessing",
    "Sequence",
    "TemplateProcessing",
    "post_processor_from_json",
]


_FACTORIES: dict[str, Callable[[dict[str, Any], str], PostProcessor]] = {
    "ByteLevel": lambda o, w: ByteLevel(o.get("add_prefix_space", True), o.get("trim_offsets", True), o.get("use_regex", True)),
    "TemplateProcessing": lambda o, w: TemplateProcessing(o.get("single", []), o.get("pair", []), o.get("special_tokens", {})),
    "BertProcessing": lambda o, w: BertProcessing(pair_json(o.get("sep"), w + ".sep"), pair_json(o.get("cls"), w + ".cls")),
    "RobertaProcessing": lambda o, w: RobertaProcessing(
        pair_json(o.get("sep"), w + ".sep"), pair_json(o.get("cls"), w + ".cls"), o.get("trim_offsets", True), o.get("add_prefix_space", True)
    ),
    "Sequence": lambda o, w: Sequence(
        [p for i, step in enumerate(o.get("processors", [])) if (p := post_processor_from_json(step, f"{w}.processors[{i}]"))]
    ),
}


def post_processor_from_json(obj: dict[str, Any] | None, where: str = "post_processor") -> PostProcessor | None:
    """The post-processor a ``tokenizer.json`` describes (None for ``null``)."""
    return build(obj, where, "post-processor", _FACTORIES)
