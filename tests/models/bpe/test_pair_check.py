"""The split-table pair check (``models/bpe/pair_check.py``) against the merge it stands for: every pair of
small trained vocabularies, pairs met in corpus text and random pairs of the OpenAI vocabularies,
and whole encodings with and without the two-token search; plus the ``.bpr`` section that carries
the split tables."""

from __future__ import annotations

import json
import lzma
import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import bytepair
from bytepair.models.bpe.merge import apply_merges, merge_piece
from bytepair.formats.packed_ranks import read_packed_ranks, with_raw_payload
from bytepair.models.bpe.rank_model import pack_rank_file
from bytepair.models.bpe.pair_check import PairCheck, merge_splits, reference_stays_apart
from bytepair.models.bpe.rank_model import RankModel

from tests.conftest import PACKAGE_DATA

CORPUS = Path(__file__).resolve().parents[3] / "bench" / "corpus"
ALPHABET = "abc d"


def trained(text: bytes, merges: int) -> dict[bytes, int]:
    """A vocabulary as BPE training makes one: the alphabet's bytes, then the most frequent adjacent
    pair of the text's current segmentation merged, ``merges`` times (ties: the smallest pair)."""
    ranks = {bytes((b,)): i for i, b in enumerate(sorted(set(ALPHABET.encode())))}
    parts = [bytes((b,)) for b in text]
    for _ in range(merges):
        counts = Counter(zip(parts, parts[1:]))
        if not counts:
            break
        best = min(counts, key=lambda pair: (-counts[pair], pair))
        ranks.setdefault(best[0] + best[1], len(ranks))
        out, i = [], 0
        while i < len(parts):
            if i + 1 < len(parts) and (parts[i], parts[i + 1]) == best:
                out.append(parts[i] + parts[i + 1])
                i += 2
            else:
                out.append(parts[i])
                i += 1
        parts = out
    return ranks


def check_for(ranks: dict[bytes, int]) -> PairCheck | None:
    tokens = sorted(ranks, key=ranks.__getitem__)
    splits = merge_splits(ranks, tokens)
    return None if splits is None else PairCheck(ranks, tokens, splits)


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet=ALPHABET, min_size=4, max_size=80), merges=st.integers(1, 25))
def test_every_pair_of_a_trained_vocabulary(text: str, merges: int) -> None:
    ranks = trained(text.encode(), merges)
    check = check_for(ranks)
    assume(check is not None)
    tokens = check.token_bytes
    for left in range(len(tokens)):
        for right in range(len(tokens)):
            expected = reference_stays_apart(left, right, ranks, tokens)
            assert check.stays_apart(left, right) == expected, (tokens[left], tokens[right])
            assert check.apart(left, right) == expected  # the memo every caller shares


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(alphabet=ALPHABET, min_size=4, max_size=80),
    merges=st.integers(1, 25),
    pieces=st.lists(st.text(alphabet=ALPHABET, min_size=2, max_size=12), min_size=1, max_size=20),
)
def test_two_tokens_is_the_merge_or_nothing(text: str, merges: int, pieces: list[str]) -> None:
    ranks = trained(text.encode(), merges)
    check = check_for(ranks)
    assume(check is not None)
    for piece in pieces:
        data = piece.encode()
        assume(data not in ranks)
        merged = apply_merges(data, ranks)
        two = check.two_tokens(data)
        assert (list(two) if two is not None else None) == (merged if len(merged) == 2 else None)


def test_refuses_vocabularies_whose_ranks_are_not_the_order_of_merges() -> None:
    # "ab" ranks below "b": a token may then be completed before a half of it, and the walk's
    # "the higher rank was completed last" no longer holds.
    assert merge_splits({b"a": 0, b"ab": 1, b"b": 2}, [b"a", b"ab", b"b"]) is None
    # "abc" is no merge's result: "ab" and "bc" are not tokens.
    assert merge_splits({b"a": 0, b"b": 1, b"c": 2, b"abc": 3}, [b"a", b"b", b"c", b"abc"]) is None
    assert merge_splits({b"a": 0, b"b": 1, b"ab": 2}, [b"a", b"b", b"ab"]) == bytes([0, 0, 1])


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "r50k_base"])
def test_pairs_of_the_openai_vocabularies(name: str) -> None:
    """Pairs met in corpus text (which stay apart), the two-token search's candidates there (many do
    not), and random pairs weighted to short tokens, where merges cross most often."""
    model = bytepair.get_encoding(name).engine.model
    check = model.pair_check
    assert check.splits is not None
    ranks, tokens = model.ranks, model.token_bytes
    pairs: set[tuple[int, int]] = set()
    for language in ("en", "de", "code_python"):
        text = lzma.open(CORPUS / f"{language}.txt.xz", "rt", encoding="utf-8").read()[:20_000]
        for piece in set(bytepair.get_encoding(name).engine.split(text)):
            data = piece.encode()
            ids = apply_merges(data, ranks)
            pairs.update(zip(ids, ids[1:]))
            for cut in range(1, min(len(data), 12)):
                left, right = ranks.get(data[:cut]), ranks.get(data[cut:])
                if left is not None and right is not None:
                    pairs.add((left, right))
    rng = random.Random(20261126)
    used = [i for i, t in enumerate(tokens) if t]
    short = [i for i in used if len(tokens[i]) <= 3]
    pairs.update((rng.choice(a), rng.choice(b)) for a, b in [(used, used), (short, short), (short, used)] for _ in range(2000))
    verdicts = {pair: check.stays_apart(*pair) for pair in pairs}
    assert verdicts == {pair: reference_stays_apart(*pair, ranks, tokens) for pair in pairs}
    assert 0 < sum(verdicts.values()) < len(verdicts)  # both answers occur


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_encodings_with_and_without_the_two_token_search(name: str) -> None:
    enc = bytepair.get_encoding(name)
    model = enc.engine.model
    plain = RankModel(model.ranks, model.token_bytes)  # no split table: every new piece is merged
    found = 0
    for language in ("en", "fr", "pl", "code_python"):
        text = lzma.open(CORPUS / f"{language}.txt.xz", "rt", encoding="utf-8").read()[:30_000]
        for piece in set(enc.engine.split(text)):
            ids = model.encode_piece(piece)
            assert ids == plain.encode_piece(piece), piece
            found += len(ids) == 2
    assert found > 1000


