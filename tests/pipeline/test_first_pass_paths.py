"""The cheaper first-pass paths of ``tokenizer.json`` models held equal to their plain forms: the
fragment tokens found by regex against a token-by-token scan (real vocabularies and random ones),
the visible form of a piece by ``str.translate`` against the byte-by-byte join, and a ``Sequence``
that skips a pass-through ``ByteLevel`` step against calling the step on every piece."""

from __future__ import annotations

import lzma
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import bytepair
from bytepair.models.bpe.merges_model import BPEModel, _reference_visible, _visible
from bytepair.text.byte_unicode import BYTE_TO_UNICODE, bytes_to_visible
from bytepair import Regex
from bytepair.pre_tokenizers import ByteLevel, Sequence, Split

ROOT = Path(__file__).resolve().parents[2]
HF = ROOT / "build" / "cache" / "hf"
CORPUS = ROOT / "bench" / "corpus"
LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


@pytest.mark.parametrize("model", ["llama3", "qwen2_5", "deepseek_v3", "gpt2", "gpt4o"])
def test_fragment_candidates_equal_plain_scan_on_real_vocabularies(model: str) -> None:
    path = HF / model / "tokenizer.json"
    if not path.is_file():
        pytest.skip(f"no {path} (make hf-data)")
    bpe = bytepair.Tokenizer.from_file(path).engine.model
    found = bpe._fragment_candidates()
    assert len(found) == len(set(found))
    assert set(found) == set(bpe._reference_fragment_candidates())
    assert len(found) > 50


# Bytes that make fragments: ASCII, continuation bytes, and lead bytes of 2-, 3- and 4-byte characters.
FRAGMENT_BYTES = st.sampled_from([0x41, 0x20, 0x80, 0x8F, 0xA5, 0xBF, 0xC3, 0xD0, 0xE4, 0xE6, 0xF0, 0xF4])


@settings(max_examples=500, deadline=None)
@given(tokens=st.lists(st.binary(min_size=2, max_size=7) | st.lists(FRAGMENT_BYTES, min_size=2, max_size=6).map(bytes),
                       max_size=40),
       added=st.lists(st.text(alphabet="<|>x中", min_size=2, max_size=5), max_size=3))
def test_fragment_candidates_equal_plain_scan_on_random_vocabularies(tokens: list[bytes], added: list[str]) -> None:
    """Random byte tokens (often cut inside characters) plus a few texts outside the byte map (as
    added tokens are): the regex passes and the plain scan find the same tokens."""
    vocab = {BYTE_TO_UNICODE[b]: b for b in range(256)}
    for token in [bytes_to_visible(t) for t in tokens] + added:
        vocab.setdefault(token, len(vocab))
    bpe = BPEModel(vocab, [], byte_level=True)
    found = bpe._fragment_candidates()
    assert len(found) == len(set(found))
    assert set(found) == set(bpe._reference_fragment_candidates())


@settings(max_examples=1000, deadline=None)
@given(piece=st.text(alphabet=st.characters(codec=None, exclude_categories=())))
def test_visible_by_translate_equals_byte_join(piece: str) -> None:
    assert _visible(piece) == _reference_visible(piece)


def test_visible_with_lone_surrogates() -> None:
    for piece in ["\ud800", "a\udfffb", "中\ud83d"]:
        assert _visible(piece) == _reference_visible(piece)


def _stepwise(steps: list, text: str) -> list[str]:
    """A Sequence's split written plainly: every step on every piece."""
    pieces = [text]
    for step in steps:
        pieces = [p for piece in pieces for p in step.split(piece)]
    return pieces


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="ab 中文，。\n\t1'", max_size=40))
def test_sequence_skipping_pass_through_byte_level_equals_stepwise(text: str) -> None:
    passing = ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=False)
    assert passing.splits_nothing
    for steps in ([Split(Regex(LLAMA3_PATTERN), "isolated"), passing], [passing], [passing, Split(Regex(LLAMA3_PATTERN), "isolated")],
                  [Split(Regex(LLAMA3_PATTERN), "isolated"), ByteLevel(add_prefix_space=True, use_regex=False)]):
        assert Sequence(steps).split(text) == _stepwise(steps, text)
    assert not ByteLevel(add_prefix_space=True, use_regex=False).splits_nothing
    assert not ByteLevel(add_prefix_space=False, use_regex=True).splits_nothing


def test_corpus_pieces_unchanged_by_the_skip() -> None:
    path = HF / "llama3" / "tokenizer.json"
    if not path.is_file():
        pytest.skip(f"no {path} (make hf-data)")
    pre = bytepair.Tokenizer.from_file(path).pre_tokenizer
    assert isinstance(pre, Sequence) and any(step.splits_nothing for step in pre.steps)
    text = lzma.open(CORPUS / "zh.txt.xz", "rt", encoding="utf-8").read()[:50_000]
    assert pre.split(text) == _stepwise(pre.steps, text)


DEEPSEEK_SPLITS = [r"\p{N}{1,3}", "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
                   "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"]
MIXED = st.text(alphabet="ab Z7 12中文の，。!\n\t'😀🫠\U00020000-", max_size=60)


@settings(max_examples=500, deadline=None)
@given(text=MIXED)
def test_isolated_split_equals_walking_the_matches(text: str) -> None:
    """``split_isolated`` (findall + split in C) against the spans walked one by one, for the
    DeepSeek-V3 patterns, one that can match the empty string and Llama 3's."""
    for pattern in [*DEEPSEEK_SPLITS, r"x*", r"\p{N}|(?=中)", LLAMA3_PATTERN]:
        step = Split(Regex(pattern), "isolated")
        assert step.split(text) == step._reference_split(text), pattern
        if not any(ord(c) > 0xFFFF for c in text):
            assert step.split(text, bmp=True) == step._reference_split(text), pattern


