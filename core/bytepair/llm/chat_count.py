"""``count_chat``: the prompt tokens an OpenAI chat request uses, before sending it.

Why: the API wraps each message in control tokens, so the count is not the sum of the texts'.
For the chat-completions models the overheads are the ones OpenAI's cookbook ("How to count
tokens with tiktoken") documents and checks against the API's ``usage.prompt_tokens``:

* every message costs 3 tokens beyond its fields (gpt-3.5-turbo-0301: 4), every field's value is
  counted as text, a ``name`` costs 1 more (0301: 1 less, the name replaces the role), and the
  reply is primed with 3 tokens;
* tool definitions cost what the cookbook's function-counting recipe adds: per function 7
  (gpt-4o family) or 10 (gpt-3.5-turbo, gpt-4) plus ``name:description``; per parameter 3 plus
  ``name:type:description``, 3 more once if there are parameters; per enum value 3 plus the value,
  3 less once per enum; 12 at the end.

For gpt-oss the prompt is the harmony format, counted exactly from its rendering:
``<|start|>{role}<|message|>{content}<|end|>`` per message (``<|channel|>{channel}`` before the
message token when a message names one; a tool's name stands for its role) and ``<|start|>assistant``
to prime the reply, with the ``o200k_harmony`` encoding. Message text is always counted as text:
a special token's literal inside it costs what its characters cost.

>>> count_chat([{"role": "user", "content": "Hello!"}], model="gpt-4o")
9
>>> count_chat([{"role": "user", "content": "Hello!"}], model="gpt-oss-20b")
8
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInputError, UnknownModelError, UnsupportedTokenizerError
from ..registry import get_encoding

__all__ = ["count_chat", "harmony_ids"]


@dataclass(frozen=True)
class _Rules:
    encoding: str
    per_message: int
    per_name: int
    function_init: int | None  # None: the cookbook documents no tool counting for the model


_REPLY_PRIMING = 3
# Models by exact name, then by family prefix (longest first); the cookbook's table.
_EXACT = {"gpt-3.5-turbo-0301": _Rules("cl100k_base", 4, -1, None)}
_FAMILIES = (
    ("gpt-4o", _Rules("o200k_base", 3, 1, 7)),  # gpt-4o, gpt-4o-mini and dated versions
    ("gpt-4", _Rules("cl100k_base", 3, 1, 10)),  # gpt-4, gpt-4-0613, gpt-4-32k, gpt-4-turbo
    ("gpt-3.5-turbo", _Rules("cl100k_base", 3, 1, 10)),
)
_HARMONY = ("gpt-oss",)
KNOWN_MODELS = ("gpt-3.5-turbo", "gpt-3.5-turbo-0301", "gpt-4", "gpt-4o", "gpt-4o-mini", "gpt-oss-20b", "gpt-oss-120b")


def _rules(model: str) -> _Rules | None:
    if model.startswith("ft:"):  # a fine-tuned model ("ft:gpt-4o-2024-08-06:org::id") formats as its base
        model = model[3:].partition(":")[0]
    if model in _EXACT:
        return _EXACT[model]
    for prefix, rules in _FAMILIES:
        if model.startswith(prefix) and not model.startswith("gpt-4."):  # gpt-4.1, gpt-4.5: not documented
            return rules
    return None


def count_chat(messages: Sequence[Mapping[str, Any]], model: str = "gpt-4o", *,
               tools: Sequence[Mapping[str, Any]] | None = None) -> int:
    """Prompt tokens ``messages`` (and ``tools``) use in a chat request to ``model``.

    Known models: gpt-3.5-turbo (and -0301 with its own overheads), gpt-4, gpt-4o, gpt-4o-mini,
    their dated versions and fine-tuned models of them (``ft:gpt-4o-…``); gpt-oss-20b and
    gpt-oss-120b (harmony format). Others raise
    :class:`UnknownModelError`, since their overheads are not documented.
    """
    if not isinstance(model, str):
        raise InvalidInputError(f"model must be a model name string, not {type(model).__name__}")
    _check_messages(messages)
    if tools is not None and (isinstance(tools, (str, bytes, Mapping)) or not isinstance(tools, Sequence)):
        raise InvalidInputError(f"tools must be a list of tool definitions ({{'type': 'function', 'function': ...}}), not {_json_kind(tools)}")
    if model.startswith(_HARMONY):
        if tools:
            raise UnsupportedTokenizerError(
                "count_chat does not render gpt-oss tool definitions (harmony puts them in the developer message as "
                "TypeScript-like namespaces); render them into a developer message's content and count that"
            )
        return len(harmony_ids(messages))
    rules = _rules(model)
    if rules is None:
        raise UnknownModelError(
            f"count_chat does not know the message overheads of {model!r}; known: {', '.join(KNOWN_MODELS)} "
            "(their dated versions, and fine-tuned ones: ft:gpt-4o-...)"
        )
    enc = get_encoding(rules.encoding)
    total = _REPLY_PRIMING
    for i, message in enumerate(messages):
        total += rules.per_message
        for key, value in message.items():
            if not isinstance(value, str):
                raise InvalidInputError(f"message {i} field {key!r} is {_json_kind(value)}; {_not_text_hint(key, value)}")
            total += enc.count(value, disallowed_special=())
            if key == "name":
                total += rules.per_name
    if tools:
        if rules.function_init is None:
            raise UnknownModelError(f"tool counting is not documented for {model!r}; known: gpt-3.5-turbo, gpt-4, gpt-4o, gpt-4o-mini")
        total += _count_tools(tools, rules.function_init, rules.encoding)
    return total


def _json_kind(value: Any) -> str:
    """What a JSON reader would call ``value``, with its article."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return f"a {type(value).__name__}"