def test_a_cleared_piece_cache_forgets_checked_pairs() -> None:
    """The benchmarks' empty caches must mean text never seen: the pair memo goes with the cache."""
    enc = bytepair.get_encoding("cl100k_base")
    enc.encode_ordinary(" zorbling quextant")
    assert len(enc.engine.model.pair_check.known) > 0
    enc.engine.cache.clear()
    assert len(enc.engine.model.pair_check.known) == 0


def test_long_piece_seams_share_the_models_pair_memo() -> None:
    """The seams of a long piece are checked through the model's pair check (one memo, split walk),
    not a memo of their own: after one long piece on cleared caches, its pairs are in ``known``."""
    enc = bytepair.get_encoding("cl100k_base")
    check = enc.engine.model.pair_check
    enc.engine.cache.clear()
    assert len(check.known) == 0
    text = " \t\n" * 20_000  # one whitespace piece; its chunks' seams are checked
    pieces = enc.engine.split(text)
    assert max(map(len, pieces)) > 10_000
    assert enc.encode_ordinary(text) == [i for p in pieces for i in merge_piece(p.encode(), enc.engine.model.ranks)]
    assert len(check.known) > 0



# ---------------------------------------------------------------- the .bpr section


def test_bundled_files_carry_the_split_tables_their_ranks_give() -> None:
    packed = read_packed_ranks((PACKAGE_DATA / "r50k_base.bpr").read_bytes())
    assert packed.splits == merge_splits(packed.ranks(), packed.tokens)
    for name in ("cl100k_base", "o200k_base", "p50k_base"):
        assert len(read_packed_ranks((PACKAGE_DATA / f"{name}.bpr").read_bytes()).splits or b"") > 50_000


def test_split_section_round_trips_and_is_checked() -> None:
    ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256, b"abc": 257}
    packed = pack_rank_file(ranks, name="tiny")
    splits = read_packed_ranks(packed).splits
    assert splits is not None and splits[256:] == bytes([1, 2])
    raw = with_raw_payload(packed)
    assert read_packed_ranks(raw).splits == splits and read_packed_ranks(raw).tokens == read_packed_ranks(packed).tokens
    header_end = packed.index(b"\n", 5) + 1
    broken = bytearray(packed)
    broken[header_end] ^= 0xFF  # the first byte of the split section
    with pytest.raises(bytepair.VocabHashMismatchError, match="merge splits"):
        read_packed_ranks(bytes(broken))
    with pytest.raises(bytepair.VocabFormatError, match="merge-split section does not decompress"):
        read_packed_ranks(bytes(broken), check_hash=False)
    # A file written before the section existed still reads, without split tables.
    old = read_packed_ranks(packed)
    header = {key: value for key, value in old.header.items() if key != "merge_splits"}
    length = old.header["merge_splits"]["length"]
    older = b"BPR1\n" + json.dumps(header, sort_keys=True).encode() + b"\n" + packed[header_end + length :]
    assert read_packed_ranks(older).splits is None and read_packed_ranks(older).tokens == old.tokens


@pytest.mark.soak
@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "r50k_base", "p50k_base"])
def test_many_random_pairs(name: str) -> None:
    """400,000 random pairs per vocabulary (a quarter each: any two tokens, two short ones, short then
    any, any then short), each judged by the walk and by the merge; ~10 s per vocabulary. The figure
    is in docs/RELIABILITY.md."""
    model = bytepair.get_encoding(name).engine.model
    check, ranks, tokens = model.pair_check, model.ranks, model.token_bytes
    assert check is not None
    used = [i for i, t in enumerate(tokens) if t]
    short = [i for i in used if len(tokens[i]) <= 3]
    rng = random.Random(20261126)
    pairs = [(rng.choice(a), rng.choice(b)) for a, b in [(used, used), (short, short), (short, used), (used, short)] for _ in range(100_000)]
    wrong = [pair for pair in pairs if check.stays_apart(*pair) != reference_stays_apart(*pair, ranks, tokens)]
    apart = sum(check.stays_apart(*pair) for pair in pairs)
    print(f"{name}: {len(pairs)} pairs, {apart} stay apart, {len(wrong)} mismatches")
    assert wrong == []
