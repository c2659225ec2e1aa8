"""Saving to every format and loading back: tokenizer.json (HF tokenizers, transformers), GPT-2's
vocab.json + merges.txt, .tiktoken (bytepair, tiktoken), minbpe's .model; ids equal everywhere.
Tokenizers that a format cannot hold are refused with UnsavableError, and no failed save leaves a
file half-written."""

from __future__ import annotations

import hashlib
import json
import os
from functools import cache

import pytest

import bytepair
from bytepair import Encoding, Tokenizer, UnsavableError
from bytepair.text.byte_unicode import BYTE_TO_UNICODE, BYTES_IN_RANK_ORDER
from bytepair.formats import atomic
from bytepair.formats.packed_ranks import read_packed_ranks

from tests.conftest import PACKAGE_DATA, corpus_texts
from tests.hf_reference import hf_encode_in_a_child, hf_folder

tokenizers = pytest.importorskip("tokenizers")
regex = pytest.importorskip("regex")

LANGS = ("en", "de", "ru", "zh", "code_python", "mixed")


@cache
def texts() -> list[str]:
    """A few kB of each kind of text (the corpus in tests/data), plus edge cases."""
    corpus = corpus_texts()
    return [corpus[name][:4000] for name in LANGS] + ["", " ", "  \n\n x  ", "don't STOP'LL 123456 🫠"]


@cache
def hf_trained() -> tuple[object, Tokenizer]:
    """A byte-level BPE trained by HF's own BpeTrainer on the corpus, in HF and in bytepair."""
    from tokenizers import decoders, models, pre_tokenizers, trainers

    hf = tokenizers.Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=1500, special_tokens=["<|endoftext|>"], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    corpus = corpus_texts()
    hf.train_from_iterator([corpus[name] for name in ("en", "de", "fr", "ru", "code_python")], trainer)
    return hf, Tokenizer.from_str(hf.to_str())


@cache
def pair(name: str) -> tuple[object, Tokenizer]:
    """(HF tokenizer, bytepair tokenizer) for an open-model file or the trained one."""
    if name == "trained":
        return hf_trained()
    path = hf_folder(name) / "tokenizer.json"
    return tokenizers.Tokenizer.from_file(str(path)), Tokenizer.from_file(path)


def ids_hf(hf: object, text: str) -> list[int]:
    return hf.encode(text, add_special_tokens=False).ids  # type: ignore[attr-defined]


# ---------------------------------------------------------------- tokenizer.json
@pytest.mark.parametrize("name", ["gpt2", "llama3", "qwen2_5", "llama2", "trained"])
def test_save_loads_in_hf_tokenizers_and_transformers(name: str, tmp_path) -> None:
    transformers = pytest.importorskip("transformers")
    hf, ours = pair(name)
    path = tmp_path / "tokenizer.json"
    ours.save(path)
    again_hf = tokenizers.Tokenizer.from_file(str(path))
    fast = transformers.PreTrainedTokenizerFast(tokenizer_file=str(path))
    again_ours = Tokenizer.from_file(path)
    for text in texts():
        expected = hf.encode(text).ids
        assert ours.encode(text).ids == expected
        assert again_hf.encode(text).ids == expected
        assert again_ours.encode(text).ids == expected
        assert fast(text)["input_ids"] == expected
    assert os.listdir(tmp_path) == ["tokenizer.json"]


@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base", "r50k_base"])
def test_an_openai_encoding_saves_as_a_tokenizer_json_hf_encodes_alike(encoding: str, tmp_path) -> None:
    """from_encoding has no file behind it: save writes one (every split of a token as a merge,
    ignore_merges, the pattern written for Oniguruma) that HF and bytepair load to tiktoken's ids."""
    enc = bytepair.get_encoding(encoding)
    path = tmp_path / "tokenizer.json"
    Tokenizer.from_encoding(encoding).save(path, pretty=False)
    again = Tokenizer.from_file(path)
    samples = [*texts(), "x" * 3000, " \n" * 300, "<|endoftext|> a"]
    # HF reads the file in a process of its own (o200k_base's, loaded beside the rest of a test
    # worker's heap, was one of its peaks).
    for text, hf in zip(samples, hf_encode_in_a_child(path, samples), strict=True):
        expected = enc.encode(text, allowed_special="all")
        assert hf["ids"] == expected
        assert again.encode(text).ids == expected


