"""A compact, fast-loading form of a ``tokenizer.json`` BPE tokenizer (``.bpt``), for the browser.

Why: Llama 3's ``tokenizer.json`` is 9 MB of JSON whose 280k merges are strings to split and look
up one by one at every load. Here the merges are stored as the ids they join and make, and the
vocabulary as its tokens in id order, so loading is a decompress, a split and a few C-level maps.
Everything else (normalizer, pre-tokenizer, added tokens, post-processor, decoder, the model's
options) stays as the JSON it was. Nothing is lost: :func:`unpack_to_json` gives back an
equivalent ``tokenizer.json`` (same components, same vocabulary and merges in the same order).

Layout: ``BPT1\\n`` + zlib( header JSON ``\\n`` + tokens joined by U+0000 ``\\n`` + uint32 little-endian
triples (left id, right id, merged id) ); the header holds the sha256 of the payload that follows it
and the length of the token text (tokens may hold newlines).

>>> import json
>>> spec = {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]}}
>>> data = pack_tokenizer_json(json.dumps(spec))
>>> read_packed_tokenizer(data).model.vocab
{'a': 0, 'b': 1, 'ab': 2}
"""

from __future__ import annotations

import hashlib
import json
import sys
import zlib
from array import array
from typing import Any

from ..models.bpe.merges_model import BPEModel
from ..errors import VocabFormatError, VocabHashMismatchError
from .tokenizer_json import TokenizerParts, parts_from_json

__all__ = ["MAGIC", "pack_tokenizer_json", "read_packed_tokenizer", "unpack_to_json"]

MAGIC = b"BPT1\n"
_SEP = "\x00"


def pack_tokenizer_json(json_text: str) -> bytes:
    """The ``.bpt`` bytes of a ``tokenizer.json`` text (checked by loading it first)."""
    model = parts_from_json(json_text).model  # validates everything, and gives the ids of the merges
    if not isinstance(model, BPEModel):  # pragma: no cover - parts_from_json only makes BPE models
        raise VocabFormatError("only BPE tokenizer.json files can be packed")
    size = max(model.vocab.values(), default=-1) + 1
    tokens = [model.id_to_token(i) or "" for i in range(size)]  # "" marks an unused id (tokens are never empty)
    if any(_SEP in t for t in tokens):
        raise VocabFormatError("this vocabulary has tokens holding U+0000; keep it as tokenizer.json")
    triples = array("I")
    vocab = model.vocab
    prefix = model.continuing_subword_prefix
    for left, right in model.merges:
        body = right[len(prefix):] if prefix and right.startswith(prefix) else right
        triples.extend((vocab[left], vocab[right], vocab[left + body]))
    if sys.byteorder != "little":  # pragma: no cover
        triples.byteswap()
    source = json.loads(json_text)
    source["model"] = {k: v for k, v in source["model"].items() if k not in ("vocab", "merges")}
    merges_json = json.loads(json_text)["model"].get("merges") or [""]
    merge_style = "str" if isinstance(merges_json[0], str) else "list"
    token_text = _SEP.join(tokens).encode("utf-8", "surrogatepass")
    body = token_text + b"\n" + triples.tobytes()
    header = {"tokenizer": source, "vocab_size": size, "merges": len(model.merges), "merge_style": merge_style,
              "token_bytes": len(token_text), "sha256": hashlib.sha256(body).hexdigest()}
    return MAGIC + zlib.compress(json.dumps(header, ensure_ascii=False).encode("utf-8") + b"\n" + body, 9)


def _read(data: bytes, origin: str) -> tuple[dict[str, Any], list[str], array]:
    if not data.startswith(MAGIC):
        raise VocabFormatError(f"{origin}: not a packed tokenizer (.bpt); load a tokenizer.json with Tokenizer.from_file")
    try:
        raw = zlib.decompress(data[len(MAGIC):])
        head, body = raw.split(b"\n", 1)
        header = json.loads(head)
    except (zlib.error, ValueError) as exc:
        raise VocabFormatError(f"{origin}: the packed tokenizer is damaged ({exc}); build it again") from None
    if hashlib.sha256(body).hexdigest() != header.get("sha256"):
        raise VocabHashMismatchError(f"{origin}: the packed tokenizer's contents do not match its checksum; build it again")
    # Tokens may hold "\n" (Gemma's do): the header says where they end.
    split_at = header.get("token_bytes")
    if not isinstance(split_at, int) or not 0 <= split_at < len(body):
        raise VocabFormatError(f"{origin}: the packed tokenizer's header lacks the token length; build it again")
    token_text, merge_bytes = body[:split_at], body[split_at + 1 :]
    tokens = token_text.decode("utf-8", "surrogatepass").split(_SEP)
    triples = array("I")
    triples.frombytes(merge_bytes)
    if sys.byteorder != "little":  # pragma: no cover
        triples.byteswap()
    if len(tokens) != header["vocab_size"] or len(triples) != 3 * header["merges"]:
        raise VocabFormatError(f"{origin}: the packed tokenizer is truncated; build it again")
    return header, tokens, triples


def read_packed_tokenizer(data: bytes, *, origin: str = "packed tokenizer") -> TokenizerParts:
    """The stages of a :class:`bytepair.Tokenizer` from ``.bpt`` bytes (as fast as the vocabulary
    can be indexed; ``Tokenizer.from_buffer`` reads them)."""
    header, tokens, triples = _read(data, origin)
    vocab = dict(zip(tokens, range(len(tokens))))
    vocab.pop("", None)  # unused ids
    lefts, rights, merged = triples[0::3], triples[1::3], triples[2::3]
    get_token = tokens.__getitem__
    merges = list(zip(map(get_token, lefts), map(get_token, rights)))
    prebuilt = (list(zip(lefts, rights)), list(merged))
    return parts_from_json(header["tokenizer"], origin=origin,
                           model_parts=(vocab, merges, prebuilt, header["merge_style"] == "str"))


def unpack_to_json(data: bytes, *, origin: str = "packed tokenizer") -> str:
    """The ``tokenizer.json`` text a ``.bpt`` was made from (same components, vocabulary and merges)."""
    header, tokens, triples = _read(data, origin)
    source = header["tokenizer"]
    get_token = tokens.__getitem__
    pairs = zip(map(get_token, triples[0::3]), map(get_token, triples[1::3]))
    merges: list[Any] = [f"{a} {b}" for a, b in pairs] if header["merge_style"] == "str" else [list(p) for p in pairs]
    vocab = {token: i for i, token in enumerate(tokens) if token}
    source["model"] = {**source["model"], "vocab": vocab, "merges": merges}
    return json.dumps(source, ensure_ascii=False)

