"""bytepair.Tokenizer against HF `tokenizers` 0.23.3 on real open-model tokenizer.json files: ids,
tokens, offsets, masks, pairs, decode, added tokens, saving, bad files (padding, truncation and the
post-processors: tests/processors/test_post_processors.py)."""

from __future__ import annotations

import gc
import hashlib
import json
import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair import Tokenizer, UnsupportedTokenizerError, VocabFormatError

from tests.conftest import corpus_texts
from tests.hf_reference import HF_NAMES, hf_folder, hf_encode_in_a_child, last_one

tokenizers = pytest.importorskip("tokenizers")


@last_one
def pair_of(name: str) -> tuple[object, Tokenizer]:
    """HF's and bytepair's tokenizer of one open model, the last one asked for: the tests are grouped
    by model (module-scoped parameters), and nine models held at once took 2.5 GB."""
    path = hf_folder(name) / "tokenizer.json"
    return tokenizers.Tokenizer.from_file(str(path)), Tokenizer.from_file(path)


SAMPLES = [
    "Hello  world!\n\n  foo", "<|endoftext|>hi<|im_start|>user\nx<|im_end|>", "<s> a </s> <unk>", " \u00a0 \t\r\n x",
    "🫠🙂👨‍👩‍👧 é e\u0301 ｶﾞ 𠀀", "", " ", "   ", "don't You'LL  THEY'RE", "<｜begin▁of▁sentence｜>x<｜end▁of▁sentence｜>",
    "def f(x):\n    return x ** 2  # comment\n", "12345678901 3.14159 ٣٤٥", "\n \n" * 50, " \t" * 40,
    "The quick brown fox, 日本語のテキスト、中文文本。Ünïcödé", "\ufeffBOM first", "a" * 400, "x\u0301\u0302y ᄀ\u1161",
]
FIELDS = ("ids", "tokens", "offsets", "special_tokens_mask", "type_ids", "attention_mask", "word_ids")


def assert_same(ref, ours, where: str) -> None:
    for field in FIELDS:
        assert list(getattr(ours, field)) == list(getattr(ref, field)), f"{where}: {field}"


@pytest.mark.parametrize("name", HF_NAMES, scope="module")
def test_ids_on_the_corpus(name: str) -> None:
    ref, ours = pair_of(name)
    for label, text in corpus_texts().items():
        for add in (False, True):
            assert ours.encode(text, add_special_tokens=add).ids == ref.encode(text, add_special_tokens=add).ids, (label, add)
        assert ours.count(text) == len(ref.encode(text, add_special_tokens=False).ids)


@pytest.mark.parametrize("name", HF_NAMES, scope="module")
def test_every_field_on_samples_and_pairs(name: str) -> None:
    ref, ours = pair_of(name)
    for text in SAMPLES + [t[:800] for t in corpus_texts().values()]:
        for pair in (None, "and a second, shorter part"):
            for add in (False, True):
                assert_same(ref.encode(text, pair, add_special_tokens=add), ours.encode(text, pair, add_special_tokens=add),
                            f"{name} {text[:30]!r} pair={pair is not None} add={add}")


@pytest.mark.parametrize("name", HF_NAMES, scope="module")
def test_decode_with_and_without_special_tokens(name: str) -> None:
    ref, ours = pair_of(name)
    for text in SAMPLES + [t[:2000] for t in corpus_texts().values()]:
        ids = ref.encode(text).ids
        for skip in (True, False):
            assert ours.decode(ids, skip_special_tokens=skip) == ref.decode(ids, skip_special_tokens=skip), (text[:30], skip)
    # Ids that split characters, and every special id.
    specials = [t.id for t in ours.get_added_tokens_decoder().values()][:50]
    odd = ref.encode("🫠 é 日本").ids[1:-1] + specials
    for skip in (True, False):
        assert ours.decode(odd, skip_special_tokens=skip) == ref.decode(odd, skip_special_tokens=skip)


_ADVERSARIAL = st.lists(
    st.sampled_from(
        ["a", "Z", " ", "  ", "\n", "\r\n", "\t", "'s", "'LL", "1", "234", "é", "e\u0301", "日本", "ー", "🙂", "👨‍👩‍👧", "\u00a0",
         "\u3000", "!", "?!", "...", "<s>", "</s>", "<|endoftext|>", "<|im_start|>", "<｜end▁of▁sentence｜>", "▁", "\x85", "ß",
         "İ", "ǅ", "𝐀", "٣", "\ufeff", "<0x41>", "Ġ"]
    ),
    max_size=40,
).map("".join)


