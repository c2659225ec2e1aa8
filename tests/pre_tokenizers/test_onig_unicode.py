"""Every code point, checked against HF ``tokenizers``' regex engine (Oniguruma), and its semantics.

tokenizers runs ``Split`` patterns on Oniguruma, not on tiktoken's engine, so its Unicode version
and its reading of the syntax are proved separately from test_unicode_exhaustive.py:

1. Class tables: a ``Split(Regex(K), "removed")`` pre-tokenizer keeps exactly the text between
   the characters of K, so its offsets over all 1,112,064 code points give Oniguruma's K. The pinned
   16.0 tables, our translation and our ``Split`` must select the same characters. Where Unicode 14
   (what tokenizers used before 0.21.2) and 16 disagree, HF must side with 16.
2. Semantics: ``\\s``, ``.``, ``^``, ``$``, ``\\Z``, ``(?i:...)`` folds, possessive and repeated
   repetitions, lookarounds, empty matches, every behaviour with and without ``invert``, and string
   patterns with regex metacharacters, each compared with HF's ``Split``.
3. The pre-tokenizers of the tokenizer.json files give HF's offsets for every code point in a few
   contexts (a fast subset always; every code point under ``make soak``: about 30 minutes).
"""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bytepair import Regex
from bytepair.pre_tokenizers import BEHAVIORS, Split
from bytepair.pre_tokenizers.pattern.translate import UntranslatablePatternError, translate
from bytepair.pre_tokenizers.pattern.unicode_classes import UNICODE_VERSION, bucket_of_ranges, class_ranges

from tests.hf_reference import HF_NAMES, hf_folder

tokenizers = pytest.importorskip("tokenizers")

ALL_CHARS = "".join(chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF)
CLASSES = {"L": r"\p{L}", "Lu": r"\p{Lu}", "Ll": r"\p{Ll}", "Lt": r"\p{Lt}", "Lm": r"\p{Lm}", "Lo": r"\p{Lo}",
           "M": r"\p{M}", "N": r"\p{N}", "Nd": r"\p{Nd}", "P": r"\p{P}", "S": r"\p{S}", "White_Space": r"\s"}
NEGATIONS = [r"\S", r"\P{L}", r"\D", r"[^\s\p{L}\p{N}]", r"[^\r\n\p{L}\p{N}]", r"[\p{L}\p{M}]", r"."]


def hf_split(pattern: str, behavior: str = "isolated", invert: bool = False, regex: bool = True):
    return tokenizers.pre_tokenizers.Split(tokenizers.Regex(pattern) if regex else pattern, behavior, invert=invert)


def members_from_kept(text: str, kept: list[tuple[int, int]]) -> str:
    """The characters of ``text`` outside the ``kept`` spans: the matches of a "removed" split."""
    out, prev = [], 0
    for start, end in kept:
        out.append(text[prev:start])
        prev = end
    out.append(text[prev:])
    return "".join(out)


BLOCK = 1 << 16
"""Characters looked at per call: a class's members do not depend on their neighbours, and a million
pieces at once cost hundreds of MB per call."""


def _blocks(text: str) -> list[str]:
    return [text[i : i + BLOCK] for i in range(0, len(text), BLOCK)]


def hf_members(pattern: str, text: str = ALL_CHARS) -> str:
    split = hf_split(pattern, "removed")
    return "".join(members_from_kept(block, [span for _, span in split.pre_tokenize_str(block)]) for block in _blocks(text))


def our_members(pattern: str, text: str = ALL_CHARS) -> str:
    split = Split(Regex(pattern), "removed")
    return "".join(members_from_kept(block, [(s, e) for _, s, e in split.spans(block)]) for block in _blocks(text))


def translated_members(pattern: str, text: str = ALL_CHARS) -> str:
    compiled = re.compile(translate(pattern, dialect="onig").pattern)
    return "".join("".join(compiled.findall(block)) for block in _blocks(text))


def table_members(name: str) -> str:
    return "".join(chr(cp) for lo, hi in class_ranges(name) for cp in range(lo, hi + 1) if not 0xD800 <= cp <= 0xDFFF)


def differ(ours: str, expected: str) -> str:
    diff = sorted(set(ours) ^ set(expected))
    return f"{len(diff)} code points differ: {[hex(ord(c)) for c in diff[:20]]}"


def _stdlib_bucket(ch: str) -> str:
    category = unicodedata.category(ch)
    if category in ("Lu", "Ll", "Lt", "Lm", "Lo", "Nd", "No"):
        return category
    return {"M": "M", "N": "No", "P": "P", "S": "S"}.get(category[0], "other")


