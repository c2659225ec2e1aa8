"""models.Unigram against HF tokenizers 0.23.3: best path, unknown runs, byte fallback, offsets,
token strings; and subword sampling (seeded, and drawn with the right probabilities)."""

from __future__ import annotations

import itertools
import json
import math
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair.errors import InvalidInputError, VocabFormatError
from bytepair.models import Unigram
from bytepair.models.unigram.lattice import PieceTable, best_path, fuse_unknown, lattice_nodes, path_ends, viterbi
from bytepair.models.unigram.sampling import nbest_paths, sample_nbest, sample_path
from bytepair.models.unigram.spans import Cut

tokenizers = pytest.importorskip("tokenizers")

ALPHABET = "abcdé漢 x"


def _random_vocab(rnd: random.Random, byte_fallback: bool) -> list[list]:
    pieces = {"".join(rnd.choice(ALPHABET[:6]) for _ in range(rnd.randint(1, 4))) for _ in range(rnd.randint(1, 30))}
    vocab = [["<unk>", 0.0]] + [[p, -round(rnd.uniform(0.5, 8), rnd.choice([0, 1, 3]))] for p in sorted(pieces)]
    if byte_fallback:
        vocab += [[f"<0x{b:02X}>", -20.0] for b in range(256)]
    return vocab


def _pair(vocab: list[list], byte_fallback: bool, unk_id: int | None = 0):
    js = json.dumps({"version": "1.0", "model": {"type": "Unigram", "unk_id": unk_id, "vocab": vocab,
                                                  "byte_fallback": byte_fallback}})
    return tokenizers.Tokenizer.from_str(js), bytepair.Tokenizer.from_str(js)


def _fields(encoding) -> tuple:
    return encoding.ids, encoding.tokens, encoding.offsets


def test_random_vocabularies_against_hf() -> None:
    """Ties (rounded scores), unknown runs next to known pieces, multi-byte characters, byte
    fallback with each byte token spanning its run: ids, tokens and offsets as HF's."""
    rnd = random.Random(1)
    compared = 0
    for _ in range(120):
        byte_fallback = rnd.random() < 0.3
        hf, ours = _pair(_random_vocab(rnd, byte_fallback), byte_fallback)
        for _ in range(8):
            text = "".join(rnd.choice(ALPHABET) for _ in range(rnd.randint(0, 12)))
            assert _fields(ours.encode(text)) == _fields(hf.encode(text)), text
            compared += 1
    assert compared == 960


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.text(alphabet=ALPHABET + "\U0001F600ü", max_size=16))
def test_hypothesis_against_hf(seed: int, text: str) -> None:
    rnd = random.Random(seed)
    byte_fallback = seed % 3 == 0
    hf, ours = _pair(_random_vocab(rnd, byte_fallback), byte_fallback)
    assert _fields(ours.encode(text)) == _fields(hf.encode(text))


def test_model_api_against_hf(tmp_path) -> None:
    vocab = [("<unk>", 0.0), ("a", -1.0), ("b", -2.0), ("ab", -2.5), ("<0x78>", -9.0)]
    hf = tokenizers.models.Unigram(vocab, unk_id=0, byte_fallback=True)
    ours = Unigram(vocab, unk_id=0, byte_fallback=True)
    for text in ["abxyab", "abxé", "x", ""]:
        assert [(t.value, t.id, t.offsets) for t in ours.tokenize(text)] == \
            [(t.value, t.id, t.offsets) for t in hf.tokenize(text)]
    hf_tok = tokenizers.Tokenizer(hf)
    assert ours.get_vocab() == hf_tok.get_vocab()
    assert ours.get_vocab_size() == hf_tok.get_vocab_size()
    assert ours.token_to_id("ab") == hf.token_to_id("ab") and ours.id_to_token(3) == hf.id_to_token(3)
    assert ours.id_to_token(99) is None and hf.id_to_token(99) is None
    hf_json = json.loads(tokenizers.Tokenizer(hf).to_str())["model"]
    assert ours.to_json() == hf_json
    (path,) = ours.save(str(tmp_path), "m")
    assert path.endswith("m-unigram.json") and json.loads(open(path, encoding="utf-8").read()) == hf_json
    # Round trip through a saved tokenizer.json, and assignment of the model to a Tokenizer.
    tok = bytepair.Tokenizer(ours)
    assert bytepair.Tokenizer.from_str(tok.to_str()).encode("abxab").ids == tokenizers.Tokenizer(hf).encode("abxab").ids


