"""Byte-level BPE training with the merges and vocabulary of Hugging Face's ``BpeTrainer``.

``train_tokenizer_json(texts, vocab_size, pattern=..., special_tokens=..., min_frequency=...,
max_token_length=...)`` gives the ``tokenizer.json`` that ``tokenizers`` 0.23.3 trains with the same settings (initial
alphabet: the 256 ByteLevel characters; pre-tokenizer as ``counts.py`` describes), ties included:

* ids: the special tokens in the order given, then the 256 ByteLevel characters sorted by code point
  (so "!" is first and "Ġ", the space, comes after every printable Latin-1 byte), then the new tokens
  in merge order;
* the merge loop is ``pair_queue.py``'s (HF's ``(count, -pair)`` order, overlaps counted, stop at
  ``min_frequency``, reuse of an existing string's id, HF's ``max_token_length`` rule);
* special-token text inside the corpus is trained on as ordinary text (HF's trainer does the same);
  the special tokens get their ids and are matched whole when encoding.

Counting (``counts.py``) and merging are separate so that shards can be counted anywhere:
``train_tokenizer_json(texts, ...) == train_tokenizer_json_from_counts(count_pieces(texts, pattern), ...)``. The result is data
(:class:`Trained`: the ``tokenizer.json`` and, when extending, special tokens to add after it);
``bytepair.train`` (``training.py``) makes the ``Tokenizer`` of it.

>>> trained = train_tokenizer_json(["low lower lowest"] * 3, 262, pattern="gpt2", show_progress=False)
>>> trained.data["model"]["merges"][:3], len(trained.data["model"]["vocab"])
([['l', 'o'], ['lo', 'w'], ['Ġ', 'low']], 262)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from ..text.byte_unicode import BYTE_TO_UNICODE
from ..errors import TrainingError
from .counts import PiecePattern, count_with, resolve_pattern
from .extend import BaseModel, extend_from_counts
from .pair_queue import learn_merges, merge_list, piece_words
from .progress import MergeCallback, ProgressCallback, Reporter

__all__ = ["Trained", "train_tokenizer_json", "train_tokenizer_json_from_counts"]

DEFAULT_PATTERN = "o200k_base"
ALPHABET: tuple[str, ...] = tuple(sorted(BYTE_TO_UNICODE.values()))
"""The 256 ByteLevel characters in HF's id order (by code point)."""


class Trained(NamedTuple):
    """What training gives: the ``tokenizer.json`` (as its parsed object) and the special tokens to
    add once it is loaded (``Tokenizer.add_special_tokens``: new ones asked for when extending)."""

    data: dict[str, Any]
    add_special: list[str]


def train_tokenizer_json(
    texts: Iterable[str],
    vocab_size: int,
    *,
    pattern: str | None = None,
    special_tokens: Sequence[str] = (),
    min_frequency: int = 0,
    max_token_length: int | None = None,
    show_progress: bool | None = None,
    progress: ProgressCallback | None = None,
    base: Any = None,
    on_merge: MergeCallback | None = None,
) -> Trained:
    """Train a byte-level BPE tokenizer on ``texts`` (any iterable of str), HF-identical.

    ``pattern``: an encoding name or a regex (default ``"o200k_base"``, or the base's own).
    ``base``: continue from this byte-level BPE ``Tokenizer``, keeping all its ids and merges
    (``extend.py``). ``show_progress``: a bar on stderr (default: when stderr is a terminal and tqdm
    is installed); ``progress(stage, done, total)``: a callback for other front ends;
    ``on_merge(left, right)``: each merge's two tokens as it is learned (``progress.py``)."""
    _check_options(vocab_size, special_tokens, min_frequency, max_token_length)
    reporter = Reporter(show_progress, progress, on_merge)
    if base is not None:
        plan = BaseModel(base, pattern)
        split = plan.split
    else:
        split = resolve_pattern(DEFAULT_PATTERN if pattern is None else pattern).split
    reporter.stage("count", None)
    counts = count_with(texts, split, on_text=reporter.update if reporter.active else None)
    return train_tokenizer_json_from_counts(counts, vocab_size, pattern=pattern, special_tokens=special_tokens,
                             min_frequency=min_frequency, max_token_length=max_token_length, base=base,
                             _reporter=reporter)


