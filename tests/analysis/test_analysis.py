"""bytepair.analysis: fertility numbers by hand, unreachable tokens by brute force and against the
references (tiktoken, HF tokenizers), junk and number reports, `bytepair analyze`, bad input."""

from __future__ import annotations

import io
import itertools
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair import Encoding, Tokenizer
from bytepair.analysis import (
    analyze,
    count_words,
    fertility,
    junk_kind,
    read_corpus,
    script_class,
    split_alone,
    text_stats,
    to_markdown,
    unreachable_tokens,
    view_of,
    vocabulary_report,
)
from bytepair.pipeline.view import derive_merge
from bytepair.models.bpe.merge import apply_merges
from bytepair.cli import main

from tests.conftest import corpus_texts
from tests.hf_reference import hf_folder

# ---------------------------------------------------------------- fertility, by hand


def test_fertility_numbers_by_hand(tiktoken_ref):
    text = "Hello, world! 日本語です。"
    ids = tiktoken_ref("cl100k_base").encode_ordinary(text)
    stats = text_stats(text, ids)
    # words: "Hello," + "world!" + 5 characters without spaces ("。" is punctuation alone: no word)
    assert stats["words"] == 7 and stats["chars"] == 14 + 6 and stats["bytes"] == 14 + 6 * 3
    assert stats["tokens"] == len(ids)
    assert stats["tokens_per_word"] == round(len(ids) / 7, 4)
    assert stats["chars_per_token"] == round(20 / len(ids), 4)
    assert stats["bytes_per_token"] == round(32 / len(ids), 4)


def test_fertility_rows_sum_over_languages():
    corpus = {"en": "one two three", "ja": "東京", "code": "x = 1\n"}
    report = fertility(["cl100k_base", "r50k_base"], corpus)
    assert report["languages"] == ["en", "ja", "code", "all"]
    enc = bytepair.get_encoding("cl100k_base")
    rows = {(r["language"], r["tokenizer"]): r for r in report["rows"]}
    assert rows[("en", "cl100k_base")]["tokens"] == 3 and rows[("en", "cl100k_base")]["words"] == 3
    assert rows[("ja", "cl100k_base")]["words"] == 2 and rows[("code", "cl100k_base")]["words"] == 3
    total = rows[("all", "cl100k_base")]
    assert total["tokens"] == sum(len(enc.encode_ordinary(t)) for t in corpus.values())
    assert total["words"] == 8 and total["chars"] == 13 + 2 + 6
    assert json.loads(json.dumps(report)) == report


@pytest.mark.parametrize("text, words", [
    ("", 0), ("   \n\t ", 0), ("a b  c", 3), ("Hello, world!", 2), ("東京へ行く", 5), ("東京 tower", 3),
    ("AI技術", 3), ("「東京」", 2), ("ภาษาไทย", 7), ("Привет, мир", 2), ("x=1;y=2", 1),
])
def test_count_words_rule(text, words):
    assert count_words(text) == words


# ---------------------------------------------------------------- unreachable tokens


def _tiny_ranks(seed: int, alphabet: bytes = b"abc", n_merges: int = 12) -> dict[bytes, int]:
    """All 256 bytes, then random merges of two existing tokens over a small alphabet."""
    rng = random.Random(seed)
    ranks = {bytes([b]): b for b in range(256)}
    pool = [bytes([c]) for c in alphabet]
    while len(ranks) < 256 + n_merges:
        token = rng.choice(pool) + rng.choice(pool)
        if token not in ranks and len(token) <= 5:
            ranks[token] = len(ranks)
            pool.append(token)
    return ranks


def _all_inputs(alphabet: bytes, up_to: int):
    for n in range(1, up_to + 1):
        for combo in itertools.product(alphabet, repeat=n):
            yield bytes(combo)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6))
def test_unreachable_by_brute_force_token_rank(seed):
    """Every short input merged by tiktoken's rule: the tokens that ever come out are exactly those
    whose own bytes merge to themselves (the claim in vocabulary.py's docstring)."""
    ranks = _tiny_ranks(seed)
    enc = Encoding(f"tiny{seed}", pat_str=r"[a-z]+|[^a-z]+", mergeable_ranks=ranks, special_tokens={})
    produced = {i for data in _all_inputs(b"abc", 7) for i in apply_merges(data, ranks)}
    unreachable = {t["id"] for t in unreachable_tokens(enc)}
    merged = {i for t, i in ranks.items() if len(t) > 1}
    assert merged - unreachable == merged & produced
    assert not unreachable & produced
    for t in unreachable_tokens(enc):  # the whole-piece lookup still gives them for their own text
        assert t["emitted"] == "whole_piece" and enc.encode_ordinary(t["token"]) == [t["id"]]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6))
