"""bytepair.train against tokenizers 0.23.3's BpeTrainer: merges and vocabulary equal, ties included.

Each corpus is built to exercise one of the rules in bytepair/trainers/pair_queue.py: ties (many pairs
with one count), overlaps ("aaaa"), the min_frequency stop, special tokens, max_token_length, and
the three kinds of pattern. (No corpus found makes a merge spell an existing token, so id reuse is
not shown here: docs/TRAINING.md, rule 6.)
"""

from __future__ import annotations

import json
import lzma
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair.trainers.counts import resolve_pattern

from tests.hf_trainer import hf_train, model_of, ours

pytest.importorskip("tokenizers")

BENCH_CORPUS = Path(__file__).resolve().parents[2] / "bench" / "corpus"

CASES = {
    "ties": (["ab cd ef gh ij kl", "ba dc fe hg ji lk"], 280, {}),
    "overlaps": (["aaaa aaa aa a", "aaaaaaaaa bbbbbb", "abababab"], 300, {}),
    "min_frequency": (["the cat sat on the mat"] * 3 + ["zq xj"], 400, {"min_frequency": 3}),
    "min_frequency_2": (["the cat sat on the mat", "the dog", "a mat"], 400, {"min_frequency": 2}),
    "specials": (["hello <|endoftext|> world", "hello world"], 280, {"special_tokens": ["<|endoftext|>", "<pad>", "!"]}),
    "max_token_length_3": (["abcdefgh abcdefgh xyzxyz", "abcabcabc"] * 4, 320, {"max_token_length": 3}),
    "max_token_length_1": (["abcdefgh abcdefgh xyzxyz"] * 4, 320, {"max_token_length": 1}),
    "shared_substrings": (["abc", "abc", "xab", "xab", "xab", "bcy", "bcy", "bcy", "abcabc"], 300, {}),
    "unicode": (["héllo wörld 你好 你好吗 🙂🙂", "naïve café"] * 2, 300, {}),
    "whitespace": (["a  b   c\n\n\td", "   \n  x", "\r\n\r\n"], 300, {}),
}


@pytest.mark.parametrize("pattern", ["gpt2", "o200k_base", r"\p{L}+|\p{N}|\s+|[^\s\p{L}\p{N}]+"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_equal_to_hf(case: str, pattern: str) -> None:
    texts, vocab_size, options = CASES[case]
    theirs = hf_train(texts, vocab_size, pattern, **options)
    mine = ours(texts, vocab_size, pattern, **options)
    assert model_of(mine.to_str()) == model_of(theirs.to_str())
    assert mine.get_vocab() == theirs.get_vocab()


def test_rules_seen_in_hf() -> None:
    """The documented rules, each visible in HF's output (so the test fails if HF's rules changed)."""
    vocab, merges = model_of(hf_train(["aaaa", "bc", "bc"], 257, "gpt2").to_str())
    assert merges == [("a", "a")]  # overlaps: (a, a) counts 3 > (b, c)'s 2
    vocab, merges = model_of(hf_train(["cd ab"], 257, "gpt2").to_str())
    assert merges == [("a", "b")]  # tie: smallest ids first
    vocab, _ = model_of(hf_train(["x"], 300, "gpt2", special_tokens=["<s>"]).to_str())
    assert vocab["<s>"] == 0 and vocab["!"] == 1 and vocab["Ā"] == 1 + 188  # specials, then by code point
    _, merges = model_of(hf_train(["ab ab ab cd cd xy"], 300, "gpt2", min_frequency=2).to_str())
    # ties among count 2 go to the smallest ids ("c" < "Ġ", "ab" < "cd"); count 1 < 2 stops the loop
    assert merges == [("a", "b"), ("c", "d"), ("Ġ", "ab"), ("Ġ", "cd")]


@pytest.mark.parametrize("limit,longest", [(1, 2), (2, 2), (3, 2), (4, 3), (5, 4)])
def test_max_token_length_rule(limit: int, longest: int) -> None:
    """HF's rule, as measured: pairs are counted only while shorter than the limit, and the first
    two-byte pairs are not limited; so the longest token is max(2, limit - 1)."""
    texts = ["abcdefgh abcdefgh xyzxyz", "abcabcabc"] * 4
    theirs = model_of(hf_train(texts, 320, "gpt2", max_token_length=limit).to_str())
    mine = model_of(ours(texts, 320, "gpt2", max_token_length=limit).to_str())
    assert mine == theirs
    assert max(len(token) for token in mine[0]) == longest


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="ab c\nd", min_size=1, max_size=14), min_size=1, max_size=6),
       st.integers(257, 300), st.sampled_from([None, 2, 3, 5]), st.sampled_from([0, 2]))
