"""One read-only view of either face (``Encoding`` or ``Tokenizer``) for manifests, diffs and reports.

Why: the analysis asks the same questions of a tiktoken encoding and of a ``tokenizer.json``
(what bytes is id 42? which merges, in which order? which pattern? which special tokens?), but the
two faces store the answers differently: ranks of token bytes (merging by the rank of the merged
token, tiktoken's rule) or a vocabulary of visible strings plus a ranked list of pairs (merging by
the rank of the pair, Hugging Face's rule). A :class:`TokenizerView` holds the answers in one shape,
built only from the faces' public attributes (``analysis/load.py`` turns a name or a path into a
face first).

>>> from bytepair import get_encoding
>>> view = TokenizerView.of(get_encoding("r50k_base"))
>>> view.kind, view.merge_rule, view.tokens[31373], view.specials
('encoding', 'token_rank', b'hello', {'<|endoftext|>': 50256})
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

from ..models.bpe.merge import apply_merges
from ..text.byte_unicode import BYTE_TO_UNICODE, UNICODE_TO_BYTE
from ..formats.rank_table import merge_below
from ..models.bpe.pair_merge import pair_merge
from ..models.bpe.rank_model import RankModel

if TYPE_CHECKING:  # pragma: no cover
    from ..encoding import Encoding
    from ..tokenizer import Tokenizer

__all__ = ["TokenizerView", "is_tokenizer_face"]

Face: TypeAlias = "Encoding | Tokenizer"
_BYTE_TOKEN = re.compile(r"<0x([0-9A-Fa-f]{2})>")


def is_tokenizer_face(face: Any) -> bool:
    """Whether ``face`` has Hugging Face's API (a ``Tokenizer``) rather than tiktoken's (an ``Encoding``),
    told by the added-token method only the former has."""
    return hasattr(face, "get_added_tokens_decoder")


@dataclass
class TokenizerView:
    """What decides a tokenizer's ids, in one shape (see the module docstring)."""

    name: str
    kind: str
    """``"encoding"`` (tiktoken's API) or ``"tokenizer.json"`` (Hugging Face's)."""
    merge_rule: str
    """``"token_rank"`` (tiktoken: the pair whose merged bytes rank lowest merges first; a piece
    that is a token is that token), ``"pair_rank"`` (HF: listed pairs only, by their rank) or
    ``"pair_rank_whole_piece"`` (HF with ``ignore_merges``: a piece that is a token is that token)."""
    byte_level: bool
    tokens: dict[int, bytes]
    """Model tokens (not added/special ones): id -> bytes for byte-level models, else the token
    string's UTF-8 (``▁the``, ``<0x0A>`` stay as written)."""
    specials: dict[str, int]
    """Added and special tokens: text -> id."""
    added: list[dict[str, Any]] = field(default_factory=list)
    """Added tokens with their flags (``special``, ``normalized``, ``lstrip`` ...), by id."""
    model_options: dict[str, Any] = field(default_factory=dict)
    normalizer: Any = None
    pre_tokenizer: list[dict[str, Any]] = field(default_factory=list)
    """The pre-tokenizer's steps as JSON; ByteLevel steps that only map bytes are left out."""
    post_processor: Any = None
    face: Any = None
    _merges: list[tuple[bytes, ...]] | None = None

    # ---------------------------------------------------------------- building
    @classmethod
    def of(cls, face: Face) -> TokenizerView:
        """The view of a face (an ``Encoding`` or a ``Tokenizer``)."""
        return cls._of_tokenizer(face) if is_tokenizer_face(face) else cls._of_encoding(face)  # type: ignore[arg-type]

    @classmethod
    def _of_encoding(cls, enc: Encoding) -> TokenizerView:
        model = enc.engine.model
        assert isinstance(model, RankModel)
        specials = {text: enc.encode_single_token(text) for text in enc.special_tokens_set}
        return cls(
            name=enc.name, kind="encoding", merge_rule="token_rank", byte_level=True,
            tokens={i: t for i, t in enumerate(model.token_bytes) if t},
            specials=specials,
            added=[_added_json(text, i) for text, i in sorted(specials.items(), key=lambda kv: kv[1])],
            pre_tokenizer=[_split_json(enc.engine.pre_tokenizer.pattern)],  # type: ignore[union-attr]
            face=enc,
        )

    @classmethod
    def _of_tokenizer(cls, tok: Tokenizer) -> TokenizerView:
        added = sorted((t.to_json() for t in tok.get_added_tokens_decoder().values()), key=lambda t: t["id"])
        added_ids = {t["id"] for t in added}
        model = tok.model
        name = tok.encoding_name or "tokenizer.json"
        post = None if tok.post_processor is None else tok.post_processor.to_json()
        if isinstance(post, dict) and post.get("type") == "ByteLevel":
            post = None  # offsets only: no ids added
        common = dict(name=name, kind="tokenizer.json", specials={t["content"]: t["id"] for t in added}, added=added,
                      normalizer=None if tok.normalizer is None else tok.normalizer.to_json(),
                      pre_tokenizer=_steps(tok.pre_tokenizer), post_processor=post, face=tok)
        if isinstance(model, RankModel):
            tokens = {i: t for i, t in enumerate(model.token_bytes) if t and i not in added_ids}
            return cls(merge_rule="token_rank", byte_level=True, tokens=tokens, **common)  # type: ignore[arg-type]
        if not hasattr(model, "merges"):  # WordPiece, WordLevel, Unigram: a vocabulary and the model's own rule
            options = {k: v for k, v in model.to_json().items() if k not in ("type", *model.vocabulary_json())}
            tokens = {i: _utf8(t) for t, i in model.get_vocab().items() if i not in added_ids}
            view = cls(merge_rule=str(model.to_json()["type"]).lower(), byte_level=False, tokens=tokens,
                       model_options=options, **common)  # type: ignore[arg-type]
            view._merges = []
            return view
        byte_level = bool(model.byte_level)
        to_bytes = _visible_bytes if byte_level else _utf8
        tokens = {i: to_bytes(t) for t, i in model.vocab.items() if i not in added_ids}
        options = {"unk_token": model.unk_token, "fuse_unk": model.fuse_unk, "byte_fallback": model.byte_fallback,
                   "ignore_merges": model.ignore_merges, "dropout": model.dropout or None}
        if model.continuing_subword_prefix or model.end_of_word_suffix:  # word-piece style BPE: kept in the hash
            options.update(continuing_subword_prefix=model.continuing_subword_prefix, end_of_word_suffix=model.end_of_word_suffix)
        view = cls(merge_rule="pair_rank_whole_piece" if model.ignore_merges else "pair_rank", byte_level=byte_level,
                   tokens=tokens, model_options=options, **common)  # type: ignore[arg-type]
        view._merges = [(to_bytes(a), to_bytes(b)) for a, b in model.merges]
        return view

    # ---------------------------------------------------------------- questions
    @property
    def merges(self) -> list[tuple[bytes, ...]]:
        """Merges in rank order. For ``token_rank`` models they are derived: for each token of two or
        more bytes, in rank order, the parts that rank-greedy merging of its bytes leaves when only
        tokens of lower rank may form (two parts for any token merging can build)."""
        if self._merges is None:
            ranks = {t: i for i, t in self.tokens.items()}
            self._merges = [derive_merge(t, ranks, i) for i, t in sorted(self.tokens.items()) if len(t) > 1]
        return self._merges

    def merge_builder(self) -> Callable[[bytes], list[int]] | None:
        """``bytes -> ids`` by the model's merge rule alone: no pre-tokenizer, no whole-piece
        shortcut, no normalizer (None for models it cannot be given for)."""
        face = self.face
        if self.merge_rule == "token_rank":
            ranks = face.engine.model.ranks
            return lambda data: apply_merges(data, ranks)
        model = face.model
        if "continuing_subword_prefix" in self.model_options or self.merge_rule not in ("pair_rank", "pair_rank_whole_piece"):
            return None  # symbols depend on the position in the word, or no merges: not analysed
        if self.byte_level:
            byte_ids = [model.token_to_id(BYTE_TO_UNICODE[b]) for b in range(256)]
            if None in byte_ids:
                return None
            return lambda data: pair_merge([byte_ids[b] for b in data], model.table)
        get = model.vocab.get

        def chars(data: bytes) -> list[int]:
            symbols = [get(ch) for ch in data.decode("utf-8", "replace")]
            return [-1] if None in symbols else symbols  # type: ignore[return-value]

        return lambda data: pair_merge(chars(data), model.table)

    def encode_ordinary(self, text: str) -> list[int]:
        """Ids of ``text`` with special-token text taken as text and no post-processing."""
        face = self.face
        if not is_tokenizer_face(face):
            return face.encode_ordinary(text)
        return face.encode(text, add_special_tokens=False).ids

    def surface(self, token_id: int) -> bytes:
        """The text bytes a model token stands for: its bytes for byte-level models; for others
        ``▁`` read as a space and ``<0xNN>`` as that byte."""
        data = self.tokens[token_id]
        if self.byte_level:
            return data
        text = data.decode("utf-8")
        found = _BYTE_TOKEN.fullmatch(text)
        if found:
            return bytes((int(found.group(1), 16),))
        return text.replace("\u2581", " ").encode("utf-8")


