"""The .model files sentencepiece publishes as its test data (pinned sdist, sha256-checked): bytepair's
SentencePieceProcessor against the sentencepiece package, and Tokenizer.from_sentencepiece against
transformers' conversion under tokenizers 0.23.3."""

from __future__ import annotations

import pytest

import bytepair
from tests.hf_reference import SPM_NAMES, spm_published
from tests.spm_reference import sample_texts

spm = pytest.importorskip("sentencepiece")

JAPANESE = ["吾輩は猫である。名前はまだ無い。", "どこで生れたかとんと見当がつかぬ。", "ｶﾀｶﾅ と ①② の正規化", "東京都 2024年"]


@pytest.mark.parametrize("name", SPM_NAMES)
def test_processor_against_sentencepiece(name: str) -> None:
    path = str(spm_published(name))
    ref, ours = spm.SentencePieceProcessor(model_file=path), bytepair.SentencePieceProcessor(model_file=path)
    assert ours.get_piece_size() == ref.get_piece_size()
    for text in sample_texts(150, seed=4) + JAPANESE:
        ids = ref.encode(text)
        assert ours.encode(text) == ids, text
        assert ours.encode(text, out_type=str) == ref.encode(text, out_type=str), text
        assert ours.decode(ids) == ref.decode(ids), text


@pytest.mark.parametrize("name", SPM_NAMES)
def test_hf_face_against_transformers(name: str) -> None:
    convert = pytest.importorskip("transformers.convert_slow_tokenizer")
    path = spm_published(name)
    proto = convert.import_protobuf().ModelProto()
    proto.ParseFromString(path.read_bytes())
    vocab = [(p.piece, p.score) for p in proto.pieces] if proto.trainer_spec.model_type == 1 else \
        {p.piece: i for i, p in enumerate(proto.pieces)}
    hf = convert.SpmConverter.build_tokenizer_from_spm_proto(proto, vocab)
    ours = bytepair.Tokenizer.from_sentencepiece(path)
    for text in sample_texts(150, seed=5) + JAPANESE:
        a, b = hf.encode(text), ours.encode(text)
        assert (b.ids, b.tokens, b.offsets) == (a.ids, a.tokens, a.offsets), text
        assert ours.decode(a.ids) == hf.decode(a.ids), text
