"""Hostile input natively: patterns that backtrack for ever, ids past 32 bits, caches that grow with
the input and out-of-memory failures. Each case asserts its error and its time (and memory) bound.
Chat templates have their own suite (tests/llm/test_template_limits.py), saves theirs
(tests/formats/test_atomic_saves.py); the JavaScript side is web/test/hostile.test.mjs and
tests/web/test_hostile_browser.py. The long cases are under ``make soak``.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair import Tokenizer
from bytepair.data.openai import ENCODING_SPECS
from bytepair.errors import InputTooLargeError, UnsupportedPatternError, VocabFormatError
from bytepair.pre_tokenizers.pattern.safety import MAX_PATTERN_CHARS, check_pattern

from tests.hf_reference import HF_NAMES, hf_folder

ROOT = Path(__file__).resolve().parent.parent


def tiny(pattern: str | None = "\\s+|\\S+", vocab: dict[str, int] | None = None, added: list[dict] | None = None,
         normalizer: dict | None = None) -> str:
    """A byte-level tokenizer.json with a Split ``pattern``, extra ``vocab`` entries and ``added`` tokens."""
    byte_vocab = {chr(b) if 33 <= b <= 126 or 161 <= b <= 255 and b != 173 else chr(256 + b): b for b in range(256)}
    pre = [{"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]
    if pattern is not None:
        pre.insert(0, {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False})
    return json.dumps({
        "model": {"type": "BPE", "vocab": {**byte_vocab, **(vocab or {})}, "merges": []},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": pre},
        "normalizer": normalizer,
        "added_tokens": added or [],
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
    })


# ---------------------------------------------------------------- patterns
CATASTROPHIC = [
    "(a*)*b", "(a+)+b", "(a|a)*b", "(a|ab)*c", "(?:a|ab)+c", "(a?)+b", "(\\w+\\s?)*$", "(x+x+)+y", "(.*a){2,}x",
    "(a|b|ab)*c", "([a-z]+)*$", "(\\d+)*x", "^(a+)+$", "(?:\\s*,)*\\s*$", "((ab)*)*c", "(a{1,3}){1,5}b", "(?=(a+)+b)a",
    "(?:x(?:a{1,3})+|y)z", "(?!(a|a)*$)", "(?>(a*)*b)", "(?:(a*)*b)*+", "x(?>(a|a)*y)", "(?>(?:a|ab)+c)d",
]
"""Patterns with a repeat inside a repeat or a repeated choice whose branches start alike, also
inside an atomic group or a possessive repeat (which give nothing back outside, but backtrack inside
until their first match: ``(?>(a*)*b)`` took 1.1 s on 22 characters, doubling with each)."""
POLYNOMIAL = ["a*a*a*a*a*a*b", "a*a*b", "(?:a*)(?:a*)b", "\\s*[\\r\\n]+x", "a*a+$", "a*?a*?b", "\\w+\\w+x", "[^b]*a*b",
              "a*[ab]a*c", "a*(?:a*)?b", "a*(?:a*|x)b", "(a*)(a+)$", "(?>a*a*b)", "a*a*+c", "a*(?=a*b)", "a*(?:a*b)+", "a*(?>a*)c"]
"""Two unbounded repeats that can share a run of text, before a part that can fail: n**(k-1) ways per
start for k of them (``a*a*a*a*a*a*b`` took 1.7 s to fail on 36 characters, 2.4 s on 50 in the audit)."""
SAFE = ["\\s+|\\S+", "(?:ab)+c", "(?:a|b)*c", "a*b*c", "(?>a+)+b", "(?:a*+)*b", "[^\\s]+", "\\p{L}+|\\p{N}{1,3}", "'(?:s|t|re)",
        "a{1,3}+", "x|(a+)+", "(?:a|ab)+", "a*ba*c", "\\p{L}+\\p{N}+x", "a*+a*b", "(?>a*)a*b", "\\s*[\\r\\n]+",
        "(?>a|ab)*c", "(?:a*|a+)b", "x(?>(a|a)*)y", "a*a*a*", "[a-z]*[0-9]*x"]
"""Patterns the check must let through (nothing inside a repeat can give back). Some still take
quadratic time where they fail (``a*b*c`` on a run of ``a``): as Oniguruma does, short of its
literal-first shortcuts; the check is about exponential time, which never ends."""


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_a_catastrophic_split_pattern_is_refused_at_load(pattern: str) -> None:
    start = time.perf_counter()
    with pytest.raises(UnsupportedPatternError, match=re.escape(repr(pattern)) + ".*exponential time") as caught:
        Tokenizer.from_str(tiny(pattern))
    assert time.perf_counter() - start < 1.0
    assert "pre_tokenizer" in str(caught.value)  # where in the file


@pytest.mark.parametrize("pattern", POLYNOMIAL)
def test_repeats_side_by_side_that_share_text_are_refused_at_load(pattern: str) -> None:
    start = time.perf_counter()
    with pytest.raises(UnsupportedPatternError, match=re.escape(repr(pattern)) + ".*high power of the text's length"):
        Tokenizer.from_str(tiny(pattern))
    assert time.perf_counter() - start < 1.0


@pytest.mark.parametrize("pattern", SAFE)
def test_a_safe_pattern_loads_and_ends_on_hostile_text(pattern: str) -> None:
    tok = Tokenizer.from_str(tiny(pattern))
    for text in ("a" * 3000 + "!", "ab" * 1500 + "!", " " * 3000 + "x"):  # 2**3000 steps if exponential
        start = time.perf_counter()
        assert tok.decode(tok.encode(text).ids) == text
        assert time.perf_counter() - start < 2.0, (pattern, text[:4])


def test_a_catastrophic_replace_pattern_is_refused() -> None:
    normalizer = {"type": "Replace", "pattern": {"Regex": "(a+)+b"}, "content": "x"}
    with pytest.raises(UnsupportedPatternError, match="exponential time"):
        Tokenizer.from_str(tiny(normalizer=normalizer))
    document = json.loads(tiny())  # the Replace decoder's regex goes through the same check
    document["decoder"] = {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"Regex": "(a+)+b"}, "content": "x"}]}
    with pytest.raises(UnsupportedPatternError, match=r"decoder\.decoders\[0\].*exponential time"):
        Tokenizer.from_str(json.dumps(document))


def test_a_huge_pattern_is_refused_before_it_compiles() -> None:
    start = time.perf_counter()
    with pytest.raises(UnsupportedPatternError, match=f"{MAX_PATTERN_CHARS + 1:,} characters long"):
        Tokenizer.from_str(tiny("a" * (MAX_PATTERN_CHARS + 1)))
    with pytest.raises(UnsupportedPatternError, match="characters long"):
        Tokenizer.from_str(tiny("|".join(f"w{i}" for i in range(2_000_000))))  # ~18 MB
    assert time.perf_counter() - start < 5.0


def _published_patterns() -> list[tuple[str, str]]:
    found = [(name, spec.pattern) for name, spec in ENCODING_SPECS.items()]
    for name in HF_NAMES:
        data = json.loads((hf_folder(name) / "tokenizer.json").read_text(encoding="utf-8"))

        def walk(node, where):
            if isinstance(node, dict):
                if node.get("type") in ("Split", "Replace") and isinstance(node.get("pattern"), dict) and "Regex" in node["pattern"]:
                    found.append((f"{name} {where}", node["pattern"]["Regex"]))
                for key, value in node.items():
                    walk(value, f"{where}.{key}")
            elif isinstance(node, list):
                for value in node:
                    walk(value, where)

        walk(data.get("pre_tokenizer"), "pre_tokenizer")
        walk(data.get("normalizer"), "normalizer")
        walk(data.get("decoder"), "decoder")
    return found


def test_every_published_pattern_passes_the_check_and_runs_fast_on_hostile_text() -> None:
    patterns = _published_patterns()
    assert len({p for _, p in patterns}) >= 8
    hostile = ["a" * 20_000, " " * 20_000 + "a", "1" * 20_000, "'" * 20_000, "\n \n" * 8_000, "日本" * 10_000, "a'" * 10_000]
    for origin, pattern in patterns:
        check_pattern(pattern, origin)
    for name in HF_NAMES:
        tok = Tokenizer.from_file(hf_folder(name) / "tokenizer.json")
        for text in hostile:
            start = time.perf_counter()
            tok.encode(text, add_special_tokens=False)
            assert time.perf_counter() - start < 3.0, (name, text[:8])


# The check against its own rule: a repeat that can give back may hold no other repeat that can.
ATOMS = st.sampled_from(["a", "b", "ab", "[ab]", "\\s", "x"])


def _repeat(inner: str, kind: str) -> str:
    return f"(?:{inner}){kind}"


@settings(max_examples=200, deadline=None)
@given(ATOMS, ATOMS, st.sampled_from(["*", "+", "{1,4}", "*?", "{2,}"]), st.sampled_from(["*", "+", "?", "{0,3}", "*?"]))
def test_a_repeat_of_a_repeat_is_always_refused(left: str, right: str, outer: str, inner: str) -> None:
    pattern = _repeat(left + _repeat(right, inner), outer) + "c"
    with pytest.raises(UnsupportedPatternError, match="repeat inside a repeat"):
        check_pattern(pattern, "p")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "ab", "ba", "aa", "[ab]", "\\s", "a?", "x"]), min_size=1, max_size=4),
       st.sampled_from(["*", "+", "{1,40}", "*?"]), st.booleans(), st.sampled_from(["{}", "(?>{})", "(?>{}c)", "(?:{}c)*+"]))
def test_what_the_check_lets_through_never_backtracks_exponentially(parts: list[str], outer: str, choice: bool,
                                                                     wrap: str) -> None:
    """Soundness: a repeat of a sequence or a choice, passed by the check, fails on 32 characters in
    well under a second (2**32 steps, were it exponential, would take minutes); also inside an atomic
    group or a possessive repeat, which backtrack inside as much as outside."""
    pattern = wrap.format(_repeat("|".join(parts) if choice else "".join(parts), outer)) + "c"
    try:
        check_pattern(pattern, "p")
    except UnsupportedPatternError:
        return
    compiled = re.compile(pattern)
    for text in ("a" * 32, "ab" * 16, "aab" * 11, " a" * 16):
        start = time.perf_counter()
        compiled.search(text)
        assert time.perf_counter() - start < 1.0, (pattern, text)


@pytest.mark.timing
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "[ab]", "\\s", "x", "(?:ab)", "[^x]"]),
                          st.sampled_from(["", "*", "+", "?", "*?", "*+", "{0,3}", "{2,}"])), min_size=2, max_size=5),
       st.sampled_from(["c", "$", "(?!a)", ""]))
def test_what_the_check_lets_through_is_at_most_quadratic(parts: list[tuple[str, str]], end: str) -> None:
    """Soundness of the side-by-side rule: a sequence of repeats the check passes scans 600
    characters (every start position, as a Split does) within 2 s. The slowest of 87,000 passed
    patterns drawn the same way, ``[ab]+[ab]{0,3}[^x]{0,3}a{0,3}[ab]{0,3}c``, took 0.33 s; a
    cubic one, which the check refuses (``[ab]*[ab]*[ab]*c``), takes 10-18 s. Timed by the wall
    clock, so run alone: beside the parallel suite the same scan can take twice as long."""
    pattern = "".join(atom + quantifier for atom, quantifier in parts) + end
    try:
        check_pattern(pattern, "p")
    except UnsupportedPatternError:
        return
    compiled = re.compile(pattern)
    for text in ("a" * 600, "ab" * 300, " a" * 300, "b" * 600, "a" * 599 + "x"):
        start = time.perf_counter()
        for _ in compiled.finditer(text):
            pass
        assert time.perf_counter() - start < 2.0, (pattern, text[:4])


# ---------------------------------------------------------------- ids past 32 bits
@pytest.mark.parametrize("build, message", [
    (lambda: Tokenizer.from_str(tiny(vocab={"big": 1 << 32})), "model.vocab .* 2\\*\\*32 - 1"),
    (lambda: Tokenizer.from_str(tiny(added=[{"id": 1 << 32, "content": "<s>", "special": True}])), "2\\*\\*32 - 1"),
    (lambda: bytepair.parse_tiktoken_bpe(base64.b64encode(b"a") + b" 4294967296\n"), "0..2\\*\\*32-1"),
    (lambda: bytepair.Encoding("x", pat_str="\\S+", mergeable_ranks={bytes([b]): b for b in range(256)},
                               special_tokens={"<s>": 1 << 32}), "2\\*\\*32 - 1"),
])
def test_ids_past_32_bits_are_refused_at_load(build, message: str) -> None:
    with pytest.raises(VocabFormatError, match=message):
        build()


def test_a_vocab_json_id_past_32_bits_is_refused(tmp_path: Path) -> None:
    vocab = {chr(256 + b) if b < 33 else chr(b): b for b in range(128)} | {"big": 1 << 32}
    (tmp_path / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    (tmp_path / "merges.txt").write_text("#version: 0.2\n", encoding="utf-8")
    with pytest.raises(VocabFormatError, match="2\\*\\*32 - 1"):
        Tokenizer.from_gpt2_files(tmp_path / "vocab.json", tmp_path / "merges.txt")


# ---------------------------------------------------------------- caches bounded in bytes
def test_the_packed_piece_cache_stays_under_its_byte_limit_over_300k_new_pieces() -> None:
    enc = bytepair.get_encoding("o200k_base")
    cache = enc.engine.cache
    cache.clear()
    seen = 0
    # 300,000 distinct pieces of 2-3 CJK characters: each new, each cached packed.
    for block in range(30):
        text = " ".join(chr(0x4E00 + (i * 7919) % 20000) + chr(0x4E00 + i % 20000) + chr(0x4E00 + block * 3 + i % 3)
                        for i in range(block * 10_000, (block + 1) * 10_000))
        enc.encode_to_array(text)
        seen += 10_000
        assert cache.packed.bytes <= cache.max_bytes and len(cache.packed) <= cache.max_entries, seen
        assert cache.bytes <= cache.max_bytes and len(cache) <= cache.max_entries, seen
    assert seen == 300_000
    cache.clear()
    assert (len(cache), cache.bytes, len(cache.packed), cache.packed.bytes) == (0, 0, 0, 0)


def _long_cjk_pieces(count: int, seed: int) -> str:
    """``count`` distinct pieces of a space and 200 random CJK characters (o200k_base keeps each
    whole: ~385 ids, ~3.9 KB in the cache and ~2.4 KB packed), the text that once grew RSS to 701 MB."""
    import random

    rng = random.Random(seed)
    return "".join(" " + "".join(chr(rng.randrange(0x4E00, 0xA000)) for _ in range(200)) for _ in range(count))


def test_long_new_pieces_reach_the_byte_limit_before_the_entry_limit() -> None:
    """The fast variant of the soak below: 200-character pieces fill a 1 MB cache by bytes (some
    260 entries of its 262,144), and it never holds more, packed or not."""
    enc = bytepair.get_encoding("o200k_base")
    cache = enc.engine.cache
    limit, cache.max_bytes = cache.max_bytes, 1 << 20
    try:
        cache.clear()
        most = most_packed = emptied = 0
        for block in range(8):
            before = len(cache)
            enc.encode_to_array(_long_cjk_pieces(100, block))
            emptied += len(cache) < before
            assert cache.bytes <= cache.max_bytes and cache.packed.bytes <= cache.max_bytes
            most, most_packed = max(most, cache.bytes), max(most_packed, cache.packed.bytes)
        # The byte limit was reached (looked at after each block of 100 pieces, ~390 KB) ...
        assert emptied >= 1 and most > (1 << 20) - (400 << 10), (emptied, most)
        assert len(cache) < cache.max_entries // 100  # ... long before the entry limit
        assert most_packed > (1 << 20) // 3, most_packed
    finally:
        cache.max_bytes = limit
        cache.clear()


_LONG_PIECES_RSS = """
import sys
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
import bytepair
from tests.test_hostile_input import _long_cjk_pieces

