"""A tokenizer.json in chunks: blocks cut where the pipeline keeps piece boundaries give exactly the
ids of the whole text (Llama 3, Qwen, DeepSeek V3, GPT-2, gpt-4o and the OpenAI patterns), pipelines
not known to keep them are not cut, and counting a file holds a block, not the file."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
import bytepair.cli
from bytepair.pipeline import stream_cuts

from tests.conftest import corpus_texts
from tests.pre_tokenizers.test_pretokenize import _realistic_texts_without_spaces
from tests.text.test_streaming import _chunked

ROOT = Path(__file__).resolve().parents[2]
HF = ROOT / "build" / "cache" / "hf"
CUT = ("llama3", "qwen2_5", "qwen3", "deepseek_v3", "gpt2", "gpt4o")
NOT_CUT = ("gemma3", "llama2")
@lru_cache(maxsize=2)
def tokenizer(model: str) -> bytepair.Tokenizer:
    """The tokenizer of an encoding or an open model (two kept: tests are grouped by model)."""
    if model.endswith("_base"):
        return bytepair.Tokenizer.from_encoding(model)
    path = HF / model / "tokenizer.json"
    if not path.is_file():
        pytest.fail(f"{path} is missing: run `make hf-data` (make test does it)")
    return bytepair.Tokenizer.from_file(path)


def _ids(tok: bytepair.Tokenizer, text: str) -> list[int]:
    return tok.encode(text, add_special_tokens=False).ids


def _blocks(tok: bytepair.Tokenizer, chunks: list[str], block_chars: int) -> list[str]:
    blocks = list(tok.stream_blocks(chunks, block_chars))
    assert "".join(blocks) == "".join(chunks)
    return blocks


@pytest.mark.parametrize("model", CUT + ("cl100k_base", "o200k_base", "r50k_base"), scope="module")
def test_cut_pipelines_give_the_whole_texts_ids_on_the_corpus(model: str) -> None:
    tok = tokenizer(model)
    assert stream_cuts.cutter_for(tok.normalizer, tok.pre_tokenizer, list(tok.pipeline.added)) is not None
    text = "".join(corpus_texts().values()) + "".join(_realistic_texts_without_spaces().values())
    chunks = _chunked(text, list(range(0, len(text), 7919)))
    blocks = _blocks(tok, chunks, 2000)
    assert len(blocks) > 100
    whole = _ids(tok, text)
    assert [i for block in blocks for i in _ids(tok, block)] == whole
    assert [i for ids in tok.encode_stream(chunks) for i in ids] == whole
    assert tok.count_stream(iter(chunks)) == len(whole) == tok.count(text)


@pytest.mark.parametrize("model", NOT_CUT, scope="module")
def test_other_pipelines_are_one_block(model: str) -> None:
    """Gemma 3 (Replace " " by "▁", then a string split) and Llama 2 (Prepend "▁") are not known to
    keep cut points: their text is one block, so counts still equal."""
    tok = tokenizer(model)
    assert stream_cuts.cutter_for(tok.normalizer, tok.pre_tokenizer, list(tok.pipeline.added)) is None
    text = corpus_texts()["en"][:20_000]
    chunks = _chunked(text, list(range(0, len(text), 997)))
    assert _blocks(tok, chunks, 100) == [text]
    assert tok.count_stream(chunks) == tok.count(text) == len(_ids(tok, text))


# Characters that crowd the cut rules and the stages around them: letters of several scripts (with
# a final sigma and Hangul jamo that compose under NFC), digits of several kinds, combining marks,
# symbols inside and after CJK runs ("・", "゛"), "™" (letters under NFKC), an apostrophe,
# whitespace of every kind, and the added tokens of the models tested with their near misses.
_ALPHABET = st.sampled_from(
    list("aBz Σς\n\r\t!/'s1٣①é\u0301日本ア・゛，。,\":{}=+_-²™€\u200b\x85\u3000\u1100\u1161") + [
        "<|endoftext|>", "<|eot_id|>", "<|im_end|>", "<|im_start|>", "<|endof", "eot_id|>", "<｜end▁of▁sentence｜>",
        "\ud83d", "🙂", "123456", "   ", "\n\n", "ab'll", "ÀB",
    ]
)


@pytest.mark.parametrize("model", CUT + ("o200k_base",), scope="module")
@settings(max_examples=25, deadline=None)
@given(st.lists(_ALPHABET, max_size=150).map("".join), st.lists(st.integers(0, 500), max_size=12), st.integers(1, 30))
def test_blocks_give_the_whole_texts_ids(model: str, text: str, cuts: list[int], block_chars: int) -> None:
    tok = tokenizer(model)
    blocks = _blocks(tok, _chunked(text, cuts), block_chars)
    assert [i for block in blocks for i in _ids(tok, block)] == _ids(tok, text)


def test_normalizers_and_steps_that_would_move_pieces_are_not_cut() -> None:
    """Each reason the module gives for not cutting, on a pipeline that is cut without it."""
    from bytepair.normalizers import normalizer_from_json
    from bytepair.pre_tokenizers import pre_tokenizer_from_json

    llama3 = json.loads((HF / "llama3" / "tokenizer.json").read_text(encoding="utf-8"))["pre_tokenizer"]
    cuttable = pre_tokenizer_from_json(llama3)
    assert stream_cuts.cutter_for(normalizer_from_json({"type": "NFC"}), cuttable, []) is not None
    # NFKC makes letters of a symbol: a cut between "a" and "™" would split the piece "aTM".
    assert stream_cuts.cutter_for(normalizer_from_json({"type": "NFKC"}), cuttable, []) is None
    tok = bytepair.Tokenizer.from_file(HF / "llama3" / "tokenizer.json")
    tok.normalizer = normalizer_from_json({"type": "NFKC"})
    assert _blocks(tok, ["a™" * 50], 4) == ["a™" * 50]
    for step in (
        {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": True},
        {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        {"type": "Split", "pattern": {"Regex": r"\w+|\s+"}, "behavior": "Isolated", "invert": False},
        {"type": "Split", "pattern": {"Regex": llama3["pretokenizers"][0]["pattern"]["Regex"]}, "behavior": "MergedWithNext", "invert": False},
    ):
        pre = pre_tokenizer_from_json({"type": "Sequence", "pretokenizers": [step, *llama3["pretokenizers"]]})
        assert stream_cuts.cutter_for(None, pre, []) is None, step
    # A later step splits each piece alone: any Split may follow the one that cuts.
    after = pre_tokenizer_from_json({"type": "Sequence", "pretokenizers": [*llama3["pretokenizers"], {"type": "Digits", "individual_digits": True}]})
    assert stream_cuts.cutter_for(None, after, []) is not None
    # Added tokens matched in normalized text are out under a normalizer that changes text.
    normalized = bytepair.AddedToken("hello", normalized=True)
    assert stream_cuts.cutter_for(normalizer_from_json({"type": "NFC"}), cuttable, [normalized]) is None
    assert stream_cuts.cutter_for(None, cuttable, [normalized]) is not None


def test_counter_and_file(tmp_path) -> None:
    tok = tokenizer("qwen2_5")
    text = "Qwen <|im_end|> counts\r\nthis 日本語 text\n" * 500 + "\ufeffend"
    path = tmp_path / "text.txt"
    path.write_bytes(text.encode("utf-8"))
    assert tok.count_file(path) == tok.count(text) == tok.count_file(io.BytesIO(text.encode("utf-8")))
    assert tok.count_file(path, add_special_tokens=True) == len(tok.encode(text).ids)
    counter = tok.token_counter()
    data = text.encode("utf-8")
    for i in range(0, len(data), 777):  # characters split between pieces of bytes
        counter.feed_bytes(data[i : i + 777])
    assert counter.finish() == tok.count(text)
    path.write_bytes(b"fine\n" * 1000 + b"\xff")
    with pytest.raises(bytepair.InputDecodeError, match="5000"):
        tok.count_file(path)


def test_counting_a_big_file_holds_a_block_not_the_file(tmp_path) -> None:
    """`bytepair count -t` on 40 MB, and `inspect -t` offsets across blocks. Counted whole, the file
    peaked at ~30 times its size. The text repeated ends with a letter and a newline and starts with
    a letter: a cut point, so the count is the text's times the repeats."""
    text = corpus_texts()["en"].strip()
    text = text[next(i for i, ch in enumerate(text) if ch.isalpha()):] + "\n"
    repeats = 40_000_000 // len(text.encode("utf-8")) + 1
    path = tmp_path / "big.txt"
    with path.open("w", encoding="utf-8", newline="") as f:
        for _ in range(repeats):
            f.write(text)
    script = (
        "import re, sys\n"
        "from bytepair.cli import main\n"
        "code = main(['count', '-t', sys.argv[1], sys.argv[2]])\n"
        "# VmHWM, not ru_maxrss: a child's ru_maxrss starts at its parent's (pytest's) peak.\n"
        "print(int(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1)) // 1024, file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    llama3 = HF / "llama3" / "tokenizer.json"
    result = subprocess.run([sys.executable, "-c", script, str(llama3), str(path)], capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-2000:]
    assert int(result.stdout) == repeats * tokenizer("llama3").count(text)
    peak_mb = int(result.stderr.split()[-1])
    assert peak_mb < 400, f"counting 40 MB peaked at {peak_mb} MB"
    # inspect -t: ids, and offsets into the whole input, as one encode of the whole text gives them.
    small = text * 3
    path.write_text(small, encoding="utf-8", newline="")
    out = io.BytesIO()
    assert bytepair.cli.main(["inspect", "-t", str(llama3), str(path)], stdout=out) == 0
    rows = [line.split("\t")[:3] for line in out.getvalue().decode("utf-8").splitlines()]
    encoded = tokenizer("llama3").encode(small, add_special_tokens=False)
    assert [(int(i), span) for i, _, span in rows] == [(i, f"[{s}, {e})") for i, (s, e) in zip(encoded.ids, encoded.offsets)]
