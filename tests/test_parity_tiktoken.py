"""bytepair gives exactly tiktoken 0.14's ids, for every bundled encoding, on real and hostile text."""

from __future__ import annotations

import random

import pytest

import bytepair

from tests.conftest import ALL_ENCODINGS, corpus_texts

CORPUS = corpus_texts()


def _adversarial_strings() -> dict[str, str]:
    rng = random.Random(20261122)
    alphabet = (
        "aZ09 \t\n\r'’sSdDtT/\\!?.,-_()[]{}<>|@#$%^&*~`\"\u00a0\u0085\u2028\u3000\ufeff\u200b"
        "éßİıſKµ²³¼ÅΣσς日本語한국어العربيةहिन्दी\u0301\u0308\u064b🙂👩‍👩‍👧🏳️‍🌈𝐀𝐚𝟘𠀀\U0001fae8\x00\x1c\x1f\x7f"
    )
    cases = {
        "contractions": "I'm you're he'll she'd it's 'S 'T 'RE 'Ve 'M 'LL 'D 'ſ 'K ’s don’t",
        "whitespace": " \n \n\n  \t \r\n\r\n   x  \n\t\t y \u3000\u3000z \u00a0 \u2028\u2029 \x0b\x0c \x85 \x1c\x1d ",
        "trailing_spaces": "end with spaces   ",
        "trailing_newline_spaces": "a  \n",
        "trailing_mixed_ws": "a \t \n \r\n  ",
        "numbers": "1 12 123 1234 12345 1,234,567.89 ٣٤٥ ๑๒๓ ²³ ¼½ 0x1F 3.14e-10",
        "camel": "camelCaseHTTPServerXMLHttpRequest getURLForID ABCdefGHI aBcDeF ǅungla ǈ",
        "marks": "e\u0301 a\u0308\u0308 \u0915\u094d\u0937 \u0e01\u0e34\u0e4a Z\u0351\u0352\u0353",
        "slashes": "a/b//c\n/\n//\n/ x /\n\n\n",
        "code": "def f(x):\n    return {'a': [1, 2, 3]}  # comment\n\tif x: pass\n\n\n}\n",
        "emoji": "🙂🙂🙂 👩‍👩‍👧 🏳️‍🌈 🇫🇷🇩🇪 ✌🏽 🫨🫠",
        "cjk_ext_b": "𠀀𠀁𠀂 𪚥 𫝀 漢字かなカナ",
        "bom": "\ufeffhello \ufeff world",
        "control": "\x00\x01\x02\x1b[31mred\x1b[0m\x7f",
        "long_word": "Pneumonoultramicroscopicsilicovolcanoconiosis" * 3,
        "run_x": "x" * 3000,
        "run_spaces": " " * 3000 + "x",
        "run_newlines": "\n" * 500 + "a" + "\r\n" * 300,
        "run_digits": "7" * 1000,
        "run_punct": "!?" * 800,
        "run_emoji": "🙂" * 700,
        "mixed_runs": ("ab " * 200) + ("\t" * 100) + ("日本" * 200),
    }
    for i in range(40):
        n = rng.randint(1, 120)
        cases[f"random_{i}"] = "".join(rng.choice(alphabet) for _ in range(n))
    for i in range(10):
        cases[f"random_cp_{i}"] = "".join(
            chr(cp) for cp in (rng.randint(0, 0x10FFFF) for _ in range(200)) if not 0xD800 <= cp <= 0xDFFF
        )
    return cases


ADVERSARIAL = _adversarial_strings()


@pytest.mark.parametrize("name", ALL_ENCODINGS)
@pytest.mark.parametrize("sample", sorted(CORPUS))
def test_corpus_matches_tiktoken(tiktoken_ref, name: str, sample: str) -> None:
    text = CORPUS[sample]
    assert bytepair.get_encoding(name).encode_ordinary(text) == tiktoken_ref(name).encode_ordinary(text)


@pytest.mark.parametrize("name", ALL_ENCODINGS)
def test_adversarial_matches_tiktoken(tiktoken_ref, name: str) -> None:
    enc, ref = bytepair.get_encoding(name), tiktoken_ref(name)
    mismatches = {k: v for k, v in ADVERSARIAL.items() if enc.encode_ordinary(v) != ref.encode_ordinary(v)}
    assert not mismatches, sorted(mismatches)


@pytest.mark.parametrize("name", ALL_ENCODINGS)
def test_each_corpus_line_matches_tiktoken(tiktoken_ref, name: str) -> None:
    """Line by line: short texts end in different places, which exercises `$` and lookaheads."""
    enc, ref = bytepair.get_encoding(name), tiktoken_ref(name)
    lines = [line for text in CORPUS.values() for line in text.splitlines(keepends=True)[:200]]
    assert enc.encode_ordinary_batch(lines) == ref.encode_ordinary_batch(lines)


@pytest.mark.parametrize("name", ALL_ENCODINGS)
def test_special_tokens_match_tiktoken(tiktoken_ref, name: str) -> None:
    enc, ref = bytepair.get_encoding(name), tiktoken_ref(name)
    assert enc.special_tokens_set == ref.special_tokens_set
    assert (enc.n_vocab, enc.max_token_value, enc.eot_token) == (ref.n_vocab, ref.max_token_value, ref.eot_token)
    specials = sorted(enc.special_tokens_set)
    text = "start " + " mid ".join(specials[:50]) + " end" + specials[-1] + "x<|endoftext|"
    assert enc.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")
    assert enc.encode(text, disallowed_special=()) == ref.encode(text, disallowed_special=())
    some = set(specials[:1])
    assert enc.encode(text, allowed_special=some, disallowed_special=()) == ref.encode(
        text, allowed_special=some, disallowed_special=()
    )
    for token in specials[:50]:
        assert enc.encode_single_token(token) == ref.encode_single_token(token)


@pytest.mark.parametrize("name", ALL_ENCODINGS)
def test_decode_matches_tiktoken(tiktoken_ref, name: str) -> None:
    enc, ref = bytepair.get_encoding(name), tiktoken_ref(name)
    ids = ref.encode(CORPUS["mixed"] + "".join(sorted(enc.special_tokens_set)[:5]), allowed_special="all")
    assert enc.decode_bytes(ids) == ref.decode_bytes(ids)
    assert enc.decode(ids) == ref.decode(ids)
    assert enc.decode_tokens_bytes(ids) == ref.decode_tokens_bytes(ids)
    clean = ref.encode_ordinary(CORPUS["ja"][:3000])
    assert enc.decode_with_offsets(clean) == ref.decode_with_offsets(clean)
    # Invalid UTF-8 in the middle of a token stream: both replace the same way.
    broken = ref.encode_ordinary("🙂")[:1] + ids[:20]
    assert enc.decode(broken) == ref.decode(broken)
    assert enc.token_byte_values() == ref.token_byte_values()
