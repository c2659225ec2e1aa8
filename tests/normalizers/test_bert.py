"""``BertNormalizer`` against HF ``tokenizers`` 0.23.3: the text of every option on random and chosen
text, the fast path equal to the aligned one, offsets through a tokenizer equal to HF's, and (soak)
every code point, which holds the pinned character tables (``normalizers/bert_tables.py``) to HF."""

from __future__ import annotations

import json
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair.normalizers import BertNormalizer, normalizer_from_json
from bytepair.normalizers.bert import PROBE_CHARS

tokenizers = pytest.importorskip("tokenizers")

OPTIONS = [dict(clean_text=c, handle_chinese_chars=h, strip_accents=s, lowercase=lo)
           for c in (True, False) for h in (True, False) for s in (None, True, False) for lo in (True, False)]
TEXTS = ["Héllo\tWÖRLD 中文 ΣΑΣ x\x00\u200b y\ufffd", "İstanbul ǅ ﬁ q\u0307\u0323 \U00020000\u3000", "", "ASCII only."]
ANY_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30) | \
    st.text("aAéÉ\u0301\u0327Σ中 \t\n\x00\u200b\ufffdİß", max_size=30)


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_every_option_as_hf(options: dict) -> None:
    hf = tokenizers.normalizers.BertNormalizer(**options)
    ours = normalizer_from_json(json.loads(hf.__getstate__()))
    assert isinstance(ours, BertNormalizer) and ours.to_json() == json.loads(hf.__getstate__())
    for text in TEXTS:
        assert ours.normalize(text) == hf.normalize_str(text)
        assert ours.normalize_aligned(text)[0] == hf.normalize_str(text)


@settings(max_examples=150, deadline=None)
@given(text=ANY_TEXT, options=st.sampled_from(OPTIONS))
def test_random_text_fast_and_aligned_as_hf(text: str, options: dict) -> None:
    ours = BertNormalizer(**options)
    expected = tokenizers.normalizers.BertNormalizer(**options).normalize_str(text)
    assert ours.normalize(text) == expected
    normalized, align = ours.normalize_aligned(text)
    assert normalized == expected
    assert align is None or len(align) == len(normalized)


@settings(max_examples=100, deadline=None)
@given(text=ANY_TEXT, options=st.sampled_from(OPTIONS), filler=st.sampled_from(["a b. ", "ΣΑΣ é ", "x\t中 ", "İ\u0301\n"]))
def test_long_text_skips_only_the_passes_that_change_nothing(text: str, options: dict, filler: str) -> None:
    """From ``PROBE_CHARS`` characters on, ``normalize`` runs only the passes the text's distinct
    characters call for: the same text as HF's (and the remembered one, read by ``normalize_edits``)."""
    long = text + filler * (PROBE_CHARS // len(filler)) + text
    ours = BertNormalizer(**options)
    expected = tokenizers.normalizers.BertNormalizer(**options).normalize_str(long)
    assert ours.normalize(long) == expected
    found = ours.normalize_edits(long)
    assert found is None or found[0] == expected


def test_remembered_output_is_read_for_its_text_only_and_not_pickled() -> None:
    """``normalize`` keeps its last long text's output (``bulk.LastText``) for ``normalize_edits``
    (the fields' pass over the same text): equal to a fresh normalizer's, never another text's."""
    normalizer, fresh = BertNormalizer(), BertNormalizer()
    text = "A b,\tC é 中 " * 1000
    out = normalizer.normalize(text)
    assert normalizer.normalize_edits(text) == fresh.normalize_edits(text)
    assert normalizer.normalize_edits(text[:-1] + "x") == fresh.normalize_edits(text[:-1] + "x")
    copy = pickle.loads(pickle.dumps(normalizer))
    assert copy._last.get(text) is None and normalizer._last.get(text) is out
    assert copy.normalize_edits(text) == normalizer.normalize_edits(text)


@settings(max_examples=100, deadline=None)
@given(text=ANY_TEXT)
def test_offsets_through_a_tokenizer_as_hf(text: str) -> None:
    vocab = {"[UNK]": 0, "a": 1, "e": 2, "##e": 3, "σ": 4, "中": 5, "i": 6}
    hf = tokenizers.Tokenizer(tokenizers.models.WordPiece(vocab, unk_token="[UNK]"))
    hf.normalizer = tokenizers.normalizers.BertNormalizer()
    hf.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    ours = bytepair.Tokenizer.from_str(hf.to_str())
    a, b = hf.encode(text), ours.encode(text)
    assert (b.ids, b.offsets, b.word_ids) == (a.ids, a.offsets, a.word_ids)


NFD_DIFFERS = {0x11938}
"""U+11938 (Dives Akuru): CPython's NFD decomposes it, HF's older table does not (HF's own ``NFD``
normalizer too, so bytepair's ``NFD`` differs alike; ``normalizers/unicode.py``)."""


@pytest.mark.soak
@pytest.mark.parametrize("options", [dict(strip_accents=True, lowercase=False), dict(strip_accents=False, lowercase=True),
                                     dict(handle_chinese_chars=True, strip_accents=False, lowercase=False)])
def test_every_code_point_as_hf(options: dict) -> None:
    hf = tokenizers.normalizers.BertNormalizer(**options)
    ours = BertNormalizer(**options)
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000 and c not in NFD_DIFFERS]
    for start in range(0, len(chars), 4096):
        block = "x".join(chars[start:start + 4096])
        expected = hf.normalize_str(block)
        if ours.normalize(block) != expected:  # find the code point for the message
            for ch in chars[start:start + 4096]:
                assert ours.normalize("x" + ch) == hf.normalize_str("x" + ch), hex(ord(ch))


