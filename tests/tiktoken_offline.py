"""Build tiktoken 0.14 offline from the rank data bytepair ships (used by the tests and the benchmarks).

tiktoken reads a URL's content from ``TIKTOKEN_CACHE_DIR/<sha1(url)>`` and checks it against the
official sha256 it pins. The packed ranks are expanded back to the official ``.tiktoken`` text and
GPT-2's files come from ``tests/data``, so a packing error fails loudly, inside tiktoken.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path

import bytepair
from bytepair.formats import expand_to_tiktoken_text, read_packed_ranks

DATA = Path(__file__).parent / "data"
PACKAGE_DATA = Path(bytepair.__file__).parent / "data"

_BASE = "https://openaipublic.blob.core.windows.net"
_URLS = {f"{_BASE}/encodings/{name}.tiktoken": name for name in ("r50k_base", "p50k_base", "cl100k_base", "o200k_base")}
_GPT2_URLS = {f"{_BASE}/gpt-2/encodings/main/{name}": name for name in ("vocab.bpe", "encoder.json")}


def gpt2_file(name: str) -> bytes:
    """GPT-2's original ``encoder.json`` or ``vocab.bpe`` (gzip copies in tests/data)."""
    return gzip.decompress((DATA / f"gpt2_{name}.gz").read_bytes())


def fill_cache(cache: Path) -> Path:
    """Write every file tiktoken's OpenAI encodings need into ``cache``, named as tiktoken expects."""
    cache.mkdir(parents=True, exist_ok=True)
    for url, name in _URLS.items():
        packed = read_packed_ranks((PACKAGE_DATA / f"{name}.bpr").read_bytes())
        (cache / hashlib.sha1(url.encode()).hexdigest()).write_bytes(expand_to_tiktoken_text(packed.tokens))
    for url, name in _GPT2_URLS.items():
        (cache / hashlib.sha1(url.encode()).hexdigest()).write_bytes(gpt2_file(name))
    return cache


def offline_tiktoken(cache: Path):
    """Point tiktoken at ``cache`` (filled by ``fill_cache``) and return ``tiktoken.get_encoding``."""
    import tiktoken

    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    assert tiktoken.__version__ == "0.14.0", tiktoken.__version__
    return tiktoken.get_encoding