@pytest.mark.parametrize("name", HF_NAMES, scope="module")
@settings(max_examples=15, deadline=None)
@given(text=_ADVERSARIAL, add=st.booleans())
def test_adversarial_text_property(text: str, name: str, add: bool) -> None:
    ref, ours = pair_of(name)
    r, o = ref.encode(text, add_special_tokens=add), ours.encode(text, add_special_tokens=add)
    assert o.ids == r.ids and o.tokens == r.tokens and o.special_tokens_mask == r.special_tokens_mask
    assert ours.decode(r.ids, skip_special_tokens=False) == ref.decode(r.ids, skip_special_tokens=False)


def test_added_tokens_like_hf() -> None:
    path = hf_folder("gpt2") / "tokenizer.json"
    ref, ours = tokenizers.Tokenizer.from_file(str(path)), Tokenizer.from_file(path)
    for tok in (ref, ours):
        assert tok.add_tokens(["hello world", "<new>"]) == 2
        assert tok.add_special_tokens(["<|special|>"]) == 1
        assert tok.add_tokens(["<new>"]) == 0
    assert ours.get_vocab_size() == ref.get_vocab_size() and ours.get_vocab() == ref.get_vocab()
    for text in ["say hello world<new> and <|special|>!", "hello worldhello world", "<new><new>"]:
        assert_same(ref.encode(text), ours.encode(text), text)
        ids = ref.encode(text).ids
        assert ours.decode(ids) == ref.decode(ids)
        assert ours.decode(ids, skip_special_tokens=False) == ref.decode(ids, skip_special_tokens=False)


@pytest.mark.parametrize("name, normalizer", [("llama2", None), ("gpt2", {"type": "Lowercase"}), ("gpt2", {"type": "NFKC"})])
def test_normalized_added_tokens_match_and_decode_by_their_normalized_content(name: str, normalizer) -> None:
    """HF matches a ``normalized`` added token by its content as the normalizer makes it, in the
    normalized text, and decodes it in that form: under Llama 2's Prepend("▁"), "<x>" is "▁<x>",
    so "a <x>" holds it and "a<x>" does not; under Lowercase, "HeLLo" matches "HELLO"."""
    ref = tokenizers.Tokenizer.from_file(str(hf_folder(name) / "tokenizer.json"))
    ref.add_tokens(["<x>", "HeLLo", "ﬁne"])
    ref.add_special_tokens(["<y>"])
    spec = json.loads(ref.to_str())
    if normalizer is not None:
        spec["normalizer"] = normalizer
    text = json.dumps(spec)
    ref, ours = tokenizers.Tokenizer.from_str(text), Tokenizer.from_str(text)
    samples = ["a <x> b", "a<x>", "<x>", " <x>  <x>", "say HELLO and hello", "HeLLo<x>", "a <y> b", "fine ﬁne", ""]
    rng = random.Random(5)
    parts = ["<x>", "<y>", "HeLLo", "ﬁne", " ", "  ", "a", "é", "\n", "hello"]
    samples += ["".join(rng.choice(parts) for _ in range(rng.randint(1, 7))) for _ in range(150)]
    for sample in samples:
        assert_same(ref.encode(sample), ours.encode(sample), sample)
        ids = ref.encode(sample).ids
        assert ours.decode(ids) == ref.decode(ids), sample
        assert ours.decode(ids, skip_special_tokens=False) == ref.decode(ids, skip_special_tokens=False), sample
    if name == "llama2":  # the case that went wrong: the raw "<x>" matched, after a lone "▁"
        assert ours.encode("a<x>").ids == ref.encode("a<x>").ids and ref.token_to_id("<x>") not in ref.encode("a<x>").ids


def test_decode_skips_ids_past_the_vocabulary_like_hf() -> None:
    """Qwen2.5's embedding has 151,936 rows for 151,665 ids: HF's decode (and DecodeStream) skips
    the ids past them, which a generation loop can sample; a negative id is still refused."""
    ref, ours = pair_of("qwen2_5")
    ids = [9707, 151_700, 1879, 10**9]
    assert ours.decode(ids) == ref.decode(ids) == "Hello world"
    ref_stream, our_stream = tokenizers.decoders.DecodeStream(skip_special_tokens=True), ours.decode_stream(skip_special_tokens=True)
    assert [our_stream.step(i) for i in ids] == [ref_stream.step(ref, i) for i in ids]
    with pytest.raises(bytepair.InvalidTokenError, match="-1 at position 1"):
        ours.decode([9707, -1])


