"""``normalizers.Normalizer.custom(obj)`` (HF's custom normalizer: ``obj.normalize(NormalizedString)``
edits it in place) against HF ``tokenizers`` 0.23.3: one class used with both libraries gives the same
ids, tokens, offsets and word ids through a BERT-like WordPiece and GPT-2's byte-level BPE, alone and
inside a ``Sequence``; ``normalize_str`` as HF's; refused when saved or pickled (HF raises too)."""

from __future__ import annotations

import pickle

import pytest

import bytepair
from bytepair import Tokenizer, normalizers
from tests.hf_reference import hf_folder
from tests.hf_wordpiece import hf_variant_json

tokenizers = pytest.importorskip("tokenizers")

TEXTS = ["Héllo  Wörld-wide ﬁsh 日本語 🫠👍🏽 ", "ÇA VA?  --  naïve café\u0301", "", "a", " x ", "ǅ İstanbul ß ① Σ",
         "q\u0307\u0323 e\u0301\u0301 한국어\u3000\t\nend"]


class Fold:
    """Accents off, runs of two spaces halved, lowercase, stripped, between < and >."""

    def normalize(self, normalized: object) -> None:
        normalized.nfkd()
        normalized.filter(lambda c: not 0x300 <= ord(c) < 0x370)
        normalized.replace("  ", " ")
        normalized.lowercase()
        normalized.strip()
        normalized.prepend("<")
        normalized.append(">")


class Jamo:
    """NFD (Hangul to jamo: one character to several), a regex replace, upper case (ß to SS)."""

    def normalize(self, normalized: object) -> None:
        normalized.nfd()
        normalized.replace(REGEX[type(normalized).__module__ == "tokenizers"], "·")
        normalized.uppercase()


REGEX = {False: bytepair.Regex(r"\s+"), True: tokenizers.Regex(r"\s+")}


def _pair(json_text: str, hf_normalizer: object, our_normalizer: object) -> tuple[object, Tokenizer]:
    ref, ours = tokenizers.Tokenizer.from_str(json_text), Tokenizer.from_str(json_text)
    ref.normalizer, ours.normalizer = hf_normalizer, our_normalizer
    return ref, ours


def _same(ref: object, ours: Tokenizer, texts: list[str]) -> None:
    for text in texts:
        a, b = ref.encode(text), ours.encode(text)
        assert (b.ids, b.tokens, b.offsets, b.word_ids) == (a.ids, a.tokens, a.offsets, a.word_ids), text


@pytest.mark.parametrize("cls", [Fold, Jamo])
@pytest.mark.parametrize("name", ["bert-cased", "gpt2"])
def test_encodes_as_hfs(name: str, cls: type) -> None:
    json_text = hf_variant_json(name) if name.startswith("bert") else (hf_folder(name) / "tokenizer.json").read_text()
    ref, ours = _pair(json_text, tokenizers.normalizers.Normalizer.custom(cls()), normalizers.Normalizer.custom(cls()))
    texts = TEXTS if name.startswith("bert") or cls is not Fold else TEXTS[:2] + TEXTS[3:]
    _same(ref, ours, texts)  # (not "" on GPT-2 with Fold: HF's ByteLevel doubles a lone ">" of (0, 0), see below)
    ref, ours = _pair(json_text, tokenizers.normalizers.Sequence([tokenizers.normalizers.NFC(), tokenizers.normalizers.Normalizer.custom(cls())]),
                      normalizers.Sequence([normalizers.NFC(), normalizers.Normalizer.custom(cls())]))
    _same(ref, ours, texts)
    for text in TEXTS:
        assert normalizers.BertNormalizer.custom(cls()).normalize_str(text) == \
            tokenizers.normalizers.BertNormalizer.custom(cls()).normalize_str(text)


def test_saving_or_pickling_is_refused_as_hfs() -> None:
    tok = Tokenizer.from_file(hf_folder("gpt2") / "tokenizer.json")
    for normalizer in (normalizers.Normalizer.custom(Fold()), normalizers.Sequence([normalizers.NFC(), normalizers.Normalizer.custom(Fold())])):
        tok.normalizer = normalizer
        assert tok.encode("Héllo").tokens == ["<", "hello", ">"]
        with pytest.raises(bytepair.UnsavableError, match="custom normalizer"):
            tok.to_str()
        with pytest.raises(bytepair.UnsavableError, match="custom normalizer"):
            pickle.dumps(tok)
    tok.normalizer = normalizers.NFC()
    assert Tokenizer.from_str(tok.to_str()).encode("Héllo").ids == tok.encode("Héllo").ids
    hf = tokenizers.Tokenizer(tokenizers.models.BPE())
    hf.normalizer = tokenizers.normalizers.Normalizer.custom(Fold())
    with pytest.raises(Exception, match="Custom Normalizer cannot be serialized"):
        hf.to_str()


def test_a_wrong_object_says_what_it_needs() -> None:
    class Nothing:
        pass

    with pytest.raises(bytepair.InvalidInputError, match="normalize"):
        normalizers.Normalizer.custom(Nothing()).normalize_str("a")


def test_hfs_own_custom_object_is_refused_saying_what_to_use() -> None:
    """HF's custom components cannot be read (HF will not serialize them): the error names bytepair's
    ``.custom``, to be called on the same Python object."""
    tok = Tokenizer.from_file(hf_folder("gpt2") / "tokenizer.json")
    for stage, hf_component in (("normalizer", tokenizers.normalizers.Normalizer.custom(Fold())),
                                ("pre_tokenizer", tokenizers.pre_tokenizers.PreTokenizer.custom(Fold()))):
        with pytest.raises(bytepair.InvalidInputError, match=r"\.custom\(obj\)"):
            setattr(tok, stage, hf_component)