def derive_merge(token: bytes, ranks: dict[bytes, int], rank: int) -> tuple[bytes, ...]:
    """The parts tiktoken's rule leaves of ``token`` when only ranks below ``rank`` may merge.

    >>> ranks = {b"a": 0, b"b": 1, b"ab": 2, b"abb": 3}
    >>> derive_merge(b"abb", ranks, 3)
    (b'ab', b'b')
    """
    return tuple(merge_below(token, ranks, rank))


def _added_json(text: str, token_id: int) -> dict[str, Any]:
    return {"id": token_id, "content": text, "single_word": False, "lstrip": False, "rstrip": False,
            "normalized": False, "special": True}


def _split_json(pattern: str) -> dict[str, Any]:
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}


def _steps(pre: Any) -> list[dict[str, Any]]:
    if pre is None:
        return []
    data = pre.to_json()
    steps = data["pretokenizers"] if data.get("type") == "Sequence" else [data]
    # A ByteLevel step without its regex and without a prefix space only shows bytes as visible
    # characters: the pieces, hence the ids, are the same without it.
    return [s for s in steps if not (s.get("type") == "ByteLevel" and not s.get("use_regex") and not s.get("add_prefix_space"))]


def _visible_bytes(token: str) -> bytes:
    try:
        return bytes(map(UNICODE_TO_BYTE.__getitem__, token))
    except KeyError:  # not in GPT-2's visible alphabet (an odd vocabulary entry): keep its UTF-8
        return token.encode("utf-8", "surrogatepass")


def _utf8(token: str) -> bytes:
    return token.encode("utf-8", "surrogatepass")

