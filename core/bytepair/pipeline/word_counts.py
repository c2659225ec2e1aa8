"""The words a trainer learns from: each text through the tokenizer's normalizer and pre-tokenizer,
counted, in the form HF's pre-tokenizers give them (``Ġword`` after ByteLevel, ``▁word`` after
Metaspace).

Why here: HF's ``Tokenizer.train`` counts words with the tokenizer's own stages before the trainer
sees them, so that what is learned is what ``encode`` will meet; ``Tokenizer.train`` and
``train_from_iterator`` hand these counts to a trainer object (``trainers/base.py``).

>>> from bytepair.pre_tokenizers import Whitespace
>>> word_counts(["a b a", "b!"], None, Whitespace())
{'a': 2, 'b': 2, '!': 1}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from ..text.checks import require_str

__all__ = ["word_counts"]


def word_counts(texts: Iterable[str], normalizer: Any, pre_tokenizer: Any) -> dict[str, int]:
    """Pre-tokenized string -> how often it occurs in ``texts`` (a text with no pre-tokenizer is one word)."""
    counts: Counter[str] = Counter()
    for text in texts:
        require_str(text, "each text")
        if normalizer is not None:
            text = normalizer.normalize_str(text)
        if not text:  # HF's pre-tokenizers give no word of an empty text (Metaspace's "▁" included)
            continue
        if pre_tokenizer is None:
            counts[text] += 1
            continue
        counts.update(piece for piece, _ in pre_tokenizer.pre_tokenize_str(text))
    return dict(counts)
