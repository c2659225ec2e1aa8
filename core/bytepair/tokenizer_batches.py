"""``Tokenizer``'s batches over every core: ``encode_batch(..., num_threads=N)`` and ``decode_batch``
run in worker processes (threads on a free-threaded CPython; sequential in the browser and for small
batches: ``parallel.py``), with the results of the sequential loop (a base class of
:class:`bytepair.Tokenizer`).

Why a module of its own: a worker holds its own copy of the tokenizer, made from its
``tokenizer.json`` text, so the copy must follow the tokenizer. The workers are replaced whenever the
tokenizer's state differs from the one they were made from (a stage assigned, tokens added,
truncation changed, ``encode_special_tokens`` set); a component changed in place (an attribute of a
normalizer set by hand) is not seen: assign the component again. Padding is applied here, in the
calling process, to the whole batch, as the sequential path does. Encodings come back packed
(``Encoded.packed``), never as pickled lists of ints.

>>> from bytepair import Tokenizer
>>> tok = Tokenizer.from_encoding("cl100k_base")
>>> [e.ids for e in tok.encode_batch(["hi", "there"], num_threads=4)]  # small: sequential
[[6151], [19041]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .parallel import BatchPool
from .pipeline.encoded import Encoded

__all__ = ["BatchWorker", "TokenizerBatches", "item_size"]


def item_size(item: Any) -> int:
    """The characters of one batch input (a text, a pair, words or a pair of word lists)."""
    if isinstance(item, str):
        return len(item)
    if isinstance(item, (tuple, list)):
        return sum(item_size(part) for part in item)
    return 1


class BatchWorker:
    """What a worker process holds: a copy of the tokenizer, made from its ``tokenizer.json``, without
    padding (the caller pads the whole batch)."""

    def __init__(self, cls: type, json_text: str, encode_special_tokens: bool) -> None:
        self.tokenizer = cls.from_str(json_text)
        self.tokenizer.no_padding()
        self.tokenizer.encode_special_tokens = encode_special_tokens

    def encode_input(self, item: Any, is_pretokenized: bool, add_special_tokens: bool) -> tuple[Any, ...]:
        return self.tokenizer.encode_input(item, is_pretokenized, add_special_tokens).packed()

    def decode(self, ids: list[int], skip_special_tokens: bool) -> str:
        return self.tokenizer.decode(ids, skip_special_tokens)


class TokenizerBatches:
    """The worker pool of one tokenizer, made again when the tokenizer changes."""

    to_str: Any
    _added: Any
    _truncation: dict[str, Any] | None
    _padding: dict[str, Any] | None

    def _state(self) -> tuple[Any, ...]:
        """What a worker's copy depends on, cheaply: which stages are in place, the added tokens,
        truncation and the special-token switch."""
        stages = tuple(id(getattr(self, name)) for name in ("model", "normalizer", "pre_tokenizer", "post_processor", "decoder"))
        added = tuple((t.content, t.id, t.special, t.single_word, t.lstrip, t.rstrip, t.is_normalized) for t in self._added)
        return stages, added, repr(self._truncation), getattr(self, "encode_special_tokens")

    def batch_pool(self) -> BatchPool:
        """The workers of this tokenizer's batch methods, started on first need."""
        state = self._state()
        kept = self.__dict__.get("_batch_pool")
        if kept is not None and kept[0] == state:
            return kept[1]
        if kept is not None:
            kept[1].close()
        import pickle

        worker_args = (type(self), self.to_str(), getattr(self, "encode_special_tokens"))
        pool = BatchPool(self, pickled=lambda: pickle.dumps(_Payload(*worker_args)))
        self.__dict__["_batch_pool"] = (state, pool)
        return pool

    def parallel_workers(self, num_threads: int | None, sizes: Sequence[int]) -> int:
        """How many workers a batch of these sizes gets (1: the caller's own loop)."""
        if num_threads is None or num_threads <= 1 or len(sizes) < 2:
            return 1
        return self.batch_pool().workers_for(num_threads, sum(sizes))

    def encode_in_workers(self, items: list[Any], is_pretokenized: bool, add_special_tokens: bool,
                          num_threads: int, sizes: list[int]) -> list[Encoded]:
        pool = self.batch_pool()  # made before padding is switched off: its state must not see that
        padding, self._padding = self._padding, None  # padded below, as one batch
        try:
            out = pool.map("encode_input", items, kind="str", workers=num_threads, sizes=sizes, local=self,
                           is_pretokenized=is_pretokenized, add_special_tokens=add_special_tokens)
        finally:
            self._padding = padding
        # This process encodes a share of the batch itself (Encoded); the workers' share comes packed.
        return [e if isinstance(e, Encoded) else Encoded.unpacked(e) for e in out]

    def decode_in_workers(self, sequences: list[list[int]], skip_special_tokens: bool, num_threads: int) -> list[str]:
        return self.batch_pool().map("decode", sequences, kind="str", workers=num_threads,
                                     skip_special_tokens=skip_special_tokens)


class _Payload:
    """Pickles as the ``BatchWorker`` it becomes in the worker (the tokenizer is built there, not here)."""

    def __init__(self, cls: type, json_text: str, encode_special_tokens: bool) -> None:
        self.args = (cls, json_text, encode_special_tokens)

    def __reduce__(self) -> tuple[Any, ...]:
        return (BatchWorker, self.args)
