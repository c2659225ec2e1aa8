"""A SentencePiece ``.model`` as the ``tokenizer.json`` transformers builds from it, for
``Tokenizer.from_sentencepiece``.

Why transformers' form: a user who loads a lone ``.model`` with ``AutoTokenizer`` gets the tokenizer
of ``SpmConverter.build_tokenizer_from_spm_proto`` (transformers 5): the model (Unigram with the
pieces' scores; or BPE whose merges are every split of a normal piece into two normal pieces,
ranked by the piece's score, then id), the normalizer in sentencepiece's order (the compiled map as
``Precompiled``, spaces trimmed and collapsed, ``▁`` for space, the dummy prefix doubled where
the text already starts with one), a Metaspace pre-tokenizer without splitting, user-defined pieces
isolated by a ``Split``, and the decoder back. ``SentencePieceProcessor`` runs sentencepiece's own
rules instead; the two agree on ids for ordinary text.

>>> from ..formats.sentencepiece_model import ModelProto, Piece
>>> proto = ModelProto([Piece("<unk>", 0, 2), Piece("▁a", -1.0), Piece("▁", -2.0), Piece("a", -3.0)])
>>> data = tokenizer_json(proto)
>>> data["model"]["type"], data["pre_tokenizer"]["pretokenizers"][0]["type"]
('Unigram', 'Metaspace')
"""

from __future__ import annotations

import base64
import re
from typing import Any

from ..formats.sentencepiece_model import BPE, NORMAL, USER_DEFINED, ModelProto

__all__ = ["bpe_merges", "tokenizer_json"]


def bpe_merges(proto: ModelProto) -> list[list[str]]:
    """The merges transformers derives from a BPE ``.model``'s scores (a merge per split of a
    normal piece into two normal pieces; higher score first, then lower id)."""
    normal = {p.piece: (p.score, i) for i, p in enumerate(proto.pieces) if p.type == NORMAL}
    ranked = []
    for token, (score, token_id) in normal.items():
        for cut in range(1, len(token)):
            left, right = token[:cut], token[cut:]
            if left in normal and right in normal:
                ranked.append((-score, token_id, left, right))
    ranked.sort()
    return [[left, right] for _, _, left, right in ranked]


def tokenizer_json(proto: ModelProto, *, legacy: bool = True) -> dict[str, Any]:
    """The ``tokenizer.json`` object of ``proto`` (``legacy``: transformers' default, the dummy
    prefix on every chunk between added tokens)."""
    trainer, spec = proto.trainer, proto.normalizer
    user_defined = [p.piece for p in proto.pieces if p.type == USER_DEFINED]
    if trainer.model_type == BPE:
        model: dict[str, Any] = {
            "type": "BPE", "dropout": None, "unk_token": trainer.unk_piece, "continuing_subword_prefix": None,
            "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": trainer.byte_fallback,
            "ignore_merges": bool(user_defined), "vocab": {p.piece: i for i, p in enumerate(proto.pieces)},
            "merges": bpe_merges(proto)}
    else:
        model = {"type": "Unigram", "unk_id": trainer.unk_id, "vocab": [[p.piece, p.score] for p in proto.pieces],
                 "byte_fallback": trainer.byte_fallback}
    normalizers: list[dict[str, Any]] = []
    if spec.precompiled_charsmap:
        normalizers.append({"type": "Precompiled",
                            "precompiled_charsmap": base64.b64encode(spec.precompiled_charsmap).decode("ascii")})
    if spec.remove_extra_whitespaces:
        normalizers += [_replace({"Regex": "\\A +| +\\z"}, ""), _replace({"Regex": " {2,}"}, " ")]
    if spec.escape_whitespaces:
        normalizers.append(_replace({"String": " "}, "\u2581"))
    if spec.add_dummy_prefix and legacy:
        normalizers.append(_replace({"Regex": "\\A\u2581"}, "\u2581\u2581"))
    pre_tokenizers: list[dict[str, Any]] = []
    if spec.add_dummy_prefix:
        pre_tokenizers.append({"type": "Metaspace", "replacement": "\u2581",
                               "prepend_scheme": "always" if legacy else "first", "split": False})
    if user_defined:
        pattern = "|".join(re.escape(p) for p in sorted(user_defined, key=len, reverse=True))
        pre_tokenizers.append({"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False})
    decoders: list[dict[str, Any]] = [{"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "}]
    if trainer.byte_fallback:
        decoders.append({"type": "ByteFallback"})
    if spec.add_dummy_prefix:
        decoders += [{"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]
    elif trainer.byte_fallback:
        decoders.append({"type": "Fuse"})
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
        "normalizer": {"type": "Sequence", "normalizers": normalizers},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": pre_tokenizers} if pre_tokenizers else None,
        "post_processor": None,
        "decoder": {"type": "Sequence", "decoders": decoders},
        "model": model,
    }


def _replace(pattern: dict[str, str], content: str) -> dict[str, Any]:
    return {"type": "Replace", "pattern": pattern, "content": content}
