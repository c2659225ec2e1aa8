"""``normalizers.Nmt`` against HF ``tokenizers`` 0.23.3: every code point alone, random text heavy in
control and space characters (text and offsets), and ``{"type": "Nmt"}`` in a ``tokenizer.json``."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bytepair import Tokenizer, normalizers

tokenizers = pytest.importorskip("tokenizers")
HF = tokenizers.normalizers.Nmt()
ODD = [*map(chr, range(0x00, 0x21)), *map(chr, range(0x7F, 0xA1)), "\u1680", *map(chr, range(0x2000, 0x2030)), "\u2581",
       "\ufeff", "\ufffd", "\u3000", "a", "é", "中", "😀", " "]


def test_every_code_point() -> None:
    ours = normalizers.Nmt()
    for start in range(0, 0x110000, 0x1000):
        chunk = "".join(chr(c) for c in range(start, start + 0x1000) if not 0xD800 <= c < 0xE000)
        assert ours.normalize(chunk) == HF.normalize_str(chunk), hex(start)
        assert ours.normalize_aligned(chunk)[0] == ours.normalize(chunk)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(ODD) | st.characters(codec="utf-8"), max_size=40).map("".join))
def test_random_text(text: str) -> None:
    assert normalizers.Nmt().normalize(text) == HF.normalize_str(text)


def test_offsets_through_a_tokenizer() -> None:
    hf = tokenizers.Tokenizer(tokenizers.models.WordLevel({"a": 0, "b": 1, "[UNK]": 2}, unk_token="[UNK]"))
    hf.normalizer = tokenizers.normalizers.Nmt()
    hf.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    spec = json.loads(hf.to_str())
    assert spec["normalizer"] == {"type": "Nmt"}
    ours = Tokenizer.from_str(hf.to_str())
    assert json.loads(ours.to_str())["normalizer"] == {"type": "Nmt"}
    rng = random.Random(32)
    for _ in range(300):
        text = "".join(rng.choice(ODD + ["a", "b", "ab"]) for _ in range(rng.randint(0, 20)))
        want, got = hf.encode(text), ours.encode(text)
        assert (got.ids, got.offsets) == (want.ids, want.offsets), repr(text)
    assert normalizers.Nmt().to_json() == json.loads(HF.__getstate__())