def test_default_model_and_missing_unknown() -> None:
    assert Unigram().vocab == [("<unk>", 0.0)] and Unigram().unk_id == 0
    model = Unigram([("a", -1.0)])
    assert model.encode_piece("aa") == (0, 0)
    with pytest.raises(InvalidInputError, match="unk_id"):
        model.encode_piece("ab")
    with pytest.raises(Exception):
        tokenizers.models.Unigram([("a", -1.0)]).tokenize("ab")  # HF refuses too
    with pytest.raises(VocabFormatError, match="unk_id"):
        Unigram([("a", -1.0)], unk_id=3)
    with pytest.raises(VocabFormatError, match="pairs"):
        bytepair.Tokenizer.from_str(json.dumps({"model": {"type": "Unigram", "vocab": [["a"]]}}))


# ---------------------------------------------------------------- sampling
VOCAB = [("<unk>", 0.0), ("a", -1.0), ("b", -1.3), ("ab", -2.0), ("ba", -2.2), ("aba", -3.1), ("c", -0.7), ("bc", -1.9)]


def _all_paths(text: str, table: PieceTable) -> dict[tuple, float]:
    """Every segmentation of ``text`` into vocabulary entries, with its score (brute force)."""
    out = {}
    n = len(text)
    for cuts in itertools.product([0, 1], repeat=n - 1):
        bounds = [0] + [i + 1 for i, c in enumerate(cuts) if c] + [n]
        parts = [text[a:b] for a, b in zip(bounds, bounds[1:])]
        if all(p in table.entries for p in parts):
            out[tuple(table.entries[p][0] for p in parts)] = sum(table.entries[p][1] for p in parts)
    return out


def test_best_path_is_the_best_of_all() -> None:
    table = PieceTable({p: (i, s) for i, (p, s) in enumerate(VOCAB)})
    for text in ["abab", "abcab", "bcbcab", "aaba"]:
        paths = _all_paths(text, table)
        best = max(paths.values())
        found = tuple(i for _, _, i in best_path(text, table, 0, -20.0))
        assert math.isclose(paths[found], best)


def test_nbest_against_brute_force() -> None:
    table = PieceTable({p: (i, s) for i, (p, s) in enumerate(VOCAB)})
    for text in ["abab", "abcab", "abababc"]:
        paths = _all_paths(text, table)
        found = nbest_paths(lattice_nodes(text, table, None, 0.0), len(text), 5)
        assert [round(score, 9) for _, score in found] == sorted((round(s, 9) for s in paths.values()), reverse=True)[:5]
        for path, score in found:
            assert math.isclose(paths[tuple(i for _, _, i in path)], score)
    model = Unigram(VOCAB, unk_id=0)
    assert model.nbest("abab", 1) == [["ab", "ab"]]


@pytest.mark.parametrize("alpha", [0.1, 0.5, 1.0])
def test_sampling_distribution(alpha: float) -> None:
    """Each segmentation is drawn with probability exp(alpha * score) / Z (within 4 sigma)."""
    table = PieceTable({p: (i, s) for i, (p, s) in enumerate(VOCAB)})
    text = "ababc"
    paths = _all_paths(text, table)
    z = sum(math.exp(alpha * s) for s in paths.values())
    rng = random.Random(7)
    nodes = lattice_nodes(text, table, None, 0.0)
    draws = 6000
    counts = Counter(tuple(i for _, _, i in sample_path(nodes, len(text), alpha, rng)) for _ in range(draws))
    assert set(counts) <= set(paths)
    for path, score in paths.items():
        p = math.exp(alpha * score) / z
        assert abs(counts[path] / draws - p) <= 4 * math.sqrt(p * (1 - p) / draws) + 1e-9, path


def test_sample_nbest_distribution() -> None:
    table = PieceTable({p: (i, s) for i, (p, s) in enumerate(VOCAB)})
    text, alpha, n = "ababc", 0.5, 3
    top = nbest_paths(lattice_nodes(text, table, None, 0.0), len(text), n)
    z = sum(math.exp(alpha * s) for _, s in top)
    rng = random.Random(3)
    draws = 6000
    counts = Counter(tuple(sample_nbest(lattice_nodes(text, table, None, 0.0), len(text), n, alpha, rng)) for _ in range(draws))
    assert len(counts) == n
    for path, score in top:
        p = math.exp(alpha * score) / z
        assert abs(counts[tuple(path)] / draws - p) <= 4 * math.sqrt(p * (1 - p) / draws)