@pytest.mark.parametrize("name", ["llama2", "llama3", "gpt2"], scope="module")
def test_added_token_objects_and_batch_helpers_like_hf(name: str) -> None:
    """``add_tokens`` takes HF's ``tokenizers.AddedToken`` and bytepair's ``AddedToken`` (built the
    same way) with their flags; ``num_special_tokens_to_add`` and ``encode_batch_fast`` are HF's."""
    path = hf_folder(name) / "tokenizer.json"
    ref, ours, mine = tokenizers.Tokenizer.from_file(str(path)), Tokenizer.from_file(path), Tokenizer.from_file(path)
    flagged = [tokenizers.AddedToken("<x>", lstrip=True), tokenizers.AddedToken("<y>", rstrip=True, single_word=True)]
    assert ref.add_tokens(flagged) == ours.add_tokens(flagged) == 2
    assert mine.add_tokens([bytepair.AddedToken("<x>", lstrip=True), bytepair.AddedToken("<y>", rstrip=True, single_word=True)]) == 2
    for text in ["a   <x> b", "<y>  c", "a<y>b <y> d"]:
        assert_same(ref.encode(text), ours.encode(text), text)
        assert mine.encode(text).ids == ref.encode(text).ids, text
    for pair in (False, True):
        assert ours.num_special_tokens_to_add(pair) == ref.num_special_tokens_to_add(pair)
    batch = ["hello", ("a", "b"), "<x> world"]
    assert [e.ids for e in ours.encode_batch_fast(batch)] == [e.ids for e in ref.encode_batch_fast(batch)]
    with pytest.raises(bytepair.InvalidInputError, match="str or AddedToken"):
        ours.add_tokens([42])


def test_added_token_flags_like_hf() -> None:
    base = json.loads((hf_folder("gpt2") / "tokenizer.json").read_text(encoding="utf-8"))
    base["added_tokens"] += [
        {"id": 50257, "content": "<L>", "single_word": False, "lstrip": True, "rstrip": False, "normalized": False, "special": True},
        {"id": 50258, "content": "<R>", "single_word": False, "lstrip": False, "rstrip": True, "normalized": False, "special": True},
        {"id": 50259, "content": "cat", "single_word": True, "lstrip": False, "rstrip": False, "normalized": True, "special": False},
    ]
    text = json.dumps(base)
    ref, ours = tokenizers.Tokenizer.from_str(text), Tokenizer.from_str(text)
    for sample in ["a  <L>  b  <R>  c", "cat concat cat_ cats, cat.", "<R><L>", "x <L><R> y", "  <L>"]:
        assert_same(ref.encode(sample), ours.encode(sample), sample)


@pytest.mark.parametrize("name", HF_NAMES, scope="module")
def test_to_str_round_trip(name: str, tmp_path) -> None:
    ref, ours = pair_of(name)
    path = tmp_path / "tokenizer.json"
    ours.save(path)
    text = corpus_texts()["mixed"][:3000]
    # HF reads the written file in a process of its own: a third tokenizer beside the pair (gemma3's
    # HF tokenizer alone is ~400 MB) was the peak of the test worker running this file.
    assert hf_encode_in_a_child(path, [text])[0]["ids"] == ref.encode(text).ids
    again_ours = Tokenizer.from_file(path)
    assert again_ours.encode(text).ids == ours.encode(text).ids
    written = again_ours.to_str()
    del again_ours
    assert written == ours.to_str()  # a fixed point, character for character (no parsed copies of gemma3's)


def test_from_pretrained_folder_and_no_hub(tmp_path) -> None:
    tok = Tokenizer.from_pretrained(hf_folder("qwen2_5"))
    assert tok.config is not None and "chat_template" in tok.config
    with pytest.raises(UnsupportedTokenizerError, match="hub"):
        Tokenizer.from_pretrained("meta-llama/Llama-3-8B")
    with pytest.raises(VocabFormatError, match="no tokenizer.json"):
        Tokenizer.from_pretrained(tmp_path)


def test_streaming_decode_like_hf() -> None:
    ref, ours = pair_of("llama3")
    ids = ref.encode("Streaming 🫠 décodé 日本語!").ids  # with <|begin_of_text|> first
    stream = ours.decode_stream(skip_special_tokens=True)
    pieces = [stream.step(i) for i in ids]
    assert "".join(p for p in pieces if p) == ref.decode(ids)
    for skip in ({}, {"skip_special_tokens": False}, {"skip_special_tokens": True}):  # HF's default: write them
        ref_stream, our_stream = tokenizers.decoders.DecodeStream(**skip), ours.decode_stream(**skip)
        assert [our_stream.step(i) for i in ids] == [ref_stream.step(ref, i) for i in ids], skip


