"""Every field of ``TokenizerPipeline.encode`` (joined of each piece's remembered fields,
``pipeline/piece_fields.py``) equal to the plain token-by-token reference
(``TokenizerPipeline.reference_encode``), over random text, normalizers (BERT's with and without
lower case and accents, NFKC, a precompiled map, a Sequence), pre-tokenizers (BERT's, Whitespace,
Metaspace, none) and models (WordPiece, WordLevel, Unigram, BPE); the sparse normalizer alignment
(``normalizers/edits.py``) equal to the character-by-character one; the cache bounded and emptied
by the tokenizer's one clear. (The offsets against HF's are held by ``test_tokenizer_json.py``,
``tests/models/`` and ``tests/normalizers/``, which run the fast path.)"""

from __future__ import annotations

import random
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair import models, normalizers, pre_tokenizers
from bytepair.formats.charsmap import CharsMap
from bytepair.normalizers import edits as edits_module
from bytepair.normalizers.edits import Edits
from bytepair.pipeline.piece_fields import PieceFields

FIELDS = ("ids", "tokens", "offsets", "type_ids", "special_tokens_mask", "word_ids", "sequence_ids")
ALPHABET = ("abcdeéèüñAÉÖΣσς İ\u0130ßﬁ \t\n\x07\x00\ufffd.,!?-'\"()中文日本한국어\u0301\u0323\u0344e\u0301"
            "ｱｂ①ΑΒΓαβγ\U0001F600\u200d\u3000x1234567890_")
TEXT = st.text(ALPHABET, max_size=60) | st.text(max_size=25)


def _wordpiece() -> models.WordPiece:
    chars = sorted(set("abcdeéèüñxßσςαβγ中文한국어_0123456789.,!?-'\"()") | {"ss", "i̇"})
    vocab = ["[UNK]", "[SEP]", "ab", "abc", "de", "##de", "##e", "ee", "hello", "中文"] + chars + ["##" + c for c in chars]
    return models.WordPiece({t: i for i, t in enumerate(dict.fromkeys(vocab))}, unk_token="[UNK]", max_input_chars_per_word=12)


def _wordlevel() -> models.WordLevel:
    words = ["[UNK]", "[SEP]", "abc", "de", "e", "a", ".", ",", "中", "文", "hello", "ab", "x1", "σ", "éa"]
    return models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]")


def _unigram() -> models.Unigram:
    pieces = [("<unk>", 0.0), ("[SEP]", 0.0), ("▁", -1.0), ("▁ab", -2.0), ("a", -3.0), ("b", -3.0), ("c", -3.5),
              ("de", -2.5), ("e", -3.0), ("中", -4.0), ("é", -4.0), ("▁x", -3.0)]
    return models.Unigram(pieces, unk_id=0)


def _bpe() -> models.BPE:
    vocab = {t: i for i, t in enumerate(["[UNK]", "[SEP]", "a", "b", "c", "d", "e", "ab", "abc", "de", "x", "1", "é"])}
    return models.BPE(vocab, [("a", "b"), ("ab", "c"), ("d", "e")], unk_token="[UNK]")


def _bpe_dropping() -> models.BPE:
    """No unknown token: characters the vocabulary lacks are left out (a piece of one token need not
    be all of it)."""
    vocab = {t: i for i, t in enumerate(["[SEP]", "a", "b", "c", "ab", "abc", "x", "é"])}
    return models.BPE(vocab, [("a", "b"), ("ab", "c")])


MODELS = {"wordpiece": _wordpiece, "wordlevel": _wordlevel, "unigram": _unigram, "bpe": _bpe, "bpe-dropping": _bpe_dropping}
NORMALIZERS = {
    "none": lambda: None,
    "bert": lambda: normalizers.BertNormalizer(),
    "bert-cased-strip": lambda: normalizers.BertNormalizer(lowercase=False, strip_accents=True),
    "bert-cased": lambda: normalizers.BertNormalizer(lowercase=False, handle_chinese_chars=False),
    "nfkc": lambda: normalizers.NFKC(),
    "precompiled": lambda: normalizers.Precompiled(
        CharsMap.build({"™": "TM", "\x07": "", "ｱ": "ア", "ﬁ": "fi", "①": "1"})),
    "sequence": lambda: normalizers.Sequence([normalizers.NFD(), normalizers.Lowercase(), normalizers.StripAccents()]),
}
PRE_TOKENIZERS = {
    "bert": lambda: pre_tokenizers.BertPreTokenizer(),
    "whitespace": lambda: pre_tokenizers.Whitespace(),
    "metaspace": lambda: pre_tokenizers.Metaspace(),
    "none": lambda: None,
}


def _tokenizer(model: str, normalizer: str, pre_tokenizer: str) -> bytepair.Tokenizer:
    tok = bytepair.Tokenizer(MODELS[model]())
    tok.normalizer = NORMALIZERS[normalizer]()
    pre = PRE_TOKENIZERS[pre_tokenizer]()
    if pre is not None:
        tok.pre_tokenizer = pre
    tok.add_special_tokens(["[SEP]"])
    tok.add_tokens([bytepair.AddedToken("hello", normalized=True)])
    return tok


