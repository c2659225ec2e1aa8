"""Chat templates: ``Tokenizer.apply_chat_template`` with transformers' rendering, assistant masks
and a policy for special-token literals in message text.

Why a module of its own: a chat prompt is a Jinja template rendered over the messages, then encoded
as one string. transformers does exactly that, so a special token's literal typed by a user
(``"<|im_end|>"``) becomes the real control token. Here the rendered string is encoded the same way
(so ids equal transformers'), but we also know where each message's text landed in it:

1. the template is rendered as transformers renders it (``templates.py``), and rendered again with
   markers that locate each message's text in the prompt (``locate.py``); where they cannot, the
   features that need positions fall back to a guarded path or a clear error, never to a guess.
2. ``special_text`` says what a special-token literal inside content does: ``"escape"`` (default)
   encodes it as plain text, ``"reject"`` raises :class:`ReservedLiteralError` naming the message
   and the token, ``"allow"`` keeps transformers' behaviour (for trusted text).
3. the assistant mask is 1 on the tokens that overlap an assistant reply and on the special token
   that closes it (``<|eot_id|>``, ``<|im_end|>``, ``<end_of_turn>``...), for every template.

>>> from bytepair import Tokenizer
>>> tok = Tokenizer.from_encoding("cl100k_base")
>>> tok.chat_template = "{% for m in messages %}<|im_start|>{{ m.content }}{% endfor %}"
>>> apply_chat_template(tok, [{"role": "user", "content": "<|endoftext|>"}], tokenize=False)
'<|im_start|><|endoftext|>'
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..added_tokens.scan import trie_pattern
from ..added_tokens.vocabulary import AddedToken, AddedVocabulary
from ..errors import InvalidInputError, ReservedLiteralError, TemplateError, UnsupportedTokenizerError
from .locate import (
    Span,
    generation_mask,
    generation_spans,
    locate,
    message_strings,
    plain_copy,
    prepare_messages,
    protected_field,
    render_located,
)
from .limits import DEFAULT_MAX_CHARS, DEFAULT_SECONDS, TemplateBudget
from .templates import compile_template, render, select_template, template_settings

if TYPE_CHECKING:  # pragma: no cover
    from ..tokenizer import Tokenizer

__all__ = ["POLICIES", "Span", "apply_chat_template", "compile_template", "generation_mask", "generation_spans", "render_located",
           "template_settings"]

POLICIES = ("escape", "reject", "allow")
STANDARD_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "ipython", "function"})
_CONTINUE_TAG = "CONTINUE_FINAL_MESSAGE_TAG "  # what transformers appends to find the cut point


# ---------------------------------------------------------------- special-token literals
def _special_tokens(tok: Tokenizer) -> list[AddedToken]:
    return [t for t in tok.get_added_tokens_decoder().values() if t.special]


@lru_cache(maxsize=16)
def _literal_re(contents: tuple[str, ...]) -> re.Pattern[str] | None:
    return re.compile(trie_pattern(list(contents))) if contents else None


def _check_literals(messages: list[dict[str, Any]], extras: Mapping[str, Any], finder: re.Pattern[str] | None,
                    policy: str) -> None:
    """Reject mode: any special literal anywhere in the inputs. Escape mode: in the strings it does
    not protect (names, tool calls, tools, documents)."""
    if finder is None or policy == "allow":
        return
    for i, message in enumerate(messages):
        for field, text in message_strings(message):
            if policy == "escape" and protected_field(field):
                continue
            found = finder.search(text)
            if found:
                raise _literal_error(found.group(), i, field or "role", policy)
    for name, value in extras.items():
        for field, text in message_strings({name: value}):
            found = finder.search(text)
            if found:
                raise _literal_error(found.group(), None, field, policy)


def _literal_error(token: str, index: int | None, field: str, policy: str) -> ReservedLiteralError:
    where = f"message {index} ({field})" if index is not None else field
    if policy == "reject":
        advice = "remove it, or pass special_text='escape' to encode it as text ('allow' only for trusted text)"
    else:
        advice = ("special_text='escape' protects message content only; remove it, or pass special_text='allow' "
                  "if the text is trusted")
    return ReservedLiteralError(f"{where} contains the special token {token!r}: {advice}", token=token, index=index, field=field)


# ---------------------------------------------------------------- encoding
def _encode_escaped(tok: Tokenizer, text: str, spans: list[Span], specials: list[AddedToken]) -> tuple[list[int], list[tuple[int, int]]]:
    """Ids of ``text`` with special tokens recognised only outside ``spans``: the special tokens are
    found in a copy whose span characters (except whitespace, which lstrip/rstrip may take) are
    blanked out, and the text between them is encoded with special tokens read as text."""
    blank = next(c for c in ("\x00", "\ufffe", "\U0010fffe") if not any(c in t.content for t in specials))
    chars = list(text)
    for span in spans:
        for j in range(span.start, span.end):
            if not chars[j].isspace():
                chars[j] = blank
    finder = AddedVocabulary([t for t in specials if not t.is_normalized])
    ids: list[int] = []
    offsets: list[tuple[int, int]] = []
    saved = tok.encode_special_tokens
    tok.encode_special_tokens = True
    try:
        for _, token_id, start, end in finder.split("".join(chars), normalized=False):
            if token_id is not None:
                ids.append(token_id)
                offsets.append((start, end))
                continue
            if start > 0 and _prepends_first_only(tok):
                raise UnsupportedTokenizerError(
                    "special_text='escape' cannot encode a special-token literal exactly with this tokenizer "
                    "(Metaspace prepend_scheme='first'); pass special_text='reject' or 'allow'"
                )
            encoded = tok.encode(text[start:end], add_special_tokens=False)
            ids += encoded.ids
            offsets += [(start + s, start + e) for s, e in encoded.offsets]
    finally:
        tok.encode_special_tokens = saved
    return ids, offsets


def _prepends_first_only(tok: Tokenizer) -> bool:
    pre = tok.pre_tokenizer
    steps = getattr(pre, "steps", [pre])
    return any(getattr(step, "prepend_scheme", None) == "first" for step in steps)


def _straddled(text: str, spans: list[Span], finder: re.Pattern[str] | None) -> bool:
    """Whether a special token's literal in ``text`` touches a content span (a literal typed in a
    message, or one a message completes with the template's text)."""
    if finder is None or not spans:
        return False
    starts = [s.start for s in spans]
    for match in finder.finditer(text):
        k = bisect_left(starts, match.end())
        if any(spans[j].end > match.start() for j in range(max(0, k - 8), k)):
            return True
    return False


