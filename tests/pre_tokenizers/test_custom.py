"""``pre_tokenizers.PreTokenizer.custom(obj)`` (HF's custom pre-tokenizer: ``obj.pre_tokenize(pretok)``
calls ``pretok.split(fn)``) against HF ``tokenizers`` 0.23.3: one class used with both libraries
gives the same pieces and the same ids, tokens, offsets and word ids through a BERT-like WordPiece
(whose normalizer rewrites the text first: offsets go through its alignment) and GPT-2's byte-level
BPE (the custom step before ``ByteLevel`` in a ``Sequence``), on chosen and random text; HF's jieba
example, cut by ``normalized_string[start:stop]``; refused when saved or pickled (HF raises too)."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair import Tokenizer, pre_tokenizers
from tests.hf_reference import hf_folder
from tests.hf_wordpiece import hf_variant_json

tokenizers = pytest.importorskip("tokenizers")

TEXTS = ["Héllo  Wörld-wide ﬁsh 日本語 🫠👍🏽 ", "ÇA VA?  --  naïve café\u0301", "", "a", " x ", "ǅ İstanbul ß ① Σ",
         "q\u0307\u0323 e\u0301\u0301 한국어\u3000\t\nend", "我们中出了一个叛徒。今天天气不错"]
RANDOM = st.text(st.sampled_from("aAbzéE\u0301\u0327ßİﬁ中文日本語我们今天🫠👍🏽 \t\n\u3000-.,"), max_size=24)


class Pieces:
    """Words at spaces, dashes on their own, then at most three characters a piece."""

    def pre_tokenize(self, pretok: Any) -> None:
        pretok.split(lambda i, ns: ns.split(" ", "removed"))
        pretok.split(lambda i, ns: ns.split("-", "isolated"))
        pretok.split(lambda i, ns: [ns[k:k + 3] for k in range(0, len(str(ns)), 3)])


class Jieba:
    """HF's jieba example (``examples/custom_components.py``) with a tiny dictionary segmenter in
    jieba's place: ``tokenize`` gives (word, start, stop), cut by ``normalized_string[start:stop]``."""

    WORDS = ("我们", "中出", "一个", "叛徒", "今天", "天气", "不错", "日本語")

    def tokenize(self, text: str) -> list[tuple[str, int, int]]:
        out, at = [], 0
        while at < len(text):
            word = next((w for w in self.WORDS if text.startswith(w, at)), text[at])
            out.append((word, at, at + len(word)))
            at += len(word)
        return out

    def jieba_split(self, i: int, normalized_string: Any) -> list[Any]:
        return [normalized_string[start:stop] for _, start, stop in self.tokenize(str(normalized_string))]

    def pre_tokenize(self, pretok: Any) -> None:
        pretok.split(lambda i, ns: ns.split(" ", "removed"))
        pretok.split(self.jieba_split)


class Folded:
    """Pieces rewritten one character for one (``map``) and with a marker put in front."""

    def pre_tokenize(self, pretok: Any) -> None:
        pretok.split(lambda i, ns: ns.split(" ", "merged_with_next"))
        pretok.normalize(lambda ns: ns.map(lambda c: c.lower()[0]))
        pretok.normalize(lambda ns: ns.prepend("#"))


class Lowered:
    """Pieces lowercased: "İ" becomes two characters, in the middle of its piece."""

    def pre_tokenize(self, pretok: Any) -> None:
        pretok.split(lambda i, ns: ns.split(" ", "removed"))
        pretok.normalize(lambda ns: ns.lowercase())


def _json(name: str) -> str:
    return hf_variant_json(name) if name.startswith("bert") else (hf_folder(name) / "tokenizer.json").read_text()


def _pair(name: str, cls: type) -> tuple[Any, Tokenizer]:
    json_text = _json(name)
    ref, ours = tokenizers.Tokenizer.from_str(json_text), Tokenizer.from_str(json_text)
    if name == "gpt2":  # the custom step, then GPT-2's bytes
        ref.pre_tokenizer = tokenizers.pre_tokenizers.Sequence(
            [tokenizers.pre_tokenizers.PreTokenizer.custom(cls()), tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)])
        ours.pre_tokenizer = pre_tokenizers.Sequence(
            [pre_tokenizers.PreTokenizer.custom(cls()), pre_tokenizers.ByteLevel(add_prefix_space=False)])
    else:
        ref.pre_tokenizer = tokenizers.pre_tokenizers.PreTokenizer.custom(cls())
        ours.pre_tokenizer = pre_tokenizers.PreTokenizer.custom(cls())
    return ref, ours


