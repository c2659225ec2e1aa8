"""Differential fuzz: bytepair against tiktoken 0.14 on generated hostile text, for every encoding.

Why: the parity tests check fixed samples; this one keeps generating new inputs for a fixed time and
compares every public encoding path with the reference, so a divergence that no one thought of still
turns up. Two sources of text:

* ``adversarial_text(rng)``: a seeded generator that glues together fragments of many scripts, emoji
  sequences, combining marks, digits of many scripts, every kind of whitespace, odd apostrophes,
  case changes, punctuation runs, special-token literals and near misses, lone surrogates, long
  runs and random code points from every plane;
* hypothesis strategies built from the same fragments (so hypothesis shrinks failures itself).

The budget is ``BYTEPAIR_FUZZ_SECONDS`` (default 20, the CI budget; ``make fuzz`` gives 600) and
the inputs come from ``BYTEPAIR_FUZZ_SEED`` (default fixed, so CI is reproducible). A mismatch is
shrunk by deleting chunks and reported as a minimal reproducer. Inputs on which tiktoken itself
panics (pyo3's ``PanicException`` derives from ``BaseException``) are skipped and counted. The test
prints ``inputs tried: N, mismatches: M, tiktoken crashes: K`` and writes it, with the seed and the
budget, to ``build/cache/fuzz-report.txt`` (or ``BYTEPAIR_FUZZ_REPORT``).
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

import bytepair

from tests.conftest import ALL_ENCODINGS

FUZZ_SECONDS = float(os.environ.get("BYTEPAIR_FUZZ_SECONDS") or 20)
FUZZ_SEED = int(os.environ.get("BYTEPAIR_FUZZ_SEED") or 20260806)
REPORT = Path(os.environ.get("BYTEPAIR_FUZZ_REPORT") or Path(__file__).parent.parent / "build" / "cache" / "fuzz-report.txt")
# Share of the budget for the timed loop; hypothesis gets a number of examples in proportion to the rest.
LOOP_SHARE = 0.75
HYPOTHESIS_EXAMPLES_PER_SECOND = 12
MAX_LEN = 6000
MAX_REPORTED = 5  # distinct shrunk reproducers kept per run

# ----------------------------------------------------------------------------- fragments
LATIN = ["hello", "World", "naïve", "façade", "Straße", "İstanbul", "ıi", "ǅungla", "ǈ", "ſ", "Kelvin", "æøå", "ﬁne"]
SCRIPTS = [
    "日本語のテキスト", "漢字かなカナ", "中文文本没有空格", "𠀀𠀁𪚥𫝀", "한국어 텍스트", "Привет, мир", "ЁЖИК ёжик",
    "العربية نص", "مَرْحَبًا", "हिन्दी पाठ", "क्षत्रिय", "ภาษาไทยไม่มีช่องว่าง", "Ελληνικά ΣΊΣΥΦΟΣ ς", "עִבְרִית", "ᚠᚢᚦ", "ⴰⵣⵓⵍ",
]
EMOJI = [
    "🙂", "🫠", "🫨", "👍🏽", "✌🏿", "👩‍👩‍👧‍👦", "👨🏻‍💻", "🏳️‍🌈", "🏴‍☠️", "🇫🇷🇩🇪", "1️⃣", "#️⃣", "❤️", "☺︎",
    "🧑🏾‍🤝‍🧑🏼", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "\u200d", "\ufe0f", "\U0001f3fb",
]
COMBINING = ["e\u0301", "a\u0308\u0308", "Z\u0351\u0352\u0353\u0354", "\u0301", "\u20dd", "o\u0338", "\u064b\u0651", "\u093f"]
# The zero of many decimal digit runs (Nd): ASCII, Arabic-Indic, extended, N'Ko, Devanagari, Bengali,
# Thai, Tibetan, Myanmar, Khmer, Mongolian, fullwidth, Osmanya, Adlam, mathematical bold/monospace.
DIGIT_ZEROS = [0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xE50, 0xF20, 0x1040, 0x17E0, 0x1810, 0xFF10, 0x104A0, 0x1E950, 0x1D7CE, 0x1D7F6]
OTHER_NUMBERS = ["²³", "¼½", "Ⅻ", "①②", "1,234,567.89", "3.14e-10", "0x1F", "١٢٣"]
WHITESPACE = [
    " ", "  ", "\t", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x85", "\xa0", "\u1680", "\u2000", "\u2003", "\u2009",
    "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff", "\u200b", "\u180e", "\x1c", "\x1d",
    "\x1e", "\x1f", "\n\n\n", " \n ", "\r\n\r\n", "\t\t", " \u3000 ",
]
APOSTROPHES = ["'", "’", "ʼ", "′", "＇", "`", "‘"]
SUFFIXES = ["s", "S", "t", "T", "d", "D", "m", "M", "ll", "LL", "Ll", "ve", "VE", "re", "RE", "ſ", "K"]
CASE = ["camelCase", "HTTPServer", "XMLHttpRequest", "getURLForID", "ABCdefGHI", "aBcDeF", "iPhone", "McDonald",
        "ΣΊΣΥΦΟΣ", "ǅǆǄ", "ẞß", "ᾈᾀ", "ꟻ"]
PUNCTUATION = "!?.,;:-_=+*/\\|<>()[]{}@#$%^&~`\"'"
UNICODE_PUNCTUATION = ["«»", "„“", "—", "…", "¿¡", "。、", "！？", "・", "‽", "⁂", "〜", "〈〉", "‼"]
SPECIAL_NEAR_MISSES = [
    "<|endoftext|", "<|endoftext|>>", "<<|endoftext|>", "<|endoftext", "|endoftext|>", "<|ENDOFTEXT|>",
    "<| endoftext|>", "<|endoftext |>", "<|endoftext|><|endoftext|>", "<|endoftext|<|endoftext|>", "<|", "|>",
    "<|fim_prefix", "<|fim_prefix|><|fim_suffix|>", "<|im_start|>", "<|reserved_200000|>", "<|reserved_9999999|>",
]
LONE_SURROGATES = ["\ud800", "\udbff", "\udc00", "\udfff", "\ud83d", "\ude42", "\ude42\ud83d", "\ud83d\ude42"]
CODE = ["def f(x):\n    return x", "{'a': [1, 2]}", "x += 1;", "</div>", "#!/bin/sh", "SELECT * FROM t;", "a->b", "i++"]


@cache
def special_literals() -> list[str]:
    """Every special token of every bundled encoding (o200k_harmony alone has over a thousand).

    Loaded on first use, not at import: collecting the tests should not load seven vocabularies.
    """
    found: set[str] = set()
    for name in ALL_ENCODINGS:
        found |= bytepair.get_encoding(name).special_tokens_set
    return sorted(found)


def _random_code_point(rng: random.Random) -> str:
    plane = rng.choice((0, 0, 0, 1, 1, 2, 3, 14, 15, 16))
    cp = rng.randrange(plane << 16, (plane + 1) << 16)
    return chr(cp)  # surrogates included on purpose: they are repaired, like tiktoken does


def _digits(rng: random.Random) -> str:
    zero = rng.choice(DIGIT_ZEROS)
    return "".join(chr(zero + rng.randrange(10)) for _ in range(rng.randint(1, 12)))


def _contraction(rng: random.Random) -> str:
    word = rng.choice(["", "I", "you", "he", "DON", "it", "we", "Ca", "ſ", "日本", "🙂", " "])
    return word + rng.choice(APOSTROPHES) + rng.choice(SUFFIXES) + rng.choice(["", " ", "x", "'", "\n", "s"])


def _punctuation(rng: random.Random) -> str:
    if rng.random() < 0.3:
        return rng.choice(UNICODE_PUNCTUATION) * rng.randint(1, 4)
    return "".join(rng.choice(PUNCTUATION) for _ in range(rng.randint(1, 40)))


def _special(rng: random.Random) -> str:
    return rng.choice(special_literals()) if rng.random() < 0.5 else rng.choice(SPECIAL_NEAR_MISSES)


def _long_run(rng: random.Random) -> str:
    unit = rng.choice(["a", "x", " ", "\n", "\t", "7", "!", "日", "🙂", "ab", "a ", "\r\n", "é", "\u3000", "\xa0", "'s"])
    return unit * rng.randint(100, 5000 // len(unit))


FRAGMENT_MAKERS: list[Callable[[random.Random], str]] = [
    lambda rng: rng.choice(LATIN),
    lambda rng: rng.choice(SCRIPTS),
    lambda rng: "".join(rng.choice(EMOJI) for _ in range(rng.randint(1, 5))),
    lambda rng: rng.choice(COMBINING),
    _digits,
    lambda rng: rng.choice(OTHER_NUMBERS),
    lambda rng: "".join(rng.choice(WHITESPACE) for _ in range(rng.randint(1, 6))),
    _contraction,
    lambda rng: rng.choice(CASE),
    _punctuation,
    _special,
    lambda rng: rng.choice(LONE_SURROGATES),
    lambda rng: "".join(_random_code_point(rng) for _ in range(rng.randint(1, 30))),
    lambda rng: rng.choice(CODE),
]


def adversarial_text(rng: random.Random) -> str:
    """One hostile input: mostly short glued fragments, sometimes with a long run in the middle.

    >>> text = adversarial_text(random.Random(1))
    >>> isinstance(text, str) and len(text) <= MAX_LEN
    True
    """
    parts: list[str] = []
    glue = rng.choice(["", "", " ", "\n", rng.choice(WHITESPACE)])
    for _ in range(rng.randint(1, 40)):
        parts.append(rng.choice(FRAGMENT_MAKERS)(rng))
    if rng.random() < 0.15:
        parts.insert(rng.randrange(len(parts) + 1), _long_run(rng))
    return glue.join(parts)[:MAX_LEN]


# ----------------------------------------------------------------------------- comparison
class TiktokenCrashed(Exception):
    """tiktoken raised something that is not an ordinary Exception (a Rust panic)."""


def repaired(text: str) -> str:
    """The text both libraries actually tokenize: surrogate pairs joined, lone surrogates -> U+FFFD."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _reference(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - pyo3's PanicException is a BaseException
        raise TiktokenCrashed(f"{type(exc).__name__}: {exc}") from None


