"""HF ``tokenizers.models.BPE``'s own methods over a merges model: ``from_file`` / ``read_file`` of
``vocab.json`` + ``merges.txt``, ``save``, ``tokenize``, ``get_vocab``, ``get_trainer`` (a base class
of :class:`~bytepair.models.bpe.merges_model.BPEModel`).

Why apart from the model: the model is the merge engine the pipeline calls; these are the calls an HF
user makes on ``models.BPE`` by hand (building one from files, looking at how it splits a word,
writing it back), kept out of the engine's module.

>>> from bytepair.models import BPE
>>> model = BPE({"a": 0, "b": 1, "ab": 2, "c": 3}, [("a", "b")])
>>> [tuple(t) for t in model.tokenize("abc")]
[(2, 'ab', (0, 2)), (3, 'c', (2, 3))]
"""

from __future__ import annotations

import os
from itertools import accumulate
from typing import Any

from ...errors import InvalidInputError, VocabFormatError
from ...formats.atomic import settle, write_files
from ...formats.gpt2_files import dump_bpe_files, parse_bpe_files
from ..token import Token
from ..vocabulary import DEFAULT_TRAINERS

__all__ = ["BPEMethods"]


def _read(path: str | os.PathLike[str], what: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as exc:
        raise VocabFormatError(f"{os.fspath(path)}: cannot read the {what} ({exc.strerror or exc})") from None


class BPEMethods:
    """HF's ``BPE`` methods; the model gives ``vocab``, ``merges``, ``encode_piece``,
    ``piece_byte_lengths`` and ``id_to_token``."""

    vocab: dict[str, int]
    merges: list[tuple[str, str]]
    encode_piece: Any
    piece_byte_lengths: Any
    id_to_token: Any

    @staticmethod
    def read_file(vocab: str | os.PathLike[str], merges: str | os.PathLike[str]) -> tuple[dict[str, int], list[tuple[str, str]]]:
        """``(vocab, merges)`` of HF's ``vocab.json`` + ``merges.txt``. A save of the pair that was
        killed between its moves is completed first (``formats/atomic.py``), so the two files read
        are one save's, never a new ``vocab.json`` beside an old ``merges.txt``."""
        for path in {os.path.dirname(os.path.abspath(os.fspath(p))) for p in (vocab, merges)}:
            settle(path)
        return parse_bpe_files(_read(vocab, "vocabulary"), _read(merges, "merges"), origin=f"{os.fspath(vocab)} + {os.fspath(merges)}")

    @classmethod
    def from_file(cls, vocab: str | os.PathLike[str], merges: str | os.PathLike[str], **kwargs: Any) -> Any:
        """A model of ``vocab.json`` + ``merges.txt``, with HF's keyword options (``unk_token``, ...)."""
        vocab_map, merge_list = cls.read_file(vocab, merges)
        return cls(vocab_map, merge_list, **kwargs)

    def get_vocab(self) -> dict[str, int]:
        """Token -> id (a copy)."""
        return dict(self.vocab)

    def tokenize(self, sequence: str) -> list[Token]:
        """The tokens of one pre-tokenized word, with byte offsets into it, as HF's ``tokenize``."""
        if not isinstance(sequence, str):
            raise InvalidInputError(f"tokenize takes a string, not {type(sequence).__name__}")
        ids = self.encode_piece(sequence)
        ends = list(accumulate(self.piece_byte_lengths(sequence, ids)))
        return [Token(i, self.id_to_token(i) or "", (start, end)) for i, start, end in zip(ids, [0, *ends], ends)]

    def save(self, folder: str | os.PathLike[str], prefix: str | None = None) -> list[str]:
        """``vocab.json`` + ``merges.txt`` (``{prefix}-vocab.json`` ...) in ``folder``; the paths written."""
        vocab_json, merges_txt = dump_bpe_files(self.vocab, self.merges)
        names = ("vocab.json", "merges.txt") if prefix is None else (f"{prefix}-vocab.json", f"{prefix}-merges.txt")
        return write_files({os.path.join(os.fspath(folder), names[0]): vocab_json,
                            os.path.join(os.fspath(folder), names[1]): merges_txt})

    def get_trainer(self) -> Any:
        """HF's default trainer of this family (``trainers.BpeTrainer()``)."""
        make = DEFAULT_TRAINERS.get("BPE")
        if make is None:
            raise InvalidInputError("no trainer is registered for BPE; import bytepair.trainers first")
        return make()
