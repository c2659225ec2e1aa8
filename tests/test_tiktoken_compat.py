"""The rest of tiktoken's surface, held to tiktoken 0.14 itself: ``_encode_bytes``, ``encode_with_unstable``,
``_encode_single_piece``, ``_encode_only_native_bpe``, ``encode_to_numpy``, and the modules
``tiktoken.model`` / ``tiktoken.load`` / ``tiktoken.registry`` (as ``bytepair.model`` / ``.load`` / ``.registry``)."""

from __future__ import annotations

import hashlib
import inspect
import random
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
import bytepair.load
import bytepair.model
import bytepair.registry
from bytepair.formats import expand_to_tiktoken_text, read_packed_ranks
from bytepair.tiktoken_compat import WHITE_SPACE, MissingDependencyError

from tests.conftest import ALL_ENCODINGS, PACKAGE_DATA, corpus_texts, gpt2_file

CORPUS = corpus_texts()
MAIN = ["r50k_base", "cl100k_base", "o200k_base"]


def _utf8_cuts(data: bytes, count: int, seed: int) -> list[int]:
    """``count`` byte offsets that fall inside a multi-byte character (plus a few at boundaries)."""
    inside = [i for i in range(1, len(data)) if 0x80 <= data[i] < 0xC0]
    rng = random.Random(seed)
    boundaries = rng.sample(range(len(data)), min(3, len(data)))
    return sorted(rng.sample(inside, min(count, len(inside))) + boundaries)


# ---------------------------------------------------------------- the names themselves
def test_every_tiktoken_encoding_method_exists(tiktoken_ref):
    import tiktoken

    names = {n for n in vars(tiktoken.Encoding) if not n.startswith("__")} - {"_core_bpe"}
    assert {"_encode_bytes", "_encode_single_piece", "_encode_only_native_bpe", "encode_with_unstable"} <= names
    missing = sorted(n for n in names if not hasattr(bytepair.Encoding, n))
    assert missing == []
    for name in ("encode_to_numpy", "encode_with_unstable"):
        ours, theirs = inspect.signature(getattr(bytepair.Encoding, name)), inspect.signature(getattr(tiktoken.Encoding, name))
        assert list(ours.parameters) == list(theirs.parameters)


def test_module_names_match_tiktoken(tiktoken_ref):
    import tiktoken.load
    import tiktoken.model
    import tiktoken.registry

    for theirs, ours in ((tiktoken.load, bytepair.load), (tiktoken.model, bytepair.model)):
        public = {n for n, v in vars(theirs).items() if not n.startswith("_") and getattr(v, "__module__", theirs.__name__) == theirs.__name__}
        public |= {n for n in vars(theirs) if n.isupper()}
        assert sorted(n for n in public if not hasattr(ours, n)) == []
    for name in ("get_encoding", "list_encoding_names", "ENCODINGS"):
        assert hasattr(bytepair.registry, name)
    assert inspect.signature(bytepair.load.data_gym_to_mergeable_bpe_ranks).parameters.keys() == (
        inspect.signature(tiktoken.load.data_gym_to_mergeable_bpe_ranks).parameters.keys()
    )


# ---------------------------------------------------------------- _encode_bytes
@pytest.mark.parametrize("name", ALL_ENCODINGS)
def test_encode_bytes_of_valid_utf8_is_encode_ordinary(tiktoken_ref, name):
    enc, ref = bytepair.get_encoding(name), tiktoken_ref(name)
    for text in [*CORPUS.values(), "", "<|endoftext|> x", "a\r\n\r\n  "]:
        data = text.encode("utf-8")
        assert enc._encode_bytes(data) == ref._encode_bytes(data) == enc.encode_ordinary(text)


@pytest.mark.parametrize("name", MAIN)
def test_encode_bytes_of_truncated_corpus_text(tiktoken_ref, name):
    enc, ref = bytepair.get_encoding(name), tiktoken_ref(name)
    for seed, text in enumerate(CORPUS.values()):
        data = text[:1500].encode("utf-8")
        for cut in _utf8_cuts(data, 12, seed):
            for sample in (data[:cut], data[:cut] + b"  \n\n", data[:cut] + data[cut + 1 :]):
                ids = enc._encode_bytes(sample)
                assert ids == ref._encode_bytes(sample), (name, sample[-20:])
                assert enc.decode_bytes(ids) == sample


