"""Merging from whole characters (``models/bpe/char_merge.py``) against the plain reference merge: random small
vocabularies over a few multi-byte characters, with tokens that cut characters apart and ranks in
any order (where the shortcut must refuse), and the real encodings on the corpus's CJK text."""

from __future__ import annotations

import lzma
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair.models.bpe.merge import reference_merge
from bytepair.text.byte_unicode import BYTE_TO_UNICODE, bytes_to_visible
from bytepair.models.bpe.char_merge import CharStarts, PairCharStarts
from bytepair.models.bpe.pair_merge import MergeTable, reference_pair_merge

CHARS = "中文é ж"
CORPUS = Path(__file__).resolve().parents[3] / "bench" / "corpus"


@st.composite
def vocabularies(draw: st.DrawFn) -> dict[bytes, int]:
    """All bytes of ``CHARS``, whole characters, and random byte runs of random text over ``CHARS``
    (so some tokens hold part of a character with bytes outside it), ranked in a random order."""
    text = draw(st.text(alphabet=CHARS, min_size=1, max_size=12)).encode()
    runs = draw(st.lists(st.tuples(st.integers(0, len(text)), st.integers(2, 7)), max_size=20))
    extra = [text[i : i + n] for i, n in runs if len(text[i : i + n]) >= 2]
    if draw(st.booleans()):
        extra += [c.encode() for c in CHARS if len(c.encode()) > 1]
    tokens = list(dict.fromkeys([bytes((b,)) for b in sorted(set("".join(CHARS).encode()))] + extra))
    draw(st.randoms(use_true_random=False)).shuffle(tokens)
    return {t: i for i, t in enumerate(tokens)}


@settings(max_examples=2000, deadline=None)
@given(ranks=vocabularies(), piece=st.text(alphabet=CHARS, min_size=2, max_size=16))
def test_equals_reference_or_refuses(ranks: dict[bytes, int], piece: str) -> None:
    ids = CharStarts(ranks).merge(piece)
    if ids is not None:
        assert ids == reference_merge(piece.encode(), ranks)


def test_refuses_a_merge_that_outranks_a_character() -> None:
    # "中" is built by its inner merges up to rank 5, but "中" + "a" ranks 3: merging from bytes,
    # "a" + "b" (rank 4) happens first and "中a" never forms; starting from "中" it would.
    zh = "中".encode()
    ranks = {bytes((b,)): i for i, b in enumerate(sorted(set(zh + b"ab")))}
    ranks[zh + b"a"] = len(ranks)          # 5: ranks below "中" itself
    ranks[b"ab"] = len(ranks)               # 6
    ranks[zh[:2]] = len(ranks)              # 7
    ranks[zh] = len(ranks)                  # 8
    assert CharStarts(ranks).merge("中ab") is None
    assert reference_merge("中ab".encode(), ranks) == [ranks[zh], ranks[b"ab"]]


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@pytest.mark.parametrize("language", ["zh", "ja"])
def test_real_encodings_on_corpus_pieces(name: str, language: str) -> None:
    enc = bytepair.get_encoding(name)
    model = enc.engine.model
    text = lzma.open(CORPUS / f"{language}.txt.xz", "rt", encoding="utf-8").read()[:40_000]
    starts = CharStarts(model.ranks, model.token_bytes)
    checked = 0
    for piece in sorted(set(enc.engine.split(text))):
        data = piece.encode()
        if data in model.ranks or len(data) > 120:
            continue
        ids = starts.merge(piece)
        if ids is not None:
            assert ids == reference_merge(data, model.ranks), piece
            checked += 1
    assert checked > 100