# ---------------------------------------------------------------- bad files

def _minimal(**model: object) -> dict:
    return {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"], **model}}


@pytest.mark.parametrize(
    ("document", "error", "fragment"),
    [
        ('{"model": ', VocabFormatError, "truncated"),
        ("[1, 2]", VocabFormatError, "JSON object"),
        ('{"version": "1.0"}', VocabFormatError, "\"model\" is missing"),
        (json.dumps({"model": {"type": "Markov", "vocab": {}}}), UnsupportedTokenizerError, "model.type is 'Markov'"),
        (json.dumps({"model": {"type": "WordPiece", "vocab": {"a": -1}}}), VocabFormatError, "vocab"),
        (json.dumps(_minimal(merges=["a c"])), VocabFormatError, "merges[0]: 'c' is not in"),
        (json.dumps(_minimal(merges=["a b c"])), VocabFormatError, "merges[0]"),
        (json.dumps(_minimal(vocab={"a": 0, "b": 0, "ab": 2})), VocabFormatError, "id 0 is given to both"),
        (json.dumps({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 3}, "merges": ["a b"]},
                     "added_tokens": [{"id": 9, "content": "<x>"}]}), VocabFormatError, "model.vocab gives 3 to 'ab'"),
        (json.dumps({**_minimal(), "pre_tokenizer": {"type": "Syllables"}}), UnsupportedTokenizerError, "pre_tokenizer"),
        (json.dumps({**_minimal(), "normalizer": {"type": "Transliterate"}}), UnsupportedTokenizerError,
         "normalizer type 'Transliterate'"),
        (json.dumps({**_minimal(), "decoder": {"type": "Detokenize"}}), UnsupportedTokenizerError, "decoder"),
        (json.dumps({**_minimal(), "post_processor": {"type": "Nope"}}), UnsupportedTokenizerError, "post_processor"),
        (json.dumps(_minimal(unk_token="<unk>")), VocabFormatError, "unk_token"),
    ],
)
def test_bad_tokenizer_json(document: str, error: type, fragment: str) -> None:
    with pytest.raises(error) as info:
        Tokenizer.from_str(document)
    assert fragment in str(info.value)
    assert isinstance(info.value, bytepair.BytepairError) and isinstance(info.value, ValueError)


def test_bad_calls() -> None:
    _, ours = pair_of("gpt2")
    with pytest.raises(bytepair.InvalidInputError):
        ours.encode(b"bytes")
    with pytest.raises(bytepair.InvalidTokenError, match="position 1"):
        ours.decode([1, -5])
    with pytest.raises(bytepair.InvalidTokenError, match="integers"):
        ours.decode([1.5])
    with pytest.raises(bytepair.InvalidInputError):
        ours.encode_batch("not a list")
    for call, fragment in [
        (lambda: ours.add_tokens("<|mine|>"), "add_tokens(['<|mine|>'])"),  # HF: TypeError; each character otherwise
        (lambda: ours.add_special_tokens("<|mine|>"), "a string would add each of its characters"),
        (lambda: ours.add_tokens(None), "list of str or AddedToken"),
        (lambda: ours.decode(None), "sequence of integers, not NoneType"),
        (lambda: ours.decode_batch([1, 2]), "list of id lists"),
        (lambda: ours.encode_batch(None), "not NoneType"),
        (lambda: Tokenizer.from_file(None), "from_str takes its text"),
        (lambda: ours.enable_padding(pad_id="x"), "pad_id must be a non-negative int"),
        (lambda: ours.enable_padding(pad_token=5), "pad_token must be a str"),
        (lambda: ours.enable_padding(pad_to_multiple_of="8"), "pad_to_multiple_of"),
        (lambda: ours.enable_truncation(5, stride="1"), "stride must be a non-negative int"),
    ]:
        with pytest.raises(bytepair.InvalidInputError, match=None) as info:
            call()
        assert fragment in str(info.value), str(info.value)
    assert ours.get_vocab_size(True) == pair_of("gpt2")[1].get_vocab_size(True)  # nothing was added
    # Values HF refuses (OverflowError, ValueError there): InvalidArgumentError, a ValueError here.
    for call in (lambda: ours.enable_padding(length=-3), lambda: ours.enable_truncation(5, stride=-1),
                 lambda: ours.enable_truncation(3, stride=4)):
        with pytest.raises(bytepair.InvalidArgumentError) as info:
            call()
        assert isinstance(info.value, ValueError) and isinstance(info.value, bytepair.InvalidInputError)
    assert ours.padding is None and ours.truncation is None


