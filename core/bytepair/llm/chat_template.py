"""Chat templates: ``Tokenizer.apply_chat_template`` with transformers' rendering, assistant masks
and a policy for special-token literals in message text.

Why a module of its own: a chat prompt is a Jinja template rendered over the messages, then encoded
as one string. transformers does exactly that, so a special token's literal typed by a user
(``"<|im_end|>"``) becomes the real control token. Here the rendered string is encoded the same way
(so ids equal transformers'), but we also know where each message's text landed in it:

1. the template is rendered twice, once as is and once with every content string wrapped in
   private-use markers (or, when the template trims, with the markers inside the whitespace);
   when the marked render, markers removed, equals the plain one, the markers give each content's
   ``[start, end)`` in the prompt. Otherwise the contents are "not located" and the features that
   need positions fall back to a guarded path or a clear error, never to a guess.
2. ``special_text`` says what a special-token literal inside content does: ``"escape"`` (default)
   encodes it as plain text, ``"reject"`` raises :class:`ReservedLiteralError` naming the message
   and the token, ``"allow"`` keeps transformers' behaviour (for trusted text).
3. the assistant mask is 1 on the tokens that overlap an assistant reply and on the special token
   that closes it (``<|eot_id|>``, ``<|im_end|>``, ``<end_of_turn>``...), for every template.

jinja2 is imported only when a template is rendered (``pip install bytepair[chat]``). The sandbox,
options, filters and globals are those transformers gives templates (an immutable sandbox,
``trim_blocks``, ``lstrip_blocks``, loop controls, ``raise_exception``, ``tojson`` with its options,
``strftime_now``, a ``{% generation %}`` block that renders its body).

>>> messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "  yo "}]
>>> template = "{% for m in messages %}<{{ m.role }}>{{ m.content | trim }}</s>{% endfor %}"
>>> text, spans = render_located(template, messages)
>>> text
'<user>hi</s><assistant>yo</s>'
>>> [(s.message, text[s.start:s.end]) for s in spans]
[(0, 'hi'), (1, 'yo')]
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..added_tokens.vocabulary import AddedToken, AddedVocabulary
from ..errors import InvalidInputError, MissingDependencyError, ReservedLiteralError, TemplateError, UnsupportedTokenizerError
from ..text.offsets import first_token_at
from ..added_tokens.scan import trie_pattern

if TYPE_CHECKING:  # pragma: no cover
    from ..tokenizer import Tokenizer

__all__ = ["POLICIES", "Span", "apply_chat_template", "compile_template", "generation_mask", "generation_spans", "render_located",
           "template_settings"]

POLICIES = ("escape", "reject", "allow")
STANDARD_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "ipython", "function"})
_PROTECTED = ("content", "reasoning_content", "thinking")  # the message fields whose text is located
_REASONING = ("reasoning_content", "thinking", "reasoning")  # names a reply's reasoning comes under
_TOKEN_KEYS = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")
_CONTINUE_TAG = "CONTINUE_FINAL_MESSAGE_TAG "  # what transformers appends to find the cut point

# Markers: U+FFF00..U+FFF03 (plane 15 private use) around a decimal index; U+FFF04/U+FFF05 around
# what a {% generation %} block rendered.
_OPEN, _OPEN_END, _CLOSE, _CLOSE_END = "\U000fff00", "\U000fff01", "\U000fff02", "\U000fff03"
_GEN_OPEN, _GEN_CLOSE = "\U000fff04", "\U000fff05"
_MARK_RE = re.compile(f"{_OPEN}(\\d+){_OPEN_END}|{_CLOSE}(\\d+){_CLOSE_END}")
_MARK_CHARS_RE = re.compile(f"[{_OPEN}-{_GEN_CLOSE}]")
_GENERATION_TAG = re.compile(r"\{%[-+]?\s*generation\s*[-+]?%\}")


@dataclass(frozen=True)
class Span:
    """Where one message string landed in the rendered prompt: ``text[start:end]``."""

    message: int
    field: str
    start: int
    end: int


# ---------------------------------------------------------------- the Jinja environment
def _jinja() -> Any:
    try:
        import jinja2
        import jinja2.ext
        import jinja2.sandbox
    except ImportError:
        raise MissingDependencyError(
            "chat templates are rendered with jinja2, which is not installed: pip install bytepair[chat]"
        ) from None
    return jinja2


def _raise_exception(message: str) -> None:
    raise TemplateError(f"the chat template rejected the messages: {message}")


def _tojson(value: Any, ensure_ascii: bool = False, indent: int | None = None,
            separators: tuple[str, str] | None = None, sort_keys: bool = False) -> str:
    # Jinja's own tojson escapes HTML characters; templates expect plain JSON.
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def _strftime_now(fmt: str) -> str:
    return datetime.now().strftime(fmt)


@lru_cache(maxsize=32)
def compile_template(source: str, mark_generation: bool = False) -> Any:
    """The Jinja template for ``source``, in the sandboxed environment chat templates expect; with
    ``mark_generation``, what each ``{% generation %}`` block renders is put between markers."""
    jinja2 = _jinja()

    class Generation(jinja2.ext.Extension):  # type: ignore[misc]
        """``{% generation %}...{% endgeneration %}`` marks what a reply's mask covers (transformers'
        assistant masks); its body renders as is, between markers when they are asked for."""

        tags = {"generation"}

        def parse(self, parser: Any) -> Any:
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            if mark_generation:
                nodes = jinja2.nodes
                body = [nodes.Output([nodes.TemplateData(_GEN_OPEN)]), *body, nodes.Output([nodes.TemplateData(_GEN_CLOSE)])]
            return jinja2.nodes.Scope(body).set_lineno(lineno)

    class Namespace(jinja2.utils.Namespace):  # type: ignore[misc]
        """``namespace()`` that refuses underscore names (no way to CPython internals)."""

        def __init__(*args: Any, **kwargs: Any) -> None:  # noqa: N805 - jinja's signature trick
            self, rest = args[0], args[1:]
            values = dict(*rest, **kwargs)
            for name in values:
                _check_name(name)
            jinja2.utils.Namespace.__init__(self, values)

        def __setitem__(self, name: str, value: Any) -> None:
            _check_name(name)
            jinja2.utils.Namespace.__setitem__(self, name, value)

    def _check_name(name: Any) -> None:
        if isinstance(name, str) and name.startswith("_"):
            raise TemplateError(f"a chat template may not store {name!r} in a namespace (names must not start with '_')")

    env = jinja2.sandbox.ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[Generation, jinja2.ext.loopcontrols]
    )
    env.filters["tojson"] = _tojson
    env.globals.update(raise_exception=_raise_exception, strftime_now=_strftime_now, namespace=Namespace)
    try:
        return env.from_string(source)
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(f"the chat template does not parse: {exc.message} (template line {exc.lineno})") from None


def _render(source: str, messages: list[dict[str, Any]], variables: Mapping[str, Any], mark_generation: bool = False) -> str:
    template = compile_template(source, mark_generation)
    jinja2 = _jinja()
    try:
        return str(template.render(messages=messages, **variables))
    except TemplateError:
        raise
    except jinja2.TemplateError as exc:
        raise TemplateError(f"the chat template failed: {type(exc).__name__}: {exc}") from None
    except RecursionError:
        raise TemplateError("the chat template recursed too deeply; check the template") from None
    except Exception as exc:  # a template can raise anything Python can (TypeError on 'a' + 1 ...)
        raise TemplateError(f"the chat template failed: {type(exc).__name__}: {exc}") from None


# ---------------------------------------------------------------- messages
def _plain(value: Any, where: str, depth: int = 0) -> Any:
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
        return {_plain(k, where, depth + 1): _plain(v, where, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v, where, depth + 1) for v in value]
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
        plain = {k: _plain(v, f"message {i}") for k, v in message.items() if v is not None}
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


def _strings(message: dict[str, Any]) -> Iterable[tuple[str, str]]:
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


def _protected(field: str) -> bool:
    head = field.split(".")[0].split("[")[0]
    return head in _PROTECTED and (head != "content" or field == "content" or field.endswith(".text"))


# ---------------------------------------------------------------- rendering with located contents
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
        for field in _PROTECTED:
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


def _locate(source: str, messages: list[dict[str, Any]], variables: Mapping[str, Any], plain: str) -> list[Span] | None:
    if any(_MARK_CHARS_RE.search(text) for m in messages for _, text in _strings(m)) or _MARK_CHARS_RE.search(plain):
        return None
    for trim_aware in (False, True):
        marked_messages, owners = _mark(messages, trim_aware)
        try:
            found = _unmark(_render(source, marked_messages, variables))
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
    if any(_MARK_CHARS_RE.search(text) for m in messages for _, text in _strings(m)) or _MARK_CHARS_RE.search(plain):
        return None
    marked = _render(source, messages, variables, mark_generation=True)
    spans: list[tuple[int, int]] = []
    pieces: list[str] = []
    length, pos, open_at = 0, 0, -1
    for match in re.finditer(f"[{_GEN_OPEN}{_GEN_CLOSE}]", marked):
        chunk = marked[pos:match.start()]
        pieces.append(chunk)
        length += len(chunk)
        pos = match.end()
        if match.group() == _GEN_OPEN:
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
    text = _render(source, prepared, variables)
    return text, _locate(source, prepared, variables, text)


# ---------------------------------------------------------------- template settings
def _token_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return str(value["content"])
    return None


def template_settings(config: Mapping[str, Any], jinja_file_text: str | None = None
                      ) -> tuple[str | dict[str, str] | None, dict[str, str]]:
    """``(chat_template, special_tokens_map)`` of a ``tokenizer_config.json``: the template as a
    string or a ``{name: source}`` dict (``chat_template.jinja`` beside it wins, as in transformers),
    and the token strings templates read (``bos_token``, ``eos_token``, ...).

    >>> template_settings({"chat_template": [{"name": "default", "template": "x"}], "bos_token": {"content": "<s>"}})
    ({'default': 'x'}, {'bos_token': '<s>'})
    """
    raw: Any = jinja_file_text if jinja_file_text is not None else config.get("chat_template")
    template: str | dict[str, str] | None
    if raw is None or isinstance(raw, str):
        template = raw
    elif isinstance(raw, list) and all(isinstance(t, dict) and isinstance(t.get("name"), str)
                                       and isinstance(t.get("template"), str) for t in raw):
        template = {t["name"]: t["template"] for t in raw}
    else:
        raise TemplateError("tokenizer_config.json's chat_template must be a string or a list of {name, template}")
    tokens = {k: text for k in _TOKEN_KEYS if (text := _token_text(config.get(k))) is not None}
    extra = config.get("extra_special_tokens")
    if isinstance(extra, dict):
        tokens.update({k: text for k, v in extra.items() if isinstance(k, str) and (text := _token_text(v)) is not None})
    return template, tokens


def select_template(available: str | dict[str, str] | None, requested: str | None, has_tools: bool, origin: str) -> str:
    """The template source to render: ``requested`` (a source, or a name in a named set), else the
    tokenizer's (``tool_use`` when tools are given and it exists, else ``default``)."""
    if isinstance(available, dict) and requested in available:
        return available[requested]
    if requested is not None:
        if not isinstance(requested, str):
            raise InvalidInputError(f"chat_template must be a Jinja source string or a template name, not {type(requested).__name__}")
        return requested
    if available is None:
        raise TemplateError(
            f"no chat template: {origin} has no chat_template (and no chat_template.jinja beside it); pass the "
            "template's Jinja source with apply_chat_template(..., chat_template='...')"
        )
    if isinstance(available, str):
        return available
    if has_tools and "tool_use" in available:
        return available["tool_use"]
    if "default" in available:
        return available["default"]
    raise TemplateError(f"{origin} has named chat templates {sorted(available)} and none is 'default'; pass chat_template='<name>'")


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
        for field, text in _strings(message):
            if policy == "escape" and _protected(field):
                continue
            found = finder.search(text)
            if found:
                raise _literal_error(found.group(), i, field or "role", policy)
    for name, value in extras.items():
        for field, text in _strings({name: value}):
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
    **template_kwargs: Any,
) -> Any:
    """See :meth:`bytepair.Tokenizer.apply_chat_template`."""
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
                                    **template_kwargs) for m in messages]
    if tools is not None and (isinstance(tools, (str, bytes, Mapping)) or not all(isinstance(t, Mapping) for t in tools)):
        raise InvalidInputError("tools must be a list of JSON-schema dicts (bytepair does not build schemas from Python functions)")
    if documents is not None and (isinstance(documents, (str, bytes, Mapping)) or not all(isinstance(d, Mapping) for d in documents)):
        raise InvalidInputError("documents must be a list of dicts (such as {'title': ..., 'text': ...})")
    source = select_template(tok.chat_template, chat_template, bool(tools), tok.chat_template_origin)
    prepared = prepare_messages(messages)
    specials = _special_tokens(tok)
    finder = _literal_re(tuple(sorted({t.content for t in specials})))
    extras = {"tools": _plain(tools, "tools"), "documents": _plain(documents, "documents")}
    _check_literals(prepared, {k: v for k, v in extras.items() if v is not None}, finder, special_text)
    if continue_final_message:
        _tag_final(prepared)
    variables = {**tok.special_tokens_map, **_plain(template_kwargs, "template variables"), **extras,
                 "add_generation_prompt": add_generation_prompt}
    text = _render(source, prepared, variables)
    need_spans = tokenize and (return_assistant_tokens_mask or special_text == "escape")
    spans = _locate(source, prepared, variables, text) if need_spans else None
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
            for field, text in _strings(message):
                found = finder.search(text) if _protected(field) else None
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
                _protected(f) and t for f, t in _strings(message)):
            raise TemplateError(
                f"message {i} has role {role!r}, which this chat template does not render (its content is not in the "
                f"prompt); use one of the roles the template knows, such as {', '.join(sorted(STANDARD_ROLES))}"
            )
