"""cli/counting.py: ``count``'s special-token note, ``--tokenizer NAME``, and ``decode`` in blocks
held equal to the whole-input reader (``parse_id_lists`` and ``Encoding.decode_bytes``) and bounded
in memory."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair.cli import main, parse_id_lists
from bytepair.cli.counting import NotUtf8Output, SpecialText, decode_in_blocks, id_blocks, open_tokenizer
from bytepair.errors import InvalidInputError

from tests.hf_reference import hf_folder

ENC = bytepair.get_encoding("cl100k_base")


def run(args: list[str], stdin: bytes = b"") -> tuple[int, bytes]:
    out = io.BytesIO()
    return main(args, stdout=out, stdin=io.BytesIO(stdin)), out.getvalue()


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.integers(0, 100_255), max_size=12), min_size=1, max_size=5), st.sampled_from(["json", "space"]),
       st.integers(1, 5))
def test_id_blocks_read_what_the_whole_reader_reads(lists: list[list[int]], form: str, block: int) -> None:
    text = "\n".join(json.dumps(ids) for ids in lists) if form == "json" else " , ".join(str(i) for ids in lists for i in ids)
    flat = [i for ids in parse_id_lists(text) for i in ids]
    blocks = list(id_blocks(io.BytesIO(text.encode()), block=block))
    assert [i for ids in blocks for i in ids] == flat
    assert all(len(ids) <= block for ids in blocks)
    out = io.BytesIO()
    decode_in_blocks(ENC, io.BytesIO(text.encode()), out, strict=False)
    assert out.getvalue() == ENC.decode_bytes(flat)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="[]0123456789, -+\n\tx", max_size=30))
def test_id_blocks_refuse_what_the_whole_reader_refuses(text: str) -> None:
    try:
        want = [i for ids in parse_id_lists(text) for i in ids]
    except ValueError:
        want = None
    try:
        got = [i for ids in id_blocks(io.BytesIO(text.encode())) for i in ids]
    except ValueError:
        got = None
    assert got == want


@pytest.mark.parametrize("cut", [1, 2, 3])
def test_strict_decode_names_the_first_bad_byte_across_blocks(cut: int, monkeypatch) -> None:
    ids = ENC.encode("héllo ") + ENC.encode("🫠")[:1] + ENC.encode(" ok")
    data = ENC.decode_bytes(ids)
    with pytest.raises(UnicodeDecodeError) as want:
        data.decode("utf-8")
    import bytepair.cli.counting as counting

    blocks = counting.id_blocks
    monkeypatch.setattr(counting, "id_blocks", lambda source: blocks(source, block=cut))
    out = io.BytesIO()
    with pytest.raises(NotUtf8Output) as got:
        decode_in_blocks(ENC, io.BytesIO(json.dumps(ids).encode()), out, strict=True)
    assert got.value.offset == want.value.start
    assert data[: want.value.start].startswith(out.getvalue())  # whole characters only, before the bad byte


class _Digest:
    """An output that keeps only the sha256 of what is written."""

    def __init__(self) -> None:
        self.sha = hashlib.sha256()

    def write(self, data: bytes) -> None:
        self.sha.update(data)


def _decode_peak(path, ids: list[int]) -> int:
    out = _Digest()
    tracemalloc.start()
    try:
        decode_in_blocks(ENC, str(path), out, strict=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out.sha.hexdigest() == hashlib.sha256(ENC.decode_bytes(ids)).hexdigest()
    return peak


def test_decode_holds_a_block_not_the_input(tmp_path) -> None:
    """The peak is the same for 100 k ids and for 800 k (whole, the 800 k ints alone are ~28 MB)."""
    ids = ENC.encode("The quick brown fox jumps over the lazy dog. " * 80_000)  # 800 k ids
    small, large = tmp_path / "small.json", tmp_path / "large.json"
    small.write_text(json.dumps(ids[:100_000]))
    large.write_text(json.dumps(ids))
    peaks = _decode_peak(small, ids[:100_000]), _decode_peak(large, ids)
    assert peaks[1] < peaks[0] * 1.3 + (1 << 20) and peaks[1] < 16 << 20, peaks


def test_a_bad_id_is_named_by_its_place_in_the_whole_input(capsys) -> None:
    ids = [5] * 70_000 + [-2]
    assert run(["decode", "-e", "cl100k_base"], json.dumps(ids).encode())[0] == 1
    assert "-2 at position 70000 " in capsys.readouterr().err


def test_special_text_is_seen_across_chunks() -> None:
    for cut in range(1, 14):
        text = "ab <|endoftext|> cd"
        seen = SpecialText(ENC)
        assert "".join(seen.watch([text[:cut], text[cut:]])) == text
        assert seen.found == "<|endoftext|>"
    seen = SpecialText(ENC)
    list(seen.watch(["<|endof", "prompt", "|>"]))
    assert seen.found == "<|endofprompt|>"


def test_count_notes_special_text_once_per_file_and_totals(tmp_path, capsys) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("x <|endoftext|> y", encoding="utf-8")
    b.write_text("plain", encoding="utf-8")
    code, out = run(["count", "-e", "cl100k_base", str(a), str(b)])
    n_a, n_b = ENC.count("x <|endoftext|> y", disallowed_special=()), ENC.count("plain")
    assert (code, out.decode()) == (0, f"{n_a}\t{a}\n{n_b}\t{b}\n{n_a + n_b}\ttotal\n")
    err = capsys.readouterr().err
    assert err.count("note:") == 1 and f"{a} holds special-token text (<|endoftext|>)" in err
    code, out = run(["count", "--disallow-special", "-e", "cl100k_base", str(a), str(b)])
    assert (code, out.decode()) == (1, f"{n_b}\t{b}\n{n_b}\ttotal\n")


def test_tokenizer_names_open_the_prepared_files(tmp_path, capsys) -> None:
    source = hf_folder("gpt2") / "tokenizer.json"
    packed = tmp_path / "gpt2.json.gz"
    packed.write_bytes(gzip.compress(source.read_bytes()))
    named = {"gpt2": {"path": str(packed), "sha256": hashlib.sha256(packed.read_bytes()).hexdigest()}}
    text = "Hello <|endoftext|> wörld 🫠"
    want = bytepair.Tokenizer.from_file(str(source)).encode(text, add_special_tokens=False).ids
    assert open_tokenizer("gpt2", named).encode(text, add_special_tokens=False).ids == want
    with pytest.raises(InvalidInputError, match="reinstall"):
        open_tokenizer("gpt2", {"gpt2": {**named["gpt2"], "sha256": "0" * 64}})
    # natively there are no prepared files: the name is a usage error saying what to give
    code, _ = run(["count", "-t", "llama3"], b"x")
    assert code == 2 and "give a tokenizer.json" in capsys.readouterr().err
