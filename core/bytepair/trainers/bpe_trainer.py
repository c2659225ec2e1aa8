"""HF's trainer objects ``BpeTrainer`` and ``WordPieceTrainer``, over the word counts a ``Tokenizer`` gives.

Why here: ``Tokenizer(models.WordPiece(unk_token="[UNK]")).train_from_iterator(texts, trainer)`` is how
HF code trains; the tokenizer counts the words (``pipeline/word_counts.py``) and the trainer turns them
into a model. HF ``tokenizers`` 0.23.3 trains WordPiece with its BPE trainer (continuing pieces
prefixed ``##``) and converts the result; here too, and the merge loop is the one byte-level training
uses (``pair_queue.py``), so both follow HF's rules step for step. Before it, as HF:

1. the special tokens take the first ids, in order;
2. the alphabet: every character of the words, weighted by the words' counts; ``initial_alphabet``'s
   characters always kept; with ``limit_alphabet``, the least frequent dropped (words lose those
   characters); the kept ones take the next ids by code point;
3. each word becomes its characters, with ``continuing_subword_prefix`` on all but the first and
   ``end_of_word_suffix`` on the last; such a prefixed or suffixed form takes the next free id when
   first met.

HF meets the words of step 3 in its hash map's order, which changes from run to run (and so do the
ids of the ``##`` forms and the ties they decide); here they are met in the order the words were
first counted (the corpus order), and ties at ``limit_alphabet`` drop the smaller code point first.
docs/TRAINING.md says how close that is to HF's own runs.

>>> trainer = BpeTrainer(vocab_size=10, show_progress=False)
>>> model = trainer.train_model({"low": 3, "lower": 2}, None)
>>> sorted(model.vocab, key=model.vocab.get)
['e', 'l', 'o', 'r', 'w', 'lo', 'low', 'er', 'lower']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..errors import TrainingError
from ..models.bpe.merges_model import BPEModel
from ..models.vocabulary import DEFAULT_TRAINERS
from ..models.wordpiece import WordPiece
from .base import ignore_unknown
from .pair_queue import learn_merges, merge_list
from .progress import Reporter

__all__ = ["BpeTrainer", "WordPieceTrainer", "special_token_strings"]


def special_token_strings(tokens: Iterable[Any]) -> list[str]:
    """The contents of ``special_tokens`` (strings or ``AddedToken``s), checked."""
    if isinstance(tokens, str):
        raise TrainingError(f"special_tokens must be a list of strings, not one string; write [{tokens!r}]")
    out = []
    for token in tokens:
        content = token if isinstance(token, str) else getattr(token, "content", None)
        if not isinstance(content, str) or not content:
            raise TrainingError(f"each special token must be a non-empty str or AddedToken, not {token!r}")
        out.append(content)
    return out


def _count(value: Any, name: str, minimum: int) -> int:
    if type(value) is not int or value < minimum:
        raise TrainingError(f"{name} must be an int >= {minimum}, not {value!r}")
    return value


class BpeTrainer:
    """HF's ``trainers.BpeTrainer(vocab_size=30000, min_frequency=0, show_progress=True, special_tokens=[],
    limit_alphabet=None, initial_alphabet=[], continuing_subword_prefix=None, end_of_word_suffix=None,
    max_token_length=None, progress_format="indicatif")``; other keywords are ignored with a warning, as HF
    ignores them."""

    family = "BPE"

    def __init__(self, vocab_size: int = 30000, min_frequency: int = 0, show_progress: bool = True,
                 special_tokens: Sequence[Any] = (), limit_alphabet: int | None = None,
                 initial_alphabet: Sequence[str] = (), continuing_subword_prefix: str | None = None,
                 end_of_word_suffix: str | None = None, max_token_length: int | None = None,
                 progress_format: str = "indicatif", **unknown: Any) -> None:
        ignore_unknown(unknown, type(self).__name__)
        if not isinstance(progress_format, str):
            raise TrainingError(f"progress_format must be a string (\"indicatif\", \"json\", \"silent\"), not {progress_format!r}")
        self.progress_format = progress_format
        """Accepted for HF code; progress goes to tqdm or a callback here (``progress.py``)."""
        self.vocab_size = _count(vocab_size, "vocab_size", 0)
        self.min_frequency = _count(min_frequency, "min_frequency", 0)
        self.show_progress = bool(show_progress)
        special_token_strings(special_tokens)
        self.special_tokens = list(special_tokens)
        self.limit_alphabet = None if limit_alphabet is None else _count(limit_alphabet, "limit_alphabet", 0)
        if isinstance(initial_alphabet, str) or any(not isinstance(c, str) or not c for c in initial_alphabet):
            raise TrainingError("initial_alphabet must be a list of non-empty strings (the first character of each is kept)")
        self.initial_alphabet = sorted({c[0] for c in initial_alphabet})
        for name, value in (("continuing_subword_prefix", continuing_subword_prefix), ("end_of_word_suffix", end_of_word_suffix)):
            if value is not None and not isinstance(value, str):
                raise TrainingError(f"{name} must be a string or None, not {value!r}")
        self.continuing_subword_prefix = continuing_subword_prefix
        self.end_of_word_suffix = end_of_word_suffix
        self.max_token_length = None if max_token_length is None else _count(max_token_length, "max_token_length", 1)
        self._word_count = 0

    def __repr__(self) -> str:
        return (f"BpeTrainer(vocab_size={self.vocab_size}, min_frequency={self.min_frequency}, "
                f"special_tokens={self.special_tokens!r}, continuing_subword_prefix={self.continuing_subword_prefix!r})")

    def get_word_count(self) -> int:
        """HF's: how many distinct words the last training counted (0 before one)."""
        return self._word_count

    # ---------------------------------------------------------------- the steps
    def _alphabet(self, words: Mapping[str, int]) -> list[str]:
        """Step 2: the characters kept, by code point."""
        counts: dict[str, int] = {}
        for word, count in words.items():
            for ch in word:
                counts[ch] = counts.get(ch, 0) + count
        forced = float("inf")
        for ch in self.initial_alphabet:
            counts[ch] = forced  # type: ignore[assignment]
        kept = list(counts)
        if self.limit_alphabet is not None and len(kept) > self.limit_alphabet:
            kept.sort(key=lambda ch: (counts[ch], ch))
            kept = kept[len(kept) - self.limit_alphabet:]
        return sorted(kept)

    def learn(self, words: Mapping[str, int]) -> tuple[dict[int, str], list[tuple[str, str]]]:
        """The vocabulary (id -> token) and merges HF's BPE trainer learns from ``words``."""
        self._word_count = len(words)
        tokens: dict[int, str] = {}
        ids: dict[str, int] = {}

        def add(text: str) -> int:
            found = ids.get(text)
            if found is None:
                found = ids[text] = len(tokens)
                tokens[found] = text
            return found

        for text in special_token_strings(self.special_tokens):
            add(text)
        for ch in self._alphabet(words):
            add(ch)
        prefix, suffix = self.continuing_subword_prefix or "", self.end_of_word_suffix or ""
        lengths = {i: 1 for i in tokens}
        word_ids: list[list[int]] = []
        counts: list[int] = []
        for word, count in words.items():
            if count <= 0:
                continue
            symbols = []
            last = len(word) - 1
            for position, ch in enumerate(word):
                if ch not in ids:  # HF: a character dropped from the alphabet (unless a special token)
                    continue
                text = (prefix + ch if position and prefix else ch) + (suffix if position == last else "")
                token_id = add(text)
                lengths[token_id] = 1
                symbols.append(token_id)
            word_ids.append(symbols)
            counts.append(count)
        reporter = Reporter(None if self.show_progress else False, None, None)
        merges: list[tuple[int, int, int]] = []
        try:
            reporter.stage("merge", max(0, self.vocab_size - len(tokens)))
            learn_merges(word_ids, counts, tokens, vocab_size=self.vocab_size, min_frequency=self.min_frequency,
                         max_token_length=self.max_token_length, on_merge=reporter.merge_hook(merges, tokens),
                         learned=merges, continuing_subword_prefix=prefix, lengths=lengths)
        finally:
            reporter.close()
        return tokens, [(a, b) for a, b in merge_list(merges, tokens)]

    def train_model(self, words: Mapping[str, int], model: Any) -> BPEModel:
        """A BPE model trained on ``words``; the options of ``model`` (a BPE) that training does not set
        (``unk_token`` when the vocabulary has it, ``dropout``, ``fuse_unk``, ``byte_fallback``) carry over."""
        if model is not None and not isinstance(model, BPEModel):
            raise TrainingError(f"BpeTrainer trains a BPE model, not {type(model).__name__}; use that model's trainer")
        tokens, merges = self.learn(words)
        vocab = {tokens[i]: i for i in sorted(tokens)}
        unk = getattr(model, "unk_token", None)
        return BPEModel(vocab, merges, unk_token=unk if unk in vocab else None,
                        fuse_unk=bool(getattr(model, "fuse_unk", False)),
                        byte_fallback=bool(getattr(model, "byte_fallback", False)),
                        continuing_subword_prefix=self.continuing_subword_prefix,
                        end_of_word_suffix=self.end_of_word_suffix, dropout=getattr(model, "dropout", None) or None,
                        byte_level=bool(getattr(model, "byte_level", False)))


