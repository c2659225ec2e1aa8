"""``decoders.Decoder.custom(obj)`` (HF's custom decoder: any object with ``decode_chain``) against HF
``tokenizers`` 0.23.3: the same text, inherited by every decoder class as HF's static method is,
refused when saved or pickled (HF raises too), and usable inside a ``Sequence`` (where HF panics)."""

from __future__ import annotations

import pickle

import pytest

import bytepair
from bytepair import Tokenizer, decoders, models, pre_tokenizers
from tests.hf_reference import hf_folder

tokenizers = pytest.importorskip("tokenizers")


class Upper:
    def decode_chain(self, tokens: list[str]) -> list[str]:
        return [t.upper() + "|" for t in tokens]


def test_decodes_as_hfs() -> None:
    path = hf_folder("gpt2") / "tokenizer.json"
    ref, ours = tokenizers.Tokenizer.from_file(str(path)), Tokenizer.from_file(path)
    ref.decoder = tokenizers.decoders.Decoder.custom(Upper())
    ours.decoder = decoders.Decoder.custom(Upper())
    ids = ref.encode("Hello wörld 🫠").ids
    assert ours.decode(ids) == ref.decode(ids)
    for name in ("ByteLevel", "Metaspace", "Sequence"):  # a static method every class inherits
        assert getattr(decoders, name).custom(Upper()).decode(["a", "b"]) == \
            getattr(tokenizers.decoders, name).custom(Upper()).decode(["a", "b"]) == "A|B|"


def test_saving_or_pickling_is_refused_as_hfs() -> None:
    for tok in (Tokenizer.from_file(hf_folder("gpt2") / "tokenizer.json"),
                Tokenizer(models.BPE({"a": 0, "b": 1, "ab": 2}, [("a", "b")]))):
        tok.decoder = decoders.Sequence([decoders.ByteLevel(), decoders.Decoder.custom(Upper())])
        tok.pre_tokenizer = pre_tokenizers.Whitespace()  # another stage set after it still works
        assert tok.decode(tok.encode("ab").ids) == "AB|"
        with pytest.raises(bytepair.UnsavableError, match="custom decoder"):
            tok.to_str()
        with pytest.raises(bytepair.UnsavableError, match="custom decoder"):
            pickle.dumps(tok)
        tok.decoder = decoders.ByteLevel()
        assert Tokenizer.from_str(tok.to_str()).decode(tok.encode("ab").ids) == "ab"
    hf = tokenizers.Tokenizer(tokenizers.models.BPE())
    hf.decoder = tokenizers.decoders.Decoder.custom(Upper())
    with pytest.raises(Exception, match="cannot be serialized"):
        hf.to_str()


def test_a_wrong_object_says_what_it_needs() -> None:
    class NoChain:
        pass

    class Text:
        def decode_chain(self, tokens: list[str]) -> str:
            return "ab"

    for wrong, hint in ((NoChain(), "decode_chain"), (Text(), "list of str")):
        with pytest.raises(Exception):
            tokenizers.decoders.Decoder.custom(wrong).decode(["a"])  # HF: when decoding, too
        with pytest.raises(bytepair.InvalidInputError, match=hint):
            decoders.Decoder.custom(wrong).decode(["a"])
