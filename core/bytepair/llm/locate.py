"""Messages made ready for a template, and the template rendered so that each message's text is found
in the prompt.

How: the template is rendered twice, once as is and once with every content string wrapped in
private-use markers (or, when the template trims, with the markers inside the whitespace); when the
marked render, markers removed, equals the plain one, the markers give each content's ``[start,
end)`` in the prompt. Otherwise the contents are "not located" (None), and the features that need
positions fall back to a guarded path or a clear error, never to a guess. ``{% generation %}``
blocks are found the same way (``generation_spans``).

>>> messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "  yo "}]
>>> template = "{% for m in messages %}<{{ m.role }}>{{ m.content | trim }}</s>{% endfor %}"
>>> text, spans = render_located(template, messages)
>>> text
'<user>hi</s><assistant>yo</s>'
>>> [(s.message, text[s.start:s.end]) for s in spans]
[(0, 'hi'), (1, 'yo')]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidInputError, TemplateError, TemplateLimitError
from ..text.offsets import first_token_at
from .templates import GENERATION_CLOSE, GENERATION_OPEN, render

__all__ = ["PROTECTED", "Span", "generation_mask", "generation_spans", "locate", "message_strings", "plain_copy",
           "prepare_messages", "protected_field", "render_located"]

PROTECTED = ("content", "reasoning_content", "thinking")
"""The message fields whose text is located (and escaped, under the ``"escape"`` policy)."""
_REASONING = ("reasoning_content", "thinking", "reasoning")  # names a reply's reasoning comes under

# Markers: U+FFF00..U+FFF03 (plane 15 private use) around a decimal index.
_OPEN, _OPEN_END, _CLOSE, _CLOSE_END = "\U000fff00", "\U000fff01", "\U000fff02", "\U000fff03"
_MARK_RE = re.compile(f"{_OPEN}(\\d+){_OPEN_END}|{_CLOSE}(\\d+){_CLOSE_END}")
_MARK_CHARS_RE = re.compile(f"[{_OPEN}-{GENERATION_CLOSE}]")
_GENERATION_TAG = re.compile(r"\{%[-+]?\s*generation\s*[-+]?%\}")


@dataclass(frozen=True)
class Span:
    """Where one message string landed in the rendered prompt: ``text[start:end]``."""

    message: int
    field: str
    start: int
    end: int


def plain_copy(value: Any, where: str, depth: int = 0) -> Any:
    """A JSON-like copy of ``value`` (what a template may see); other objects become ``<TypeName>``."""
    if depth > 64:
        raise InvalidInputError(f"{where} is nested more than 64 levels deep")
    if value is None or type(value) in (str, int, float, bool):
        return value
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, Mapping):
        return {plain_copy(k, where, depth + 1): plain_copy(v, where, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_copy(v, where, depth + 1) for v in value]
    return f"<{type(value).__name__}>"


def prepare_messages(messages: Any) -> list[dict[str, Any]]:
    """Checked, plain copies of ``messages`` as transformers hands them to templates: keys whose value
    is None dropped, reasoning also under ``reasoning_content`` and ``thinking``.

    >>> prepare_messages([{"role": "assistant", "content": "x", "reasoning": "r", "name": None}])
    [{'thinking': 'r', 'role': 'assistant', 'content': 'x', 'reasoning': 'r', 'reasoning_content': 'r'}]
    """
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise InvalidInputError(
            f"messages must be a list of dicts like {{'role': 'user', 'content': 'hi'}}, not {type(messages).__name__}"
        )
    if not messages:
        raise InvalidInputError("messages is empty; a chat needs at least one message")
    out = []
    for i, message in enumerate(messages):
        if not isinstance(message, Mapping):
            raise InvalidInputError(f"message {i} is a {type(message).__name__}; each message must be a dict with 'role' and 'content'")
        plain = {k: plain_copy(v, f"message {i}") for k, v in message.items() if v is not None}
        if not isinstance(plain.get("role"), str):
            raise InvalidInputError(f"message {i} has no 'role' string (such as 'user' or 'assistant')")
        _check_content(plain.get("content"), i)
        reasoning = next((plain[k] for k in _REASONING if plain.get(k) is not None), None)
        if reasoning is not None:
            plain = {"thinking": reasoning, **plain, "reasoning_content": reasoning}
        out.append(plain)
    return out


def _check_content(content: Any, index: int) -> None:
    if content is None or isinstance(content, str):
        return
    if isinstance(content, list):
        for j, part in enumerate(content):
            if not isinstance(part, dict) or not isinstance(part.get("type"), str):
                raise InvalidInputError(f"message {index} content part {j} must be a dict with a 'type', such as {{'type': 'text', 'text': '...'}}")
            if part["type"] == "text" and not isinstance(part.get("text"), str):
                raise InvalidInputError(f"message {index} content part {j} is a text part without a 'text' string")
        return
    raise InvalidInputError(
        f"message {index} content is a {type(content).__name__}; pass a str or a list of parts like {{'type': 'text', 'text': '...'}}"
    )


def message_strings(message: dict[str, Any]) -> Iterable[tuple[str, str]]:
    """``(field, text)`` of every string in a message (content parts as ``content[j].text``)."""
    def walk(value: Any, where: str) -> Iterable[tuple[str, str]]:
        if isinstance(value, str):
            yield where, value
        elif isinstance(value, dict):
            for k, v in value.items():
                yield from walk(v, f"{where}.{k}" if where else str(k))
        elif isinstance(value, list):
            for j, v in enumerate(value):
                yield from walk(v, f"{where}[{j}]")
    yield from walk(message, "")


def protected_field(field: str) -> bool:
    """Whether ``field`` (as ``message_strings`` names it) holds text the prompt's policy protects."""
    head = field.split(".")[0].split("[")[0]
    return head in PROTECTED and (head != "content" or field == "content" or field.endswith(".text"))


