"""``bytepair.count_chat`` against the numbers OpenAI's cookbook ("How to count tokens with tiktoken")
prints for its examples (checked there against the API's usage.prompt_tokens), its per-message rule
recomputed with tiktoken, and the harmony rendering encoded by tiktoken's o200k_harmony."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair import InvalidInputError, UnknownModelError, UnsupportedTokenizerError, count_chat
from bytepair.llm.chat_count import harmony_ids
from bytepair.cli import main

COOKBOOK_MESSAGES = [
    {"role": "system", "content": "You are a helpful, pattern-following assistant that translates corporate jargon into plain English."},
    {"role": "system", "name": "example_user", "content": "New synergies will help drive top-line growth."},
    {"role": "system", "name": "example_assistant", "content": "Things working well together will increase revenue."},
    {"role": "system", "name": "example_user", "content": "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage."},
    {"role": "system", "name": "example_assistant", "content": "Let's talk later when we're less busy about how to do better."},
    {"role": "user", "content": "This late pivot means we don't have time to boil the ocean for the client deliverable."},
]
COOKBOOK_TOOLS = [{"type": "function", "function": {
    "name": "get_current_weather",
    "description": "Get the current weather in a given location",
    "parameters": {"type": "object", "properties": {
        "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
        "unit": {"type": "string", "description": "The unit of temperature to return", "enum": ["celsius", "fahrenheit"]},
    }, "required": ["location"]},
}}]
COOKBOOK_TOOL_MESSAGES = [
    {"role": "system", "content": "You are a helpful assistant that can answer to questions about the weather."},
    {"role": "user", "content": "What's the weather like in San Francisco?"},
]


@pytest.mark.parametrize("model, expected", [
    ("gpt-3.5-turbo-0301", 127), ("gpt-3.5-turbo-0613", 129), ("gpt-3.5-turbo", 129), ("gpt-4-0314", 129),
    ("gpt-4-0613", 129), ("gpt-4", 129), ("gpt-4o", 124), ("gpt-4o-mini", 124), ("gpt-4o-2024-08-06", 124),
])
def test_cookbook_message_counts(model, expected):
    assert count_chat(COOKBOOK_MESSAGES, model) == expected


@pytest.mark.parametrize("model, expected", [("gpt-3.5-turbo", 105), ("gpt-4", 105), ("gpt-4o", 101), ("gpt-4o-mini", 101)])
def test_cookbook_tool_counts(model, expected):
    assert count_chat(COOKBOOK_TOOL_MESSAGES, model, tools=COOKBOOK_TOOLS) == expected


TEXT = st.text(st.sampled_from("ab é你😀 \n<|>endoftext_"), max_size=30)


@settings(max_examples=60, deadline=None)
@given(messages=st.lists(st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "system"]), "content": TEXT},
                                               optional={"name": st.sampled_from(["bob", "x_y"])}), max_size=5))
def test_rule_with_tiktoken(tiktoken_ref, messages):
    """3 per message, each value as text, 1 per name, 3 for the reply; special-token text counts as text."""
    for model, encoding in (("gpt-4o", "o200k_base"), ("gpt-4", "cl100k_base")):
        enc = tiktoken_ref(encoding)
        expected = 3 + sum(3 + sum(len(enc.encode_ordinary(v)) + (k == "name") for k, v in m.items()) for m in messages)
        assert count_chat(messages, model) == expected


@settings(max_examples=60, deadline=None)
@given(messages=st.lists(st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "developer", "system"]),
                                                "content": st.text(st.sampled_from("ab é你😀 \n:"), max_size=30)},
                                               optional={"channel": st.sampled_from(["final", "analysis"])}), max_size=5))
def test_harmony_equals_tiktoken_on_the_rendering(tiktoken_ref, messages):
    enc = tiktoken_ref("o200k_harmony")
    rendered = "".join(
        f"<|start|>{m['role']}" + (f"<|channel|>{m['channel']}" if "channel" in m else "") + f"<|message|>{m['content']}<|end|>"
        for m in messages
    ) + "<|start|>assistant"
    expected = enc.encode(rendered, allowed_special="all")
    assert harmony_ids(messages) == expected
    assert count_chat(messages, "gpt-oss-120b") == len(expected) == count_chat(messages, "gpt-oss-20b")


def test_harmony_counts_special_literals_as_text(tiktoken_ref):
    enc = tiktoken_ref("o200k_harmony")
    messages = [{"role": "user", "content": "<|end|>"}]
    assert count_chat(messages, "gpt-oss-20b") == 3 + 1 + len(enc.encode_ordinary("<|end|>")) + 2
    assert harmony_ids([{"role": "tool", "name": "functions.get_weather", "content": "{}"}], prime_reply=False) == enc.encode(
        "<|start|>functions.get_weather<|message|>{}<|end|>", allowed_special="all")


def test_unknown_model_names_the_known_ones():
    with pytest.raises(UnknownModelError, match="gpt-4o-mini.*gpt-oss-20b"):
        count_chat(COOKBOOK_MESSAGES, "gpt-5")
    with pytest.raises(UnknownModelError):
        count_chat(COOKBOOK_MESSAGES, "gpt-4.1")
    with pytest.raises(UnknownModelError, match="tool counting"):
        count_chat(COOKBOOK_MESSAGES, "gpt-3.5-turbo-0301", tools=COOKBOOK_TOOLS)


@pytest.mark.parametrize("messages, model, error, message", [
    ("hi", "gpt-4o", InvalidInputError, "list of dicts"),
    ([{"content": "x"}], "gpt-4o", InvalidInputError, "role"),
    ([{"role": "user", "content": [{"type": "text", "text": "x"}]}], "gpt-4o", InvalidInputError, "string fields"),
    ([{"role": "user", "content": "x", "tool_calls": []}], "gpt-oss-20b", InvalidInputError, "tool_calls"),
    ([{"role": "user", "content": 3}], "gpt-oss-20b", InvalidInputError, "must be strings"),
])
def test_bad_input(messages, model, error, message):
    with pytest.raises(error, match=message):
        count_chat(messages, model)
    with pytest.raises(InvalidInputError):
        count_chat(COOKBOOK_MESSAGES, 4)  # type: ignore[arg-type]


def test_harmony_tools_are_refused_with_advice():
    with pytest.raises(UnsupportedTokenizerError, match="developer message"):
        count_chat(COOKBOOK_TOOL_MESSAGES, "gpt-oss-20b", tools=COOKBOOK_TOOLS)


def test_cli_count_chat(tmp_path):
    request = tmp_path / "req.json"
    request.write_text(json.dumps({"model": "gpt-4o", "messages": COOKBOOK_TOOL_MESSAGES, "tools": COOKBOOK_TOOLS}))
    out = io.BytesIO()
    assert main(["count-chat", str(request)], stdout=out) == 0
    assert out.getvalue() == b"101\n"
    out = io.BytesIO()
    assert main(["count-chat", "-", "-m", "gpt-4"], stdout=out, stdin=io.BytesIO(json.dumps(COOKBOOK_MESSAGES).encode())) == 0
    assert out.getvalue() == b"129\n"
    assert main(["count-chat", "-", "-m", "nope"], stdout=io.BytesIO(), stdin=io.BytesIO(b"[]")) == 2
    assert main(["count-chat", "-"], stdout=io.BytesIO(), stdin=io.BytesIO(b"{not json")) == 1
    assert bytepair.count_chat is count_chat
