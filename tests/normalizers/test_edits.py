"""A normalizer's changes (``normalize_edits``, the bulk path's sparse alignment) against its
``normalize_aligned`` (the reference, itself tested against HF): where ``normalize_edits`` answers,
its text and its alignment are the same, for every normalizer that gives one and for sequences of
them, as transformers' conversion of a SentencePiece model chains them (Precompiled and four
Replace steps); and the pipeline's offsets through them are HF's."""

from __future__ import annotations

import functools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair import Regex
from bytepair.formats.charsmap import CharsMap
from bytepair.formats.sentencepiece_model import ModelProto
from bytepair.normalizers import (NFC, NFKC, Lowercase, Nmt, Precompiled, Prepend, Replace, Sequence, Strip,
                                  StripAccents)
from bytepair.normalizers.edits import Edits
from tests.spm_reference import spm_model

tokenizers = pytest.importorskip("tokenizers")

RULES = {"™": "TM", "\x1e": "", "ｶ": "カ", "\r": " ", "ﬃ": "ffi", "·": "", "\u3000": " ", "Ⅻ": "XII"}
CHARS = st.sampled_from(list("ab \t\n\r\x1e·™ﬃⅫｶ\u3000İé▁") + ["e\u0301", "  ", "\u200d"]) | st.characters(codec="utf-8")
TEXTS = st.lists(CHARS, max_size=40).map("".join)


def converted_steps(precompiled: Precompiled) -> Sequence:
    """The normalizer transformers' converter writes for a SentencePiece model (as ``from_sentencepiece``)."""
    return Sequence([precompiled, Replace(Regex(r"\A +| +\z"), ""), Replace(Regex(" {2,}"), " "), Replace(" ", "▁"),
                     Replace(Regex(r"\A▁"), "▁▁")])


def normalizers() -> list:
    hand = Precompiled(CharsMap.build(RULES))
    trained = Precompiled(ModelProto.from_file(spm_model("unigram")).normalizer.precompiled_charsmap)
    return [hand, trained, converted_steps(hand), converted_steps(trained), Replace(Regex(" {2,}"), " "),
            Replace("ab", ""), Replace(Regex("[ab]+"), "xyz"), Replace(" ", "▁"), Prepend("▁"), Strip(), Lowercase(),
            StripAccents(), Nmt(), NFC(), NFKC(), Sequence([Lowercase(), Replace("a", "aa"), Strip(), Prepend("▁")]),
            Sequence([NFKC(), Replace(Regex(r"\s+"), " ")])]


NORMALIZERS = normalizers()


@settings(max_examples=400, deadline=None)
@given(TEXTS, st.integers(0, len(NORMALIZERS) - 1))
def test_edits_are_the_alignment(text: str, which: int) -> None:
    normalizer = NORMALIZERS[which]
    found = normalizer.normalize_edits(text)
    if found is None:
        return  # (the pipeline then asks normalize_aligned)
    normalized, edits = found
    expected, align = normalizer.normalize_aligned(text)
    assert normalized == expected == normalizer.normalize(text)
    identity = [(i, i + 1) for i in range(len(text))]
    assert (edits.aligned() if edits is not None else identity) == (align if align is not None else identity)


def test_edits_answer_where_they_should() -> None:
    """The bulk path is taken on ordinary text (a None here would be a silent slow path)."""
    steps = converted_steps(Precompiled(CharsMap.build(RULES)))
    assert steps.normalize_edits("a  b™c\u3000 d ") == ("a▁bTMc▁d", Edits([(1, 0), (4, 2), (6, 0), (9, 0)], 10))
    assert Precompiled(CharsMap.build(RULES)).normalize_edits("™\x1e") is None  # (HF's walk aligns by position)
    assert Precompiled(CharsMap.build(RULES)).normalize_edits("\x1eab") is None


def test_then_composes_as_sequence_does() -> None:
    first, later = Edits([(1, 0), (3, 3)], 5), Edits([(0, 2), (3, 0), (4, 0)], 6)
    sources = first.sources()
    composed = [sources[k] for k in later.sources()]
    assert first.then(later).sources() == composed


@st.composite
def edits_of(draw: st.DrawFn, length: int) -> Edits:
    """Random changes of a segment of ``length`` characters (each removed, kept, or grown to 2-3):
    growing as often as removing, or rarely (``sources``' merge, rather than its reference)."""
    mix = draw(st.sampled_from([[1, 1, 1, 0, 0, 2, 3], [1, 1, 1, 1] + [0] * 9 + [3]]))
    counts = draw(st.lists(st.sampled_from(mix), min_size=length, max_size=length))
    return Edits([(index, n) for index, n in enumerate(counts) if n != 1], length)


@settings(max_examples=300, deadline=None)
@given(st.data(), st.integers(0, 30))
def test_then_and_sources_against_their_definition(data: st.DataObject, length: int) -> None:
    """``then`` (a bisection per change of the first) composes as the characters' sources do, and
    ``sources``' fast form (removals, and growths merged in) is ``reference_sources``."""
    first = data.draw(edits_of(length))
    sources = first.reference_sources()
    later = data.draw(edits_of(len(sources)))
    composed = first.then(later)
    assert composed.length == length and composed.changed == sorted(composed.changed)
    assert all(n != 1 for _, n in composed.changed)
    assert composed.reference_sources() == [sources[k] for k in later.reference_sources()]
    assert first.sources() == sources and composed.sources() == composed.reference_sources()


@settings(max_examples=200, deadline=None)
@given(st.text(st.sampled_from(" a\t\u3000▁"), max_size=12))
def test_spaces_at_ends_as_the_regex(text: str) -> None:
    """The converter's ``\\A +| +\\z`` (``str.strip`` in ``normalize`` and ``normalize_edits``) as the regex removes them."""
    replace = Replace(Regex(r"\A +| +\z"), "")
    expected, align = replace.normalize_aligned(text)  # (the regex, match by match)
    assert replace.normalize(text) == expected == re.sub(r"\A +| +\Z", "", text)
    normalized, edits = replace.normalize_edits(text)
    identity = [(i, i + 1) for i in range(len(text))]
    assert normalized == expected
    assert (edits.aligned() if edits is not None else identity) == (align if align is not None else identity)


@settings(max_examples=150, deadline=None)
@given(TEXTS)
def test_converted_unigram_offsets_as_hf(text: str) -> None:
    """A whole text one piece (Metaspace without split), its offsets and tokens through the bulk path, as HF's."""
    hf, ours = tokenizers.Tokenizer.from_str(converted()), bytepair.Tokenizer.from_str(converted())
    want, got = hf.encode(text), ours.encode(text)
    assert (got.ids, got.tokens, got.offsets) == (want.ids, want.tokens, want.offsets)


@functools.cache
def converted() -> str:
    return bytepair.Tokenizer.from_sentencepiece(spm_model("unigram")).to_str()


def test_sources_merges_a_few_growths_among_many_removals() -> None:
    """A converted SentencePiece normalizer's text: tens of thousands of collapsed spaces and a few
    ``…`` made ``...``: the fast form (not the reference, which it is held to) gives each source."""
    changed = [(i, 0) for i in range(1, 3000, 3)] + [(i, 3) for i in range(2, 3000, 300)]
    edits = Edits(sorted(changed), 3000)
    assert edits.sources() == edits.reference_sources()
    assert len(edits.sources()) == 3000 - 1000 + 2 * 10
