"""WordPiece (BERT and its descendants): greedy longest match from the left, ``##`` on continuations.

Why its own model: a piece becomes tokens by lookup, not by merges. As HF ``tokenizers`` 0.23.3's
``models.WordPiece``: from each position the longest vocabulary entry that matches is taken (with
``continuing_subword_prefix`` in front of every token but the word's first); if some position has no
match, or the word has more than ``max_input_chars_per_word`` characters, the whole word is the one
unknown token. A text that needs the unknown token when the vocabulary lacks it is refused.

The longest match is searched from the longest vocabulary entry down, not from the end of the word:
a candidate longer than every entry cannot match, so the result is HF's and a long word costs
``O(length x longest entry)`` lookups (:meth:`WordPiece._reference_spans` is HF's plain loop, held equal
by tests).

>>> model = WordPiece({"un": 0, "##aff": 1, "##able": 2, "[UNK]": 3})
>>> model.encode_piece("unaffable"), model.encode_piece("unknown")
((0, 1, 2), (3,))
>>> [tuple(t) for t in model.tokenize("unaffable")]
[(0, 'un', (0, 2)), (1, '##aff', (2, 5)), (2, '##able', (5, 9))]
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from functools import cached_property
from operator import itemgetter
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError, VocabFormatError
from .token import Token
from .vocabulary import VocabularyModel

__all__ = ["WordPiece", "read_vocab_txt", "wordpiece_from_json"]


class WordPiece(VocabularyModel):
    """HF's ``models.WordPiece(vocab=None, unk_token="[UNK]", max_input_chars_per_word=100,
    continuing_subword_prefix="##")``."""

    TYPE = "WordPiece"

    def __init__(self, vocab: Mapping[str, int] | None = None, unk_token: str = "[UNK]",
                 max_input_chars_per_word: int = 100, continuing_subword_prefix: str = "##", *,
                 where: str = "model") -> None:
        super().__init__(vocab, unk_token, where)
        if type(max_input_chars_per_word) is not int or max_input_chars_per_word < 0:
            raise InvalidInputError(f"max_input_chars_per_word must be an int >= 0, not {max_input_chars_per_word!r}")
        if not isinstance(continuing_subword_prefix, str):
            raise InvalidInputError(f"continuing_subword_prefix must be a string such as \"##\", not {continuing_subword_prefix!r}")
        self.max_input_chars_per_word = max_input_chars_per_word
        self.continuing_subword_prefix = continuing_subword_prefix
        self._longest = max(map(len, self.vocab), default=0)
        prefix = continuing_subword_prefix
        self._room = max((len(t) - len(prefix) for t in self.vocab if t.startswith(prefix)), default=0) if prefix \
            else self._longest
        """The most characters of a word a continuing token can hold (``##`` tokens are short)."""

    # ---------------------------------------------------------------- HF's constructors
    @staticmethod
    def read_file(vocab: str | os.PathLike[str]) -> dict[str, int]:
        """A ``vocab.txt`` (one token a line, its line number its id) as token -> id, as HF reads it."""
        return read_vocab_txt(vocab)

    @classmethod
    def from_file(cls, vocab: str | os.PathLike[str], **kwargs: Any) -> WordPiece:
        """The model of a ``vocab.txt`` (``unk_token`` and the other options as keywords)."""
        return cls(read_vocab_txt(vocab), **kwargs)

    # ---------------------------------------------------------------- encoding
    def _spans(self, word: str) -> list[tuple[int, int, int]] | None:
        """``(id, start, end)`` characters of each token of ``word``, or None if it is unknown."""
        n = len(word)
        if n > self.max_input_chars_per_word:
            return None
        get, prefix, longest = self.vocab.get, self.continuing_subword_prefix, self._longest
        spans: list[tuple[int, int, int]] = []
        end = min(n, longest)
        while end > 0:  # the first token: no prefix
            found = get(word[:end])
            if found is not None:
                spans.append((found, 0, end))
                break
            end -= 1
        else:
            return None if n else spans
        start, room = end, self._room
        while start < n:
            end = min(n, start + room)
            while end > start:
                found = get(prefix + word[start:end])
                if found is not None:
                    spans.append((found, start, end))
                    break
                end -= 1
            else:
                return None
            start = end
        return spans

    def _reference_spans(self, word: str) -> list[tuple[int, int, int]] | None:
        """``_spans`` as HF's loop writes it (each match tried from the end of the word; for tests)."""
        if len(word) > self.max_input_chars_per_word:
            return None
        spans: list[tuple[int, int, int]] = []
        start = 0
        while start < len(word):
            end = len(word)
            current = None
            while start < end:
                candidate = (self.continuing_subword_prefix if start > 0 else "") + word[start:end]
                if candidate in self.vocab:
                    current = (self.vocab[candidate], start, end)
                    break
                end -= 1
            if current is None:
                return None
            spans.append(current)
            start = end
        return spans

    def encode_piece(self, piece: str) -> tuple[int, ...]:
        """The ids of one pre-tokenized word."""
        if len(piece) <= self._longest:  # most words of a first pass are one token: found at once
            whole = self.vocab.get(piece)
            if whole is not None and len(piece) <= self.max_input_chars_per_word:
                return (whole,)
        spans = self._spans(piece)
        if spans is None:
            return (self.unk_id(),)
        return tuple(token_id for token_id, _, _ in spans)

    def tokenize(self, sequence: str) -> list[Token]:
        """HF's ``Model.tokenize``: the tokens of one word with byte offsets into it."""
        spans = self._spans(sequence)
        if spans is None:
            spans = [(self.unk_id(), 0, len(sequence))]
        return self.tokens_of(spans, sequence)

    def piece_byte_lengths(self, piece: str, ids: tuple[int, ...]) -> list[int]:
        """How many UTF-8 bytes of ``piece`` each of its ids covers: one id covers the whole word
        (a match or the unknown token); else each token's text without the prefix."""
        if len(ids) <= 1:
            return [len(piece.encode("utf-8", "surrogatepass"))] * len(ids)
        first, rest = self._byte_lengths
        return [first[ids[0]], *map(rest.__getitem__, ids[1:])]

    def token_char_widths(self) -> tuple[Mapping[int, int], Mapping[int, int]]:
        """Token id -> the characters of a word it covers as the word's first token, and as a later
        one (its text without the prefix): a word's tokens are its text in order, so their offsets
        follow from these (the pipeline's fields, ``pipeline/piece_fields.py``).

        >>> first, later = WordPiece({"un": 0, "##aff": 1, "[UNK]": 2}).token_char_widths()
        >>> first[0], later[1]
        (2, 3)
        """
        return self._char_widths

    @cached_property
    def _char_widths(self) -> tuple[dict[int, int], dict[int, int]]:
        prefix = len(self.continuing_subword_prefix)
        tokens = self._id_to_token
        return (_Memo(lambda token_id: len(tokens.get(token_id, "")),
                      lambda: dict(zip(tokens, map(len, tokens.values())))),
                _Memo(lambda token_id: len(tokens.get(token_id, "")[prefix:]),
                      lambda: dict(zip(tokens, map(len, map(itemgetter(slice(prefix, None)), tokens.values()))))))

    @cached_property
    def _byte_lengths(self) -> tuple[dict[int, int], dict[int, int]]:
        """Token id -> its UTF-8 length as a word's first token, and as a later one (without the
        prefix): filled on first use, bounded by the vocabulary."""
        prefix = len(self.continuing_subword_prefix)
        tokens = self._id_to_token

        def length(token_id: int, cut: int) -> int:
            return len(tokens.get(token_id, "")[cut:].encode("utf-8", "surrogatepass"))

        return _Memo(lambda token_id: length(token_id, 0)), _Memo(lambda token_id: length(token_id, prefix))

    # ---------------------------------------------------------------- saving
    def to_json(self) -> dict[str, Any]:
        """The ``model`` object of a ``tokenizer.json``, in HF's key order."""
        return {"type": "WordPiece", "unk_token": self.unk_token, "continuing_subword_prefix": self.continuing_subword_prefix,
                "max_input_chars_per_word": self.max_input_chars_per_word, **self.vocabulary_json()}

    def save(self, folder: str | os.PathLike[str], prefix: str | None = None) -> list[str]:
        """``vocab.txt`` (``{prefix}-vocab.txt``) in ``folder``, tokens in id order; the paths written."""
        path = Path(folder) / (f"{prefix}-vocab.txt" if prefix else "vocab.txt")
        ordered = sorted(self.vocab.items(), key=lambda item: item[1])
        path.write_text("".join(token + "\n" for token, _ in ordered), encoding="utf-8")
        return [str(path)]


class _Memo(dict[int, int]):
    """A function of a token id, remembered; after ``BULK_AFTER`` misses, filled at once from
    ``table()`` where given (a first pass over a long text reads most of a vocabulary: a call per
    id cost a text's fields 5-10%)."""

    BULK_AFTER = 256

    def __init__(self, compute: Callable[[int], int], table: Callable[[], dict[int, int]] | None = None) -> None:
        super().__init__()
        self._compute = compute
        self._table = table
        self._misses = 0

    def __missing__(self, token_id: int) -> int:
        self._misses += 1
        if self._misses == self.BULK_AFTER and self._table is not None:
            self.update(self._table())
            if token_id in self:
                return self[token_id]
        value = self[token_id] = self._compute(token_id)
        return value


def read_vocab_txt(path: str | os.PathLike[str]) -> dict[str, int]:
    """Token -> line number of a ``vocab.txt`` (trailing whitespace dropped; a repeated token keeps its
    last line, as HF's reader does)."""
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except OSError as exc:
        raise VocabFormatError(f"{path}: cannot read the vocabulary ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise VocabFormatError(f"{path}: not UTF-8 text; a vocab.txt holds one token a line") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return {line.rstrip(): index for index, line in enumerate(lines)}


def wordpiece_from_json(obj: dict[str, Any], origin: str, *, byte_level: bool = False, parts: Any = None) -> WordPiece:
    """A ``WordPiece`` from its ``tokenizer.json`` object (``pipeline/tokenizer_json.py``'s reader)."""
    max_chars = obj.get("max_input_chars_per_word", 100)
    prefix = obj.get("continuing_subword_prefix", "##")
    unk = obj.get("unk_token", "[UNK]")
    if type(max_chars) is not int or max_chars < 0 or not isinstance(prefix, str) or not isinstance(unk, str):
        raise VocabFormatError(f"{origin}: model: unk_token and continuing_subword_prefix must be strings and "
                               "max_input_chars_per_word an int >= 0")
    return WordPiece(obj.get("vocab"), unk, max_chars, prefix, where=f"{origin}: model")
