"""Hypothesis properties: round trip, offsets, counts, and parity with tiktoken on generated text."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bytepair

ENCODINGS = ["o200k_base", "cl100k_base", "r50k_base"]
# Text without surrogates (those are repaired, so they cannot round-trip by design).
texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=300)
tricky = st.text(alphabet=" \t\n\r\x85\xa0\u3000'sSdtT/!?.09aZé\u0301日🙂𠀀\ufeff", max_size=200)


@settings(max_examples=300, deadline=None)
@given(st.one_of(texts, tricky), st.sampled_from(ENCODINGS))
def test_round_trip(text: str, name: str) -> None:
    enc = bytepair.get_encoding(name)
    ids = enc.encode_ordinary(text)
    assert enc.decode(ids) == text
    assert enc.decode_bytes(ids) == text.encode("utf-8")
    assert enc.count(text, disallowed_special=()) == len(ids)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(texts, tricky), st.sampled_from(ENCODINGS))
def test_parity_with_tiktoken(tiktoken_ref, text: str, name: str) -> None:
    assert bytepair.get_encoding(name).encode_ordinary(text) == tiktoken_ref(name).encode_ordinary(text)


@settings(max_examples=300, deadline=None)
@given(st.one_of(texts, tricky), st.sampled_from(ENCODINGS))
def test_offsets_properties(text: str, name: str) -> None:
    enc = bytepair.get_encoding(name)
    ids, spans = enc.encode_with_offsets(text, disallowed_special=())
    assert ids == enc.encode(text, disallowed_special=())
    assert len(spans) == len(ids)
    previous_start, previous_end = 0, 0
    for (start, end), token in zip(spans, ids):
        assert 0 <= start < end <= len(text)  # never empty, always inside
        assert start >= previous_start and end >= previous_end  # monotone
        assert start <= previous_end  # no gaps: each token starts where the last ended or inside it
        previous_start, previous_end = start, end
        # The token's bytes lie inside the UTF-8 of its span.
        assert enc.decode_single_token_bytes(token) in text[start:end].encode("utf-8")
    assert previous_end == len(text)  # together the spans cover the whole text


@settings(max_examples=200, deadline=None)
@given(texts, st.integers(min_value=0, max_value=60))
def test_is_within_token_limit(text: str, limit: int) -> None:
    enc = bytepair.get_encoding("o200k_base")
    n = enc.count(text, disallowed_special=())
    result = enc.is_within_token_limit(text, limit, disallowed_special=())
    assert result == (n if n <= limit else False)


@settings(max_examples=200, deadline=None)
@given(texts, st.integers(min_value=1, max_value=5))
def test_stream_decoder_equals_decode(text: str, step: int) -> None:
    enc = bytepair.get_encoding("cl100k_base")
    ids = enc.encode_ordinary(text)
    stream = enc.stream_decoder()
    out = "".join(stream.feed(ids[i : i + step]) for i in range(0, len(ids), step)) + stream.flush()
    assert out == text
