"""The standing robustness table: each public entry point, each kind of bad input, the error a user
gets (type, and a fragment of a message that says what to do). Nothing here may hang, leak a
traceback from deep inside, or answer with a wrong id.

The JavaScript API has its own table (``web/test/`` under Node, ``tests/web/test_web_bundle.py`` in
Chromium); the differential fuzz against tiktoken is ``tests/test_fuzz_differential.py``.
"""

from __future__ import annotations

import gzip
import io
import subprocess
import sys
from collections.abc import Callable

import pytest

import bytepair
from bytepair import (
    BytepairError,
    DisallowedSpecialTokenError,
    EncodingRegistrationError,
    InputDecodeError,
    InvalidInputError,
    InvalidTokenError,
    UnknownEncodingError,
    UnknownModelError,
    VocabFormatError,
)

from tests.conftest import DATA

ENC = bytepair.get_encoding("cl100k_base")
RANKS = {bytes((b,)): b for b in range(256)}

# (what, call, error type, the built-in type tiktoken raises there, message fragment)
TABLE: list[tuple[str, Callable[[], object], type, type, str]] = [
    ("encode(bytes)", lambda: ENC.encode(b"x"), InvalidInputError, TypeError, "decode bytes first"),
    ("encode(None)", lambda: ENC.encode(None), InvalidInputError, TypeError, "must be a str"),
    ("encode disallowed special", lambda: ENC.encode("a<|endoftext|>"), DisallowedSpecialTokenError, ValueError, "allowed_special"),
    ("count(int)", lambda: ENC.count(5), InvalidInputError, TypeError, "must be a str"),
    ("limit negative", lambda: ENC.is_within_token_limit("x", -1), InvalidInputError, TypeError, "non-negative"),
    ("limit bool", lambda: ENC.is_within_token_limit("x", True), InvalidInputError, TypeError, "non-negative"),
    ("stream of bytes", lambda: ENC.count_stream([b"x"]), InvalidInputError, TypeError, "each chunk"),
    ("stream is bytes", lambda: ENC.count_stream(b"x"), InvalidInputError, TypeError, "decode bytes first"),
    ("stream is None", lambda: ENC.count_stream(None), InvalidInputError, TypeError, "iterable of str chunks"),
    ("limit of bytes", lambda: ENC.is_within_token_limit(b"x", 5), InvalidInputError, TypeError, "decode bytes first"),
    ("allowed_special a string", lambda: ENC.encode("a", allowed_special="<|endoftext|>"), InvalidInputError, TypeError,
     "for that one token write {'<|endoftext|>'}"),
    ("disallowed_special a string", lambda: ENC.encode("a", disallowed_special="<|endoftext|>"), InvalidInputError, TypeError,
     "set of special-token strings"),
    ("file is None", lambda: ENC.count_file(None), InvalidInputError, TypeError, "binary mode ('rb'), not NoneType"),
    ("special token as bytes", lambda: bytepair.Encoding("x", pat_str=".", mergeable_ranks=RANKS, special_tokens={b"<|x|>": 300}),
     InvalidInputError, TypeError, "keys must be str"),
    ("file in text mode", lambda: ENC.count_file(io.StringIO("x")), InvalidInputError, TypeError, "binary mode"),
    ("file not UTF-8", lambda: ENC.count_file(io.BytesIO(b"ab\xffc")), InputDecodeError, ValueError, "at byte 2"),
    ("decode negative", lambda: ENC.decode([1, -1]), InvalidTokenError, ValueError, "position 1"),
    ("decode float", lambda: ENC.decode([1.5]), InvalidTokenError, ValueError, "integers"),
    ("decode str", lambda: ENC.decode(["7"]), InvalidTokenError, ValueError, "integers"),
    ("decode too big", lambda: ENC.decode([2**40]), InvalidTokenError, KeyError, "valid ids are 0.."),
    ("single token", lambda: ENC.encode_single_token("hello world"), InvalidTokenError, KeyError, "use encode()"),
    ("single token type", lambda: ENC.encode_single_token(3), InvalidInputError, TypeError, "str or bytes"),
    ("unknown encoding", lambda: bytepair.get_encoding("o300k"), UnknownEncodingError, ValueError, "known encodings"),
    ("empty encoding", lambda: bytepair.get_encoding(""), UnknownEncodingError, ValueError, "known encodings"),
    ("unknown model", lambda: bytepair.encoding_for_model("llama-9"), UnknownModelError, KeyError, "get_encoding()"),
    ("empty model", lambda: bytepair.encoding_for_model(""), UnknownModelError, KeyError, "get_encoding()"),
    ("register empty", lambda: bytepair.register_encoding("", lambda: ENC), EncodingRegistrationError, ValueError, "non-empty"),
    ("register taken", lambda: bytepair.register_encoding("gpt2", lambda: ENC), EncodingRegistrationError, ValueError, "replace=True"),
    ("register no function", lambda: bytepair.register_encoding("mine", None), EncodingRegistrationError, ValueError, "function"),
    ("ranks missing bytes", lambda: bytepair.Encoding("x", pat_str=".", mergeable_ranks={b"a": 0}, special_tokens={}),
     VocabFormatError, ValueError, "single-byte"),
    ("ranks sparse", lambda: bytepair.Encoding("x", pat_str=".", mergeable_ranks={**RANKS, b"ab": 10**9}, special_tokens={}),
     VocabFormatError, ValueError, "dense"),
    ("tiktoken file garbage", lambda: bytepair.parse_tiktoken_bpe(b"not base64!! x\n"), VocabFormatError, ValueError, "line 1"),
    ("vocab.bpe not UTF-8", lambda: bytepair.parse_gpt2_files(b"{}", b"#version: 0.2\n\xff\xfe\n"), VocabFormatError, ValueError,
     "not UTF-8"),
    ("encoder.json not an object", lambda: bytepair.parse_gpt2_files(b"[1]", b"#version: 0.2\n"), VocabFormatError, ValueError,
     "token->id"),
]