def _not_text_hint(key: str, value: Any) -> str:
    if key == "tool_calls":
        return "count_chat counts string fields only (the cookbook's rule): leave tool_calls out, or pass their JSON as a string"
    if isinstance(value, (list, tuple)):
        return "count_chat counts string fields (the cookbook's rule): join the text parts into one string"
    return "count_chat counts string fields (the cookbook's rule): give it as a string, or leave it out"


def _check_messages(messages: Any) -> None:
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise InvalidInputError(f"messages must be a list of dicts with 'role' and 'content', not {type(messages).__name__}")
    for i, message in enumerate(messages):
        if not isinstance(message, Mapping) or not isinstance(message.get("role"), str):
            raise InvalidInputError(f"message {i} must be a dict with a 'role' string and 'content'")


def _count_tools(tools: Sequence[Mapping[str, Any]], function_init: int, encoding: str) -> int:
    """The cookbook's recipe for tool definitions (OpenAI's ``tools=[{"type": "function", ...}]``)."""
    enc = get_encoding(encoding)

    def n(text: str) -> int:
        return enc.count(text, disallowed_special=())

    total = 0
    for j, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, Mapping) else None
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            raise InvalidInputError(f"tools[{j}] must be {{'type': 'function', 'function': {{'name': ..., 'description': ..., 'parameters': ...}}}}")
        total += function_init + n(f"{function['name']}:{_no_period(function.get('description', ''))}")
        properties = (function.get("parameters") or {}).get("properties") or {}
        if properties:
            total += 3
            for key, spec in properties.items():
                total += 3
                enum = spec.get("enum")
                if enum:
                    total += -3 + sum(3 + n(str(item)) for item in enum)
                total += n(f"{key}:{spec.get('type', '')}:{_no_period(spec.get('description', ''))}")
    return total + 12 if tools else 0


def _no_period(text: str) -> str:
    return text[:-1] if text.endswith(".") else text


def harmony_ids(messages: Sequence[Mapping[str, Any]], *, prime_reply: bool = True) -> list[int]:
    """The ``o200k_harmony`` ids of ``messages`` in the harmony format (message text as text).

    >>> enc = get_encoding("o200k_harmony")
    >>> enc.decode(harmony_ids([{"role": "user", "content": "Hi"}]))
    '<|start|>user<|message|>Hi<|end|><|start|>assistant'
    """
    _check_messages(messages)
    enc = get_encoding("o200k_harmony")
    start, message_token, end, channel_token = (enc.encode_single_token(t) for t in ("<|start|>", "<|message|>", "<|end|>", "<|channel|>"))
    ids: list[int] = []
    for i, message in enumerate(messages):
        unknown = set(message) - {"role", "content", "name", "channel"}
        if unknown:
            raise InvalidInputError(f"message {i} has fields count_chat cannot render in harmony: {sorted(unknown)}")
        content, name, channel = message.get("content", ""), message.get("name"), message.get("channel")
        if not all(isinstance(v, str) for v in (content, name or "", channel or "")):
            raise InvalidInputError(f"message {i}: content, name and channel must be strings")
        header = name if (name and message["role"] == "tool") else message["role"]
        ids += [start, *enc.encode_ordinary(header)]
        if channel:
            ids += [channel_token, *enc.encode_ordinary(channel)]
        ids += [message_token, *enc.encode_ordinary(content), end]
    if prime_reply:
        ids += [start, *enc.encode_ordinary("assistant")]
    return ids