def rss_mb(field):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field)) >> 10

enc = bytepair.get_encoding("o200k_base")
cache = enc.engine.cache
enc.encode_to_array(_long_cjk_pieces(10, 99))
texts = [_long_cjk_pieces(1000, block) for block in range(30)]
start = rss_mb("VmRSS:")
most = emptied = 0
for text in texts:
    before = len(cache)
    enc.encode_to_array(text)
    emptied += len(cache) < before
    assert cache.bytes <= cache.max_bytes and cache.packed.bytes <= cache.max_bytes
    most = max(most, cache.bytes)
print(start, rss_mb("VmHWM:"), rss_mb("VmRSS:"), most, cache.max_bytes, emptied, len(cache))
"""


@pytest.mark.soak
@pytest.mark.skipif(sys.platform != "linux", reason="/proc/self/status")
def test_long_new_pieces_at_the_default_limits_keep_rss_bounded() -> None:
    """30,000 new 200-character CJK pieces through encode_to_array at the default limits (48 MB):
    the byte limit is reached (the cache is emptied), and RSS grows by under 200 MB (it grew
    644 MB before the byte limit). A few minutes: ``make soak``."""
    result = subprocess.run([sys.executable, "-c", _LONG_PIECES_RSS, str(ROOT / "core"), str(ROOT)],
                            capture_output=True, text=True, timeout=1800, env={**os.environ, "PYTHONHASHSEED": "0"})
    assert result.returncode == 0, result.stderr[-2000:]
    start, peak, end, most, limit, emptied, entries = map(int, result.stdout.split())
    assert emptied >= 1 and most > limit - (4 << 20), (most, limit, emptied)  # within one block of 1,000 pieces
    assert peak - start < 200, f"RSS {start} -> {peak} MB (peak) -> {end} MB"


def test_a_small_byte_limit_holds_too() -> None:
    from bytepair.models.piece_cache import PieceCache

    enc = bytepair.get_encoding("cl100k_base")
    cache = PieceCache(enc.engine.model, max_bytes=64 << 10)
    for i in range(20_000):
        cache.packed[f" w{i}x"]
        assert cache.packed.bytes <= 64 << 10 and cache.bytes <= 64 << 10


# ---------------------------------------------------------------- normalizer memos
def _every_character(chunk: int = 2000) -> list[str]:
    """The code points from U+0020 to U+12FFF (surrogates left out), in chunks: 75,744 distinct
    characters, more than a memo's 65,536 entries."""
    chars = [chr(c) for c in range(0x20, 0x13000) if not 0xD800 <= c < 0xE000]
    return ["".join(chars[i:i + chunk]) for i in range(0, len(chars), chunk)]