# ---------------------------------------------------------------- assistant masks
def assistant_mask(messages: list[dict[str, Any]], spans: list[Span], text: str, ids: list[int],
                   offsets: list[tuple[int, int]], special_ids: frozenset[int]) -> list[int]:
    """1 on the tokens overlapping each assistant reply (from its first located string to its last)
    and on the special token that closes it (the first one after it, across whitespace only)."""
    regions: dict[int, tuple[int, int]] = {}
    for span in spans:
        if messages[span.message].get("role") == "assistant" and span.end > span.start:
            a, b = regions.get(span.message, (span.start, span.end))
            regions[span.message] = (min(a, span.start), max(b, span.end))
    mask = [0] * len(ids)
    starts = [s for s, _ in offsets]
    for a, b in regions.values():
        j = max(0, bisect_left(starts, a) - 1)
        while j < len(ids) and starts[j] < b:
            s, e = offsets[j]
            if (s < b and e > a) or (s == e and a <= s < b):
                mask[j] = 1
            j += 1
        while j < len(ids) and offsets[j][1] <= b:
            j += 1  # tokens ending at the reply's end (already counted)
        if j < len(ids) and ids[j] in special_ids and not text[b:starts[j]].strip():
            mask[j] = 1
    return mask


# ---------------------------------------------------------------- the whole call
def apply_chat_template(
    tok: Tokenizer,
    messages: Any,
    *,
    add_generation_prompt: bool = False,
    tokenize: bool = True,
    return_dict: bool = False,
    return_assistant_tokens_mask: bool = False,
    tools: list[dict[str, Any]] | None = None,
    documents: list[dict[str, Any]] | None = None,
    chat_template: str | None = None,
    continue_final_message: bool = False,
    special_text: str = "escape",
    truncation: bool = False,
    max_length: int | None = None,
    template_timeout: float = DEFAULT_SECONDS,
    template_max_chars: int = DEFAULT_MAX_CHARS,
    **template_kwargs: Any,
) -> Any:
    """See :meth:`bytepair.Tokenizer.apply_chat_template`."""
    budget = TemplateBudget(template_timeout, template_max_chars)
    for option in _NOT_HERE:
        if template_kwargs.get(option) not in (None, False):
            raise InvalidInputError(
                f"apply_chat_template does not take {option}= here ({_NOT_HERE[option]}); "
                "it returns lists (input_ids, attention_mask, assistant_masks)"
            )
    if truncation and (isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 0):
        raise InvalidInputError(f"truncation=True needs max_length, a non-negative int (not {max_length!r})")
    if special_text not in POLICIES:
        raise InvalidInputError(f"special_text must be one of {', '.join(POLICIES)}, not {special_text!r}")
    if return_assistant_tokens_mask and not (tokenize and return_dict):
        raise InvalidInputError("return_assistant_tokens_mask=True needs tokenize=True and return_dict=True")
    if continue_final_message and (add_generation_prompt or return_assistant_tokens_mask):
        raise InvalidInputError("continue_final_message cannot be combined with add_generation_prompt or return_assistant_tokens_mask")
    if isinstance(messages, (list, tuple)) and messages and isinstance(messages[0], (list, tuple)):
        return [apply_chat_template(tok, m, add_generation_prompt=add_generation_prompt, tokenize=tokenize, return_dict=return_dict,
                                    return_assistant_tokens_mask=return_assistant_tokens_mask, tools=tools, documents=documents,
                                    chat_template=chat_template, continue_final_message=continue_final_message,
                                    special_text=special_text, truncation=truncation, max_length=max_length,
                                    template_timeout=template_timeout, template_max_chars=template_max_chars,
                                    **template_kwargs) for m in messages]
    if tools is not None and (isinstance(tools, (str, bytes, Mapping)) or not all(isinstance(t, Mapping) for t in tools)):
        raise InvalidInputError("tools must be a list of JSON-schema dicts (bytepair does not build schemas from Python functions)")
    if documents is not None and (isinstance(documents, (str, bytes, Mapping)) or not all(isinstance(d, Mapping) for d in documents)):
        raise InvalidInputError("documents must be a list of dicts (such as {'title': ..., 'text': ...})")
    source = select_template(tok.chat_template, chat_template, bool(tools), tok.chat_template_origin)
    prepared = prepare_messages(messages)
    specials = _special_tokens(tok)
    finder = _literal_re(tuple(sorted({t.content for t in specials})))
    extras = {"tools": plain_copy(tools, "tools"), "documents": plain_copy(documents, "documents")}
    _check_literals(prepared, {k: v for k, v in extras.items() if v is not None}, finder, special_text)
    if continue_final_message:
        _tag_final(prepared)
    variables = {**tok.special_tokens_map, **plain_copy(template_kwargs, "template variables"), **extras,
                 "add_generation_prompt": add_generation_prompt}
    need_spans = tokenize and (return_assistant_tokens_mask or special_text == "escape")
    with budget.running():  # one deadline for every render of the call
        text = render(source, prepared, variables)
        spans = locate(source, prepared, variables, text) if need_spans else None
        # A template with {% generation %} blocks says itself what the masks cover, as transformers reads it.
        blocks = generation_spans(source, prepared, variables, text) if tokenize and return_assistant_tokens_mask else None
    if continue_final_message:
        text, spans = _cut_final(text, spans)
    if not tokenize:
        return text
    if spans is None and need_spans:
        _unlocated(prepared, finder, return_assistant_tokens_mask and blocks is None, special_text)
    else:
        _check_roles(prepared, spans)
    escaped = special_text == "escape" and spans is not None and _straddled(text, spans, finder)
    if escaped:
        ids, offsets = _encode_escaped(tok, text, spans or [], specials)
    else:
        encoded = tok.encode(text, add_special_tokens=False)
        ids = encoded.ids
        offsets = encoded.offsets if return_assistant_tokens_mask else []
    if not return_dict:
        return ids[:max_length] if truncation else ids
    out: dict[str, Any] = {"input_ids": ids, "attention_mask": [1] * len(ids)}
    if return_assistant_tokens_mask and blocks is not None:
        out["assistant_masks"] = generation_mask(blocks, offsets)
    elif return_assistant_tokens_mask:
        out["assistant_masks"] = assistant_mask(prepared, spans or [], text, ids, offsets, frozenset(t.id for t in specials))
    if truncation:  # transformers keeps the first max_length tokens
        out = {key: value[:max_length] for key, value in out.items()}
    return out