@st.composite
def pair_tables(draw: st.DrawFn) -> tuple[MergeTable, list[int], list[bytes]]:
    """A pair-rank merge table over the bytes of ``CHARS``: random merges of random existing tokens
    (so some results hold part of a character with outside bytes), each listed once, in random order."""
    alphabet = sorted(set("".join(CHARS).encode()))
    token_bytes = [bytes((b,)) for b in alphabet]
    byte_ids = [0] * 256
    for i, b in enumerate(alphabet):
        byte_ids[b] = i
    pairs: list[tuple[int, int]] = []
    merged: list[int] = []
    seen: dict[bytes, int] = {t: i for i, t in enumerate(token_bytes)}
    for left, right in draw(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)), max_size=40)):
        a, b = left % len(token_bytes), right % len(token_bytes)
        if (a, b) in pairs or len(token_bytes[a] + token_bytes[b]) > 9:
            continue
        joined = token_bytes[a] + token_bytes[b]
        if joined not in seen:
            seen[joined] = len(token_bytes)
            token_bytes.append(joined)
        pairs.append((a, b))
        merged.append(seen[joined])
    if draw(st.booleans()):  # whole characters as merges of their bytes, often the usual case
        for ch in CHARS:
            data = ch.encode()
            for k in range(2, len(data) + 1):
                left, right = data[: k - 1], data[k - 1 : k]
                if left in seen and data[:k] not in seen:
                    seen[data[:k]] = len(token_bytes)
                    token_bytes.append(data[:k])
                    pairs.append((seen[left], seen[right]))
                    merged.append(seen[data[:k]])
    order = draw(st.permutations(range(len(pairs))))
    table = MergeTable([pairs[i] for i in order], [merged[i] for i in order], width=len(token_bytes) + 1)
    return table, byte_ids, token_bytes


@settings(max_examples=2000, deadline=None)
@given(spec=pair_tables(), piece=st.text(alphabet=CHARS, min_size=2, max_size=16))
def test_pair_rule_equals_reference_or_refuses(spec: tuple[MergeTable, list[int], list[bytes]], piece: str) -> None:
    table, byte_ids, token_bytes = spec
    ids = PairCharStarts(table, byte_ids, lambda: token_bytes).merge(piece)
    if ids is not None:
        assert ids == reference_pair_merge([byte_ids[b] for b in piece.encode()], table)


@settings(max_examples=2000, deadline=None)
@given(spec=pair_tables(), pieces=st.lists(st.text(alphabet=CHARS, min_size=2, max_size=16), min_size=1, max_size=5))
def test_pair_rule_guards_by_token_id(spec: tuple[MergeTable, list[int], list[bytes]], pieces: list[str]) -> None:
    """``merge`` reads guards by token id (filled as characters are met, so one object serves
    several pieces, as in a model); ``reference_merge`` carries them in a list. Either may refuse;
    whatever either answers is the plain rule's answer."""
    table, byte_ids, token_bytes = spec
    starts = PairCharStarts(table, byte_ids, lambda: token_bytes)
    for piece in pieces:
        expected = reference_pair_merge([byte_ids[b] for b in piece.encode()], table)
        ids, ref = starts.merge(piece), starts.reference_merge(piece)
        if ids is not None:
            assert ids == expected
        if ref is not None:
            assert ref == expected
        assert starts._start_parts(piece) == starts._start(piece)[0]


@pytest.mark.parametrize("model", ["qwen2_5", "llama3"])
def test_pair_rule_on_real_tokenizers(model: str) -> None:
    """The model's encode_piece (which takes the character path for these pieces) against the
    plain pair-rank rule on the pieces' byte symbols."""
    path = Path(__file__).resolve().parents[3] / "build" / "cache" / "hf" / model / "tokenizer.json"
    tok = bytepair.Tokenizer.from_file(path)
    bpe = tok.engine.model
    byte_ids = [bpe.token_to_id(BYTE_TO_UNICODE[b]) for b in range(256)]
    text = lzma.open(CORPUS / "zh.txt.xz", "rt", encoding="utf-8").read()[:30_000]
    text += lzma.open(CORPUS / "ru.txt.xz", "rt", encoding="utf-8").read()[:30_000]
    checked = 0
    for piece in sorted(set(tok.engine.split(text))):
        data = piece.encode()
        if 3 * len(piece) <= 2 * len(data) and bpe.token_to_id(bytes_to_visible(data)) is None:
            assert list(bpe.encode_piece(piece)) == reference_pair_merge([byte_ids[b] for b in data], bpe.table), piece
            checked += 1
    assert checked > 500


