"""The bridge's tokenizer.json family (what the browser and Node run) against bytepair.Tokenizer itself:
the same ids and offsets whatever part of the text inspect shows, streams that add up to decode, token
bytes that add up to the text, and a registry that forgets a file once its last user unloads it."""

from __future__ import annotations

import gzip
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair import web_bridge

from tests.hf_reference import hf_folder


@cache
def gpt2() -> tuple[str, bytepair.Tokenizer]:
    source = (hf_folder("gpt2") / "tokenizer.json").read_bytes()
    key = web_bridge.load_tokenizer_json(gzip.compress(source), "gpt2")["key"]
    return key, bytepair.Tokenizer.from_str(source.decode("utf-8"))


TEXT = st.lists(st.text(max_size=6) | st.sampled_from(["\n", "  ", "<|endoftext|>", "🫠", "日本", "'ll"]), max_size=12).map("".join)


@settings(max_examples=60, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=40), st.integers(1, 50))
def test_inspect_window_equals_the_whole_encode(lines: list[str], shown: int) -> None:
    key, tok = gpt2()
    text = "\n".join(lines)
    full = tok.encode(text, add_special_tokens=False)
    r = web_bridge.inspect(key, text, None, None, shown)
    assert r["count"] == len(full.ids)
    assert list(r["ids"]) == full.ids[:shown]
    assert list(r["starts"]) == bytepair.utf16_offsets(text, [s for s, _ in full.offsets[:shown]])
    assert list(r["ends"]) == bytepair.utf16_offsets(text, [e for _, e in full.offsets[:shown]])
    assert r["bytes"] == b"".join(web_bridge.decode_token_bytes(key, full.ids[:shown]))


@settings(max_examples=60, deadline=None)
@given(TEXT, st.lists(st.integers(1, 4), max_size=30))
def test_stream_adds_up_to_decode_and_token_bytes_to_the_text(text: str, cuts: list[int]) -> None:
    key, tok = gpt2()
    ids = tok.encode(text, add_special_tokens=False).ids
    assert b"".join(web_bridge.decode_token_bytes(key, ids)) == text.encode("utf-8")
    handle = web_bridge.stream_open(key)
    parts, i = [], 0
    for size in [*cuts, len(ids)]:
        parts.append(web_bridge.stream_feed(handle, ids[i:i + size]))
        i += size
    parts.append(web_bridge.stream_flush(handle))
    assert web_bridge.stream_close(handle)
    assert "".join(parts) == tok.decode(ids, skip_special_tokens=False) == text


def test_bad_ids_leave_a_stream_as_it_was() -> None:
    key, tok = gpt2()
    handle = web_bridge.stream_open(key)
    ids = tok.encode("🫠!", add_special_tokens=False).ids
    assert web_bridge.stream_feed(handle, ids[:1]) == ""
    assert web_bridge.dispatch("stream_feed", handle, [-1])["error"]["name"] == "InvalidTokenError"
    assert web_bridge.stream_feed(handle, ids[1:]) + web_bridge.stream_flush(handle) == "🫠!"
    web_bridge.stream_close(handle)


def test_registry_shares_one_file_and_forgets_it() -> None:
    source = (hf_folder("gpt2") / "tokenizer.json").read_text(encoding="utf-8") + "\n"  # not the file gpt2() loaded
    before = web_bridge.memory_stats()["loaded_tokenizers"]
    first = web_bridge.load_tokenizer_json(source, "a")
    again = web_bridge.load_tokenizer_json(source.encode("utf-8"), "b")  # the same file, as bytes
    assert first["key"] == again["key"] and web_bridge.memory_stats()["loaded_tokenizers"] == before + 1
    assert web_bridge.unload_tokenizer(first["key"]) and web_bridge.count(first["key"], "hello world") == 2
    assert web_bridge.unload_tokenizer(first["key"]) and not web_bridge.unload_tokenizer(first["key"])
    assert web_bridge.memory_stats()["loaded_tokenizers"] == before
    assert web_bridge.dispatch("count", first["key"], "x")["error"]["name"] == "UnknownEncodingError"


def test_special_token_options_are_checked_then_ignored() -> None:
    key, tok = gpt2()
    ids = tok.encode("a<|endoftext|>", add_special_tokens=False).ids
    assert list(web_bridge.encode(key, "a<|endoftext|>", "all", None)) == ids
    assert list(web_bridge.encode(key, "a<|endoftext|>", None, [])) == ids
    assert web_bridge.dispatch("encode", key, "a", 42, None)["error"]["name"] == "InvalidInputError"


def test_bad_documents() -> None:
    assert web_bridge.dispatch("load_tokenizer_json", b"\x1f\x8b\x08garbage", "x.json.gz")["error"]["name"] == "VocabFormatError"
    assert web_bridge.dispatch("load_tokenizer_json", b"\xff{", "x")["error"]["message"].startswith("x: not UTF-8 JSON")
    assert web_bridge.dispatch("load_tokenizer_json", 42, "x")["error"]["name"] == "InvalidInputError"


def test_inspect_encodes_only_a_prefix_of_a_long_text(monkeypatch) -> None:
    key, tok = gpt2()
    face = web_bridge.faces.loaded[key]
    encoded: list[int] = []
    real = face.tok.encode
    monkeypatch.setattr(face.tok, "encode", lambda text, *a, **k: (encoded.append(len(text)), real(text, *a, **k))[1])
    text = "".join(f"Line {i}: the quick brown fox 🫠 jumps.\n" for i in range(5000))
    r = web_bridge.inspect(key, text, None, None, 20)
    assert r["count"] == tok.count(text) and list(r["ids"]) == tok.encode(text, add_special_tokens=False).ids[:20]
    assert encoded and max(encoded) < len(text) // 50, encoded