def train_tokenizer_json_from_counts(
    counts: Mapping[str, int],
    vocab_size: int,
    *,
    pattern: str | None = None,
    special_tokens: Sequence[str] = (),
    min_frequency: int = 0,
    max_token_length: int | None = None,
    show_progress: bool | None = None,
    progress: ProgressCallback | None = None,
    base: Any = None,
    on_merge: MergeCallback | None = None,
    _reporter: Reporter | None = None,
) -> Trained:
    """Train from piece counts (``count_pieces``' result, or the sum of several); same options as
    :func:`train_tokenizer_json`. ``pattern`` must be the one the pieces were counted with."""
    _check_options(vocab_size, special_tokens, min_frequency, max_token_length)
    reporter = _reporter or Reporter(show_progress, progress, on_merge)
    try:
        if base is not None:
            return Trained(*extend_from_counts(base, counts, vocab_size, pattern=pattern, special_tokens=special_tokens,
                                               min_frequency=min_frequency, max_token_length=max_token_length,
                                               reporter=reporter))
        spec = resolve_pattern(DEFAULT_PATTERN if pattern is None else pattern)
        tokens = initial_tokens(special_tokens)
        if vocab_size < len(tokens):
            raise TrainingError(
                f"vocab_size={vocab_size} is below the {len(tokens) - len(special_tokens)} byte tokens plus "
                f"{len(special_tokens)} special tokens ({len(tokens)}); ask for vocab_size >= {len(tokens)}")
        char_id = {text: i for i, text in tokens.items()}
        byte_id = [char_id[BYTE_TO_UNICODE[b]] for b in range(256)]
        words, weights = piece_words(counts, lambda data: [byte_id[b] for b in data])
        n_initial = len(tokens)
        reporter.stage("merge", vocab_size - n_initial)
        merges: list[tuple[int, int, int]] = []
        learn_merges(words, weights, tokens, vocab_size=vocab_size, min_frequency=min_frequency,
                     max_token_length=max_token_length, on_merge=reporter.merge_hook(merges, tokens), learned=merges)
    finally:
        reporter.close()
    return Trained(_tokenizer_json(spec, tokens, merges, list(special_tokens)), [])


def _check_options(vocab_size: Any, special_tokens: Any, min_frequency: Any, max_token_length: Any) -> None:
    if not isinstance(vocab_size, int) or isinstance(vocab_size, bool) or vocab_size < 1:
        raise TrainingError(f"vocab_size must be a positive int (e.g. 8000), not {vocab_size!r}")
    if not isinstance(min_frequency, int) or isinstance(min_frequency, bool) or min_frequency < 0:
        raise TrainingError(f"min_frequency must be an int >= 0 (0 or 1: merge every pair seen), not {min_frequency!r}")
    if max_token_length is not None and (not isinstance(max_token_length, int) or isinstance(max_token_length, bool)
                                         or max_token_length < 1):
        raise TrainingError(f"max_token_length must be None or an int >= 1 (characters), not {max_token_length!r}")
    if isinstance(special_tokens, str):
        raise TrainingError(f"special_tokens must be a list of strings, not one string; write [{special_tokens!r}]")
    if not isinstance(special_tokens, Iterable):
        raise TrainingError(f"special_tokens must be a list of strings (or left out), not {type(special_tokens).__name__}")
    seen: set[str] = set()
    for token in special_tokens:
        if not isinstance(token, str) or not token:
            raise TrainingError(f"each special token must be a non-empty str, not {token!r}")
        if token in seen:
            raise TrainingError(f"special token {token!r} is given twice; list each special token once")
        seen.add(token)


def initial_tokens(special_tokens: Sequence[str]) -> dict[int, str]:
    """HF's first ids: the special tokens, then the ByteLevel alphabet by code point (skipping a
    character that is already a special token).

    >>> t = initial_tokens(["<s>"]); t[0], t[1], t[256], len(t)
    ('<s>', '!', 'Ń', 257)
    """
    tokens: dict[int, str] = {}
    present: set[str] = set()
    for text in [*special_tokens, *ALPHABET]:
        if text not in present:
            present.add(text)
            tokens[len(tokens)] = text
    return tokens


def _tokenizer_json(spec: PiecePattern, tokens: dict[int, str], merges: list[tuple[int, int, int]],
                    special_tokens: list[str]) -> dict[str, Any]:
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": i, "content": text, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
             "special": True}
            for i, text in enumerate(special_tokens)
        ],
        "normalizer": None,
        "pre_tokenizer": spec.to_json(),
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {
            "type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
            "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
            "vocab": {tokens[i]: i for i in sorted(tokens)},
            "merges": merge_list(merges, tokens),
        },
    }
