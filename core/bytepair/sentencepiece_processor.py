"""``bytepair.SentencePieceProcessor``: sentencepiece's Python class over a ``.model`` file, in pure
Python, so that ``import bytepair as spm`` runs code written for the ``sentencepiece`` package.

Why a face of its own: a ``.model`` is not a ``tokenizer.json`` - it carries sentencepiece's own
normalization (``normalizers/sentencepiece.py``), its own segmentation rules
(``models/sentencepiece.py``) and its own decoding rules, and its users call sentencepiece's names
(``encode(text, out_type=str)``, ``piece_to_id``, ``decode``). ``Tokenizer.from_sentencepiece`` gives
the HF face over the same file instead. Sampling (``enable_sampling``, ``sample_encode_as_ids``)
draws from a ``random.Random`` seeded by ``set_random_generator_seed`` (or the ``seed`` argument):
the same seed gives the same draws; sentencepiece's own draws (mt19937) are not reproduced.

>>> from .formats.sentencepiece_model import ModelProto, Piece
>>> proto = ModelProto([Piece("<unk>", 0, 2), Piece("<s>", 0, 3), Piece("</s>", 0, 3), Piece("▁", -1.0),
...                     Piece("a", -2.0), Piece("b", -2.0), Piece("▁ab", -1.5)])
>>> sp = SentencePieceProcessor(model_proto=proto)
>>> sp.encode("ab b", out_type=str), sp.decode(sp.encode("ab b"))
(['▁ab', '▁', 'b'], 'ab b')
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from random import Random
from typing import Any

from .errors import InvalidArgumentError, InvalidInputError
from .formats.sentencepiece_model import BYTE, CONTROL, UNKNOWN, UNUSED, USER_DEFINED, ModelProto
from .models.sentencepiece import SentencePieceModel
from .normalizers.sentencepiece import SPACE, SentencePieceNormalizer

__all__ = ["SentencePieceProcessor"]


class SentencePieceProcessor:
    """sentencepiece's ``SentencePieceProcessor`` (Unigram and BPE models)."""

    def __init__(self, model_file: str | os.PathLike[str] | None = None, model_proto: bytes | ModelProto | None = None,
                 *, seed: int | None = None, **_options: Any) -> None:
        self.proto: ModelProto | None = None
        self._rng = Random(seed)
        if model_file is not None or model_proto is not None:
            self.Load(model_file=model_file, model_proto=model_proto)

    # ---------------------------------------------------------------- loading
    def Load(self, model_file: str | os.PathLike[str] | None = None, model_proto: bytes | ModelProto | None = None) -> bool:
        if model_proto is not None:
            proto = model_proto if isinstance(model_proto, ModelProto) else ModelProto.from_bytes(model_proto)
        elif model_file is not None:
            proto = ModelProto.from_file(model_file)
        else:
            raise InvalidInputError("give model_file (a path) or model_proto (the file's bytes)")
        if proto.trainer.model_type not in (1, 2):
            raise InvalidArgumentError(f"model_type {proto.trainer.model_type} (WORD or CHAR) is not supported; "
                                       "bytepair reads Unigram (1) and BPE (2) .model files")
        self.proto = proto
        pieces = proto.pieces
        unk = next((i for i, p in enumerate(pieces) if p.type == UNKNOWN), proto.trainer.unk_id)
        self.model = SentencePieceModel(pieces, model_type=proto.trainer.model_type, unk_id=unk)
        self.normalizer = SentencePieceNormalizer(
            proto.normalizer, [p.piece for p in pieces if p.type == USER_DEFINED],
            treat_whitespace_as_suffix=proto.trainer.treat_whitespace_as_suffix)
        self._byte_ids = {p.piece: i for i, p in enumerate(pieces) if p.type == BYTE}
        self._byte_of = {i: int(p.piece[3:5], 16) for i, p in enumerate(pieces) if p.type == BYTE}
        return True

    load = Load

    def _loaded(self) -> ModelProto:
        if self.proto is None:
            raise InvalidInputError("no model loaded: give model_file= or model_proto= (or call Load)")
        return self.proto

    def set_random_generator_seed(self, seed: int) -> None:
        """Seeds the draws of sampling (sentencepiece's module function, here per processor)."""
        self._rng = Random(seed)

    SetRandomGeneratorSeed = set_random_generator_seed

    # ---------------------------------------------------------------- vocabulary
    def get_piece_size(self) -> int:
        return len(self._loaded().pieces)

    GetPieceSize = vocab_size = get_piece_size

    def __len__(self) -> int:
        return self.get_piece_size()

    def piece_to_id(self, piece: str | Iterable[str]) -> Any:
        if not isinstance(piece, str):
            return [self.piece_to_id(p) for p in piece]
        self._loaded()
        return self.model.piece_to_id(piece)

    PieceToId = piece_to_id

    def id_to_piece(self, token_id: int | Iterable[int]) -> Any:
        if not isinstance(token_id, int):
            return [self.id_to_piece(i) for i in token_id]
        return self._loaded().pieces[self._check_id(token_id)].piece

    IdToPiece = id_to_piece

    def get_score(self, token_id: int) -> float:
        return self._loaded().pieces[self._check_id(token_id)].score

    GetScore = get_score

    def _check_id(self, token_id: int) -> int:
        if not 0 <= token_id < self.get_piece_size():
            raise IndexError(f"piece id is out of range: {token_id} (the model has {self.get_piece_size()} pieces)")
        return token_id

    def _is(self, token_id: int, kind: int) -> bool:
        return self._loaded().pieces[self._check_id(token_id)].type == kind

    def is_unknown(self, token_id: int) -> bool:
        return self._is(token_id, UNKNOWN)

    def is_control(self, token_id: int) -> bool:
        return self._is(token_id, CONTROL)

    def is_unused(self, token_id: int) -> bool:
        return self._is(token_id, UNUSED)

    def is_byte(self, token_id: int) -> bool:
        return self._is(token_id, BYTE)

    IsUnknown, IsControl, IsUnused, IsByte = is_unknown, is_control, is_unused, is_byte

    def unk_id(self) -> int:
        return self.model.unk_id if self.proto is not None else 0

    def bos_id(self) -> int:
        return self._reserved_id(self._loaded().trainer.bos_piece, self._loaded().trainer.bos_id)

    def eos_id(self) -> int:
        return self._reserved_id(self._loaded().trainer.eos_piece, self._loaded().trainer.eos_id)

    def pad_id(self) -> int:
        return self._reserved_id(self._loaded().trainer.pad_piece, self._loaded().trainer.pad_id)

    def _reserved_id(self, piece: str, default: int) -> int:
        found = self.model.reserved.get(piece)
        return found if found is not None else (default if default < 0 else -1)

    unk_id_ = unk_id

    # ---------------------------------------------------------------- encoding
    def normalize(self, text: str) -> str:
        self._loaded()
        return self.normalizer.normalize(text)

    def _pieces(self, segments: list[tuple[str, int]]) -> list[tuple[str, int]]:
        """``PopulateSentencePieceText``: unknown runs merged, or split into byte pieces."""
        out: list[tuple[str, int]] = []
        prev_unknown = False
        byte_fallback = self._loaded().trainer.byte_fallback
        for piece, token_id in segments:
            unknown = token_id == self.model.unk_id
            if unknown and byte_fallback:
                for b in piece.encode("utf-8", "surrogatepass"):
                    name = f"<0x{b:02X}>"
                    out.append((name, self.model.piece_to_id(name)))
            elif unknown and prev_unknown:
                out[-1] = (out[-1][0] + piece, token_id)
            else:
                out.append((piece, token_id))
            prev_unknown = unknown
        return out

    def _encode_one(self, text: str, *, sampling: bool, nbest_size: int, alpha: float) -> list[tuple[str, int]]:
        normalized = self.normalize(text)
        if not sampling:
            return self._pieces(self.model.encode(normalized))
        if nbest_size > 512:
            raise InvalidArgumentError("nbest_size must be nbest_size <= 512")
        if self.model.model_type == 2 or nbest_size < 0:
            return self._pieces(self.model.sample(normalized, alpha, self._rng))
        if nbest_size in (0, 1):
            return self._pieces(self.model.encode(normalized))
        return self._pieces(self.model.sample_nbest(normalized, nbest_size, alpha, self._rng))

    def encode(self, input: str | list[str], out_type: type = int, add_bos: bool = False, add_eos: bool = False,
               reverse: bool = False, emit_unk_piece: bool = False, enable_sampling: bool = False,
               nbest_size: int = -1, alpha: float = 0.1, num_threads: int = -1) -> Any:
        """Ids (``out_type=int``) or pieces (``out_type=str``) of a text or of each of a list of texts."""
        if not isinstance(input, str):
            if isinstance(input, (list, tuple)):
                return [self.encode(t, out_type, add_bos, add_eos, reverse, emit_unk_piece, enable_sampling,
                                    nbest_size, alpha) for t in input]
            raise InvalidInputError(f"encode takes a str or a list of str, not {type(input).__name__}")
        if out_type not in (int, str):
            raise InvalidArgumentError("out_type must be int or str (serialized protos are not supported)")
        pieces = self._encode_one(input, sampling=enable_sampling, nbest_size=nbest_size, alpha=alpha)
        return self._finish(pieces, out_type, add_bos, add_eos, reverse, emit_unk_piece)

    def _finish(self, pieces: list[tuple[str, int]], out_type: type, add_bos: bool, add_eos: bool, reverse: bool,
                emit_unk_piece: bool) -> list[Any]:
        if reverse:
            pieces = pieces[::-1]
        if out_type is str:
            unk = self.id_to_piece(self.model.unk_id)
            out: list[Any] = [unk if emit_unk_piece and i == self.model.unk_id else p for p, i in pieces]
        else:
            out = [i for _, i in pieces]
        for wanted, token_id, at_end in ((add_bos, self.bos_id(), False), (add_eos, self.eos_id(), True)):
            if wanted:
                if token_id < 0:
                    raise InvalidArgumentError(f"{'eos' if at_end else 'bos'} is not defined in this model")
                item = self.id_to_piece(token_id) if out_type is str else token_id
                if at_end:
                    out.append(item)
                else:
                    out.insert(0, item)
        return out

    def encode_as_pieces(self, input: str, **kwargs: Any) -> Any:
        return self.encode(input, out_type=str, **kwargs)

    def encode_as_ids(self, input: str, **kwargs: Any) -> Any:
        return self.encode(input, out_type=int, **kwargs)

    EncodeAsPieces, EncodeAsIds, Encode = encode_as_pieces, encode_as_ids, encode

    def nbest_encode(self, input: str, nbest_size: int = 1, out_type: type = int, **kwargs: Any) -> list[list[Any]]:
        """The ``nbest_size`` best segmentations (Unigram models), best first."""
        if self._loaded().trainer.model_type != 1:
            raise InvalidArgumentError("NBestEncode is available for Unigram models only")
        paths = self.model.nbest(self.normalize(input), max(nbest_size, 1))
        return [self._finish(self._pieces(path), out_type, kwargs.get("add_bos", False), kwargs.get("add_eos", False),
                             False, kwargs.get("emit_unk_piece", False)) for path, _ in paths]

    def nbest_encode_as_ids(self, input: str, nbest_size: int = 1) -> list[list[int]]:
        return self.nbest_encode(input, nbest_size, int)

    def nbest_encode_as_pieces(self, input: str, nbest_size: int = 1) -> list[list[str]]:
        return self.nbest_encode(input, nbest_size, str)

    def sample_encode_as_ids(self, input: str, nbest_size: int = -1, alpha: float = 0.1) -> list[int]:
        return self.encode(input, int, enable_sampling=True, nbest_size=nbest_size, alpha=alpha)

    def sample_encode_as_pieces(self, input: str, nbest_size: int = -1, alpha: float = 0.1) -> list[str]:
        return self.encode(input, str, enable_sampling=True, nbest_size=nbest_size, alpha=alpha)

    NBestEncodeAsIds, NBestEncodeAsPieces = nbest_encode_as_ids, nbest_encode_as_pieces
    SampleEncodeAsIds, SampleEncodeAsPieces = sample_encode_as_ids, sample_encode_as_pieces

    # ---------------------------------------------------------------- decoding
    def decode(self, input: Any, out_type: type = str, **_options: Any) -> Any:
        """Text of ids or pieces (or of each of a list of such lists)."""
        if isinstance(input, (int, str)):
            input = [input]
        items = list(input)
        if items and isinstance(items[0], (list, tuple)):
            return [self.decode(x) for x in items]
        pieces = [self.id_to_piece(i) if isinstance(i, int) else i for i in items]
        if not all(isinstance(p, str) for p in pieces):
            raise InvalidInputError("decode takes ids (int) or pieces (str)")
        return self._decode_pieces(pieces)

    def decode_ids(self, ids: list[int]) -> str:
        return self.decode(ids)

    def decode_pieces(self, pieces: list[str]) -> str:
        return self.decode(pieces)

    Decode, DecodeIds, DecodePieces = decode, decode_ids, decode_pieces

    def _decode_one(self, piece: str, token_id: int, is_bos_ws: bool) -> tuple[str, bool]:
        proto = self._loaded()
        kind = proto.pieces[token_id].type
        if kind == CONTROL:
            return "", False
        if kind == UNKNOWN:
            return (proto.trainer.unk_surface if proto.pieces[token_id].piece == piece else piece), False
        has_bos_ws = False
        spec = proto.normalizer
        if is_bos_ws and (spec.add_dummy_prefix or spec.remove_extra_whitespaces):
            has_bos_ws = piece.startswith(SPACE)
            if has_bos_ws:
                piece = piece[1:]
            if spec.remove_extra_whitespaces:
                has_bos_ws = False
        return piece.replace(SPACE, " "), has_bos_ws

    def _decode_pieces(self, pieces: list[str]) -> str:
        text: list[str] = []
        pending = bytearray()
        is_bos_ws, bos_ws_seen = True, False
        for piece in pieces:
            token_id = self.model.piece_to_id(piece)
            if token_id in self._byte_of and self._loaded().pieces[token_id].type == BYTE:
                pending.append(self._byte_of[token_id])
                continue
            if pending:
                text.append(pending.decode("utf-8", "replace"))
                pending.clear()
            if bos_ws_seen or any(text):
                is_bos_ws = False
            decoded, bos_ws_seen = self._decode_one(piece, token_id, is_bos_ws)
            text.append(decoded)
        if pending:
            text.append(pending.decode("utf-8", "replace"))
        return "".join(text)
