"""The JavaScript API under Node: `node --test web/test/` against ids from the native core (the
OpenAI encodings, and open-model tokenizer.json files through bytepair.Tokenizer), and
`node web/cli.mjs count FILE` (the Python CLI run in Pyodide: -t takes a tokenizer.json path)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import bytepair
from bytepair.data.openai import ENCODING_SPECS

from tests.browser import DIST, ROOT, require_bundle
from tests.conftest import corpus_texts
from tests.hf_reference import hf_folder, published_file
from tests.test_parity_tiktoken import ADVERSARIAL
from tests.web.test_web_chat import chat_fixture

pytestmark = pytest.mark.browser
NODE = shutil.which("node")
PREPARED = ("llama3", "qwen2_5", "qwen3", "deepseek_v3", "gpt2", "bert_minilm", "unigram_botchan")  # what build/bundle.mjs prepares
CHECKED = ("llama3", "qwen2_5", "deepseek_v3", "gpt2", "bert_minilm", "unigram_botchan")  # compared id for id here


def tokenizers_fixture() -> dict:
    """Native ids (bytepair.Tokenizer, add_special_tokens=False) for web/test/tokenizers.test.mjs."""
    texts = list(corpus_texts().values())[:5] + ["Emoji: 🙂 🫠 👩‍👩‍👧 🏳️‍🌈 ✌🏽 𠀀", "don't  stop\n\n\tnow 12345"]
    prepared = {}
    for name in CHECKED:
        tok = bytepair.Tokenizer.from_file(hf_folder(name) / "tokenizer.json")
        specials = [t.content for _, t in sorted(tok.get_added_tokens_decoder().items()) if t.special]
        cases = [*texts, f"x{specials[0]}y {specials[-1]}z"] if specials else texts
        encoded = [tok.encode(t, add_special_tokens=False).ids for t in cases]
        prepared[name] = {
            "vocab_size": tok.get_vocab_size(),
            "special_tokens": specials,
            "cases": [
                {"text": t, "ids": ids, "decoded": tok.decode(ids, skip_special_tokens=False)} for t, ids in zip(cases, encoded)
            ],
        }
    llama3 = bytepair.Tokenizer.from_file(hf_folder("llama3") / "tokenizer.json")
    offsets_text = "a🫠b𠀀c 日本語 <|begin_of_text|>!"
    e = llama3.encode(offsets_text, add_special_tokens=False)
    stream_ids = llama3.encode(" 🫠 ok 日本", add_special_tokens=False).ids
    gpt2 = hf_folder("gpt2") / "tokenizer.json"
    json_text = "Hello <|endoftext|> wörld 🫠"
    return {
        "names": list(PREPARED),
        "prepared": prepared,
        "offsets": {
            "text": offsets_text,
            "ids": e.ids,
            "starts": bytepair.utf16_offsets(offsets_text, [s for s, _ in e.offsets]),
            "ends": bytepair.utf16_offsets(offsets_text, [t for _, t in e.offsets]),
        },
        "special": {"text": "<|begin_of_text|>hi<|eot_id|>", "ids": llama3.encode("<|begin_of_text|>hi<|eot_id|>", add_special_tokens=False).ids},
        "stream": {"ids": stream_ids, "text": llama3.decode(stream_ids, skip_special_tokens=False)},
        "json": {
            "path": str(gpt2),
            "text": json_text,
            "ids": bytepair.Tokenizer.from_file(gpt2).encode(json_text, add_special_tokens=False).ids,
        },
    }


def families_fixture() -> dict | None:
    """Native ids (add_special_tokens=False) for web/test/families.test.mjs: a published SentencePiece
    .model through Tokenizer.from_sentencepiece (the JS sentencepiece option) and a BERT WordPiece
    tokenizer.json (both equal to the references in tests/models/test_published_families.py)."""
    try:
        model, bert = published_file("botchan_en_unigram_1000"), published_file("all_minilm_l6_v2")
    except pytest.skip.Exception:  # no registry: the JS tests of these files skip
        return None
    texts = list(corpus_texts().values())[:3] + ["Hello,  wörld! Ünïcödé café", "emoji 🙂 👩‍👩‍👧 𠀀 日本語", "  runs\t\tof   space  "]
    from tests.models.test_published_families import transformers_json

    t5 = model.parent / "t5-tokenizer.json"  # T5's tokenizer.json as transformers builds it from the .model
    t5.write_text(transformers_json("botchan_en_unigram_1000", "T5Tokenizer"), encoding="utf-8")
    out = {}
    for key, tok, path in (("sentencepiece", bytepair.Tokenizer.from_sentencepiece(model), model),
                           ("wordpiece", bytepair.Tokenizer.from_file(bert), bert),
                           ("unigram", bytepair.Tokenizer.from_file(t5), t5)):
        encoded = [tok.encode(t, add_special_tokens=False) for t in texts]
        out[key] = {
            "path": str(path),
            "vocab_size": tok.get_vocab_size(),
            # count is the text's whole count, as Tokenizer.count (all-MiniLM's file truncates encode to 128)
            "cases": [{"text": t, "ids": e.ids, "count": tok.count(t), "decoded": tok.decode(e.ids, skip_special_tokens=False),
                       "starts": bytepair.utf16_offsets(t, [a for a, _ in e.offsets]),
                       "ends": bytepair.utf16_offsets(t, [b for _, b in e.offsets])} for t, e in zip(texts, encoded)],
        }
    return out


@pytest.fixture(scope="module")
def node() -> str:
    if NODE is None:
        pytest.fail("node (>= 20) is required for the JavaScript API tests")
    require_bundle()
    return NODE


def test_node_test_suite(node: str, tmp_path: Path) -> None:
    o200k, cl100k = bytepair.get_encoding("o200k_base"), bytepair.get_encoding("cl100k_base")
    texts = [*list(corpus_texts().values())[:6], *[v for _, v in sorted(ADVERSARIAL.items())][:30]]
    offsets_text = "a🫠b𠀀c 日本語"
    ids, spans = o200k.encode_with_offsets(offsets_text)
    fixture = {
        "encodings": list(ENCODING_SPECS),
        "cases": [
            {"encoding": name, "text": t, "ids": enc.encode(t, disallowed_special=())}
            for t in texts
            for name, enc in (("o200k_base", o200k), ("cl100k_base", cl100k))
        ],
        "offsets": {
            "text": offsets_text,
            "ids": ids,
            "starts": bytepair.utf16_offsets(offsets_text, [s for s, _ in spans]),
            "ends": bytepair.utf16_offsets(offsets_text, [e for _, e in spans]),
        },
        "lone_surrogate": o200k.encode("a\ud800b"),
        "tokenizers": tokenizers_fixture(),
        "chat": chat_fixture(),
        "families": families_fixture(),
    }
    path = tmp_path / "fixture.json"
    path.write_text(json.dumps(fixture), encoding="utf-8")
    result = subprocess.run(
        [node, "--test", "web/test/"], cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={**__import__("os").environ, "BYTEPAIR_FIXTURE": str(path)},
    )
    assert result.returncode == 0, failed_subtests(result.stdout) + result.stderr[-4000:]
    assert "# fail 0" in result.stdout


def failed_subtests(tap: str) -> str:
    """The ``not ok`` entries of a TAP report with their details, else the report's tail (a failure
    message must name the failed test: the tail of node's report of 79 tests names none)."""
    out: list[str] = []
    keep = False
    for line in tap.splitlines():
        if re.match(r"\s*not ok \d+ - ", line):
            keep = True
        elif re.match(r"\s*(ok \d+ - |# Subtest)", line):
            keep = False
        if keep:
            out.append(line)
    return "\n".join(out)[-12000:] if out else tap[-4000:]


