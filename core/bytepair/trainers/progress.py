"""Progress reports for training: a tqdm bar on a terminal, a callback for other front ends.

Why optional: tqdm is not a dependency of bytepair (the browser bundle stays small), and a browser
or a GUI wants numbers, not a bar. ``progress(stage, done, total)`` gets ``("count", texts_read,
None)`` while the corpus is read and ``("merge", merges_done, merges_at_most)`` while merging;
``on_merge(left, right)`` gets each merge's two tokens (as ``tokenizer.json`` lists them) as it is
learned, just before the progress report that counts it, so a front end can show the latest merges.

>>> seen = []
>>> report = Reporter(show=False, callback=lambda *a: seen.append(a))
>>> report.stage("merge", 2); report.update(1); report.update(2); report.close()
>>> seen
[('merge', 0, 2), ('merge', 1, 2), ('merge', 2, 2)]
>>> learned, tokens = [(0, 1, 2)], {0: "a", 1: "b", 2: "ab"}
>>> report = Reporter(show=False, on_merge=lambda *pair: seen.append(pair))
>>> report.stage("merge", 1); report.merge_hook(learned, tokens)(1); seen[-1]
('a', 'b')

A trainer object (``BpeTrainer``, ``UnigramTrainer`` ...) makes its own Reporter with no callback; a
front end that drives one (the browser's ``train()``, ``web_bridge``) hears it through
:func:`reporting`, which lends every Reporter made inside it a callback and an ``on_merge``:

>>> with reporting(lambda *a: seen.append(a)):
...     Reporter(show=False).stage("EM training", 4)
>>> seen[-1]
('EM training', 0, 4)
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from ..errors import TrainingError

__all__ = ["MergeCallback", "ProgressCallback", "Reporter", "reporting"]

ProgressCallback = Callable[[str, int, "int | None"], None]
MergeCallback = Callable[[str, str], None]

_LABELS = {"count": "count pieces", "merge": "merge pairs"}
_LENT: ContextVar[tuple[ProgressCallback | None, MergeCallback | None]] = ContextVar("bytepair_training_reports", default=(None, None))


@contextmanager
def reporting(callback: ProgressCallback | None, on_merge: MergeCallback | None = None) -> Iterator[None]:
    """Inside this block, a Reporter made without a callback (and without ``on_merge``) uses these."""
    token = _LENT.set((callback, on_merge))
    try:
        yield
    finally:
        _LENT.reset(token)


class Reporter:
    """One object per training run; ``show=None`` means: a bar if stderr is a terminal and tqdm is installed."""

    def __init__(self, show: bool | None = None, callback: ProgressCallback | None = None,
                 on_merge: MergeCallback | None = None) -> None:
        if callback is None and on_merge is None:
            callback, on_merge = _LENT.get()
        if on_merge is not None and not callable(on_merge):
            raise TrainingError(f"on_merge must be a function (left, right) -> None, not {type(on_merge).__name__}")
        if callback is not None and not callable(callback):
            raise TrainingError(f"progress must be a function (stage, done, total) -> None, not {type(callback).__name__}")
        if show is None:
            show = bool(getattr(sys.stderr, "isatty", lambda: False)())
        self._show = show
        self._callback = callback
        self._on_merge = on_merge
        self._bar: Any = None
        self._name = ""
        self._total: int | None = None
        self._done = 0

    def stage(self, name: str, total: int | None) -> None:
        self.close()
        self._name, self._total, self._done = name, total, 0
        if self._show:
            try:
                from tqdm import tqdm
            except ImportError:
                self._show = False
            else:
                self._bar = tqdm(total=total, desc=_LABELS.get(name, name), file=sys.stderr, leave=False,
                                 unit=" texts" if name == "count" else " merges")
        if self._callback is not None:
            self._callback(name, 0, total)

    def update(self, done: int) -> None:
        if self._bar is not None:
            self._bar.update(done - self._done)
        self._done = done
        if self._callback is not None:
            self._callback(self._name, done, self._total)

    def merge_hook(self, learned: list[tuple[int, int, int]], tokens: dict[int, str]) -> Callable[[int], None] | None:
        """The ``on_merge`` for ``learn_merges(..., learned=learned)`` (``tokens``: its id -> string map):
        hands the newest merge to ``on_merge``, then reports the count (None if nobody listens)."""
        if self._on_merge is None:
            return self.update if self.active else None
        on_merge = self._on_merge

        def hook(done: int) -> None:
            left, right, _ = learned[-1]
            on_merge(tokens[left], tokens[right])
            self.update(done)

        return hook

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    @property
    def active(self) -> bool:
        return self._bar is not None or self._callback is not None
