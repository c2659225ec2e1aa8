"""Truncation, padding and the post-processors of a ``tokenizer.json`` (``bytepair/processors/``)
against HF ``tokenizers`` 0.23.3 on real open-model files: every strategy, direction and stride of
truncation, singles and pairs with their overflow; padding to the longest, a length or a multiple; the
Bert, Roberta, ByteLevel, Template and Sequence post-processors, with and without special tokens."""

from __future__ import annotations

import json

import pytest

import bytepair
from bytepair import Tokenizer

from tests.hf_reference import hf_folder, last_one
from tests.pipeline.test_tokenizer_json import assert_same

tokenizers = pytest.importorskip("tokenizers")


@last_one
def pair_of(name: str) -> tuple[object, Tokenizer]:
    """HF's and bytepair's tokenizer of one open model, the last one asked for (a loader of this
    module's own, so that conftest releases it when the module ends)."""
    path = hf_folder(name) / "tokenizer.json"
    return tokenizers.Tokenizer.from_file(str(path)), Tokenizer.from_file(path)


@pytest.mark.parametrize("name", ["llama3", "llama2", "qwen2_5"], scope="module")
def test_padding_and_truncation(name: str) -> None:
    ref, ours = pair_of(name)
    texts = ["short", "a much longer text that will certainly need to be cut somewhere " * 3, "mid length text here"]
    pairs = [(t, "pair " * (i + 1)) for i, t in enumerate(texts)]
    try:
        for strategy in ("longest_first", "only_first", "only_second"):
            for direction in ("right", "left"):
                for stride in (0, 2):
                    ref.enable_truncation(12, stride=stride, strategy=strategy, direction=direction)
                    ours.enable_truncation(12, stride=stride, strategy=strategy, direction=direction)
                    for a, b in pairs:
                        try:
                            expected = ref.encode(a, b)
                        except Exception:  # HF refuses what cannot fit; so must we
                            with pytest.raises(bytepair.BytepairError):
                                ours.encode(a, b)
                            continue
                        got = ours.encode(a, b)
                        assert_same(expected, got, f"{strategy} {direction} {stride}")
                        assert [e.ids for e in got.overflowing] == [e.ids for e in expected.overflowing]
                    if strategy != "only_second":
                        for a in texts:
                            expected, got = ref.encode(a), ours.encode(a)
                            assert_same(expected, got, f"single {strategy} {direction} {stride}")
                            assert [e.ids for e in got.overflowing] == [e.ids for e in expected.overflowing]
        ref.no_truncation()
        ours.no_truncation()
        for direction in ("right", "left"):
            for length, multiple in ((None, None), (40, None), (None, 8)):
                ref.enable_padding(direction=direction, pad_id=7, pad_token="<pad>", length=length, pad_to_multiple_of=multiple)
                ours.enable_padding(direction=direction, pad_id=7, pad_token="<pad>", length=length, pad_to_multiple_of=multiple)
                for r, o in zip(ref.encode_batch(texts), ours.encode_batch(texts)):
                    assert_same(r, o, f"padding {direction} {length} {multiple}")
                for r, o in zip(ref.encode_batch(pairs), ours.encode_batch(pairs)):
                    assert_same(r, o, f"padding pairs {direction}")
    finally:
        ref.no_truncation()
        ref.no_padding()
        ours.no_truncation()
        ours.no_padding()


POSTS = [{"type": "BertProcessing", "sep": ["</s>", 2], "cls": ["<s>", 1]},
         {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 1], "trim_offsets": True, "add_prefix_space": True},
         {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 1], "trim_offsets": False, "add_prefix_space": False},
         {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
         {"type": "Sequence", "processors": [{"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
                                             {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                                                                                       {"Sequence": {"id": "A", "type_id": 0}}],
                                              "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
                                              "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}}]}]


@pytest.mark.parametrize("post", POSTS, ids=lambda p: p["type"] + ("-trim" if p.get("trim_offsets") else ""))
def test_post_processors_like_hf(post: dict) -> None:
    base = json.loads((hf_folder("gpt2") / "tokenizer.json").read_text(encoding="utf-8"))
    base["post_processor"] = post
    base["pre_tokenizer"] = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}
    text = json.dumps(base)
    ref, ours = tokenizers.Tokenizer.from_str(text), Tokenizer.from_str(text)
    for a, b in [("Hello  world", None), (" spaced out ", "second  part "), ("x", "y")]:
        for add in (True, False):
            assert_same(ref.encode(a, b, add_special_tokens=add), ours.encode(a, b, add_special_tokens=add), f"{post['type']} {a!r} {b!r}")


POSITIONAL_POSTS = [None, *POSTS,
                    {"type": "TemplateProcessing",
                     "single": [{"Sequence": {"id": "A", "type_id": 1}}, {"SpecialToken": {"id": "<s>", "type_id": 0}}],
                     "pair": [{"SpecialToken": {"id": "<s>", "type_id": 1}}, {"Sequence": {"id": "A", "type_id": 0}},
                              {"SpecialToken": {"id": "</s>", "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}},
                              {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                     "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]},
                                        "</s>": {"id": "</s>", "ids": [2, 3], "tokens": ["</s>", "</s>"]}}}]


@pytest.mark.parametrize("post", POSITIONAL_POSTS, ids=lambda p: "none" if p is None else p["type"])
def test_positional_fields_without_a_second_pass(post: dict | None) -> None:
    """Type ids, the special-tokens mask and sequence ids read first come from the ids pass and the
    post-processor alone (no tokens built) and equal HF's, for one text, a pair, words, an empty
    text and without special tokens; a post-processor defined elsewhere gets the full pass."""
    base = json.loads((hf_folder("gpt2") / "tokenizer.json").read_text(encoding="utf-8"))
    base["post_processor"] = post
    text = json.dumps(base)
    ref, ours = tokenizers.Tokenizer.from_str(text), Tokenizer.from_str(text)
    for a, b in [("Hello  world", None), (" spaced out ", "second  part "), ("", "y"), ("x <|endoftext|>", "")]:
        for add in (True, False):
            expected, got = ref.encode(a, b, add_special_tokens=add), ours.encode(a, b, add_special_tokens=add)
            assert (got.type_ids, got.special_tokens_mask, got.sequence_ids, got.attention_mask) == (
                expected.type_ids, expected.special_tokens_mask, expected.sequence_ids, expected.attention_mask), (a, b, add)
            assert "tokens" not in vars(got)
            assert_same(expected, got, f"{a!r} {b!r} {add}")  # and the full pass after them agrees
    words = ours.encode(["New", " York"], ["is", " big"], is_pretokenized=True)
    assert words.type_ids == ref.encode(["New", " York"], ["is", " big"], is_pretokenized=True).type_ids

    class Custom(bytepair.processors.PostProcessor):
        def process(self, first, second, add_special_tokens):
            out = super().process(first, second, add_special_tokens)
            out.add_special([50256], ["<|endoftext|>"], 0)  # its own special token, its ids not by a layout
            out.type_ids = [len(token) for token in out.tokens]  # looks at the tokens
            return out

    ours.post_processor = Custom()  # kept as itself (no JSON of its own), and saving says what to do
    custom = ours.encode("hello world")
    assert custom.ids == [31373, 995, 50256] and custom.type_ids == [5, 6, 13]  # "hello", "Ġworld"
    with pytest.raises(bytepair.UnsavableError, match="to_json"):
        ours.to_str()
