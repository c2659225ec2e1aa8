"""Training for JavaScript: the texts arrive in slices (``train_feed``; other calls and an abort run
between them), then ``train_finish`` runs the merge loop, reporting to a JavaScript function that
may ask to stop. Byte-level BPE here; WordPiece, WordLevel and Unigram (``train_open``'s ``setup``)
in ``train_families.py``.

>>> h = train_open("gpt2"); train_feed(h, ["low lower", "lowest"])
2
>>> result = train_finish(h, 258, [], 0, lambda *event: False)
>>> result["merges"], result["vocab_size"]
(2, 258)
>>> train_close(h)
False
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable
from typing import Any

from ..errors import InvalidInputError, TrainingError
from ..trainers import count_pieces
from ..training import train_from_counts
from .train_families import FamilyTraining
from .values import to_py

__all__ = ["MERGES_REPORTED", "REPORT_SECONDS", "AbortError", "held", "train_close", "train_feed", "train_finish", "train_open"]


_trainings: dict[int, _Training] = {}
_next_training = 0
MERGES_REPORTED = 256
"""Each training progress report carries the merges learned since the previous one, at most this many (the latest)."""
REPORT_SECONDS = 0.05
"""Training progress is reported at most this often (and for the first and last merge)."""


class AbortError(TrainingError):
    """The JavaScript caller stopped a training (its AbortSignal fired); nothing was trained."""


class _Training:
    """One training under way: the pattern and the piece counts of the texts fed so far."""

    def __init__(self, pattern: str, family: FamilyTraining | None = None) -> None:
        self.pattern = pattern
        self.family = family
        self.counts: Counter[str] = Counter()
        self.texts = 0


def train_open(pattern: Any = None, setup: Any = None) -> int:
    """Start a training that cuts texts with ``pattern`` (an encoding name or a regex; default
    o200k_base), checked here so that a bad pattern fails before any text is sent. ``setup``: None
    (byte-level BPE) or a JSON object's text, ``{"model": "wordpiece" | "wordlevel" | "unigram", ...its
    options}`` (``train_families.py``; no pattern then), checked here too.

    """
    global _next_training
    family = None
    if setup:  # (JavaScript's null arrives as a falsy jsnull, not None)
        import json

        options = json.loads(setup) if isinstance(setup, str) else None
        if not isinstance(options, dict):
            raise TrainingError(f"setup must be a JSON object's text, not {setup!r}")
        if options.get("model", "bpe") != "bpe":
            if pattern:
                raise TrainingError(f"pattern is an option of model \"bpe\" only; model {options.get('model')!r} splits text its own way")
            family = FamilyTraining(options)
        elif set(options) - {"model"}:
            raise TrainingError(f"{', '.join(sorted(set(options) - {'model'}))}: not an option of model \"bpe\"")
    pattern = pattern or "o200k_base"
    if family is None:
        count_pieces([], pattern)  # compiles the pattern: TrainingError if it does not
    _next_training += 1
    _trainings[_next_training] = _Training(pattern, family)
    return _next_training


def _training(handle: Any) -> _Training:
    try:
        return _trainings[handle]
    except (KeyError, TypeError):
        raise InvalidInputError(f"training {handle!r} is finished or closed; start a new one with train()") from None


def train_feed(handle: int, texts: Any) -> int:
    """Count the pieces of ``texts`` (a list of str) into the training; answers the texts counted so far."""
    training = _training(handle)
    texts = to_py(texts)
    if not isinstance(texts, (list, tuple)):
        raise InvalidInputError(f"texts must be an array of strings, not {type(texts).__name__}")
    if training.family is not None:
        training.family.feed(texts)
    else:
        training.counts.update(count_pieces(texts, training.pattern))
    training.texts += len(texts)
    return training.texts


def train_finish(handle: int, vocab_size: Any, special_tokens: Any, min_frequency: Any,
                 report: Callable[..., Any]) -> dict[str, Any]:
    """Train on what was fed (``bytepair.train_from_counts``) and close the training. ``report(phase,
    done, total, merges_json)`` hears of the merges about every REPORT_SECONDS (``merges_json``: those
    learned since the previous report, the last being the ``done``-th, as a JSON array of ``[left,
    right]``); if it answers true, training stops with AbortError.
    Answers ``{"json": tokenizer.json text, "merges": merges learned, "vocab_size": n}``."""
    import json
    import time

    training = _training(handle)
    del _trainings[handle]
    if training.family is not None:
        return training.family.finish(int_option(vocab_size, "vocabSize"), string_list(special_tokens, "specialTokens"),
                                      int_option(min_frequency, "minFrequency"), report, AbortError)
    latest: deque[tuple[str, str]] = deque(maxlen=MERGES_REPORTED)
    last = [0.0]

    def send(done: int, total: int | None) -> Any:
        merges = json.dumps(list(latest), ensure_ascii=False)
        latest.clear()
        return report("merging", done, total, merges)

    def progress(stage: str, done: int, total: int | None) -> None:
        now = time.monotonic()
        if stage == "merge" and (done == total or done <= 1 or now - last[0] >= REPORT_SECONDS):
            last[0] = now
            if send(done, total):
                raise AbortError("training stopped: the AbortSignal fired")

    tok = train_from_counts(training.counts, int_option(vocab_size, "vocabSize"), pattern=training.pattern,
                            special_tokens=string_list(special_tokens, "specialTokens"),
                            min_frequency=int_option(min_frequency, "minFrequency"),
                            progress=progress, on_merge=lambda left, right: latest.append((left, right)))
    text = tok.to_str(pretty=True)
    merges = len(json.loads(text)["model"]["merges"])
    send(merges, merges)  # the total, and the last merges after an early stop
    return {"json": text, "merges": merges, "vocab_size": tok.get_vocab_size()}


def train_close(handle: Any) -> bool:
    """Forget a training that will not be finished (an aborted one); True if it was open."""
    return _trainings.pop(handle, None) is not None


def int_option(value: Any, option: str) -> Any:
    """A JavaScript number that is a whole number, as an int (the trainer checks the range)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise TrainingError(f"{option} must be a whole number, not {value!r}")
    return value


def string_list(value: Any, option: str) -> list[str]:
    """A JavaScript array of strings (undefined: none)."""
    value = to_py(value)
    if value is None:
        return []
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise TrainingError(f"{option} must be an array of strings, not {value!r}")
    return list(value)




def held() -> dict[str, int]:
    """What this surface keeps between calls (``memory_stats``)."""
    return {"open_trainings": len(_trainings)}
