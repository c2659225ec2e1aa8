"""Budgets for a chat template's run: time, size and depth.

Why: a chat template is code a stranger wrote (any ``tokenizer_config.json``), run in-process, and
in the browser in the runtime every tokenizer on the page shares. Jinja's immutable sandbox keeps it
away from Python's internals, not from looping for hours, building a gigabyte string or nesting
until the parser overflows. So each ``apply_chat_template`` call runs under a :class:`TemplateBudget`:

- **time**: a deadline. Each round of a ``{% for %}`` loop (the only way a template repeats, besides
  macros calling themselves), each call and each piece of output counts a check, and the clock is
  read once per 1,024 checks: a template cannot run long without making them.
- **size**: the output is counted as it is produced, and what can build a big value in one step is
  checked *before* it runs: the operators ``*``, ``**``, ``+``, ``%`` and ``~``, calls (widths of
  ``str.center``/``ljust``/``rjust``/``zfill``/``format``, ``replace``, ``join``; every argument and
  result, so a macro cannot double a string without bound), filters (``center``, ``indent``,
  ``replace``, ``join``, ``format``, ``wordwrap``, ``tojson``'s indent) and what a ``namespace()``
  stores.
- **depth**: the source is at most ``MAX_TEMPLATE_CHARS`` long, and a template nested too deep to
  compile, or recursing too deep as it renders, is refused.

Going over raises :class:`~bytepair.errors.TemplateLimitError`, which names the budget and the option
that changes it (``template_timeout``, ``template_max_chars``).

>>> with TemplateBudget(seconds=5, chars=100).running():
...     check_size(10 ** 6, "'x' * 1000000")
Traceback (most recent call last):
...
bytepair.llm.limits.Exceeded: the chat template would build a value of 1,000,000 characters ('x' * 1000000), over its size budget of 100; pass template_max_chars=... to allow more
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache, wraps
from time import monotonic
from typing import Any, TypeVar

from ..errors import InvalidArgumentError, TemplateLimitError

__all__ = ["DEFAULT_MAX_CHARS", "GROWING_FILTERS", "DEFAULT_SECONDS", "MAX_TEMPLATE_CHARS", "Exceeded", "TemplateBudget", "bounded_filter",
           "check_binop", "check_call", "check_size", "check_time", "checked_loop", "concat_size", "current_run", "sandbox_class", "size_of"]

DEFAULT_SECONDS = 20.0
"""Real templates render in milliseconds; a prompt of millions of tokens in well under a second."""
DEFAULT_MAX_CHARS = 1 << 25
"""33.5 M characters: ~8 M tokens, beyond any model's context."""
MAX_TEMPLATE_CHARS = 1 << 18
"""The longest published chat templates are ~20 k characters; 32 compiled ones are kept."""
MAX_INT_BITS = 1 << 16
"""Integers a template may build (~20,000 digits): ``9 ** 9 ** 9`` would run for hours in one step."""
MAX_JSON_INDENT = 1 << 10
_CHECK_EVERY = 1024  # trace events between two looks at the clock


class Exceeded(BaseException):
    """A budget ran out. A ``BaseException`` so that no ``except Exception`` on the way (Jinja's
    filters catch ``ValueError``) takes it for an ordinary failure; ``render`` turns it into the
    :class:`TemplateLimitError` it carries."""

    def __init__(self, error: TemplateLimitError) -> None:
        super().__init__(str(error))
        self.error = error


@dataclass(frozen=True)
class TemplateBudget:
    """How long one chat-template call may run (``seconds``, every render of the call together) and
    how many characters any value it builds, and its output, may hold (``chars``).

    >>> TemplateBudget(seconds=0)
    Traceback (most recent call last):
    ...
    bytepair.errors.InvalidArgumentError: template_timeout must be a positive number of seconds, not 0
    """

    seconds: float = DEFAULT_SECONDS
    chars: int = DEFAULT_MAX_CHARS

    def __post_init__(self) -> None:
        seconds, chars = self.seconds, self.chars
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 < seconds < float("inf"):
            raise InvalidArgumentError(f"template_timeout must be a positive number of seconds, not {seconds!r}")
        if isinstance(chars, bool) or not isinstance(chars, int) or chars <= 0:
            raise InvalidArgumentError(f"template_max_chars must be a positive int, not {chars!r}")

    @contextmanager
    def running(self) -> Iterator[None]:
        """Hold this budget, with one deadline, for the renders inside (an outer one holds if set)."""
        if _RUN.get() is not None:
            yield
            return
        token = _RUN.set(_Run(self))
        try:
            yield
        finally:
            _RUN.reset(token)