@pytest.mark.parametrize(("what", "call", "error", "builtin", "fragment"), TABLE, ids=[row[0] for row in TABLE])
def test_python_api_table(what: str, call: Callable[[], object], error: type, builtin: type, fragment: str) -> None:
    with pytest.raises(error) as info:
        call()
    assert isinstance(info.value, BytepairError) and isinstance(info.value, builtin), what
    assert fragment in str(info.value), str(info.value)


def test_huge_special_id_is_a_sparse_entry_not_a_dense_table() -> None:
    top = 2**32 - 1  # the largest id there is: 32 bits, as tiktoken's Rank and HF's u32
    enc = bytepair.Encoding("huge", pat_str=r"\S+|\s+", mergeable_ranks=RANKS, special_tokens={"<|x|>": top})
    assert enc.encode("a<|x|>", allowed_special="all") == [97, top]
    assert enc.decode([97, top]) == "a<|x|>" and enc.n_vocab == top + 1
    with pytest.raises(InvalidTokenError, match=f"0..{top}"):
        enc.decode([top - 1])
    with pytest.raises(VocabFormatError, match="2\\*\\*32 - 1"):
        bytepair.Encoding("huger", pat_str=r"\S+|\s+", mergeable_ranks=RANKS, special_tokens={"<|x|>": 2**32})


def test_gpt2_files_with_crlf_line_ends() -> None:
    encoder = gzip.decompress((DATA / "gpt2_encoder.json.gz").read_bytes())
    merges = gzip.decompress((DATA / "gpt2_vocab.bpe.gz").read_bytes())
    assert bytepair.parse_gpt2_files(encoder, merges.replace(b"\n", b"\r\n")) == bytepair.parse_gpt2_files(encoder, merges)


def test_utf16_offsets_take_the_spans_of_encode_with_offsets() -> None:
    text = "a🙂 b𠀀"
    ids, spans = ENC.encode_with_offsets(text)
    converted = bytepair.utf16_offsets(text, spans)
    js_units = text.encode("utf-16-le")
    assert [js_units[2 * s : 2 * e].decode("utf-16-le") for s, e in converted] == [text[s:e] for s, e in spans]


# ---------------------------------------------------------------- the command line

CLI_TABLE = [
    (["count", "-e", "nope"], b"", 2, "known encodings"),
    (["count", "-e", ""], b"", 2, "must not be empty"),
    (["count", "-m", ""], b"", 2, "must not be empty"),
    (["count", "-m", "llama-9"], b"", 2, "pick the encoding with -e"),
    (["count", "/no/such/file"], b"", 1, "No such file"),
    (["count"], b"ok \xff", 1, "invalid UTF-8 at byte 3"),
    (["count"], b"<|endoftext|>", 0, "counted as ordinary text"),
    (["count", "--disallow-special"], b"<|endoftext|>", 1, "--allow-special"),
    (["decode"], b"[1, -2]", 1, "position 1"),
    (["decode"], b"[1, [2]]", 1, "flat JSON list"),
    (["decode"], b"[" * 50_000, 1, "cannot read token ids"),
    (["decode"], b"\xff", 1, "cannot read token ids"),
    (["decode", "--strict"], b"[104]", 1, "valid UTF-8"),
    (["frobnicate"], b"", 2, "invalid choice"),
]


@pytest.mark.parametrize(("args", "stdin", "code", "fragment"), CLI_TABLE, ids=[" ".join(a[:2]) + f"-{i}" for i, (a, *_) in enumerate(CLI_TABLE)])
def test_cli_table(args: list[str], stdin: bytes, code: int, fragment: str) -> None:
    result = subprocess.run([sys.executable, "-m", "bytepair", *args], input=stdin, capture_output=True, timeout=120)
    err = result.stderr.decode()
    assert result.returncode == code, err
    assert fragment in err and "Traceback" not in err