def first_difference(enc: bytepair.Encoding, ref: Any, text: str) -> str | None:
    """What differs between bytepair and tiktoken on ``text`` (None if nothing does).

    Raises TiktokenCrashed if the reference itself fails on the input.
    """
    ref_ids = _reference(lambda: ref.encode(text, allowed_special="all"))
    ref_ordinary = _reference(lambda: ref.encode_ordinary(text))
    ids = enc.encode(text, allowed_special="all")
    if ids != ref_ids:
        return f"encode(allowed_special='all'): bytepair {ids[:40]} != tiktoken {ref_ids[:40]}"
    ordinary = enc.encode_ordinary(text)
    if ordinary != ref_ordinary:
        return f"encode_ordinary: bytepair {ordinary[:40]} != tiktoken {ref_ordinary[:40]}"
    if enc.encode_to_array(text, allowed_special="all").tolist() != ids:
        return "encode_to_array(allowed_special='all') differs from encode"
    if (n := enc.count(text, allowed_special="all")) != len(ids):
        return f"count {n} != len(encode) {len(ids)}"
    decoded = enc.decode_bytes(ordinary)
    if decoded != _reference(lambda: ref.decode_bytes(ref_ordinary)):
        return "decode_bytes differs from tiktoken's"
    if decoded.decode("utf-8") != repaired(text) or enc.decode(ordinary) != repaired(text):
        return "decode(encode_ordinary(text)) is not the (surrogate-repaired) text"
    return None