@pytest.mark.parametrize("name", ["qwen2_5", "llama2"], scope="module")
def test_n_sequences_and_special_tokens_normalized_like_hf(name: str) -> None:
    hf, ours = pair_of(name)
    for args in [("",), ("", "x"), ("a", ""), ("a", "b"), ("x",)]:
        for add in (True, False):
            assert ours.encode(*args, add_special_tokens=add).n_sequences == hf.encode(*args, add_special_tokens=add).n_sequences, args
    first, second = ours.encode("", add_special_tokens=False), ours.encode("x", add_special_tokens=False)
    hf_first, hf_second = hf.encode("", add_special_tokens=False), hf.encode("x", add_special_tokens=False)
    assert ours.post_process(first, second).n_sequences == hf.post_process(hf_first, hf_second).n_sequences == 2
    # A special token added with normalized=True stays normalized, as in HF (under Llama 2's
    # normalizer it then matches "▁full", so " full" becomes one token).
    from tokenizers import AddedToken as HFAddedToken

    hf.add_special_tokens([HFAddedToken("full", normalized=True)])
    ours.add_special_tokens([bytepair.AddedToken("full", normalized=True)])
    assert ours.encode("a full", add_special_tokens=False).ids == hf.encode("a full", add_special_tokens=False).ids
    hf.add_tokens(["zzq"])
    ours.add_tokens(["zzq"])
    ours_flags = {t.content: (t.normalized, t.special) for t in ours.get_added_tokens_decoder().values()}
    hf_flags = {t.content: (t.normalized, t.special) for t in hf.get_added_tokens_decoder().values()}
    assert ours_flags == hf_flags


def test_cli_tokenizer_option(tmp_path) -> None:
    import subprocess
    import sys

    ref, _ = pair_of("llama3")
    text = "Count me\r\nexactly, 日本語 🫠 <|begin_of_text|>"
    path = tmp_path / "in.txt"
    path.write_bytes(text.encode())
    tokenizer_json = str(hf_folder("llama3") / "tokenizer.json")
    run = lambda *a, **kw: subprocess.run([sys.executable, "-m", "bytepair", *a], capture_output=True, **kw)  # noqa: E731
    expected = ref.encode(text, add_special_tokens=False).ids
    assert run("count", str(path), "--tokenizer", tokenizer_json).stdout == f"{len(expected)}\n".encode()
    assert json.loads(run("encode", str(path), "-t", str(hf_folder("llama3"))).stdout) == expected
    decoded = run("decode", "-t", tokenizer_json, input=json.dumps(expected).encode())
    assert decoded.stdout.decode() == ref.decode(expected, skip_special_tokens=False)
    bad = run("count", str(path), "-t", str(tmp_path / "missing.json"))
    assert bad.returncode == 1 and b"cannot read" in bad.stderr and b"Traceback" not in bad.stderr


def test_cli_tokenizer_special_flags(tmp_path) -> None:
    """With -t, --special-as-text leaves special tokens in the text (HF's encode_special_tokens),
    --allow-special is refused (added tokens always match), decode --strict refuses U+FFFD."""
    import subprocess
    import sys

    ref = tokenizers.Tokenizer.from_file(str(hf_folder("qwen2_5") / "tokenizer.json"))  # not pair_of's: changed below
    path = tmp_path / "in.txt"
    path.write_bytes(b"a<|im_end|>b")
    folder = str(hf_folder("qwen2_5"))
    run = lambda *a, **kw: subprocess.run([sys.executable, "-m", "bytepair", *a], capture_output=True, **kw)  # noqa: E731
    assert json.loads(run("encode", str(path), "-t", folder).stdout) == ref.encode("a<|im_end|>b", add_special_tokens=False).ids
    ref.encode_special_tokens = True
    as_text = ref.encode("a<|im_end|>b", add_special_tokens=False).ids
    assert json.loads(run("encode", str(path), "-t", folder, "--special-as-text").stdout) == as_text and len(as_text) > 3
    assert run("count", str(path), "-t", folder, "--special-as-text").stdout == f"{len(as_text)}\n".encode()
    refused = run("count", str(path), "-t", folder, "--allow-special", "<|im_end|>")
    assert refused.returncode == 2 and b"--special-as-text" in refused.stderr and not refused.stdout
    strict = run("decode", "-t", folder, "--strict", input=b"[9284]")  # one byte of a character: U+FFFD
    assert strict.returncode == 1 and b"U+FFFD" in strict.stderr and not strict.stdout
    assert run("decode", "-t", folder, "--strict", input=b"[9707]").stdout == b"Hello"


