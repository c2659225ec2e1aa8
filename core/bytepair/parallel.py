"""Batches over every core: a pool of workers that each hold one tokenizer, started on first need and
reused, running a method of it over slices of a batch.

Why a module of its own: one core of pure CPython encodes a few MB/s and is near its ceiling, so a
batch goes wide instead. Both faces' batch methods (``TiktokenExtras.encode_batch`` and the rest)
hand their work here; the pool knows nothing of either face, only a picklable owner and the name
of one of its methods.

- **Processes** on a standard CPython: the owner travels once, as its pickle, when a worker starts
  (an OpenAI ``Encoding`` pickles as its name); ids come back as packed ``array('I')`` bytes and
  their lengths, never as pickled lists of ints (unpickling millions of ints in the parent is what
  keeps a plain process pool near 1.25x on 2 cores). The calling process is one of the ``N``
  workers (``N - 1`` are started): it encodes its share from the back of the batch while the
  others take slices from the front, so only their share of the ids crosses a pipe; slices shrink
  as the two ends meet (:func:`next_slice`), so neither side waits long for the other at the end.
- **Threads** on a free-threaded build (``sys._is_gil_enabled()`` false): the owner is shared.
- **Sequential** in the browser (Pyodide has neither), for one worker, and below
  :data:`MIN_PARALLEL_CHARS` characters of work, where starting and feeding workers costs more than
  it saves.

The results are those of the sequential loop, in order: each worker runs the very method on its
slice, and the slices are put back in order.

>>> pool = BatchPool(str)
>>> pool.map("upper", ["a", "b"], kind="str", workers=4)  # below the threshold: sequential
['A', 'B']
>>> next_slice([0, 4, 8, 12], 0, 3, 2, 1)  # the first slice of three items of 4 characters, 2 workers
1
"""

from __future__ import annotations

import os
import sys
import weakref
from array import array
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Sequence
from itertools import accumulate
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # the executors (threads, a queue, logging) are imported when a pool first starts
    from concurrent.futures import Executor, Future

__all__ = ["MIN_PARALLEL_CHARS", "MIN_SLICE_CHARS", "BatchPool", "can_use_processes", "free_threaded", "next_slice",
           "pack_id_lists", "pool_machinery", "process_context", "unpack_id_lists"]

MIN_PARALLEL_CHARS = 1 << 18
"""Below this much work (characters to encode, or ids to decode) a batch runs in the calling
process. Measured with 2 started workers on a shared 2-core machine (new text, cl100k_base):
32 K characters ran at 0.45x the sequential speed, 128 K at 0.91x, 512 K at 1.18x."""

MIN_SLICE_CHARS = 1 << 15
"""No slice sent to a worker is much under this much work (what a slice costs to send and unpack
outweighs the balance a smaller one buys), unless the whole batch is small."""

Kind = Literal["ids", "str", "bytes"]

_OWNER: Any = None
"""In a worker process: the owner it was started with."""


def free_threaded() -> bool:
    """Whether this CPython runs without the GIL (then threads share the work).

    >>> free_threaded() in (True, False)
    True
    """
    is_gil_enabled = getattr(sys, "_is_gil_enabled", None)
    return is_gil_enabled is not None and not is_gil_enabled()


def can_use_processes() -> bool:
    """Whether worker processes can be started here (not in Pyodide or WASI, which have no fork)."""
    if sys.platform in ("emscripten", "wasi"):
        return False
    try:
        import multiprocessing.synchronize  # noqa: F401  (fails where the OS has no semaphores)
    except ImportError:
        return False
    return True


def process_context() -> Any:
    """How worker processes start: forked from this process when no other thread could hold a lock
    the new worker needs (quick, and no ``if __name__ == "__main__"`` guard needed, as tiktoken's
    users never need one), else spawned afresh: a process forked while other threads run (a
    progress bar's monitor, a Dask client, an event loop) can inherit a lock one of them held and
    hang forever.

    The threads of process pools do not count (:func:`pool_machinery`): a started pool (this
    encoding's, another encoding's, ``encode_corpus``'s) keeps a manager thread and a queue feeder
    thread alive, and they hold only their own pool's locks, which a new worker never touches.
    Counting them made every second pool of an unguarded script spawn, and so re-run the script
    (``RuntimeError``/``BrokenProcessPool``)."""
    import multiprocessing
    import threading

    me = threading.current_thread()
    alone = all(thread is me or pool_machinery(thread) for thread in threading.enumerate())
    return multiprocessing.get_context("fork" if alone and sys.platform != "win32"
                                       and "fork" in multiprocessing.get_all_start_methods() else "spawn")