def test_normalizer_memos_are_bounded_in_bytes_and_emptied_by_the_cache_clear() -> None:
    """A Precompiled and a BertNormalizer (in a Sequence, as a tokenizer.json has them) fed every
    character keep under 24 MB of memos (their entry and character caps), and the tokenizer's one
    ``engine.cache.clear()`` gives it all back."""
    import tracemalloc

    from bytepair.formats.charsmap import CharsMap
    from bytepair.normalizers import BertNormalizer, Precompiled, Sequence

    blob = CharsMap.build({"™": "TM", "ｶ": "カ", "e\u0301": "é", "ﬃ": "ffi", "Ⅻ": "XII", "·": ""})
    tok = Tokenizer.from_str(tiny())
    tok.normalizer = Sequence([Precompiled(blob), BertNormalizer()])
    texts = _every_character()
    tracemalloc.start()
    try:
        tok.engine.cache.clear()
        base = tracemalloc.get_traced_memory()[0]
        most = 0
        for text in texts:
            tok.normalizer.normalize(text)
            tok.normalizer.normalize_aligned(text)
            most = max(most, tracemalloc.get_traced_memory()[0] - base)
        held = tracemalloc.get_traced_memory()[0] - base
        tok.engine.cache.clear()
        after = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert most < 24 << 20, f"the memos grew to {most / 2**20:.1f} MB"
    assert held > 1 << 20  # they did fill (else the test proves nothing)
    assert after < 1 << 20, f"{after / 2**20:.1f} MB left after clear()"


