"""HF ``tokenizers``' BpeTrainer set up as ``bytepair.train`` promises to match: the reference of the
training tests (ByteLevel alphabet, ByteLevel(add_prefix_space=False) for GPT-2's pattern, else
Split(Regex, "isolated") + ByteLevel(use_regex=False))."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

import bytepair
from bytepair.formats.rank_table import onig_pattern
from bytepair.data.openai import ENCODING_SPECS, R50K_PATTERN

GPT2_NAMES = {name for name, spec in ENCODING_SPECS.items() if spec.pattern == R50K_PATTERN}


def hf_train(texts: Sequence[str], vocab_size: int, pattern: str = "o200k_base", special_tokens: Sequence[str] = (),
             min_frequency: int = 0, max_token_length: int | None = None) -> Any:
    tk = pytest.importorskip("tokenizers")
    from tokenizers import Regex, decoders, models, pre_tokenizers, trainers

    tok = tk.Tokenizer(models.BPE())
    if pattern in GPT2_NAMES:
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    else:
        # An encoding's pattern as Oniguruma must be given it to cut as the encoding does
        # (tiktoken's \p{N}{1,3}+ is unbounded there): what bytepair writes into the Split.
        regex = onig_pattern(ENCODING_SPECS[pattern].pattern) if pattern in ENCODING_SPECS else pattern
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(regex), "isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=min_frequency,
                                  special_tokens=list(special_tokens), max_token_length=max_token_length,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(list(texts), trainer)
    return tok


def model_of(json_text: str) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """(vocab, merges as pairs) of a tokenizer.json text."""
    model = json.loads(json_text)["model"]
    merges = [tuple(m.split(" ", 1)) if isinstance(m, str) else tuple(m) for m in model["merges"]]
    return model["vocab"], merges


def ours(texts: Sequence[str], vocab_size: int, pattern: str = "o200k_base", **options: Any) -> bytepair.Tokenizer:
    options.setdefault("show_progress", False)
    return bytepair.train(texts, vocab_size, pattern=pattern, **options)