def pool_machinery(thread: Any) -> bool:
    """Whether ``thread`` is a process pool's own: a ``ProcessPoolExecutor``'s manager thread or a
    ``multiprocessing`` queue's feeder thread (stdlib code that runs nothing of the user's).

    >>> import threading
    >>> pool_machinery(threading.current_thread())
    False
    """
    futures_process = sys.modules.get("concurrent.futures.process")
    manager = getattr(futures_process, "_ExecutorManagerThread", None)
    if manager is not None and isinstance(thread, manager):
        return True
    queues = sys.modules.get("multiprocessing.queues")
    feed = getattr(getattr(queues, "Queue", None), "_feed", None)
    return feed is not None and getattr(thread, "_target", None) is feed


def pack_id_lists(lists: Sequence[Sequence[int]]) -> tuple[bytes, bytes]:
    """Id lists as two packed ``array('I')`` byte strings: every id, then every list's length.

    >>> unpack_id_lists(*pack_id_lists([[1, 2], [], [3]]))
    [[1, 2], [], [3]]
    """
    ids = array("I")
    for ids_of_one in lists:
        ids.extend(ids_of_one)
    return ids.tobytes(), array("I", map(len, lists)).tobytes()


def unpack_id_lists(ids: bytes, lengths: bytes) -> list[list[int]]:
    """The lists :func:`pack_id_lists` packed."""
    flat = array("I", ids).tolist()
    out, at = [], 0
    for n in array("I", lengths):
        out.append(flat[at:at + n])
        at += n
    return out


