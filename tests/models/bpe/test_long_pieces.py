"""Long whitespace runs (one pretokenized piece of up to megabytes): exact ids, and linear work.

Whitespace runs such as ``"    \\n" * n`` used to take seconds per megabyte: chunks cut at fixed
characters start out of step with the run's tokens, every seam failed and each repair re-merged a
widening window. These tests hold the long-piece paths to tiktoken (or, where tiktoken panics, to
the heap merge of each piece) and count the merge work instead of timing it.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
import bytepair.models.bpe.long_pieces as long_pieces
from bytepair.models.bpe.merge import _merge_long, apply_merges, merge_piece
from bytepair.models.bpe.long_pieces import LONG_PIECE_CHARS
from bytepair.models.bpe.pair_check import PairCheck

ENCODINGS = ("r50k_base", "cl100k_base", "o200k_base")
UNITS = ("    \n", " \t", " \r\n", "\n \n", "\t\n", " \u3000", "\u00a0 ", "  \n\n", " ", "\n", "\t", "\r\n")
ALPHABET = " \t\r\n\u3000\u00a0\u2028\x0b\x0c\x85"


def _expected(ref, enc: bytepair.Encoding, text: str) -> list[int]:
    """tiktoken's ids, or the heap merge of each piece where tiktoken panics (it does, on some runs)."""
    try:
        return ref.encode_ordinary(text)
    except BaseException:  # noqa: BLE001 - pyo3's PanicException derives from BaseException
        pieces = enc.engine.split(text)
        return [i for piece in pieces for i in merge_piece(piece.encode(), enc._mergeable_ranks)]


def _cold(enc: bytepair.Encoding, text: str) -> list[int]:
    """Encode with every cache emptied first, so each path runs from scratch."""
    enc.engine.cache.clear()
    return enc.encode_ordinary(text)


