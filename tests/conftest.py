"""Shared fixtures: the reference tiktoken 0.14, built offline from the very files bytepair ships."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from collections.abc import Iterator

import pytest

import bytepair

from tests.browser import browser, dist_server, site_server  # noqa: F401 - fixtures for the browser tests
from tests.tiktoken_offline import DATA, PACKAGE_DATA, fill_cache, gpt2_file, offline_tiktoken

__all__ = ["ALL_ENCODINGS", "CORPUS", "DATA", "PACKAGE_DATA", "corpus_texts", "gpt2_file"]

CORPUS = DATA / "corpus"
ALL_ENCODINGS = bytepair.list_encoding_names()


def corpus_texts() -> dict[str, str]:
    return {p.stem: p.read_text(encoding="utf-8") for p in sorted(CORPUS.glob("*.txt"))}


@pytest.fixture(scope="session")
def tiktoken_ref(tmp_path_factory: pytest.TempPathFactory):
    """``tiktoken.get_encoding``, offline, hash-checked by tiktoken itself."""
    pytest.importorskip("tiktoken")
    return offline_tiktoken(fill_cache(tmp_path_factory.mktemp("tiktoken-cache")))


@pytest.fixture(autouse=True, scope="module")
def _release_after_module(request: pytest.FixtureRequest) -> Iterator[None]:
    """What a test module kept for its own tests goes when it ends: its ``functools.cache``d loaders
    (a module's nine open models, HF's and ours, are ~1.5 GB), the shared encodings' piece caches, and
    the heap pages freed by that. A worker runs one module after another (``--dist loadfile``), and
    kept them all before: 4.3 GB per worker."""
    yield
    for value in list(vars(request.module).values()):
        if callable(getattr(value, "cache_clear", None)) and getattr(value, "__module__", None) == request.module.__name__:
            value.cache_clear()
    for enc in list(bytepair.registry.ENCODINGS.values()):
        enc.engine.cache.clear()
    gc.collect()
    _trim_heap()


def _trim_heap() -> None:
    """Give freed heap pages back to the system (glibc's ``malloc_trim``); nothing elsewhere."""
    name = ctypes.util.find_library("c")
    libc = ctypes.CDLL(name) if name else None
    trim = getattr(libc, "malloc_trim", None)
    if trim is not None:
        trim(0)