def next_slice(prefix: Sequence[int], lo: int, hi: int, workers: int, floor: int, *, back: bool = False) -> int:
    """Where the next slice of items ``lo:hi`` ends (from the front) or starts (``back``): about
    ``1 / (3 * workers)`` of the work left there (``prefix[i]``: the work of the first ``i`` items),
    at least ``floor`` and at least one item. Slices shrink as the work runs out, so the last ones,
    on which the other side may wait, are short.

    >>> prefix = [0, 10, 20, 30, 40, 50, 60]
    >>> next_slice(prefix, 0, 6, 2, 5), next_slice(prefix, 0, 6, 2, 5, back=True), next_slice(prefix, 2, 3, 2, 5)
    (1, 5, 3)
    """
    target = max(floor, (prefix[hi] - prefix[lo]) // (3 * workers))
    if back:
        return max(lo, min(hi - 1, bisect_right(prefix, prefix[hi] - target, lo, hi) - 1))
    return min(hi, max(lo + 1, bisect_left(prefix, prefix[lo] + target, lo + 1, hi + 1)))


def _install(payload: bytes) -> None:
    global _OWNER
    import pickle

    _OWNER = pickle.loads(payload)


def _run_slice(method: str, items: Sequence[Any], kwargs: dict[str, Any], kind: Kind, owner: Any = None) -> Any:
    """Run ``owner.method(item, **kwargs)`` on each item (in a worker: the owner it holds); id
    lists arrive packed (``bytes``) and, as results, leave packed."""
    call = getattr(_OWNER if owner is None else owner, method)
    if isinstance(items, tuple):  # (ids, lengths) as pack_id_lists gives them
        items = unpack_id_lists(*items)
    results = [call(item, **kwargs) for item in items]
    return pack_id_lists(results) if kind == "ids" and owner is None else results


def _shutdown(executor: Executor) -> None:
    executor.shutdown(wait=False, cancel_futures=True)


class BatchPool:
    """Workers for one owner (an ``Encoding``, a ``Tokenizer``): created lazily by :meth:`map`,
    resized when a call asks for more workers, shut down when the owner is collected."""

    def __init__(self, owner: Any, pickled: Callable[[], bytes] | None = None) -> None:
        """``pickled`` gives the bytes a worker unpickles into the owner (default: ``pickle.dumps``)."""
        self._owner = weakref.ref(owner) if _weakrefable(owner) else (lambda: owner)
        self._pickled = pickled
        self._executor: Executor | None = None
        self._threads = False
        self._workers = 0

    def workers_for(self, requested: int | None, work: int) -> int:
        """How many workers a batch of ``work`` characters (or ids) gets: 1 (sequential) where
        parallelism does not pay or cannot run."""
        if requested is None or requested <= 1 or work < MIN_PARALLEL_CHARS:
            return 1
        if not free_threaded() and not can_use_processes():
            return 1
        return max(1, min(requested, os.cpu_count() or 1, work // max(1, MIN_PARALLEL_CHARS // 2)))

    def map(self, method: str, items: Sequence[Any], *, kind: Kind, workers: int | None,
            sizes: Sequence[int] | None = None, local: Any = None, **kwargs: Any) -> list[Any]:
        """``[owner.method(item, **kwargs) for item in items]``, over up to ``workers`` workers.

        ``sizes``: each item's work (default its ``len``); ``kind``: what the method returns. Items
        that are id lists (to decode) and results that are id lists travel packed. ``local``: what
        runs ``method`` in this process (default: the owner; a worker may hold another object than
        the owner, as a ``Tokenizer``'s workers do).

        The calling process is one of the workers. The started workers take slices from the front
        of the batch, two at a time each (one running, one waiting, so none waits for the next);
        this process encodes slices from the back and, between them, feeds the workers and unpacks
        what they sent. Each slice is a share of the work still left (:func:`next_slice`), so the
        slices shrink as the two ends meet and neither side waits long for the other at the end;
        only the workers' share of the ids crosses a pipe.
        """
        owner = self._owner()
        sizes = [len(item) for item in items] if sizes is None else sizes
        n = self.workers_for(workers, sum(sizes))
        call = getattr(owner if local is None else local, method)
        if n <= 1 or len(items) < 2:
            return [call(item, **kwargs) for item in items]
        executor = self._executor_for(n - 1, owner)
        threads = self._threads
        id_lists = not threads and not isinstance(items[0], (str, bytes))
        prefix = [0, *accumulate(sizes)]
        floor = max(1, min(MIN_SLICE_CHARS, prefix[-1] // (8 * n)))
        results: dict[int, list[Any]] = {}  # by the slice's first item
        pending: deque[tuple[int, Future[Any]]] = deque()
        lo, hi = 0, len(items)

        def collect(start: int, future: Future[Any]) -> None:
            result = future.result()
            results[start] = unpack_id_lists(*result) if kind == "ids" and not threads else result

        try:
            while True:
                done = [entry for entry in pending if entry[1].done()]
                while lo < hi and len(pending) - len(done) < 2 * (n - 1):  # the workers' next slices
                    a, lo = lo, next_slice(prefix, lo, hi, n, floor)
                    part = pack_id_lists(items[a:lo]) if id_lists else items[a:lo]
                    pending.append((a, executor.submit(_run_slice, method, part, kwargs, kind, owner if threads else None)))
                for entry in done:
                    pending.remove(entry)
                    collect(*entry)
                if lo >= hi:
                    break
                b, hi = hi, next_slice(prefix, lo, hi, n, floor, back=True)
                results[hi] = [call(item, **kwargs) for item in items[hi:b]]
            while pending:
                collect(*pending.popleft())
        except (OverflowError, TypeError):  # not 32-bit ids to pack: the method itself says what is wrong
            if not id_lists:
                raise
            return [call(item, **kwargs) for item in items]
        finally:
            for _, future in pending:
                future.cancel()
        return [result for start in sorted(results) for result in results[start]]

    def start(self, workers: int) -> None:
        """Start the workers a batch of ``workers`` would use now, and wait until they run (so the
        first batch does not wait for them; later batches reuse them). Nothing for 1 worker or where
        no worker can start.

        >>> BatchPool(str).start(1)
        """
        owner = self._owner()
        n = min(workers, os.cpu_count() or 1)
        if n <= 1 or (not free_threaded() and not can_use_processes()):
            return
        executor = self._executor_for(n - 1, owner)
        for future in [executor.submit(len, ()) for _ in range(n - 1)]:
            future.result()

    def close(self, wait: bool = False) -> None:
        """Stop the workers (a later :meth:`map` starts new ones); ``wait``: until they have exited."""
        if self._executor is not None:
            self._executor.shutdown(wait=wait, cancel_futures=True)
            self._executor, self._workers = None, 0

    def _executor_for(self, n: int, owner: Any) -> Executor:
        if self._executor is not None and self._workers >= n:
            return self._executor
        self.close()
        self._threads = free_threaded()
        if self._threads:
            from concurrent.futures import ThreadPoolExecutor

            self._executor = ThreadPoolExecutor(n, thread_name_prefix="bytepair")
        else:
            from concurrent.futures import ProcessPoolExecutor  # not in Pyodide: imported only here

            import pickle

            payload = self._pickled() if self._pickled is not None else pickle.dumps(owner)
            self._executor = ProcessPoolExecutor(n, mp_context=process_context(), initializer=_install, initargs=(payload,))
        self._workers = n
        weakref.finalize(owner, _shutdown, self._executor) if _weakrefable(owner) else None
        return self._executor


def _weakrefable(obj: Any) -> bool:
    try:
        weakref.ref(obj)
    except TypeError:
        return False
    return True
