"""``bytepair.NormalizedString`` and ``bytepair.PreTokenizedString`` against HF ``tokenizers`` 0.23.3:
the same calls on random text (accents, combining marks, CJK, emoji, whitespace runs) give the same
normalized text, the same originals, and the same place in the original for every character
(read through ``PreTokenizedString.get_splits`` of one-character slices, in bytes and in
characters, of the original and of the normalized text); slicing, ``split`` with every behaviour
and ``replace`` with strings and regexes, HF's quirks included (``ns[-1]`` counts from the length in
bytes; an empty pattern; empty regex matches).

HF panics (and a panic in a callback aborts the process) where an edit reaches past the end of its
alignments; bytepair raises ``InvalidInputError`` there, so an example bytepair refuses is not run on
HF."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair import NormalizedString, PreTokenizedString, Regex

tokenizers = pytest.importorskip("tokenizers")

ALPHABET = "aAbzéÉe\u0301\u0327\u0308\u0323\u0307ΣσςßİǅﬁŉΩ①中文日本語한🫠👍🏽\u200d \t\n\u3000\x1c\u00a0-_."
TEXT = st.text(st.sampled_from(ALPHABET), max_size=12) | st.text(
    st.characters(codec="utf-8", categories=["L", "M", "N", "P", "S", "Zs"]), max_size=10)
OPS: list[Any] = [
    "nfd", "nfkd", "nfc", "nfkc", "lowercase", "uppercase", "strip", "lstrip", "rstrip", "clear",
    ("replace", " ", "_"), ("replace", "e", "EE"), ("replace", "ab", ""), ("replace", "\u0301", ""),
    ("replace", Regex(r"\s+"), " "), ("replace", Regex(r"\p{Han}"), "漢字"),
    ("prepend", "▁"), ("prepend", "ab"), ("append", "!?"), ("append", ""),
    ("map", lambda c: c.upper()[0]), ("filter", lambda c: not c.isspace()), ("filter", lambda c: c not in "e\u0301"),
]
LAST_OPS: list[Any] = [("replace", Regex("x*"), "-"), ("replace", Regex(""), "|")]  # (0, 0) alignments: last only
BEHAVIORS = ["removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous"]
PATTERNS: list[Any] = [" ", "-", "e\u0301", "", "ab", Regex(r"\s+"), Regex("x*"), Regex(r"\p{L}+"), Regex("")]
RANGES: list[Any] = [0, 1, 2, -1, -2, -30, 40, (0, 2), (2, 1), (1, 1), (0, 0), (3, 30), slice(None), slice(1, None),
                     slice(-3, None), slice(None, 2), slice(4, 1), slice(2, 2), slice(None, None, -1), slice(-100, 100)]


def _hf_arg(arg: Any) -> Any:
    return tokenizers.Regex(arg.pattern) if isinstance(arg, Regex) else arg


def apply(ns: Any, ops: list[Any], hf: bool) -> None:
    for op in ops:
        if isinstance(op, str):
            getattr(ns, op)()
        else:
            name, *args = op
            getattr(ns, name)(*[_hf_arg(a) if hf else a for a in args])


def observed(pretok_type: type, text: str, ops: list[Any], hf: bool) -> tuple:
    """What the calls give: the text, then each character's place, in every referential and unit."""
    pretok = pretok_type(text)
    pretok.normalize(lambda ns: apply(ns, ops, hf))
    whole = [(s, o) for s, o, _ in pretok.get_splits("original", "byte")]
    pretok.split(lambda i, ns: [ns[k:k + 1] for k in range(len(str(ns)))])
    return (whole, *(pretok.get_splits(ref, unit) for ref in ("original", "normalized") for unit in ("byte", "char")))


def both(run: Any) -> tuple[Any, Any] | None:
    """``run(hf)`` for bytepair, then for HF unless bytepair refused (where HF panics)."""
    try:
        ours = run(False)
    except bytepair.InvalidInputError:
        return None
    return run(True), ours


@settings(max_examples=400, deadline=None)
@given(text=TEXT, ops=st.lists(st.sampled_from(OPS), min_size=1, max_size=4), last=st.sampled_from([None, *LAST_OPS]))
def test_edits_align_as_hfs(text: str, ops: list[Any], last: Any) -> None:
    ops = ops + ([last] if last else [])
    found = both(lambda hf: observed(tokenizers.PreTokenizedString if hf else PreTokenizedString, text, ops, hf))
    if found is not None:
        assert found[1] == found[0]