def test_sampling_is_seeded() -> None:
    def run(seed: int) -> list[tuple[int, ...]]:
        model = Unigram(VOCAB, unk_id=0, alpha=0.5, seed=seed)
        return [model.encode_piece("ababcabab") for _ in range(30)]

    assert run(1) == run(1)
    assert run(1) != run(2)
    assert len(set(run(1))) > 1
    sampled = Unigram(VOCAB, unk_id=0, alpha=0.5, nbest_size=2, seed=0)
    assert {sampled.encode_piece("abab") for _ in range(50)} <= {(3, 3), (1, 4, 2), (5, 2), (1, 2, 3)}
    # Through the HF face: alpha makes encode sample on each call, past the piece cache, seeded.
    vocab = [[p, s] for p, s in VOCAB]
    tok = bytepair.Tokenizer(Unigram(VOCAB, unk_id=0, alpha=0.5))
    runs = [tuple(tok.encode("ababcabab ababcabab", seed=k).ids) for k in range(20)]
    assert len(set(runs)) > 1 and runs == [tuple(tok.encode("ababcabab ababcabab", seed=k).ids) for k in range(20)]
    plain = bytepair.Tokenizer.from_str(json.dumps({"model": {"type": "Unigram", "unk_id": 0, "vocab": vocab}}))
    assert plain.encode("ababc", dropout=0.0).ids == plain.encode("ababc").ids
    assert len({tuple(plain.encode("ababcabab", dropout=0.5, seed=k).ids) for k in range(20)}) > 1


def test_sampled_ids_get_offsets() -> None:
    """Offsets and token strings of any segmentation the model can give, not only the best one."""
    model = Unigram(VOCAB + [("<0x78>", -5.0)], unk_id=0)
    assert model.piece_tokens("abxab", (1, 2, 0, 3)) == ["a", "b", "x", "ab"]
    assert model.piece_byte_lengths("abxab", (1, 2, 0, 3)) == [1, 1, 1, 2]


def test_long_pieces_stretch_by_stretch_equal_the_plain_path() -> None:
    """``_best`` (stretches between ▁, reused where no comparison is close) gives ``best_path``'s
    segmentation, also with scores chosen to tie."""
    rnd = random.Random(0)
    for _ in range(120):
        pieces = {"▁" * (rnd.random() < 0.5) + "".join(rnd.choice("ab-") for _ in range(rnd.randint(1, 4))) for _ in range(25)}
        model = Unigram([("<unk>", 0.0)] + [(p, -float(rnd.choice([1, 2, 3, 1.5]))) for p in sorted(pieces)], unk_id=0)
        for _ in range(4):
            text = "".join(rnd.choice(["▁", "a", "b", "-", "c", "ab", "--"]) for _ in range(rnd.randint(40, 300)))
            assert model._best(text) == best_path(text, model.table, 0, model.unk_score), text