def test_isolated_split_refuses_empty_matches() -> None:
    step = Split(Regex(r"x*"), "isolated")
    assert step._pretokenizer.split_isolated("abxc") is None
    assert step.split("abxc") == step._reference_split("abxc")


@settings(max_examples=300, deadline=None)
@given(text=MIXED)
def test_deepseek_sequence_equals_stepwise_reference(text: str) -> None:
    steps = [Split(Regex(p), "isolated") for p in DEEPSEEK_SPLITS] + [ByteLevel(False, True, False)]
    plain = [text]
    for step in steps:
        split = step._reference_split if isinstance(step, Split) else step.split
        plain = [p for piece in plain for p in split(piece)]
    assert Sequence(steps).split(text) == plain


def test_deepseek_pieces_on_corpus_equal_stepwise_reference() -> None:
    path = HF / "deepseek_v3" / "tokenizer.json"
    if not path.is_file():
        pytest.skip(f"no {path} (make hf-data)")
    pre = bytepair.Tokenizer.from_file(path).pre_tokenizer
    text = lzma.open(CORPUS / "zh.txt.xz", "rt", encoding="utf-8").read()[:60_000] + "😀 12🫠中文"
    plain = [text]
    for step in pre.steps:
        split = step._reference_split if isinstance(step, Split) else step.split
        plain = [p for piece in plain for p in split(piece)]
    assert pre.split(text) == plain


@pytest.mark.parametrize("model", ["llama3", "qwen2_5", "deepseek_v3", "llama2", "gemma3"])
def test_encode_chunks_equal_the_id_stream(model: str) -> None:
    """``encode`` reads ids through the pipeline's ``id_chunks`` (chained in C); ``count`` and early exits read
    ``ids`` (a generator). Same tuples, with added tokens, normalizers and Metaspace's first flag."""
    path = HF / model / "tokenizer.json"
    if not path.is_file():
        pytest.skip(f"no {path} (make hf-data)")
    tok = bytepair.Tokenizer.from_file(path)
    marks = [t.content for t in list(tok.get_added_tokens_decoder().values())[:3]]
    assert marks
    base = lzma.open(CORPUS / "zh.txt.xz", "rt", encoding="utf-8").read()[:5_000]
    for text in [base, " lead space", "中文 mixed 123 😀", "".join(f"{m} part {i} " for i, m in enumerate(marks)) + base[:300], ""]:
        assert list(tok.pipeline.id_chunks(text)) == list(tok.pipeline.ids(text))
        assert tok.encode(text, add_special_tokens=False).ids == [i for ids in tok.pipeline.ids(text) for i in ids]


@pytest.fixture(scope="module")
def byte_level_models() -> list:
    models = []
    for name in ("llama3", "qwen2_5"):
        path = HF / name / "tokenizer.json"
        if path.is_file():
            models.append(bytepair.Tokenizer.from_file(path).engine.model)
    if not models:
        pytest.skip("no Llama 3 / Qwen2.5 tokenizer.json (make hf-data)")
    return models


@settings(max_examples=400, deadline=None)
@given(pieces=st.lists(st.text(alphabet="ab Z!中文的是了😀\n\x7f\u00e9", min_size=1, max_size=12), min_size=1, max_size=40))
def test_encode_piece_equals_lookup_then_plain_merge(byte_level_models: list, pieces: list[str]) -> None:
    """A byte-level model's ``encode_piece`` (one encode shared by the whole lookup and both merge
    paths) against the plain rule: with ``ignore_merges`` the vocabulary's token if the piece is
    one, else the pair-rank merge of its bytes."""
    from bytepair.models.bpe.pair_merge import reference_pair_merge

    for bpe in byte_level_models:
        for piece in pieces * 2:  # the second round may take the character path (tables built)
            data = piece.encode("utf-8", "surrogatepass")
            whole = bpe.vocab.get(bytes_to_visible(data)) if bpe.ignore_merges else None
            expected = [whole] if whole is not None else reference_pair_merge([bpe._byte_ids[b] for b in data], bpe.table)
            assert list(bpe.encode_piece(piece)) == expected, piece


# Every ASCII character, with the space and a few letters often (the space is what the lookup maps).
ASCII = st.characters(max_codepoint=0x7F) | st.sampled_from(" ab")


@settings(max_examples=500, deadline=None)
@given(tokens=st.lists(st.text(alphabet=ASCII, min_size=2, max_size=6), max_size=30),
       piece=st.text(alphabet=ASCII, min_size=1, max_size=6),
       as_token=st.booleans())
@example(tokens=[], piece=" ab", as_token=True)
@example(tokens=["x\ty"], piece="a b ", as_token=True)
@example(tokens=[], piece="x\ty", as_token=True)
def test_whole_piece_lookup_of_ascii_equals_the_byte_map(tokens: list[str], piece: str, as_token: bool) -> None:
    """``ignore_merges`` looks an ASCII piece up by a replace of its spaces (``encode_piece``'s
    byte-level path; ``_whole``, the other paths' lookup, maps byte by byte): the same token the
    byte-by-byte visible form names, for every ASCII character (controls, the space and DEL included)."""
    vocab = {BYTE_TO_UNICODE[b]: b for b in range(256)}
    for token in tokens + ([piece] if as_token else []):
        vocab.setdefault(_reference_visible(token), len(vocab))
    bpe = BPEModel(vocab, [], byte_level=True, ignore_merges=True)
    expected = vocab.get(_reference_visible(piece))
    assert bpe._whole(piece) == expected
    if expected is not None:
        assert bpe.encode_piece(piece) == (expected,)
    else:
        assert bpe.encode_piece(piece) == tuple(vocab[BYTE_TO_UNICODE[b]] for b in piece.encode())