# ---------------------------------------------------------------- vocab.json + merges.txt
@pytest.mark.parametrize("name", ["gpt2", "trained"])
def test_vocab_and_merges_round_trip_in_bytepair_and_hf(name: str, tmp_path) -> None:
    from tokenizers import decoders, models, pre_tokenizers

    hf, ours = pair(name)
    paths = ours.save_model(tmp_path, prefix="tok")
    assert [os.path.basename(p) for p in paths] == ["tok-vocab.json", "tok-merges.txt"]
    assert (tmp_path / "tok-merges.txt").read_text(encoding="utf-8").startswith("#version: 0.2\n")
    assert json.loads((tmp_path / "tok-vocab.json").read_text(encoding="utf-8")) == ours.get_vocab(False)
    back = Tokenizer.from_gpt2_files(*paths)
    hf_back = tokenizers.Tokenizer(models.BPE.from_file(*paths))
    hf_back.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf_back.decoder = decoders.ByteLevel()
    for text in texts():
        expected = ids_hf(hf, text)
        assert back.encode(text).ids == expected
        assert hf_back.encode(text).ids == expected
        assert back.decode(expected) == text


def test_gpt2_original_files_load_through_from_gpt2_files(tmp_path) -> None:
    """GPT-2's own encoder.json + vocab.bpe (shipped in tests/data) read as vocab.json + merges.txt."""
    from tests.conftest import gpt2_file

    (tmp_path / "encoder.json").write_bytes(gpt2_file("encoder.json"))
    (tmp_path / "vocab.bpe").write_bytes(gpt2_file("vocab.bpe"))
    tok = Tokenizer.from_gpt2_files(tmp_path / "encoder.json", tmp_path / "vocab.bpe")
    enc = bytepair.get_encoding("gpt2")
    for text in texts():
        assert tok.encode(text).ids == enc.encode_ordinary(text)


def test_merges_txt_cannot_hold_a_merge_with_a_line_break(tmp_path) -> None:
    """Llama 2 has merges such as ';' + '\\r': merges.txt lines cannot hold them; nothing is written."""
    _, llama2 = pair("llama2")
    with pytest.raises(UnsavableError, match="tokenizer.json"):
        llama2.save_model(tmp_path)
    assert os.listdir(tmp_path) == []


# ---------------------------------------------------------------- .tiktoken
@pytest.mark.parametrize("name", ["gpt2", "llama3", "qwen2_5", "trained"])
def test_tiktoken_file_gives_the_same_ids_in_bytepair_tiktoken_and_hf(name: str, tmp_path, monkeypatch) -> None:
    tiktoken = pytest.importorskip("tiktoken")
    import tiktoken.load

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # read the file itself, cache nothing
    hf, ours = pair(name)
    path = tmp_path / f"{name}.tiktoken"
    ours.save_tiktoken(path)
    via_method = ours.to_encoding(name, drop_normalizer=True)  # Qwen's NFC leaves this corpus unchanged
    pattern, specials = via_method._pat_str, {t: via_method.encode_single_token(t) for t in via_method.special_tokens_set}
    ranks = bytepair.load_tiktoken_bpe(path)
    assert ranks == tiktoken.load.load_tiktoken_bpe(str(path))
    from_file = Encoding(name, pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials)
    reference = tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials)
    for text in texts():
        expected = ids_hf(hf, text)
        assert via_method.encode(text) == expected
        assert from_file.encode(text) == expected
        assert reference.encode(text) == expected