def _byte_level_with(normalizer: dict) -> str:
    from bytepair.text.byte_unicode import BYTE_TO_UNICODE

    vocab = {c: i for i, c in enumerate(sorted(BYTE_TO_UNICODE.values()))}
    return json.dumps({"version": "1.0", "added_tokens": [], "normalizer": normalizer,
                       "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": True},
                       "model": {"type": "BPE", "vocab": vocab, "merges": []}})


@pytest.mark.parametrize(
    "normalizer",
    [{"type": "NFC"}, {"type": "NFD"}, {"type": "NFKC"}, {"type": "NFKD"}, {"type": "Lowercase"}, {"type": "StripAccents"},
     {"type": "Strip", "strip_left": True, "strip_right": True}, {"type": "Prepend", "prepend": "▁"},
     {"type": "Replace", "pattern": {"Regex": " +"}, "content": "_"},
     {"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "StripAccents"}, {"type": "Lowercase"}]}],
    ids=lambda n: n["type"],
)
def test_offsets_through_normalizers(normalizer: dict) -> None:
    """Offsets point into the caller's text through composition, decomposition, ligatures, case
    changes that change length, and Hangul jamo."""
    text = _byte_level_with(normalizer)
    ref, ours = tokenizers.Tokenizer.from_str(text), Tokenizer.from_str(text)
    for sample in ["e\u0301 a\u0308b café", "é ﬁ ①Å ㎏", "x\u0301y  İstanbul ΣΑΣ", "ᄀ\u1161 가 한국어", "  padded  ", "plain ascii"]:
        assert_same(ref.encode(sample), ours.encode(sample), f"{normalizer['type']} {sample!r}")


_SOUP = "aeqsdA " + "".join(map(chr, (
    0x301, 0x302, 0x303, 0x307, 0x308, 0x323, 0x327, 0x31B, 0x345,  # marks of several classes (reordered)
    0x340, 0x344, 0x212B, 0x0958, 0x0F73,  # singletons, exclusions, a non-starter that decomposes
    0x1100, 0x1161, 0x11A8, 0xAC00,  # Hangul jamo and a syllable
    0xE9, 0x1EA1, 0x1E0B, 0x01C4, 0xFB01, 0x2460, 0x304B, 0x3099, 0x093C,  # composed, compatibility, kana
)))


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=_SOUP, min_size=1, max_size=12))
def test_offsets_of_mark_soups_are_hfs(text: str) -> None:
    """Stacked combining marks in any order (Unicode reorders them; HF aligns by position, not by
    which character went where), singletons, composition exclusions and jamo, under the four
    Unicode forms and a Sequence: ids and offsets as HF gives them, and the lazy offsets of an
    encode agree with its ids (they once did not: the aligned form of some soups was not NFC)."""
    for normalizer in ({"type": "NFC"}, {"type": "NFD"}, {"type": "NFKC"}, {"type": "NFKD"},
                       {"type": "Sequence", "normalizers": [{"type": "NFKD"}, {"type": "Lowercase"}, {"type": "NFC"}]}):
        ref, ours = _soup_pair(json.dumps(normalizer))
        assert_same(ref.encode(text), ours.encode(text), f"{normalizer} {text!r}")


@cache
def _soup_pair(normalizer: str) -> tuple[tokenizers.Tokenizer, Tokenizer]:
    text = _byte_level_with(json.loads(normalizer))
    return tokenizers.Tokenizer.from_str(text), Tokenizer.from_str(text)


