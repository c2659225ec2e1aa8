"""encode_corpus: the shards hold each document's ordinary ids then the end-of-text id (against
tiktoken and HF tokenizers), packed by the documented rule, byte-identical for any number of
processes; numpy reads them back; a changed input or tokenizer is refused."""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair.corpus import read_shards
from bytepair.errors import CorpusMismatchError, InputDecodeError, InvalidInputError, MissingDependencyError
from tests.corpus.conftest import shard_bytes
from tests.hf_reference import hf_folder


def all_ids(folder: Path) -> list[int]:
    manifest = json.loads((folder / "manifest.json").read_text())
    return [i for shard in manifest["shards"]
            for i in numpy.memmap(folder / shard["file"], dtype=manifest["dtype"], mode="r").tolist()]


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base"])
def test_ids_are_tiktokens_with_end_of_text(tmp_path: Path, corpus, small_chunks: None, tiktoken_ref, name: str) -> None:
    paths, docs = corpus
    manifest = bytepair.encode_corpus(paths, tmp_path / "out", encoding=name, processes=1, shard_tokens=5000, progress=False)
    theirs = tiktoken_ref(name)
    expected = [i for doc in docs for i in [*theirs.encode_ordinary(doc), theirs.eot_token]]
    assert all_ids(tmp_path / "out") == expected
    assert manifest["dtype"] == ("uint16" if name == "gpt2" else "uint32") and manifest["eot"] == theirs.eot_token
    assert set(manifest) == {"dtype", "eot", "tokenizer", "shards", "inputs", "complete"} and manifest["complete"] is True
    assert manifest["tokenizer"] == {"name": name, "sha256": bytepair.get_encoding(name).manifest()["sha256"]}
    assert [r["path"] for r in manifest["inputs"]] == paths
    assert sum(s["documents"] for s in manifest["shards"]) == len(docs)
    assert [list(ids) for ids in read_shards(tmp_path / "out")] == [
        numpy.fromfile(tmp_path / "out" / s["file"], dtype=manifest["dtype"]).tolist() for s in manifest["shards"]]


def test_same_bytes_for_one_and_two_processes(tmp_path: Path, corpus, small_chunks: None) -> None:
    paths, _ = corpus
    for processes in (1, 2):
        bytepair.encode_corpus(paths, tmp_path / str(processes), encoding="cl100k_base", processes=processes,
                               shard_tokens=7000, progress=False)
    one, two = shard_bytes(tmp_path / "1"), shard_bytes(tmp_path / "2")
    assert len(one) > 3 and one == two


def test_documents_are_split_only_when_longer_than_a_shard(tmp_path: Path) -> None:
    enc = bytepair.get_encoding("gpt2")
    docs = ["a" + " a" * 4, " b" * 30, " c" * 3, " d" * 4]  # 6, 31, 4 and 5 ids with the end of text
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps({"body": d}) + "\n" for d in docs))
    manifest = bytepair.encode_corpus([path], tmp_path / "out", encoding=enc, processes=1, shard_tokens=10,
                                      jsonl_field="body", progress=False)
    assert [(s["tokens"], s["documents"]) for s in manifest["shards"]] == [(6, 1), (10, 0), (10, 0), (10, 0), (10, 3)]
    assert all_ids(tmp_path / "out") == [i for d in docs for i in [*enc.encode_ordinary(d), enc.eot_token]]


def test_tokenizer_json_against_hf(tmp_path: Path, corpus, small_chunks: None) -> None:
    tokenizers = pytest.importorskip("tokenizers")
    paths, docs = corpus
    folder = hf_folder("qwen2_5")
    manifest = bytepair.encode_corpus(paths, tmp_path / "out", tokenizer=folder / "tokenizer.json", processes=1,
                                      shard_tokens=20000, progress=False)
    hf = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    hf.encode_special_tokens = True
    eot = hf.token_to_id("<|endoftext|>")
    assert manifest["eot"] == eot and manifest["dtype"] == "uint32"
    expected = [i for doc in docs for i in [*hf.encode(doc, add_special_tokens=False).ids, eot]]
    assert all_ids(tmp_path / "out") == expected


def test_a_folder_and_its_bare_tokenizer_json_end_documents_alike(tmp_path: Path) -> None:
    """One end-of-text rule: the vocabulary's document separator before the config's eos_token, which
    for an instruct model (Qwen3: <|im_end|>) is the end of a chat turn."""
    from bytepair.corpus import faces

    folder = hf_folder("qwen3")
    assert json.loads((folder / "tokenizer_config.json").read_text())["eos_token"] == "<|im_end|>"
    in_folder = faces.resolve(tokenizer=folder)
    bare = faces.resolve(tokenizer=folder / "tokenizer.json")
    assert faces.end_of_text(in_folder) == faces.end_of_text(bare) == bare.token_to_id("<|endoftext|>")