def test_encode_bytes_cases_from_tiktoken_and_edges(tiktoken_ref):
    enc, ref = bytepair.get_encoding("cl100k_base"), tiktoken_ref("cl100k_base")
    assert enc._encode_bytes(b" \xec\x8b\xa4\xed") == [62085]
    cases = [b"\x80" * i for i in range(10)] + [
        b"\xff",
        b"hello \xff world \xe4\xb8",
        b"   \n\n\t\t\xe2",  # the last piece is all whitespace: widened over the spaces before it
        b"<|endoftext|>\xff",  # special-token text is ordinary text here
        b"\xed\xa0\x80",  # an encoded surrogate is not UTF-8
        b"\xf4\x90\x80\x80",  # above U+10FFFF
        b"x" * 300 + b"\xc3",  # a long last piece
        bytearray(b"ab\xc3"),
    ]
    for data in cases:
        assert enc._encode_bytes(data) == ref._encode_bytes(bytes(data)), data
    with pytest.raises(TypeError):
        enc._encode_bytes("text")  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base"])
@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=64) | st.lists(st.text(max_size=8).map(str.encode) | st.binary(max_size=3), max_size=8).map(b"".join))
def test_encode_bytes_of_any_bytes(tiktoken_ref, name, data):
    enc = bytepair.get_encoding(name)
    ids = enc._encode_bytes(data)
    assert ids == tiktoken_ref(name)._encode_bytes(data)
    assert enc.decode_bytes(ids) == data


# ---------------------------------------------------------------- encode_with_unstable
def _check_unstable(enc, ref, text: str, **policy) -> None:
    stable, completions = enc.encode_with_unstable(text, **policy)
    ref_stable, ref_completions = ref.encode_with_unstable(text, **policy)
    assert stable == ref_stable, text[-30:]
    assert sorted(map(tuple, completions)) == sorted(map(tuple, ref_completions)), text[-30:]
    assert completions == sorted(completions)
    data = text.encode("utf-8")
    assert data.startswith(enc.decode_bytes(stable))
    assert all(enc.decode_bytes(stable + seq).startswith(data) for seq in completions)


@pytest.mark.parametrize("name", MAIN)
def test_encode_with_unstable_on_corpus_prefixes(tiktoken_ref, name):
    enc, ref = bytepair.get_encoding(name), tiktoken_ref(name)
    rng = random.Random(name)
    for text in CORPUS.values():
        # Cuts after whitespace make every token that starts with a space a candidate (~10^5 of them,
        # ~1 s each): those are sampled once below and in the slow test.
        cuts = [i for i in rng.sample(range(1, 600), 12) if not text[i - 1].isspace()][:4]
        for cut in cuts:
            _check_unstable(enc, ref, text[:cut])


@pytest.mark.parametrize(
    "text",
    ["hello fanta", "hello ", "x\n\n", "def f():\n  ", "  !", "12345", "héllo wörld", "日本語", "a\u3000", "🙂🙂", ""],
)
def test_encode_with_unstable_edge_cases(tiktoken_ref, text):
    _check_unstable(bytepair.get_encoding("cl100k_base"), tiktoken_ref("cl100k_base"), text)


def test_encode_with_unstable_special_tokens(tiktoken_ref):
    enc, ref = bytepair.get_encoding("cl100k_base"), tiktoken_ref("cl100k_base")
    assert enc.encode_with_unstable("hi <|endoftext|>", allowed_special="all") == ([6151, 220, 100257], [])
    for text in ("a<|endoftext|>bc", "<|fim_prefix|>x<|endoftext|>", "<|endoftext|>"):
        _check_unstable(enc, ref, text, allowed_special="all")
        _check_unstable(enc, ref, text, allowed_special={"<|endoftext|>"}, disallowed_special=())
        _check_unstable(enc, ref, text, disallowed_special=())
    with pytest.raises(bytepair.DisallowedSpecialTokenError):
        enc.encode_with_unstable("a<|endoftext|>")
    with pytest.raises(ValueError):
        ref.encode_with_unstable("a<|endoftext|>")


@pytest.mark.soak
@pytest.mark.parametrize("name", MAIN)
def test_encode_with_unstable_on_many_prefixes(tiktoken_ref, name):
    enc, ref = bytepair.get_encoding(name), tiktoken_ref(name)
    rng = random.Random(f"slow-{name}")
    for text in CORPUS.values():
        for cut in rng.sample(range(1, 2000), 10):
            _check_unstable(enc, ref, text[:cut])


