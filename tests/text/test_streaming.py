"""Text in chunks: blocks cut at exact points give the ids of the whole text, in bounded memory."""

from __future__ import annotations

import io
import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair.pre_tokenizers.pattern import Pretokenizer
from bytepair.pre_tokenizers.pattern.splitter import CUT_WINDOW
from bytepair.pipeline.blocks import DEFAULT_BLOCK_CHARS, BlockCutter
from bytepair.text.reading import read_utf8_chunks

from tests.conftest import ALL_ENCODINGS, corpus_texts
from tests.pre_tokenizers.test_pretokenize import _realistic_texts_without_spaces


def _chunked(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in zip(points, points[1:])]


@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base", "o200k_base"])
def test_stream_equals_whole_on_corpus(name: str) -> None:
    enc = bytepair.get_encoding(name)
    text = ("".join(corpus_texts().values()) + "".join(_realistic_texts_without_spaces().values())) * 3
    chunks = _chunked(text, list(range(0, len(text), 9973)))
    blocks = list(enc.stream_blocks(chunks))
    assert "".join(blocks) == text and len(blocks) > 3
    assert [i for ids in enc.encode_stream(chunks) for i in ids] == enc.encode(text)
    assert enc.count_stream(iter(chunks)) == enc.count(text)


# Text near the cut rules, special tokens and their near misses, surrogate halves split across chunks.
_ALPHABET = st.sampled_from(
    list("aB \n\r\t!/'s1é\u0301日，。,\":{}=+_-²\x85\u3000") + ["<|endoftext|>", "<|endof", "text|>", "<|im_start|>", "\ud83d", "\ude00", "🙂"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ALPHABET, max_size=120).map("".join), st.lists(st.integers(0, 400), max_size=12),
       st.sampled_from(["cl100k_base", "o200k_base", "r50k_base", "o200k_harmony"]), st.integers(1, 40))
def test_stream_equals_whole_property(text: str, cuts: list[int], name: str, block: int) -> None:
    enc = bytepair.get_encoding(name)
    cutter = BlockCutter(enc.engine.pre_tokenizer, enc._scanner, block)
    blocks = [b for chunk in _chunked(text, cuts) for b in cutter.push(chunk)] + [cutter.finish()]
    assert "".join(blocks) == text
    policy = {"allowed_special": "all"}
    assert [i for b in blocks for i in enc.encode(b, **policy)] == enc.encode(text, **policy)


def test_special_token_arriving_in_parts_is_not_cut() -> None:
    enc = bytepair.get_encoding("o200k_base")
    text = "x," * 3000 + "<|endoftext|>" + ",y" * 3000
    chunks = list(text)  # one character at a time
    assert [i for ids in enc.encode_stream(chunks, allowed_special="all") for i in ids] == enc.encode(text, allowed_special="all")
    with pytest.raises(bytepair.DisallowedSpecialTokenError):
        enc.count_stream(chunks)


def test_blocks_stay_bounded_without_spaces() -> None:
    """CSV with CRLF and one-line minified JSON: no block grows far past the block size."""
    enc = bytepair.get_encoding("cl100k_base")
    rows = "".join(f"{i},user_{i % 977},{i * 7919 % 100003},2026-11-{i % 28 + 1:02d}\r\n" for i in range(60_000))
    minified = '{"k":[' + ",".join(f'"v{i}"' for i in range(200_000)) + "]}"
    for text in (rows, minified):
        chunks = _chunked(text, list(range(0, len(text), 1 << 16)))
        sizes = [len(b) for b in enc.stream_blocks(chunks)]
        assert sum(sizes) == len(text) and len(sizes) >= len(text) // (2 * DEFAULT_BLOCK_CHARS)
        assert max(sizes) < DEFAULT_BLOCK_CHARS + (1 << 16) + 64


@pytest.mark.parametrize(("name", "group"), [("cl100k_base", 3), ("o200k_base", 3), ("r50k_base", None)])
def test_runs_of_digits_are_cut_between_groups(name: str, group: int | None) -> None:
    """A line of digits holds no cut point for the rules that need a letter or a symbol. Where the
    pattern takes numbers three at a time, a run is cut between groups counted from its start (a
    17 MB line of digits, held whole, peaked at 490 MB); r50k takes a run as one piece: never cut."""
    enc = bytepair.get_encoding(name)
    assert enc.engine.pre_tokenizer.digit_group == group
    rng = random.Random(7)
    text = "x " + "".join(rng.choices("0123456789", k=300_001)) + "٣٣٣٣٣ ①②③ end"
    chunks = _chunked(text, list(range(0, len(text), 16_411)))
    sizes = [len(b) for b in BlockCutter(enc.engine.pre_tokenizer, enc._scanner, 20_000).push(text)]
    in_memory = list(enc.engine.pre_tokenizer.blocks(text, 20_000))
    assert "".join(in_memory) == text
    if group is None:
        assert sizes == [] and len(in_memory) == 1
    else:
        assert len(sizes) >= 10 and max(sizes) < 20_000 + group and len(in_memory) >= 10
        assert all(len(block) % 3 == 0 for block in in_memory[1:-1])  # groups from the run's start at "x "
    assert [i for ids in enc.encode_stream(chunks) for i in ids] == enc.encode(text)
    assert [i for block in in_memory for i in enc.encode(block)] == enc.encode(text)