@settings(max_examples=60, deadline=None)
@given(text=ANY_TEXT)
def test_byte_level_normalizer_as_hf(text: str) -> None:
    """``normalizers.ByteLevel`` (GPT-2's visible bytes) with offsets through a BPE tokenizer."""
    hf_norm = tokenizers.normalizers.ByteLevel()
    ours = normalizer_from_json(json.loads(hf_norm.__getstate__()))
    assert ours is not None and ours.normalize(text) == hf_norm.normalize_str(text)
    assert ours.normalize_aligned(text)[0] == hf_norm.normalize_str(text)
    vocab = {"[UNK]": 0, "Ġ": 1, "a": 2, "Ã": 3, "©": 4, "Ã©": 5}
    hf = tokenizers.Tokenizer(tokenizers.models.BPE(vocab, [("Ã", "©")], unk_token="[UNK]"))
    hf.normalizer = hf_norm
    hf.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    a, b = hf.encode(text), bytepair.Tokenizer.from_str(hf.to_str()).encode(text)
    assert (b.ids, b.offsets) == (a.ids, a.offsets)


@settings(max_examples=150, deadline=None)
@given(text=st.text(st.characters(max_codepoint=127), max_size=40) | st.text(" ~AZaz09!\x7f\t\x1f", max_size=20),
       options=st.sampled_from(OPTIONS))
def test_ascii_text_as_hf_with_its_steps_alignment(text: str, options: dict) -> None:
    """Printable ASCII takes a shortcut (``_plain``: each character itself, lower-cased); ASCII
    with a control (``\\x7f``, a tab) goes through the steps. Both give HF's text, and the
    alignment of the steps (none: each character from itself)."""
    ours = BertNormalizer(**options)
    expected = tokenizers.normalizers.BertNormalizer(**options).normalize_str(text)
    assert ours.normalize(text) == expected
    found = ours.normalize_edits(text)
    assert found is not None and found[0] == expected
    ref, ref_align = ours._reference_normalize_aligned(text)
    identity = [(i, i + 1) for i in range(len(ref))]
    assert ref == expected and (found[1].aligned() if found[1] else identity) == (ref_align or identity)


@settings(max_examples=150, deadline=None)
@given(text=ANY_TEXT | st.text("e\u0301\u0323\u0344q\u0307Åﬁİ中 ", max_size=20), options=st.sampled_from(OPTIONS))
def test_memoized_alignment_is_the_steps_alignment(text: str, options: dict) -> None:
    ours = BertNormalizer(**options)
    (fast, fast_align), (ref, ref_align) = ours.normalize_aligned(text), ours._reference_normalize_aligned(text)
    identity = [(i, i + 1) for i in range(len(fast))]  # None: each character from itself
    assert (fast, fast_align or identity) == (ref, ref_align or identity)
