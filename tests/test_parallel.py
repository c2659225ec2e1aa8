"""Parallel batches (``bytepair/parallel.py``) give the sequential loop's results, in order: the
batch methods of ``Encoding`` over worker processes against ``encode``/``decode`` one text at a
time, and against tiktoken's own batch methods."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bytepair
from bytepair import parallel
from bytepair.errors import DisallowedSpecialTokenError

texts = st.lists(st.text(st.characters(codec="utf-8"), max_size=40) | st.sampled_from(
    ["hello world", " \n\n  x", "<|endoftext|>", "日本語のテキスト", "x" * 300, "   " * 50]), max_size=12)


@pytest.fixture(scope="module")
def enc() -> bytepair.Encoding:
    return bytepair.get_encoding("cl100k_base")


@pytest.fixture()
def always_parallel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "MIN_PARALLEL_CHARS", 2)  # every batch of 2+ characters goes to workers


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=texts)
def test_parallel_batches_equal_sequential(enc: bytepair.Encoding, always_parallel: None, batch: list[str]) -> None:
    ids = [enc.encode_ordinary(t) for t in batch]
    assert enc.encode_ordinary_batch(batch, num_threads=2) == ids
    assert enc.encode_batch(batch, num_threads=2, disallowed_special=()) == ids
    assert enc.decode_bytes_batch(ids, num_threads=2) == [enc.decode_bytes(i) for i in ids]
    assert enc.decode_batch(ids, num_threads=2) == [enc.decode(i) for i in ids]


def test_workers_are_started_once_and_reused(enc: bytepair.Encoding, always_parallel: None) -> None:
    enc.encode_ordinary_batch(["a b", "c d"], num_threads=2)
    first = enc.batch_pool._executor  # noqa: SLF001 (the test looks at the pool's one executor)
    enc.encode_ordinary_batch(["e f", "g h"], num_threads=2)
    assert first is not None and enc.batch_pool._executor is first  # noqa: SLF001


def test_parallel_matches_tiktoken(enc: bytepair.Encoding, always_parallel: None, tiktoken_ref) -> None:
    theirs = tiktoken_ref("cl100k_base")
    batch = ["Hello, world!", "  indented\n\tcode()", "ünïcödé 🙂", "<|endoftext|> as text"] * 5
    assert enc.encode_ordinary_batch(batch, num_threads=2) == theirs.encode_ordinary_batch(batch, num_threads=2)
    assert enc.encode_batch(batch, num_threads=2, allowed_special="all") == theirs.encode_batch(
        batch, num_threads=2, allowed_special="all")


def test_disallowed_special_is_refused_before_the_workers(enc: bytepair.Encoding, always_parallel: None) -> None:
    with pytest.raises(DisallowedSpecialTokenError, match="allowed_special=.'<.endoftext.>'"):
        enc.encode_batch(["fine", "a <|endoftext|>"], num_threads=2)


def test_small_batches_and_the_browser_stay_sequential(enc: bytepair.Encoding, monkeypatch: pytest.MonkeyPatch) -> None:
    pool = parallel.BatchPool(enc)
    assert pool.workers_for(8, 10) == 1  # below MIN_PARALLEL_CHARS
    monkeypatch.setattr(parallel.sys, "platform", "emscripten")
    assert not parallel.can_use_processes()
    assert (pool.workers_for(8, 10 * parallel.MIN_PARALLEL_CHARS) == 1) is not parallel.free_threaded()


def test_ids_that_are_not_32_bit_get_the_sequential_error(enc: bytepair.Encoding, always_parallel: None) -> None:
    from bytepair.errors import InvalidTokenError

    for bad in (-1, 1 << 40):
        with pytest.raises(InvalidTokenError, match="not a token id"):
            enc.decode_batch([[1, 2], [bad]], num_threads=2)


UNGUARDED = '''
import os, sys, tempfile
import bytepair
from bytepair import parallel
parallel.MIN_PARALLEL_CHARS = 2
texts = ["some ordinary text, repeated. " * 40, "and more <|endoftext|> text"] * 6
for name in ("cl100k_base", "gpt2"):  # a second encoding's pool starts while the first one's threads run
    enc = bytepair.get_encoding(name)
    assert parallel.process_context().get_start_method() == "fork"
    assert enc.encode_ordinary_batch(texts, num_threads=2) == [enc.encode_ordinary(t) for t in texts]
folder = tempfile.mkdtemp()
path = os.path.join(folder, "a.txt")
open(path, "w").write(texts[0])
manifest = bytepair.encode_corpus([path, path], os.path.join(folder, "out"), encoding="gpt2", processes=2, progress=False)
print("unguarded ok", manifest["complete"], manifest["shards"][0]["documents"])
'''


@pytest.mark.skipif(parallel.sys.platform == "win32" or not parallel.can_use_processes(), reason="fork: POSIX only")
def test_a_script_without_a_main_guard_starts_a_second_pool(tmp_path) -> None:
    """tiktoken's users never write ``if __name__ == "__main__":``: a batch of a second encoding, and
    encode_corpus after a batch, start their pools while the first pool's manager and feeder
    threads run. Those threads must not turn the start method to spawn (which re-runs the script
    in each worker: RuntimeError, then BrokenProcessPool)."""
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "unguarded.py"
    script.write_text(UNGUARDED)
    env = {**parallel.os.environ, "PYTHONPATH": str(Path(parallel.__file__).resolve().parents[1])}
    run = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip() == "unguarded ok True 2"


def test_other_threads_still_mean_spawn() -> None:
    import threading

    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    try:
        assert not parallel.pool_machinery(other)
        assert parallel.process_context().get_start_method() == "spawn"
    finally:
        stop.set()
        other.join()


def test_free_threaded_builds_share_the_work_with_threads(enc: bytepair.Encoding, always_parallel: None,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the GIL is off (parallel.free_threaded()), the workers are threads sharing the owner, and
    the calling thread takes its share too: the same ids, decodes and order."""
    monkeypatch.setattr(parallel, "free_threaded", lambda: True)
    batch = ["hello world", "ünïcödé 🙂", "x" * 300, "", "<|endoftext|> text", "日本語のテキスト " * 20] * 5
    pool = parallel.BatchPool(enc)
    try:
        ids = pool.map("encode_ordinary", batch, kind="ids", workers=2)
        assert type(pool._executor).__name__ == "ThreadPoolExecutor"
        assert ids == [enc.encode_ordinary(t) for t in batch]
        assert pool.map("decode", ids, kind="str", workers=2) == [enc.decode(i) for i in ids]
    finally:
        pool.close(wait=True)