def test_white_space_is_unicodes_white_space():
    import unicodedata

    # White_Space = Zs, Zl, Zp, plus these controls (PropList.txt); Python's isspace adds U+001C..U+001F.
    controls = set("\t\n\v\f\r\x85")
    expected = {chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) in ("Zs", "Zl", "Zp")} | controls
    assert WHITE_SPACE == expected


# ---------------------------------------------------------------- _encode_single_piece, _encode_only_native_bpe
@pytest.mark.parametrize("name", ALL_ENCODINGS)
def test_encode_single_piece(tiktoken_ref, name):
    enc, ref = bytepair.get_encoding(name), tiktoken_ref(name)
    words = [w for text in CORPUS.values() for w in text[:3000].split()[:40]]
    for piece in ["helloqqqq", " hello world", "<|endoftext|>", "x" * 700, "ab " * 200, *words]:
        assert enc._encode_single_piece(piece) == ref._encode_single_piece(piece), piece[:30]
        data = piece.encode("utf-8")
        assert enc._encode_single_piece(data) == ref._encode_single_piece(data)
    for data in (b"\xff\xfe", b"abc\xe4\xb8", b"\x80" * 100):
        assert enc._encode_single_piece(data) == ref._encode_single_piece(data)
    with pytest.raises(TypeError):
        enc._encode_single_piece(123)  # type: ignore[arg-type]


@settings(max_examples=150, deadline=None)
@given(data=st.binary(min_size=1, max_size=80))  # tiktoken panics on b"" (bytepair returns [])
def test_encode_single_piece_any_bytes(tiktoken_ref, data):
    assert bytepair.get_encoding("o200k_base")._encode_single_piece(data) == tiktoken_ref("o200k_base")._encode_single_piece(data)


def test_encode_single_piece_of_nothing():
    enc = bytepair.get_encoding("o200k_base")
    assert enc._encode_single_piece(b"") == enc._encode_single_piece("") == []


@pytest.mark.parametrize("name", ALL_ENCODINGS)
def test_encode_only_native_bpe(tiktoken_ref, name):
    enc, ref = bytepair.get_encoding(name), tiktoken_ref(name)
    for text in [*CORPUS.values(), "<|endoftext|>", "x" * 2000 + " " * 300]:
        ids = enc._encode_only_native_bpe(text)
        assert ids == ref._encode_only_native_bpe(text)
        assert ids == enc.encode_ordinary(text)


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=60))
def test_encode_only_native_bpe_any_text(tiktoken_ref, text):
    """tiktoken's ``_encode_only_native_bpe`` splits with the ``regex`` module, whose Unicode tables
    are newer than the 16.0 of its Rust engine: on a character assigned since (U+323B0 is a letter
    to ``regex``, unassigned to the engine) it disagrees with tiktoken's own ``encode_ordinary``.
    Ours is ``encode_ordinary``, so it equals tiktoken's ``encode_ordinary`` always, and its
    ``_encode_only_native_bpe`` wherever tiktoken agrees with itself."""
    enc, ref = bytepair.get_encoding("cl100k_base"), tiktoken_ref("cl100k_base")
    ids = enc._encode_only_native_bpe(text)
    assert ids == enc.encode_ordinary(text) == ref.encode_ordinary(text)
    native = ref._encode_only_native_bpe(text)
    if native == ref.encode_ordinary(text):
        assert ids == native


def test_encode_only_native_bpe_where_tiktoken_disagrees_with_itself(tiktoken_ref):
    enc, ref = bytepair.get_encoding("cl100k_base"), tiktoken_ref("cl100k_base")
    text = "\U000323b0/A"
    assert enc._encode_only_native_bpe(text) == ref.encode_ordinary(text) != ref._encode_only_native_bpe(text)


