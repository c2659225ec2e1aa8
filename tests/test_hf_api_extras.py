"""HF ``tokenizers`` 0.23.3 API beyond the constructors, against HF: post-processors'
``num_special_tokens_to_add``, ``normalizers.NORMALIZERS``/``unicode_normalizer_from_str``,
``trainers.Trainer`` and ``BpeTrainer.get_word_count``, ``Token.as_tuple``, pickled tokenizers and
encodings, and the ``async_*`` methods of ``Tokenizer``."""

from __future__ import annotations

import asyncio
import pickle
import warnings

import pytest

import bytepair
from bytepair import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
from tests.hf_reference import hf_folder

tokenizers = pytest.importorskip("tokenizers")
P = tokenizers.processors


def _processors(module: object) -> list[object]:
    sep, cls = ("[SEP]", 1), ("[CLS]", 0)
    return [
        module.BertProcessing(sep, cls), module.RobertaProcessing(("</s>", 2), ("<s>", 0)), module.ByteLevel(),
        module.Sequence([module.ByteLevel(), module.BertProcessing(sep, cls)]),
        module.TemplateProcessing(single="[CLS] $A", pair="[CLS] $A $B:1 [SEP]", special_tokens=[cls, sep]),
    ]


def test_num_special_tokens_to_add_as_hfs() -> None:
    for ref, ours in zip(_processors(P), _processors(processors), strict=True):
        for is_pair in (False, True):
            assert ours.num_special_tokens_to_add(is_pair) == ref.num_special_tokens_to_add(is_pair), (ref, is_pair)
        assert ours.num_special_tokens_to_add(is_pair=True) == ref.num_special_tokens_to_add(is_pair=True)
    with pytest.raises(TypeError):
        P.ByteLevel().num_special_tokens_to_add(1)
    with pytest.raises(bytepair.InvalidInputError, match="True or False"):
        processors.ByteLevel().num_special_tokens_to_add(1)


def test_unicode_normalizer_from_str_as_hfs() -> None:
    assert sorted(normalizers.NORMALIZERS) == sorted(tokenizers.normalizers.NORMALIZERS)
    for name in tokenizers.normalizers.NORMALIZERS:
        ref, ours = tokenizers.normalizers.unicode_normalizer_from_str(name), normalizers.unicode_normalizer_from_str(name)
        assert type(ours).__name__ == type(ref).__name__
        assert ours.normalize("ﬁ Å é") == ref.normalize_str("ﬁ Å é")
    with pytest.raises(ValueError):
        tokenizers.normalizers.unicode_normalizer_from_str("nfx")
    with pytest.raises(bytepair.InvalidArgumentError, match="nfc, nfd, nfkc, nfkd"):
        normalizers.unicode_normalizer_from_str("nfx")


def test_trainer_base_class_as_hfs() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in ("BpeTrainer", "WordPieceTrainer", "WordLevelTrainer", "UnigramTrainer"):
            assert isinstance(getattr(tokenizers.trainers, name)(), tokenizers.trainers.Trainer)
            assert isinstance(getattr(trainers, name)(), trainers.Trainer), name
    assert not isinstance(object(), trainers.Trainer)
    with pytest.raises(TypeError):
        tokenizers.trainers.Trainer()
    with pytest.raises(TypeError):
        trainers.Trainer()


@pytest.mark.parametrize("corpora", [[["a b c a b", "hello world hello"], ["x y"]], [["one", "two two", "three"]]])
def test_get_word_count_as_hfs(corpora: list[list[str]]) -> None:
    ref_trainer, our_trainer = tokenizers.trainers.BpeTrainer(vocab_size=300, show_progress=False), trainers.BpeTrainer(
        vocab_size=300, show_progress=False)
    assert our_trainer.get_word_count() == ref_trainer.get_word_count() == 0
    ref, ours = tokenizers.Tokenizer(tokenizers.models.BPE()), Tokenizer(models.BPE())
    ref.pre_tokenizer, ours.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace(), pre_tokenizers.Whitespace()
    for corpus in corpora:
        ref.train_from_iterator(corpus, ref_trainer)
        ours.train_from_iterator(corpus, our_trainer)
        assert our_trainer.get_word_count() == ref_trainer.get_word_count()


