"""The merge loop of byte-level training: Hugging Face ``BpeTrainer``'s rules, step for step.

Why a module of its own: this loop is the whole cost of training once the pieces are counted, and
its bookkeeping *is* the specification. ``tokenizers`` 0.23.3 (``models/bpe/trainer.rs`` and
``word.rs``) does the following, and so does :func:`learn_merges` (each rule checked against the
library in ``tests/trainers/test_train_byte_level.py``):

* Words are the distinct pieces, each with its count; a word is a list of token ids.
* A pair's count is the sum over words of (occurrences in the word x the word's count), overlaps
  included: "aaaa" holds (a, a) three times.
* A max-heap takes the highest count; ties go to the smallest ``(left_id, right_id)``. Each heap
  entry carries the set of words where the pair was seen when it was pushed. A popped entry whose
  count differs from the pair's current count is pushed back with the current count (and the same
  words); it is not dropped.
* Training stops (it does not skip) when the best count is below 1 or below ``min_frequency``, or
  when the vocabulary holds ``vocab_size`` entries.
* The merged string gets a new id, unless it is already in the vocabulary (two pairs can spell the
  same string: ("ab", "c") and ("a", "bc")); then the existing id is reused and the vocabulary does
  not grow.
* A word is rewritten left to right, non-overlapping. Each rewrite takes one from the pairs it breaks
  (left neighbour, first) and (second, right neighbour) and adds one to (left neighbour, new) and
  (new, right neighbour), these only if the two tokens together are shorter than
  ``max_token_length`` characters (strictly: HF's rule). The merged pair's own count is left as it
  was; it is never pushed again unless a later merge adds to it.
* New pairs are pushed once per merge step, with the words where they appeared in that step.

Pairs are packed into one int, ``left << shift | right``, so that heap entries compare as HF's
``(count, pair)`` order does and dict look-ups hash an int, not a tuple.

>>> words, counts = [[0, 0, 0, 0], [1, 0]], [1, 2]
>>> tokens = {0: "a", 1: "b"}
>>> [(tokens[a], tokens[b]) for a, b, _ in learn_merges(words, counts, tokens, vocab_size=4)]
[('a', 'a'), ('b', 'a')]
>>> words
[[2, 2], [3]]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from heapq import heapify, heappop, heappush
from typing import Any

from ..errors import InvalidInputError, TrainingError
from ..text.checks import repair_surrogates

__all__ = ["learn_merges", "merge_list", "piece_words"]

Progress = Callable[[int], None]


def learn_merges(
    words: list[list[int]],
    counts: list[int],
    tokens: dict[int, str],
    *,
    vocab_size: int,
    min_frequency: int = 0,
    max_token_length: int | None = None,
    vocab_len: int | None = None,
    on_merge: Progress | None = None,
    learned: list[tuple[int, int, int]] | None = None,
    continuing_subword_prefix: str = "",
    lengths: dict[int, int] | None = None,
) -> list[tuple[int, int, int]]:
    """Merge pairs in ``words`` (rewritten in place) until the vocabulary is full or the best count is
    too low; return ``(left, right, new_id)`` per merge, in order.

    ``tokens`` maps every id in use to its string and receives the new tokens; ``vocab_len`` is the
    vocabulary's size for the stop rule (default ``len(tokens)``; special tokens count too). New ids
    continue from ``max(tokens) + 1``. ``on_merge(n)`` is called after the ``n``-th merge; ``learned`` is
    the list the merges are appended to (default: a new one), so that ``on_merge`` can read the latest.
    ``continuing_subword_prefix``: taken off the right token when a pair is joined (``"##"``: ``a`` +
    ``##b`` is ``ab``), as HF's trainer does; ``lengths``: each id's length in characters of the word
    for ``max_token_length`` (default: its string's length; a merged token's is the sum of its two)."""
    ids = {text: i for i, text in tokens.items()}
    size = len(tokens) if vocab_len is None else vocab_len
    next_id = max(tokens) + 1 if tokens else 0
    shift = max(next_id + max(vocab_size, 0), 2).bit_length()
    mask = (1 << shift) - 1
    lengths = {i: len(text) for i, text in tokens.items()} if lengths is None else dict(lengths)
    limit = max_token_length
    prefix = continuing_subword_prefix

    pair_counts, where = _count_pairs(words, counts, shift)
    positions: list[set[int] | None] = []
    heap: list[tuple[int, int, int]] = []
    for key, pos in where.items():
        c = pair_counts[key]
        if c > 0:
            heap.append((-c, key, len(positions)))
            positions.append(pos)
    heapify(heap)

    merges: list[tuple[int, int, int]] = [] if learned is None else learned
    while size < vocab_size and heap:
        neg, key, serial = heappop(heap)
        c = pair_counts[key]
        if -neg != c:
            heappush(heap, (-c, key, serial))
            continue
        if c < 1 or min_frequency > c:
            break
        a, b = key >> shift, key & mask
        right = tokens[b]
        text = tokens[a] + (right[len(prefix):] if prefix and right.startswith(prefix) else right)
        new = ids.get(text)
        if new is None:
            new = next_id
            next_id += 1
            ids[text] = new
            tokens[new] = text
            lengths[new] = lengths[a] + lengths[b]
            size += 1
        merges.append((a, b, new))
        pos = positions[serial]
        positions[serial] = None
        assert pos is not None
        fresh = _merge_words(words, counts, pos, a, b, new, pair_counts, shift, lengths, limit)
        for k, found in fresh.items():
            c = pair_counts[k]
            if c > 0:
                heappush(heap, (-c, k, len(positions)))
                positions.append(found)
        if on_merge is not None:
            on_merge(len(merges))
    return merges


def _count_pairs(words: list[list[int]], counts: list[int], shift: int) -> tuple[dict[int, int], dict[int, set[int]]]:
    """Every adjacent pair's weighted count (overlaps included) and the words it occurs in."""
    pair_counts: dict[int, int] = {}
    where: dict[int, set[int]] = {}
    get = pair_counts.get
    for i, w in enumerate(words):
        c = counts[i]
        for j in range(len(w) - 1):
            key = w[j] << shift | w[j + 1]
            pair_counts[key] = get(key, 0) + c
            found = where.get(key)
            if found is None:
                where[key] = {i}
            else:
                found.add(i)
    return pair_counts, where


def _merge_words(
    words: list[list[int]],
    counts: list[int],
    pos: set[int],
    a: int,
    b: int,
    new: int,
    pair_counts: dict[int, int],
    shift: int,
    lengths: dict[int, int],
    limit: int | None,
) -> dict[int, set[int]]:
    """Rewrite (a, b) -> new in the words of ``pos``, left to right, as HF's ``Word::merge`` does;
    apply the count changes and return the pairs that gained occurrences, with their words."""
    fresh: dict[int, set[int]] = {}
    get = pair_counts.get
    fresh_get = fresh.get
    new_len = lengths[new]
    new_high = new << shift
    b_high = b << shift
    for i in pos:
        w = words[i]
        n = len(w)
        if n == 2:  # the whole word is the pair (or no longer holds it): no neighbours to update
            if w[0] == a and w[1] == b:
                w[:] = (new,)
            continue
        if a not in w:
            continue
        c = counts[i]
        j = 0
        try:
            while True:
                j = w.index(a, j)
                if j + 1 < n and w[j + 1] == b:
                    if j:
                        p = w[j - 1]
                        k = p << shift
                        pair_counts[k | a] = get(k | a, 0) - c
                        if limit is None or lengths[p] + new_len < limit:
                            k |= new
                            pair_counts[k] = get(k, 0) + c
                            found = fresh_get(k)
                            if found is None:
                                fresh[k] = {i}
                            else:
                                found.add(i)
                    w[j] = new
                    del w[j + 1]
                    n -= 1
                    if j + 1 < n:
                        q = w[j + 1]
                        k = b_high | q
                        pair_counts[k] = get(k, 0) - c
                        if limit is None or lengths[q] + new_len < limit:
                            k = new_high | q
                            pair_counts[k] = get(k, 0) + c
                            found = fresh_get(k)
                            if found is None:
                                fresh[k] = {i}
                            else:
                                found.add(i)
                j += 1
        except ValueError:
            pass
    return fresh


def piece_words(counts: Mapping[str, int], to_ids: Any) -> tuple[list[list[int]], list[int]]:
    """Each counted piece as a list of ids (``to_ids(utf8_bytes)``) with its count; pieces counted
    zero or less are left out. Raises if nothing is left (an empty corpus)."""
    if not isinstance(counts, Mapping):
        raise InvalidInputError(f"counts must be a mapping piece -> count (count_pieces' Counter), not {type(counts).__name__}")
    words: list[list[int]] = []
    weights: list[int] = []
    for piece, c in counts.items():
        if not isinstance(piece, str) or not isinstance(c, int):
            raise InvalidInputError(f"counts must map str pieces to int counts; found {piece!r}: {c!r}")
        if c <= 0 or not piece:
            continue
        try:
            data = piece.encode("utf-8")
        except UnicodeEncodeError:
            data = repair_surrogates(piece).encode("utf-8")
        words.append(to_ids(data))
        weights.append(c)
    if not words:
        raise TrainingError("the corpus is empty (no text, or only empty strings): give texts with some content")
    return words, weights


def merge_list(merges: list[tuple[int, int, int]], tokens: Mapping[int, str]) -> list[list[str]]:
    """The merges as ``tokenizer.json`` lists them: a pair merged twice keeps its last rank (HF keeps
    one entry per pair), in rank order."""
    last: dict[tuple[int, int], int] = {}
    for rank, (a, b, _) in enumerate(merges):
        last[(a, b)] = rank
    return [[tokens[a], tokens[b]] for (a, b), _ in sorted(last.items(), key=lambda item: item[1])]
