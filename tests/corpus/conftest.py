"""A small corpus in every input form encode_corpus reads, and the ids it must give."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from bytepair.corpus import encode as corpus_encode
from tests.conftest import corpus_texts


def documents_of(texts: dict[str, str]) -> list[str]:
    """The .jsonl documents the corpus fixture writes: each text cut at blank lines."""
    return [doc for name in sorted(texts) for doc in texts[name].split("\n\n")]


@pytest.fixture()
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of ~4 K characters, so a small corpus is many chunks (the parent cuts them)."""
    monkeypatch.setattr(corpus_encode, "CHUNK_CHARS", 4096)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], list[str]]:
    """(input paths, their documents in order): two .jsonl (one gzipped) and two plain-text files
    (one with CRLF and a BOM, one holding special-token text)."""
    folder = tmp_path_factory.mktemp("corpus")
    texts = corpus_texts()
    names = sorted(texts)
    first, second = names[: len(names) // 2], names[len(names) // 2:]
    a = folder / "a.jsonl"
    a.write_text("".join(json.dumps({"id": i, "text": d}) + "\n" for i, d in enumerate(documents_of({n: texts[n] for n in first}))),
                 encoding="utf-8")
    b = folder / "b.jsonl.gz"
    b.write_bytes(gzip.compress("".join(json.dumps({"text": d}) + "\n" for d in documents_of({n: texts[n] for n in second})).encode()))
    plain = "\ufeffline one\r\nline two <|endoftext|> and <|im_end|>\r\n"
    c = folder / "c.txt"
    c.write_bytes(plain.encode("utf-8"))
    d = folder / "d.txt"
    d.write_text(texts["en"], encoding="utf-8", newline="")
    docs = documents_of({n: texts[n] for n in first}) + documents_of({n: texts[n] for n in second}) + [plain, texts["en"]]
    return [str(a), str(b), str(c), str(d)], docs


def shard_bytes(folder: Path) -> dict[str, bytes]:
    """Every file of an output folder but the hidden ones, by name."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if not p.name.startswith(".")}
