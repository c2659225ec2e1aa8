"""Vocabulary formats: the packed data are the official files; user files load; GPT-2's pair agrees."""

from __future__ import annotations

import hashlib

import pytest

import bytepair
from bytepair.formats import (
    expand_to_tiktoken_text,
    load_gpt2_files,
    pack_ranks,
    parse_gpt2_files,
    read_packed_ranks,
    with_raw_payload,
)
from bytepair.data.openai import ENCODING_SPECS

from tests.conftest import PACKAGE_DATA, gpt2_file

OFFICIAL_SHA256 = {
    "r50k_base": "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
    "p50k_base": "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}


@pytest.mark.parametrize("name", sorted(OFFICIAL_SHA256))
def test_packed_data_expands_to_the_official_file(name: str) -> None:
    packed = read_packed_ranks((PACKAGE_DATA / f"{name}.bpr").read_bytes())
    assert packed.header["source_sha256"] == OFFICIAL_SHA256[name]
    assert hashlib.sha256(expand_to_tiktoken_text(packed.tokens)).hexdigest() == OFFICIAL_SHA256[name]


@pytest.mark.parametrize("name", sorted(OFFICIAL_SHA256))
def test_the_browser_bundles_raw_payload_holds_the_same_ranks(name: str) -> None:
    """The bundle ships each rank file with its payload as it is (for the server's Brotli): the same
    tokens, fragment tables and source hash; its own payload hash still guards it."""
    data = (PACKAGE_DATA / f"{name}.bpr").read_bytes()
    raw = with_raw_payload(data)
    packed, unpacked = read_packed_ranks(data), read_packed_ranks(raw)
    assert unpacked.header["payload_coding"] == "raw" and "payload_coding" not in packed.header
    assert unpacked.tokens == packed.tokens
    assert unpacked.char_fragments == packed.char_fragments is not None
    assert unpacked.header["source_sha256"] == OFFICIAL_SHA256[name]
    flipped = bytearray(raw)
    flipped[-10] ^= 0x01
    with pytest.raises(bytepair.VocabHashMismatchError, match="corrupt"):
        read_packed_ranks(bytes(flipped))


def test_an_unknown_payload_coding_is_refused() -> None:
    data = with_raw_payload((PACKAGE_DATA / "r50k_base.bpr").read_bytes())
    with pytest.raises(bytepair.VocabFormatError, match="payload coding"):
        read_packed_ranks(data.replace(b'"payload_coding": "raw"', b'"payload_coding": "zstd"', 1))


def test_every_spec_has_its_data() -> None:
    for spec in ENCODING_SPECS.values():
        assert (PACKAGE_DATA / f"{spec.ranks_file}.bpr").is_file()


def test_pack_round_trip_with_gaps() -> None:
    ranks = {bytes((b,)): b for b in range(256)} | {b"ab": 300, b"\xff\xfe\xff": 257}
    packed = read_packed_ranks(pack_ranks(ranks, name="t"))
    assert packed.ranks() == ranks
    assert packed.tokens[256] == b"" and len(packed.tokens) == 301


def test_gpt2_files_equal_r50k(tmp_path) -> None:
    encoder, merges = gpt2_file("encoder.json"), gpt2_file("vocab.bpe")
    (tmp_path / "encoder.json").write_bytes(encoder)
    (tmp_path / "vocab.bpe").write_bytes(merges)
    ranks = load_gpt2_files(
        tmp_path / "encoder.json",
        tmp_path / "vocab.bpe",
        encoder_json_hash="196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
        vocab_bpe_hash="1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
    )
    assert ranks == bytepair.get_encoding("r50k_base")._mergeable_ranks
    with pytest.raises(bytepair.VocabHashMismatchError):
        load_gpt2_files(tmp_path / "encoder.json", tmp_path / "vocab.bpe", vocab_bpe_hash="0" * 64)


def test_gpt2_files_that_disagree() -> None:
    encoder, merges = gpt2_file("encoder.json"), gpt2_file("vocab.bpe")
    lines = merges.split(b"\n")
    swapped = b"\n".join([lines[0], lines[2], lines[1], *lines[3:]])
    with pytest.raises(bytepair.VocabFormatError, match="disagree"):
        parse_gpt2_files(encoder, swapped)
    with pytest.raises(bytepair.VocabFormatError, match="version"):
        parse_gpt2_files(encoder, merges.split(b"\n", 1)[1])
    with pytest.raises(bytepair.VocabFormatError, match="encoder.json"):
        parse_gpt2_files(b"[1, 2]", merges)


def test_user_tiktoken_file_builds_an_equal_encoding(tmp_path) -> None:
    builtin = bytepair.get_encoding("cl100k_base")
    path = tmp_path / "cl100k_base.tiktoken"
    path.write_bytes(expand_to_tiktoken_text(read_packed_ranks((PACKAGE_DATA / "cl100k_base.bpr").read_bytes()).tokens))
    ranks = bytepair.load_tiktoken_bpe(path, expected_hash=OFFICIAL_SHA256["cl100k_base"])
    spec = ENCODING_SPECS["cl100k_base"]
    mine = bytepair.Encoding("my_cl100k", pat_str=spec.pattern, mergeable_ranks=ranks, special_tokens=spec.special_tokens)
    text = "Some text, 日本語, and <|endoftext|> 🙂"
    assert mine.encode(text, allowed_special="all") == builtin.encode(text, allowed_special="all")
