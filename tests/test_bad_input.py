"""Bad input gets a specific exception whose message says what to do; nothing hangs or goes wrong."""

from __future__ import annotations

import hashlib
import pickle

import pytest

import bytepair
from bytepair import (
    BytepairError,
    InvalidInputError,
    InvalidTokenError,
    UnknownEncodingError,
    UnknownModelError,
    UnsupportedPatternError,
    VocabFormatError,
    VocabHashMismatchError,
)
from bytepair.formats import parse_tiktoken_bpe, read_packed_ranks

from tests.conftest import PACKAGE_DATA

ENC = bytepair.get_encoding("o200k_base")


@pytest.mark.parametrize("bad", [[-1], [ENC.n_vocab], [10**12], [1.5], ["7"], [None], [0, 1, -5]])
def test_invalid_ids(bad: list) -> None:
    with pytest.raises(InvalidTokenError) as info:
        ENC.decode(bad)
    assert isinstance(info.value, (KeyError, ValueError)) and isinstance(info.value, BytepairError)
    message = str(info.value)
    assert "o200k_base" in message or "integers" in message
    with pytest.raises(InvalidTokenError):
        ENC.decode_bytes(bad)
    with pytest.raises(InvalidTokenError):
        ENC.decode_single_token_bytes(bad[-1])


def test_invalid_id_message_names_the_position() -> None:
    with pytest.raises(InvalidTokenError, match="position 2"):
        ENC.decode([0, 1, -5])


def test_unused_id_between_ranks_and_specials() -> None:
    with pytest.raises(InvalidTokenError):
        ENC.decode([199998])  # o200k_base has no token 199998 (o200k_harmony does)
    assert bytepair.get_encoding("o200k_harmony").decode([199998]) == "<|startoftext|>"


def test_accepts_integer_like_ids() -> None:
    array = pytest.importorskip("array")
    ids = ENC.encode("hello")
    assert ENC.decode(array.array("I", ids)) == "hello"
    assert ENC.decode(tuple(ids)) == "hello"
    assert ENC.decode(iter(ids)) == "hello"


def test_unknown_encoding_lists_known_ones() -> None:
    with pytest.raises(UnknownEncodingError, match="o200k_base") as info:
        bytepair.get_encoding("o300k")
    assert isinstance(info.value, ValueError)


def test_unknown_model() -> None:
    with pytest.raises(UnknownModelError, match="get_encoding") as info:
        bytepair.encoding_for_model("llama-17")
    assert isinstance(info.value, KeyError)
    assert "llama-17" in str(info.value)


@pytest.mark.parametrize("bad", [b"bytes", None, 42, ["a"]])
def test_non_str_input(bad: object) -> None:
    for call in (ENC.encode, ENC.encode_ordinary, ENC.count, ENC.encode_with_offsets):
        with pytest.raises(InvalidInputError) as info:
            call(bad)  # type: ignore[arg-type]
        assert isinstance(info.value, TypeError)
    with pytest.raises(InvalidInputError, match="decode"):
        ENC.encode(b"bytes")  # type: ignore[arg-type]


def test_bad_limit() -> None:
    for limit in (-1, 1.5, "3", True):
        with pytest.raises(InvalidInputError):
            ENC.is_within_token_limit("abc", limit)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b"", "no tokens"),
        (b"YQ== 0\nYg==\n", "line 2"),
        (b"YQ== 0\nYQ== 1\n", "appears twice"),
        (b"YQ== 0\nYg== 0\n", "two tokens"),
        (b"!!!! 0\n", "line 1"),
        (b"YQ== -3\n", "line 1"),
        (b"YQ== zero\n", "line 1"),
    ],
)
def test_malformed_tiktoken_files(content: bytes, fragment: str) -> None:
    with pytest.raises(VocabFormatError, match=fragment):
        parse_tiktoken_bpe(content)


