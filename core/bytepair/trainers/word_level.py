"""HF's ``WordLevelTrainer``: the most frequent words, as a ``WordLevel`` model's vocabulary.

Why its own module: the rule is HF ``tokenizers`` 0.23.3's and short, but exact: the special tokens
first, in order; then the words counted at least ``min_frequency`` times, most frequent first, ties by
the words' UTF-8 bytes (code point order); ``vocab_size`` entries in all. A word equal to a special
token takes its later place (HF builds the vocabulary as a map, so the later entry wins and the ids
keep a gap).

>>> trainer = WordLevelTrainer(vocab_size=3, special_tokens=["<unk>"], show_progress=False)
>>> trainer.train_model({"b": 2, "a": 2, "c": 1}, None).vocab
{'<unk>': 0, 'a': 1, 'b': 2}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import TrainingError
from ..models.vocabulary import DEFAULT_TRAINERS
from ..models.wordlevel import WordLevel
from .base import ignore_unknown
from .bpe_trainer import special_token_strings

__all__ = ["WordLevelTrainer"]


class WordLevelTrainer:
    """HF's ``trainers.WordLevelTrainer(vocab_size=30000, min_frequency=0, show_progress=True, special_tokens=[])``."""

    family = "WordLevel"

    def __init__(self, vocab_size: int = 30000, min_frequency: int = 0, show_progress: bool = True,
                 special_tokens: Sequence[Any] = (), **unknown: Any) -> None:
        ignore_unknown(unknown, "WordLevelTrainer")
        for name, value in (("vocab_size", vocab_size), ("min_frequency", min_frequency)):
            if type(value) is not int or value < 0:
                raise TrainingError(f"{name} must be an int >= 0, not {value!r}")
        self.vocab_size, self.min_frequency, self.show_progress = vocab_size, min_frequency, bool(show_progress)
        special_token_strings(special_tokens)
        self.special_tokens = list(special_tokens)

    def __repr__(self) -> str:
        return f"WordLevelTrainer(vocab_size={self.vocab_size}, min_frequency={self.min_frequency}, special_tokens={self.special_tokens!r})"

    def learn(self, words: Mapping[str, int]) -> dict[str, int]:
        """The vocabulary HF's trainer makes of ``words``."""
        ordered = sorted(words.items(), key=lambda item: (-item[1], item[0]))
        chosen = special_token_strings(self.special_tokens) + [w for w, n in ordered if n >= self.min_frequency]
        vocab: dict[str, int] = {}
        for token_id, word in enumerate(chosen[: self.vocab_size]):
            vocab.pop(word, None)
            vocab[word] = token_id
        return dict(sorted(vocab.items(), key=lambda item: item[1]))

    def train_model(self, words: Mapping[str, int], model: Any) -> WordLevel:
        """A WordLevel model of ``words``; ``model``'s ``unk_token`` carries over."""
        if model is not None and not isinstance(model, WordLevel):
            raise TrainingError(f"WordLevelTrainer trains a WordLevel model, not {type(model).__name__}; use that model's trainer")
        return WordLevel(self.learn(words), model.unk_token if model is not None else None)


DEFAULT_TRAINERS["WordLevel"] = WordLevelTrainer
