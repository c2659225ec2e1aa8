"""models.BPE's own methods (HF's constructor, from_file, read_file, save, tokenize) equal to
tokenizers.models.BPE's; get_vocab as the other models have it."""

from __future__ import annotations

import pytest

tokenizers = pytest.importorskip("tokenizers")

from bytepair import Tokenizer, models  # noqa: E402

VOCAB = {"[UNK]": 0, "a": 1, "b": 2, "c": 3, "ab": 4, "abc": 5, "é": 6, "##b": 7, "a##b": 8}
MERGES = [("a", "b"), ("ab", "c")]


@pytest.mark.parametrize("options", [{}, {"unk_token": "[UNK]"}, {"unk_token": "[UNK]", "fuse_unk": True}])
def test_tokenize_like_hf(options):
    ours, theirs = models.BPE(VOCAB, MERGES, **options), tokenizers.models.BPE(VOCAB, MERGES, **options)
    for word in ["abc", "ab", "cab", "xéab", "xxé", "abcabc", ""]:
        assert [tuple(t) for t in ours.tokenize(word)] == [(t.id, t.value, t.offsets) for t in theirs.tokenize(word)], word


def test_files_round_trip_like_hf(tmp_path):
    ours = models.BPE(VOCAB, MERGES, unk_token="[UNK]")
    written = ours.save(str(tmp_path), "m")
    assert [p.rsplit("/", 1)[-1] for p in written] == ["m-vocab.json", "m-merges.txt"]
    theirs = tokenizers.models.BPE.from_file(*written, unk_token="[UNK]")
    again = models.BPE.from_file(*written, unk_token="[UNK]")
    assert models.BPE.read_file(*written) == (VOCAB, MERGES)
    assert again.get_vocab() == VOCAB
    for word in ["abc", "cab", "zz"]:
        assert [tuple(t) for t in again.tokenize(word)] == [(t.id, t.value, t.offsets) for t in theirs.tokenize(word)]


def test_a_tokenizer_of_a_bare_model_encodes_and_saves_like_hf(tmp_path):
    ours, theirs = Tokenizer(models.BPE(VOCAB, MERGES, unk_token="[UNK]")), tokenizers.Tokenizer(
        tokenizers.models.BPE(VOCAB, MERGES, unk_token="[UNK]"))
    for text in ["abc", "ab c", "éab"]:
        assert ours.encode(text).ids == theirs.encode(text).ids
    path = tmp_path / "t.json"
    ours.save(str(path))
    assert tokenizers.Tokenizer.from_file(str(path)).encode("ab c").ids == theirs.encode("ab c").ids
    assert models.BPE().get_vocab_size() == 0
