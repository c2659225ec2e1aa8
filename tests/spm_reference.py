"""SentencePiece models trained on our corpus at test time, the reference ``sentencepiece``
processor over them, and transformers' conversion of them to a HF tokenizer.

Why trained here: the published ``.model`` files are large and under licences of their own; a
small model per option (model type, normalization rule, byte fallback, user-defined and control
symbols, whitespace handling) trains in about a second from ``tests/data/corpus``, so each option
is covered by a file made for it. Nothing is written outside a temporary folder.
"""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus"

VARIANTS: dict[str, dict[str, Any]] = {
    "unigram": dict(model_type="unigram", vocab_size=3000),
    "bpe": dict(model_type="bpe", vocab_size=3000),
    "unigram_bytes": dict(model_type="unigram", vocab_size=3000, byte_fallback=True),
    "bpe_bytes": dict(model_type="bpe", vocab_size=3000, byte_fallback=True),
    "identity": dict(model_type="unigram", vocab_size=2000, normalization_rule_name="identity",
                     add_dummy_prefix=False, remove_extra_whitespaces=False),
    "nfkc_cf_symbols": dict(model_type="unigram", vocab_size=2000, normalization_rule_name="nfkc_cf",
                            user_defined_symbols=["<mask>", "abc"], control_symbols=["<ctl>"]),
    "bpe_symbols": dict(model_type="bpe", vocab_size=2500, user_defined_symbols=["<mask>", "the"],
                        control_symbols=["<ctl>"], add_dummy_prefix=False),
    "tsv_rules": dict(model_type="unigram", vocab_size=2500, normalization_rule_tsv="RULES"),
    "pad_ids": dict(model_type="unigram", vocab_size=2500, pad_id=3, bos_id=-1, eos_id=1, unk_id=2),
}
"""Name -> ``SentencePieceTrainer.train`` options (``"RULES"``: a TSV of custom rules written beside)."""

TSV_RULES = "41\t61\n61 62\t78\n3000\t20\n"
"""Custom rules: ``A`` -> ``a``, ``ab`` -> ``x``, ideographic space -> space (code points in hex)."""


def corpus_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(CORPUS.glob("*.txt")))


@functools.cache
def _folder() -> Path:
    return Path(tempfile.mkdtemp(prefix="bytepair-spm-"))


@functools.cache
def spm_model(name: str) -> Path:
    """The path of the ``.model`` trained for ``name`` (trained on first use)."""
    spm = pytest.importorskip("sentencepiece")
    folder = _folder()
    corpus = folder / "corpus.txt"
    if not corpus.exists():
        corpus.write_text(corpus_text(), encoding="utf-8")
    options = dict(VARIANTS[name])
    if options.get("normalization_rule_tsv") == "RULES":
        rules = folder / "rules.tsv"
        rules.write_text(TSV_RULES, encoding="utf-8")
        options["normalization_rule_tsv"] = str(rules)
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(folder / name), character_coverage=0.9995,
                                   minloglevel=2, num_threads=1, **options)
    return folder / f"{name}.model"


@functools.cache
def spm_processor(name: str) -> Any:
    spm = pytest.importorskip("sentencepiece")
    return spm.SentencePieceProcessor(model_file=str(spm_model(name)))


@functools.cache
def converted(name: str) -> Any:
    """transformers' HF tokenizer for the model (``SpmConverter.build_tokenizer_from_spm_proto``,
    what ``AutoTokenizer`` builds from a lone ``.model``)."""
    convert = pytest.importorskip("transformers.convert_slow_tokenizer")
    proto = convert.import_protobuf().ModelProto()
    proto.ParseFromString(spm_model(name).read_bytes())
    if proto.trainer_spec.model_type == 1:
        vocab: Any = [(p.piece, p.score) for p in proto.pieces]
    else:
        vocab = {p.piece: i for i, p in enumerate(proto.pieces)}
    return convert.SpmConverter.build_tokenizer_from_spm_proto(proto, vocab)


def sample_texts(n: int, seed: int = 0, longest: int = 80) -> list[str]:
    """``n`` slices of the corpus, plus whitespace and normalization edge cases."""
    import random

    rnd = random.Random(seed)
    text = corpus_text()
    out = [text[i:i + rnd.randint(1, longest)] for i in (rnd.randrange(len(text)) for _ in range(n))]
    return out + ["", " ", "  hello   world  ", "\u3000x\r\ny", "ｶﾀｶﾅ ①", "<mask>abc<ctl> abcabc the",
                  "e\u0301", "\t\tz", "AB ab Abc", "😀 emoji ☃", "x\u0000y"]
