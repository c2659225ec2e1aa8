"""One big plain-text file (one document) is cut into parts where its ids cannot change and spread
over the workers: the shards are byte-identical to one process's and to the reference tokenizer's
ids, two worker processes both encode parts of it, and a document arriving in parts is packed into
shards exactly as if it had come whole (``ShardWriter``, against its whole-document path)."""

from __future__ import annotations

import json
import os
import tempfile
from array import array
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair.corpus import encode as corpus_encode
from bytepair.corpus.documents import DocumentPart, FileDocument
from bytepair.corpus.shards import ShardWriter
from tests.conftest import corpus_texts
from tests.corpus.conftest import shard_bytes
from tests.hf_reference import hf_folder

PIDS = "BYTEPAIR_TEST_CHUNK_PIDS"


def _spy(spec, chunk, part, dtype, eot):  # noqa: ANN001, ANN202 (encode_chunk's own signature)
    """``encode_chunk``, noting which process ran it (a file per process in ``$BYTEPAIR_TEST_CHUNK_PIDS``)."""
    result = _ENCODE_CHUNK(spec, chunk, part, dtype, eot)
    if any(isinstance(item, DocumentPart) for item in chunk):
        Path(os.environ[PIDS], str(os.getpid())).touch()
    return result


_ENCODE_CHUNK = corpus_encode.encode_chunk


@pytest.fixture(scope="module")
def big_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """1.5 M characters of the test corpus (its texts over and over) in one plain-text file, CRLF
    line ends and a BOM kept."""
    texts = corpus_texts()
    text = "\ufeff" + "\r\n\r\n".join(texts[name] for name in sorted(texts) * 7)[:1_500_000]
    path = tmp_path_factory.mktemp("big") / "big.txt"
    path.write_bytes(text.encode("utf-8"))
    return path, text


@pytest.fixture()
def spied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "pids"
    folder.mkdir()
    monkeypatch.setenv(PIDS, str(folder))
    monkeypatch.setattr(corpus_encode, "encode_chunk", _spy)
    monkeypatch.setattr(corpus_encode, "CHUNK_CHARS", 1 << 16)  # every block of the file a chunk of its own
    return folder


def test_a_big_file_is_cut_into_parts(big_file: tuple[Path, str], monkeypatch: pytest.MonkeyPatch) -> None:
    path, text = big_file
    monkeypatch.setattr(corpus_encode, "CHUNK_CHARS", 1 << 16)
    enc = bytepair.get_encoding("cl100k_base")
    chunks = list(corpus_encode._chunks(corpus_encode._items([FileDocument(str(path), path.stat().st_size)], 0, enc)))
    parts = [item for chunk in chunks for item in chunk]
    assert len(chunks) >= 6 and all(isinstance(p, DocumentPart) for p in parts)
    assert [p.last for p in parts] == [False] * (len(parts) - 1) + [True]
    assert "".join(p.text for p in parts) == text
    assert [i for p in parts for i in enc.encode_ordinary(p.text)] == enc.encode_ordinary(text)
    small = FileDocument(str(path), corpus_encode.CHUNK_CHARS)  # not over a chunk: stays whole, read by its worker
    assert list(corpus_encode._items([small], 0, enc)) == [small]


def test_cl100k_one_and_two_processes_byte_identical(tmp_path: Path, big_file: tuple[Path, str], spied: Path,
                                                      tiktoken_ref) -> None:
    path, text = big_file
    for processes in (1, 2):
        bytepair.encode_corpus([path], tmp_path / str(processes), encoding="cl100k_base", processes=processes,
                               shard_tokens=50_000, progress=False)
    pids = {int(p.name) for p in spied.iterdir()}
    assert len(pids - {os.getpid()}) == 2  # both workers encoded parts of the one file
    one, two = shard_bytes(tmp_path / "1"), shard_bytes(tmp_path / "2")
    assert len(one) > 5 and one == two
    manifest = json.loads(one["manifest.json"])
    ids = array("I", b"".join(one[s["file"]] for s in manifest["shards"])).tolist()
    theirs = tiktoken_ref("cl100k_base")
    assert ids == [*theirs.encode_ordinary(text), theirs.eot_token]
    assert [s["documents"] for s in manifest["shards"]] == [0] * (len(manifest["shards"]) - 1) + [1]


