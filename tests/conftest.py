"""Shared fixtures: the reference tiktoken 0.14, built offline from the very files bytepair ships."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
import os
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


@pytest.fixture(autouse=True)
def _trim_after_a_big_test() -> Iterator[None]:
    """After a test that leaves the worker big, the heap pages it freed go back to the system at once.
    A reference loaded for one test (HF's gemma3, ~300 MB of Rust heap) is freed into glibc's heap,
    which Python's own arenas do not reuse: without this, the next big load stacked on top of it
    (1.38 GB at test_chat_template's gemma3 save_pretrained). Only above _BIG_RSS: a trim walks the heap."""
    yield
    if _rss_bytes() > _BIG_RSS:
        _trim_heap()


_BIG_RSS = 512 << 20


def _rss_bytes() -> int:
    """This process's resident size (Linux's /proc/self/statm); 0 elsewhere."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@functools.cache
def _libc_trim():
    name = ctypes.util.find_library("c")
    libc = ctypes.CDLL(name) if name else None
    return getattr(libc, "malloc_trim", None)


def _trim_heap() -> None:
    """Give freed heap pages back to the system (glibc's ``malloc_trim``); nothing elsewhere."""
    trim = _libc_trim()
    if trim is not None:
        trim(0)