def test_unreachable_by_brute_force_pair_rank(seed):
    """The same with HF's pair-rank rule, through Tokenizer.encode of a model without pre-tokenizer."""
    rng = random.Random(seed)
    vocab = {c: i for i, c in enumerate("abc")}
    merges: list[tuple[str, str]] = []
    while len(merges) < 10:
        a, b = rng.choice(list(vocab)), rng.choice(list(vocab))
        if len(a + b) <= 5 and (a, b) not in merges:
            merges.append((a, b))
            vocab.setdefault(a + b, len(vocab))
    spec = {"model": {"type": "BPE", "vocab": vocab, "merges": [f"{a} {b}" for a, b in merges]}}
    tok = Tokenizer.from_str(json.dumps(spec))
    produced = {i for data in _all_inputs(b"abc", 7) for i in tok.encode(data.decode()).ids}
    unreachable = {t["id"] for t in unreachable_tokens(tok)}
    assert produced == set(vocab.values()) - unreachable
    assert all(t["emitted"] == "never" for t in unreachable_tokens(tok))


def test_openai_encodings_have_no_merge_unreachable_token(tiktoken_ref):
    """0 found for cl100k and o200k: checked another way, every derived merge has two parts (so
    merging with only lower ranks leaves two tokens, which then join), and spot checks with
    tiktoken's own plain merge loop (``_educational.bpe_encode``: no whole-piece lookup)."""
    educational = pytest.importorskip("tiktoken._educational")
    for name in ("cl100k_base", "o200k_base"):
        assert unreachable_tokens(name) == []
        view = view_of(name)
        assert all(len(m) == 2 for m in view.merges)
        ref = tiktoken_ref(name)
        ranks = view.face.engine.model.ranks
        for i in random.Random(0).sample(sorted(i for i in view.tokens if i >= 256), 300):
            assert educational.bpe_encode(ref._mergeable_ranks, view.tokens[i], visualise=None) == [i]
            assert derive_merge(view.tokens[i], ranks, i) == view.merges[i - 256]


def test_o200k_tokens_cut_by_the_pattern(tiktoken_ref):
    """Reachable by merging, but the pattern cuts their text when alone: each checked with tiktoken."""
    found = split_alone("o200k_base")
    ref = tiktoken_ref("o200k_base")
    assert len(found) == 12
    assert {t["token"] for t in found} >= {"亚洲AV", " I'", "\n//"}
    for t in found:
        assert ref.encode_ordinary(t["token"]) != [t["id"]]
        assert ref.decode_single_token_bytes(t["id"]) == t["token"].encode("utf-8")
    assert split_alone("cl100k_base") == []


def test_llama3_unreachable_tokens_come_only_from_whole_pieces():
    """Llama 3 sets ignore_merges: HF emits these tokens for their own text, and without that flag
    HF's merging does not reach them (checked with HF tokenizers)."""
    tokenizers = pytest.importorskip("tokenizers")
    path = hf_folder("llama3") / "tokenizer.json"
    found = unreachable_tokens(str(path))
    assert len(found) > 100 and all(t["emitted"] == "whole_piece" for t in found)
    with_flag = tokenizers.Tokenizer.from_file(str(path))
    data = json.loads(path.read_text(encoding="utf-8"))
    data["model"]["ignore_merges"] = False
    without = tokenizers.Tokenizer.from_str(json.dumps(data))
    for t in random.Random(1).sample(found, 60):
        text = bytes.fromhex(t["hex"]).decode("utf-8")
        assert with_flag.encode(text, add_special_tokens=False).ids == [t["id"]]
        assert without.encode(text, add_special_tokens=False).ids != [t["id"]]


