"""Training from JavaScript: the bridge's train_* operations (here, in CPython) and ``train()`` of the
JS API under Node (``web/test/train.test.mjs``), both against ``bytepair.train``, the ``bytepair
train`` command and Hugging Face's BpeTrainer; the file Node saves is read back with HF ``tokenizers``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair import web_bridge
from bytepair.errors import BytepairError, InvalidInputError, TrainingError

from tests.browser import ROOT, require_bundle
from tests.conftest import corpus_texts
from tests.hf_trainer import hf_train


def model_of(text: str) -> dict:
    model = json.loads(text)["model"]
    return {"vocab": model["vocab"], "merges": model["merges"]}


def bridge_train(batches: list[list[str]], vocab_size: int, pattern: str | None = None, specials: list[str] | None = None,
                 min_frequency: int = 0, report=lambda *event: False) -> dict:
    handle = web_bridge.train_open(pattern)
    for batch in batches:
        web_bridge.train_feed(handle, batch)
    return web_bridge.train_finish(handle, vocab_size, specials or [], min_frequency, report)


def test_bridge_trains_what_train_trains_and_hf_agrees() -> None:
    lines = [line + "\n" for line in corpus_texts()["de"].splitlines()[:400]]
    batches = [lines[:150], lines[150:151], lines[151:]]
    result = bridge_train(batches, 500, "gpt2", ["<|endoftext|>"], 2)
    mine = bytepair.train(lines, 500, pattern="gpt2", special_tokens=["<|endoftext|>"], min_frequency=2)
    theirs = hf_train(lines, 500, "gpt2", special_tokens=["<|endoftext|>"], min_frequency=2)
    assert model_of(result["json"]) == model_of(mine.to_str()) == model_of(theirs.to_str())
    assert result["merges"] == len(model_of(result["json"])["merges"]) and result["vocab_size"] == mine.get_vocab_size()
    assert web_bridge.memory_stats()["open_trainings"] == 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text("ab c\n\u00e9\U0001f642", max_size=12), min_size=1, max_size=12), st.data())
def test_any_slicing_of_the_texts_trains_alike(texts: list[str], data: st.DataObject) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(texts)), max_size=3)))
    batches = [texts[a:b] for a, b in zip([0, *cuts], [*cuts, len(texts)])]
    try:
        expected = bytepair.train(texts, 270, pattern="o200k_base").to_str(pretty=True)
    except TrainingError:  # only empty strings: the corpus is empty, and the bridge says so too
        with pytest.raises(TrainingError, match="empty"):
            bridge_train(batches, 270)
        return
    assert bridge_train(batches, 270)["json"] == expected


def test_progress_reports_carry_the_latest_merges(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = corpus_texts()["en"].splitlines()[:300]
    merges = model_of(bytepair.train(lines, 400, pattern="gpt2").to_str())["merges"]
    monkeypatch.setattr(web_bridge.training, "REPORT_SECONDS", 0.0)  # every merge
    events: list[tuple[str, int, int, list]] = []
    bridge_train([lines], 400, "gpt2", report=lambda *e: events.append((*e[:3], json.loads(e[3]))))
    assert [done for _, done, _, _ in events[:-1]] == list(range(len(merges) + 1))
    assert events[0][3] == [] and all(phase == "merging" and total == 400 - 256 for phase, _, total, _ in events[:-1])
    for _, done, _, since in events[1:-1]:
        assert since == merges[done - 1:done]  # each report: the merges since the previous one
    assert events[-1] == ("merging", len(merges), len(merges), [])

    monkeypatch.setattr(web_bridge.training, "REPORT_SECONDS", 3600.0)  # only the first reports and the last
    events.clear()
    bridge_train([lines], 400, "gpt2", report=lambda *e: events.append((e[1], json.loads(e[3]))))
    assert events == [(0, []), (1, merges[:1]), (len(merges), merges[1:]), (len(merges), [])]
    monkeypatch.setattr(web_bridge.training, "MERGES_REPORTED", 5)  # no more than this many: the latest
    events.clear()
    bridge_train([lines], 400, "gpt2", report=lambda *e: events.append((e[1], json.loads(e[3]))))
    assert events[2] == (len(merges), merges[-5:])


def test_a_true_report_stops_training(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web_bridge.training, "REPORT_SECONDS", 0.0)  # a report after every merge
    lines = corpus_texts()["fr"].splitlines()[:200]
    seen: list[int] = []

    def report(phase: str, done: int, total: int, merges: str) -> bool:
        seen.append(done)
        return done >= 3

    handle = web_bridge.train_open("o200k_base")
    web_bridge.train_feed(handle, lines)
    answer = web_bridge.dispatch("train_finish", handle, 1000, [], 0, report)
    assert answer["error"]["name"] == "AbortError" and "AbortSignal" in answer["error"]["message"]
    assert issubclass(web_bridge.AbortError, TrainingError) and seen == [0, 1, 2, 3]  # stopped at once
    assert web_bridge.memory_stats()["open_trainings"] == 0
    assert web_bridge.dispatch("train_feed", handle, ["x"])["error"]["name"] == "InvalidInputError"


def test_bridge_refuses_bad_input_with_what_to_do() -> None:
    assert web_bridge.dispatch("train_open", "(")["error"]["name"] == "TrainingError"
    handle = web_bridge.train_open(None)
    with pytest.raises(InvalidInputError, match="array of strings"):
        web_bridge.train_feed(handle, "one string")
    with pytest.raises(InvalidInputError, match="not a str"):
        web_bridge.train_feed(handle, ["ok", 3])
    assert web_bridge.train_close(handle) and not web_bridge.train_close(handle)
    for vocab, specials, message in [(300.5, [], "whole number"), (300, "<s>", "array of strings"), (100, [], "below")]:
        handle = web_bridge.train_open(None)
        web_bridge.train_feed(handle, ["some text"])
        with pytest.raises(BytepairError, match=message):
            web_bridge.train_finish(handle, vocab, specials, 0, lambda *e: False)
    assert web_bridge.memory_stats()["open_trainings"] == 0


def test_on_merge_hears_every_merge_in_order() -> None:
    lines = corpus_texts()["ru"].splitlines()[:200]
    heard: list[list[str]] = []
    tok = bytepair.train(lines, 450, pattern="cl100k_base", on_merge=lambda a, b: heard.append([a, b]))
    assert heard == model_of(tok.to_str())["merges"]
    with pytest.raises(TrainingError, match="function"):
        bytepair.train(lines, 450, on_merge="yes")  # type: ignore[arg-type]


# ---- train() under Node -------------------------------------------------------------------------------

SLICE = 1 << 18  # web/bytepair.mjs TRAIN_SLICE_CHARS: bytes per slice of a Blob


def awkward_file(path: Path) -> None:
    """A UTF-8 file over two Blob slices: a BOM, CRLF / CR / LF line ends, a CRLF split between the
    first two slices, a 3-byte character split between the next two, no line end at the end."""
    texts = corpus_texts()
    body = bytearray("\ufeff".encode())
    mixed = [line for name in ("en", "ja", "el_cs_bg_pt", "code_python") for line in texts[name].splitlines()]
    ends = ["\n", "\r\n", "\r"]
    i = 0
    while len(body) < SLICE - 200:
        body += (mixed[i % len(mixed)] + ends[i % 3]).encode()
        i += 1
    body += b"x" * (SLICE - 1 - len(body)) + b"\r\n"  # "\r" ends slice 1, "\n" starts slice 2
    while len(body) < 2 * SLICE - 200:
        body += (mixed[i % len(mixed)] + ends[i % 3]).encode()
        i += 1
    body += b"y" * (2 * SLICE - 1 - len(body)) + "日本\n".encode()  # 日 straddles slices 2 and 3
    body += "tail without a line end 🫠".encode()
    path.write_bytes(bytes(body))


def cli_train(path: Path, out: Path, *args: str) -> str:
    subprocess.run([sys.executable, "-m", "bytepair", "train", str(path), *args, "-o", str(out)], check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT / "core")}, timeout=300)
    return out.read_text(encoding="utf-8")


@pytest.mark.browser
def test_node_train_equals_python_and_hf_loads_the_saved_file(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node (>= 20) is required for the JavaScript API tests")
    require_bundle()
    texts = corpus_texts()
    lines = [line + "\n" for name in ("en", "de", "ja") for line in texts[name].splitlines()]
    probe = texts["es"][:2000] + " <|endoftext|> 🫠 tail"
    specials = bytepair.train(lines, 420, pattern="gpt2", special_tokens=["<|endoftext|>"], min_frequency=2)
    assert model_of(specials.to_str()) == model_of(hf_train(lines, 420, "gpt2", ["<|endoftext|>"], 2).to_str())
    one = texts["fr"]
    one_string = bytepair.train([one], 330)
    path = tmp_path / "awkward.txt"
    awkward_file(path)
    from_file = json.loads(cli_train(path, tmp_path / "cli.json", "--vocab-size", "300", "--pattern", "cl100k_base"))
    file_tok = bytepair.Tokenizer.from_file(tmp_path / "cli.json")
    saved = tmp_path / "saved.json"

    def case(name: str, tok_json: dict, tok: bytepair.Tokenizer, **extra) -> dict:
        return {"name": name, "expected": tok_json, "probe": probe,
                "probe_ids": tok.encode(probe, add_special_tokens=False).ids, **extra}

    abort_texts = [line for _ in range(12) for line in lines]
    fixture = {
        "cases": [
            case("strings, gpt2, a special token, min_frequency", json.loads(specials.to_str()), specials, texts=lines,
                 options={"vocabSize": 420, "pattern": "gpt2", "specialTokens": ["<|endoftext|>"], "minFrequency": 2},
                 save_to=str(saved)),
            case("one string, default pattern", json.loads(one_string.to_str()), one_string, texts=one,
                 options={"vocabSize": 330}),
            case("a file (BOM, CR/CRLF/LF, characters across slices)", from_file, file_tok, file=str(path),
                 options={"vocabSize": 300, "pattern": "cl100k_base"}),
        ],
        "abort": {"texts": abort_texts, "options": {"vocabSize": 2000, "pattern": "gpt2"}},
    }
    assert sum(map(len, abort_texts)) > 2 * SLICE  # more than one counting slice
    fixture_path = tmp_path / "fixture.json"
    fixture_path.write_text(json.dumps(fixture), encoding="utf-8")
    result = subprocess.run([node, "--test", "web/test/train.test.mjs"], cwd=ROOT, capture_output=True, text=True, timeout=600,
                            env={**os.environ, "BYTEPAIR_TRAIN_FIXTURE": str(fixture_path)})
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert "# pass 3" in result.stdout and "# skipped 0" in result.stdout

    tk = pytest.importorskip("tokenizers")
    theirs = tk.Tokenizer.from_file(str(saved))
    held_out = texts["it"] + " <|endoftext|> x"
    assert theirs.encode(held_out).ids == specials.encode(held_out).ids == bytepair.Tokenizer.from_file(saved).encode(held_out).ids
