"""Training WordPiece, WordLevel and Unigram tokenizers for JavaScript (``train(texts, { model })``):
the texts go through the family's normalizer and pre-tokenizer as they arrive, then HF's trainer
object learns the model from the word counts, exactly as ``Tokenizer.train_from_iterator`` would.

Why these pipelines: they are what HF's quick tours and course build for each family, so that the
file behaves as a user of that family expects:

- ``wordpiece`` (BERT): ``BertNormalizer`` (``lowercase`` option, default true), ``BertPreTokenizer``,
  ``WordPiece(unk_token)`` model, ``WordPiece`` decoder (``##`` joined back);
- ``wordlevel``: ``Whitespace`` pre-tokenizer, ``WordLevel(unk_token)`` model, no decoder (tokens are
  joined with spaces);
- ``unigram`` (SentencePiece-style): ``Metaspace`` pre-tokenizer and decoder (``▁`` for a space), a
  ``Unigram`` model.

The unknown token (``unkToken``: ``[UNK]``, or ``<unk>`` for Unigram) is the first special token
unless ``specialTokens`` already lists it, so every trained file can encode any text.

>>> t = FamilyTraining({"model": "wordlevel"}); t.feed(["a b a", "b c"])
>>> result = t.finish(10, [], 0, lambda *event: False)
>>> import json; json.loads(result["json"])["model"]["vocab"]
{'[UNK]': 0, 'a': 1, 'b': 2, 'c': 3}
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from .. import decoders, normalizers, pre_tokenizers, trainers
from ..errors import TrainingError
from ..models import Unigram, WordLevel, WordPiece
from ..pipeline.word_counts import word_counts
from ..tokenizer import Tokenizer
from ..trainers.progress import reporting

__all__ = ["FAMILIES", "FamilyTraining"]

FAMILIES = ("wordpiece", "wordlevel", "unigram")
"""The model families trained here (``bpe``, byte-level, is ``training.py``'s)."""

# JavaScript option -> the trainer's keyword, per family (the HF trainer's own options).
_TRAINER_OPTIONS = {
    "wordpiece": {"limitAlphabet": "limit_alphabet", "initialAlphabet": "initial_alphabet",
                  "continuingSubwordPrefix": "continuing_subword_prefix"},
    "wordlevel": {},
    "unigram": {"initialAlphabet": "initial_alphabet", "shrinkingFactor": "shrinking_factor",
                "maxPieceLength": "max_piece_length", "nSubIterations": "n_sub_iterations", "seedSize": "seed_size"},
}
_MODEL_OPTIONS = {"wordpiece": ("unkToken", "lowercase", "maxInputCharsPerWord"), "wordlevel": ("unkToken",),
                  "unigram": ("unkToken",)}
_UNK = {"wordpiece": "[UNK]", "wordlevel": "[UNK]", "unigram": "<unk>"}
REPORT_SECONDS = 0.05
"""Progress is reported at most this often (and for the first and last step)."""


def _whole(value: Any, option: str) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


class FamilyTraining:
    """One training of a WordPiece, WordLevel or Unigram tokenizer: its pipeline and word counts so far."""

    def __init__(self, setup: dict[str, Any]) -> None:
        family = setup.get("model")
        if family not in FAMILIES:
            raise TrainingError(f"model must be one of \"bpe\", {', '.join(map(json.dumps, FAMILIES))}, not {family!r}")
        allowed = set(_TRAINER_OPTIONS[family]) | set(_MODEL_OPTIONS[family]) | {"model"}
        unknown = sorted(set(setup) - allowed)
        if unknown:
            raise TrainingError(f"{', '.join(unknown)}: not an option of model {family!r} (its options: "
                                f"{', '.join(sorted(allowed - {'model'}))})")
        self.family = family
        self.unk = setup.get("unkToken", _UNK[family])
        if not isinstance(self.unk, str) or not self.unk:
            raise TrainingError(f"unkToken must be a non-empty string, not {self.unk!r}")
        self.trainer_options = {_TRAINER_OPTIONS[family][k]: _whole(v, k) for k, v in setup.items() if k in _TRAINER_OPTIONS[family]}
        self.tokenizer = self._pipeline(setup)
        self.words: Counter[str] = Counter()
        self._trainer(10, [], 0)  # checks the options now, before any text is sent

    def _pipeline(self, setup: dict[str, Any]) -> Tokenizer:
        if self.family == "wordpiece":
            lowercase = setup.get("lowercase", True)
            if not isinstance(lowercase, bool):
                raise TrainingError(f"lowercase must be true or false, not {lowercase!r}")
            chars = _whole(setup.get("maxInputCharsPerWord", 100), "maxInputCharsPerWord")
            if type(chars) is not int or chars < 1:
                raise TrainingError(f"maxInputCharsPerWord must be a whole number >= 1, not {chars!r}")
            tok = Tokenizer(WordPiece(unk_token=self.unk, max_input_chars_per_word=chars))
            tok.normalizer = normalizers.BertNormalizer(lowercase=lowercase)
            tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
            tok.decoder = decoders.WordPiece(prefix=self.trainer_options.get("continuing_subword_prefix", "##"))
        elif self.family == "wordlevel":
            tok = Tokenizer(WordLevel(unk_token=self.unk))
            tok.pre_tokenizer = pre_tokenizers.Whitespace()
        else:
            tok = Tokenizer(Unigram())
            tok.pre_tokenizer = pre_tokenizers.Metaspace()
            tok.decoder = decoders.Metaspace()
        return tok

    def _trainer(self, vocab_size: Any, special_tokens: list[str], min_frequency: Any) -> Any:
        specials = special_tokens if self.unk in special_tokens else [self.unk, *special_tokens]
        options: dict[str, Any] = {"vocab_size": vocab_size, "special_tokens": specials, "show_progress": False,
                                   **self.trainer_options}
        try:
            if self.family == "unigram":
                if min_frequency:
                    raise TrainingError("minFrequency is not an option of model \"unigram\" (HF's UnigramTrainer has none)")
                return trainers.UnigramTrainer(unk_token=self.unk, **options)
            trainer = trainers.WordPieceTrainer if self.family == "wordpiece" else trainers.WordLevelTrainer
            return trainer(min_frequency=min_frequency, **options)
        except TypeError as err:  # a value of the wrong kind that the trainer did not check itself
            raise TrainingError(f"model {self.family!r}: {err}") from None
        except TrainingError as err:  # the trainer's message, with the option's JavaScript name
            message = str(err)
            for js, py in _TRAINER_OPTIONS[self.family].items():
                message = message.replace(py, js)
            raise TrainingError(message) from None

    def feed(self, texts: list[str]) -> None:
        """Count the words of ``texts`` (through the normalizer and pre-tokenizer)."""
        self.words.update(word_counts(texts, self.tokenizer.normalizer, self.tokenizer.pre_tokenizer))

    def finish(self, vocab_size: int, special_tokens: list[str], min_frequency: int,
               report: Callable[..., Any], stopped: type[Exception] = TrainingError) -> dict[str, Any]:
        """Train (HF's trainer object on the word counts) and answer as ``training.train_finish``.
        ``report(phase, done, total, merges_json)``: "merging" with the merges learned since the previous
        report (WordPiece), "training" with EM steps (Unigram; the total is HF's estimate) or one step
        (WordLevel); a true answer stops training with ``stopped`` (``training.AbortError``)."""
        if not self.words:
            raise TrainingError("no words to train on: the texts are empty after normalization and pre-tokenization")
        trainer = self._trainer(vocab_size, special_tokens, min_frequency)
        latest: list[list[str]] = []
        last = [0.0]
        done_of = {"merge": 0, "EM training": 0}

        def send(phase: str, done: int, total: int) -> None:
            merges = json.dumps(latest, ensure_ascii=False)
            latest.clear()
            if report(phase, done, max(total, done), merges):
                raise stopped("training stopped: the AbortSignal fired")

        def progress(stage: str, done: int, total: int | None) -> None:
            if stage not in done_of:
                return
            done_of[stage] = done
            now = time.monotonic()
            if done == total or done <= 1 or now - last[0] >= REPORT_SECONDS:
                last[0] = now
                send("merging" if stage == "merge" else "training", done, total or 0)

        def on_merge(left: str, right: str) -> None:
            latest.append([left, right])
            del latest[:-256]

        tok = self.tokenizer
        if self.family == "wordlevel":
            send("training", 0, 1)
        with reporting(progress, on_merge):
            tok.model = trainer.train_model(dict(self.words), tok.model)
        tok.add_special_tokens(trainer.special_tokens)
        if self.family == "wordpiece":
            send("merging", done_of["merge"], done_of["merge"])
        else:
            send("training", done_of["EM training"] or 1, done_of["EM training"] or 1)
        return {"json": tok.to_str(pretty=True), "merges": done_of["merge"], "vocab_size": tok.get_vocab_size()}
