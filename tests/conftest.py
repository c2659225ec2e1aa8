"""Shared fixtures: the reference tiktoken 0.14, built offline from the very files bytepair ships.

tiktoken reads a URL's content from ``TIKTOKEN_CACHE_DIR/<sha1(url)>`` and checks it against the
official sha256 it pins. We expand bytepair's packed ranks back to the official ``.tiktoken`` text
and GPT-2's files from ``tests/data``, so a packing error would fail here, loudly, inside tiktoken.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path

import pytest

import bytepair
from bytepair.formats import expand_to_tiktoken_text, read_packed_ranks

DATA = Path(__file__).parent / "data"
CORPUS = DATA / "corpus"
PACKAGE_DATA = Path(bytepair.__file__).parent / "data"

ALL_ENCODINGS = bytepair.list_encoding_names()
_URLS = {
    "r50k_base": "https://openaipublic.blob.core.windows.net/encodings/r50k_base.tiktoken",
    "p50k_base": "https://openaipublic.blob.core.windows.net/encodings/p50k_base.tiktoken",
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}
_GPT2_URLS = {
    "vocab.bpe": "https://openaipublic.blob.core.windows.net/gpt-2/encodings/main/vocab.bpe",
    "encoder.json": "https://openaipublic.blob.core.windows.net/gpt-2/encodings/main/encoder.json",
}


def corpus_texts() -> dict[str, str]:
    return {p.stem: p.read_text(encoding="utf-8") for p in sorted(CORPUS.glob("*.txt"))}


def gpt2_file(name: str) -> bytes:
    return gzip.decompress((DATA / f"gpt2_{name}.gz").read_bytes())


@pytest.fixture(scope="session")
def tiktoken_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = tmp_path_factory.mktemp("tiktoken-cache")
    for name, url in _URLS.items():
        packed = read_packed_ranks((PACKAGE_DATA / f"{name}.bpr").read_bytes())
        key = hashlib.sha1(url.encode()).hexdigest()
        (cache / key).write_bytes(expand_to_tiktoken_text(packed.tokens))
    for fname, url in _GPT2_URLS.items():
        (cache / hashlib.sha1(url.encode()).hexdigest()).write_bytes(gpt2_file(fname))
    return cache


@pytest.fixture(scope="session")
def tiktoken_ref(tiktoken_cache_dir: Path):
    """``tiktoken.get_encoding``, offline, hash-checked by tiktoken itself."""
    tiktoken = pytest.importorskip("tiktoken")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(tiktoken_cache_dir)
    assert tiktoken.__version__ == "0.14.0", tiktoken.__version__
    return tiktoken.get_encoding


@pytest.fixture(params=ALL_ENCODINGS)
def encoding_name(request: pytest.FixtureRequest) -> str:
    return request.param