def _mark(messages: list[dict[str, Any]], trim_aware: bool) -> tuple[list[dict[str, Any]], list[tuple[int, str, str, str]]]:
    """Copies of ``messages`` with each content string between markers, and per marker index the
    string's ``(message, field, leading whitespace, trailing whitespace)`` left outside the markers."""
    owners: list[tuple[int, str, str, str]] = []

    def wrap(text: str, i: int, field: str) -> str:
        if not text:
            return text  # an empty string marked would look non-empty to the template
        core, lead, trail = text, "", ""
        if trim_aware:  # the whitespace outside the markers, where a template's strip() can take it
            core = text.strip()
            if not core:
                return text
            lead, trail = text[: len(text) - len(text.lstrip())], text[len(text.rstrip()):]
        k = len(owners)
        owners.append((i, field, lead, trail))
        return f"{lead}{_OPEN}{k}{_OPEN_END}{core}{_CLOSE}{k}{_CLOSE_END}{trail}"

    out = []
    for i, message in enumerate(messages):
        copy = dict(message)
        for field in PROTECTED:
            value = copy.get(field)
            if isinstance(value, str):
                copy[field] = wrap(value, i, field)
            elif field == "content" and isinstance(value, list):
                copy[field] = [
                    {**part, "text": wrap(part["text"], i, f"content[{j}].text")} if part.get("type") == "text" else part
                    for j, part in enumerate(value)
                ]
        out.append(copy)
    return out, owners


def _unmark(marked: str) -> tuple[str, dict[int, list[tuple[int, int]]]] | None:
    """The text without markers and each marked string's spans; None if the markers do not pair up."""
    pieces: list[str] = []
    spans: dict[int, list[tuple[int, int]]] = {}
    pos = length = 0
    open_k: int | None = None
    open_at = 0
    for match in _MARK_RE.finditer(marked):
        chunk = marked[pos:match.start()]
        pieces.append(chunk)
        length += len(chunk)
        pos = match.end()
        if match.group(1) is not None:
            if open_k is not None:
                return None
            open_k, open_at = int(match.group(1)), length
        else:
            if open_k != int(match.group(2)):
                return None
            spans.setdefault(open_k, []).append((open_at, length))
            open_k = None
    if open_k is not None:
        return None
    pieces.append(marked[pos:])
    return "".join(pieces), spans


