"""Fertility: tokens per word, characters and bytes per token, per language, tokenizers side by side.

Why: the same text costs a different number of tokens in each tokenizer and each language; these
ratios are the usual way to compare tokenizers on a corpus (lower tokens per word, more characters
per token: cheaper, longer context).

Words are counted by :func:`bytepair.text.words.count_words` (re-exported here): whitespace-separated
chunks, and in scripts written without spaces (Chinese, Japanese, Thai ...) each character.

>>> count_words("Hello, world! 日本語です。ok")
8
>>> s = text_stats("Hello, world!", [15496, 11, 995, 0])
>>> s["tokens"], s["words"], s["tokens_per_word"], s["chars_per_token"], s["bytes_per_token"]
(4, 2, 2.0, 3.25, 3.25)
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import EmptyCorpusError, InputDecodeError
from ..text.words import NO_SPACE_SCRIPTS, count_words
from .load import Spec, view_of

__all__ = ["NO_SPACE_SCRIPTS", "count_words", "fertility", "read_corpus", "text_stats"]


def text_stats(text: str, ids: list[int]) -> dict[str, Any]:
    """Counts and ratios for one text and its ids (ratios None where the divisor is 0)."""
    n_bytes = len(text.encode("utf-8", "surrogatepass"))
    words = count_words(text)
    tokens = len(ids)
    return {
        "tokens": tokens, "words": words, "chars": len(text), "bytes": n_bytes,
        "tokens_per_word": _ratio(tokens, words), "chars_per_token": _ratio(len(text), tokens),
        "bytes_per_token": _ratio(n_bytes, tokens),
    }


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def read_corpus(paths: Iterable[str | os.PathLike[str]]) -> dict[str, str]:
    """Label -> text for each file (UTF-8; ``.xz`` files are decompressed); the label is the file
    name without ``.xz`` and ``.txt``. Raises :class:`EmptyCorpusError` when there is no text,
    :class:`InputDecodeError` when a file is not UTF-8."""
    corpus: dict[str, str] = {}
    for path in paths:
        name = os.path.basename(os.fspath(path))
        try:
            data = _read_bytes(path, xz=name.endswith(".xz"))
        except Exception as exc:  # OSError, or a damaged .xz (lzma.LZMAError, EOFError)
            raise EmptyCorpusError(f"cannot read corpus file {os.fspath(path)!r}: {getattr(exc, 'strerror', None) or exc}") from None
        label = name.removesuffix(".xz").removesuffix(".txt")
        try:
            corpus[label] = data.decode("utf-8")
        except UnicodeDecodeError as exc:  # refused, as `bytepair count` refuses it: a U+FFFD would skew the figures
            raise InputDecodeError(
                f"corpus file {os.fspath(path)!r}: invalid UTF-8 at byte {exc.start} ({exc.reason}); convert it to UTF-8"
            ) from None
    if not corpus or not any(t.strip() for t in corpus.values()):
        raise EmptyCorpusError("the corpus holds no text; pass one or more non-empty UTF-8 files (plain or .xz)")
    return corpus


def _read_bytes(path: str | os.PathLike[str], *, xz: bool) -> bytes:
    if xz:
        import lzma  # not loaded by default in Pyodide: only when an .xz file is read

        with lzma.open(path, "rb") as f:
            return f.read()
    with open(path, "rb") as f:
        return f.read()


def fertility(tokenizers: Iterable[Spec],
              corpus: Mapping[str, str]) -> dict[str, Any]:
    """Stats per language (corpus label) per tokenizer, plus an ``all`` row over the whole corpus.

    Returns ``{"languages": [...], "tokenizers": [names], "rows": [{"language", "tokenizer", **text_stats}]}``
    (JSON-serialisable). Ids are the tokenizer's for ordinary text (no special tokens added).
    """
    if not corpus or not any(t.strip() for t in corpus.values()):
        raise EmptyCorpusError("the corpus holds no text; pass one or more non-empty texts")
    views = [view_of(t) for t in tokenizers]
    rows = []
    for view in views:
        total = {"tokens": 0, "words": 0, "chars": 0, "bytes": 0}
        for label, text in corpus.items():
            stats = text_stats(text, view.encode_ordinary(text))
            rows.append({"language": label, "tokenizer": view.name, **stats})
            for key in total:
                total[key] += stats[key]
        rows.append({"language": "all", "tokenizer": view.name, **total,
                     "tokens_per_word": _ratio(total["tokens"], total["words"]),
                     "chars_per_token": _ratio(total["chars"], total["tokens"]),
                     "bytes_per_token": _ratio(total["bytes"], total["tokens"])})
    return {"languages": [*corpus, "all"], "tokenizers": [v.name for v in views], "rows": rows}