def test_llama2_byte_fallback_tokens_never_emitted():
    """<0xNN> tokens whose byte only occurs in characters the vocabulary has: HF never emits them."""
    tokenizers = pytest.importorskip("tokenizers")
    path = hf_folder("llama2") / "tokenizer.json"
    never = {t["id"]: t["token"] for t in unreachable_tokens(str(path))}
    assert all(tok.startswith("<0x") for tok in never.values())
    assert "<0xC0>" in never.values() and "<0xFF>" in never.values()  # not in any UTF-8
    assert "<0x80>" not in never.values()  # a continuation byte of characters Llama 2 lacks
    ref = tokenizers.Tokenizer.from_file(str(path))
    rng = random.Random(2)
    pool = [c for c in range(0x80, 0x30000) if not 0xD800 <= c < 0xE000]
    chars = [chr(c) for c in range(1, 0x80)] + [chr(c) for c in rng.sample(pool, 3000)]
    emitted = set()
    for start in range(0, len(chars), 200):
        emitted.update(ref.encode(" ".join(chars[start:start + 200]), add_special_tokens=False).ids)
    assert not emitted & never.keys()
    fallback_seen = {i for i in emitted if (ref.id_to_token(i) or "").startswith("<0x")}
    assert fallback_seen  # the sample does exercise byte fallback


# ---------------------------------------------------------------- classes, junk, numbers


def _tiny_encoding(extra: list[bytes]) -> Encoding:
    ranks = {bytes([b]): b for b in range(256)}
    for token in extra:
        ranks[token] = len(ranks)
    return Encoding("junky", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})


def test_junk_detection_on_a_constructed_vocabulary():
    junk = [b"========", " ÃÂÃÂ".encode(), "Ã©".encode(), "â€™".encode(), b"!!!!!!!!!!"]
    fine = [" café".encode(), b"hello", b"!!!", " ção".encode(), "Straße".encode(), "»«".encode(), b"----"]
    report = vocabulary_report(_tiny_encoding(junk + fine))
    by_kind = {k: {e["token"] for e in v["examples"]} for k, v in report["junk"].items()}
    assert by_kind == {"punctuation_run": {"========", "!!!!!!!!!!"}, "mojibake": {" ÃÂÃÂ", "Ã©", "â€™"}}
    assert report["junk"]["mojibake"]["count"] == 3


def test_script_classes():
    assert [script_class(t) for t in (b" hello", "Ελλάδα".encode(), "東京".encode(), "ひらがな".encode(), b"\xe6",
                                      b"\n\n", b"007", b"->", "مرحبا".encode())] == [
        "LATIN", "GREEK", "CJK", "HIRAGANA", "partial-utf8", "whitespace", "digits", "other", "ARABIC"]
    assert junk_kind("naïve") is None


def test_number_report_against_tiktoken(tiktoken_ref):
    report = vocabulary_report("cl100k_base")
    numbers = report["numbers"]
    ref = tiktoken_ref("cl100k_base")
    assert numbers["single_tokens_0_999"] == {"1": 10, "2": 90, "3": 900} and numbers["max_digits"] == 3
    for sample, parts in numbers["splits"].items():
        assert parts == [ref.decode_single_token_bytes(i).decode() for i in ref.encode_ordinary(sample)]
    assert numbers["splits"]["1234567"] == ["123", "456", "7"]
    r50k = vocabulary_report("r50k_base")["numbers"]
    assert r50k["single_tokens_0_999"]["3"] == sum(1 for n in range(100, 1000) if len(tiktoken_ref("r50k_base").encode(str(n))) == 1)
    hist = report["lengths"]["histogram"]
    assert sum(h["count"] for h in hist) == report["size"] == 100256


def test_unused_tokens_on_a_corpus():
    corpus = {"en": "the cat sat on the mat"}
    report = vocabulary_report("r50k_base", corpus=corpus)
    enc = bytepair.get_encoding("r50k_base")
    seen = set(enc.encode_ordinary(corpus["en"]))
    assert report["unused"]["seen"] == len(seen)
    assert report["unused"]["count"] == 50256 - len(seen)
    assert all(t["id"] not in seen for t in report["unused"]["longest_word_like"])


# ---------------------------------------------------------------- analyze, CLI, bad input


