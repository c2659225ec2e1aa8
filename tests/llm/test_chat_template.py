"""``Tokenizer.apply_chat_template`` against transformers (offline, the models' own tokenizer_config.json
templates): ids and text for Llama 3, Llama 3.1, Qwen2.5, Qwen3, DeepSeek-V3 and Gemma 3; assistant
masks; the special-text policy (escape checked against HF ``tokenizers`` encoding the text between the
template's own special tokens with ``encode_special_tokens``); bad input."""

from __future__ import annotations

import functools
import json
import os
import re
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bytepair
from bytepair import InvalidInputError, MissingDependencyError, ReservedLiteralError, TemplateError
from bytepair.llm.chat_template import compile_template

from tests.conftest import corpus_texts
from tests.hf_reference import hf_encode_in_a_child, hf_folder, transformers_reads_back

os.environ.setdefault("HF_HUB_OFFLINE", "1")
pytest.importorskip("jinja2")
transformers = pytest.importorskip("transformers")

TEMPLATES = ("llama3", "llama3_1", "qwen2_5", "qwen3", "deepseek_v3", "gemma3")
# What each template does with a reply: strip it or not, and the special token closing an assistant turn.
REPLY = {
    "llama3": (True, "<|eot_id|>"), "llama3_1": (True, "<|eot_id|>"), "qwen2_5": (False, "<|im_end|>"),
    "qwen3": (False, "<|im_end|>"), "deepseek_v3": (False, "<｜end▁of▁sentence｜>"), "gemma3": (True, "<end_of_turn>"),
}
LITERAL = {"llama3": "<|eot_id|>", "llama3_1": "<|eot_id|>", "qwen2_5": "<|im_end|>", "qwen3": "<|im_end|>",
           "deepseek_v3": "<｜end▁of▁sentence｜>", "gemma3": "<end_of_turn>"}

CONVERSATIONS = {
    "single": [{"role": "user", "content": "Hello"}],
    "system_multi_turn": [
        {"role": "system", "content": "You are a terse assistant."},
        {"role": "user", "content": "Hi there, how's it going?"},
        {"role": "assistant", "content": "Fine, thanks. And you?"},
        {"role": "user", "content": "Good. What is 2 + 2?"},
        {"role": "assistant", "content": "4"},
        {"role": "user", "content": "Thanks!"},
    ],
    "unicode": [
        {"role": "user", "content": "Ça va? 你好 ∑ ünïcödé 🤗👩‍👩‍👧 𝔘𝔫𝔦\u00a0nbsp\u200bzw"},
        {"role": "assistant", "content": "Très bien — 很好! 😀"},
        {"role": "user", "content": "  leading and trailing spaces  \n\n"},
    ],
    "code": [
        {"role": "user", "content": "Fix this:\n```python\ndef f(x):\n\treturn x**2  # square\n```"},
        {"role": "assistant", "content": "```python\ndef f(x: int) -> int:\n    return x * x\n```\n\nDone."},
        {"role": "user", "content": "}}{{ {% raw %} \\n </s> [INST] ok"},
    ],
    "padded_replies": [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "  spaced reply \n"},
        {"role": "user", "content": "b"},
        {"role": "assistant", "content": "\nnewline first"},
    ],
}


@pytest.fixture(scope="module", params=TEMPLATES)
def pair(request):
    """(name, bytepair.Tokenizer, transformers tokenizer) loaded from the same folder."""
    folder = hf_folder(request.param)
    return request.param, bytepair.Tokenizer.from_pretrained(folder), transformers.AutoTokenizer.from_pretrained(str(folder))


def hf_ids(hf, messages, **kw):
    return list(hf.apply_chat_template(messages, tokenize=True, return_dict=False, **kw))


# ---------------------------------------------------------------- ids and text equal transformers'
@pytest.mark.parametrize("conversation", sorted(CONVERSATIONS))
@pytest.mark.parametrize("generation_prompt", [False, True])
def test_ids_and_text_equal_transformers(pair, conversation, generation_prompt):
    name, ours, hf = pair
    messages = CONVERSATIONS[conversation]
    expected_text = hf.apply_chat_template(messages, tokenize=False, add_generation_prompt=generation_prompt)
    assert ours.apply_chat_template(messages, tokenize=False, add_generation_prompt=generation_prompt) == expected_text
    expected = hf_ids(hf, messages, add_generation_prompt=generation_prompt)
    for policy in ("escape", "allow", "reject"):
        assert ours.apply_chat_template(messages, add_generation_prompt=generation_prompt, special_text=policy) == expected
    out = ours.apply_chat_template(messages, add_generation_prompt=generation_prompt, return_dict=True)
    assert out == {"input_ids": expected, "attention_mask": [1] * len(expected)}


