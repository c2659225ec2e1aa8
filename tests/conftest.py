"""Shared fixtures: the reference tiktoken 0.14, built offline from the very files bytepair ships."""

from __future__ import annotations

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