def test_tokenizer_json_one_and_two_processes_byte_identical(tmp_path: Path, big_file: tuple[Path, str], spied: Path) -> None:
    tokenizers = pytest.importorskip("tokenizers")
    path, text = big_file
    tokenizer = hf_folder("llama3") / "tokenizer.json"
    for processes in (1, 2):
        bytepair.encode_corpus([path], tmp_path / str(processes), tokenizer=tokenizer, processes=processes,
                               shard_tokens=80_000, progress=False)
    assert len({int(p.name) for p in spied.iterdir()} - {os.getpid()}) == 2
    one, two = shard_bytes(tmp_path / "1"), shard_bytes(tmp_path / "2")
    assert len(one) > 3 and one == two
    manifest = json.loads(one["manifest.json"])
    hf = tokenizers.Tokenizer.from_file(str(tokenizer))
    hf.encode_special_tokens = True
    ids = array("I", b"".join(one[s["file"]] for s in manifest["shards"])).tolist()
    assert ids == [*hf.encode(text, add_special_tokens=False).ids, manifest["eot"]]


@settings(max_examples=60, deadline=None)
@given(docs=st.lists(st.lists(st.integers(0, 6), min_size=1, max_size=4), min_size=1, max_size=8),
       cuts=st.lists(st.booleans(), max_size=40), shard_tokens=st.integers(1, 12))
def test_a_document_in_parts_is_packed_as_a_whole_one(docs: list[list[int]], cuts: list[bool], shard_tokens: int) -> None:
    """``docs``: each document's pieces' id counts (its end-of-text id added to the last); ``cuts``:
    where a chunk ends (after which piece). Shards and manifest entries equal the whole documents'."""
    with tempfile.TemporaryDirectory() as tmp:
        ids, next_id = [], 1
        pieces = []  # (ids, ends the document)
        for doc in docs:
            for at, n in enumerate(doc):
                ends = at == len(doc) - 1
                run = list(range(next_id, next_id + n)) + ([0] if ends else [])
                next_id += n
                pieces.append((run, ends))
                ids += run
        whole_folder, parts_folder = Path(tmp, "whole"), Path(tmp, "parts")
        whole_folder.mkdir()
        parts_folder.mkdir()
        whole: list[dict] = []
        writer = ShardWriter(str(whole_folder), 0, shard_tokens, "uint32", whole.append)
        part = Path(tmp, "whole.part")
        with part.open("wb") as f:
            array("I", ids).tofile(f)
        writer.add_part(str(part), [sum(doc) + 1 for doc in docs])
        writer.finish()
        split: list[dict] = []
        writer = ShardWriter(str(parts_folder), 0, shard_tokens, "uint32", split.append)
        chunk: list[tuple[list[int], bool]] = []
        for index, piece in enumerate(pieces):
            chunk.append(piece)
            if index == len(pieces) - 1 or (cuts[index] if index < len(cuts) else False):
                _write_chunk(writer, Path(tmp, f"part_{index}"), chunk)
                chunk = []
        writer.finish()
        assert split == whole
        assert {p.name: p.read_bytes() for p in parts_folder.iterdir()} == {p.name: p.read_bytes() for p in whole_folder.iterdir()}
        assert sorted(os.listdir(tmp)) == ["parts", "whole"]  # every part file removed


def _write_chunk(writer: ShardWriter, path: Path, chunk: list[tuple[list[int], bool]]) -> None:
    """What ``encode_chunk`` gives for a chunk of pieces: one count per document ending in it, the
    open one last."""
    counts, n = [], 0
    for run, ends in chunk:
        n += len(run)
        if ends:
            counts.append(n)
            n = 0
    if not chunk[-1][1]:
        counts.append(n)
    with path.open("wb") as f:
        array("I", [i for run, _ in chunk for i in run]).tofile(f)
    writer.add_part(str(path), counts, open_end=not chunk[-1][1])