def test_content_parts_equal_transformers(pair):
    name, ours, hf = pair
    messages = [{"role": "user", "content": [{"type": "text", "text": "Describe "}, {"type": "text", "text": "this."}]}]
    try:
        expected = hf_ids(hf, messages, add_generation_prompt=True)
    except Exception:  # the template cannot take a list (Qwen: content.startswith, str + list): ours fails too, typed
        with pytest.raises(TemplateError, match="the chat template failed"):
            ours.apply_chat_template(messages, add_generation_prompt=True)
        return
    # Gemma 3 joins text parts; the others render the list's repr, exactly as transformers does.
    assert ours.apply_chat_template(messages, add_generation_prompt=True, special_text="allow") == expected
    assert ours.apply_chat_template(messages, add_generation_prompt=True) == expected


def test_tools_and_continue_final_message_equal_transformers(pair):
    name, ours, hf = pair
    tools = [{"type": "function", "function": {
        "name": "get_weather", "description": "Weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
    messages = [{"role": "user", "content": "Weather in Paris?"}]
    try:
        expected = hf_ids(hf, messages, tools=tools, add_generation_prompt=True)
    except Exception as exc:  # the template refuses tools: ours must refuse too, with our error type
        with pytest.raises(TemplateError):
            ours.apply_chat_template(messages, tools=tools, add_generation_prompt=True)
        pytest.skip(f"{name}'s template refuses tools: {exc}")
    assert ours.apply_chat_template(messages, tools=tools, add_generation_prompt=True) == expected
    prefill = [*messages, {"role": "assistant", "content": "It is"}]
    assert ours.apply_chat_template(prefill, continue_final_message=True) == hf_ids(hf, prefill, continue_final_message=True)
    assert ours.apply_chat_template(prefill, continue_final_message=True, tokenize=False).endswith("It is")


def test_qwen3_reasoning_and_thinking_switch_equal_transformers():
    folder = hf_folder("qwen3")
    ours, hf = bytepair.Tokenizer.from_pretrained(folder), transformers.AutoTokenizer.from_pretrained(str(folder))
    messages = [
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": "4", "reasoning_content": "an easy sum"},
        {"role": "user", "content": "3+3?"},
        {"role": "assistant", "content": "<think>\nhmm\n</think>\n\n6"},
    ]
    for kw in ({}, {"enable_thinking": False, "add_generation_prompt": True}):
        assert ours.apply_chat_template(messages, **kw) == hf_ids(hf, messages, **kw)


# ---------------------------------------------------------------- assistant masks
def _runs(ids, mask):
    runs, current = [], []
    for token_id, bit in zip(ids, mask):
        if bit:
            current.append(token_id)
        elif current:
            runs.append(current)
            current = []
    return runs + ([current] if current else [])


@pytest.mark.parametrize("conversation", ["system_multi_turn", "unicode", "code", "padded_replies"])
def test_assistant_masks_are_the_replies_and_their_end_tokens(pair, conversation):
    name, ours, hf = pair
    strip, closer = REPLY[name]
    messages = CONVERSATIONS[conversation]
    out = ours.apply_chat_template(messages, return_dict=True, return_assistant_tokens_mask=True)
    assert out["input_ids"] == hf_ids(hf, messages)
    assert len(out["assistant_masks"]) == len(out["input_ids"])
    replies = [m["content"].strip() if strip else m["content"] for m in messages if m["role"] == "assistant"]
    if name == "qwen3" and messages[-1]["role"] == "assistant":  # after the last user turn: lstrip('\n')
        replies[-1] = replies[-1].lstrip("\n")
    runs = [ours.decode(run, skip_special_tokens=False) for run in _runs(out["input_ids"], out["assistant_masks"])]
    assert len(runs) == len(replies)
    for run, reply in zip(runs, replies):
        # Exactly the reply and its closer, except that a token the template shares with the reply's
        # first characters (Qwen: the header's "\n" with a reply starting "\n" is one token) counts as the reply's.
        assert run.endswith(reply + closer)
        assert run[: len(run) - len(reply + closer)].isspace() or len(run) == len(reply + closer)
    if conversation != "padded_replies":
        assert runs == [reply + closer for reply in replies]


GENERATION_TEMPLATES = {
    # The block holds the reply and its end token: the mask our own rule gives too.
    "reply and end": ("qwen2_5",
        "{% for m in messages %}<|im_start|>{{ m.role }}\n{% if m.role == 'assistant' %}{% generation %}"
        "{{ m.content }}<|im_end|>{% endgeneration %}{% else %}{{ m.content }}<|im_end|>{% endif %}\n{% endfor %}"),
    # The block holds the header too: only the block can say so.
    "header too": ("qwen2_5",
        "{% for m in messages %}{% if m['role'] == 'assistant' %}{% generation %}{{ '<|im_start|>assistant\n' + "
        "m['content'] + '<|im_end|>' }}{% endgeneration %}{{ '\n' }}{% else %}{{ '<|im_start|>' + m['role'] + '\n' + "
        "m['content'] + '<|im_end|>\n' }}{% endif %}{% endfor %}"),
    # A trimmed reply and the end token (an empty reply still masks its end token).
    "trimmed": ("llama3_1",
        "{% for m in messages %}{{ '<|start_header_id|>' + m['role'] + '<|end_header_id|>\n\n' }}{% if m['role'] == "
        "'assistant' %}{% generation %}{{ m['content']|trim + eos_token }}{% endgeneration %}{% else %}"
        "{{ m['content']|trim + eos_token }}{% endif %}{% endfor %}"),
}


@pytest.mark.parametrize("case", GENERATION_TEMPLATES)
def test_assistant_mask_equals_transformers_generation_blocks(case):
    """On a template with {% generation %} blocks transformers masks what the blocks rendered; so
    do we, empty replies, padded ones and emoji included."""
    name, template = GENERATION_TEMPLATES[case]
    folder = hf_folder(name)
    ours, hf = bytepair.Tokenizer.from_pretrained(folder), transformers.AutoTokenizer.from_pretrained(str(folder))
    conversations = [*CONVERSATIONS.values(), [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": ""}],
                     [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": " 🫠 padded  "}]]
    masked = 0
    for messages in conversations:
        expected = hf.apply_chat_template(messages, chat_template=template, return_dict=True, return_assistant_tokens_mask=True)
        got = ours.apply_chat_template(messages, chat_template=template, return_dict=True, return_assistant_tokens_mask=True)
        assert got["input_ids"] == list(expected["input_ids"])
        assert got["assistant_masks"] == list(expected["assistant_masks"]), messages
        masked += sum(got["assistant_masks"])
    assert masked > 0


def test_assistant_mask_needs_a_located_reply():
    folder = hf_folder("qwen3")
    ours = bytepair.Tokenizer.from_pretrained(folder)
    # The template splits inline <think> content apart, so the reply cannot be traced: a clear error.
    messages = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "<think>\nr\n</think>\n\na"},
                {"role": "user", "content": "q2"}]
    with pytest.raises(TemplateError, match="assistant masks"):
        ours.apply_chat_template(messages, return_dict=True, return_assistant_tokens_mask=True)
    with pytest.raises(InvalidInputError, match="return_dict=True"):
        ours.apply_chat_template(messages, return_assistant_tokens_mask=True)


# ---------------------------------------------------------------- the special-text policy
def hf_escaped_reference(hf_backend, text: str, content_spans: list[tuple[int, int]], specials: list[str]) -> list[int]:
    """HF ``tokenizers`` ids of ``text`` with special tokens honoured only outside ``content_spans``:
    the text between the template's own special tokens encoded with ``encode_special_tokens=True``."""
    finder = re.compile("|".join(map(re.escape, sorted(specials, key=len, reverse=True))))
    kept = [m for m in finder.finditer(text) if not any(m.start() < e and m.end() > s for s, e in content_spans)]
    ids, done = [], 0
    for match in kept + [None]:
        stop = match.start() if match else len(text)
        if stop > done:
            hf_backend.encode_special_tokens = True
            try:
                ids += hf_backend.encode(text[done:stop], add_special_tokens=False).ids
            finally:
                hf_backend.encode_special_tokens = False
        if match:
            ids.append(hf_backend.token_to_id(match.group()))
            done = match.end()
    return ids


def _hf_backend(name):
    from tokenizers import Tokenizer as HFTokenizer

    return HFTokenizer.from_file(str(hf_folder(name) / "tokenizer.json"))


def _specials(tok):
    return [t.content for t in tok.get_added_tokens_decoder().values() if t.special]


def test_reserved_literal_policy(pair):
    name, ours, hf = pair
    literal = LITERAL[name]
    literal_id = ours.token_to_id(literal)
    content = f"say {literal} now{literal}"
    messages = [{"role": "user", "content": content}, {"role": "assistant", "content": f"{literal}ok"}, {"role": "user", "content": "x"}]
    clean = [{**m, "content": m["content"].replace(literal, "")} for m in messages]
    expected = hf_ids(hf, messages)
    template_count = ours.apply_chat_template(clean).count(literal_id)
    assert expected.count(literal_id) == template_count + 3  # transformers turns user text into the control token
    assert ours.apply_chat_template(messages, special_text="allow") == expected
    escaped = ours.apply_chat_template(messages)
    assert escaped.count(literal_id) == template_count
    text = hf.apply_chat_template(messages, tokenize=False)
    assert ours.decode(escaped, skip_special_tokens=False) == text
    spans = [(m.start(), m.end()) for m in re.finditer(re.escape(content) + "|" + re.escape(f"{literal}ok"), text)]
    assert escaped == hf_escaped_reference(hf.backend_tokenizer, text, spans, _specials(ours))
    with pytest.raises(ReservedLiteralError) as info:
        ours.apply_chat_template(messages, special_text="reject")
    assert (info.value.index, info.value.token) == (0, literal)
    assert f"message 0" in str(info.value) and literal in str(info.value)
    with pytest.raises(ReservedLiteralError):
        ours.apply_chat_template(messages, special_text="reject", tokenize=False)


ALPHABET = st.sampled_from(["a", "b", " ", "\n", "  ", "é", "你", "😀", "<", "|", ">", "im_", "end", "<|im_end|>",
                            "<|im_start|>", "<|endoftext|>", "<tool_call>", "1", "x y"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.lists(ALPHABET, max_size=8).map("".join), min_size=1, max_size=4))
def test_escape_property_qwen(parts):
    """Any content: escape equals the HF reference, never yields a special id inside content, decodes
    back to the rendered text; without literals it equals transformers' ids."""
    ours, hf, backend = _qwen()
    roles = ["user", "assistant"]
    messages = [{"role": roles[i % 2], "content": text} for i, text in enumerate(parts)]
    text = hf.apply_chat_template(messages, tokenize=False)
    assert ours.apply_chat_template(messages, tokenize=False) == text
    escaped = ours.apply_chat_template(messages)
    assert ours.decode(escaped, skip_special_tokens=False) == text
    assert ours.apply_chat_template(messages, special_text="allow") == hf_ids(hf, messages)
    has_literal = any(s in p for p in parts for s in _specials(ours))
    if not has_literal:
        assert escaped == hf_ids(hf, messages)
    template_ids = ours.apply_chat_template([{**m, "content": ""} for m in messages])
    special_ids = {ours.token_to_id(s) for s in _specials(ours)}
    assert sorted(i for i in escaped if i in special_ids) == sorted(i for i in template_ids if i in special_ids)


@functools.cache
def _qwen():
    """Qwen2.5 in bytepair, transformers and HF tokenizers, until the module ends (conftest clears it)."""
    folder = hf_folder("qwen2_5")
    return (bytepair.Tokenizer.from_pretrained(folder), transformers.AutoTokenizer.from_pretrained(str(folder)),
            _hf_backend("qwen2_5"))


def test_escape_in_fields_it_does_not_protect_is_an_error():
    ours = _qwen()[0]
    messages = [{"role": "user", "content": "hi", "name": "x<|im_start|>"}]
    with pytest.raises(ReservedLiteralError, match="protects message content only"):
        ours.apply_chat_template(messages)
    assert ours.apply_chat_template(messages, special_text="allow")


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("pair", ["gemma3"], indirect=True)  # the module's gemma3, not another copy beside it
def test_template_raise_exception_becomes_template_error(pair):
    ours = pair[1]
    with pytest.raises(TemplateError, match="Conversation roles must alternate"):
        ours.apply_chat_template([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}])


def test_missing_template_names_the_file_and_the_argument():
    ours = bytepair.Tokenizer.from_pretrained(hf_folder("gpt2"))
    with pytest.raises(TemplateError, match=r"tokenizer_config\.json has no chat_template.*chat_template="):
        ours.apply_chat_template([{"role": "user", "content": "hi"}])
    # Passing one works, and equals transformers with the same template.
    template = "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}"
    hf = transformers.AutoTokenizer.from_pretrained(str(hf_folder("gpt2")))
    messages = [{"role": "user", "content": "hi <|endoftext|>"}]
    assert ours.apply_chat_template(messages, chat_template=template, special_text="allow") == hf_ids(hf, messages, chat_template=template)
    enc_tok = bytepair.Tokenizer.from_encoding("o200k_base")
    with pytest.raises(TemplateError, match="chat_template="):
        enc_tok.apply_chat_template(messages)


def test_named_templates():
    tok = _qwen()[0]
    tok2 = bytepair.Tokenizer.from_pretrained(hf_folder("qwen2_5"))
    tok2.chat_template = {"default": "D{{ messages[0].content }}", "tool_use": "T{{ messages[0].content }}"}
    messages = [{"role": "user", "content": "x"}]
    assert tok2.apply_chat_template(messages, tokenize=False) == "Dx"
    assert tok2.apply_chat_template(messages, tokenize=False, tools=[{"type": "function", "function": {"name": "f"}}]) == "Tx"
    assert tok2.apply_chat_template(messages, tokenize=False, chat_template="tool_use") == "Tx"
    assert tok.apply_chat_template(messages, tokenize=False, chat_template="{{ foo }}", foo="bar") == "bar"


@pytest.mark.parametrize("content, message", [
    (42, "content is a int"),
    ({"text": "x"}, "content is a dict"),
    ([{"text": "no type"}], "must be a dict with a 'type'"),
    ([{"type": "text"}], "without a 'text' string"),
])
def test_content_types(content, message):
    with pytest.raises(InvalidInputError, match=message):
        _qwen()[0].apply_chat_template([{"role": "user", "content": content}])


@pytest.mark.parametrize("messages, message", [
    ("hi", "list of dicts"),
    ([], "empty"),
    (["hi"], "message 0 is a str"),
    ([{"content": "x"}], "no 'role'"),
])
def test_bad_messages(messages, message):
    with pytest.raises(InvalidInputError, match=message):
        _qwen()[0].apply_chat_template(messages)


def test_unknown_role_the_template_drops():
    ours, hf, _ = _qwen()
    messages = [{"role": "narrator", "content": "Once upon a time"}, {"role": "user", "content": "hi"}]
    assert "Once upon" not in hf.apply_chat_template(messages, tokenize=False)  # transformers drops it silently
    with pytest.raises(TemplateError, match="role 'narrator'"):
        ours.apply_chat_template(messages)


@pytest.mark.parametrize("template, message", [
    ("{% for %}", "does not parse"),
    ("{{ ''.__class__.__mro__ }}", "failed"),
    ("{{ messages[0].content + 1 }}", "failed"),
    ("{% set ns = namespace(_x=1) %}", "namespace"),
    ("{% generation %}{{ messages[0].content }}{% endgeneration %}", None),
])
def test_template_errors_are_typed(template, message):
    tok = _qwen()[0]
    if message is None:
        assert tok.apply_chat_template([{"role": "user", "content": "ok"}], chat_template=template, tokenize=False) == "ok"
        return
    with pytest.raises(TemplateError, match=message):
        tok.apply_chat_template([{"role": "user", "content": "ok"}], chat_template=template)


def test_bad_options():
    tok = _qwen()[0]
    messages = [{"role": "user", "content": "x"}]
    with pytest.raises(InvalidInputError, match="special_text"):
        tok.apply_chat_template(messages, special_text="ignore")
    with pytest.raises(InvalidInputError, match="tools"):
        tok.apply_chat_template(messages, tools=[print])
    with pytest.raises(InvalidInputError, match="continue_final_message"):
        tok.apply_chat_template(messages, continue_final_message=True, add_generation_prompt=True)


def test_missing_jinja2_names_the_extra(monkeypatch):
    compile_template.cache_clear()
    monkeypatch.setitem(sys.modules, "jinja2", None)
    try:
        with pytest.raises(MissingDependencyError, match=r"pip install bytepair\[chat\]"):
            _qwen()[0].apply_chat_template([{"role": "user", "content": "x"}])
    finally:
        compile_template.cache_clear()


def test_batched_conversations():
    ours, hf, _ = _qwen()
    batch = [CONVERSATIONS["single"], CONVERSATIONS["code"]]
    assert ours.apply_chat_template(batch) == [hf_ids(hf, c) for c in batch]


# ---------------------------------------------------------------- the two new tokenizer.json files
@pytest.mark.parametrize("pair", ["gemma3", "llama3_1"], indirect=True)  # the module's copies, not more beside them
def test_new_tokenizers_equal_hf_tokenizers(pair):
    """Gemma 3 (SentencePiece-style BPE with byte fallback) and Llama 3.1 load with HF-identical ids."""
    name, ours, _ = pair
    texts = [*corpus_texts().values(), "", "   ", "\u0000\ufeff\U0010ffff", "x" * 3000, "<bos>a<eos>b<start_of_turn>"]
    # HF reads the file in a process of its own: a third tokenizer beside the pair was the peak of
    # the test worker running this file.
    references = iter(hf_encode_in_a_child(hf_folder(name) / "tokenizer.json", texts, (False, True)))
    for text in texts:
        for special in (False, True):
            got, expected = ours.encode(text, add_special_tokens=special), next(references)
            assert got.ids == expected["ids"]
            assert got.offsets == [tuple(o) for o in expected["offsets"]]
        assert ours.decode(got.ids) == expected["decoded"]


def test_truncation_as_transformers_and_options_that_would_do_nothing():
    folder = hf_folder("qwen2_5")
    ours, hf = bytepair.Tokenizer.from_pretrained(folder), transformers.AutoTokenizer.from_pretrained(str(folder))
    messages = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello there"}]
    for n in (0, 3, 10_000):
        expected = hf.apply_chat_template(messages, truncation=True, max_length=n, return_dict=True,
                                          return_assistant_tokens_mask=True, chat_template=GENERATION_TEMPLATES["header too"][1])
        got = ours.apply_chat_template(messages, truncation=True, max_length=n, return_dict=True,
                                       return_assistant_tokens_mask=True, chat_template=GENERATION_TEMPLATES["header too"][1])
        assert {k: list(v) for k, v in expected.items()} == got
        assert ours.apply_chat_template(messages, truncation=True, max_length=n) == hf.apply_chat_template(
            messages, truncation=True, max_length=n, return_dict=False)
    for option in ({"padding": True}, {"return_tensors": "np"}, {"tokenizer_kwargs": {"x": 1}}, {"truncation": True}):
        with pytest.raises(bytepair.InvalidInputError):
            ours.apply_chat_template(messages, **option)
    assert ours.apply_chat_template(messages, padding=False, return_tensors=None) == hf_ids(hf, messages)


def test_save_pretrained_is_a_folder_transformers_and_bytepair_read_back(pair, tmp_path):
    """tokenizer.json + tokenizer_config.json as from_pretrained reads them, with the chat template
    and the added tokens: transformers loads the folder and renders the same ids."""
    name, tok, hf = pair
    messages = CONVERSATIONS["system_multi_turn"]
    written = {p.rsplit("/", 1)[-1] for p in tok.save_pretrained(tmp_path)}
    assert {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"} <= written
    expected = hf_ids(hf, messages, add_generation_prompt=True)
    # One copy loaded at a time beside the pair (gemma3's two tokenizers are ~600 MB).
    again = bytepair.Tokenizer.from_pretrained(tmp_path)
    assert again.apply_chat_template(messages, add_generation_prompt=True) == expected
    assert again.special_tokens_map == tok.special_tokens_map
    del again
    # transformers reads the folder in a process of its own: a third tokenizer beside the pair was
    # the peak of the test worker running this file (gemma3's).
    saved = transformers_reads_back(tmp_path, messages)
    assert saved["ids"] == expected
    assert saved["added"] == sorted(hf.added_tokens_decoder)
    assert saved["special_tokens_map"] == json.loads(json.dumps(hf.special_tokens_map))
    assert saved["special_ids"] == [hf.bos_token_id, hf.eos_token_id, hf.pad_token_id, hf.unk_token_id]