@pytest.mark.parametrize(("name", "encoding"), [("gpt4o", "o200k_base")])
def test_openai_encoding_is_one_configuration_of_the_engine(name: str, encoding: str) -> None:
    """o200k through the tiktoken face, through Tokenizer.from_encoding (same engine, same cache),
    and HF's own o200k tokenizer.json loaded both by HF and by bytepair: four ways, one answer."""
    ref, ours_json = pair_of(name)
    enc = bytepair.get_encoding(encoding)
    tok = Tokenizer.from_encoding(encoding)
    assert tok.engine is enc.engine
    for label, text in corpus_texts().items():
        expected = ref.encode(text, add_special_tokens=False).ids
        assert enc.encode(text, allowed_special="all") == expected, label
        assert tok.encode(text, add_special_tokens=False).ids == expected, label
        assert ours_json.encode(text, add_special_tokens=False).ids == expected, label
    sample = "Offsets 🫠 and <|endoftext|> too"
    assert_same(ref.encode(sample), tok.encode(sample), "from_encoding")
    assert tok.decode(tok.encode(sample).ids, skip_special_tokens=False) == sample
    # No file behind it, but to_str writes one HF encodes alike (tests/formats/test_save_formats.py).
    assert json.loads(tok.to_str())["model"]["ignore_merges"] is True


def test_fields_are_built_on_first_read_and_agree_with_ids() -> None:
    ref, ours = pair_of("llama3")
    text = "Lazy fields: tokens, offsets, masks 🫠"
    encoded = ours.encode(text, "and a pair")
    assert "tokens" not in vars(encoded)  # only ids so far
    assert_same(ref.encode(text, "and a pair"), encoded, "lazy")
    changed = Tokenizer.from_file(hf_folder("gpt2") / "tokenizer.json")
    early = changed.encode("hello world")
    changed.add_tokens(["hello world"])
    with pytest.raises(bytepair.InvalidInputError, match="changed"):
        early.tokens


@pytest.mark.parametrize("name", ["llama2", "qwen2_5", "gpt2"], scope="module")
def test_index_lookups_like_hf(name: str) -> None:
    """char_to_token, token_to_chars, token_to_word, token_to_sequence, char_to_word, word_to_tokens
    and word_to_chars, for every index of single texts and pairs (split characters, specials, emoji)."""
    hf, ours = pair_of(name)
    for args in [("Hello wörld 🫠 ok",), ("Hello wörld 🫠 ok", "pair  text"), ("", "x y"), ("日本語 テキスト  a",)]:
        for add in (True, False):
            e, h = ours.encode(*args, add_special_tokens=add), hf.encode(*args, add_special_tokens=add)
            for i in range(len(h.ids)):
                assert (e.token_to_chars(i), e.token_to_word(i), e.token_to_sequence(i)) == (
                    h.token_to_chars(i), h.token_to_word(i), h.token_to_sequence(i)), (args, i)
            for seq in range(len(args)):
                for c in range(len(args[seq]) + 2):
                    assert (e.char_to_token(c, seq), e.char_to_word(c, seq)) == (h.char_to_token(c, seq), h.char_to_word(c, seq)), (args, c)
                for w in range(8):
                    assert (e.word_to_tokens(w, seq), e.word_to_chars(w, seq)) == (h.word_to_tokens(w, seq), h.word_to_chars(w, seq)), (args, w)