class _Run:
    __slots__ = ("budget", "chars", "deadline", "events")

    def __init__(self, budget: TemplateBudget) -> None:
        self.budget = budget
        self.chars = budget.chars
        self.deadline = monotonic() + budget.seconds
        self.events = 0

    def tick(self) -> None:
        """Count a check; read the clock at every ``_CHECK_EVERY``-th."""
        self.events += 1
        if not self.events % _CHECK_EVERY and monotonic() > self.deadline:
            raise Exceeded(_out_of_time(self.budget))


_RUN: ContextVar[_Run | None] = ContextVar("bytepair_template_run", default=None)


def _out_of_time(budget: TemplateBudget) -> TemplateLimitError:
    return TemplateLimitError(f"the chat template ran past its time budget of {budget.seconds:g} s (it may loop without "
                              "end); pass template_timeout=... (seconds) to allow more", limit="time")


def current_run() -> _Run:
    """The budget running now (inside ``TemplateBudget.running``)."""
    run = _RUN.get()
    if run is None:
        raise RuntimeError("no template budget is running")  # a bug of ours, never the template's
    return run


def check_time() -> None:
    """Count a check of the running budget's deadline (``_Run.tick``)."""
    run = _RUN.get()
    if run is not None:
        run.tick()


def checked_loop(items: Any) -> Any:
    """``items`` for a ``{% for %}`` loop, counting a check of the deadline per round.

    >>> list(checked_loop("ab"))
    ['a', 'b']
    """
    run = _RUN.get()
    return items if run is None else _counted(items, run)


def _counted(items: Any, run: _Run) -> Iterator[Any]:
    for item in items:
        run.tick()
        yield item


def check_size(chars: int, what: str) -> None:
    """Raise :class:`Exceeded` if a value of ``chars`` characters (or items) is over the budget."""
    run = _RUN.get()
    if run is not None and chars > run.budget.chars:
        raise Exceeded(TemplateLimitError(
            f"the chat template would build a value of {chars:,} characters ({what}), over its size budget of "
            f"{run.budget.chars:,}; pass template_max_chars=... to allow more", limit="size"))


def _check_bits(bits: int, what: str) -> None:
    if bits > MAX_INT_BITS:
        raise Exceeded(TemplateLimitError(
            f"the chat template would build an integer of {bits:,} bits ({what}); templates may use integers of up "
            f"to {MAX_INT_BITS:,} bits", limit="size"))


def size_of(value: Any) -> int:
    """Characters of a string, items of a container, 0 for anything else.

    >>> size_of("abc"), size_of([1, 2]), size_of(7)
    (3, 2, 0)
    """
    return len(value) if type(value) in _SIZED or isinstance(value, (str, list, tuple, dict)) else 0


def _is_sequence(value: Any) -> bool:
    return isinstance(value, (str, bytes, list, tuple))


def _is_int(value: Any) -> bool:
    return isinstance(value, int)


# ---------------------------------------------------------------- operators
_SIZED = frozenset({str, bytes, list, tuple, dict, set, frozenset})

_PERCENT_FIELD = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\d+|\*)?(?:\.(\d+|\*))?")
_DIGITS = re.compile(r"\d+")
_NESTED_SPEC = re.compile(r"\{[^{}]*\{")


def _widths(numbers: Iterator[str], star_args: tuple[Any, ...]) -> int:
    found = [int(n) for n in numbers if n and n != "*"]
    found += [a for a in star_args if _is_int(a)]
    return max(found, default=0)


def _percent_width(fmt: str, args: Any) -> int:
    """The widest field a ``%`` format asks for (``*`` widths read from ``args``)."""
    fields = _PERCENT_FIELD.findall(fmt)
    stars = tuple(args) if isinstance(args, tuple) else (args,)
    return _widths((n for pair in fields for n in pair), stars if any("*" in pair for pair in fields) else ())