def _fields(seq: object) -> dict[str, object]:
    return {name: getattr(seq, name) for name in FIELDS}


@settings(max_examples=300, deadline=None)
@given(text=TEXT, model=st.sampled_from(sorted(MODELS)), normalizer=st.sampled_from(sorted(NORMALIZERS)),
       pre_tokenizer=st.sampled_from(sorted(PRE_TOKENIZERS)), insert=st.sampled_from(["", "[SEP]", " hello "]))
def test_fast_fields_equal_the_reference(text: str, model: str, normalizer: str, pre_tokenizer: str, insert: str) -> None:
    tok = _tokenizer(model, normalizer, pre_tokenizer)
    half = len(text) // 2
    text = text[:half] + insert + text[half:]
    try:
        reference = _fields(tok.pipeline.reference_encode(text, 1))
    except bytepair.errors.BytepairError:  # (a text needing an unknown token the vocabulary lacks)
        return
    assert _fields(tok.pipeline.encode(text, 1)) == reference, text
    assert _fields(tok.pipeline.encode(text + text, 1)) == _fields(tok.pipeline.reference_encode(text + text, 1))


@pytest.mark.parametrize("name", ["en", "de", "el_cs_bg_pt", "code_python"])
def test_corpus_fields_equal_the_reference(name: str) -> None:
    """A BERT-style tokenizer on corpus text: the fast path's fields are the reference's."""
    from bench.common import CORPUS, load_corpus

    text = load_corpus(CORPUS, [name])[name][:20000]
    tok = _tokenizer("wordpiece", "bert", "bert")
    assert _fields(tok.pipeline.encode(text, 0)) == _fields(tok.pipeline.reference_encode(text, 0))


@pytest.mark.parametrize("name", ["en", "el_cs_bg_pt", "code_python"])
def test_converted_unigram_corpus_fields_equal_the_reference(name: str) -> None:
    """A converted SentencePiece model on corpus text (the whole text one piece of thousands of
    tokens, the normalizer's changes by the thousand): the fast path's fields are the reference's."""
    from bench.common import CORPUS, load_corpus
    from tests.spm_reference import spm_model

    text = load_corpus(CORPUS, [name])[name][:20000]
    tok = bytepair.Tokenizer.from_sentencepiece(spm_model("unigram"))
    assert _fields(tok.pipeline.encode(text, 0)) == _fields(tok.pipeline.reference_encode(text, 0))


@settings(max_examples=200, deadline=None)
@given(lengths=st.lists(st.sampled_from([0, 1, 1, 1, 1, 1, 2, 3]), min_size=0, max_size=40), data=st.data())
def test_sparse_edits_map_offsets_as_the_sources_do(lengths: list[int], data: st.DataObject) -> None:
    edits = Edits([(i, n) for i, n in enumerate(lengths) if n != 1], len(lengths))
    sources = edits.sources()
    assert len(sources) == sum(lengths)
    assert edits.aligned() == [(s, s + 1) for s in sources]
    if not sources:
        return
    cuts = sorted(data.draw(st.lists(st.integers(0, len(sources)), max_size=12)) + [0, len(sources)])
    spans = [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]
    starts, ends = [s for s, _ in spans], [e for _, e in spans]
    expected = [(7 + sources[s], 7 + sources[e - 1] + 1) for s, e in spans]
    for tokens_per_edit in (0, 10**9):  # (change by change, and by the list of sources)
        with patch.object(edits_module, "SPARSE_TOKENS_PER_EDIT", tokens_per_edit):
            assert list(edits.offsets(starts, ends, 7)) == expected


def test_bert_edits_align_as_the_steps() -> None:
    rnd = random.Random(3)
    normalizer = normalizers.BertNormalizer()
    for _ in range(300):
        text = "".join(rnd.choice(ALPHABET) for _ in range(rnd.randint(0, 30)))
        found = normalizer.normalize_edits(text)
        if found is None:  # (a combining mark that NFD may move: the steps align it)
            continue
        normalized, edits = found
        plain, align = normalizer._reference_normalize_aligned(text)
        identity = [(i, i + 1) for i in range(len(text))]
        assert (normalized, identity if edits is None else edits.aligned()) == (plain, align or identity), text


def test_cache_is_bounded_and_emptied_by_the_one_clear() -> None:
    fields = PieceFields(lambda piece, width: ((1,) * len(piece), ("t",) * len(piece), (0,) * len(piece), (1,) * len(piece)),
                         max_entries=1000, max_bytes=20_000)
    for k in range(3000):
        fields[f"piece{k}" * (1 + k % 5)]
        assert fields.bytes <= 20_000 and len(fields) <= 1000
    tok = _tokenizer("unigram", "bert", "whitespace")  # (a model naming its tokens: every piece has an entry)
    tok.encode("abc de ee abcde", add_special_tokens=False).offsets
    assert len(tok.pipeline._fields) > 0
    tok.pipeline.engine.cache.clear()
    assert len(tok.pipeline._fields) == 0 and tok.pipeline._fields.bytes == 0
    tok.encode("abcde", add_special_tokens=False).offsets
    tok.pipeline.set_stage(normalizer=None)  # a changed stage empties them too
    assert len(tok.pipeline._fields) == 0
