"""The interface of HF-style trainer objects (``trainers.BpeTrainer``, ``WordPieceTrainer``,
``WordLevelTrainer``, ``UnigramTrainer``), which ``Tokenizer.train(files, trainer)`` and
``Tokenizer.train_from_iterator(iterator, trainer)`` drive.

Why an interface of its own: HF splits training in two. The tokenizer runs its own normalizer and
pre-tokenizer over the corpus and counts the words (the pre-tokenized strings, in the form HF's
pre-tokenizers give them: ``Ġword`` after ByteLevel, ``▁word`` after Metaspace); the trainer turns
those counts into a model of its family, with the settings it was made with. Here the same: the
``Tokenizer`` counts (``pipeline/word_counts.py``), the trainer object implements
:class:`Trainer`, and the tokenizer takes the model it returns and adds the trainer's special tokens.
A trainer gives data and models only: it never imports the faces (they sit above it).

>>> class Letters:
...     special_tokens = ["<pad>"]
...     def train_model(self, words, model):
...         return sorted({ch for word in words for ch in word})
>>> Letters().train_model({"ab": 2, "ba": 1}, None)
['a', 'b']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

__all__ = ["Trainer", "ignore_unknown"]


def ignore_unknown(options: Mapping[str, Any], trainer: str) -> None:
    """HF's trainers take any keyword and ignore (and print) those they do not know; so do these,
    with a warning naming each (``BpeTrainer(progress_format=...)`` in a ``WordPieceTrainer`` ...)."""
    import warnings

    for name in options:
        warnings.warn(f"{trainer}: ignored unknown kwargs option {name!r}", stacklevel=3)


@runtime_checkable
class Trainer(Protocol):
    """What ``Tokenizer.train`` needs of a trainer object; HF's ``trainers.Trainer`` (every trainer is
    one: ``isinstance(trainers.BpeTrainer(), trainers.Trainer)``; it cannot be made itself, as HF's).

    ``special_tokens``: the tokens the tokenizer adds as special once trained (strings or
    ``AddedToken``s), as HF's trainers carry them. ``train_model(words, model)``: the trained model,
    from ``words`` (pre-tokenized string -> count, over the whole corpus) and ``model`` (the
    tokenizer's current model: its family's settings, such as ``unk_token``, carry over as HF's do;
    a trainer of another family than the model raises ``TrainingError`` saying which it trains).
    """

    special_tokens: Sequence[Any]

    def train_model(self, words: Mapping[str, int], model: Any) -> Any: ...