class WordPieceTrainer(BpeTrainer):
    """HF's ``trainers.WordPieceTrainer(vocab_size=30000, min_frequency=0, show_progress=True,
    special_tokens=[], limit_alphabet=None, initial_alphabet=[], continuing_subword_prefix="##",
    end_of_word_suffix=None)``: the BPE trainer's vocabulary, as a WordPiece model."""

    family = "WordPiece"

    def __init__(self, vocab_size: int = 30000, min_frequency: int = 0, show_progress: bool = True,
                 special_tokens: Sequence[Any] = (), limit_alphabet: int | None = None,
                 initial_alphabet: Sequence[str] = (), continuing_subword_prefix: str = "##",
                 end_of_word_suffix: str | None = None, **unknown: Any) -> None:
        ignore_unknown(unknown, "WordPieceTrainer")  # (HF's ignores progress_format too)
        super().__init__(vocab_size, min_frequency, show_progress, special_tokens, limit_alphabet, initial_alphabet,
                         continuing_subword_prefix, end_of_word_suffix)

    def __repr__(self) -> str:
        return "WordPiece" + super().__repr__()

    def train_model(self, words: Mapping[str, int], model: Any) -> WordPiece:  # type: ignore[override]
        """A WordPiece model with the learned vocabulary and prefix; ``model``'s ``unk_token`` and
        ``max_input_chars_per_word`` carry over (HF transfers only the vocabulary and the prefix)."""
        if model is not None and not isinstance(model, WordPiece):
            raise TrainingError(f"WordPieceTrainer trains a WordPiece model, not {type(model).__name__}; use that model's trainer")
        tokens, _ = self.learn(words)
        base = model if model is not None else WordPiece()
        return WordPiece({tokens[i]: i for i in sorted(tokens)}, base.unk_token, base.max_input_chars_per_word,
                         self.continuing_subword_prefix or "")


DEFAULT_TRAINERS["WordPiece"] = WordPieceTrainer
DEFAULT_TRAINERS["BPE"] = BpeTrainer
