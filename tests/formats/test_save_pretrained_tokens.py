"""``save_pretrained`` of a tokenizer with no ``tokenizer_config.json`` (built, trained, or loaded from a bare
``tokenizer.json``): transformers' ``AutoTokenizer`` loads the folder with the same ids and the special
tokens set, read from the file as transformers' tokenizers set them, or given as keywords."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bytepair import InvalidInputError, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

from tests.conftest import corpus_texts

transformers = pytest.importorskip("transformers")

TEXTS = ["Hello, world! This is a test.", "naïve café [MASK] tokens", "The quick brown fox."]


def corpus() -> list[str]:
    return corpus_texts()["en"].splitlines()[:400]


def bert() -> Tokenizer:
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer()
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator(corpus(), trainers.WordPieceTrainer(
        vocab_size=400, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"], show_progress=False))
    tok.post_processor = processors.BertProcessing(("[SEP]", tok.token_to_id("[SEP]")), ("[CLS]", tok.token_to_id("[CLS]")))
    tok.decoder = decoders.WordPiece()
    return tok


def t5() -> Tokenizer:
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.train_from_iterator(corpus(), trainers.UnigramTrainer(
        vocab_size=300, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>", show_progress=False))
    tok.post_processor = processors.TemplateProcessing(single="$A </s>", pair="$A </s> $B </s>",
                                                       special_tokens=[("</s>", tok.token_to_id("</s>"))])
    tok.decoder = decoders.Metaspace()
    return tok


def check_same_ids(tok: Tokenizer, auto) -> None:
    for text in TEXTS:
        assert auto(text)["input_ids"] == tok.encode(text).ids
        assert auto(text, "pair text")["input_ids"] == tok.encode(text, "pair text").ids


def test_trained_bert(tmp_path: Path) -> None:
    tok = bert()
    tok.save_pretrained(tmp_path)
    auto = transformers.AutoTokenizer.from_pretrained(str(tmp_path))
    check_same_ids(tok, auto)
    assert (auto.cls_token, auto.sep_token, auto.pad_token, auto.unk_token, auto.mask_token) == (
        "[CLS]", "[SEP]", "[PAD]", "[UNK]", "[MASK]")
    assert auto.bos_token is None and auto.eos_token is None
    assert auto.pad_token_id == tok.token_to_id("[PAD]") and auto.mask_token_id == tok.token_to_id("[MASK]")
    saved = json.loads((tmp_path / "special_tokens_map.json").read_text())
    assert saved["cls_token"]["content"] == "[CLS]"
    again = Tokenizer.from_pretrained(tmp_path)
    assert again.special_tokens_map["mask_token"] == "[MASK]"


def test_trained_unigram_t5_style(tmp_path: Path) -> None:
    tok = t5()
    tok.save_pretrained(tmp_path)
    auto = transformers.AutoTokenizer.from_pretrained(str(tmp_path))
    check_same_ids(tok, auto)
    assert (auto.eos_token, auto.pad_token, auto.unk_token) == ("</s>", "<pad>", "<unk>")
    assert auto.unk_token_id == tok.model.unk_id and auto.bos_token is None


def test_bare_tokenizer_json_and_keywords(tmp_path: Path) -> None:
    bare = tmp_path / "tokenizer.json"
    bert().save(str(bare))
    tok = Tokenizer.from_file(str(bare))
    out = tmp_path / "out"
    tok.save_pretrained(out, bos_token="[CLS]", eos_token="[SEP]", mask_token=None, additional_special_tokens=["[PAD]"])
    auto = transformers.AutoTokenizer.from_pretrained(str(out))
    check_same_ids(tok, auto)
    assert (auto.bos_token, auto.eos_token, auto.cls_token, auto.mask_token) == ("[CLS]", "[SEP]", "[CLS]", None)
    assert "[PAD]" in auto.all_special_tokens
    with pytest.raises(InvalidInputError, match="not a token"):
        tok.save_pretrained(out, eos_token="<never-seen>")
    with pytest.raises(InvalidInputError, match="unexpected keyword"):
        tok.save_pretrained(out, eso_token="[SEP]")


def test_readme_bert_template(tmp_path: Path) -> None:
    """The README's "my-bert": a TemplateProcessing with [CLS]/[SEP] gives cls/sep, the model unk."""
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.Lowercase(), normalizers.StripAccents()])
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(corpus(), trainers.WordPieceTrainer(
        vocab_size=300, special_tokens=["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"], show_progress=False))
    tok.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
                                                       special_tokens=[("[CLS]", 1), ("[SEP]", 2)])
    tok.decoder = decoders.WordPiece()
    tok.save_pretrained(tmp_path)
    auto = transformers.AutoTokenizer.from_pretrained(str(tmp_path))
    check_same_ids(tok, auto)
    assert (auto.cls_token, auto.sep_token, auto.unk_token, auto.pad_token, auto.mask_token) == (
        "[CLS]", "[SEP]", "[UNK]", "[PAD]", "[MASK]")


def test_roberta_style_and_loaded_config_kept(tmp_path: Path) -> None:
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "a": 4, "b": 5, "<mask>": 6}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.add_special_tokens(["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    tok.save_pretrained(tmp_path)
    auto = transformers.AutoTokenizer.from_pretrained(str(tmp_path))
    assert auto("a b")["input_ids"] == tok.encode("a b").ids
    assert (auto.bos_token, auto.eos_token, auto.cls_token, auto.sep_token, auto.pad_token, auto.mask_token) == (
        "<s>", "</s>", "<s>", "</s>", "<pad>", "<mask>")
    # A folder's own config decides: nothing is inferred over it.
    config = json.loads((tmp_path / "tokenizer_config.json").read_text())
    del config["mask_token"]
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(config))
    (tmp_path / "special_tokens_map.json").write_text("{}")
    loaded = Tokenizer.from_pretrained(tmp_path)
    loaded.save_pretrained(tmp_path / "again")
    assert "mask_token" not in json.loads((tmp_path / "again" / "special_tokens_map.json").read_text())
