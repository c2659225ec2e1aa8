"""Mergeable piece counts: the one pass over the corpus that training needs.

Why apart from the merge loop: counting is where the corpus is read, so it is the part that must
run wherever the data lives (a Dask bag, a Spark job, a ``multiprocessing`` pool). Its result is a
``collections.Counter`` of pre-tokenized pieces (strings), so shards counted anywhere add up with
``+`` / ``update`` and :func:`bytepair.train_from_counts` trains from the sum. Memory grows with the
number of *distinct* pieces, never with the corpus.

``pattern`` is an encoding name (its regex: ``"gpt2"``, ``"cl100k_base"``, ``"o200k_base"``, ...)
or a regex string. The pieces are exactly those of the ``tokenizer.json`` training writes:
GPT-2's pattern (``"gpt2"``, ``"r50k_base"``, ``"p50k_base"``, ``"p50k_edit"``) is HF's
``ByteLevel(add_prefix_space=False)`` pre-tokenizer; any other is ``Split(Regex(pattern),
"isolated")`` followed by ``ByteLevel(add_prefix_space=False, use_regex=False)``, the regex read as
Oniguruma (HF's engine) reads it.

>>> count_pieces(["the cat", "the dog"], "gpt2")
Counter({'the': 2, ' cat': 1, ' dog': 1})
>>> count_pieces(["a1 b22"], r"\\d|[a-z]+| ")
Counter({'2': 2, 'a': 1, '1': 1, ' ': 1, 'b': 1})
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from ..errors import BytepairError, InvalidInputError, TrainingError
from ..data.openai import ENCODING_SPECS, R50K_PATTERN
from ..formats.rank_table import onig_pattern
from ..pre_tokenizers import GPT2_PATTERN, ByteLevel, PreTokenizer, Sequence, Split

__all__ = ["PiecePattern", "count_pieces", "resolve_pattern"]


class PiecePattern:
    """A training pattern: how text is cut into pieces, and the ``tokenizer.json`` pre-tokenizer
    that cuts it the same way."""

    def __init__(self, regex: str, *, byte_level_regex: bool, name: str | None = None) -> None:
        self.regex = regex
        """The regex the pieces come from (GPT-2's for the ByteLevel form)."""
        self.byte_level_regex = byte_level_regex
        """True: HF's ``ByteLevel(use_regex=True)`` alone; False: ``Split`` + ``ByteLevel(use_regex=False)``."""
        self.name = name
        if byte_level_regex:
            self.pre_tokenizer: PreTokenizer = ByteLevel(add_prefix_space=False)
        else:
            try:
                split = Split(regex, "isolated", is_regex=True)
            except BytepairError as exc:
                raise TrainingError(f"the pattern {regex!r} does not compile ({exc}); pass an encoding name such as "
                                    "'o200k_base' or a valid regex") from None
            self.pre_tokenizer = Sequence([split, ByteLevel(add_prefix_space=False, use_regex=False)])
        self.split: Callable[[str], list[str]] = self.pre_tokenizer.split

    def to_json(self) -> dict[str, Any]:
        """The ``pre_tokenizer`` object of the trained ``tokenizer.json`` (as HF writes it)."""
        if self.byte_level_regex:
            return {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
        return {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": self.regex}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
        ]}

    def __repr__(self) -> str:
        return f"PiecePattern({self.name or self.regex!r})"


_NAME_LIKE = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")
"""What a misspelt encoding name looks like (``cl100k``, ``GPT2``): refused rather than used as a regex."""


def resolve_pattern(pattern: str | PiecePattern) -> PiecePattern:
    """An encoding name or a regex string -> :class:`PiecePattern`.

    >>> resolve_pattern("gpt2").byte_level_regex, resolve_pattern("o200k_base").byte_level_regex
    (True, False)
    """
    if isinstance(pattern, PiecePattern):
        return pattern
    if not isinstance(pattern, str) or not pattern:
        raise TrainingError(f"pattern must be an encoding name (e.g. 'o200k_base', 'gpt2') or a regex string, not {pattern!r}")
    spec = ENCODING_SPECS.get(pattern)
    if spec is not None:
        if spec.pattern == R50K_PATTERN:
            return PiecePattern(GPT2_PATTERN, byte_level_regex=True, name=pattern)
        # Written for Oniguruma, which reads the tokenizer.json's Split: tiktoken's \p{N}{1,3}+ would
        # otherwise be a run of any length there, and every number one piece.
        return PiecePattern(onig_pattern(spec.pattern), byte_level_regex=False, name=pattern)
    if _NAME_LIKE.fullmatch(pattern):
        raise TrainingError(
            f"pattern {pattern!r} is no encoding name ({', '.join(ENCODING_SPECS)}); a regex of letters, digits, "
            "'_', '-' and '.' alone would only cut at that literal text (write it as (?:...) if that is meant)"
        )
    return PiecePattern(pattern, byte_level_regex=False)


def count_pieces(texts: Iterable[str], pattern: str | PiecePattern = "o200k_base", *,
                 on_text: Callable[[int], None] | None = None) -> Counter[str]:
    """Count the pieces of ``texts`` (any iterable of str: lines, documents, a generator over files).

    Special-token text in ``texts`` is counted as ordinary text, as HF's trainer does. (A piece with
    a lone surrogate is trained on as U+FFFD.) ``on_text(n)`` is called with the number of texts read so far
    (every 256 texts, and at the end)."""
    split = resolve_pattern(pattern).split
    return count_with(texts, split, on_text=on_text)


def count_with(texts: Iterable[str], split: Callable[[str], list[str]], *,
               on_text: Callable[[int], None] | None = None) -> Counter[str]:
    """``count_pieces`` with any splitting function (a base tokenizer's pre-tokenizer)."""
    if isinstance(texts, (str, bytes)):
        raise InvalidInputError("texts must be an iterable of str (lines, documents), not a single "
                                f"{type(texts).__name__}; wrap it in a list: [text]")
    if not isinstance(texts, Iterable):
        raise InvalidInputError(f"texts must be an iterable of str (lines, documents, a file), not {type(texts).__name__}")
    counts: Counter[str] = Counter()
    update = counts.update
    n = 0
    for n, text in enumerate(texts, 1):
        if not isinstance(text, str):
            raise InvalidInputError(f"texts[{n - 1}] is a {type(text).__name__}, not a str; decode bytes first "
                                    "(e.g. bytepair.read_utf8_chunks for files)")
        update(split(text))
        if on_text is not None and not n & 255:
            on_text(n)
    if on_text is not None:
        on_text(n)
    return counts
