"""Which token plays which part (``unk_token``, ``cls_token``, ``bos_token`` ...) in a ``tokenizer.json``
that names none: what transformers' ``AutoTokenizer`` needs in ``tokenizer_config.json``.

Why: a tokenizer built, trained or loaded from a bare ``tokenizer.json`` has no config, and
transformers then leaves every special token None. The file says enough for the common cases, read
as transformers' own fast tokenizers set them:

- ``unk_token``: the model's (``unk_token``, or Unigram's ``unk_id`` piece);
- the post-processor: ``BertProcessing``'s ``cls``/``sep`` are ``cls_token``/``sep_token`` (as
  ``BertTokenizerFast``); ``RobertaProcessing``'s are ``bos_token`` = ``cls_token`` and ``eos_token``
  = ``sep_token`` (as ``RobertaTokenizerFast``); a ``TemplateProcessing`` single template's special
  token before ``$A`` is ``cls_token`` if it is spelled like ``[CLS]``, else ``bos_token``, and the one
  after ``$A`` ``sep_token`` if spelled like ``[SEP]``, else ``eos_token`` (T5's ``$A </s>``, Llama's
  ``<s> $A``);
- special added tokens with a conventional spelling, where only one has it: ``[PAD]``/``<pad>``,
  ``[MASK]``/``<mask>``, ``[UNK]``/``<unk>``, ``[CLS]``, ``[SEP]``, ``<s>``, ``</s>``.

A part already decided by an earlier rule is not changed by a later one.

>>> special_token_roles({"model": {"type": "WordPiece", "unk_token": "[UNK]"},
...     "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]},
...     "added_tokens": [{"content": c, "special": True} for c in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")]})
{'unk_token': '[UNK]', 'cls_token': '[CLS]', 'sep_token': '[SEP]', 'pad_token': '[PAD]', 'mask_token': '[MASK]'}
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["ROLES", "special_token_roles"]

ROLES = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")
"""The parts transformers' tokenizers give a single token (``additional_special_tokens`` is a list)."""

_BY_SPELLING = {"[PAD]": "pad_token", "<pad>": "pad_token", "[MASK]": "mask_token", "<mask>": "mask_token",
                "[UNK]": "unk_token", "<unk>": "unk_token", "[CLS]": "cls_token", "[SEP]": "sep_token",
                "<s>": "bos_token", "</s>": "eos_token"}


def _model_unk(model: Any) -> str | None:
    if not isinstance(model, dict):
        return None
    if isinstance(model.get("unk_token"), str) and model["unk_token"]:
        vocab = model.get("vocab")
        return model["unk_token"] if not isinstance(vocab, dict) or model["unk_token"] in vocab else None
    unk_id, vocab = model.get("unk_id"), model.get("vocab")
    if type(unk_id) is int and isinstance(vocab, list) and 0 <= unk_id < len(vocab):
        piece = vocab[unk_id]
        return piece[0] if isinstance(piece, list | tuple) and piece and isinstance(piece[0], str) else None
    return None


def _processors(obj: Any) -> Iterator[dict[str, Any]]:
    if isinstance(obj, dict):
        if obj.get("type") == "Sequence":
            for step in obj.get("processors", []):
                yield from _processors(step)
        else:
            yield obj


def _token(pair: Any) -> str | None:
    return pair[0] if isinstance(pair, list | tuple) and pair and isinstance(pair[0], str) else None


def _template_roles(single: Any) -> Iterator[tuple[str, str | None]]:
    if not isinstance(single, list):
        return
    kinds = [("seq", None) if "Sequence" in item else ("special", item.get("SpecialToken", {}).get("id"))
             for item in single if isinstance(item, dict)]
    seqs = [i for i, (kind, _) in enumerate(kinds) if kind == "seq"]
    if not seqs:
        return
    before = [token for kind, token in kinds[:seqs[0]] if kind == "special"]
    after = [token for kind, token in kinds[seqs[-1] + 1:] if kind == "special"]
    if before and isinstance(before[0], str):
        yield ("cls_token" if "cls" in before[0].lower() else "bos_token"), before[0]
    if after and isinstance(after[-1], str):
        yield ("sep_token" if "sep" in after[-1].lower() else "eos_token"), after[-1]


def special_token_roles(data: dict[str, Any]) -> dict[str, str]:
    """The parts (``ROLES``) the ``tokenizer.json`` object ``data`` gives a token, as the module says."""
    roles: dict[str, str] = {}

    def give(role: str, token: str | None) -> None:
        if token and role not in roles:
            roles[role] = token

    give("unk_token", _model_unk(data.get("model")))
    for proc in _processors(data.get("post_processor")):
        kind = proc.get("type")
        if kind == "BertProcessing":
            give("cls_token", _token(proc.get("cls")))
            give("sep_token", _token(proc.get("sep")))
        elif kind == "RobertaProcessing":
            for role in ("bos_token", "cls_token"):
                give(role, _token(proc.get("cls")))
            for role in ("eos_token", "sep_token"):
                give(role, _token(proc.get("sep")))
        elif kind == "TemplateProcessing":
            for role, token in _template_roles(proc.get("single")):
                give(role, token)
    specials = [t.get("content") for t in data.get("added_tokens", []) if isinstance(t, dict) and t.get("special")]
    for role in ROLES:
        spelled = {token for token in specials if _BY_SPELLING.get(token) == role}
        if len(spelled) == 1:
            give(role, spelled.pop())
    return roles