@pytest.mark.parametrize("model", ["qwen2_5", "llama3", "deepseek_v3"])
def test_guards_by_token_id_refuse_no_more_on_real_text(model: str) -> None:
    """On the corpus's Chinese and Japanese the id-keyed guards answer exactly as the listed
    guards do (no extra refusals, which would send pieces to the slower byte merge)."""
    path = Path(__file__).resolve().parents[3] / "build" / "cache" / "hf" / model / "tokenizer.json"
    if not path.is_file():
        pytest.skip(f"no {path} (make hf-data)")
    tok = bytepair.Tokenizer.from_file(path)
    bpe = tok.engine.model
    starts = PairCharStarts(bpe.table, [bpe.token_to_id(BYTE_TO_UNICODE[b]) for b in range(256)], bpe._fragment_candidates)
    text = "".join(lzma.open(CORPUS / f"{lang}.txt.xz", "rt", encoding="utf-8").read()[:40_000] for lang in ("zh", "ja"))
    pieces = [p for p in dict.fromkeys(tok.engine.split(text)) if 3 * len(p) <= 2 * len(p.encode())]
    assert len(pieces) > 1000
    assert [starts.merge(p) for p in pieces] == [starts.reference_merge(p) for p in pieces]


@settings(max_examples=2000, deadline=None)
@given(spec=pair_tables())
def test_inner_merge_of_three_bytes_equals_the_scan(spec: tuple[MergeTable, list[int], list[bytes]]) -> None:
    table, byte_ids, token_bytes = spec
    starts = PairCharStarts(table, byte_ids, lambda: token_bytes)
    for char in CHARS:
        data = char.encode()
        assert starts._inner(data) == starts._inner_scan(data)


def test_inner_merge_of_three_bytes_on_real_tokenizers() -> None:
    path = Path(__file__).resolve().parents[3] / "build" / "cache" / "hf" / "llama3" / "tokenizer.json"
    if not path.is_file():
        pytest.skip(f"no {path} (make hf-data)")
    bpe = bytepair.Tokenizer.from_file(path).engine.model
    starts = PairCharStarts(bpe.table, [bpe.token_to_id(BYTE_TO_UNICODE[b]) for b in range(256)], bpe._fragment_candidates)
    text = lzma.open(CORPUS / "zh.txt.xz", "rt", encoding="utf-8").read()[:100_000]
    chars = [c for c in dict.fromkeys(text) if len(c.encode()) == 3]
    assert len(chars) > 1000
    assert [starts._inner(c.encode()) for c in chars] == [starts._inner_scan(c.encode()) for c in chars]


@pytest.mark.parametrize("name", ["r50k_base", "p50k_base", "cl100k_base", "o200k_base"])
def test_bundled_rank_files_carry_the_fragment_tables_of_their_tokens(name: str) -> None:
    """The tables a ``.bpr`` header carries are exactly the ones one pass over its tokens gives."""
    from bytepair.models.bpe.char_merge import fragment_tables, unpack_fragments
    from bytepair.registry import _packed

    packed, _ = _packed(bytepair.registry.ENCODING_SPECS[name].ranks_file)
    assert unpack_fragments(packed.char_fragments) == fragment_tables(packed.tokens)


def test_a_bundled_encoding_uses_the_precomputed_tables(monkeypatch: pytest.MonkeyPatch, tiktoken_ref) -> None:
    """No pass over the vocabulary when the rank file carries the tables; the ids stay tiktoken's."""
    import bytepair.models.bpe.char_merge as char_merge
    from bytepair.registry import _build

    def no_pass(tokens):  # noqa: ANN001, ANN202
        raise AssertionError("fragment tables were rebuilt from the vocabulary")

    monkeypatch.setattr(char_merge, "fragment_tables", no_pass)
    enc = _build("o200k_base")  # a new Encoding, not the shared one
    text = lzma.open(Path(__file__).parents[3] / "bench" / "corpus" / "ru.txt.xz", "rt", encoding="utf-8").read()[:60_000]
    ids = enc.encode_ordinary(text)
    assert enc.engine.model._chars is not None  # the character merge ran
    assert ids == tiktoken_ref("o200k_base").encode_ordinary(text)
