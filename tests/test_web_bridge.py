"""The Python side of the JavaScript API, natively: what `inspect` returns equals the plain API."""

from __future__ import annotations

import pytest

import bytepair
from bytepair import web_bridge

from .conftest import corpus_texts


@pytest.mark.parametrize("text", ["", "hi", "a🫠b𠀀c\n日本語 words  and\tmore\n", corpus_texts()["mixed"], "x\ud800y"])
@pytest.mark.parametrize("shown", [0, 3, 2000])
def test_inspect_equals_the_plain_api(text: str, shown: int) -> None:
    enc = bytepair.get_encoding("o200k_base")
    r = web_bridge.inspect("o200k_base", text, None, [], shown)
    count, ids, starts, ends, lengths, data = (r[k] for k in ("count", "ids", "starts", "ends", "lengths", "bytes"))
    stats = (r["utf16_length"], r["code_points"], r["words"], r["utf8_bytes"])
    all_ids, spans = enc.encode_with_offsets(text, disallowed_special=())
    assert count == len(all_ids)
    assert list(ids) == all_ids[:shown]
    assert list(starts) == bytepair.utf16_offsets(text, [s for s, _ in spans[:shown]])
    assert list(ends) == bytepair.utf16_offsets(text, [e for _, e in spans[:shown]])
    assert bytes(data) == b"".join(enc.decode_tokens_bytes(all_ids[:shown]))
    assert list(lengths) == [len(b) for b in enc.decode_tokens_bytes(all_ids[:shown])]
    assert stats == (
        len(text.encode("utf-16-le", "surrogatepass")) // 2,
        len(text),
        len(text.split()),
        len(text.encode("utf-8", "surrogatepass")),
    )


def test_inspect_after_edits_and_policies() -> None:
    enc = bytepair.get_encoding("cl100k_base")
    text = corpus_texts()["en"]
    for i, edit in enumerate(["x", "\nNew", " <|endoftext|> ", "🫠"]):
        at = len(text) * (i + 1) // 5
        text = text[:at] + edit + text[at:]
        count = web_bridge.inspect("cl100k_base", text, "all", None, 100)["count"]
        assert count == enc.count(text, allowed_special="all")
    with pytest.raises(bytepair.DisallowedSpecialTokenError):
        web_bridge.inspect("cl100k_base", text, None, None, 100)


def test_encode_and_decode_bridge() -> None:
    enc = bytepair.get_encoding("o200k_base")
    assert web_bridge.encode("o200k_base", "hello <|endoftext|>", "all").tolist() == enc.encode("hello <|endoftext|>", allowed_special="all")
    ids = enc.encode("héllo")
    raw = web_bridge.encode("o200k_base", "héllo").tobytes()
    assert web_bridge.decode("o200k_base", raw, "I") == "héllo"
    assert web_bridge.decode("o200k_base", ids) == "héllo"
    with pytest.raises(bytepair.InvalidTokenError):
        web_bridge.decode("o200k_base", (-1).to_bytes(4, "little", signed=True), "i")
    handle = web_bridge.stream_open("o200k_base")
    parts = [web_bridge.stream_feed(handle, [i]) for i in enc.encode("🫠")]
    assert "".join(parts) + web_bridge.stream_flush(handle) == "🫠"
    web_bridge.stream_close(handle)
    with pytest.raises(bytepair.InvalidInputError, match="closed"):
        web_bridge.stream_feed(handle, [1])