# ---------------------------------------------------------------- encode_to_numpy
@pytest.mark.parametrize("name", MAIN)
def test_encode_to_numpy(tiktoken_ref, name):
    np = pytest.importorskip("numpy")
    enc, ref = bytepair.get_encoding(name), tiktoken_ref(name)
    for text, policy in ((CORPUS["en"], {}), ("a<|endoftext|>b", {"allowed_special": "all"}), ("", {})):
        ours, theirs = enc.encode_to_numpy(text, **policy), ref.encode_to_numpy(text, **policy)
        assert ours.dtype == np.uint32 and ours.shape == theirs.shape
        assert ours.tolist() == theirs.tolist() == enc.encode(text, **policy)
    with pytest.raises(bytepair.DisallowedSpecialTokenError):
        enc.encode_to_numpy("<|endoftext|>")


def test_encode_to_numpy_without_numpy(monkeypatch):
    monkeypatch.setitem(sys.modules, "numpy", None)  # makes `import numpy` fail
    with pytest.raises(MissingDependencyError, match="pip install numpy") as info:
        bytepair.get_encoding("r50k_base").encode_to_numpy("hello")
    assert isinstance(info.value, ImportError) and isinstance(info.value, bytepair.BytepairError)
    assert info.value.name == "numpy"


# ---------------------------------------------------------------- bytepair.model, bytepair.registry
def test_model_tables_are_tiktokens(tiktoken_ref):
    import tiktoken.model

    assert list(bytepair.model.MODEL_TO_ENCODING.items()) == list(tiktoken.model.MODEL_TO_ENCODING.items())
    assert list(bytepair.model.MODEL_PREFIX_TO_ENCODING.items()) == list(tiktoken.model.MODEL_PREFIX_TO_ENCODING.items())
    models = [*tiktoken.model.MODEL_TO_ENCODING, *(p + "x-2025" for p in tiktoken.model.MODEL_PREFIX_TO_ENCODING)]
    for model in models:
        assert bytepair.model.encoding_name_for_model(model) == tiktoken.model.encoding_name_for_model(model)
    assert bytepair.model.encoding_for_model("gpt-4o-mini") is bytepair.get_encoding("o200k_base")
    for unknown in ("gpt-9000", "llama"):
        with pytest.raises(KeyError):
            tiktoken.model.encoding_name_for_model(unknown)
        with pytest.raises(KeyError):
            bytepair.model.encoding_name_for_model(unknown)


def test_registry_encodings_cache():
    enc = bytepair.registry.get_encoding("p50k_edit")
    assert bytepair.registry.ENCODINGS["p50k_edit"] is enc
    assert "p50k_edit" in bytepair.registry.list_encoding_names()


