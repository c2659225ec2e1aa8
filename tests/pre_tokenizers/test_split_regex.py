"""A ``str`` pattern is literal text and ``Regex(...)`` a regex, in ``Split`` and in ``Replace``, as in HF
``tokenizers`` 0.23.3 (``tokenizers.Regex``); and ``tokenizer.json``'s ``{"String": ...}`` /
``{"Regex": ...}`` read and written back in the same form."""

from __future__ import annotations

import json

import pytest

import bytepair
from bytepair import Regex, normalizers, pre_tokenizers

tokenizers = pytest.importorskip("tokenizers")

SPECIAL = [".", "+", "(", "\\", "$", "a.b", "..", "|"]
REGEXES = [r"\.", r"\s+", r"[.+]", r"\$", r"\\", r"a|b", r"\(+"]
TEXTS = ["a.b c", "x+y+z", "f(a)(b)", "C:\\dir\\f", "$5 and $$", "a..b...c", "a|b||c", "plain text", "",
         "..+.((\\$$|", "ab.ab a.b"]
BEHAVIORS = ["removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous"]


def hf_split(pattern, behavior: str, invert: bool, text: str) -> list[tuple[str, tuple[int, int]]]:
    return tokenizers.pre_tokenizers.Split(pattern, behavior, invert=invert).pre_tokenize_str(text)


def our_split(pattern, behavior: str, invert: bool, text: str) -> list[tuple[str, tuple[int, int]]]:
    step = pre_tokenizers.Split(pattern, behavior, invert=invert)
    assert [p for p, _, _ in step.spans(text)] == step.split(text)
    return [(p, (s, e)) for p, s, e in step.spans(text)]


def test_the_reported_case() -> None:
    assert our_split(".", "removed", False, "a.b c") == hf_split(".", "removed", False, "a.b c")
    assert [p for p, _ in our_split(".", "removed", False, "a.b c")] == ["a", "b c"]
    assert [p for p, _ in our_split(Regex("."), "removed", False, "a.b c")] == []


@pytest.mark.parametrize("behavior", BEHAVIORS)
@pytest.mark.parametrize("invert", [False, True])
def test_split_str_is_literal(behavior: str, invert: bool) -> None:
    for pattern in SPECIAL:
        for text in TEXTS:
            assert our_split(pattern, behavior, invert, text) == hf_split(pattern, behavior, invert, text), (pattern, text)


@pytest.mark.parametrize("behavior", BEHAVIORS)
@pytest.mark.parametrize("invert", [False, True])
def test_split_regex_is_regex(behavior: str, invert: bool) -> None:
    for pattern in REGEXES:
        for text in TEXTS:
            assert our_split(Regex(pattern), behavior, invert, text) == hf_split(
                tokenizers.Regex(pattern), behavior, invert, text), (pattern, text)


def test_replace_str_and_regex() -> None:
    for text in TEXTS:
        for pattern in SPECIAL:
            hf = tokenizers.normalizers.Replace(pattern, "<>").normalize_str(text)
            assert normalizers.Replace(pattern, "<>").normalize(text) == hf, (pattern, text)
            assert normalizers.Replace(pattern, "<>").normalize_aligned(text)[0] == hf
        for pattern in REGEXES:
            hf = tokenizers.normalizers.Replace(tokenizers.Regex(pattern), "_").normalize_str(text)
            assert normalizers.Replace(Regex(pattern), "_").normalize(text) == hf, (pattern, text)


def test_json_forms_round_trip_and_match_hf() -> None:
    cases = [(pre_tokenizers.Split(".", "removed"), tokenizers.pre_tokenizers.Split(".", "removed")),
             (pre_tokenizers.Split(Regex(r"\s+"), "isolated", True), tokenizers.pre_tokenizers.Split(tokenizers.Regex(r"\s+"), "isolated", True)),
             (normalizers.Replace("(", "x"), tokenizers.normalizers.Replace("(", "x")),
             (normalizers.Replace(Regex(r"\$+"), "x"), tokenizers.normalizers.Replace(tokenizers.Regex(r"\$+"), "x"))]
    for ours, hf in cases:
        assert ours.to_json() == json.loads(hf.__getstate__())
    spec = {"type": "Split", "pattern": {"String": "."}, "behavior": "Removed", "invert": False}
    loaded = pre_tokenizers.pre_tokenizer_from_json(spec)
    assert loaded.split("a.b c") == ["a", "b c"] and loaded.to_json() == spec
    spec = {"type": "Split", "pattern": {"Regex": "."}, "behavior": "Removed", "invert": False}
    loaded = pre_tokenizers.pre_tokenizer_from_json(spec)
    assert loaded.split("a.b c") == [] and loaded.to_json() == spec


def test_tokenizer_with_split_and_replace() -> None:
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel({"a": 0, "b": 1, "c": 2, "[UNK]": 3}, unk_token="[UNK]"))
    tok.normalizer = tokenizers.normalizers.Replace("+", " ")
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Split(".", "removed")
    ours = bytepair.Tokenizer.from_str(tok.to_str())
    for text in ["a.b+c", "a+b.c.", "abc"]:
        assert ours.encode(text).ids == tok.encode(text).ids
    ours.pre_tokenizer = pre_tokenizers.Split(Regex("[.]"), "removed")
    assert ours.encode("a.b").ids == tok.encode("a.b").ids


def test_bad_pattern_types() -> None:
    with pytest.raises(TypeError, match="bytepair.Regex"):
        pre_tokenizers.Split(tokenizers.Regex("a"), "removed")
    with pytest.raises(TypeError):
        normalizers.Replace(3, "x")  # type: ignore[arg-type]
    assert repr(Regex("a+")) == "Regex('a+')" and Regex("a") == Regex("a")
