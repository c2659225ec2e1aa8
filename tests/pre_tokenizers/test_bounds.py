"""``Pretokenizer.bounds`` (the pieces, starts and ends of a text, found by ``re.split`` with the
pattern in a group) equal to the plain reading of ``finditer``'s match objects
(``_reference_bounds``), on random text (accents, combining marks, CJK, astral characters, controls,
whitespace runs) and patterns that can and cannot go in a group."""

from __future__ import annotations

import pickle

from hypothesis import given, settings
from hypothesis import strategies as st

from bytepair import pre_tokenizers
from bytepair.data.openai import CL100K_PATTERN
from bytepair.pre_tokenizers.pattern import Pretokenizer

ALPHABET = ("abcdeéèüñAÉÖΣσς İ\u0130ßﬁ \t\n\x07\x00\ufffd.,!?-'\"()中文日本한국어\u0301\u0323\u0344e\u0301"
            "ｱｂ①ΑΒΓαβγ\U0001F600\U00020000\u200d\u3000\u2028\x85\xa0x1234567890_   ")
TEXT = st.text(ALPHABET, max_size=80) | st.text(max_size=30)
SPLITTERS = {
    "bert": lambda: pre_tokenizers.BertPreTokenizer(),
    "whitespace": lambda: pre_tokenizers.Whitespace(),
    "cl100k": lambda: Pretokenizer(CL100K_PATTERN),
    "words": lambda: Pretokenizer(r"\w+"),
    "flags": lambda: Pretokenizer(r"(?i)[a-z]+|\d"),  # (a leading flag cannot go inside a group: finditer's way)
}


def _pattern(name: str) -> Pretokenizer:
    made = SPLITTERS[name]()
    return made if isinstance(made, Pretokenizer) else made._pretokenizer


@settings(max_examples=300, deadline=None)
@given(text=TEXT, name=st.sampled_from(sorted(SPLITTERS)))
def test_bounds_equal_the_match_objects(text: str, name: str) -> None:
    splitter = _pattern(name)
    expected = splitter._reference_bounds(text)
    assert splitter.bounds(text) == expected
    assert splitter.split(text) == expected[0]


@settings(max_examples=100, deadline=None)
@given(text=TEXT, repeat=st.integers(40, 120))
def test_bert_pieces_kept_by_split_give_the_same_bounds(text: str, repeat: int) -> None:
    """BERT's pre-tokenizer keeps a long text's pieces with the text between them (``split``, the
    ids' pass) for ``bounds`` (the fields' pass): the same bounds as found afresh, and only for
    that text; not pickled."""
    step = pre_tokenizers.BertPreTokenizer()
    long = text * repeat
    expected = step._pretokenizer._reference_bounds(long)
    assert step.split(long) == expected[0]
    assert step.bounds(long) == expected
    other = long[:-1] + "x"
    assert step.bounds(other) == step._pretokenizer._reference_bounds(other)
    copy = pickle.loads(pickle.dumps(step))
    assert copy._last.get(long) is None and copy.bounds(long) == expected