# ---------------------------------------------------------------- out of memory, in words
@pytest.mark.parametrize("call, words", [
    (lambda enc: enc.encode("x" * 1000), "encoding 1,000 characters: count tokens with count\\(\\)"),
    (lambda enc: enc.encode_ordinary("x" * 10), "encoding 10 characters"),
    (lambda enc: enc.encode_to_array("x" * 10), "encoding 10 characters"),
    (lambda enc: enc.count("x" * 10), "counting 10 characters: count a file with count_file\\(\\)"),
    (lambda enc: enc.encode_with_offsets("x" * 10), "encoding 10 characters with offsets: count tokens"),
    (lambda enc: enc.is_within_token_limit("x" * 10, 5), "counting 10 characters"),
    (lambda enc: enc.encode_to_numpy("x" * 10), "encoding 10 characters"),
    (lambda enc: enc.encode_batch(["x" * 10, "y"]), "encoding (10 characters|a batch of 2 texts)"),
    (lambda enc: enc.encode_ordinary_batch(["x" * 10, "y"]), "encoding (10 characters|a batch of 2 texts)"),
])
def test_a_memory_error_says_what_was_too_big_and_what_to_do(monkeypatch, call, words: str) -> None:
    enc = bytepair.get_encoding("cl100k_base")

    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(enc.engine, "piece_ids", no_memory)
    monkeypatch.setattr(enc.engine, "ids", no_memory, raising=False)
    monkeypatch.setattr(type(enc), "_ids", no_memory)
    with pytest.raises(InputTooLargeError, match=words) as caught:
        call(enc)
    assert isinstance(caught.value, MemoryError)


