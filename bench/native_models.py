"""Section 1b of ``native``: open models through their ``tokenizer.json`` (``bytepair.Tokenizer``)
against tiktoken built from the same file's vocabulary; imported by ``native.py`` after its snapshot.

Why tiktoken on the model's own vocabulary: it is the fastest exact reference there is for these
files, but only fair if it gives the ids HF ``tokenizers`` gives for the same file, normalizer
included. ``bench_model`` checks that on every corpus file at run time, and
tests/bench/test_bench_encode_models.py checks the construction (``tiktoken_for_model``) on texts chosen
to break it.
"""

from __future__ import annotations

import json
import statistics
import unicodedata
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import bytepair

from bench.common import HF_DIR, Checks, digest, log, median_time
from bench.native_measure import FreshProcesses, MixedRow, ThroughputRow, mergeable_ranks, mixed_stream

MODELS = {"llama3": "Llama 3", "qwen2_5": "Qwen2.5"}
"""Open models whose ``tokenizer.json`` (fetched by ``make hf-data``) tiktoken can run exactly: byte-level
BPE, merges in id order, one regex split."""


def model_label(model: str) -> str:
    return f"{MODELS.get(model, model)} (`tokenizer.json`)"


def tiktoken_for_model(path: Path) -> Callable[[str], list[int]]:
    """tiktoken running a ``tokenizer.json``'s own vocabulary: ``encode(text)`` with its ranks (id =
    rank) and its split pattern, after the file's normalizer (only NFC, as Qwen's, or none).

    The ranks and pattern come from ``bytepair.Tokenizer.to_encoding``, which refuses a file whose
    merges tiktoken's rule could not reproduce; the benchmark then checks these ids against HF
    ``tokenizers`` on every file, so the reference does not rest on bytepair."""
    import tiktoken

    normalizer = json.loads(path.read_text(encoding="utf-8")).get("normalizer")
    if normalizer not in (None, {"type": "NFC"}):
        raise SystemExit(f"{path}: normalizer {normalizer} has no stand-in for tiktoken here (only NFC or none)")
    enc = bytepair.Tokenizer.from_file(path).to_encoding(drop_normalizer=True)
    tk = tiktoken.Encoding(
        path.parent.name, pat_str=enc.engine.pre_tokenizer.pattern, mergeable_ranks=mergeable_ranks(enc), special_tokens={}
    )
    if normalizer is None:
        return tk.encode_ordinary
    return lambda text: tk.encode_ordinary(unicodedata.normalize("NFC", text))


def tokenizer_json_ids(tokenizer: Any) -> Callable[[str], list[int]]:
    """The call timed for a ``tokenizer.json``: HF's API, without special tokens, ids taken out."""
    return lambda text: tokenizer.encode(text, add_special_tokens=False).ids


def bench_model(
    model: str,
    corpus: dict[str, str],
    corpus_files: dict[str, Path],
    fresh: FreshProcesses,
    repeats: int,
    checks: Checks,
) -> tuple[list[ThroughputRow], MixedRow]:
    """A ``tokenizer.json`` model through ``bytepair.Tokenizer`` against tiktoken on the same vocabulary:
    per file, a first pass in fresh processes and the warm same text; then the mixed stream."""
    import tokenizers

    path = HF_DIR / model / "tokenizer.json"
    label = model_label(model)
    reference = tiktoken_for_model(path)
    hf = tokenizers.Tokenizer.from_file(str(path))
    rows = []
    for corpus_name, text in corpus.items():
        log(f"throughput {label} {corpus_name}")
        expected = reference(text)  # also tiktoken's warm-up
        checks.expect(
            hf.encode(text, add_special_tokens=False).ids == expected,
            f"{label} {corpus_name}: tiktoken on the file's vocabulary against HF tokenizers",
        )
        tiktoken_s = median_time(partial(reference, text), repeats)
        firsts = [fresh.run("tokenizer-json-first", str(path), str(corpus_files[corpus_name])) for _ in range(repeats)]
        checks.expect(
            all(r["digest"] == digest(expected) for r in firsts), f"{label} {corpus_name}: bytepair first pass (fresh process)"
        )
        first_s = statistics.median(r["encode_s"] for r in firsts)
        nan = float("nan")  # no cold-cache or naive runs for models
        rows.append(ThroughputRow(label, corpus_name, len(text.encode("utf-8")), len(expected), tiktoken_s, first_s, nan, nan, nan))
    log(f"mixed stream {label}")
    encode = tokenizer_json_ids(bytepair.Tokenizer.from_file(path))
    mixed = mixed_stream(label, encode, reference, corpus, checks)
    for i, (corpus_name, text) in enumerate(corpus.items()):
        checks.expect(encode(text) == reference(text), f"{label} {corpus_name}: bytepair in-process")
        rows[i] = replace(rows[i], warm_s=median_time(partial(encode, text), repeats))
    return rows, mixed
