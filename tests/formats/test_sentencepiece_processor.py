"""bytepair.SentencePieceProcessor against the sentencepiece package, on models trained at test
time for every model type and option (tests/spm_reference.py): ids, pieces, decode, the
vocabulary and its piece types, n-best, and sampling (seeded, and drawn like sentencepiece's)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

import bytepair
from bytepair.errors import InvalidInputError, VocabFormatError
from tests.spm_reference import VARIANTS, sample_texts, spm_model, spm_processor

spm = pytest.importorskip("sentencepiece")

POOL = list("\u3000  \t\r\nｶﾀ①ﬁ™\x1e\ufeff😀AaBbé漢") + ["<mask>", "abc", "<ctl>", "<s>", "</s>", "<unk>", "the", "<0x41>"]


def _texts(seed: int) -> list[str]:
    rnd = random.Random(seed)
    return sample_texts(150, seed=seed) + ["".join(rnd.choice(POOL) for _ in range(rnd.randint(0, 12))) for _ in range(150)]


@pytest.fixture(scope="module", params=list(VARIANTS))
def pair(request):
    name = request.param
    return name, spm_processor(name), bytepair.SentencePieceProcessor(model_file=str(spm_model(name)))


def test_encode_and_decode(pair) -> None:
    name, ref, ours = pair
    for text in _texts(len(name)):
        ids, pieces = ref.encode(text), ref.encode(text, out_type=str)
        assert ours.encode(text) == ids, text
        assert ours.encode(text, out_type=str) == pieces, text
        assert ours.decode(ids) == ref.decode(ids), text
        assert ours.decode(pieces) == ref.decode(pieces), text
    assert ours.encode(["a b", "c"], add_bos=ref.bos_id() >= 0, add_eos=True) == \
        ref.encode(["a b", "c"], add_bos=ref.bos_id() >= 0, add_eos=True)
    assert ours.encode("a b", out_type=str, reverse=True, emit_unk_piece=True) == \
        ref.encode("a b", out_type=str, reverse=True, emit_unk_piece=True)
    assert ours.decode([[5, 6], [7]]) == ref.decode([[5, 6], [7]])


def test_vocabulary(pair) -> None:
    _, ref, ours = pair
    size = ref.get_piece_size()
    assert ours.get_piece_size() == size == len(ours)
    for name in ("bos_id", "eos_id", "pad_id", "unk_id"):
        assert getattr(ours, name)() == getattr(ref, name)(), name
    for i in range(size):
        piece = ref.id_to_piece(i)
        assert ours.id_to_piece(i) == piece
        assert ours.piece_to_id(piece) == ref.piece_to_id(piece)
        assert ours.get_score(i) == ref.get_score(i)
        for kind in ("is_control", "is_unknown", "is_byte", "is_unused"):
            assert getattr(ours, kind)(i) == getattr(ref, kind)(i), (kind, i)
    assert ours.piece_to_id("not a piece at all") == ref.piece_to_id("not a piece at all")
    with pytest.raises(IndexError):
        ours.id_to_piece(size)


@pytest.mark.parametrize("name", ["unigram", "nfkc_cf_symbols"])
def test_nbest(name: str) -> None:
    ref, ours = spm_processor(name), bytepair.SentencePieceProcessor(model_file=str(spm_model(name)))
    for text in sample_texts(40, seed=3, longest=20):
        expected = ref.nbest_encode(text, nbest_size=4, out_type=str)
        found = ours.nbest_encode(text, nbest_size=4, out_type=str)
        assert found[0] == ref.encode(text, out_type=str)
        # Paths of equal score may come in another order: the set and the length are what is fixed.
        assert len(found) == len(expected) and sorted(map(tuple, found)) == sorted(map(tuple, expected)), text


def test_sampling_is_seeded_and_distributed_as_sentencepiece() -> None:
    ref = spm_processor("unigram")
    path = str(spm_model("unigram"))
    a = bytepair.SentencePieceProcessor(model_file=path, seed=5)
    b = bytepair.SentencePieceProcessor(model_file=path)
    b.set_random_generator_seed(5)
    text = "the quick brown fox"
    assert [a.sample_encode_as_ids(text, -1, 0.3) for _ in range(20)] == [b.sample_encode_as_ids(text, -1, 0.3) for _ in range(20)]
    spm.set_random_generator_seed(11)
    text = "quick brown"
    for nbest_size, alpha in ((-1, 0.2), (-1, 1.0), (5, 0.5)):
        draws = 3000

        def sample(sp) -> Counter:
            return Counter(tuple(sp.encode(text, out_type=str, enable_sampling=True, nbest_size=nbest_size, alpha=alpha))
                           for _ in range(draws))

        ours, theirs, again = sample(a), sample(ref), sample(ref)

        def distance(x: Counter, y: Counter) -> float:
            return sum(abs(x[k] - y[k]) for k in set(x) | set(y)) / (2 * draws)

        # As far from sentencepiece's draws as two runs of sentencepiece are from each other.
        assert distance(ours, theirs) < 2 * distance(theirs, again) + 0.02, (nbest_size, alpha)
        assert len(ours) > 1 and all("".join(p).replace("▁", " ").strip() == text for p in ours)
    bpe = bytepair.SentencePieceProcessor(model_file=str(spm_model("bpe")), seed=1)
    dropped = {tuple(bpe.encode(text, enable_sampling=True, alpha=0.3)) for _ in range(30)}
    assert len(dropped) > 1 and all(bpe.decode(list(ids)) == text for ids in dropped)


def test_model_proto_bytes_and_errors() -> None:
    data = spm_model("bpe").read_bytes()
    sp = bytepair.SentencePieceProcessor(model_proto=data)
    assert sp.encode("hello world") == spm_processor("bpe").encode("hello world")
    with pytest.raises(VocabFormatError, match="truncated"):
        bytepair.SentencePieceProcessor(model_proto=data[:1000])
    with pytest.raises(InvalidInputError, match="no model loaded"):
        bytepair.SentencePieceProcessor().encode("x")
    with pytest.raises(InvalidInputError):
        sp.encode(3)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["unigram"])
def test_long_text(name: str) -> None:
    """A whole corpus in one call: the 32-bit sums pass 1e5 and are taken back, as sentencepiece's."""
    from tests.spm_reference import corpus_text

    text = corpus_text()[:120_000]
    ours = bytepair.SentencePieceProcessor(model_file=str(spm_model(name)))
    assert ours.encode(text) == spm_processor(name).encode(text)


import functools  # noqa: E402

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

TEXT = st.lists(st.sampled_from(list("ab cdeé漢字  \t\nＡｂ①™\u0301") + ["the", "<mask>", "abc"]), max_size=20).map("".join)


@functools.cache
def _ours(name: str) -> bytepair.SentencePieceProcessor:
    return bytepair.SentencePieceProcessor(model_file=str(spm_model(name)))


@settings(max_examples=40, deadline=None)
@given(TEXT)
def test_hypothesis_unigram_and_bpe(text: str) -> None:
    for name in ("nfkc_cf_symbols", "bpe_symbols", "unigram_bytes"):
        ref, ours = spm_processor(name), _ours(name)
        assert ours.encode(text, out_type=str) == ref.encode(text, out_type=str)
        assert ours.decode(ref.encode(text)) == ref.decode(ref.encode(text))


@pytest.mark.soak
@pytest.mark.parametrize("name", list(VARIANTS))
def test_many_texts(name: str) -> None:
    ref, ours = spm_processor(name), bytepair.SentencePieceProcessor(model_file=str(spm_model(name)))
    for text in sample_texts(3000, seed=99, longest=200):
        assert ours.encode(text) == ref.encode(text), text