@pytest.mark.parametrize("exact", [True, False])
def test_long_pieces_ids_against_hf_and_the_plain_path(exact: bool) -> None:
    """A long piece (a whole text, as Metaspace ``split=False`` gives) is encoded stretch by
    stretch, each stretch's ids remembered: from 0 where every sum is exact (scores on a 2**-m
    grid, as SentencePiece's 32-bit ones), else with the gap rule (scores such as 0.1 and 0.2,
    whose sums round: 0.1 + 0.2 > 0.3). The ids are HF's and ``best_path``'s, with unknown runs
    next to stretch bounds, byte fallback, and vocabularies without a one-character "▁"."""
    rnd = random.Random(3 + exact)
    grid = [1.0, 2.0, 3.0, 1.5, 0.75] if exact else [0.1, 0.2, 0.3, 0.7, 1.1]
    for case in range(40):
        byte_fallback = case % 3 == 0
        pieces = {"▁" * (rnd.random() < 0.5) + "".join(rnd.choice("ab-é") for _ in range(rnd.randint(1, 4)))
                  for _ in range(25)}
        if case % 4:
            pieces.add("▁")
        vocab = [["<unk>", 0.0]] + [[p, -rnd.choice(grid) * rnd.choice([1, 1, 2])] for p in sorted(pieces)]
        if byte_fallback:
            vocab += [[f"<0x{b:02X}>", -20.0] for b in range(256)]
        hf, ours = _pair(vocab, byte_fallback)
        model = Unigram([(p, s) for p, s in vocab], unk_id=0, byte_fallback=byte_fallback)
        paths = model._paths
        assert paths is not None and (paths.exact_below > 1e6) == exact
        for _ in range(3):
            text = "".join(rnd.choice(["▁", "a", "b", "-", "é", "c", "ab", "--", "▁a", "x"]) for _ in range(rnd.randint(48, 400)))
            want = model._path_ids(text, best_path(text, model.table, 0, model.unk_score))
            assert model.encode_piece(text) == want, text
            assert ours.encode(text).ids == hf.encode(text).ids == list(want), text
            assert model._best(text) == best_path(text, model.table, 0, model.unk_score), text


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10**6), st.text(alphabet="abc-éx▁", max_size=40), st.booleans())
def test_fast_viterbi_equals_the_plain_best_path(seed: int, text: str, with_unknown: bool) -> None:
    """``lattice.viterbi`` (the first pass's inner loop) and the stretch ids built on it against
    ``best_path`` (the plain rule) and the reference fusion of unknown runs: near-tie scores (a
    small grid, some nudged by one unit in the last place), unknown characters next to entries,
    an entry spelled like the unknown piece, and no ``unk_id`` (both raise)."""
    rnd = random.Random(seed)
    letters, longest = ("ab▁", 3) if seed % 2 else ("abc-é▁", 5)  # few letters: many equal paths
    pieces = {"".join(rnd.choice(letters) for _ in range(rnd.randint(1, longest))) for _ in range(rnd.randint(1, 25))}
    grid = [1.0, 2.0] if seed % 2 else [1.0, 2.0, 3.0, 1.5, 0.5]
    unk_piece = rnd.choice(["<unk>", "x", "c-"]) if with_unknown else "x"  # "x", "c-": met in the text
    vocab = [(unk_piece, 0.0)] + [
        (p, -rnd.choice(grid) * rnd.choice([1, 2]) * (1 + rnd.choice([0, 0, 0, 2**-52, -(2**-52)]))) for p in sorted(pieces)]
    model = Unigram(vocab, unk_id=0 if with_unknown else None)
    table, unk = model.table, model.unk_id
    try:
        want = best_path(text, table, unk, model.unk_score)
    except InvalidInputError:
        with pytest.raises(InvalidInputError):
            viterbi(text, table.trie, unk, model.unk_score)
        return
    nodes = viterbi(text, table.trie, unk, model.unk_score)
    ends = path_ends(nodes)
    assert list(zip([0, *ends], ends, [node[0] for node in nodes])) == want
    reference = tuple(i for _, ids, _ in model._tokens(text, fuse_unknown(want, unk)) for i in ids)
    assert model._path_ids(text, want) == reference
    if text:
        assert model.encode_piece(text) == reference


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10**6), st.text(alphabet=ALPHABET + "\U0001F600ü<>0", max_size=30), st.booleans())
def test_span_readers_equal_the_best_cut(seed: int, text: str, with_unk_text: bool) -> None:
    """``TokenSpans``' readers (``spelled``: in C; ``read_off``: token by token) place the tokens of
    a piece where its best cut does, or do not answer; never elsewhere. Unknown runs beside
    pieces that begin with a character without a one-character entry, byte fallback, and the
    unknown token's own text in the piece (``<unk>`` matched as an entry) included."""
    rnd = random.Random(seed)
    byte_fallback = seed % 3 == 0
    model = Unigram([tuple(entry) for entry in _random_vocab(rnd, byte_fallback)], unk_id=0, byte_fallback=byte_fallback)
    piece = text + "<unk>" if with_unk_text else text
    best = model._best_cut(piece)
    ids = tuple(itertools.chain.from_iterable(run for _, _, run in best))
    want = Cut.of(best)
    spelled, read = model._spans.spelled(piece, ids), model._spans.read_off(piece, ids)
    assert spelled is None or spelled[:3] == want[:3]
    assert spelled is None or spelled.words == [piece[s:e] for s, e in zip(spelled.starts, spelled.ends)]
    assert read is None or Cut.of(read) == want
    assert model._spans.cut(piece, ids)[:3] == want[:3]
    if not byte_fallback and "<unk>" not in piece:
        assert spelled is not None or any(run[0] == 0 for *_, run in best)  # (no unknown run: always spelled)


def test_a_long_piece_is_encoded_once_for_its_fields(monkeypatch: pytest.MonkeyPatch) -> None:
    """A whole text that is one piece (Metaspace without split) is not encoded again when its
    offsets are read: the cache keeps the last long piece's ids; a cleared cache forgets them."""
    from bytepair.bulk import MIN_CHARS
    from bytepair.models.unigram.model import Unigram
    from tests.spm_reference import spm_model

    calls: list[int] = []
    encode = Unigram.encode_piece
    monkeypatch.setattr(Unigram, "encode_piece", lambda self, piece, **kw: calls.append(len(piece)) or encode(self, piece, **kw))
    tok = bytepair.Tokenizer.from_sentencepiece(spm_model("unigram"))
    text = "A long text, one piece of it. " * (MIN_CHARS // 20)
    encoding = tok.encode(text)
    assert len(calls) == 1 and calls[0] > MIN_CHARS
    assert encoding.offsets[-1][1] == len(text.rstrip()) and len(calls) == 1
    tok.pipeline.engine.cache.clear()
    assert tok.encode(text).ids == encoding.ids and len(calls) == 2