_NOT_HERE = {
    "padding": "one conversation has nothing to pad to; pad the lists, or use encode_batch with enable_padding",
    "return_tensors": "no tensors without numpy or torch: convert the lists, e.g. numpy.array(ids)",
    "tokenizer_kwargs": "the prompt is encoded as the tokenizer.json encodes text, without options",
}
"""transformers' options of apply_chat_template that bytepair does not take: refused, since a template
would otherwise take them as variables and they would silently do nothing."""


def _tag_final(messages: list[dict[str, Any]]) -> None:
    final = messages[-1]
    content = final.get("content")
    if isinstance(content, str):
        final["content"] = content + _CONTINUE_TAG
        return
    for part in reversed(content or []):
        if part.get("type") == "text":
            part["text"] = part["text"] + _CONTINUE_TAG
            return
    raise InvalidInputError("continue_final_message=True but the final message has no text content to continue")


def _cut_final(text: str, spans: list[Span] | None) -> tuple[str, list[Span] | None]:
    at = text.rfind(_CONTINUE_TAG.strip())
    if at < 0:
        raise TemplateError("continue_final_message=True but the template does not render the final message's content as given")
    cut = at if text.startswith(_CONTINUE_TAG, at) else len(text[:at].rstrip())
    text = text[:cut]
    if spans is not None:
        spans = [Span(s.message, s.field, min(s.start, cut), min(s.end, cut)) for s in spans if s.start <= cut]
    return text, spans


