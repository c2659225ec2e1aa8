"""The Python side of the JavaScript API, natively: what `inspect` returns equals the plain API."""

from __future__ import annotations

import pytest

import bytepair
from bytepair import web_bridge
from bytepair.text.words import count_words

from tests.conftest import corpus_texts


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
        count_words(text),
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


@pytest.mark.parametrize(
    ("op", "args", "name", "fragment", "token"),
    [
        ("encode", ("o200k_base", "x <|endoftext|>"), "DisallowedSpecialTokenError", "allowedSpecial: [\"<|endoftext|>\"]", "<|endoftext|>"),
        ("decode", ("o200k_base", [1, -2]), "InvalidTokenError", "-2 at position 1", None),
        ("decode", ("o200k_base", [1], "", "bogus"), "InvalidInputError", "errors must be one of", None),
        ("encode", ("o200k_base", "x", 42), "InvalidInputError", "allowedSpecial must be", None),
        ("inspect", ("o200k_base", "x", None, None, -1), "InvalidInputError", "maxTokens", None),
        ("model_encoding", ("no-such-model",), "UnknownModelError", "no-such-model", None),
        ("encoding_info", ("o300k",), "UnknownEncodingError", "known encodings", None),
        ("stream_feed", (10**9, [1]), "InvalidInputError", "is closed", None),
        ("frobnicate", (), "InvalidInputError", "unknown bridge operation", None),
    ],
)
def test_dispatch_answers_errors_as_data(op: str, args: tuple, name: str, fragment: str, token: str | None) -> None:
    answer = web_bridge.dispatch(op, *args)
    assert set(answer) == {"error"} and set(answer["error"]) == {"name", "message", "token"}
    assert (answer["error"]["name"], answer["error"]["token"]) == (name, token)
    assert fragment in answer["error"]["message"]
    assert "Traceback" not in answer["error"]["message"]


def test_dispatch_values_and_info_use_the_public_api() -> None:
    enc = bytepair.get_encoding("o200k_harmony")
    assert web_bridge.dispatch("count", "o200k_base", "hello world") == {"value": 2}
    info = web_bridge.dispatch("encoding_info", "o200k_harmony")["value"]
    assert info == {
        "name": enc.name, "n_vocab": enc.n_vocab, "max_token_value": enc.max_token_value,
        "eot_token": enc.eot_token, "special_tokens": sorted(enc.special_tokens_set),
    }


def test_inspect_keeps_two_versions_of_an_edited_text() -> None:
    """Every call is the next version of one text: the blocks (and word counts) of older versions
    are let go, where they used to be kept until 8M characters (and 65,536 word counts)."""
    paragraph = "Alpha beta gamma.\n" * 5
    others = [name for name in bytepair.list_encoding_names() if name != "cl100k_base"]
    for name in others:  # what earlier tests left: two versions of the empty text, one empty block each
        web_bridge.inspect(name, "", None, None, 0)
        web_bridge.inspect(name, "", None, None, 0)
    text = ""
    for i in range(300):
        text = f"{paragraph}Line {i} changes\n{paragraph}"
        r = web_bridge.inspect("cl100k_base", text, None, None, 10)
        assert r["count"] == bytepair.get_encoding("cl100k_base").count(text)
    stats = web_bridge.memory_stats()
    blocks = len(list(bytepair.incremental.line_blocks(text)))
    assert stats["cached_blocks"] <= 2 * blocks + len(others) and stats["cached_word_counts"] <= 2 * blocks, stats


def test_stream_handles_are_released() -> None:
    before = web_bridge.memory_stats()["open_decoders"]
    handles = [web_bridge.stream_open("o200k_base") for _ in range(100)]
    assert web_bridge.memory_stats()["open_decoders"] == before + 100
    assert all(web_bridge.stream_close(h) for h in handles)
    assert not web_bridge.stream_close(handles[0])  # closing twice is harmless
    assert web_bridge.memory_stats()["open_decoders"] == before


def test_warm_up_leaves_the_faces_cache_and_ids_alone() -> None:
    """The worker's warm-up encodes through a throwaway engine: every part makes tokens, the face's
    piece cache stays as it was (same pieces, same ids), and a part past the last answers 0."""
    enc = bytepair.get_encoding("o200k_base")
    text = corpus_texts()["mixed"][:3000]
    ids = enc.encode_ordinary(text)
    before = dict(enc.engine.cache)
    made = [web_bridge.warm_up("o200k_base", part) for part in range(web_bridge.WARM_UP_PARTS)]
    assert all(n > 500 for n in made), made
    assert web_bridge.warm_up("o200k_base", web_bridge.WARM_UP_PARTS) == 0
    assert dict(enc.engine.cache) == before
    assert enc.encode_ordinary(text) == ids


def test_warm_up_of_a_tokenizer_json_and_bad_parts() -> None:
    key = web_bridge.load_tokenizer_json(bytepair.Tokenizer.from_encoding("r50k_base").to_str(), "warm")["key"]
    try:
        text = corpus_texts()["de"][:2000]
        ids = list(web_bridge.encode(key, text))
        assert web_bridge.warm_up(key, 0) > 500
        assert list(web_bridge.encode(key, text)) == ids == bytepair.get_encoding("r50k_base").encode_ordinary(text)
    finally:
        web_bridge.unload_tokenizer(key)
    assert web_bridge.dispatch("warm_up", key, 1)["error"]["name"] == "UnknownEncodingError"  # closed meanwhile
    for part in (-1, "0", 1.5):
        assert web_bridge.dispatch("warm_up", "o200k_base", part)["error"]["name"] == "InvalidInputError"


def test_error_names_are_the_classes_errors_mjs_exports() -> None:
    """Every name the bridge gives an error is a class of web/errors.mjs (and of bytepair.d.ts's
    ErrorName), so `err instanceof` works for each error JavaScript can receive."""
    import re
    from pathlib import Path

    from bytepair.errors import EmptyCorpusError, TrainingError, UnsupportedPatternError, VocabHashMismatchError
    from bytepair.web_bridge import JS_ERROR_NAMES, error_info

    web = Path(__file__).resolve().parents[2] / "web"
    listed = re.search(r"export const ERROR_NAMES = \[(.*?)\];", (web / "errors.mjs").read_text(), re.S)
    assert listed is not None
    assert set(re.findall(r'"(\w+)"', listed.group(1))) == JS_ERROR_NAMES
    typed = re.search(r"export type ErrorName =(.*?);", (web / "bytepair.d.ts").read_text(), re.S)
    assert typed is not None and set(re.findall(r'"(\w+)"', typed.group(1))) == JS_ERROR_NAMES
    assert error_info(UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"))["name"] == "InputDecodeError"
    assert error_info(EmptyCorpusError("no text"))["name"] == "InvalidInputError"
    assert error_info(TrainingError("bad"))["name"] == "TrainingError"
    assert error_info(VocabHashMismatchError("bad hash"))["name"] == "VocabFormatError"
    assert error_info(UnsupportedPatternError("refused"))["name"] == "UnsupportedPatternError"
    assert 'UnsupportedPatternError: "UnsupportedTokenizerError"' in (web / "errors.mjs").read_text()  # its parent