def _changed_since_stdlib() -> str:
    """Code points whose class differs between the interpreter's Unicode (14.0 on Python 3.11) and 16.0."""
    pinned = {cp: name for name, ranges in bucket_of_ranges().items() if name != "WS"
              for lo, hi in ranges for cp in range(lo, hi + 1)}
    return "".join(ch for ch in ALL_CHARS if pinned.get(ord(ch), "other") != _stdlib_bucket(ch))


CHANGED = _changed_since_stdlib()
# The fast subset: everything Unicode changed since the interpreter's tables, plus a spread sample.
SAMPLE = "".join(sorted(set(CHANGED) | set(ALL_CHARS[:0x800]) | set(ALL_CHARS[::97]), key=ord))


# ---------------------------------------------------------------- 1. the Unicode version


def test_the_sample_holds_the_unicode_changes() -> None:
    assert UNICODE_VERSION == "16.0.0"
    if unicodedata.unidata_version < "16.0.0":
        # Unicode 15 and 16 added thousands of letters (CJK extension I, Garay, Tulu-Tigalari ...).
        assert len(CHANGED) > 5000, len(CHANGED)


@pytest.mark.parametrize("pattern", [*CLASSES.values(), *NEGATIONS])
def test_classes_on_the_changed_code_points(pattern: str) -> None:
    expected = hf_members(pattern, SAMPLE)
    assert translated_members(pattern, SAMPLE) == expected, differ(translated_members(pattern, SAMPLE), expected)
    assert our_members(pattern, SAMPLE) == expected, differ(our_members(pattern, SAMPLE), expected)


def test_oniguruma_follows_unicode_16_not_14() -> None:
    letters_now, pinned_letters = set(hf_members(r"\p{L}", CHANGED)), set(table_members("L"))
    assert letters_now == {ch for ch in CHANGED if ch in pinned_letters}
    if unicodedata.unidata_version < "16.0.0":
        assert letters_now != {ch for ch in CHANGED if unicodedata.category(ch).startswith("L")}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CLASSES))
def test_pinned_tables_equal_oniguruma(name: str) -> None:
    expected = hf_members(CLASSES[name])
    assert table_members(name) == expected, differ(table_members(name), expected)
    assert translated_members(CLASSES[name]) == expected, differ(translated_members(CLASSES[name]), expected)


@pytest.mark.slow
@pytest.mark.parametrize("pattern", [*CLASSES.values(), *NEGATIONS])
def test_our_split_selects_what_oniguruma_selects(pattern: str) -> None:
    expected = hf_members(pattern)
    assert our_members(pattern) == expected, differ(our_members(pattern), expected)


# ---------------------------------------------------------------- 2. Oniguruma's semantics


def assert_same_split(pattern: str, text: str, behavior: str = "isolated", invert: bool = False,
                      regex: bool = True) -> None:
    expected = hf_split(pattern, behavior, invert, regex).pre_tokenize_str(text)
    ours = [(piece, (s, e)) for piece, s, e in Split(pattern, behavior, invert=invert, is_regex=regex).spans(text)]
    assert ours == expected, f"{pattern!r} {behavior} invert={invert} on {text!r}"
    assert [p for p, _ in ours] == Split(pattern, behavior, invert=invert, is_regex=regex).split(text)


LINES = "a\r\nb\nc\u2028d\x85e\r\n\nf\n"
SEMANTICS = [
    (r"\s", "a\x85b\ufeffc\x1cd\x1de\x1ef\x1fg\u180eh\u200bi\xa0j\u3000"),  # \s is White_Space
    (r".", LINES), (r".+", LINES),  # . excludes only \n
    (r"$", LINES), (r"x$|\r$", "ax\r\nbx\ncx"), (r"\s+$", "a \n b \r\n c  "),  # $ before any \n, or the end
    (r"^", LINES), (r"^.", LINES), (r"(?<=a)^|^b", "ab\nb"),  # ^ after any \n, or the start
    (r"x\Z", "ax\nbx\ncx\n"), (r"x\Z", "ax\nx"), (r"\Z", "ab\n"), (r"a\Z", "a\n\n"), (r"x\z", "x\nx\n"), (r"\Ax", "x\nx"),
    (r"a?+", "aaab"), (r"a*+a", "aaab"), (r"a++b", "aaab"), (r"[ab]++", "abba c"),  # possessive
    (r"a{1,3}+", "a" * 8 + "b"), (r"a{2,3}+", "a" * 8 + "b"), (r"a{2}+", "a" * 7 + "b"),  # (?:a{n,m})+
    (r"a{0,3}+", "a" * 7 + "b"), (r"a{2,}+", "a" * 7 + "b"), (r"(?:ab){2}+", "ab" * 5), (r"\p{N}{3}+", "1234567 89"),
    (r"a{,3}", "a" * 7), (r"a{2,3}?", "a" * 7), (r"\p{N}{1,3}", "12345 ٣٤٥٦"), (r"x{2}+?", "x" * 5),
    (r"a{2}?", "aaaaab"), (r"a{2}?b", "ab aab b"), (r"(?:ab){2}?c", "c abc ababc"), (r"a{2}??b", "ab aab"),
    (r"a(?=b)", "aabab"), (r"a(?!b)", "aabab"), (r"(?<=b)a", "aabab"), (r"(?<!b)a", "aabab"),
    (r"\s+(?!\S)|\s+", "a   b  \n\n c "),
    (r"a*", "baabxa"), (r"x*", "ab"), (r"(?=b)", "abab"), (r"(?:x|)", "axb"),  # empty matches cut the text
]