@settings(max_examples=200, deadline=None)
@given(sizes=st.lists(st.integers(0, 50), min_size=1, max_size=40), workers=st.integers(2, 8),
       floor=st.integers(1, 60), ends=st.lists(st.booleans(), max_size=80))
def test_slices_from_both_ends_cover_the_batch_once(sizes: list[int], workers: int, floor: int, ends: list[bool]) -> None:
    """Taking slices from the front and the back in any order (as the workers and the calling process
    do) covers every item once, each slice holds at least one item, and a slice is never much
    bigger than a share of what was left."""
    from itertools import accumulate

    prefix = [0, *accumulate(sizes)]
    lo, hi, seen = 0, len(sizes), []
    for back in [*ends, *[False] * len(sizes)]:
        if lo >= hi:
            break
        left = prefix[hi] - prefix[lo]
        if back:
            b, hi = hi, parallel.next_slice(prefix, lo, hi, workers, floor, back=True)
            a = hi
        else:
            a, lo = lo, parallel.next_slice(prefix, lo, hi, workers, floor)
            b = lo
        assert lo <= hi and a < b
        work = prefix[b] - prefix[a]
        assert b - a == 1 or work - max(sizes[a:b]) < max(floor, left // (3 * workers))  # no item more than needed
        seen += range(a, b)
    assert sorted(seen) == list(range(len(sizes)))


def test_start_runs_the_workers_a_batch_then_reuses(enc: bytepair.Encoding, always_parallel: None) -> None:
    pool = parallel.BatchPool(enc)
    try:
        pool.start(2)
        first = pool._executor  # noqa: SLF001 (the test looks at the pool's one executor)
        assert first is not None and len(first._processes if hasattr(first, "_processes") else [1]) >= 1
        batch = ["a b", "c d", "e f"] * 3
        assert pool.map("encode_ordinary", batch, kind="ids", workers=2) == [enc.encode_ordinary(t) for t in batch]
        assert pool._executor is first  # noqa: SLF001
    finally:
        pool.close(wait=True)