def test_node_cli_count(node: str, tmp_path: Path) -> None:
    path = tmp_path / "input.txt"
    text = corpus_texts()["ja"]
    path.write_text(text, encoding="utf-8")
    result = subprocess.run([node, "web/cli.mjs", "count", str(path)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout == f"{bytepair.get_encoding('o200k_base').count(text)}\n"
    result = subprocess.run(
        [node, "web/cli.mjs", "count", str(path), "--encoding", "cl100k_base"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env={**os.environ, "BYTEPAIR_ASSETS": str(DIST)},
    )
    assert result.stdout == f"{bytepair.get_encoding('cl100k_base').count(text)}\n"


def test_node_cli_errors(node: str, tmp_path: Path) -> None:
    path = tmp_path / "special.txt"
    path.write_text("x <|endoftext|>", encoding="utf-8")
    result = subprocess.run([node, "web/cli.mjs", "count", str(path)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    as_text = bytepair.get_encoding("o200k_base").count("x <|endoftext|>", disallowed_special=())
    assert (result.returncode, result.stdout) == (0, f"{as_text}\n") and "counted as ordinary text" in result.stderr
    result = subprocess.run([node, "web/cli.mjs", "count", str(path), "--disallow-special"], cwd=ROOT, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 1 and "--allow-special" in result.stderr
    result = subprocess.run([node, "web/cli.mjs", "count", str(path), "--allow-special", "all"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert (result.returncode, result.stdout) == (0, "3\n")
    result = subprocess.run([node, "web/cli.mjs", "count", str(path), "-e", "nope"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 2 and "known encodings" in result.stderr
    result = subprocess.run([node, "web/cli.mjs", "frobnicate"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 2


def test_node_cli_tokenizer_json(node: str, tmp_path: Path) -> None:
    path = tmp_path / "input.txt"
    text = "Hello <|begin_of_text|> 🫠 " + corpus_texts()["ja"][:500]
    path.write_text(text, encoding="utf-8")
    llama3 = bytepair.Tokenizer.from_file(hf_folder("llama3") / "tokenizer.json")
    # As in the Python CLI, -t/--tokenizer takes a tokenizer.json or the folder holding one.
    result = subprocess.run([node, "web/cli.mjs", "count", str(path), "-t", str(hf_folder("llama3"))], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert (result.returncode, result.stdout) == (0, f"{llama3.count(text)}\n"), result.stderr[-2000:]
    gpt2 = hf_folder("gpt2") / "tokenizer.json"
    result = subprocess.run([node, "web/cli.mjs", "encode", str(path), "--tokenizer", str(gpt2)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert json.loads(result.stdout) == bytepair.Tokenizer.from_file(gpt2).encode(text, add_special_tokens=False).ids
    # ... and the JavaScript API's names, from the package's prepared files
    result = subprocess.run([node, "web/cli.mjs", "count", str(path), "-t", "llama3"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert (result.returncode, result.stdout) == (0, f"{llama3.count(text)}\n"), result.stderr[-2000:]
    result = subprocess.run([node, "web/cli.mjs", "count", str(path), "-t", str(path)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    native = subprocess.run([sys.executable, "-m", "bytepair", "count", str(path), "-t", str(path)], cwd=ROOT, capture_output=True,
                            text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT / "core")})
    assert (result.returncode, result.stderr) == (native.returncode, native.stderr) and result.returncode == 1