@pytest.mark.parametrize(("pattern", "text"), SEMANTICS)
def test_semantics_like_hf(pattern: str, text: str) -> None:
    assert_same_split(pattern, text)


@pytest.mark.parametrize("behavior", BEHAVIORS)
@pytest.mark.parametrize("invert", [False, True])
@pytest.mark.parametrize(("pattern", "text"), [
    (r"a*", "baabxa"), (r"$", "a\nb\n\nc"), (r"(?=b)", "abab"), (r"\s+(?!\S)|\s+", "a  b \n c  "),
    (r"-", "a-b--c-"), (r"-", "-"), (r"\p{P}+", "¿Qué? ¡Sí!..."), (r"x", "abc"), (r"x", ""),
])
def test_behaviors_and_invert_like_hf(pattern: str, text: str, behavior: str, invert: bool) -> None:
    assert_same_split(pattern, text, behavior, invert)


@pytest.mark.parametrize("behavior", BEHAVIORS)
@pytest.mark.parametrize("invert", [False, True])
@pytest.mark.parametrize(("pattern", "text"), [
    (".", "a.b..c"), ("a|b", "xa|bya|b"), ("\\s", "a\\sb s"), ("--", "a---b----"), ("(", "((a("), ("$", "$a$"),
    ("ab", "aaababab"), ("[a-z]+", "[a-z]+x[a-z]"),
])
def test_string_patterns_are_literal_like_hf(pattern: str, text: str, behavior: str, invert: bool) -> None:
    assert_same_split(pattern, text, behavior, invert, regex=False)


# Case-insensitive groups: Oniguruma folds a literal k to U+212A too and s to U+017F, never i to the
# Turkish U+0130/U+0131 (which stdlib re adds); bracket classes fold, bare \p{..} classes do not.
FOLD_TEXT = "kK\u212as\u017fSiI\u0130\u0131 \u01c4\u01c5\u01c6 \xe5\xc5\u212b \xdf\u1e9e ss St \ufb06 \ufb01 " \
            "\xb5\u03bc\u039c \u03c3\u03c2\u03a3 abcAB'S'T'\u017f'RE'Ll'D 'm"
FOLDS = [r"(?i:'s|'t|'re|'ve|'m|'ll|'d)", r"(?i)'s|'t", r"(?i:k)", r"(?i:s)", r"(?i:i)", r"(?i:I)", r"(?i:\x73)",
         r"(?i:[a-z])", r"(?i:[^a-z])", r"(?i:[^k])", r"(?i:[A-Z]+)", r"(?i:[ks]+)", r"(?i:\p{Lu})", r"(?i:\p{Ll})",
         r"(?i:\P{Ll})", r"(?i:'[sdmt]|ll|ve|re)", r"(?i:a(?-i:b)c)", r"(?i:'s)x|y", r"(?i:s+)", r"(?i:[ſ]|x)",
         r"(?i:\s\p{P}+)", r"(?i:[\s\p{P}]+)", r"(?i:–|\u3002)"]


@pytest.mark.parametrize("pattern", FOLDS)
def test_case_folding_like_hf(pattern: str) -> None:
    assert_same_split(pattern, FOLD_TEXT)


@pytest.mark.parametrize("pattern", [r"(?i:k)", r"(?i:s)", r"(?i:i)", r"(?i:[a-z])", r"(?i:[^a-z])",
                                     r"(?i:'s|'t|'re|'ve|'m|'ll|'d)"])
def test_case_folding_over_every_code_point(pattern: str) -> None:
    text = "'" + "'".join(ALL_CHARS)  # each character alone and after an apostrophe
    expected = hf_members(pattern, text)
    assert translated_members(pattern, text) == expected, differ(translated_members(pattern, text), expected)


