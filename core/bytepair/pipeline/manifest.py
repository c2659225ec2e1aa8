"""A tokenizer's manifest: what it is, in JSON, with hashes that identify its ids.

Why: two files can hold the same tokenizer written differently (a re-saved, pretty-printed
``tokenizer.json``; an encoding as a ``.tiktoken`` file) and two look-alike files can give different
ids (a merge swapped, a pattern edited). The hashes here are taken over a canonical form that keeps
only what decides the ids, so equal hashes mean interchangeable ids and the file's layout does not
matter.

The canonical form (version 1) is UTF-8 text, one item per line, each line ending in ``\\n``::

    bytepair-canonical 1
    model <JSON>            {"byte_level": bool, "merge_rule": "token_rank"|"pair_rank"|"pair_rank_whole_piece"|"wordpiece"|"wordlevel"|"unigram", ...model options}
    normalizer <JSON>       the normalizer's JSON, or null
    pre_tokenizer <JSON>    list of pre-tokenizer steps (ByteLevel steps that only remap bytes left out)
    post_processor <JSON>   the post-processor's JSON, or null (a ByteLevel one, which adds no ids, is null)
    added <n>
    <id> <JSON>             per added/special token, by id: {"content", "lstrip", "normalized", "rstrip", "single_word", "special"}
    vocab <n>
    <id> <hex>              per model token, by id: its bytes (byte-level models) or its string's UTF-8, lowercase hex
    merges <m>
    <hex> <hex>             per merge, in rank order (token_rank models: derived, see ``TokenizerView.merges``;
                            a token merging cannot build shows all its parts)

``<JSON>`` is ``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``.
``sha256`` is the hex SHA-256 of the whole text; ``vocab_sha256`` of the lines from ``vocab <n>`` to
the last vocab line; ``merges_sha256`` of the lines from ``merges <m>`` to the end.

>>> from bytepair import get_encoding
>>> m = manifest(TokenizerView.of(get_encoding("r50k_base")))
>>> m["kind"], m["vocab_size"], m["specials"], m["merge_rule"]
('encoding', 50257, {'<|endoftext|>': 50256}, 'token_rank')
>>> m["sha256"] == get_encoding("r50k_base").manifest()["sha256"], len(m["sha256"])
(True, 64)
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..pre_tokenizers import GPT2_PATTERN
from .view import TokenizerView

__all__ = ["canonical_sections", "canonical_text", "manifest"]

CANONICAL_VERSION = 1


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_sections(view: TokenizerView) -> dict[str, str]:
    """The canonical form (see the module docstring) in its three parts: head, vocab, merges."""
    model = {"byte_level": view.byte_level, "merge_rule": view.merge_rule, **view.model_options}
    head = [
        f"bytepair-canonical {CANONICAL_VERSION}",
        f"model {_json(model)}",
        f"normalizer {_json(view.normalizer)}",
        f"pre_tokenizer {_json(view.pre_tokenizer)}",
        f"post_processor {_json(view.post_processor)}",
        f"added {len(view.added)}",
    ]
    for token in view.added:
        flags = {k: v for k, v in token.items() if k != "id"}
        head.append(f"{token['id']} {_json(flags)}")
    vocab = [f"vocab {len(view.tokens)}"]
    vocab += [f"{i} {t.hex()}" for i, t in sorted(view.tokens.items())]
    merges = [f"merges {len(view.merges)}"]
    merges += [" ".join(part.hex() for part in merge) for merge in view.merges]
    return {name: "".join(line + "\n" for line in lines) for name, lines in
            (("head", head), ("vocab", vocab), ("merges", merges))}


def canonical_text(view: TokenizerView) -> str:
    """The whole canonical form of a tokenizer's view.

    >>> from bytepair import get_encoding
    >>> canonical_text(TokenizerView.of(get_encoding("r50k_base"))).splitlines()[:2]
    ['bytepair-canonical 1', 'model {"byte_level":true,"merge_rule":"token_rank"}']
    """
    return "".join(canonical_sections(view).values())


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def manifest(view: TokenizerView) -> dict[str, Any]:
    """The manifest of a tokenizer's view (``analysis.manifest`` takes names, paths and faces too):
    a JSON-serialisable dict.

    Keys: ``name``, ``kind``, ``vocab_size`` (model tokens plus added tokens), ``model_vocab_size``,
    ``n_merges``, ``merge_rule``, ``byte_level``, ``specials`` (text -> id), ``added_tokens`` (with
    flags), ``pattern`` (the first regex of the pre-tokenizer, or None), ``pre_tokenizer``,
    ``normalizer``, ``post_processor``, ``model_options``, and ``sha256``, ``vocab_sha256``,
    ``merges_sha256``, ``canonical_version``.
    """
    sections = canonical_sections(view)
    ids = set(view.tokens) | set(view.specials.values())
    return {
        "name": view.name,
        "kind": view.kind,
        "vocab_size": len(ids),
        "model_vocab_size": len(view.tokens),
        "max_token_id": max(ids, default=-1),
        "n_merges": len(view.merges),
        "merge_rule": view.merge_rule,
        "byte_level": view.byte_level,
        "specials": dict(sorted(view.specials.items(), key=lambda kv: kv[1])),
        "added_tokens": view.added,
        "pattern": pattern_of(view),
        "pre_tokenizer": view.pre_tokenizer,
        "normalizer": view.normalizer,
        "post_processor": view.post_processor,
        "model_options": view.model_options,
        "canonical_version": CANONICAL_VERSION,
        "sha256": _sha("".join(sections.values())),
        "vocab_sha256": _sha(sections["vocab"]),
        "merges_sha256": _sha(sections["merges"]),
    }


def pattern_of(view: TokenizerView) -> str | None:
    """The first regex among the pre-tokenizer's steps (GPT-2's for a ByteLevel step with its regex)."""
    for step in view.pre_tokenizer:
        if step.get("type") == "Split" and "Regex" in step.get("pattern", {}):
            return str(step["pattern"]["Regex"])
        if step.get("type") == "ByteLevel" and step.get("use_regex", True):
            return GPT2_PATTERN
    return None