def test_a_decode_memory_error_says_so(monkeypatch) -> None:
    enc = bytepair.get_encoding("cl100k_base")

    class NoMemory:
        def join(self, ids):
            raise MemoryError

    monkeypatch.setattr(enc, "_table", NoMemory())
    with pytest.raises(InputTooLargeError, match="decoding 3 ids: decode the ids in parts"):
        enc.decode([1, 2, 3])


@pytest.mark.parametrize("call, words", [
    (lambda enc: enc.decode_tokens_bytes([1, 2, 3]), "decoding 3 ids: decode the ids in parts"),
    (lambda enc: enc.decode_with_offsets([1, 2, 3]), "decoding 3 ids"),
    (lambda enc: enc.decode_bytes_batch([[1, 2, 3]]), "decoding"),
    (lambda enc: enc.decode_batch([[1, 2, 3]]), "decoding"),
])
def test_every_decode_entry_point_says_what_was_too_big(monkeypatch, call, words: str) -> None:
    enc = bytepair.get_encoding("cl100k_base")

    class NoMemory:
        def join(self, ids):
            raise MemoryError

        def single(self, token):
            raise MemoryError

    monkeypatch.setattr(enc, "_table", NoMemory())
    with pytest.raises(InputTooLargeError, match=words):
        call(enc)


