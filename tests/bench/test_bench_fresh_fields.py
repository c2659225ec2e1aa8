"""The fresh-process task that times ``encode`` with every field read (``tokenizer_json_child.py
fields``), which the families and unigram sections lead with: it must read every field and report
the same ids and offsets for HF and bytepair, or a section would time less than it says."""

from __future__ import annotations

import tokenizers

from tests.bench.bench_modules import import_bench

TEXT = "Héllo wörld, hello again.\nSecond line  with  spaces."


def _wordpiece_json(tmp_path):
    tok = tokenizers.Tokenizer(tokenizers.models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = tokenizers.normalizers.BertNormalizer()
    tok.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator([TEXT] * 3, tokenizers.trainers.WordPieceTrainer(vocab_size=60, special_tokens=["[UNK]"],
                                                                             show_progress=False))
    path = tmp_path / "wp.json"
    tok.save(str(path))
    return path


def test_fields_task_reads_every_field_alike(tmp_path):
    child = import_bench("tokenizer_json_child")
    text_file = tmp_path / "text.txt"
    text_file.write_text(TEXT, encoding="utf-8")
    json_path = _wordpiece_json(tmp_path)
    got = {lib: child.child_fields(lib, str(json_path), str(text_file)) for lib in ("hf", "bytepair")}
    hf = tokenizers.Tokenizer.from_file(str(json_path)).encode(TEXT, add_special_tokens=False)
    assert got["hf"]["digest"] == got["bytepair"]["digest"] == child.digest(hf.ids)
    assert got["hf"]["offsets_digest"] == got["bytepair"]["offsets_digest"] == child.digest(
        [at for span in hf.offsets for at in span])
    assert got["bytepair"]["n_tokens"] == len(hf.ids) > 5
    assert got["bytepair"]["encode_s"] > 0


def test_read_fields_touches_each_field():
    child = import_bench("tokenizer_json_child")
    read = []

    class Recorder:
        def __getattr__(self, name):
            read.append(name)
            return [0, 0]

    assert child.read_fields(Recorder()) == 12
    assert sorted(read) == ["attention_mask", "offsets", "special_tokens_mask", "tokens", "type_ids", "word_ids"]