def locate(source: str, messages: list[dict[str, Any]], variables: Mapping[str, Any], plain: str) -> list[Span] | None:
    """Where each message string landed in ``plain`` (the prompt rendered as is), or None."""
    if any(_MARK_CHARS_RE.search(text) for m in messages for _, text in message_strings(m)) or _MARK_CHARS_RE.search(plain):
        return None
    for trim_aware in (False, True):
        marked_messages, owners = _mark(messages, trim_aware)
        try:
            found = _unmark(render(source, marked_messages, variables))
        except TemplateLimitError:
            raise  # out of budget: no other marking can do better
        except TemplateError:
            continue
        if found is not None and found[0] == plain:
            spans = []
            for k, pairs in found[1].items():
                i, field, lead, trail = owners[k]
                for s, e in pairs:
                    # Whitespace the template kept (it is there, next to the core) is the string's too.
                    s -= len(lead) if lead and plain[s - len(lead):s] == lead else 0
                    e += len(trail) if trail and plain[e:e + len(trail)] == trail else 0
                    spans.append(Span(i, field, s, e))
            return sorted(spans, key=lambda span: (span.start, span.end))
    return None


def generation_spans(source: str, messages: list[dict[str, Any]], variables: Mapping[str, Any], plain: str) -> list[tuple[int, int]] | None:
    """Where each ``{% generation %}`` block's output landed in ``plain`` (the prompt rendered without
    markers), in order; None if the template has no such block or the markers cannot be told from
    the text."""
    if not _GENERATION_TAG.search(source):
        return None
    if any(_MARK_CHARS_RE.search(text) for m in messages for _, text in message_strings(m)) or _MARK_CHARS_RE.search(plain):
        return None
    marked = render(source, messages, variables, mark_generation=True)
    spans: list[tuple[int, int]] = []
    pieces: list[str] = []
    length, pos, open_at = 0, 0, -1
    for match in re.finditer(f"[{GENERATION_OPEN}{GENERATION_CLOSE}]", marked):
        chunk = marked[pos:match.start()]
        pieces.append(chunk)
        length += len(chunk)
        pos = match.end()
        if match.group() == GENERATION_OPEN:
            if open_at >= 0:
                return None  # nested blocks: transformers does not nest them either
            open_at = length
        else:
            if open_at < 0:
                return None
            spans.append((open_at, length))
            open_at = -1
    pieces.append(marked[pos:])
    if open_at >= 0 or "".join(pieces) != plain:
        return None
    return spans


def generation_mask(spans: list[tuple[int, int]], offsets: list[tuple[int, int]]) -> list[int]:
    """transformers' assistant mask from ``{% generation %}`` blocks: for each block's ``[start, end)``
    characters, the tokens from the one holding its first character to the one holding its last
    (to the end if no token holds that one); none from the first block whose start no token holds
    on (``char_to_token`` is None: transformers stops there). A block that rendered nothing masks
    nothing.

    >>> generation_mask([(2, 5)], [(0, 2), (2, 4), (4, 6), (6, 7)])
    [0, 1, 1, 0]
    """
    mask = [0] * len(offsets)
    starts = [start for start, _ in offsets]
    for start, end in spans:
        first = first_token_at(offsets, start, starts)
        if first is None:
            break
        last = first_token_at(offsets, end - 1, starts)
        for index in range(first, last + 1 if last is not None else len(offsets)):
            mask[index] = 1
    return mask


def render_located(source: str, messages: Any, *, add_generation_prompt: bool = False,
                   **variables: Any) -> tuple[str, list[Span] | None]:
    """The rendered prompt and where each message string landed in it (None if not located)."""
    prepared = prepare_messages(messages)
    variables = {"add_generation_prompt": add_generation_prompt, **variables}
    text = render(source, prepared, variables)
    return text, locate(source, prepared, variables, text)