def _same(ref: Any, ours: Tokenizer, text: str) -> None:
    a, b = ref.encode(text), ours.encode(text)
    assert (b.ids, b.tokens, b.offsets, b.word_ids) == (a.ids, a.tokens, a.offsets, a.word_ids), text


@pytest.mark.parametrize("cls", [Pieces, Jieba, Folded])
@pytest.mark.parametrize("name", ["bert-uncased", "bert-cased", "gpt2"])
def test_encodes_as_hfs(name: str, cls: type) -> None:
    ref, ours = _pair(name, cls)
    for text in TEXTS:
        _same(ref, ours, text)
    for text in TEXTS:
        assert pre_tokenizers.Whitespace.custom(cls()).pre_tokenize_str(text) == \
            tokenizers.pre_tokenizers.Whitespace.custom(cls()).pre_tokenize_str(text)


@settings(max_examples=80, deadline=None)
@given(text=RANDOM, cls=st.sampled_from([Pieces, Jieba, Folded]), name=st.sampled_from(["bert-uncased", "gpt2"]))
def test_random_text_as_hfs(text: str, cls: type, name: str) -> None:
    _same(*_pair(name, cls), text)


@pytest.mark.parametrize("name", ["bert-cased", "gpt2"])
def test_a_piece_rewritten_in_its_middle_keeps_hfs_ids(name: str) -> None:
    """The pipeline places a rewritten piece's tokens by one rule (``(piece, start, end)``: characters
    put in front stand at the first one, the rest one for one); HF follows each character. They
    agree but where the custom step changes the length inside a piece: ids and tokens stay HF's."""
    ref, ours = _pair(name, Lowered)
    for text in TEXTS:
        a, b = ref.encode(text), ours.encode(text)
        assert (b.ids, b.tokens, b.word_ids) == (a.ids, a.tokens, a.word_ids)
        if "İ" not in text:
            assert b.offsets == a.offsets
    text = "xİy"
    assert ours.encode(text).tokens == ref.encode(text).tokens
    if name == "gpt2":  # "i" + U+0307 both stand for "İ": HF's token "xi" ends after it, ours before it
        assert ref.encode(text).offsets == [(0, 2), (1, 2), (1, 2), (2, 3)]
        assert ours.encode(text).offsets == [(0, 1), (1, 2), (1, 2), (2, 3)]


def test_saving_or_pickling_is_refused_as_hfs() -> None:
    tok = Tokenizer.from_file(hf_folder("gpt2") / "tokenizer.json")
    for pre in (pre_tokenizers.PreTokenizer.custom(Pieces()),
                pre_tokenizers.Sequence([pre_tokenizers.PreTokenizer.custom(Pieces()), pre_tokenizers.ByteLevel(add_prefix_space=False)])):
        tok.pre_tokenizer = pre
        with pytest.raises(bytepair.UnsavableError, match="custom pre-tokenizer"):
            tok.to_str()
        with pytest.raises(bytepair.UnsavableError, match="custom pre-tokenizer"):
            pickle.dumps(tok)
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    assert Tokenizer.from_str(tok.to_str()).encode("Héllo wörld").ids == tok.encode("Héllo wörld").ids
    hf = tokenizers.Tokenizer(tokenizers.models.BPE())
    hf.pre_tokenizer = tokenizers.pre_tokenizers.PreTokenizer.custom(Pieces())
    with pytest.raises(Exception, match="Custom PreTokenizer cannot be serialized"):
        hf.to_str()


def test_a_wrong_object_says_what_it_needs() -> None:
    class Nothing:
        pass

    class Text:
        def pre_tokenize(self, pretok: Any) -> None:
            pretok.split(lambda i, ns: str(ns))

    for wrong, hint in ((Nothing(), "pre_tokenize"), (Text(), "list of NormalizedString")):
        with pytest.raises(bytepair.InvalidInputError, match=hint):
            pre_tokenizers.PreTokenizer.custom(wrong).pre_tokenize_str("a b")