def test_tokenizer_entry_points_say_what_was_too_big(monkeypatch) -> None:
    tok = Tokenizer.from_encoding("cl100k_base")

    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(tok.pipeline, "ids", no_memory)
    with pytest.raises(InputTooLargeError, match="counting 10 characters"):
        tok.is_within_token_limit("x" * 10, 5)
    monkeypatch.setattr(type(tok), "decode", no_memory)
    with pytest.raises(InputTooLargeError, match="decoding a batch of 2 id lists"):
        tok.decode_batch([[1], [2]])


_LIMITED = """
import resource, sys
sys.path.insert(0, sys.argv[1])
from bytepair import Tokenizer
tok = Tokenizer.from_encoding("cl100k_base")
text = "hello world, " * 8_000_000
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[2]), int(sys.argv[2])))
try:
    tok.encode(text)
    print("encoded")
except MemoryError as exc:
    print(type(exc).__name__, exc)
print(tok.encode("still fine").ids)
"""


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS as Linux has it")
def test_running_out_of_memory_for_real_is_an_input_too_large_error() -> None:
    """A 104 MB text under a 500 MB address-space limit: the error names the size and the way out,
    and the tokenizer goes on working."""
    result = subprocess.run([sys.executable, "-c", _LIMITED, str(ROOT / "core"), str(500 << 20)],
                            capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONHASHSEED": "0"})
    lines = result.stdout.splitlines()
    assert result.returncode == 0, result.stderr[-2000:]
    assert lines[0].startswith("InputTooLargeError out of memory encoding 104,000,000 characters: count tokens with count()"), lines
    assert lines[1] == "[44466, 7060]"
