"""Which tokenizer a corpus is encoded with, how a worker gets the very same one, and how it turns a
document into ordinary ids: the parts of ``encode_corpus`` that know the two faces.

Why a module of its own: the rest of the corpus package works on ids and files only. Here:

- ``encoding=`` (a name or an ``Encoding``) or ``tokenizer=`` (a ``tokenizer.json`` path, a folder
  holding one, or a ``Tokenizer``) becomes a face, its end-of-text id (:func:`end_of_text`) and the
  smallest dtype that holds every id of its vocabulary;
- a :class:`WorkerSpec` says how a worker loads it: an OpenAI encoding by name, any other face from a
  file written beside the shards (a ``Tokenizer`` as its ``to_str()``, an ``Encoding`` pickled), once
  per worker process;
- :func:`document_ids` gives a document's ordinary ids (special-token text encoded as text), a
  plain-text file read in blocks that encode exactly on their own (bounded memory).

>>> face = resolve(encoding="gpt2")
>>> end_of_text(face), dtype_for(face)
(50256, 'uint16')
>>> [i for run in document_ids(face, "hi <|endoftext|>") for i in run]
[5303, 1279, 91, 437, 1659, 5239, 91, 29]
"""

from __future__ import annotations

import hashlib
import os
import pickle
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import chain
from typing import Any

from ..encoding import Encoding
from ..errors import InputDecodeError, InvalidInputError
from ..registry import get_encoding, is_registered
from ..pipeline.blocks import blocks_of
from ..text.reading import read_utf8_chunks
from ..tokenizer import Tokenizer
from .documents import FileDocument

__all__ = ["DEFAULT_ENCODING", "EOT_NAMES", "WorkerSpec", "document_ids", "dtype_for", "end_of_text", "identity", "load",
           "parts_of", "resolve", "worker_spec"]

DEFAULT_ENCODING = "o200k_base"
EOT_NAMES = ("<|endoftext|>", "<|end_of_text|>", "</s>", "<eos>", "<|eos|>", "<｜end▁of▁sentence｜>", "<|end|>")
"""The usual names of a vocabulary's end-of-text (document separator) token, looked for in order."""

Face = Encoding | Tokenizer


def resolve(*, encoding: str | Encoding | None = None,
            tokenizer: str | os.PathLike[str] | Tokenizer | None = None) -> Face:
    """The face ``encoding=`` or ``tokenizer=`` names (``o200k_base`` when neither is given)."""
    if encoding is not None and tokenizer is not None:
        raise InvalidInputError("give encoding= or tokenizer=, not both (command line: --encoding or --tokenizer)")
    if isinstance(tokenizer, Tokenizer):
        face: Face = tokenizer
    elif tokenizer is not None:
        path = os.fspath(tokenizer)
        if os.path.isdir(path):
            face = Tokenizer.from_pretrained(path)
        elif os.path.isfile(path):
            face = Tokenizer.from_file(path)
        else:
            raise InvalidInputError(f"tokenizer {path!r}: no such tokenizer.json file or folder")
    elif isinstance(encoding, Encoding):
        face = encoding
    else:
        face = get_encoding(DEFAULT_ENCODING if encoding is None else encoding)
    return face


_IDENTITIES: weakref.WeakKeyDictionary[Encoding, dict[str, str]] = weakref.WeakKeyDictionary()


def identity(face: Face) -> dict[str, str]:
    """``{"name", "sha256"}`` of the face's manifest (what a resumed run must match). An ``Encoding``
    cannot change, so its hash (~1 s to work out) is remembered; a ``Tokenizer`` can, so it is not."""
    known = _IDENTITIES.get(face) if isinstance(face, Encoding) else None
    if known is None:
        info = face.manifest()
        known = {"name": info["name"], "sha256": info["sha256"]}
        if isinstance(face, Encoding):
            _IDENTITIES[face] = known
    return dict(known)


def end_of_text(face: Face) -> int:
    """The id that ends each document: ``<|endoftext|>`` for the OpenAI encodings; for a tokenizer,
    the first of :data:`EOT_NAMES` its vocabulary has, and only when it has none the ``eos_token``
    its ``tokenizer_config.json`` names.

    One rule, so that a tokenizer folder and its bare ``tokenizer.json`` give the same shards: an
    instruct model's config names the end of a chat turn as ``eos_token`` (Qwen3's ``<|im_end|>``,
    Llama 3 Instruct's ``<|eot_id|>``), not the separator of pretraining documents
    (``<|endoftext|>``, ``<|end_of_text|>``), which a bare file (no config) would give."""
    if isinstance(face, Encoding):
        return face.eot_token
    names = list(EOT_NAMES)
    eos = face.special_tokens_map.get("eos_token")
    if isinstance(eos, dict):
        eos = eos.get("content")
    if isinstance(eos, str):
        names.append(eos)
    for name in names:
        token_id = face.token_to_id(name)
        if token_id is not None:
            return token_id
    raise InvalidInputError(
        f"the tokenizer has no end-of-text token (no eos_token in its tokenizer_config.json, none of "
        f"{', '.join(EOT_NAMES)}); add one first: tok.add_special_tokens(['<|endoftext|>']) and pass that tokenizer")