def shrink(text: str, fails: Callable[[str], bool]) -> str:
    """A shorter text on which ``fails`` still holds: delete chunks, halving their size down to one char.

    >>> shrink("xxxxAxxxxBxxxx", lambda s: "A" in s and "B" in s)
    'AB'
    """
    chunk = max(1, len(text) // 2)
    while True:
        i = 0
        while i < len(text):
            candidate = text[:i] + text[i + chunk :]
            if candidate != text and fails(candidate):
                text = candidate
            else:
                i += chunk
        if chunk == 1:
            return text
        chunk = max(1, chunk // 2)


class FuzzStats:
    """Counts for the summary line, and the shrunk reproducers of mismatches."""

    def __init__(self) -> None:
        self.inputs = 0
        self.crashes = 0
        self.mismatches: list[str] = []
        self.crash_examples: list[str] = []

    def line(self) -> str:
        return f"inputs tried: {self.inputs}, mismatches: {len(self.mismatches)}, tiktoken crashes: {self.crashes}"


def check_all(text: str, encodings: dict[str, tuple[bytepair.Encoding, Any]], stats: FuzzStats, origin: str) -> None:
    """Compare ``text`` under every encoding; record (shrunk) mismatches and reference crashes."""
    stats.inputs += 1
    for name, (enc, ref) in encodings.items():
        try:
            problem = first_difference(enc, ref, text)
        except TiktokenCrashed as crash:
            stats.crashes += 1
            if len(stats.crash_examples) < MAX_REPORTED:
                stats.crash_examples.append(f"{name} {origin}: {crash} on {text[:200]!a}")
            continue
        if problem is None:
            continue

        def fails(candidate: str, enc: bytepair.Encoding = enc, ref: Any = ref) -> bool:
            try:
                return first_difference(enc, ref, candidate) is not None
            except TiktokenCrashed:
                return False

        small = shrink(text, fails)
        stats.mismatches.append(
            f"[{name}] {origin}: {problem}\n"
            f"  minimal reproducer: {small!a}\n"
            f"  first difference on it: {first_difference(enc, ref, small)}\n"
            f"  reproduce: bytepair.get_encoding({name!r}).encode({small!a}, allowed_special='all')"
        )
        if len(stats.mismatches) >= MAX_REPORTED:
            return


@pytest.fixture(scope="module")
def encodings(tiktoken_ref) -> dict[str, tuple[bytepair.Encoding, Any]]:
    return {name: (bytepair.get_encoding(name), tiktoken_ref(name)) for name in ALL_ENCODINGS}


def _write_report(stats: FuzzStats, seconds: float, elapsed: float, capsys: pytest.CaptureFixture[str]) -> None:
    summary = stats.line()
    details = (
        f"{summary}\n"
        f"seed {FUZZ_SEED}, budget {seconds:g} s (loop {elapsed:.0f} s), encodings: {', '.join(ALL_ENCODINGS)}\n"
    )
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(details + "".join(f"crash: {c}\n" for c in stats.crash_examples), encoding="utf-8")
    with capsys.disabled():
        print(f"\n[fuzz] {summary} (seed {FUZZ_SEED}, {elapsed:.0f} s, {len(ALL_ENCODINGS)} encodings each)")


# ----------------------------------------------------------------------------- tests
def test_fuzz_against_tiktoken(encodings, capsys: pytest.CaptureFixture[str]) -> None:
    """Generated inputs for LOOP_SHARE of the budget, each under every encoding."""
    budget = FUZZ_SECONDS * LOOP_SHARE
    stats = FuzzStats()
    start = time.monotonic()
    # Fixed texts first: every special literal and near miss once, then the generator.
    specials = special_literals()
    fixed = [" ".join(specials[i : i + 50]) for i in range(0, len(specials), 50)] + SPECIAL_NEAR_MISSES
    for k, text in enumerate(fixed):
        check_all(text, encodings, stats, f"fixed input #{k}")
    index = 0
    while time.monotonic() - start < budget and len(stats.mismatches) < MAX_REPORTED:
        rng = random.Random(f"{FUZZ_SEED}:{index}")
        check_all(adversarial_text(rng), encodings, stats, f"BYTEPAIR_FUZZ_SEED={FUZZ_SEED} input #{index}")
        index += 1
    _write_report(stats, FUZZ_SECONDS, time.monotonic() - start, capsys)
    assert stats.inputs > len(fixed), "the budget allowed no generated input"
    assert not stats.mismatches, "bytepair differs from tiktoken:\n" + "\n".join(stats.mismatches)


def regenerate(seed: int, index: int) -> str:
    """The generated input ``index`` of a run with ``seed`` (to replay a reported one)."""
    return adversarial_text(random.Random(f"{seed}:{index}"))


def test_generator_is_seeded_and_hostile() -> None:
    """Same seed, same inputs; and the generator really produces each hazard it promises."""
    assert regenerate(7, 3) == regenerate(7, 3)
    assert regenerate(7, 3) != regenerate(8, 3)
    sample = "".join(regenerate(FUZZ_SEED, i) for i in range(400))
    for hazard in ["\r\n", "\x85", "\u2028", "\u3000", "\xa0", "\ufeff", "\u200d", "\U0001f3fd", "\u0301", "<|endoftext|",
                   "\ud800", "’", "HTTPServer", "\u0966"]:
        assert hazard in sample, hazard
    assert any(ord(ch) > 0xFFFF for ch in sample)
    assert max(len(regenerate(FUZZ_SEED, i)) for i in range(400)) > 1000  # long runs occur


def test_shrink_finds_a_minimal_reproducer() -> None:
    """The shrinker leaves only what the failure needs (here: a lone surrogate after a letter)."""
    text = regenerate(FUZZ_SEED, 0) + "a\ud800" + regenerate(FUZZ_SEED, 1)
    assert shrink(text, lambda s: "a\ud800" in s) == "a\ud800"


# Hypothesis: the same fragments, composed by hypothesis (which shrinks by itself).
fragment = st.one_of(
    st.sampled_from(LATIN + SCRIPTS + EMOJI + COMBINING + OTHER_NUMBERS + WHITESPACE + CASE + UNICODE_PUNCTUATION + CODE),
    st.sampled_from(SPECIAL_NEAR_MISSES + LONE_SURROGATES),
    st.deferred(lambda: st.sampled_from(special_literals())),
    st.builds(lambda a, s: a + s, st.sampled_from(APOSTROPHES), st.sampled_from(SUFFIXES)),
    st.text(alphabet=PUNCTUATION, min_size=1, max_size=20),
    st.integers(0, len(DIGIT_ZEROS) - 1).flatmap(
        lambda i: st.text(alphabet=[chr(DIGIT_ZEROS[i] + d) for d in range(10)], min_size=1, max_size=12)
    ),
    st.text(st.characters(codec=None, exclude_categories=()), max_size=20),  # any code point, surrogates too
)
hostile_texts = st.lists(fragment, max_size=30).map("".join)


@settings(
    max_examples=max(20, int(FUZZ_SECONDS * (1 - LOOP_SHARE) * HYPOTHESIS_EXAMPLES_PER_SECOND)),
    deadline=None,
    derandomize=False,
)
@hypothesis_seed(FUZZ_SEED)
@given(text=hostile_texts, name=st.sampled_from(ALL_ENCODINGS))
def test_hypothesis_against_tiktoken(encodings, text: str, name: str) -> None:
    enc, ref = encodings[name]
    try:
        problem = first_difference(enc, ref, text)
    except TiktokenCrashed:
        return  # tiktoken's own failure, not ours
    assert problem is None, f"{name}: {problem} on {text!a}"


class _BrokenOnIdeographicSpace:
    """An encoder with a planted bug (drops the last id when U+3000 is present), to test the harness."""

    def __init__(self, enc: bytepair.Encoding) -> None:
        self._enc = enc

    def encode(self, text: str, **kwargs: Any) -> list[int]:
        ids = self._enc.encode(text, **kwargs)
        return ids[:-1] if "\u3000" in text else ids

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._enc, attr)


def test_harness_catches_and_shrinks_a_planted_bug(encodings) -> None:
    enc, ref = encodings["cl100k_base"]
    stats = FuzzStats()
    text = "camelCase \u3000 日本語 " + "<|endoftext|>" + "x" * 300
    check_all(text, {"cl100k_base": (_BrokenOnIdeographicSpace(enc), ref)}, stats, "planted")  # type: ignore[dict-item]
    assert stats.inputs == 1 and len(stats.mismatches) == 1
    assert "minimal reproducer: '\\u3000'\n" in stats.mismatches[0]