def test_token_as_tuple_as_hfs() -> None:
    vocab, merges = {"a": 0, "b": 1, "ab": 2}, [("a", "b")]
    ref = tokenizers.models.BPE(vocab, merges).tokenize("abab a")
    ours = models.BPE(vocab, merges).tokenize("abab a")
    assert [t.as_tuple() for t in ours] == [t.as_tuple() for t in ref]
    assert bytepair.Token(2, "ab", (0, 2)).as_tuple() == tokenizers.Token(2, "ab", (0, 2)).as_tuple()


@pytest.mark.parametrize("name", ["gpt2", "llama2", "qwen2_5"])
def test_tokenizers_and_encodings_pickle_as_hfs(name: str) -> None:
    folder = hf_folder(name)
    ref, ours = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json")), Tokenizer.from_pretrained(folder)
    for tok in (ref, ours):
        tok.enable_truncation(6, stride=2)
        tok.add_tokens(["<mine>"])
    text = "Pickled tokenizers <mine> travel to worker processes 🫠"
    ref_again, ours_again = pickle.loads(pickle.dumps(ref)), pickle.loads(pickle.dumps(ours))
    assert ours_again.encode(text).ids == ours.encode(text).ids == ref_again.encode(text).ids == ref.encode(text).ids
    assert ours_again.truncation == ours.truncation and ours_again.config == ours.config
    assert ours_again.chat_template == ours.chat_template
    encoded, ref_encoded = ours.encode(text), ref.encode(text)
    ours_copy, ref_copy = pickle.loads(pickle.dumps(encoded)), pickle.loads(pickle.dumps(ref_encoded))
    for field in ("ids", "tokens", "offsets", "attention_mask", "special_tokens_mask", "type_ids", "word_ids"):
        assert getattr(ours_copy, field) == getattr(ref_copy, field) == getattr(ref_encoded, field), field
    assert [o.ids for o in ours_copy.overflowing] == [o.ids for o in ref_copy.overflowing]
    from_encoding = Tokenizer.from_encoding("cl100k_base")
    from_encoding.encode_special_tokens = True
    again = pickle.loads(pickle.dumps(from_encoding))
    assert again.encode_special_tokens and again.encode("<|endoftext|> hi").ids == from_encoding.encode("<|endoftext|> hi").ids


def test_async_methods_as_hfs() -> None:
    path = hf_folder("gpt2") / "tokenizer.json"
    ref, ours = tokenizers.Tokenizer.from_file(str(path)), Tokenizer.from_file(path)

    async def results(tok: object) -> tuple[object, ...]:
        pending = tok.async_encode("hello", "there")
        assert isinstance(pending, asyncio.Future)
        one = await pending
        batch = await tok.async_encode_batch(["a b", ("c", "d")])
        fast = await tok.async_encode_batch_fast(["a b"], add_special_tokens=False)
        texts = await tok.async_decode_batch([[31373], [995, 50256]])
        kept = await tok.async_decode_batch([[31373, 50256]], skip_special_tokens=False)
        words = await tok.async_encode(["New", " York"], is_pretokenized=True)
        return one.ids, one.offsets, [e.ids for e in batch], [e.ids for e in fast], texts, kept, words.word_ids

    assert asyncio.run(results(ours)) == asyncio.run(results(ref))
    for tok in (ref, ours):
        with pytest.raises(RuntimeError, match="no running event loop"):
            tok.async_encode("hello")

    async def bad(tok: object) -> None:
        await tok.async_encode(5)

    with pytest.raises(TypeError):
        asyncio.run(bad(ref))
    with pytest.raises(TypeError):
        asyncio.run(bad(ours))
