"""normalizers.Precompiled against HF tokenizers 0.23.3, on the compiled maps of models trained
with sentencepiece (nmt_nfkc, nfkc_cf, custom TSV rules) and on hand-made maps: the text and
every character's offsets."""

from __future__ import annotations

import base64
import json
import random

import pytest

import bytepair
from bytepair.errors import VocabFormatError
from bytepair.formats.charsmap import CharsMap
from bytepair.formats.sentencepiece_model import ModelProto
from bytepair.normalizers import Precompiled, normalizer_from_json
from tests.spm_reference import sample_texts, spm_model

tokenizers = pytest.importorskip("tokenizers")

POOL = [chr(c) for c in (*range(0x300, 0x370, 7), *range(0xFF01, 0xFF60, 3), *range(0x2000, 0x2070, 5))] + \
    list("\u2122\x1e\r\n\t\u3000\ufe0f\u200d\u1100\u1161\uac00\U0001F600\x00\ufeff\xadａｂ①㍻ﬁabcAB eé漢")


def _offsets_by_hf(blob: bytes, text: str, normalized: str) -> list[tuple[int, int]]:
    """HF's offsets of each normalized character: a Unigram of single characters after the normalizer."""
    vocab = [["<unk>", 0.0]] + [[c, -1.0] for c in sorted(set(normalized)) if c != "<unk>"]
    tok = tokenizers.Tokenizer.from_str(json.dumps({
        "version": "1.0", "normalizer": {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(blob).decode()},
        "model": {"type": "Unigram", "unk_id": 0, "vocab": vocab}}))
    return tok.encode(text).offsets


@pytest.mark.parametrize("variant", ["unigram", "nfkc_cf_symbols", "tsv_rules"])
def test_trained_maps_against_hf(variant: str) -> None:
    blob = ModelProto.from_file(spm_model(variant)).normalizer.precompiled_charsmap
    ours, hf = Precompiled(blob), tokenizers.normalizers.Precompiled(blob)
    rnd = random.Random(5)
    texts = sample_texts(120, seed=1, longest=40) + ["".join(rnd.choice(POOL) for _ in range(rnd.randint(1, 10)))
                                                      for _ in range(400)]
    texts.append("e\u0301\U0001F3FB")  # an emoji modifier extends a grapheme, as combining marks do
    for text in texts:
        normalized, align = ours.normalize_aligned(text)
        assert normalized == hf.normalize_str(text) == ours.normalize(text), text
        plain, plain_align = ours.reference_normalize_aligned(text)
        identity = [(i, i + 1) for i in range(len(text))]
        assert (normalized, align or identity) == (plain, plain_align or identity), text
        if normalized:
            assert (align or [(i, i + 1) for i in range(len(text))]) == _offsets_by_hf(blob, text, normalized), text


def test_hand_made_rules_against_hf() -> None:
    """Expansions, removals (also first and last), a rule for a two-character grapheme, CR LF."""
    rules = {"™": "TM", "\x1e": "", "ｶ": "カ", "e\u0301": "é", "\r": " ", "ﬃ": "ffi", "Ⅻ": "XII", "·": ""}
    blob = CharsMap.build(rules)
    ours, hf = Precompiled(blob), tokenizers.normalizers.Precompiled(blob)
    for text in ["™\x1eg", "\x1eab", "ab\x1e", "e\u0301\u0301x", "a\r\nb", "ﬃⅫ·", "·", "ｶ™", "xyz"]:
        normalized, align = ours.normalize_aligned(text)
        assert normalized == hf.normalize_str(text), text
        if normalized and align is not None:
            assert align == _offsets_by_hf(blob, text, normalized), text


def test_json_round_trip_and_bad_blob() -> None:
    blob = CharsMap.build({"A": "a"})
    obj = {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(blob).decode()}
    norm = normalizer_from_json(obj)
    assert norm.normalize("AbA") == "aba" and norm.to_json() == obj
    assert Precompiled(b"").normalize("Ab") == "Ab"  # an identity map
    with pytest.raises(VocabFormatError, match="damaged"):
        Precompiled(b"\xff\xff\xff\x00abc")
    tok = bytepair.Tokenizer.from_str(json.dumps({"normalizer": obj, "model": {"type": "Unigram", "unk_id": 0,
                                                                               "vocab": [["<unk>", 0.0], ["a", -1.0]]}}))
    assert tok.encode("A").ids == [1]


def test_translate_by_replace_equals_str_translate() -> None:
    """``precompiled.translate`` (one ``str.replace`` per rule where that gives the same) equals
    ``str.translate`` on random tables, chained rules (a rewrite holding a rewritten character) included."""
    from bytepair.normalizers.precompiled import translate

    rnd = random.Random(5)
    alphabet = "ab…\n\xa0 ή"
    for _ in range(500):
        table = {ord(c): "".join(rnd.choice(alphabet + "xy") for _ in range(rnd.randint(0, 3)))
                 for c in rnd.sample(alphabet, rnd.randint(0, 5))}
        text = "".join(rnd.choice(alphabet + "z") for _ in range(rnd.randint(0, 30)))
        assert translate(text, table) == text.translate(table), (text, table)
