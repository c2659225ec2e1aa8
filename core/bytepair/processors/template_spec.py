"""``TemplateProcessing``'s arguments as HF's Python constructor takes them, read into the form a
``tokenizer.json`` holds.

Why: HF code builds templates as strings (``single="[CLS] $A [SEP]"``, ``pair="[CLS] $A [SEP] $B:1
[SEP]:1"``) and special tokens as ``(token, id)`` tuples; the file spells the same things as lists of
``{"Sequence": ...}`` / ``{"SpecialToken": ...}`` objects and a map of token -> ``{id, ids, tokens}``.
One reading of each, with HF's rules: a piece is ``$A``/``$B`` (``$`` alone, or ``$N``, is A with type
id N), anything else a special token, ``:N`` sets the type id.

>>> template_items("[CLS] $A [SEP] $B:1 [SEP]:1")[3]
{'Sequence': {'id': 'B', 'type_id': 1}}
>>> special_tokens_spec([("[CLS]", 1)])
{'[CLS]': {'id': '[CLS]', 'ids': [1], 'tokens': ['[CLS]']}}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import InvalidInputError

__all__ = ["special_tokens_spec", "template_items"]


def _piece(text: str) -> dict[str, Any]:
    name, _, type_text = text.partition(":")
    if type_text and not type_text.isdigit() or text.count(":") > 1:
        raise InvalidInputError(f"cannot build a template piece from {text!r}: write $A, $B, $A:1 or TOKEN:1")
    type_id = int(type_text) if type_text else 0
    if name.startswith("$"):
        rest = name[1:]
        if rest in ("", "A", "a"):
            return {"Sequence": {"id": "A", "type_id": type_id}}
        if rest in ("B", "b"):
            return {"Sequence": {"id": "B", "type_id": type_id}}
        if rest.isdigit():
            return {"Sequence": {"id": "A", "type_id": int(rest) if not type_text else type_id}}
        raise InvalidInputError(f"cannot build a template piece from {text!r}: a sequence is $A or $B")
    return {"SpecialToken": {"id": name, "type_id": type_id}}


def template_items(spec: Any) -> list[dict[str, Any]]:
    """A template (a string of pieces, a list of piece strings, or the file's list of objects) as
    the file's list of objects."""
    if isinstance(spec, str):
        return [_piece(part) for part in spec.split(" ")]
    if isinstance(spec, list) and all(isinstance(part, str) for part in spec):
        return [_piece(part) for part in spec]
    if isinstance(spec, list) and all(isinstance(part, dict) for part in spec):
        return spec
    raise InvalidInputError(f"a template is a string such as \"[CLS] $A [SEP]\" or a list of pieces, not {type(spec).__name__}")


def special_tokens_spec(spec: Any) -> dict[str, dict[str, Any]]:
    """Special tokens (``(token, id)`` / ``(id, token)`` tuples, ``{"id", "ids", "tokens"}`` objects,
    a list or a map of them) as the file's map of token -> ``{id, ids, tokens}``."""
    if spec is None:
        return {}
    items = spec.values() if isinstance(spec, Mapping) else spec
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        if isinstance(item, Mapping) and isinstance(item.get("id"), str):
            out[item["id"]] = {"id": item["id"], "ids": list(item.get("ids", [])), "tokens": list(item.get("tokens", []))}
        elif isinstance(item, tuple | list) and len(item) == 2:
            token, token_id = item if isinstance(item[0], str) else (item[1], item[0])
            if not isinstance(token, str) or type(token_id) is not int:
                raise InvalidInputError(f"a special token is (token, id), not {item!r}")
            out[token] = {"id": token, "ids": [token_id], "tokens": [token]}
        else:
            raise InvalidInputError(f"a special token is (token, id) or {{'id', 'ids', 'tokens'}}, not {item!r}")
    return out