def _format_width(fmt: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    """The widest field a ``str.format`` string may ask for (nested ``{}`` widths read from the arguments)."""
    nested = (*args, *kwargs.values()) if _NESTED_SPEC.search(fmt) else ()
    return _widths(iter(_DIGITS.findall(fmt)), nested)


def check_binop(operator: str, left: Any, right: Any) -> None:
    """Check what ``left operator right`` would build before it is built.

    >>> with TemplateBudget(chars=10).running():
    ...     check_binop("*", "ab", 5)
    ...     check_binop("+", [1] * 6, [2] * 6)
    Traceback (most recent call last):
    ...
    bytepair.llm.limits.Exceeded: the chat template would build a value of 12 characters (a + b), over its size budget of 10; pass template_max_chars=... to allow more
    """
    if operator == "+":
        if _is_sequence(left) and _is_sequence(right):
            check_size(len(left) + len(right), "a + b")
    elif operator == "*":
        if _is_int(left) and _is_int(right):
            _check_bits(left.bit_length() + right.bit_length(), "a * b")
        elif _is_sequence(left) and _is_int(right):
            check_size(len(left) * right, "a * n")
        elif _is_int(left) and _is_sequence(right):
            check_size(left * len(right), "n * a")
    elif operator == "**":
        if _is_int(left) and _is_int(right) and right > 0:
            _check_bits(max(left.bit_length() - 1, 1) * right if abs(left) > 1 else 1, "a ** b")
    elif operator == "%" and isinstance(left, str):
        check_size(len(left) + _percent_width(left, right), "a % b")


def concat_size(values: tuple[Any, ...]) -> int:
    """About the characters ``a ~ b ~ ...`` makes (containers count 2 characters an item)."""
    return sum(len(v) if isinstance(v, str) else 2 * size_of(v) for v in values)


# ---------------------------------------------------------------- calls and filters
def _replaced_size(text: str, old: Any, new: Any, count: Any = -1) -> int:
    if not (isinstance(old, str) and isinstance(new, str)):
        return len(text)
    found = len(text) + 1 if old == "" else text.count(old)
    if _is_int(count) and count >= 0:
        found = min(found, count)
    return len(text) + found * (len(new) - len(old))


def _joined_size(sep: str, items: Any) -> int:
    if not isinstance(items, (list, tuple)):
        return 0
    return sum(len(item) if isinstance(item, str) else 8 for item in items) + len(sep) * max(len(items) - 1, 0)


def _str_method_size(text: str, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    first = args[0] if args else None
    if name in ("center", "ljust", "rjust", "zfill") and _is_int(first):
        return max(first, len(text))
    if name == "expandtabs":
        tabsize = first if _is_int(first) else kwargs.get("tabsize", 8)
        return len(text) * max(tabsize, 1) if _is_int(tabsize) else len(text)
    if name == "replace" and len(args) >= 2:
        return _replaced_size(text, args[0], args[1], args[2] if len(args) > 2 else kwargs.get("count", -1))
    if name == "join":
        return _joined_size(text, first)
    if name in ("format", "format_map"):
        return len(text) + _format_width(text, args, kwargs)
    return len(text)


def check_call(run: _Run, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Check a call a template makes: the deadline, each argument's size, and what a ``str`` method
    would build (``"x".center(10 ** 9)``)."""
    run.tick()
    for value in (*args, *kwargs.values()) if kwargs else args:
        if type(value) in _SIZED and len(value) > run.chars:
            check_size(len(value), "an argument of a call")
    inner = getattr(func, "__wrapped__", func)  # Jinja wraps str.format for its sandbox
    owner = getattr(inner, "__self__", None)
    if type(owner) is str:
        name = getattr(inner, "__name__", "")
        if name in _GROWING_STR_METHODS:
            check_size(_str_method_size(owner, name, args, kwargs), f"str.{name}")
    elif getattr(inner, "__name__", "") == "generate_lorem_ipsum":  # Jinja's lipsum(n, html, min, max)
        n, most = (list(args) + [5, True, 20, 100])[0], (list(args) + [5, True, 20, 100])[3]
        n, most = kwargs.get("n", n), kwargs.get("max", most)
        if _is_int(n) and _is_int(most):
            check_size(8 * n * most, "lipsum")


_GROWING_STR_METHODS = frozenset({"center", "ljust", "rjust", "zfill", "expandtabs", "replace", "join", "format", "format_map"})


def _filter_size(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:
    """What a filter would build, for those that can build more than they are given."""
    value = args[0] if args else None
    rest = args[1:]
    if not isinstance(value, str):
        if name == "join":
            sep = rest[0] if rest else kwargs.get("d", "")
            return _joined_size(sep if isinstance(sep, str) else "", value)
        return 0
    if name == "center":
        width = rest[0] if rest else kwargs.get("width", 80)
        return max(width, len(value)) if _is_int(width) else len(value)
    if name == "indent":
        width = rest[0] if rest else kwargs.get("width", 4)
        step = width if _is_int(width) else len(width) if isinstance(width, str) else 0
        return len(value) + (value.count("\n") + 1) * max(step, 0)
    if name == "replace" and len(rest) >= 2:
        return _replaced_size(value, rest[0], rest[1], rest[2] if len(rest) > 2 else kwargs.get("count", -1))
    if name == "format":
        return len(value) + _percent_width(value, tuple(rest) or tuple(kwargs.values()))
    if name == "wordwrap":
        width = rest[0] if rest else kwargs.get("width", 79)
        wrap = rest[2] if len(rest) > 2 else kwargs.get("wrapstring")
        lines = len(value) // max(width, 1) + 1 if _is_int(width) else 1
        return len(value) + lines * (len(wrap) if isinstance(wrap, str) else 1)
    return len(value)


def _check_indent(indent: Any) -> None:
    width = indent if _is_int(indent) else len(indent) if isinstance(indent, str) else 0
    if width > MAX_JSON_INDENT:
        raise Exceeded(TemplateLimitError(
            f"the chat template asks tojson for an indent of {width:,}; templates may indent by up to {MAX_JSON_INDENT:,}",
            limit="size"))


_F = TypeVar("_F", bound=Callable[..., Any])


def bounded_filter(name: str, func: _F) -> _F:
    """``func`` (the filter ``name``), checking first what it would build if it can build more than
    it is given (``GROWING_FILTERS``); other filters as they are."""

    @wraps(func)
    def bounded(*args: Any, **kwargs: Any) -> Any:
        run = _RUN.get()
        if run is None:
            return func(*args, **kwargs)
        plain = args[skip:]
        check_size(_filter_size(name, plain, kwargs), f"the {name} filter")
        if name == "tojson":
            _check_indent(plain[1] if len(plain) > 1 else kwargs.get("indent"))
        return func(*args, **kwargs)

    skip = 1 if hasattr(func, "jinja_pass_arg") else 0  # the environment or context Jinja passes first
    return bounded if name in GROWING_FILTERS else func  # type: ignore[return-value]


GROWING_FILTERS = frozenset({"center", "indent", "replace", "join", "format", "wordwrap", "tojson"})
"""Filters that can build more than they are given."""


# ---------------------------------------------------------------- the environment
@lru_cache(maxsize=1)
def sandbox_class() -> Any:
    """Jinja's immutable sandbox with the checks above in its hooks: operators ``*``, ``**``, ``+``
    and ``%`` (``call_binop``), calls, and, compiled into the template, ``{% for %}`` loops
    (``checked_loop``) and ``~`` (``checked_join``)."""
    from jinja2.compiler import CodeGenerator
    from jinja2.nodes import Call, EnvironmentAttribute
    from jinja2.runtime import markup_join, str_join
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    class Checked(CodeGenerator):  # type: ignore[misc]
        def visit_For(self, node: Any, frame: Any) -> None:  # noqa: N802 - Jinja's visitor name
            node.iter = Call(EnvironmentAttribute("checked_loop"), [node.iter], [], None, None, lineno=node.lineno)
            super().visit_For(node, frame)

        def visit_Concat(self, node: Any, frame: Any) -> None:  # noqa: N802
            self.write("environment.checked_join(context, (")
            for arg in node.nodes:
                self.visit(arg, frame)
                self.write(", ")
            self.write("))")

    class Sandbox(ImmutableSandboxedEnvironment):  # type: ignore[misc]
        code_generator_class = Checked
        intercepted_binops = frozenset({"*", "**", "+", "%"})
        checked_loop = staticmethod(checked_loop)

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            run = _RUN.get()
            if run is not None:
                if type(left) is str and type(right) is str and operator == "+":  # '<|im_start|>' + message.role
                    if len(left) + len(right) > run.chars:
                        check_size(len(left) + len(right), "a + b")
                else:
                    check_binop(operator, left, right)
            return self.binop_table[operator](left, right)

        def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 - Jinja's signature
            run = _RUN.get()
            if run is not None:
                check_call(run, __obj, args, kwargs)
            result = ImmutableSandboxedEnvironment.call(__self, __context, __obj, *args, **kwargs)
            if run is not None and type(result) in _SIZED and len(result) > run.chars:
                check_size(len(result), "what a call returned")
            return result

        @staticmethod
        def checked_join(context: Any, parts: tuple[Any, ...]) -> str:
            check_size(concat_size(parts), "a ~ b")
            eval_ctx = context.eval_ctx
            return str((markup_join if eval_ctx.autoescape or eval_ctx.volatile else str_join)(parts))

    return Sandbox
