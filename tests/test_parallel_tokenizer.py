"""Tokenizer.encode_batch / decode_batch with num_threads: worker processes give the sequential
loop's results in every field, follow the tokenizer when it changes, and pad the batch as one."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import bytepair.parallel
from bytepair import Tokenizer

from tests.hf_reference import hf_folder

FIELDS = ("ids", "tokens", "offsets", "type_ids", "attention_mask", "special_tokens_mask", "word_ids", "sequence_ids",
          "n_sequences")


def fields(e):
    return {name: getattr(e, name) for name in FIELDS} | {"overflowing": [fields(o) for o in e.overflowing]}


@pytest.fixture(scope="module")
def tok():
    tokenizer = Tokenizer.from_file(str(hf_folder("llama3") / "tokenizer.json"))
    yield tokenizer
    pool = tokenizer.__dict__.get("_batch_pool")
    if pool is not None:
        pool[1].close(wait=True)


@pytest.fixture(autouse=True)
def small_batches_go_wide(monkeypatch):
    monkeypatch.setattr(bytepair.parallel, "MIN_PARALLEL_CHARS", 64)


TEXTS = ["Hello world, how are you?", "ünïcödé and 🙂 emoji", ("a question", "a context here"), "x" * 300, "",
         "special <|begin_of_text|> text", "  spaces   and\ttabs\n"]


def test_parallel_equals_sequential_in_every_field(tok):
    assert tok.parallel_workers(2, [200, 200]) == 2
    sequential = tok.encode_batch(TEXTS)
    parallel = tok.encode_batch(TEXTS, num_threads=2)
    assert [fields(e) for e in parallel] == [fields(e) for e in sequential]
    ids = [e.ids for e in sequential]
    assert tok.decode_batch(ids, num_threads=2) == tok.decode_batch(ids)


def test_workers_follow_the_tokenizer(tok):
    tok.enable_truncation(8, stride=2)
    tok.enable_padding(pad_id=0, pad_token="<|end_of_text|>")
    try:
        sequential = tok.encode_batch(TEXTS)
        parallel = tok.encode_batch(TEXTS, num_threads=2)
        assert [fields(e) for e in parallel] == [fields(e) for e in sequential]
        assert len({len(e.ids) for e in parallel}) == 1  # padded as one batch
    finally:
        tok.no_truncation()
        tok.no_padding()
    tok.add_special_tokens(["<|mine|>"])
    assert [e.ids for e in tok.encode_batch(TEXTS + ["a <|mine|> b"], num_threads=2)] == [
        e.ids for e in tok.encode_batch(TEXTS + ["a <|mine|> b"])]
    tok.encode_special_tokens = True
    try:
        assert [e.ids for e in tok.encode_batch(TEXTS, num_threads=2)] == [e.ids for e in tok.encode_batch(TEXTS)]
    finally:
        tok.encode_special_tokens = False


@settings(max_examples=10, deadline=None)
@given(st.lists(st.text(max_size=40), min_size=2, max_size=6))
def test_random_batches(texts):
    tok = _shared()
    assert [fields(e) for e in tok.encode_batch(texts, num_threads=2)] == [fields(e) for e in tok.encode_batch(texts)]


_TOK: list[Tokenizer] = []


def _shared() -> Tokenizer:
    if not _TOK:
        _TOK.append(Tokenizer.from_file(str(hf_folder("gpt2") / "tokenizer.json")))
    return _TOK[0]


def teardown_module() -> None:
    for tokenizer in _TOK:
        pool = tokenizer.__dict__.get("_batch_pool")
        if pool is not None:
            pool[1].close(wait=True)
    _TOK.clear()


def test_workers_are_spawned_when_other_threads_run(monkeypatch):
    """A process forked while another thread runs can inherit a held lock and hang: the pool spawns
    its workers then (parallel.process_context), with the same results."""
    import threading

    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    try:
        assert bytepair.parallel.process_context().get_start_method() == "spawn"
        tok = Tokenizer.from_file(str(hf_folder("gpt2") / "tokenizer.json"))
        try:
            assert [fields(e) for e in tok.encode_batch(TEXTS, num_threads=2)] == [fields(e) for e in tok.encode_batch(TEXTS)]
        finally:
            tok.batch_pool().close(wait=True)
    finally:
        stop.set()
        other.join()