# ---------------------------------------------------------------- bytepair.load
@pytest.fixture
def r50k_file(tmp_path, monkeypatch):
    """The official r50k_base.tiktoken text in a file; tiktoken's cache pointed at an empty directory."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    packed = read_packed_ranks((PACKAGE_DATA / "r50k_base.bpr").read_bytes())
    path = tmp_path / "r50k_base.tiktoken"
    path.write_bytes(expand_to_tiktoken_text(packed.tokens))
    return path


def test_load_tiktoken_bpe_like_tiktoken(tiktoken_ref, r50k_file):
    import tiktoken.load

    data = r50k_file.read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    ranks = bytepair.load.load_tiktoken_bpe(str(r50k_file), expected_hash=sha)
    assert ranks == tiktoken.load.load_tiktoken_bpe(str(r50k_file), sha)
    assert bytepair.load.load_tiktoken_bpe(r50k_file.as_uri()) == ranks
    assert bytepair.load.load_tiktoken_bpe(r50k_file) == ranks  # a PathLike too
    with pytest.raises(bytepair.VocabHashMismatchError):
        bytepair.load.load_tiktoken_bpe(str(r50k_file), expected_hash="0" * 64)
    enc = bytepair.Encoding("r50k_copy", pat_str=bytepair.get_encoding("r50k_base")._pat_str, mergeable_ranks=ranks, special_tokens={})
    assert enc.encode_ordinary(CORPUS["en"]) == tiktoken_ref("r50k_base").encode_ordinary(CORPUS["en"])


def test_load_from_url_needs_the_cache(r50k_file, tmp_path):
    url = "https://openaipublic.blob.core.windows.net/encodings/r50k_base.tiktoken"
    cache_file = tmp_path / "cache" / hashlib.sha1(url.encode()).hexdigest()
    with pytest.raises(bytepair.load.NetworkUnavailableError, match="does not download") as info:
        bytepair.load.load_tiktoken_bpe(url)
    assert isinstance(info.value, OSError) and str(cache_file) in str(info.value)
    cache_file.parent.mkdir()
    cache_file.write_bytes(r50k_file.read_bytes())
    assert len(bytepair.load.load_tiktoken_bpe(url)) == 50256
    # A cached copy with the wrong hash is not used (and nothing is downloaded instead).
    with pytest.raises(bytepair.load.NetworkUnavailableError):
        bytepair.load.load_tiktoken_bpe(url, expected_hash="0" * 64)


def test_dump_tiktoken_bpe_writes_the_official_text(r50k_file, tmp_path):
    ranks = bytepair.load.load_tiktoken_bpe(r50k_file)
    shuffled = dict(random.Random(1).sample(sorted(ranks.items()), len(ranks)))
    out = tmp_path / "dumped.tiktoken"
    bytepair.load.dump_tiktoken_bpe(shuffled, str(out))
    assert out.read_bytes() == r50k_file.read_bytes()
    with pytest.raises(bytepair.load.NetworkUnavailableError):
        bytepair.load.dump_tiktoken_bpe(ranks, "az://bucket/x.tiktoken")


def test_data_gym_to_mergeable_bpe_ranks_like_tiktoken(tiktoken_ref, tmp_path, monkeypatch):
    import tiktoken.load

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # no cache: both read the local files
    vocab, encoder = tmp_path / "vocab.bpe", tmp_path / "encoder.json"
    vocab.write_bytes(gpt2_file("vocab.bpe"))
    encoder.write_bytes(gpt2_file("encoder.json"))
    ranks = bytepair.load.data_gym_to_mergeable_bpe_ranks(str(vocab), str(encoder))
    assert ranks == tiktoken.load.data_gym_to_mergeable_bpe_ranks(str(vocab), str(encoder))
    assert ranks == bytepair.get_encoding("gpt2")._mergeable_ranks
    vocab_hash = hashlib.sha256(vocab.read_bytes()).hexdigest()
    assert bytepair.load.data_gym_to_mergeable_bpe_ranks(vocab, encoder, vocab_hash, None, True) == ranks
    with pytest.raises(bytepair.VocabHashMismatchError):
        bytepair.load.data_gym_to_mergeable_bpe_ranks(str(vocab), str(encoder), vocab_bpe_hash="0" * 64)
    vocab.write_bytes(gpt2_file("vocab.bpe").replace(b"\n\xc4\xa0 t\n", b"\n", 1))  # drop the first merge
    with pytest.raises(bytepair.VocabFormatError):
        bytepair.load.data_gym_to_mergeable_bpe_ranks(str(vocab), str(encoder))


def test_special_policies_tiktoken_takes(tiktoken_ref):
    """Falsy ``disallowed_special`` (None, (), an empty set) turns the check off in tiktoken's
    ``encode``; a single name as a str is refused by both (a TypeError)."""
    ours, theirs = bytepair.get_encoding("cl100k_base"), tiktoken_ref("cl100k_base")
    text = "a <|endoftext|> b <|fim_prefix|>"
    for policy in [{"disallowed_special": None}, {"disallowed_special": ()}, {"disallowed_special": set()},
                   {"allowed_special": {"<|endoftext|>"}, "disallowed_special": ()},
                   {"allowed_special": "all"}, {"allowed_special": "all", "disallowed_special": None}]:
        assert ours.encode(text, **policy) == theirs.encode(text, **policy), policy
        # tiktoken's encode_batch turns None into a set and fails; ours takes it as encode does.
        batch_policy = {**policy, "disallowed_special": ()} if policy.get("disallowed_special", 1) is None else policy
        assert ours.encode_batch([text, "x"], **policy) == theirs.encode_batch([text, "x"], **batch_policy), policy
    for policy in [{"allowed_special": "<|endoftext|>"}, {"allowed_special": "<|endoftext|>", "disallowed_special": ()}]:
        with pytest.raises(TypeError):
            theirs.encode(text, **policy)
        with pytest.raises(TypeError, match="for that one token write"):
            ours.encode(text, **policy)


def test_count_file_takes_a_bytes_path(tmp_path):
    path = tmp_path / "a.txt"
    path.write_bytes(b"a\r\nb")
    enc = bytepair.get_encoding("o200k_base")
    assert enc.count_file(bytes(path)) == enc.count_file(path) == enc.count("a\r\nb")
