"""The ``Replace`` decoder with a regex (``decoders.Replace(Regex(...), content)``, and
``{"type": "Replace", "pattern": {"Regex": ...}}`` in a ``tokenizer.json``) against HF ``tokenizers``
0.23.3: decode equal on random tokens (empty matches included, which HF's Oniguruma walk keeps),
the JSON written as HF writes it, a file's round trip through both libraries, and a pattern that
could hang refused as every other pattern of a stranger's file is."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair import Regex, Tokenizer, decoders
from tests.hf_reference import hf_folder

tokenizers = pytest.importorskip("tokenizers")
D = tokenizers.decoders

PATTERNS = ["▁", "▁+", r"\s+", "x*", "|a", "a|", "(?<=a)", r"^▁", r"▁$", "[aé]{2}", r"\p{L}+", "(?i)A", r"\d", ".", "a\\.", ""]
TOKENS = st.lists(st.text(st.sampled_from(list("aAbxé ▁\t.1日🫠")), max_size=8), max_size=6)


@settings(max_examples=300, deadline=None)
@given(tokens=TOKENS, which=st.integers(0, len(PATTERNS) - 1), content=st.sampled_from(["", " ", "-", "<>"]),
       regex=st.booleans())
def test_decode_as_hf(tokens: list[str], which: int, content: str, regex: bool) -> None:
    text = PATTERNS[which]
    hf = D.Replace(tokenizers.Regex(text) if regex else text, content)
    state = json.loads(hf.__getstate__())
    ours = decoders.decoder_from_json(state)
    built = decoders.Replace(Regex(text) if regex else text, content)
    assert ours is not None and ours.to_json() == built.to_json() == state
    assert ours.decode(tokens) == built.decode(tokens) == hf.decode(tokens), tokens


def _with_regex_decoder() -> str:
    doc = json.loads((hf_folder("llama2") / "tokenizer.json").read_text(encoding="utf-8"))
    doc["decoder"]["decoders"][0] = {"type": "Replace", "pattern": {"Regex": "▁+"}, "content": " "}
    return json.dumps(doc)


def test_a_files_regex_decoder_round_trips_and_decodes_as_hf(tmp_path) -> None:
    text = _with_regex_decoder()
    ref, ours = tokenizers.Tokenizer.from_str(text), Tokenizer.from_str(text)
    path = tmp_path / "tokenizer.json"
    ours.save(path)
    again = tokenizers.Tokenizer.from_file(str(path))
    assert json.loads(again.to_str())["decoder"] == json.loads(ref.to_str())["decoder"] == json.loads(ours.to_str())["decoder"]
    for sample in ["Hello  world", "  two   spaces ", "▁▁ marker text", "日本 🫠 x"]:
        ids = ref.encode(sample).ids + ref.encode("a b").ids
        want = ref.decode(ids)
        assert ours.decode(ids) == again.decode(ids) == want, sample
        assert Tokenizer.from_file(path).decode(ids) == want


def test_hfs_regex_replace_assigned_as_a_stage() -> None:
    """``tok.decoder = tokenizers.decoders.Replace(tokenizers.Regex(...), ...)`` converts HF's JSON state."""
    tok = Tokenizer.from_str(_with_regex_decoder())
    tok.decoder = D.Sequence([D.Replace(tokenizers.Regex("▁{2}"), "="), D.Replace("▁", " "), D.Fuse()])
    ids = [tok.token_to_id(t) for t in ["▁▁", "a", "▁b"]]
    assert tok.decode(ids) == "=a b"


def test_tokenizers_regex_is_refused_with_a_hint() -> None:
    with pytest.raises(TypeError, match="bytepair.Regex"):
        decoders.Replace(tokenizers.Regex("a"), "b")
    with pytest.raises(TypeError, match="str"):
        decoders.Replace(5, "b")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        D.Replace(5, "b")


@pytest.mark.parametrize("hostile", ["(a+)+b", "(a|a)*c", "(a*)*$", "a" * 70_000])
def test_a_pattern_that_could_hang_is_refused(hostile: str) -> None:
    with pytest.raises(bytepair.UnsupportedPatternError, match="refuses"):
        decoders.Replace(Regex(hostile), "x")
    doc = json.loads(_with_regex_decoder())
    doc["decoder"]["decoders"][0]["pattern"] = {"Regex": hostile}
    with pytest.raises(bytepair.UnsupportedPatternError, match=r"decoder\.decoders\[0\]"):
        Tokenizer.from_str(json.dumps(doc))


def test_a_broken_regex_is_a_format_error_naming_the_place() -> None:
    doc = json.loads(_with_regex_decoder())
    doc["decoder"]["decoders"][0]["pattern"] = {"Regex": "(unclosed"}
    with pytest.raises(bytepair.VocabFormatError, match=r"decoder\.decoders\[0\]"):
        Tokenizer.from_str(json.dumps(doc))
    doc["decoder"]["decoders"][0]["pattern"] = {"Bytes": "x"}
    with pytest.raises(bytepair.VocabFormatError, match="String"):
        Tokenizer.from_str(json.dumps(doc))
