"""Chat for JavaScript: messages and options arrive as JSON text; an OpenAI model's chat is counted
by ``bytepair.count_chat`` (and gpt-oss's encoded in the harmony format), a ``tokenizer.json``'s
rendered by its chat template (``chat_settings`` gives it the template of its
``tokenizer_config.json``; JavaScript installs jinja2 before the first such call).

>>> chat_count("o200k_base", '[{"role": "user", "content": "Hello!"}]', '{"model": "gpt-4o"}')
9
"""

from __future__ import annotations

from array import array
from typing import Any

from ..errors import InvalidInputError, UnsupportedTokenizerError, VocabFormatError
from ..llm.chat_count import count_chat, harmony_ids
from ..llm.templates import template_settings
from ..registry import encoding_name_for_model
from .faces import JsonFace, face_of, known_model_name, no_template
from .values import json_arg

__all__ = ["chat_count", "chat_encode", "chat_settings"]


_CHAT_OPTIONS = {
    "model", "tools", "addGenerationPrompt", "specialText", "returnAssistantMask", "returnText",
    "chatTemplate", "continueFinalMessage", "documents", "variables", "templateTimeout", "templateMaxChars",
}


def _chat_options(options_json: Any) -> dict[str, Any]:
    options = json_arg(options_json, "the chat options") if options_json is not None else {}
    if not isinstance(options, dict):
        raise InvalidInputError(f"the chat options must be an object, not {type(options).__name__}")
    unknown = sorted(set(options) - _CHAT_OPTIONS)
    if unknown:
        raise InvalidInputError(f"unknown chat option(s) {', '.join(unknown)}; known: {', '.join(sorted(_CHAT_OPTIONS))}")
    return options


def chat_settings(name: str, config_json: Any) -> bool:
    """Give a loaded tokenizer.json the chat template and token strings of its ``tokenizer_config.json``
    (the whole file, or the part a template reads); True if it has a template.

    >>> from bytepair.web_bridge import load_tokenizer_json, unload_tokenizer
    >>> spec = '{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}}'
    >>> key = load_tokenizer_json(spec, "tiny")["key"]
    >>> chat_settings(key, '{"chat_template": "{{ bos_token }}", "bos_token": "a"}')
    True
    >>> unload_tokenizer(key)
    True
    """
    face = face_of(name)
    if not isinstance(face, JsonFace):
        raise InvalidInputError(f"{name} is an OpenAI encoding: chat templates belong to tokenizer.json tokenizers")
    config = json_arg(config_json, "tokenizer_config.json")
    if not isinstance(config, dict):
        raise VocabFormatError("tokenizer_config.json must hold a JSON object")
    face.tok.chat_template, face.chat_tokens = template_settings(config)
    has_template = face.tok.chat_template is not None
    face.tok.chat_template_origin = f"the {face.name} tokenizer_config.json" if has_template else no_template(face.name)
    return has_template


def _openai_chat(name: str, options: dict[str, Any]) -> str:
    """The model a chat call on an OpenAI encoding is for, checked against the encoding."""
    model = options.get("model")
    if model is None:
        raise InvalidInputError(
            "chat token counts depend on the model, not only the encoding: open the tokenizer with "
            "createTokenizer({ model: 'gpt-4o' }) or pass { model } to the chat call"
        )
    known = known_model_name(model)
    encoding = encoding_name_for_model(known)
    if encoding != face_of(name).name:
        raise InvalidInputError(f"{model} uses {encoding}, not {name}: open createTokenizer({{ model: {model!r} }})")
    return known


def _apply_template(face: JsonFace, messages: Any, options: dict[str, Any]) -> dict[str, Any]:
    variables = options.get("variables") or {}
    if not isinstance(variables, dict):
        raise InvalidInputError("variables must be an object of template variables (such as { enable_thinking: false })")
    kwargs: dict[str, Any] = {
        **face.chat_tokens, **variables,
        "add_generation_prompt": bool(options.get("addGenerationPrompt", False)),
        "tools": options.get("tools"),
        "special_text": options.get("specialText", "escape"),
        "continue_final_message": bool(options.get("continueFinalMessage", False)),
    }
    for key, option in (("chat_template", "chatTemplate"), ("documents", "documents"), ("template_timeout", "templateTimeout"),
                        ("template_max_chars", "templateMaxChars")):
        if options.get(option) is not None:
            kwargs[key] = options[option]
    mask = bool(options.get("returnAssistantMask", False))
    out = face.tok.apply_chat_template(messages, tokenize=True, return_dict=True, return_assistant_tokens_mask=mask, **kwargs)
    answer: dict[str, Any] = {"ids": array("I", out["input_ids"])}
    if mask:
        answer["assistant_mask"] = bytes(out["assistant_masks"])
    if options.get("returnText"):
        answer["text"] = face.tok.apply_chat_template(messages, tokenize=False, **kwargs)
    return answer


def chat_encode(name: str, messages_json: Any, options_json: Any = None) -> dict[str, Any]:
    """The ids of a chat: a tokenizer.json's chat template applied (``{"ids", "assistant_mask"?,
    "text"?}``), or for gpt-oss the harmony format; other OpenAI models publish a count rule only.

    >>> list(chat_encode("o200k_harmony", '[{"role": "user", "content": "Hi"}]', '{"model": "gpt-oss-20b"}')["ids"])[:2]
    [200006, 1428]
    """
    messages = json_arg(messages_json, "messages")
    options = _chat_options(options_json)
    face = face_of(name)
    if isinstance(face, JsonFace):
        return _apply_template(face, messages, options)
    model = _openai_chat(name, options)
    if not model.startswith("gpt-oss"):
        raise UnsupportedTokenizerError(
            f"OpenAI does not publish the token sequence {model} sees for a chat, only how to count it: use countChat "
            "(exact ids exist for gpt-oss, whose harmony format is published)"
        )
    if options.get("tools"):
        raise UnsupportedTokenizerError("gpt-oss tool definitions are not rendered here; put them in a developer message")
    return {"ids": array("I", harmony_ids(messages))}


def chat_count(name: str, messages_json: Any, options_json: Any = None) -> int:
    """Tokens of a chat: ``bytepair.count_chat`` for an OpenAI model (the cookbook's rule, with
    ``tools``), else the length of :func:`chat_encode`'s ids.

    >>> chat_count("o200k_base", '[{"role": "user", "content": "Hello!"}]', '{"model": "gpt-4o"}')
    9
    """
    messages = json_arg(messages_json, "messages")
    options = _chat_options(options_json)
    face = face_of(name)
    if isinstance(face, JsonFace):
        return len(_apply_template(face, messages, {**options, "returnAssistantMask": False, "returnText": False})["ids"])
    return count_chat(messages, model=_openai_chat(name, options), tools=options.get("tools"))
