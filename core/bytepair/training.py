"""``bytepair.train``: a whole byte-level BPE ``Tokenizer`` learned from text, in one call.

Why here, above the ``Tokenizer``: the trainers (``trainers/``) give data, the ``tokenizer.json``
Hugging Face's ``BpeTrainer`` would write for the same corpus and settings; this module loads it as a
``Tokenizer`` (and, when extending, adds the new special tokens as the tokenizer adds them).

>>> tok = train(["low lower lowest"] * 3, 262, pattern="gpt2", show_progress=False)
>>> tok.encode("lowest").tokens, tok.get_vocab_size()
(['low', 'e', 'st'], 262)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence

from .errors import InvalidInputError, too_large
from .tokenizer import Tokenizer
from .trainers.byte_level import Trained, train_tokenizer_json, train_tokenizer_json_from_counts
from .trainers.progress import MergeCallback, ProgressCallback

__all__ = ["train", "train_from_counts"]

_TRAIN_ADVICE = ("the distinct pieces and their pairs did not fit: pass min_frequency=2 or more, a smaller vocab_size, "
                 "or a smaller corpus (the counts of several parts can be summed and given to train_from_counts)")


def train(
    texts: Iterable[str],
    vocab_size: int,
    *,
    pattern: str | None = None,
    special_tokens: Sequence[str] = (),
    min_frequency: int = 0,
    max_token_length: int | None = None,
    show_progress: bool | None = None,
    progress: ProgressCallback | None = None,
    base: Tokenizer | None = None,
    on_merge: MergeCallback | None = None,
) -> Tokenizer:
    """Train a byte-level BPE tokenizer on ``texts`` (any iterable of str), HF-identical.

    ``pattern``: an encoding name or a regex (default ``"o200k_base"``, or the base's own).
    ``base``: continue from this byte-level BPE ``Tokenizer``, keeping all its ids and merges
    (``trainers/extend.py``). ``show_progress``: a bar on stderr (default: when stderr is a terminal
    and tqdm is installed); ``progress(stage, done, total)``: a callback for other front ends;
    ``on_merge(left, right)``: each merge's two tokens as it is learned (``trainers/progress.py``)."""
    try:
        return _tokenizer(train_tokenizer_json(
            texts, vocab_size, pattern=pattern, special_tokens=special_tokens, min_frequency=min_frequency,
            max_token_length=max_token_length, show_progress=show_progress, progress=progress, base=_base(base),
            on_merge=on_merge))
    except MemoryError as exc:
        raise too_large(exc, "training", _TRAIN_ADVICE) from None


def train_from_counts(
    counts: Mapping[str, int],
    vocab_size: int,
    *,
    pattern: str | None = None,
    special_tokens: Sequence[str] = (),
    min_frequency: int = 0,
    max_token_length: int | None = None,
    show_progress: bool | None = None,
    progress: ProgressCallback | None = None,
    base: Tokenizer | None = None,
    on_merge: MergeCallback | None = None,
) -> Tokenizer:
    """Train from piece counts (``count_pieces``' result, or the sum of several); same options as
    :func:`train`. ``pattern`` must be the one the pieces were counted with."""
    try:
        return _tokenizer(train_tokenizer_json_from_counts(
            counts, vocab_size, pattern=pattern, special_tokens=special_tokens, min_frequency=min_frequency,
            max_token_length=max_token_length, show_progress=show_progress, progress=progress, base=_base(base),
            on_merge=on_merge))
    except MemoryError as exc:
        raise too_large(exc, f"training on {len(counts):,} distinct pieces", _TRAIN_ADVICE) from None


def _base(base: object) -> Tokenizer | None:
    if base is not None and not isinstance(base, Tokenizer):
        raise InvalidInputError(f"base must be a bytepair.Tokenizer (e.g. Tokenizer.from_file('tokenizer.json')), "
                                f"not {type(base).__name__}")
    return base


def _tokenizer(trained: Trained) -> Tokenizer:
    tok = Tokenizer.from_str(json.dumps(trained.data, ensure_ascii=False))
    if trained.add_special:
        tok.add_special_tokens(trained.add_special)
    return tok