def dtype_for(face: Face) -> str:
    """``"uint16"`` when every id of the vocabulary fits in 16 bits, else ``"uint32"``."""
    if isinstance(face, Encoding):
        top = face.max_token_value
    else:
        top = max(face.get_vocab(with_added_tokens=True).values())
    return "uint16" if top < 1 << 16 else "uint32"


def document_ids(face: Face, document: str | FileDocument) -> Iterator[Iterable[int]]:
    """A document's ordinary ids, in runs (a plain-text file block by block)."""
    if isinstance(document, FileDocument):
        with _as_corpus_error():
            if isinstance(face, Encoding):
                yield from face.encode_stream(read_utf8_chunks(document.path), disallowed_special=())
            else:
                yield from face.encode_stream(read_utf8_chunks(document.path))
    elif isinstance(face, Encoding):
        yield face.encode_ordinary(document)
    else:
        yield chain.from_iterable(face.pipeline.id_chunks(document))


def parts_of(face: Face, document: str | FileDocument) -> Iterator[str] | None:
    """A long document's text in blocks that encode exactly on their own, as the face's
    ``stream_blocks`` cuts a stream (``pipeline/blocks.py``: where the pattern must end a piece, clear
    of special-token text), so that its parts can go to several workers; None when the face cannot cut
    (a tokenizer.json whose pipeline is not known to keep the cut points): the document stays whole.

    >>> [len(block) for block in parts_of(resolve(encoding="gpt2"), "word " * 100_000)]
    [262144, 237856]
    """
    cutter = face.block_cutter()
    if not cutter.cuts:
        return None
    return _blocks(cutter, document)


def _blocks(cutter: Any, document: str | FileDocument) -> Iterator[str]:
    with _as_corpus_error():
        yield from blocks_of(cutter, read_utf8_chunks(document.path) if isinstance(document, FileDocument) else [document])


@contextmanager
def _as_corpus_error() -> Iterator[None]:
    """A file's invalid UTF-8 error without count's ``--errors`` advice, which a corpus does not take."""
    try:
        yield
    except InputDecodeError as exc:
        message = str(exc)
        at = message.find(" Convert the file")
        raise InputDecodeError(f"{message[:at] if at > 0 else message} Convert the file to UTF-8: a corpus "
                               "document is encoded exactly as it is.") from None


@dataclass(frozen=True)
class WorkerSpec:
    """How a worker loads the face: ``("encoding", name)``, ``("tokenizer", path of a tokenizer.json)``
    or ``("pickle", path of a pickled Encoding)``; ``key`` tells loaded faces apart."""

    kind: str
    source: str
    key: str


def worker_spec(face: Face, folder: str) -> WorkerSpec:
    """A spec for ``face``, writing what a worker reads into ``folder`` when it has no name."""
    key = identity(face)["sha256"]
    if isinstance(face, Encoding) and is_registered(face):
        return WorkerSpec("encoding", face.name, key)
    if isinstance(face, Encoding):
        path, data = os.path.join(folder, "encoding.pickle"), pickle.dumps(face)
        kind = "pickle"
    else:
        path, data = os.path.join(folder, "tokenizer.json"), face.to_str().encode("utf-8")
        kind = "tokenizer"
    with open(path, "wb") as f:
        f.write(data)
    return WorkerSpec(kind, path, key + hashlib.sha256(data).hexdigest()[:16])


_LOADED: dict[str, Face] = {}


def load(spec: WorkerSpec) -> Face:
    """The face of ``spec``, loaded once per process (a ``Tokenizer`` set to encode special-token
    text as text: ``encode_special_tokens``)."""
    face = _LOADED.get(spec.key)
    if face is None:
        if spec.kind == "encoding":
            face = get_encoding(spec.source)
        elif spec.kind == "pickle":
            with open(spec.source, "rb") as f:
                face = pickle.load(f)
        else:
            face = Tokenizer.from_file(spec.source)
            face.encode_special_tokens = True
        _LOADED.clear()  # one face per worker at a time
        _LOADED[spec.key] = face
    return face
