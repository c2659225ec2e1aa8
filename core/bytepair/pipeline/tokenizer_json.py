"""Hugging Face ``tokenizer.json`` -> the stages of a :class:`bytepair.Tokenizer`, with errors that name the JSON path.

Why a strict reader: a truncated download, a file for a model kind bytepair does not read or a
hand-edited vocabulary must fail at load with the place at fault and what to do, never load into a
tokenizer that silently gives other ids. Each stage is built by its own factory
(``normalizer_from_json``, ``pre_tokenizer_from_json``, ...); this module reads the envelope, the
model, the added tokens and the truncation and padding settings, into :class:`TokenizerParts`,
which ``Tokenizer`` is made of.

>>> parts = parts_from_json('{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"]]}}')
>>> parts.model.encode_piece("ab"), parts.normalizer, parts.truncation
((2,), None, None)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..added_tokens.vocabulary import AddedToken
from ..models.bpe.merges_model import BPEModel
from ..models.unigram import unigram_from_json
from ..models.wordlevel import wordlevel_from_json
from ..models.wordpiece import wordpiece_from_json
from ..text.byte_unicode import bytes_to_visible
from ..decoders import decoder_from_json
from ..errors import InvalidInputError, UnsupportedTokenizerError, VocabFormatError
from ..normalizers import normalizer_from_json
from ..processors import PostProcessor, post_processor_from_json
from ..processors.padding import padding_from_json, padding_settings
from ..processors.truncation import truncation_from_json, truncation_settings
from ..pre_tokenizers import pre_tokenizer_from_json
from ..formats.rank_table import merges_from_ranks, onig_pattern

__all__ = ["MAX_JSON_BYTES", "MODEL_READERS", "TokenizerParts", "model_from_json", "gpt2_files_json", "parts_from_json", "rank_table_json", "renumbered_by_hf"]

MAX_JSON_BYTES = 1 << 29
"""Larger files are refused (the biggest BPE tokenizer.json files in use are ~20 MB)."""



@dataclass
class TokenizerParts:
    """Everything a ``tokenizer.json`` holds, each stage built and checked."""

    model: Any
    """The model (``models.Model``: a ``BPEModel``, or another family's model)."""
    normalizer: Any = None
    pre_tokenizer: Any = None
    post_processor: PostProcessor | None = None
    decoder: Any = None
    added_tokens: list[AddedToken] = field(default_factory=list)
    source: dict[str, Any] = field(default_factory=dict)
    """The JSON it was read from, without the model's vocabulary and merges (the model holds those,
    and ``Tokenizer.to_str`` writes them back from it): written back by ``Tokenizer.to_str``."""
    truncation: dict[str, Any] | None = None
    """Checked settings (``processors/truncation.py``), or None."""
    padding: dict[str, Any] | None = None
    """Checked settings (``processors/padding.py``), or None."""


def parts_from_json(text: str | dict[str, Any], *, origin: str = "tokenizer.json", model_parts: Any = None) -> TokenizerParts:
    """The stages of a ``tokenizer.json`` text (or its parsed object).

    ``model_parts``: ``(vocab, merges, merge ids, merges as text)`` given apart from the JSON (a packed
    tokenizer)."""
    data = _parse(text, origin) if isinstance(text, str) else text
    if not isinstance(data, dict):
        raise VocabFormatError(f"{origin}: the top level must be a JSON object, not {type(data).__name__}")
    model_json = data.get("model")
    if not isinstance(model_json, dict):
        raise VocabFormatError(f"{origin}: \"model\" is missing or not an object; is this a tokenizer.json?")
    pre_tokenizer = pre_tokenizer_from_json(data.get("pre_tokenizer"))
    model = _model(model_json, origin, byte_level=bool(pre_tokenizer and pre_tokenizer.byte_level), parts=model_parts)
    added = _added_tokens(data.get("added_tokens", []), model, origin)
    post_processor = post_processor_from_json(data.get("post_processor"))
    parts = TokenizerParts(
        model,
        normalizer=normalizer_from_json(data.get("normalizer")),
        pre_tokenizer=pre_tokenizer,
        post_processor=post_processor,
        decoder=decoder_from_json(data.get("decoder")),
        added_tokens=added,
        source={**data, "model": {k: v for k, v in model_json.items() if k not in ("vocab", "merges")}},
    )
    try:
        if isinstance(data.get("truncation"), dict):
            max_length, stride, strategy, direction = truncation_from_json(data["truncation"])
            room = max_length - (0 if post_processor is None else post_processor.added_tokens(False))
            parts.truncation = truncation_settings(max_length, stride, strategy, direction, room)
        if isinstance(data.get("padding"), dict):
            parts.padding = padding_settings(*padding_from_json(data["padding"]))
    except (InvalidInputError, ValueError) as exc:
        raise VocabFormatError(f"{origin}: its truncation or padding cannot be used ({exc})") from None
    return parts


def _parse(text: str, origin: str) -> Any:
    if len(text) > MAX_JSON_BYTES:
        raise VocabFormatError(f"{origin}: {len(text) >> 20} MB is larger than any BPE tokenizer.json; is it the right file?")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        hint = " (the file ends early: it is truncated; download it again)" if exc.pos >= len(text.rstrip()) else ""
        raise VocabFormatError(f"{origin}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}{hint}") from None
    except RecursionError:
        raise VocabFormatError(f"{origin}: JSON nested too deeply to be a tokenizer.json") from None


def _model(obj: dict[str, Any], origin: str, *, byte_level: bool, parts: Any = None) -> Any:
    kind = obj.get("type", "BPE" if "merges" in obj else None)
    reader = MODEL_READERS.get(kind) if isinstance(kind, str) else None
    if reader is None:
        raise UnsupportedTokenizerError(
            f"{origin}: model.type is {kind!r}; bytepair reads {', '.join(MODEL_READERS)} models"
        )
    return reader(obj, origin, byte_level=byte_level, parts=parts)


def model_from_json(obj: dict[str, Any], *, byte_level: bool = False, origin: str = "model") -> Any:
    """A model from its ``tokenizer.json`` object (HF's ``Model.__getstate__`` gives the same),
    by the reader its ``type`` names."""
    if not isinstance(obj, dict):
        raise VocabFormatError(f"{origin}: a model must be a JSON object, not {type(obj).__name__}")
    return _model(obj, origin, byte_level=byte_level)


def _bpe_model(obj: dict[str, Any], origin: str, *, byte_level: bool, parts: Any = None) -> BPEModel:
    vocab, merge_ids = (parts[0], parts[2]) if parts is not None else (obj.get("vocab"), None)
    if parts is None and (not isinstance(vocab, dict) or min(map(_id_or_minus_one, vocab.values()), default=0) < 0):
        raise VocabFormatError(f"{origin}: model.vocab must be an object of token -> integer id from 0 to 2**32 - 1")
    if parts is not None:
        merges, as_text = parts[1], parts[3]
    else:
        raw = obj.get("merges", [])
        merges, as_text = _merges(raw, origin), bool(raw) and isinstance(raw[0], str)
    dropout = obj.get("dropout")
    if dropout is not None and not (isinstance(dropout, (int, float)) and 0.0 <= dropout <= 1.0):
        raise VocabFormatError(f"{origin}: model.dropout must be null or a number in [0, 1], not {dropout!r}")
    try:
        return BPEModel(
            vocab,
            merges,
            unk_token=obj.get("unk_token"),
            fuse_unk=bool(obj.get("fuse_unk", False)),
            byte_fallback=bool(obj.get("byte_fallback", False)),
            continuing_subword_prefix=obj.get("continuing_subword_prefix"),
            end_of_word_suffix=obj.get("end_of_word_suffix"),
            ignore_merges=bool(obj.get("ignore_merges", False)),
            dropout=dropout,
            byte_level=byte_level,
            where=f"{origin}: model",
            merge_ids=merge_ids,
            merges_as_text=as_text,
        )
    except VocabFormatError:
        raise


MAX_ID = (1 << 32) - 1
"""Ids are 32-bit: HF reads them as u32 and every result is a Uint32Array in JavaScript."""

MODEL_READERS: dict[str, Callable[..., Any]] = {
    "BPE": _bpe_model,
    "Unigram": unigram_from_json,
    "WordPiece": wordpiece_from_json,
    "WordLevel": wordlevel_from_json,
}
"""``model.type`` -> the function that builds that model from its JSON object:
``reader(obj, origin, *, byte_level, parts)`` (``parts``: a packed tokenizer's model parts, or None).
A model family adds its reader here; the reader lives beside the model (``models/<family>.py``)."""


def _id_or_minus_one(value: Any) -> int:
    return value if type(value) is int and 0 <= value <= MAX_ID else -1


def _merges(merges: Any, origin: str) -> list[tuple[str, str]] | list[list[str]]:
    """The merges as pairs, from ``"left right"`` strings or ``["left", "right"]`` lists (checked in bulk)."""
    if not isinstance(merges, list):
        raise VocabFormatError(f"{origin}: model.merges must be a list")
    if all(type(m) is str for m in merges):
        parts: list[Any] = [m.split(" ") for m in merges]
    else:
        parts = [m if isinstance(m, list) else None for m in merges]
    if None not in parts and set(map(len, parts)) <= {2}:
        return parts  # an empty or non-string part then fails the vocabulary lookup with its index
    for i, p in enumerate(parts):
        if p is None or len(p) != 2 or not (type(p[0]) is str and type(p[1]) is str and p[0] and p[1]):
            raise VocabFormatError(
                f"{origin}: model.merges[{i}] is {merges[i]!r}; each merge is \"left right\" or [\"left\", \"right\"]"
            )
    return parts


def renumbered_by_hf(vocab: Any, added: Iterable[tuple[str, int]]) -> dict[str, int]:
    """The added tokens (content -> our id) to write into the model vocabulary so that HF
    ``tokenizers`` loads every added token at our id. HF (0.23) ignores the id a file gives an added
    token: it keeps the token's vocabulary id if it has one, and numbers the others in their order
    from the vocabulary's size on. Tokens written into the vocabulary change its size, so this
    repeats until nothing moves.

    ``added``: each added token's ``(content, id)``, in the file's order.

    >>> renumbered_by_hf({"a": 0, "b": 1}, [("<s>", 2)])
    {}
    >>> renumbered_by_hf({"a": 0, "b": 1, "ab": 3}, [("<s>", 2)])   # HF would say 3
    {'<s>': 2}
    """
    if not isinstance(vocab, dict):
        return {}
    added = list(added)
    moved: dict[str, int] = {}
    while True:
        known = {**vocab, **moved}
        outside = [(content, token_id) for content, token_id in added if content not in known]
        found = {content: token_id for k, (content, token_id) in enumerate(outside) if len(known) + k != token_id}
        if not found:
            return moved
        moved.update(found)


def _added_tokens(tokens: Any, model: BPEModel, origin: str) -> list[AddedToken]:
    if not isinstance(tokens, list):
        raise VocabFormatError(f"{origin}: added_tokens must be a list")
    out: list[AddedToken] = []
    seen: dict[int, str] = {}
    numbered: dict[str, int] = {}
    size = model.get_vocab_size()
    for i, t in enumerate(tokens):
        where = f"{origin}: added_tokens[{i}]"
        if not isinstance(t, dict) or not isinstance(t.get("content"), str) or not t["content"]:
            raise VocabFormatError(f"{where}: expected an object with a non-empty \"content\"")
        token_id = t.get("id")
        if isinstance(token_id, bool) or not isinstance(token_id, int) or not 0 <= token_id <= MAX_ID:
            raise VocabFormatError(f"{where}: \"id\" must be an integer from 0 to 2**32 - 1, not {token_id!r}")
        # HF (0.23) reads no id from here: a token the vocabulary has keeps its vocabulary id, the
        # others are numbered in their order from the vocabulary's size on (a consistent file says
        # the same; Tokenizer.to_str writes files that stay so).
        own_id = model.token_to_id(t["content"])
        if own_id is not None:
            token_id = own_id
        elif t["content"] in numbered:
            token_id = numbered[t["content"]]
        else:
            token_id = numbered[t["content"]] = size + len(numbered)
        in_vocab = model.id_to_token(token_id)
        if in_vocab is not None and in_vocab != t["content"]:
            raise VocabFormatError(
                f"{where}: {t['content']!r} is numbered {token_id} (model.vocab's size, plus the added tokens before it "
                f"that it lacks, as HF numbers them), but model.vocab gives {token_id} to {in_vocab!r}; put the added "
                "token in model.vocab with its id"
            )
        if token_id in seen and seen[token_id] != t["content"]:
            raise VocabFormatError(f"{where}: id {token_id} is already the added token {seen[token_id]!r}")
        seen[token_id] = t["content"]
        out.append(
            AddedToken(
                t["content"], special=bool(t.get("special", False)), lstrip=bool(t.get("lstrip", False)),
                rstrip=bool(t.get("rstrip", False)), single_word=bool(t.get("single_word", False)),
                normalized=t.get("normalized"), id=token_id,
            )
        )
    return out


def rank_table_json(pattern: str, ranks: dict[bytes, int], special_tokens: dict[str, int]) -> dict[str, Any]:
    """A ``tokenizer.json`` that HF ``tokenizers`` encodes exactly as tiktoken encodes ``pattern`` +
    ``ranks``: the pattern written for Oniguruma, keeping matches only (``Removed`` + ``invert``:
    tiktoken drops text no alternative matches); every split of a token listed as a merge, by the
    token's rank; ``ignore_merges`` for tiktoken's whole-piece rule. The special tokens are in the
    vocabulary too (HF would otherwise give an added token the next free id, not its own); the
    caller lists them as added tokens."""
    merges = [[bytes_to_visible(left), bytes_to_visible(right)] for left, right in merges_from_ranks(ranks)]
    entries = [(rank, bytes_to_visible(token)) for token, rank in ranks.items()]
    entries += [(token_id, text) for text, token_id in special_tokens.items()]
    vocab = {token: token_id for token_id, token in sorted(entries)}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": onig_pattern(pattern)}, "behavior": "Removed", "invert": True},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
        ]},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": True,
                  "vocab": vocab, "merges": merges},
    }


def gpt2_files_json(vocab: dict[str, int], merges: list[tuple[str, str]], pattern: str | None) -> dict[str, Any]:
    """The ``tokenizer.json`` of GPT-2's two files (``vocab.json`` + ``merges.txt``), as HF's
    ``BPE.from_file`` with a ByteLevel pre-tokenizer and decoder makes it: GPT-2's split, or
    ``pattern`` (an Oniguruma regex) split first when given."""
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": pattern is None}
    pre = byte_level if pattern is None else {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}, byte_level]}
    return {
        "version": "1.0", "added_tokens": [], "normalizer": None, "pre_tokenizer": pre, "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "vocab": vocab, "merges": [list(pair) for pair in merges]},
    }
