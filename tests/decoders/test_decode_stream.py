"""``bytepair.decoders.DecodeStream`` (HF's class shape, ``step(tokenizer, id)``) and
``Tokenizer.decode_stream()`` (the same rule bound to a tokenizer) against HF ``tokenizers`` 0.23.3's
``DecodeStream`` on GPT-2 (byte-level BPE), Llama 2 (byte fallback, Replace/Fuse/Strip), Llama 2 with
a Metaspace decoder and with a regex Replace, and BERT's WordPiece (all-MiniLM-L6-v2): hypothesis
over random text, ids past the vocabulary, special tokens, prefilled context and ids given in lists;
the stream of ``step`` results (and where HF's InvalidPrefix error comes) must be HF's."""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bytepair
from bytepair import Tokenizer, decoders
from tests.hf_reference import hf_folder, published_file

tokenizers = pytest.importorskip("tokenizers")

NAMES = ["gpt2", "llama2", "llama2_metaspace", "llama2_regex", "minilm"]


def _document(name: str) -> str:
    if name == "minilm":
        return published_file("all_minilm_l6_v2").read_text(encoding="utf-8")
    if name == "gpt2":
        return (hf_folder("gpt2") / "tokenizer.json").read_text(encoding="utf-8")
    doc = json.loads((hf_folder("llama2") / "tokenizer.json").read_text(encoding="utf-8"))
    if name == "llama2_metaspace":  # SentencePiece files converted with Metaspace (legacy=False)
        doc["normalizer"] = None
        doc["pre_tokenizer"] = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": False}
        doc["decoder"] = {"type": "Sequence", "decoders": [
            {"type": "ByteFallback"}, {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": False}]}
    elif name == "llama2_regex":
        doc["decoder"]["decoders"][0] = {"type": "Replace", "pattern": {"Regex": "▁+"}, "content": " "}
    return json.dumps(doc)


@functools.cache
def pair(name: str) -> tuple[Any, Tokenizer]:
    text = _document(name)
    return tokenizers.Tokenizer.from_str(text), Tokenizer.from_str(text)


def run(stream: Any, tokenizer: Any, steps: list[Any]) -> list[Any]:
    """Each step's result; an error ends the list (HF's InvalidPrefix, bytepair's DecodeStreamError)."""
    out: list[Any] = []
    for step in steps:
        try:
            out.append(stream.step(tokenizer, step) if tokenizer is not None else stream.step(step))
        except bytepair.DecodeStreamError:
            return [*out, "error"]
        except Exception as exc:  # noqa: BLE001 - HF raises a plain Exception
            assert "prefix" in str(exc).lower(), exc
            return [*out, "error"]
    return out


TEXT = st.lists(st.sampled_from([*"ab cdé'.,!? \n\t日本🫠é\u0301-0189ñ▁Ġ", "n't", "'s", " do", "  "]), max_size=25).map("".join)


@st.composite
def cases(draw: st.DrawFn) -> dict[str, Any]:
    name = draw(st.sampled_from(NAMES))
    ref, _ = pair(name)
    ids = ref.encode(draw(TEXT), add_special_tokens=draw(st.booleans())).ids
    size = ref.get_vocab_size()
    extra = st.one_of(st.integers(0, size - 1), st.integers(size, size + 5),
                      st.sampled_from(sorted(ref.get_added_tokens_decoder())))
    for _ in range(draw(st.integers(0, 3))):
        ids.insert(draw(st.integers(0, len(ids))), draw(extra))
    prefill = draw(st.integers(0, len(ids)))
    steps: list[Any] = []
    rest = ids[prefill:]
    while rest:
        n = draw(st.integers(0, 3))
        steps.append(rest[0] if n == 0 else rest[:n])
        rest = rest[max(n, 1):]
    return {"name": name, "prefill": ids[:prefill], "steps": steps, "skip": draw(st.booleans())}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_steps_equal_hfs(case: dict[str, Any]) -> None:
    ref, ours = pair(case["name"])
    prefill, steps, skip = case["prefill"], case["steps"], case["skip"]
    want = run(tokenizers.decoders.DecodeStream(prefill, skip), ref, steps)
    assert run(decoders.DecodeStream(prefill, skip), ours, steps) == want
    assert run(ours.decode_stream(skip, ids=prefill), None, steps) == want


@pytest.mark.parametrize("name", NAMES)
def test_one_id_at_a_time_gives_the_whole_text(name: str) -> None:
    ref, ours = pair(name)
    text = "Streaming 🫠 décodé 日本語! don't stop"
    ids = ref.encode(text).ids
    for skip in (False, True):
        want = run(tokenizers.decoders.DecodeStream(skip_special_tokens=skip), ref, ids)
        got = run(decoders.DecodeStream(skip_special_tokens=skip), ours, ids)
        assert got == want
        if "error" not in got:
            assert "".join(p for p in got if p) == ref.decode(ids, skip_special_tokens=skip)


def test_a_rewritten_prefix_is_hfs_invalid_prefix() -> None:
    """Metaspace's decoder drops the "▁" of the first token: after a byte-fallback space was given
    out, "<0xE2>" "▁" decode to text that no longer starts with it, where HF raises InvalidPrefix;
    bytepair raises DecodeStreamError at the same step."""
    ref, ours = pair("llama2_metaspace")
    ids = [ref.token_to_id(t) for t in ["<0x20>", "<0xE2>", "▁"]]
    assert run(tokenizers.decoders.DecodeStream(), ref, ids) == [" ", None, "error"]
    assert run(decoders.DecodeStream(), ours, ids) == [" ", None, "error"]
    stream = decoders.DecodeStream()
    assert [stream.step(ours, i) for i in ids[:2]] == [" ", None]
    with pytest.raises(bytepair.DecodeStreamError, match="decode the whole id list"):
        stream.step(ours, ids[2])


def test_hfs_signature_and_defaults() -> None:
    hf = tokenizers.decoders.DecodeStream
    assert hf.__text_signature__ == "(self, ids=None, skip_special_tokens=False)"
    import inspect
    params = inspect.signature(decoders.DecodeStream).parameters
    assert list(params) == ["ids", "skip_special_tokens"]
    assert params["ids"].default is None and params["skip_special_tokens"].default is False
    assert list(inspect.signature(decoders.DecodeStream.step).parameters) == ["self", "tokenizer", "id"]
    ref, ours = pair("gpt2")
    eot = ref.token_to_id("<|endoftext|>")
    assert decoders.DecodeStream().step(ours, eot) == hf().step(ref, eot) == "<|endoftext|>"  # written by default
    assert decoders.DecodeStream(skip_special_tokens=None).step(ours, eot) == "<|endoftext|>"
    assert decoders.DecodeStream().step(tokenizer=ours, id=[]) is None


@pytest.mark.parametrize("bad", [-1, 2**32, "x", 1.5, None, [71, -1], [71, "x"]])
def test_a_bad_step_is_a_type_error_as_hfs(bad: Any) -> None:
    ref, ours = pair("gpt2")
    with pytest.raises(TypeError):
        tokenizers.decoders.DecodeStream().step(ref, bad)
    stream = decoders.DecodeStream()
    with pytest.raises(bytepair.InvalidInputError, match="token id"):
        stream.step(ours, bad)
    assert stream.step(ours, 71) == "h"  # nothing was taken in


def test_bad_constructor_arguments_as_hfs() -> None:
    for args, kwargs, hf_error, ours_error in [
        (("ab",), {}, TypeError, bytepair.InvalidInputError),
        ((5,), {}, TypeError, bytepair.InvalidInputError),
        ((iter([1]),), {}, TypeError, bytepair.InvalidInputError),
        (([-1],), {}, OverflowError, bytepair.TokenIdOverflowError),
        (([2**32],), {}, OverflowError, bytepair.TokenIdOverflowError),
        (([1],), {"skip_special_tokens": 1}, TypeError, bytepair.InvalidInputError),
    ]:
        with pytest.raises(hf_error):
            tokenizers.decoders.DecodeStream(*args, **kwargs)
        with pytest.raises(ours_error):
            decoders.DecodeStream(*args, **kwargs)
    ref, ours = pair("gpt2")
    assert decoders.DecodeStream((71, 72)).step(ours, 73) == tokenizers.decoders.DecodeStream((71, 72)).step(ref, 73)
    assert decoders.DecodeStream([True]).step(ours, 73) == tokenizers.decoders.DecodeStream([True]).step(ref, 73)
    with pytest.raises(bytepair.InvalidInputError, match="Tokenizer"):
        decoders.DecodeStream().step("not a tokenizer", 71)


def test_copies_are_independent_as_hfs() -> None:
    ref, ours = pair("gpt2")
    ids = ref.encode("hi 🫠").ids
    for module, tok in ((tokenizers.decoders, ref), (decoders, ours)):
        stream = module.DecodeStream()
        assert [stream.step(tok, i) for i in ids[:2]] == ["hi", None]
        twin, deep = copy.copy(stream), copy.deepcopy(stream)
        assert [twin.step(tok, i) for i in ids[2:]] == [None, " 🫠"]
        assert [deep.step(tok, i) for i in ids[2:]] == [None, " 🫠"]
        assert [stream.step(tok, i) for i in ids[2:]] == [None, " 🫠"]


def test_held_back_text_at_the_end() -> None:
    _, ours = pair("gpt2")
    stream = ours.decode_stream()
    assert [stream.step(i) for i in ours.encode("hi 🫠").ids[:3]] == ["hi", None, None]
    assert stream.held_back() == " \ufffd"
