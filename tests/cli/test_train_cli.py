"""``bytepair train`` as a subprocess: the file it writes is HF-identical and HF loads it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import bytepair

from tests.hf_trainer import hf_train, model_of

TEXT = "the cat sat on the mat\nthe dog sat on the log\n<|endoftext|>\n" * 20 + "naïve café 你好\n"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bytepair", *args], capture_output=True, text=True)


def test_train_writes_hf_identical_file(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT, encoding="utf-8", newline="")
    out = tmp_path / "tok.json"
    run = _run("train", str(corpus), "--vocab-size", "300", "--pattern", "gpt2", "--special", "<|endoftext|>",
               "--min-frequency", "2", "-o", str(out))
    assert run.returncode == 0, run.stderr
    assert "merges" in run.stderr and "bytes per token" in run.stderr
    theirs = hf_train(TEXT.splitlines(keepends=True), 300, "gpt2", special_tokens=["<|endoftext|>"], min_frequency=2)
    assert model_of(out.read_text(encoding="utf-8")) == model_of(theirs.to_str())
    tk = pytest.importorskip("tokenizers")
    assert tk.Tokenizer.from_file(str(out)).encode("the cat <|endoftext|>").ids == \
        bytepair.Tokenizer.from_file(out).encode("the cat <|endoftext|>").ids


def test_train_extends_a_base(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    base, out = tmp_path / "base.json", tmp_path / "ext.json"
    assert _run("train", str(corpus), "--vocab-size", "280", "--pattern", "gpt2", "-o", str(base)).returncode == 0
    run = _run("train", str(corpus), "--vocab-size", "300", "--base", str(base), "-o", str(out))
    assert run.returncode == 0, run.stderr
    old, new = model_of(base.read_text(encoding="utf-8")), model_of(out.read_text(encoding="utf-8"))
    assert new[1][: len(old[1])] == old[1] and all(new[0][t] == i for t, i in old[0].items())


def test_train_errors_exit_nonzero_with_message(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("abc", encoding="utf-8")
    run = _run("train", str(corpus), "--vocab-size", "10", "-o", str(tmp_path / "x.json"))
    assert run.returncode == 2 and "ask for vocab_size >= 256" in run.stderr  # a usage error, as the README says
    run = _run("train", str(corpus), "--vocab-size", "300", "--pattern", "cl100k", "-o", str(tmp_path / "x.json"))
    assert run.returncode == 2 and "no encoding name" in run.stderr
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    run = _run("train", str(tmp_path / "empty.txt"), "--vocab-size", "300", "-o", str(tmp_path / "x.json"))
    assert run.returncode == 2, run.stderr
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9\n")
    run = _run("train", str(tmp_path / "latin1.txt"), "--vocab-size", "300", "-o", str(tmp_path / "x.json"))
    assert run.returncode == 1 and "not UTF-8" in run.stderr
    assert not (tmp_path / "x.json").exists()


def test_a_malformed_classic_model_is_a_vocab_format_error(tmp_path: Path) -> None:
    import json

    import bytepair
    from bytepair.trainers.classic import load_classic

    for document in ({"type": "bytepair-classic-bpe", "merges": [["a"]]}, {"type": "bytepair-classic-bpe", "merges": [], "alphabet": 5}):
        path = tmp_path / "model.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        with pytest.raises(bytepair.VocabFormatError, match="malformed"):
            load_classic(path)