@settings(max_examples=300, deadline=None)
@given(text=TEXT, ops=st.lists(st.sampled_from(OPS), max_size=2), pattern=st.sampled_from(PATTERNS),
       behavior=st.sampled_from(BEHAVIORS))
def test_split_as_hfs(text: str, ops: list[Any], pattern: Any, behavior: str) -> None:
    def run(hf: bool) -> Any:
        ns = (tokenizers.NormalizedString if hf else NormalizedString)(text)
        apply(ns, ops, hf)
        return [(p.normalized, p.original) for p in ns.split(_hf_arg(pattern) if hf else pattern, behavior)]
    found = both(run)
    if found is not None:
        assert found[1] == found[0]


@settings(max_examples=300, deadline=None)
@given(text=TEXT, ops=st.lists(st.sampled_from(OPS), max_size=2), where=st.sampled_from(RANGES))
def test_slices_as_hfs(text: str, ops: list[Any], where: Any) -> None:
    def run(hf: bool) -> Any:
        ns = (tokenizers.NormalizedString if hf else NormalizedString)(text)
        apply(ns, ops, hf)
        try:
            part = ns[where]
        except ValueError as e:  # HF's ValueError for a negative index past the length; ours is one too
            return "ValueError", str(e)
        return None if part is None else (part.normalized, part.original, repr(part), str(part))
    found = both(run)
    if found is not None:
        assert found[1] == found[0]


def test_reads_as_hfs() -> None:
    for cls in (tokenizers.NormalizedString, NormalizedString):
        ns = cls("Héllo")
        seen: list[str] = []
        ns.for_each(seen.append)
        assert seen == list("Héllo")
        assert (repr(ns), str(ns), ns.normalized, ns.original) == \
            ('NormalizedString(original="Héllo", normalized="Héllo")', "Héllo", "Héllo", "Héllo")
        assert ns[2:2] is not None and bool(ns[2:2])  # an empty slice is a NormalizedString, and true
    assert len(NormalizedString("Héllo")) == 5  # (an addition: HF's has no len)


def test_wrong_arguments_say_what_is_expected() -> None:
    ns = NormalizedString("ab")
    with pytest.raises(bytepair.InvalidArgumentError, match="merged_with_previous"):
        ns.split("a", "MergedWithPrevious")
    with pytest.raises(ValueError):
        tokenizers.NormalizedString("ab").split("a", "MergedWithPrevious")
    for call, hint in ((lambda: ns.map(lambda c: ""), "a character"), (lambda: ns.filter(lambda c: 1), "bool"),
                       (lambda: ns.map(3), "callable"), (lambda: ns.replace(3, "x"), "pattern")):
        with pytest.raises(bytepair.InvalidInputError, match=hint):
            call()
    pretok = PreTokenizedString("ab")
    with pytest.raises(bytepair.InvalidArgumentError, match="original, normalized"):
        pretok.get_splits("source")
    with pytest.raises(bytepair.InvalidArgumentError, match="byte, char"):
        pretok.get_splits("original", "bytes")
    with pytest.raises(bytepair.InvalidInputError, match="list of NormalizedString"):
        pretok.split(lambda i, ns: str(ns))


def test_tokenize_keeps_tokens_as_hfs() -> None:
    """``tokenize`` fills the splits without tokens; later ``split`` and ``normalize`` leave those be."""
    def run(hf: bool) -> Any:
        module = tokenizers if hf else bytepair
        pretok = module.PreTokenizedString("ab cd")
        pretok.split(lambda i, ns: ns.split(" ", "removed"))
        pretok.tokenize(lambda s: [module.Token(len(s), s.upper(), (0, len(s)))])
        pretok.split(lambda i, ns: ns.split("b", "isolated"))
        pretok.normalize(lambda ns: ns.uppercase())
        return [(s, o, [(t.id, t.value, t.offsets) for t in tokens]) for s, o, tokens in pretok.get_splits()]
    assert run(False) == run(True) == [("ab", (0, 2), [(2, "AB", (0, 2))]), ("cd", (3, 5), [(2, "CD", (0, 2))])]