@pytest.mark.slow
def test_caseless_symbols_stay_caseless_in_oniguruma() -> None:
    """What the translation keeps as is inside (?i:...): folding adds nothing to these classes."""
    for body in (r"\p{P}", r"\p{Nd}", r"\s", r"\p{S}"):
        assert hf_members(f"(?i:[{body}])") == hf_members(f"[{body}]"), body


@pytest.mark.parametrize("pattern", [r"(?i:ss)", r"(?i:'ss)", r"(?i:fi)", r"(?i:ST)", r"(?i:\x66l)", r"(?i:ß)",
                                     r"(?i:é)", r"(?i:[à-ÿ])", r"(?i:[\p{L}])", r"(?i:[^\s\p{L}])"])
def test_folds_re_cannot_express_raise(pattern: str) -> None:
    """Oniguruma matches "ss" and U+00DF alike and more such pairs; stdlib re cannot say so."""
    with pytest.raises(UntranslatablePatternError):
        translate(pattern, dialect="onig")
    with pytest.raises(UntranslatablePatternError):
        translate(pattern, dialect="onig", bmp_only=True)


def test_an_oniguruma_ligature_fold_is_real() -> None:
    # Why the patterns above must not be translated naively: HF matches the ligatures.
    assert [p for p, _ in hf_split(r"(?i:ss)").pre_tokenize_str("xßy")] == ["x", "ß", "y"]
    assert re.findall("(?i:ss)", "xßy") == []


# ---------------------------------------------------------------- 3. the tokenizer.json files


CONTEXTS = ["{}", " {}a", "a{}'S", "A{}1", "'{}'s ", "\n{}\r\n", "1{} {}!"]


def _pair(name: str):
    from bytepair import Tokenizer

    path = hf_folder(name) / "tokenizer.json"
    ref, ours = tokenizers.Tokenizer.from_file(str(path)), Tokenizer.from_file(path)
    if ref.pre_tokenizer is None:
        pytest.skip(f"{name} has no pre-tokenizer")
    return ref.pre_tokenizer, ours.pre_tokenizer


def _check_contexts(name: str, chars: str, step: int = 8192) -> None:
    ref, ours = _pair(name)
    for context in CONTEXTS:
        for start in range(0, len(chars), step):
            text = "\n".join(context.format(ch, ch) for ch in chars[start : start + step])
            if [o for _, o in ref.pre_tokenize_str(text)] != [(s, e) for _, s, e in ours.spans(text)]:
                bad = [ch for ch in chars[start : start + step]
                       if [o for _, o in ref.pre_tokenize_str(context.format(ch, ch))]
                       != [(s, e) for _, s, e in ours.spans(context.format(ch, ch))]]
                pytest.fail(f"{name} {context!r}: code points differ: {[hex(ord(c)) for c in bad[:20]]}")


@pytest.mark.parametrize("name", HF_NAMES)
def test_tokenizer_json_pre_tokenizers_on_the_sample(name: str) -> None:
    _check_contexts(name, SAMPLE)


@pytest.mark.soak
@pytest.mark.parametrize("name", HF_NAMES)
def test_tokenizer_json_pre_tokenizers_on_every_code_point(name: str) -> None:
    _check_contexts(name, ALL_CHARS)


# ---------------------------------------------------------------- Oniguruma's walk and escapes
WALK_PATTERNS = [r"\p{L}*|\s+|\p{N}+", r"a?", r"\s*", r"x*|\p{L}+", r"\R|\N+", r"\h+|\H", r"\N*", r"(?=a)|b+"]


@pytest.mark.parametrize("pattern", WALK_PATTERNS)
@settings(max_examples=150, deadline=None)
@given(text=st.text(alphabet="ab xA1\r\n\t0F9_-é🫠", max_size=30))
def test_split_walks_matches_as_oniguruma(pattern: str, text: str) -> None:
    """Patterns that can match nothing: after an empty match Oniguruma searches again one character
    on (``re`` may match longer at the same place) and skips an empty match where the last match
    ended; ``\\N`` is any character but ``\\n``, ``\\h`` a hex digit, ``\\R`` a line break (CRLF whole)."""
    tokenizers = pytest.importorskip("tokenizers")
    from bytepair.pre_tokenizers import Split

    for behavior in ("isolated", "removed", "merged_with_next"):
        ref = tokenizers.pre_tokenizers.Split(tokenizers.Regex(pattern), behavior)
        ours = Split(Regex(pattern), behavior)
        assert [(s, e) for _, s, e in ours.spans(text)] == [o for _, o in ref.pre_tokenize_str(text)], behavior
        assert ours.split(text) == [p for p, _ in ref.pre_tokenize_str(text)], behavior