@pytest.mark.parametrize("encoding", ["cl100k_base", "o200k_base", "p50k_base"])
def test_encoding_saves_the_official_tiktoken_file_byte_for_byte(encoding: str, tmp_path) -> None:
    enc = bytepair.get_encoding(encoding)
    path = tmp_path / f"{encoding}.tiktoken"
    enc.save_tiktoken(path)
    official = read_packed_ranks((PACKAGE_DATA / f"{encoding}.bpr").read_bytes()).header["source_sha256"]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == official
    Tokenizer.from_encoding(encoding).save_tiktoken(tmp_path / "again.tiktoken")
    assert (tmp_path / "again.tiktoken").read_bytes() == path.read_bytes()


def test_tokenizers_a_rank_table_cannot_hold_are_refused(tmp_path) -> None:
    _, llama2 = pair("llama2")
    with pytest.raises(UnsavableError, match="byte-fallback"):
        llama2.save_tiktoken(tmp_path / "x.tiktoken")
    with pytest.raises(UnsavableError, match="byte-fallback"):
        llama2.to_encoding()
    # Merges that do not follow id order: "b c" makes id 257, then "a b" makes id 256.
    vocab = {BYTE_TO_UNICODE[b]: i for i, b in enumerate(BYTES_IN_RANK_ORDER)} | {"ab": 256, "bc": 257}
    spec = {"pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "use_regex": True},
            "model": {"type": "BPE", "vocab": vocab, "merges": ["b c", "a b"]}}
    tok = Tokenizer.from_str(json.dumps(spec))
    with pytest.raises(UnsavableError, match="merge order differs from the id order"):
        tok.save_tiktoken(tmp_path / "y.tiktoken")
    _, qwen = pair("qwen2_5")
    with pytest.raises(UnsavableError, match="drop_normalizer"):
        qwen.to_encoding()
    _, deepseek = pair("deepseek_v3")
    with pytest.raises(UnsavableError, match="pre-tokenizer"):
        deepseek.to_encoding()
    assert os.listdir(tmp_path) == []


# ---------------------------------------------------------------- minbpe
def minbpe_layout(enc: Encoding, name: str) -> Encoding:
    """``enc`` with byte b at id b and the other tokens after, in their rank order (minbpe's layout):
    the same tokens and the same merges, other ids."""
    multi = sorted((enc.encode_single_token(t), t) for t in enc.token_byte_values() if len(t) > 1)
    ranks = {bytes((b,)): b for b in range(256)} | {token: i for i, (_, token) in enumerate(multi, 256)}
    return Encoding(name, pat_str=enc._pat_str, mergeable_ranks=ranks, special_tokens={"<|endoftext|>": len(ranks)})


