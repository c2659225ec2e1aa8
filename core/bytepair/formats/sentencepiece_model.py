"""A SentencePiece ``.model`` file (a ``ModelProto`` message) read into plain data.

Why its own module: ``SentencePieceProcessor`` and ``Tokenizer.from_sentencepiece`` both start from
the same pieces, trainer settings and normalizer settings; this module only turns bytes into that
data (``protobuf_wire.py`` reads the wire format), with sentencepiece's defaults for fields a file
leaves out.

>>> proto = ModelProto.from_bytes(bytes([0x0A, 0x0A, 0x0A, 0x01, 0x61, 0x15, 0x00, 0x00, 0x80, 0xBF, 0x18, 0x01]))
>>> proto.pieces, proto.trainer.model_type
([Piece(piece='a', score=-1.0, type=1)], 1)
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..errors import VocabFormatError
from .protobuf_wire import as_float, as_signed, fields

__all__ = ["BPE", "BYTE", "CONTROL", "NORMAL", "UNIGRAM", "UNKNOWN", "UNUSED", "USER_DEFINED", "ModelProto",
           "NormalizerSpec", "Piece", "TrainerSpec"]

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
"""A piece's type (``ModelProto.SentencePiece.Type``)."""
UNIGRAM, BPE, WORD, CHAR = 1, 2, 3, 4
"""``TrainerSpec.model_type``."""


@dataclass
class Piece:
    piece: str
    score: float = 0.0
    type: int = NORMAL


@dataclass
class TrainerSpec:
    """The trainer settings that encoding and decoding read (the rest of the message is skipped)."""

    model_type: int = UNIGRAM
    vocab_size: int = 8000
    byte_fallback: bool = False
    treat_whitespace_as_suffix: bool = False
    split_digits: bool = False
    unk_id: int = 0
    bos_id: int = 1
    eos_id: int = 2
    pad_id: int = -1
    unk_piece: str = "<unk>"
    bos_piece: str = "<s>"
    eos_piece: str = "</s>"
    pad_piece: str = "<pad>"
    unk_surface: str = " \u2047 "


@dataclass
class NormalizerSpec:
    name: str = ""
    precompiled_charsmap: bytes = b""
    add_dummy_prefix: bool = True
    remove_extra_whitespaces: bool = True
    escape_whitespaces: bool = True
    normalization_rule_tsv: str = ""


@dataclass
class ModelProto:
    pieces: list[Piece] = field(default_factory=list)
    trainer: TrainerSpec = field(default_factory=TrainerSpec)
    normalizer: NormalizerSpec = field(default_factory=NormalizerSpec)
    denormalizer: NormalizerSpec | None = None

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> ModelProto:
        with open(path, "rb") as f:
            return cls.from_bytes(f.read(), origin=os.fspath(path))

    @classmethod
    def from_bytes(cls, data: bytes, *, origin: str = "model_proto") -> ModelProto:
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise VocabFormatError(f"{origin}: a SentencePiece model is bytes, not {type(data).__name__}")
        try:
            return _model(bytes(data))
        except VocabFormatError as exc:
            raise VocabFormatError(f"{origin}: {exc}") from None
        except (UnicodeDecodeError, ValueError, OverflowError):
            raise VocabFormatError(f"{origin}: not a SentencePiece .model file (its fields do not decode)") from None


def _model(data: bytes) -> ModelProto:
    proto = ModelProto()
    for number, value in fields(data):
        if number == 1 and isinstance(value, bytes):
            proto.pieces.append(_piece(value))
        elif number == 2 and isinstance(value, bytes):
            proto.trainer = _trainer(value)
        elif number == 3 and isinstance(value, bytes):
            proto.normalizer = _normalizer(value)
        elif number == 5 and isinstance(value, bytes):
            proto.denormalizer = _normalizer(value)
    if not proto.pieces:
        raise VocabFormatError("no pieces: not a SentencePiece .model file")
    return proto


def _piece(data: bytes) -> Piece:
    piece = Piece("")
    for number, value in fields(data):
        if number == 1:
            piece.piece = bytes(value).decode("utf-8")  # type: ignore[arg-type]
        elif number == 2:
            piece.score = as_float(value)
        elif number == 3:
            piece.type = int(value)  # type: ignore[arg-type]
    return piece


_TRAINER_INTS = {3: "model_type", 4: "vocab_size", 40: "unk_id", 41: "bos_id", 42: "eos_id", 43: "pad_id"}
_TRAINER_BOOLS = {35: "byte_fallback", 24: "treat_whitespace_as_suffix", 25: "split_digits"}
_TRAINER_STRINGS = {45: "unk_piece", 46: "bos_piece", 47: "eos_piece", 48: "pad_piece", 44: "unk_surface"}


def _trainer(data: bytes) -> TrainerSpec:
    spec = TrainerSpec()
    for number, value in fields(data):
        if number in _TRAINER_INTS:
            setattr(spec, _TRAINER_INTS[number], as_signed(value))
        elif number in _TRAINER_BOOLS:
            setattr(spec, _TRAINER_BOOLS[number], bool(value))
        elif number in _TRAINER_STRINGS:
            setattr(spec, _TRAINER_STRINGS[number], bytes(value).decode("utf-8"))  # type: ignore[arg-type]
    return spec


def _normalizer(data: bytes) -> NormalizerSpec:
    spec = NormalizerSpec()
    for number, value in fields(data):
        if number == 1:
            spec.name = bytes(value).decode("utf-8")  # type: ignore[arg-type]
        elif number == 2:
            spec.precompiled_charsmap = bytes(value)  # type: ignore[arg-type]
        elif number in (3, 4, 5):
            setattr(spec, {3: "add_dummy_prefix", 4: "remove_extra_whitespaces", 5: "escape_whitespaces"}[number], bool(value))
        elif number == 6:
            spec.normalization_rule_tsv = bytes(value).decode("utf-8")  # type: ignore[arg-type]
    return spec