def test_random_small_corpora(texts: list[str], vocab_size: int, max_len: int | None, min_frequency: int) -> None:
    texts = [t for t in texts if t.strip()] or ["a"]
    theirs = hf_train(texts, vocab_size, "gpt2", max_token_length=max_len, min_frequency=min_frequency)
    mine = ours(texts, vocab_size, "gpt2", max_token_length=max_len, min_frequency=min_frequency)
    assert model_of(mine.to_str()) == model_of(theirs.to_str())


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from("aA bé\n1'你🙂.\t"), min_size=1, max_size=20), min_size=1, max_size=5),
       st.integers(256, 320), st.sampled_from(["o200k_base", "cl100k_base"]),
       st.lists(st.sampled_from(["<s>", "a", "é", "<|x|>"]), max_size=2, unique=True))
def test_random_unicode_corpora(texts: list[str], vocab_size: int, pattern: str, specials: list[str]) -> None:
    vocab_size = max(vocab_size, 256 + len(specials))
    theirs = hf_train(texts, vocab_size, pattern, special_tokens=specials)
    mine = ours(texts, vocab_size, pattern, special_tokens=specials)
    assert model_of(mine.to_str()) == model_of(theirs.to_str())


@pytest.mark.parametrize("name,pattern", [("en", "gpt2"), ("de", "o200k_base"), ("code_python", "cl100k_base")])
def test_corpus_slice(name: str, pattern: str) -> None:
    text = lzma.open(BENCH_CORPUS / f"{name}.txt.xz", "rt", encoding="utf-8").read()[:300_000]
    lines = text.splitlines()
    theirs = hf_train(lines, 2000, pattern, special_tokens=["<|endoftext|>"], min_frequency=2)
    mine = ours(lines, 2000, pattern, special_tokens=["<|endoftext|>"], min_frequency=2)
    assert model_of(mine.to_str()) == model_of(theirs.to_str())


@pytest.mark.parametrize("pattern", ["gpt2", "o200k_base", "cl100k_base"])
def test_saved_file_loads_in_hf_and_encodes_alike(tmp_path: Path, pattern: str) -> None:
    tk = pytest.importorskip("tokenizers")
    text = lzma.open(BENCH_CORPUS / "en.txt.xz", "rt", encoding="utf-8").read()
    train_part, held_out = text[:150_000], text[150_000:200_000] + " <|endoftext|> tail 1234567 '  x"
    path = tmp_path / "tokenizer.json"
    bytepair.train(train_part.splitlines(), vocab_size=1000, pattern=pattern, special_tokens=["<|endoftext|>"],
                   min_frequency=2, show_progress=False).save(path)
    theirs = tk.Tokenizer.from_file(str(path))
    mine = bytepair.Tokenizer.from_file(path)
    assert mine.encode(held_out).ids == theirs.encode(held_out).ids
    assert theirs.decode(theirs.encode(held_out).ids, skip_special_tokens=False) == held_out
    assert mine.decode(mine.encode(held_out).ids, skip_special_tokens=False) == held_out


def test_count_pieces_then_train_from_counts_is_train() -> None:
    texts = ["the quick brown fox", "jumps over the lazy dog", "the end"] * 3
    a, b = texts[:4], texts[4:]
    counts = bytepair.count_pieces(a, "o200k_base") + bytepair.count_pieces(b, "o200k_base")
    from_counts = bytepair.train_from_counts(counts, 300, pattern="o200k_base", show_progress=False)
    direct = ours(texts, 300, "o200k_base")
    assert from_counts.to_str() == direct.to_str()


def test_memory_follows_distinct_pieces() -> None:
    """A generator of 200k lines is consumed lazily; the counter holds only the distinct pieces."""
    lines = (f"line {i % 7}" for i in range(200_000))
    counts = bytepair.count_pieces(lines, "gpt2")
    assert len(counts) == 8 and counts[" 3"] == 200_000 // 7 + (1 if 3 < 200_000 % 7 else 0)


def test_progress_callback() -> None:
    seen: list[tuple[str, int, int | None]] = []
    tok = ours(["abc abd abe"] * 300, 262, "gpt2", progress=lambda *a: seen.append(a))
    n_merges = len(json.loads(tok.to_str())["model"]["merges"])
    stages = [s for s, _, _ in seen]
    assert stages[0] == "count" and "merge" in stages
    merges = [done for s, done, _ in seen if s == "merge"]
    assert n_merges == 5  # the corpus runs out of pairs before the 6 asked for
    assert merges == [0, 1, 2, 3, 4, 5] and seen[-1][2] == 6