class MinbpeOracle:
    """minbpe's RegexTokenizer encode, written from its description: split with the pattern, then in
    each chunk merge every occurrence of the listed pair with the lowest new id, until none is left."""

    def __init__(self, model_path: str) -> None:
        with open(model_path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        assert lines[0] == "minbpe v1"
        self.pattern = regex.compile(lines[1])
        n_special = int(lines[2])
        self.merges = {tuple(map(int, line.split())): idx
                       for idx, line in enumerate((x for x in lines[3 + n_special:] if x.strip()), 256)}

    def encode(self, text: str) -> list[int]:
        out: list[int] = []
        for chunk in self.pattern.findall(text):
            ids = list(chunk.encode("utf-8"))
            while len(ids) > 1:
                best = min(zip(ids, ids[1:]), key=lambda p: self.merges.get(p, float("inf")))
                if best not in self.merges:
                    break
                merged, i = [], 0
                while i < len(ids):
                    if i + 1 < len(ids) and (ids[i], ids[i + 1]) == best:
                        merged.append(self.merges[best])
                        i += 2
                    else:
                        merged.append(ids[i])
                        i += 1
                ids = merged
            out += ids
        return out


@pytest.mark.parametrize("source", ["trained", "r50k_base"])
def test_minbpe_round_trip_and_oracle(source: str, tmp_path) -> None:
    base = pair("trained")[1].to_encoding("trained") if source == "trained" else bytepair.get_encoding(source)
    enc = minbpe_layout(base, "toy")
    paths = enc.save_minbpe(tmp_path / "toy")
    assert [os.path.basename(p) for p in paths] == ["toy.model", "toy.vocab"]
    lines = (tmp_path / "toy.model").read_text(encoding="utf-8").split("\n")
    assert lines[:4] == ["minbpe v1", enc._pat_str, "1", f"<|endoftext|> {enc.n_vocab - 1}"]
    assert "] -> [" in (tmp_path / "toy.vocab").read_text(encoding="utf-8")
    back = bytepair.load_minbpe(tmp_path / "toy.model")
    oracle = MinbpeOracle(str(tmp_path / "toy.model"))
    for text in texts():
        ids = enc.encode(text)
        assert enc.decode_tokens_bytes(ids) == base.decode_tokens_bytes(base.encode(text))  # same tokens
        assert back.encode(text) == ids
        assert oracle.encode(text) == ids
    assert back.encode("<|endoftext|>", allowed_special="all") == [enc.n_vocab - 1]


def test_minbpe_refuses_what_it_cannot_hold(tmp_path) -> None:
    _, trained = pair("trained")
    with pytest.raises(UnsavableError, match="byte b to be token b"):
        trained.save_minbpe(tmp_path / "x")  # HF orders the 256 bytes by their visible characters
    ranks = {bytes((b,)): b for b in range(256)} | {b"hi": 256}
    spaced = Encoding("toy", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={"<end of text>": 257})
    with pytest.raises(UnsavableError, match="whitespace"):
        spaced.save_minbpe(tmp_path / "y")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(("content", "fragment"), [
    (b"minbpe v2\n\n0\n", "first line"),
    (b"minbpe v1\n\n2\n<a> 300\n", "special tokens"),
    (b"minbpe v1\n\n0\n104 105\n104 105\n", "second time"),
    (b"minbpe v1\n\n0\n104 999\n", "line 4"),
    (b"\xff\xfe", "UTF-8"),
])
def test_bad_minbpe_files(content: bytes, fragment: str, tmp_path) -> None:
    path = tmp_path / "bad.model"
    path.write_bytes(content)
    with pytest.raises(bytepair.VocabFormatError, match=fragment):
        bytepair.load_minbpe(path)


# ---------------------------------------------------------------- nothing half-written
def test_a_save_that_fails_midway_leaves_old_files_and_no_temporaries(tmp_path, monkeypatch) -> None:
    def fail_midway(f, data: bytes) -> None:
        f.write(data[: len(data) // 2])
        raise OSError(28, "No space left on device")

    _, gpt2 = pair("gpt2")
    enc = minbpe_layout(bytepair.get_encoding("r50k_base"), "toy")
    saves = {
        "tokenizer.json": lambda: gpt2.save(tmp_path / "tokenizer.json"),
        "vocab.json": lambda: gpt2.save_model(tmp_path),
        "r50k.tiktoken": lambda: bytepair.get_encoding("r50k_base").save_tiktoken(tmp_path / "r50k.tiktoken"),
        "toy.model": lambda: enc.save_minbpe(tmp_path / "toy"),
    }
    old = {name: f"old {name}".encode() for name in ("tokenizer.json", "vocab.json", "merges.txt", "r50k.tiktoken", "toy.model", "toy.vocab")}
    for name, data in old.items():
        (tmp_path / name).write_bytes(data)
    monkeypatch.setattr(atomic, "_write_all", fail_midway)
    for name, save in saves.items():
        with pytest.raises(OSError, match="No space"):
            save()
        assert sorted(os.listdir(tmp_path)) == sorted(old), name
        assert all((tmp_path / n).read_bytes() == data for n, data in old.items()), name
    monkeypatch.undo()
    for save in saves.values():
        save()
    assert sorted(os.listdir(tmp_path)) == sorted(old)
    assert Tokenizer.from_file(tmp_path / "tokenizer.json").encode("hello").ids == gpt2.encode("hello").ids
