"""What the native benchmark (``python -m bench native``, section 1b) assumes about its tokenizer.json rows.

Why: those rows time ``bytepair.Tokenizer`` against tiktoken built from the model's own
``tokenizer.json`` (``bench/native_models.py``: ``tiktoken_for_model``). That reference is only fair if it gives the ids
HF ``tokenizers`` gives for the same file, normalizer included; the benchmark checks it on every
corpus file at run time, and these tests check the construction itself on texts chosen to break it
(a byte-level pattern of its own, and Qwen's NFC normalizer on decomposed accents).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bench.bench_modules import import_bench
from tests.hf_reference import hf_folder

tokenizers = pytest.importorskip("tokenizers")
pytest.importorskip("tiktoken")

SAMPLE = "Cafe\u0301 naïve I'LL don't  12345\n\n\tfin 日本語 🙂 ÅÅ e\u0308\u0301x <|im_start|"
# No added token spelled whole: HF matches those in any text, tiktoken's encode_ordinary never does
# (the benchmark's own check on every corpus file would catch a file that held one).


@pytest.fixture(scope="module")
def native_models():
    return import_bench("native_models")


def test_gpt2_reference_is_tiktokens_own_gpt2(native_models, tiktoken_ref) -> None:
    """GPT-2's tokenizer.json (ByteLevel's own split) through the construction is tiktoken's gpt2."""
    reference = native_models.tiktoken_for_model(hf_folder("gpt2") / "tokenizer.json")
    assert reference(SAMPLE) == tiktoken_ref("gpt2").encode_ordinary(SAMPLE)


@pytest.mark.parametrize("model", ["llama3", "qwen2_5"])
def test_reference_gives_hf_ids(native_models, model: str) -> None:
    """The benchmarked models: tiktoken on the file's vocabulary gives HF's ids (Qwen2.5's NFC
    normalizer makes "e" + U+0301 one character first; without it the ids would differ)."""
    path = hf_folder(model) / "tokenizer.json"
    hf = tokenizers.Tokenizer.from_file(str(path))
    reference = native_models.tiktoken_for_model(path)
    assert reference(SAMPLE) == hf.encode(SAMPLE, add_special_tokens=False).ids
    if model == "qwen2_5":
        assert json.loads(path.read_text(encoding="utf-8"))["normalizer"] == {"type": "NFC"}
        assert reference("Cafe\u0301") == reference("Caf\u00e9")


def test_other_normalizers_are_refused(native_models, tmp_path: Path) -> None:
    """A normalizer the construction has no stand-in for stops the run instead of timing wrong ids."""
    spec = json.loads((hf_folder("gpt2") / "tokenizer.json").read_text(encoding="utf-8"))
    spec["normalizer"] = {"type": "NFKC"}
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    with pytest.raises(SystemExit, match="NFKC"):
        native_models.tiktoken_for_model(path)