def test_progress_bar_on_request(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tqdm")
    ours(["abc abd abe"] * 300, 262, "gpt2", show_progress=True)
    err = capsys.readouterr().err
    assert "count pieces" in err and "merge pairs" in err
    ours(["abc abd abe"] * 300, 262, "gpt2", show_progress=False)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("call,match", [
    (lambda: ours(["abc"], 100), "vocab_size=100 is below"),
    (lambda: ours(["abc"], 300, special_tokens=["<s>", "<s>"]), "given twice"),
    (lambda: ours([], 300), "corpus is empty"),
    (lambda: ours(["", ""], 300), "corpus is empty"),
    (lambda: ours(["(unclosed"], 300, pattern="(unclosed"), "does not compile"),
    (lambda: ours(["abc"], 300, special_tokens="<s>"), "list of strings"),
    (lambda: ours(["abc"], 300, min_frequency=-1), "min_frequency"),
    (lambda: ours(["abc"], 0), "vocab_size"),
    (lambda: ours(["abc"], 300, max_token_length=0), "max_token_length"),
])
def test_bad_options_are_training_errors(call, match: str) -> None:
    with pytest.raises(bytepair.TrainingError, match=match) as info:
        call()
    assert isinstance(info.value, ValueError) and isinstance(info.value, bytepair.BytepairError)


def test_non_str_items() -> None:
    with pytest.raises(bytepair.InvalidInputError, match=r"texts\[1\] is a bytes"):
        ours(["abc", b"def"], 300)
    with pytest.raises(bytepair.InvalidInputError, match="not a single str"):
        ours("abc def", 300)


def test_lone_surrogate_trains_as_replacement_char() -> None:
    tok = ours(["ab\ud800 ab\ud800"], 300)
    assert "\ufffd".encode() in b"".join(tok.decode([i]).encode() for i in range(len(tok.get_vocab())))


def test_gpt2_names_share_the_byte_level_pre_tokenizer() -> None:
    assert resolve_pattern("gpt2").to_json()["type"] == "ByteLevel"
    assert resolve_pattern("r50k_base").to_json() == resolve_pattern("gpt2").to_json()
    assert resolve_pattern("o200k_base").to_json()["type"] == "Sequence"


def test_named_patterns_cut_as_their_encoding_and_misspelt_names_are_refused() -> None:
    """pattern="cl100k_base" cuts numbers three digits at a time as cl100k does (its \\p{N}{1,3}+ is
    written for Oniguruma, which reads the saved Split), also once HF loads the result; a name that is
    no encoding's is refused instead of being read as a literal regex; "" too."""
    tokenizers = pytest.importorskip("tokenizers")
    cl100k = bytepair.get_encoding("cl100k_base")
    text = "year 20241231 and 98765432, then  \\n  "
    assert list(bytepair.count_pieces([text], "cl100k_base").elements()) == sorted(
        cl100k.engine.split(text), key=list(bytepair.count_pieces([text], "cl100k_base").elements()).index)
    tok = bytepair.train([text] * 50, 300, pattern="cl100k_base", show_progress=False)
    assert tok.encode("20241231").tokens == ["202", "412", "31"]
    assert tokenizers.Tokenizer.from_str(tok.to_str()).encode("20241231").ids == tok.encode("20241231").ids
    for bad in ("cl100k", "GPT2", "o200k", ""):
        with pytest.raises(bytepair.TrainingError):
            bytepair.train(["hello world"], 300, pattern=bad, show_progress=False)


@pytest.mark.parametrize(("options", "error", "fragment"), [
    ({"special_tokens": None}, bytepair.TrainingError, "special_tokens must be a list"),
    ({"special_tokens": 5}, bytepair.TrainingError, "special_tokens must be a list"),
    ({"progress": 5}, bytepair.TrainingError, "progress must be a function"),
    ({"max_token_length": True}, bytepair.TrainingError, "max_token_length must be None or an int"),
])
def test_bad_training_options_are_training_errors(options: dict, error: type, fragment: str) -> None:
    with pytest.raises(error, match=fragment):
        bytepair.train(["hello world"], 300, show_progress=False, **options)
    with pytest.raises(bytepair.InvalidInputError, match="iterable of str"):
        bytepair.train(None, 300, show_progress=False)


def test_saving_to_a_folder_or_nowhere_names_the_path(tmp_path: Path) -> None:
    tok = bytepair.Tokenizer.from_encoding("r50k_base")
    for target in (tmp_path, "", tmp_path / "missing" / "x.json"):
        with pytest.raises(OSError) as info:
            tok.save(target)
        assert ".tmp" not in str(info.value) and str(info.value.filename) == str(target)
    assert list(tmp_path.iterdir()) == []