def test_analyze_json_and_markdown(tmp_path):
    (tmp_path / "en.txt").write_text("Hello there, general Kenobi.\n", encoding="utf-8")
    (tmp_path / "zh.txt").write_text("你好，世界。\n", encoding="utf-8")
    corpus = read_corpus([tmp_path / "en.txt", tmp_path / "zh.txt"])
    report = analyze(["cl100k_base", str(hf_folder("gpt2"))], corpus=corpus, limit=3)
    assert json.loads(json.dumps(report)) == report
    assert report["fertility"]["languages"] == ["en", "zh", "all"]
    md = to_markdown(report)
    assert "## Tokens per word" in md and "| zh | 4 |" in md and "## Vocabulary of cl100k_base" in md
    out = io.BytesIO()
    code = main(["analyze", "-t", "r50k_base", "cl100k_base", "--corpus", str(tmp_path / "en.txt"), "--format", "json"], stdout=out)
    data = json.loads(out.getvalue())
    assert code == 0 and [v["name"] for v in data["vocabulary"]] == ["r50k_base", "cl100k_base"]


def test_bad_input(tmp_path):
    with pytest.raises(bytepair.EmptyCorpusError, match="no text"):
        fertility(["cl100k_base"], {})
    with pytest.raises(bytepair.EmptyCorpusError):
        read_corpus([])
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n", encoding="utf-8")
    with pytest.raises(bytepair.EmptyCorpusError):
        read_corpus([empty])
    with pytest.raises(bytepair.EmptyCorpusError, match="cannot read"):
        read_corpus([tmp_path / "missing.txt"])
    broken = tmp_path / "broken.txt.xz"
    broken.write_bytes(b"not xz at all")
    with pytest.raises(bytepair.EmptyCorpusError, match="cannot read"):
        read_corpus([broken])
    with pytest.raises(bytepair.UnknownEncodingError):
        analyze(["no_such_tokenizer"])
    assert main(["analyze", "-t", "cl100k_base", "--corpus", str(empty)], stdout=io.BytesIO()) == 2
    assert main(["analyze", "-t", "nope"], stdout=io.BytesIO()) == 2


def test_word_piece_style_bpe_gets_a_manifest_but_no_reachability():
    spec = {"model": {"type": "BPE", "vocab": {"a": 0, "##b": 1, "a##b": 2, "ab": 3}, "merges": ["a ##b"],
                      "continuing_subword_prefix": "##"}}
    tok = Tokenizer.from_str(json.dumps(spec))
    m = tok.manifest()
    assert m["model_options"]["continuing_subword_prefix"] == "##" and m["n_merges"] == 1
    assert unreachable_tokens(tok) == []


_SPLIT_ALPHABET = st.sampled_from(list("aZé日 \t\r\n\u00a0'sdlvre1234567890.,!?-_😀\u0301") + ["'s", "'ll", "  ", "\r\n", " \n "])


@settings(max_examples=400, deadline=None)
@given(st.lists(_SPLIT_ALPHABET, max_size=40).map("".join))
def test_same_split_spellings_give_the_same_pieces(text: str) -> None:
    """Each pair ``compare.SAME_SPLIT`` calls one rule splits alike, by the regex package (another
    engine than bytepair's own translation), on random text and on the corpus."""
    regex = pytest.importorskip("regex")
    from bytepair.analysis.compare import SAME_SPLIT

    for ours, theirs in SAME_SPLIT.items():
        assert regex.findall(ours, text) == regex.findall(theirs, text), (ours, text)


def test_same_split_spellings_on_the_corpus() -> None:
    regex = pytest.importorskip("regex")
    from bytepair.analysis.compare import SAME_SPLIT

    text = "".join(corpus_texts().values())
    for ours, theirs in SAME_SPLIT.items():
        assert regex.findall(ours, text) == regex.findall(theirs, text)


def test_diff_of_gpt2_file_and_encoding_is_form_only() -> None:
    """HF's GPT-2 file and tiktoken's gpt2 spell the split differently (a ByteLevel step with its
    regex against tiktoken's possessive rewrite): the same rule, so only the form differs."""
    from bytepair.analysis import compare_tokenizers

    report = compare_tokenizers(str(hf_folder("gpt2")), "gpt2")
    assert report["verdict"] == "unproven" and all(d["form_only"] for d in report["differences"])
    assert {d["what"] for d in report["differences"]} == {"merge_rule", "pre_tokenizer"}