@pytest.mark.parametrize("name", ENCODINGS)
@pytest.mark.parametrize("unit", UNITS, ids=repr)
def test_whitespace_runs_equal_tiktoken(tiktoken_ref, name: str, unit: str) -> None:
    enc, ref = bytepair.get_encoding(name), tiktoken_ref(name)
    for n_chars in (LONG_PIECE_CHARS + 1, LONG_PIECE_CHARS + 7, 3000, 60_000):
        text = (unit * (n_chars // len(unit) + 1))[:n_chars]
        assert _cold(enc, text) == _expected(ref, enc, text), (n_chars, text[:20])
        assert enc.encode_ordinary(text) == _expected(ref, enc, text)  # again, from warm caches


@pytest.mark.parametrize("name", ("r50k_base", "p50k_base", "cl100k_base", "o200k_base"))
@settings(max_examples=40, deadline=None)
@given(text=st.text(alphabet=ALPHABET, min_size=300, max_size=3000))
def test_random_whitespace_equals_tiktoken(tiktoken_ref, name: str, text: str) -> None:
    enc = bytepair.get_encoding(name)
    assert _cold(enc, text) == _expected(tiktoken_ref(name), enc, text)


@settings(max_examples=40, deadline=None)
@given(
    parts=st.lists(st.sampled_from([*UNITS, "\u2028", "\x0b", "\x0c", "\x85", "a", "🙂"]), min_size=2, max_size=8),
    repeats=st.integers(20, 400),
    cut=st.integers(0, 5),
)
def test_stitching_equals_heap_merge(parts: list[str], repeats: int, cut: int) -> None:
    """``_stitch`` alone, on periodic byte strings cut anywhere (also inside a character)."""
    enc = bytepair.get_encoding("cl100k_base")
    data = ("".join(parts) * repeats).encode()[cut:]
    enc.engine.cache.clear()
    assert list(enc.engine.cache._long._stitch(data) or _merge_long(data, enc._mergeable_ranks)) == _merge_long(
        data, enc._mergeable_ranks
    )


@pytest.mark.parametrize("alphabet", [ALPHABET, "abcdefghij ", "🙂🙃 "], ids=["whitespace", "letters", "emoji"])
def test_stitching_hands_back_tokens_and_stays_exact(monkeypatch: pytest.MonkeyPatch, alphabet: str) -> None:
    """The hand-back path, forced: small chunks that keep their last token (cut by the chunk's end)."""
    monkeypatch.setattr(long_pieces, "_STITCH_BYTES", 48)
    monkeypatch.setattr(long_pieces, "_STITCH_DROP", 0)
    enc = bytepair.get_encoding("cl100k_base")
    long_enc = enc.engine.cache._long
    rng = random.Random(5)
    before = long_enc.stats["hand_backs"]
    for _ in range(20):
        data = "".join(rng.choices(alphabet, k=rng.randint(300, 3000))).encode()
        long_enc.clear()
        stitched = long_enc._stitch(data)
        assert stitched is not None
        assert list(stitched) == _merge_long(data, enc._mergeable_ranks)
    long_enc.clear()
    assert long_enc.stats["hand_backs"] > before


@pytest.mark.parametrize(
    "text",
    [
        "".join(random.Random(1).choices("🙂🙃😀 ", k=3000)),
        "".join(random.Random(2).choices(["日本", "語", "🙂", "\u3000", " "], [1, 1, 8, 1, 1], k=2000)),
        "".join(random.Random(3).choices(["🙂", "🙃", "x", "\u00a0"], [8, 8, 1, 1], k=2000)),
    ],
    ids=["emoji", "cjk", "emoji-x-nbsp"],
)
def test_single_character_repair_equals_heap_merge(text: str) -> None:
    """``_repair`` (left to right) on single-character chunks whose seams fail, whatever the tolerance."""
    enc = bytepair.get_encoding("o200k_base")
    long_enc = enc.engine.cache._long
    encoded = [enc.engine.cache[c] for c in text]
    seams = long_enc._seam_checks(encoded)
    assert not all(seams)
    repaired = long_enc._repair(encoded, seams)
    assert repaired is not None
    assert list(repaired) == _merge_long(text.encode(), enc._mergeable_ranks)


def test_repair_gives_up_on_out_of_step_runs_and_stitching_takes_over() -> None:
    """Single characters of ``"\u3000 " * n`` never fall into step by widening: repair declines, stitching is exact."""
    enc = bytepair.get_encoding("o200k_base")
    text = "\u3000 " * 800
    encoded = [enc.engine.cache[c] for c in text]
    assert enc.engine.cache._long._repair(encoded, enc.engine.cache._long._seam_checks(encoded)) is None
    assert _cold(enc, text) == _merge_long(text.encode(), enc._mergeable_ranks)


def _merge_work(enc: bytepair.Encoding, text: str, monkeypatch: pytest.MonkeyPatch) -> int:
    """Bytes the long-piece encoder hands to the merge rule (chunks, repairs) and to pair checks
    (seams: the pair's bytes, whether its split tables or a merge answer) for ``text``."""
    total = 0
    real, real_check = long_pieces.apply_merges, PairCheck.stays_apart

    def counting(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
        nonlocal total
        total += len(piece)
        return real(piece, ranks)

    def counting_check(check: PairCheck, left: int, right: int) -> bool:
        nonlocal total
        total += len(check.token_bytes[left]) + len(check.token_bytes[right])
        return real_check(check, left, right)

    monkeypatch.setattr(long_pieces, "apply_merges", counting)
    monkeypatch.setattr(PairCheck, "stays_apart", counting_check)
    _cold(enc, text)
    monkeypatch.setattr(long_pieces, "apply_merges", real)
    monkeypatch.setattr(PairCheck, "stays_apart", real_check)
    return total


@pytest.mark.parametrize("name", ("cl100k_base", "o200k_base"))
@pytest.mark.parametrize("unit", [*UNITS, "random"], ids=repr)
def test_merge_work_is_linear(monkeypatch: pytest.MonkeyPatch, name: str, unit: str) -> None:
    """About one pass of merging over the input, and four times the input costs at most ~4.5 times the work.

    (Before stitching, ``"    \\n" * n`` re-merged six times its size in widening repair windows and
    then all of it again in the heap merge.)
    """
    enc = bytepair.get_encoding(name)
    rng = random.Random(11)

    def text(n_chars: int) -> str:
        if unit == "random":
            return "".join(rng.choices(ALPHABET, k=n_chars))
        return unit * (n_chars // len(unit))

    small_text, large_text = text(20_000), text(80_000)
    small, large = _merge_work(enc, small_text, monkeypatch), _merge_work(enc, large_text, monkeypatch)
    assert 0 < small <= 1.25 * len(small_text.encode()) + 16_384, small
    assert large <= 4.5 * small, (small, large)


def test_periodic_runs_merge_almost_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Periodic runs come from cached chunks: 1 MB of ``"    \\n"`` merges a few kilobytes, not the megabyte."""
    enc = bytepair.get_encoding("cl100k_base")
    assert _merge_work(enc, "    \n" * 200_000, monkeypatch) < 50_000


@st.composite
def _toy_vocabularies(draw: st.DrawFn) -> dict[bytes, int]:
    """Every single byte, plus random tokens over a few characters (runs of them among them), in
    shuffled rank order: tokens may rank before their halves."""
    chars = [c.encode() for c in draw(st.lists(st.sampled_from(" \t\n\u3000\u00a0ab"), min_size=2, max_size=4, unique=True))]
    runs = st.tuples(st.sampled_from(chars), st.integers(1, 4)).map(lambda ck: ck[0] * ck[1])
    tokens = draw(st.lists(st.lists(runs, min_size=1, max_size=3).map(b"".join).filter(lambda t: len(t) > 1), max_size=40, unique=True))
    order = draw(st.permutations(tokens))
    return {**{bytes((b,)): b for b in range(256)}, **{t: 256 + i for i, t in enumerate(order)}}


@settings(max_examples=300, deadline=None)
@given(_toy_vocabularies(), st.lists(st.tuples(st.sampled_from(" \t\n\u3000\u00a0ab"), st.integers(1, 9)), min_size=1, max_size=10))
def test_sides_from_runs_equal_the_merge_rule(ranks: dict[bytes, int], runs: list[tuple[str, int]]) -> None:
    """A side assembled from its runs of one character (seams checked) is the merge rule's."""
    token_bytes = sorted(ranks, key=ranks.__getitem__)
    sides = long_pieces._Sides(ranks, PairCheck(ranks, token_bytes))
    sides.try_runs = True
    side = "".join(c * k for c, k in runs).encode()
    assert list(sides[side]) == apply_merges(side, ranks)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_random_runs_of_whitespace_take_runs_and_equal_tiktoken(tiktoken_ref, name: str) -> None:
    """Random runs of one whitespace character: sides come from their runs (else this path would be
    untested on real vocabularies), and the ids are tiktoken's."""
    rng = random.Random(11)
    text = "".join(rng.choice(" \t\r\n\u3000\u00a0") * rng.randint(1, 30) for _ in range(3000))
    enc = bytepair.get_encoding(name)
    model = enc.engine.model
    sides = long_pieces._Sides(model.ranks, model.pair_check)
    assembled = sum(sides._from_runs(text[i : i + 40].encode()) is not None for i in range(0, 4000, 40))
    assert assembled > 10
    assert _cold(enc, text) == tiktoken_ref(name).encode_ordinary(text)


# ------------------------------------------------------------- many short pieces of a few bytes
MARKS = "e\u0301\u0308\u0323\u030a"


@pytest.mark.parametrize("name", ENCODINGS)
@settings(max_examples=30, deadline=None)
@given(pieces=st.lists(st.text(alphabet=MARKS + " \t\n", min_size=1, max_size=40), min_size=1, max_size=200))
def test_many_pieces_merged_as_one_equal_each_alone(name: str, pieces: list[str]) -> None:
    """``encode_many`` joins the pieces by a byte no multi-byte token holds: each piece's ids must be
    what ``encode_piece`` gives it alone (pieces that are tokens included)."""
    enc = bytepair.get_encoding(name)
    got = enc.engine.cache.long_pieces.encode_many(pieces)
    assert got is not None
    assert got == [enc.engine.model.encode_piece(piece) for piece in pieces]


@pytest.mark.parametrize("name", ("cl100k_base", "r50k_base"))
def test_combining_marks_are_merged_in_one_batch(tiktoken_ref, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Random combining marks: cl100k cuts them into many short runs of marks. Their new pieces are
    merged together (the model is never asked for one alone), and the ids are tiktoken's."""
    enc = bytepair.get_encoding(name)
    text = "".join(random.Random(3).choices(MARKS, k=40_000))
    enc.engine.cache.clear()

    def alone(piece: str) -> tuple[int, ...]:
        raise AssertionError(f"merged alone: {piece!r}")

    monkeypatch.setattr(enc.engine.cache, "_encode", alone)
    assert enc.encode_ordinary(text) == tiktoken_ref(name).encode_ordinary(text)
    assert enc.encode_ordinary(text) == tiktoken_ref(name).encode_ordinary(text)  # warm
    monkeypatch.undo()
    enc.engine.cache.clear()


def test_prose_is_not_batched(monkeypatch: pytest.MonkeyPatch) -> None:
    """Text of many distinct bytes goes piece by piece: ``encode_many`` is not even tried."""
    enc = bytepair.get_encoding("cl100k_base")
    text = " ".join(f"word{i} Wörter{i}" for i in range(500))

    def many(pieces: list[str]) -> None:
        raise AssertionError("batched")

    monkeypatch.setattr(enc.engine.cache.long_pieces, "encode_many", many)
    enc.engine.cache.clear()
    assert enc.decode(enc.encode_ordinary(text)) == text


@pytest.mark.parametrize("name", ("cl100k_base", "o200k_base"))
def test_sides_holding_cjk_start_from_characters_and_equal_tiktoken(tiktoken_ref, name: str) -> None:
    """One long piece of CJK and Latin letters: cut into sides, those holding CJK are merged from whole
    characters by the model's character merge (it must be asked, and say yes for some), and the ids
    are tiktoken's."""
    enc = bytepair.get_encoding(name)
    text = "".join(random.Random(11).choices("日本語中文字漢かなカナ" + "abcdefghijklmnopqrstuvwxyz", k=20_000))
    assert len(enc.engine.split(text)) == 1
    sides = enc.engine.cache.long_pieces._sides
    asked = []
    merge = sides._char_merge

    def counted(piece: str, data: bytes):
        ids = merge(piece, data)
        asked.append(ids is not None)
        return ids

    sides._char_merge = counted
    try:
        assert _cold(enc, text) == tiktoken_ref(name).encode_ordinary(text)
    finally:
        sides._char_merge = merge
    assert sum(asked) > 20