def test_a_pattern_this_runtime_cannot_run_is_unsupported_not_malformed(monkeypatch) -> None:
    """A Split regex stdlib re cannot run exactly needs the `regex` package; without it (the browser
    bundle) the file is fine but unsupported here: UnsupportedTokenizerError, and JavaScript's message
    does not tell the user to install a Python package. A broken regex stays a VocabFormatError."""
    import sys

    from bytepair.web_bridge import error_info

    monkeypatch.setitem(sys.modules, "regex", None)  # import regex now raises ImportError
    document = json.loads((hf_folder("gpt2") / "tokenizer.json").read_text(encoding="utf-8"))
    split = {"type": "Split", "pattern": {"Regex": r"\p{Sc}+|x\w+"}, "behavior": "Isolated", "invert": False}
    document["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [split, document["pre_tokenizer"]]}
    with pytest.raises(UnsupportedTokenizerError, match=r"needs|install the `regex` package") as info:
        Tokenizer.from_str(json.dumps(document))
    js = error_info(info.value)
    assert js["name"] == "UnsupportedTokenizerError" and "install" not in js["message"] and "does not ship" in js["message"]
    split["pattern"] = {"Regex": "(unclosed"}
    with pytest.raises(VocabFormatError, match="invalid pretokenization pattern"):
        Tokenizer.from_str(json.dumps(document))


@pytest.mark.parametrize("name", HF_NAMES, scope="module")
def test_normalize_str_and_pre_tokenize_str_like_hf(name: str) -> None:
    """The pipeline's stages answer HF's debugging calls the same way (pieces in the form the model
    reads: GPT-2's visible characters after a byte-level step)."""
    hf, ours = pair_of(name)
    for text in [*SAMPLES, "Hello wörld 🫠  ok", "日本語のテキスト 123456 x", "a\u0301 ｶﾞ"]:
        if hf.normalizer is not None:
            assert (ours.normalizer.normalize_str(text) if ours.normalizer else text) == hf.normalizer.normalize_str(text)
        if hf.pre_tokenizer is not None:
            assert ours.pre_tokenizer.pre_tokenize_str(text) == hf.pre_tokenizer.pre_tokenize_str(text), text


def test_added_tokens_are_numbered_as_hf_numbers_them() -> None:
    """HF reads no id from "added_tokens": a vocabulary token keeps its vocabulary id, the others are
    numbered from the vocabulary's size on; and what to_str writes loads in HF at our ids, also after
    tokens were added to a file whose vocabulary holds some added tokens (gpt-4o's)."""
    flags = {"single_word": False, "lstrip": False, "rstrip": False, "normalized": False}
    document = {**_minimal(), "added_tokens": [{"id": 1, "content": "<x>", "special": False, **flags},
                                                 {"id": 10, "content": "<y>", "special": True, **flags},
                                                 {"id": 7, "content": "ab", "special": False, **flags}]}
    ours, hf = Tokenizer.from_str(json.dumps(document)), tokenizers.Tokenizer.from_str(json.dumps(document))
    assert [ours.token_to_id(t) for t in ("<x>", "<y>", "ab")] == [hf.token_to_id(t) for t in ("<x>", "<y>", "ab")] == [3, 4, 2]
    assert ours.encode("ab<y><x>").ids == hf.encode("ab<y><x>").ids
    for name in ("gpt4o", "qwen2_5"):
        ours = Tokenizer.from_file(hf_folder(name) / "tokenizer.json")
        ours.add_tokens(["newtok"])
        ours.add_special_tokens(["<|mine|>"])
        reloaded = tokenizers.Tokenizer.from_str(ours.to_str())
        assert reloaded.get_vocab(True) == ours.get_vocab(True)
        text = "a newtok <|mine|> <|endoftext|>"
        assert reloaded.encode(text).ids == ours.encode(text).ids


def _digests(json_text: str) -> dict[str, str]:
    """sha256 of the canonical JSON of a tokenizer.json's parts: the model, its vocabulary and merges,
    and everything but the model."""
    tree = json.loads(json_text)

    def digest(value: object) -> str:
        return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode()).hexdigest()

    model = tree.pop("model")
    return {"model": digest(model), "vocab": digest(model.get("vocab")), "merges": digest(model.get("merges")),
            "not model": digest(tree)}


@pytest.mark.parametrize("name", HF_NAMES, scope="module")
def test_packed_form_loads_to_the_same_tokenizer(name: str) -> None:
    from bytepair.pipeline.packed_tokenizer import pack_tokenizer_json, read_packed_tokenizer, unpack_to_json

    ref, ours = pair_of(name)
    sample = corpus_texts()["mixed"][:4000] + " <|endoftext|> 🫠"
    expected = ref.encode(sample).ids
    assert ours.encode(sample).ids == expected
    own_packed, short = ours.to_packed(), ours.encode("x <|endoftext|> y").ids
    # The last test of each model (it stands last in this file): the pair goes now, before the file
    # is packed (a parsed tree), another copy loaded and the JSON trees compared (gemma3's trees are
    # ~250 MB each, beside the pair's ~550 MB).
    del ref, ours
    pair_of.cache_clear()
    gc.collect()
    assert Tokenizer.from_buffer(own_packed).encode("x <|endoftext|> y").ids == short
    text = (hf_folder(name) / "tokenizer.json").read_text(encoding="utf-8")
    packed = pack_tokenizer_json(text)
    del own_packed
    again = Tokenizer.from_parts(read_packed_tokenizer(packed))
    assert again.encode(sample).ids == expected
    written = again.to_str()
    del again
    # The JSON trees are compared by digests of their canonical form, one tree alive at a time
    # (gemma3's are ~250 MB each).
    text_size = len(text.encode())
    original = _digests(text)
    del text
    assert _digests(written)["model"] == original["model"]  # written back whole, vocabulary and merges too
    del written
    back = _digests(unpack_to_json(packed))
    assert back["vocab"] == original["vocab"] and back["merges"] == original["merges"]
    assert back["not model"] == original["not model"]
    assert len(packed) < text_size // 2
    damaged = bytearray(packed)
    damaged[-20] ^= 0xFF
    with pytest.raises(bytepair.VocabFormatError):
        read_packed_tokenizer(bytes(damaged))