@pytest.mark.parametrize("filler", [" ", "7", "x"])
def test_cut_search_stays_near_the_end_without_cut_points(monkeypatch, filler: str) -> None:
    """A long run with no safe cut (spaces, digits, one letter) arriving in chunks: each chunk is
    searched near the target and near its end, not character by character (which cost ~1.5 us a
    character, 2.9 s for 2 MB of spaces), and the count is still the whole text's."""
    searched = 0
    find_cut = Pretokenizer.find_cut

    def counting(self, text, start, end=None):
        nonlocal searched
        searched += (len(text) if end is None else min(end, len(text))) - start
        return find_cut(self, text, start, end)

    monkeypatch.setattr(Pretokenizer, "find_cut", counting)
    enc = bytepair.get_encoding("o200k_base")
    text = filler * 2_000_000 + " tail"
    chunks = _chunked(text, list(range(0, len(text), 1 << 17)))
    assert enc.count_stream(iter(chunks)) == enc.count(text)
    assert 0 < searched <= 2 * len(chunks) * CUT_WINDOW


def test_limit_stops_reading_chunks() -> None:
    enc = bytepair.get_encoding("o200k_base")
    read = 0

    def endless():
        nonlocal read
        for i in itertools.count():
            read += 1
            if read > 10_000:
                raise AssertionError("is_within_token_limit kept reading after the limit")
            yield f"row {i}, value {i * 3};"

    assert enc.is_within_token_limit(endless(), 1000) is False
    assert read < 1000
    assert enc.is_within_token_limit(["a b", " c"], 10) == 3


def test_limit_on_a_long_string_reads_little(monkeypatch) -> None:
    seen = 0
    split = Pretokenizer.split

    def counting(self, text):
        nonlocal seen
        seen += len(text)
        return split(self, text)

    monkeypatch.setattr(Pretokenizer, "split", counting)
    text = '{"key":"value","n":12345}' * 700_000  # 17 MB, one line, no whitespace
    enc = bytepair.get_encoding("cl100k_base")
    assert enc.is_within_token_limit(text, 1000) is False
    assert seen < 20_000


def test_count_file_reads_bytes_exactly(tmp_path, tiktoken_ref) -> None:
    data = "\ufeffid,name\r\n1,\"Zoë\"\r\n2,日本\r\rend".encode() * 5000
    path = tmp_path / "f.csv"
    path.write_bytes(data)
    expected = len(tiktoken_ref("cl100k_base").encode(data.decode("utf-8")))
    enc = bytepair.get_encoding("cl100k_base")
    assert enc.count_file(path) == expected
    with open(path, "rb") as f:
        assert enc.count_file(f) == expected
    with pytest.raises(bytepair.InvalidInputError, match="binary mode"):
        with open(path, encoding="utf-8") as f:
            enc.count_file(f)


@pytest.mark.parametrize("chunk_bytes", [1, 2, 3, 7, 1 << 20])
def test_invalid_utf8_offset_across_chunks(chunk_bytes: int) -> None:
    data = "é🙂".encode() * 10 + b"\xf0\x9f\x99" + b"x"  # a truncated 4-byte character at byte 60
    with pytest.raises(bytepair.InputDecodeError, match="at byte 60"):
        list(read_utf8_chunks(io.BytesIO(data), chunk_bytes=chunk_bytes))
    assert "".join(read_utf8_chunks(io.BytesIO(data), errors="replace", chunk_bytes=chunk_bytes)) == data.decode("utf-8", "replace")
    assert isinstance(bytepair.InputDecodeError("x"), ValueError)


@pytest.mark.parametrize("name", ALL_ENCODINGS)
def test_encode_to_array_equals_encode(name: str) -> None:
    enc = bytepair.get_encoding(name)
    text = "".join(corpus_texts().values())
    assert enc.encode_to_array(text).tolist() == enc.encode(text)


def test_encode_to_array_is_compact() -> None:
    """Peak memory grows by at most 8 bytes per extra token (the array, 4 bytes per id, plus its
    headroom); what does not grow with the text (piece cache churn, one block) is the constant."""
    import tracemalloc

    enc = bytepair.get_encoding("o200k_base")
    text = "".join(corpus_texts().values())
    enc.encode_to_array(text)

    def peak(t: str) -> tuple[int, int]:
        tracemalloc.start()
        try:
            n = len(enc.encode_to_array(t))
            return n, tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    (n1, p1), (n4, p4) = peak(text * 3), peak(text * 12)
    assert (p4 - p1) / (n4 - n1) <= 8


def test_token_counter_pushed_bytes_split_anywhere(tiktoken_ref) -> None:
    data = ("Zoë,日本,🙂\r\n" * 2000).encode()
    enc = bytepair.get_encoding("o200k_base")
    counter = enc.token_counter()
    for i in range(0, len(data), 7):
        counter.feed_bytes(data[i : i + 7])
    assert counter.finish() == len(tiktoken_ref("o200k_base").encode(data.decode()))
    bad = enc.token_counter()
    bad.feed_bytes(b"ok")
    with pytest.raises(bytepair.InputDecodeError, match="at byte 2"):
        bad.feed_bytes(b"\xff")
    truncated = enc.token_counter()
    truncated.feed_bytes("ab🙂".encode()[:4])
    with pytest.raises(bytepair.InputDecodeError, match="at byte 2"):
        truncated.finish()