def _unlocated(messages: list[dict[str, Any]], finder: re.Pattern[str] | None, masks: bool, policy: str) -> None:
    """Content that cannot be located is fine unless a feature needs its place."""
    if masks:
        raise TemplateError(
            "cannot compute assistant masks: the template transforms message content in a way bytepair cannot "
            "trace back (it renders it split, truncated or re-encoded); pass return_assistant_tokens_mask=False"
        )
    if policy == "escape" and finder is not None:
        for i, message in enumerate(messages):
            for field, text in message_strings(message):
                found = finder.search(text) if protected_field(field) else None
                if found:
                    raise ReservedLiteralError(
                        f"message {i} ({field}) contains the special token {found.group()!r}, and this template "
                        "transforms content so it cannot be escaped exactly; remove it, or pass special_text='reject' "
                        "or 'allow'", token=found.group(), index=i, field=field)


def _check_roles(messages: list[dict[str, Any]], spans: list[Span] | None) -> None:
    """A message of a role the template ignores (its content is nowhere in the prompt) is an error."""
    if spans is None:
        return
    rendered = {s.message for s in spans}
    for i, message in enumerate(messages):
        role = message["role"]
        if i not in rendered and role not in STANDARD_ROLES and any(
                protected_field(f) and t for f, t in message_strings(message)):
            raise TemplateError(
                f"message {i} has role {role!r}, which this chat template does not render (its content is not in the "
                f"prompt); use one of the roles the template knows, such as {', '.join(sorted(STANDARD_ROLES))}"
            )
