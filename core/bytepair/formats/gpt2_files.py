"""GPT-2's original vocabulary files: ``encoder.json`` (token text -> id) and ``vocab.bpe`` (merges).

Why both: ``encoder.json`` gives the ids, ``vocab.bpe`` the merge order. For GPT-2 they agree (the id
of a merged token is 256 + its line in ``vocab.bpe``), and tiktoken refuses files where they do not;
so do we, because a mismatch means a corrupt or foreign pair of files.

Hugging Face names the same two files ``vocab.json`` and ``merges.txt`` (``tokenizer.model.save``)
and reads them as a vocabulary plus *pair*-ranked merges, whatever the ids: :func:`dump_bpe_files`
writes that pair and :func:`parse_bpe_files` reads it back as such (no tiktoken consistency needed).

>>> vocab_json, merges_txt = dump_bpe_files({"a": 0, "b": 1, "ab": 2}, [("a", "b")])
>>> merges_txt
b'#version: 0.2\\na b\\n'
>>> parse_bpe_files(vocab_json, merges_txt)
({'a': 0, 'b': 1, 'ab': 2}, [('a', 'b')])
"""

from __future__ import annotations

import json
import os

from ..text.byte_unicode import BYTES_IN_RANK_ORDER, visible_to_bytes
from ..errors import UnsavableError, VocabFormatError
from .tiktoken_file import check_sha256

__all__ = ["MERGES_HEADER", "dump_bpe_files", "load_gpt2_files", "parse_bpe_files", "parse_gpt2_files"]

MERGES_HEADER = "#version: 0.2"

_SPECIAL_TEXTS = ("<|endoftext|>", "<|startoftext|>")


def parse_gpt2_files(encoder_json: bytes, vocab_bpe: bytes) -> dict[bytes, int]:
    """Return mergeable ranks (token bytes -> rank) from the two files' contents."""
    try:
        encoder = json.loads(encoder_json)
        if not isinstance(encoder, dict):
            raise ValueError("top level is not an object")
        ranks = {visible_to_bytes(text): int(rank) for text, rank in encoder.items() if text not in _SPECIAL_TEXTS}
    except (ValueError, KeyError, TypeError) as exc:
        raise VocabFormatError(f"encoder.json is not GPT-2's token->id map ({exc!r})") from None

    try:
        text = vocab_bpe.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise VocabFormatError(
            f"vocab.bpe is not UTF-8 text (bad byte at offset {exc.start}); is it GPT-2's merges file, "
            "and was it downloaded completely?"
        ) from None
    # Windows line ends (a file saved or checked out with CRLF) change nothing.
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    if not lines[0].startswith("#version"):
        raise VocabFormatError("vocab.bpe does not start with a '#version' line; is it a GPT-2 merges file?")
    expected = {bytes([b]): rank for rank, b in enumerate(BYTES_IN_RANK_ORDER)}
    rank = len(expected)
    for lineno, line in enumerate(lines[1:], 2):
        if not line:
            continue
        parts = line.split(" ")
        if len(parts) != 2:
            raise VocabFormatError(f"vocab.bpe, line {lineno}: expected two tokens, got {line!r}")
        try:
            expected[visible_to_bytes(parts[0]) + visible_to_bytes(parts[1])] = rank
        except KeyError as exc:
            raise VocabFormatError(f"vocab.bpe, line {lineno}: character {exc} is outside GPT-2's byte map") from None
        rank += 1
    if expected != ranks:
        missing = len(expected.keys() - ranks.keys())
        extra = len(ranks.keys() - expected.keys())
        raise VocabFormatError(
            f"encoder.json and vocab.bpe disagree ({missing} merge(s) without an id, {extra} id(s) without "
            "a merge, or different ranks); they must come from the same GPT-2 release"
        )
    return ranks


def load_gpt2_files(
    encoder_json_path: str | os.PathLike[str],
    vocab_bpe_path: str | os.PathLike[str],
    *,
    encoder_json_hash: str | None = None,
    vocab_bpe_hash: str | None = None,
) -> dict[bytes, int]:
    """Load GPT-2's ``encoder.json`` + ``vocab.bpe`` from disk, optionally checking their sha256."""
    with open(encoder_json_path, "rb") as f:
        encoder = f.read()
    with open(vocab_bpe_path, "rb") as f:
        merges = f.read()
    check_sha256(encoder, encoder_json_hash, str(encoder_json_path))
    check_sha256(merges, vocab_bpe_hash, str(vocab_bpe_path))
    return parse_gpt2_files(encoder, merges)


def dump_bpe_files(vocab: dict[str, int], merges: list[tuple[str, str]] | list[list[str]]) -> tuple[bytes, bytes]:
    """``vocab.json`` (token -> id, in id order) and ``merges.txt`` (``#version: 0.2`` then one
    ``left right`` line per merge, by rank), as HF writes them. A merge part holding a space or a
    line break cannot be written as a line: :class:`UnsavableError` (tokenizer.json holds it)."""
    for index, pair in enumerate(merges):
        left, right = pair
        for part in (left, right):
            if not part or any(ch in part for ch in " \n\r"):
                raise UnsavableError(
                    f"merge {index} ({left!r} + {right!r}) has a part that is empty or holds a space or line "
                    "break, which merges.txt cannot hold; save as tokenizer.json (Tokenizer.save) instead"
                )
    ordered = dict(sorted(vocab.items(), key=lambda item: item[1]))
    vocab_json = json.dumps(ordered, ensure_ascii=False).encode("utf-8")
    lines = [MERGES_HEADER, *(f"{left} {right}" for left, right in merges)]
    return vocab_json, ("\n".join(lines) + "\n").encode("utf-8")


def parse_bpe_files(vocab_json: bytes, merges_txt: bytes, *, origin: str = "vocab.json + merges.txt") -> tuple[dict[str, int], list[tuple[str, str]]]:
    """The vocabulary and the merges (in rank order) of HF's ``vocab.json`` + ``merges.txt``."""
    try:
        vocab = json.loads(vocab_json)
    except (ValueError, RecursionError) as exc:
        raise VocabFormatError(f"{origin}: vocab.json is not JSON ({exc}); is it the vocabulary file?") from None
    if not isinstance(vocab, dict) or not all(type(v) is int and 0 <= v < 1 << 32 for v in vocab.values()):
        raise VocabFormatError(f"{origin}: vocab.json must be an object of token -> integer id from 0 to 2**32 - 1")
    try:
        text = merges_txt.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise VocabFormatError(f"{origin}: merges.txt is not UTF-8 (bad byte at offset {exc.start})") from None
    merges: list[tuple[str, str]] = []
    for lineno, line in enumerate(text.split("\n"), 1):
        line = line.removesuffix("\r")
        if not line or (lineno == 1 and line.startswith("#version")):
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise VocabFormatError(f"{origin}: merges.txt line {lineno} is {line[:80]!r}; each line is 'left right'")
        merges.append((parts[0], parts[1]))
    return vocab, merges