def test_changed_input_or_tokenizer_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("some text")
    out = tmp_path / "out"
    bytepair.encode_corpus([path], out, encoding="gpt2", processes=1, progress=False)
    before = shard_bytes(out)
    assert bytepair.encode_corpus([path], out, encoding="gpt2", processes=1, progress=False)["complete"]
    assert shard_bytes(out) == before  # run again: nothing changes
    with pytest.raises(CorpusMismatchError, match="the tokenizer changed"):
        bytepair.encode_corpus([path], out, encoding="r50k_base", processes=1, progress=False)
    path.write_text("other text")
    with pytest.raises(CorpusMismatchError, match="the inputs .* changed"):
        bytepair.encode_corpus([path], out, encoding="gpt2", processes=1, progress=False)
    with pytest.raises(CorpusMismatchError, match="shard_tokens"):
        path.write_text("some text")
        bytepair.encode_corpus([path], out, encoding="gpt2", processes=1, shard_tokens=5, progress=False)
    assert shard_bytes(out) == before


def test_bad_inputs_say_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"content": "x"}\n')
    with pytest.raises(InvalidInputError, match="no text field 'text' .*--jsonl-field"):
        bytepair.encode_corpus([bad], tmp_path / "o1", encoding="gpt2", processes=1, progress=False)
    with pytest.raises(InvalidInputError, match="is not a file"):
        bytepair.encode_corpus([tmp_path / "missing.txt"], tmp_path / "o2", processes=1, progress=False)
    (tmp_path / "bad.txt").write_bytes(b"ok \xff bad")
    with pytest.raises(InputDecodeError, match="invalid UTF-8 at byte 3 .* Convert the file to UTF-8: a corpus"):
        bytepair.encode_corpus([tmp_path / "bad.txt"], tmp_path / "o4", encoding="gpt2", processes=1, progress=False)
    zst = tmp_path / "a.jsonl.zst"
    zst.write_bytes(b"")
    monkeypatch.setitem(__import__("sys").modules, "zstandard", None)  # as if not installed
    with pytest.raises(MissingDependencyError, match=r"bytepair\[corpus\]"):
        bytepair.encode_corpus([zst], tmp_path / "o3", encoding="gpt2", processes=1, progress=False)


def test_zst_and_parquet(tmp_path: Path) -> None:
    zstandard = pytest.importorskip("zstandard")
    parquet = pytest.importorskip("pyarrow.parquet")
    import pyarrow

    docs = ["first document", "second, <|endoftext|> as text", "ünïcödé"]
    (tmp_path / "a.jsonl.zst").write_bytes(zstandard.compress("".join(json.dumps({"text": d}) + "\n" for d in docs).encode()))
    parquet.write_table(pyarrow.table({"text": docs[::-1]}), tmp_path / "b.parquet")
    bytepair.encode_corpus([tmp_path / "a.jsonl.zst", tmp_path / "b.parquet"], tmp_path / "out", encoding="gpt2",
                           processes=1, progress=False)
    enc = bytepair.get_encoding("gpt2")
    assert all_ids(tmp_path / "out") == [i for d in docs + docs[::-1] for i in [*enc.encode_ordinary(d), enc.eot_token]]


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bytepair.cli import main

    path = tmp_path / "a.txt"
    path.write_text("hello world")
    out = io.BytesIO()
    assert main(["encode-corpus", str(path), "-o", str(tmp_path / "out"), "--encoding", "gpt2", "--processes", "1"], stdout=out) == 0
    assert all_ids(tmp_path / "out") == [31373, 995, 50256]
    summary = out.getvalue().decode()
    assert "1 documents, 3 tokens (uint16) in 1 shards" in summary
    assert " 0.0 MB/s" not in summary and " MB/s of input" in summary  # 11 bytes: a rate with its digits, not 0.0
    assert main(["encode-corpus", str(path), "-o", str(tmp_path / "out"), "--encoding", "r50k_base"]) == 1
    assert "the tokenizer changed" in capsys.readouterr().err
    assert main(["encode-corpus", str(path), "-o", str(tmp_path / "o2"), "--encoding", "no_such"]) == 2
    with pytest.raises(SystemExit):
        main(["encode-corpus", str(path), "-o", str(tmp_path / "o3"), "--shard-tokens", "0"])


@settings(max_examples=15, deadline=None)
@given(docs=st.lists(st.text(max_size=60) | st.sampled_from(["<|endoftext|>", " " * 90, "x" * 200]), max_size=12),
       shard_tokens=st.integers(3, 40))
def test_any_documents_any_shard_size(docs: list[str], shard_tokens: int) -> None:
    enc = bytepair.get_encoding("gpt2")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "docs.jsonl"
        path.write_text("".join(json.dumps({"text": d}) + "\n" for d in docs), encoding="utf-8")
        manifest = bytepair.encode_corpus([path], Path(tmp) / "out", encoding=enc, processes=1,
                                          shard_tokens=shard_tokens, progress=False)
        assert all_ids(Path(tmp) / "out") == [i for d in docs for i in [*enc.encode_ordinary(d), enc.eot_token]]
    sizes = [len(enc.encode_ordinary(d)) + 1 for d in docs]
    assert sum(s["documents"] for s in manifest["shards"]) == len(docs)
    assert all(0 < s["tokens"] <= shard_tokens for s in manifest["shards"])
    if max(sizes, default=0) <= shard_tokens:  # no document split: each shard holds whole documents
        starts, at = set(), 0
        for n in sizes:
            starts.add(at)
            at += n
        bounds, at = [], 0
        for s in manifest["shards"]:
            bounds.append(at)
            at += s["tokens"]
        assert set(bounds) <= starts
