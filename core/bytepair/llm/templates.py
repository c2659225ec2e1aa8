"""Chat templates as transformers renders them: Jinja in an immutable sandbox, and where templates live.

The sandbox, options, filters and globals are those transformers gives templates (an immutable
sandbox, ``trim_blocks``, ``lstrip_blocks``, loop controls, ``raise_exception``, ``tojson`` with its
options, ``strftime_now``, a ``{% generation %}`` block that renders its body); jinja2 is imported
only when a template is rendered (``pip install bytepair[chat]``). ``template_settings`` reads a
``tokenizer_config.json``'s template and token strings, ``select_template`` picks the one to render.
Every render runs under a time, size and depth budget (``limits.py``).

>>> render("{% for m in messages %}[{{ m.role }}] {{ m.content }}{% endfor %}", [{"role": "user", "content": "hi"}], {})
'[user] hi'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from functools import lru_cache
from typing import Any

from ..errors import InvalidInputError, MissingDependencyError, TemplateError, TemplateLimitError
from .limits import MAX_TEMPLATE_CHARS, Exceeded, TemplateBudget, bounded_filter, check_size, current_run, sandbox_class, size_of

__all__ = ["GENERATION_CLOSE", "GENERATION_OPEN", "TemplateBudget", "compile_template", "render", "select_template",
           "template_settings"]

GENERATION_OPEN, GENERATION_CLOSE = "\U000fff04", "\U000fff05"
"""What a ``{% generation %}`` block's output is put between when marks are asked for (plane 15 private use)."""
_TOKEN_KEYS = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")


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
    if len(source) > MAX_TEMPLATE_CHARS:
        raise TemplateLimitError(f"the chat template is {len(source):,} characters long; templates may have at most "
                                 f"{MAX_TEMPLATE_CHARS:,}", limit="size")

    class Generation(jinja2.ext.Extension):  # type: ignore[misc]
        """``{% generation %}...{% endgeneration %}`` marks what a reply's mask covers (transformers'
        assistant masks); its body renders as is, between markers when they are asked for."""

        tags = {"generation"}

        def parse(self, parser: Any) -> Any:
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            if mark_generation:
                nodes = jinja2.nodes
                body = [nodes.Output([nodes.TemplateData(GENERATION_OPEN)]), *body, nodes.Output([nodes.TemplateData(GENERATION_CLOSE)])]
            return jinja2.nodes.Scope(body).set_lineno(lineno)

    class Namespace(jinja2.utils.Namespace):  # type: ignore[misc]
        """``namespace()`` that refuses underscore names (no way to CPython internals) and values
        over the size budget (a loop doubling a string in a namespace)."""

        def __init__(*args: Any, **kwargs: Any) -> None:  # noqa: N805 - jinja's signature trick
            self, rest = args[0], args[1:]
            values = dict(*rest, **kwargs)
            for name, value in values.items():
                _check_stored(name, value)
            jinja2.utils.Namespace.__init__(self, values)

        def __setitem__(self, name: str, value: Any) -> None:
            _check_stored(name, value)
            jinja2.utils.Namespace.__setitem__(self, name, value)

    def _check_stored(name: Any, value: Any) -> None:
        if isinstance(name, str) and name.startswith("_"):
            raise TemplateError(f"a chat template may not store {name!r} in a namespace (names must not start with '_')")
        check_size(size_of(value), f"the namespace value {name}")

    env = sandbox_class()(trim_blocks=True, lstrip_blocks=True, extensions=[Generation, jinja2.ext.loopcontrols])
    env.filters["tojson"] = _tojson
    env.filters = {name: bounded_filter(name, func) for name, func in env.filters.items()}
    env.globals.update(raise_exception=_raise_exception, strftime_now=_strftime_now, namespace=Namespace)
    try:
        with TemplateBudget().running():  # Jinja computes constant expressions as it compiles
            return env.from_string(source)
    except Exceeded as exc:
        raise exc.error from None
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(f"the chat template does not parse: {exc.message} (template line {exc.lineno})") from None
    except (RecursionError, SyntaxError) as exc:  # SyntaxError: Python's limit of 20 nested blocks
        raise TemplateLimitError(f"the chat template nests too deeply to compile ({type(exc).__name__}: {exc}); "
                                 "flatten its blocks", limit="depth") from None


def render(source: str, messages: list[dict[str, Any]], variables: Mapping[str, Any], mark_generation: bool = False) -> str:
    """``source`` rendered over ``messages`` and ``variables``, within the budget of the call
    (``TemplateBudget.running``; the defaults if none is running); every failure a :class:`TemplateError`."""
    template = compile_template(source, mark_generation)
    jinja2 = _jinja()

    with TemplateBudget().running():
        try:
            return _generate(template, messages, variables)
        except Exceeded as exc:
            raise exc.error from None
        except TemplateError:
            raise
        except jinja2.TemplateError as exc:
            raise TemplateError(f"the chat template failed: {type(exc).__name__}: {exc}") from None
        except RecursionError:
            raise TemplateLimitError("the chat template recursed too deeply as it rendered; check its macros",
                                     limit="depth") from None
        except MemoryError:
            raise TemplateLimitError("out of memory rendering the chat template: pass fewer or shorter messages, or a "
                                     "lower template_max_chars", limit="size") from None
        except Exception as exc:  # a template can raise anything Python can (TypeError on 'a' + 1 ...)
            raise TemplateError(f"the chat template failed: {type(exc).__name__}: {exc}") from None


def _generate(template: Any, messages: list[dict[str, Any]], variables: Mapping[str, Any]) -> str:
    """The template's output, counted as it comes out."""
    parts, length = [], 0
    run = current_run()
    for part in template.generate(messages=messages, **variables):
        length += len(part)
        if length > run.chars:
            check_size(length, "the rendered prompt")
        run.tick()
        parts.append(part)
    return "".join(parts)


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