def test_truncated_tiktoken_file_fails_its_hash(tmp_path) -> None:
    lines = b"".join(b"%s %d\n" % (__import__("base64").b64encode(bytes((b,))), b) for b in range(256))
    path = tmp_path / "v.tiktoken"
    path.write_bytes(lines[:-40])
    with pytest.raises(VocabHashMismatchError, match="sha256"):
        bytepair.load_tiktoken_bpe(path, expected_hash=hashlib.sha256(lines).hexdigest())
    path.write_bytes(lines)
    assert len(bytepair.load_tiktoken_bpe(path, expected_hash=hashlib.sha256(lines).hexdigest())) == 256


def test_corrupt_packed_ranks() -> None:
    data = (PACKAGE_DATA / "r50k_base.bpr").read_bytes()
    with pytest.raises(VocabHashMismatchError, match="corrupt"):
        read_packed_ranks(data[:-100])
    flipped = bytearray(data)
    flipped[-10] ^= 0xFF
    with pytest.raises(VocabHashMismatchError):
        read_packed_ranks(bytes(flipped))
    with pytest.raises(VocabFormatError, match="magic"):
        read_packed_ranks(b"PK\x03\x04" + data)
    with pytest.raises(VocabFormatError, match="header"):
        read_packed_ranks(b"BPR1\n{not json}\n" + data)


def test_encoding_constructor_validates() -> None:
    ranks = {bytes((b,)): b for b in range(256)}
    with pytest.raises(VocabFormatError, match="single-byte"):
        bytepair.Encoding("x", pat_str=r"\S+", mergeable_ranks={b"a": 0}, special_tokens={})
    with pytest.raises(VocabFormatError, match="share a rank"):
        bytepair.Encoding("x", pat_str=r"\S+", mergeable_ranks={**ranks, b"ab": 5}, special_tokens={})
    with pytest.raises(VocabFormatError, match="also mergeable"):
        bytepair.Encoding("x", pat_str=r"\S+", mergeable_ranks=ranks, special_tokens={"<s>": 3})
    with pytest.raises(VocabFormatError, match="expected 300"):
        bytepair.Encoding("x", pat_str=r"\S+", mergeable_ranks=ranks, special_tokens={}, explicit_n_vocab=300)


def test_untranslatable_pattern_without_regex(monkeypatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_regex(name, *args, **kwargs):
        if name == "regex":
            raise ImportError("no regex here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_regex)
    ranks = {bytes((b,)): b for b in range(256)}
    with pytest.raises(UnsupportedPatternError, match="regex"):
        bytepair.Encoding("x", pat_str=r"\p{Han}+|\w+", mergeable_ranks=ranks, special_tokens={})


def test_invalid_pattern() -> None:
    ranks = {bytes((b,)): b for b in range(256)}
    with pytest.raises(UnsupportedPatternError, match="invalid"):
        bytepair.Encoding("x", pat_str=r"(\p{L}+", mergeable_ranks=ranks, special_tokens={})


def test_huge_input_is_linear_and_exact() -> None:
    text = ("Lorem ipsum dolor sit amet, 東京 🙂 " * 40_000)[:1_200_000]
    ids = ENC.encode(text)
    assert ENC.decode(ids) == text
    assert ENC.count(text) == len(ids)
    assert ENC.is_within_token_limit(text, 1000) is False
    # Blocks cut for memory do not change the ids.
    assert ids == list(__import__("itertools").chain.from_iterable(ENC.engine.cache[p] for p in ENC.engine.split(text)))


def test_pickle_round_trip() -> None:
    assert pickle.loads(pickle.dumps(ENC)) is ENC
    ranks = {bytes((b,)): b for b in range(256)}
    custom = bytepair.Encoding("custom", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={"<s>": 256})
    clone = pickle.loads(pickle.dumps(custom))
    assert clone.encode("hi <s>", allowed_special="all") == custom.encode("hi <s>", allowed_special="all")
