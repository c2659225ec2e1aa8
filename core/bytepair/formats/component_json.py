"""How every stage of a ``tokenizer.json`` is read: one rule for ``{"type": ...}`` objects and patterns.

Why one module: each stage (normalizer, pre-tokenizer, post-processor, decoder) has its own factory
table, but what a bad object gets is the same everywhere: a :class:`VocabFormatError` naming the
JSON path for a malformed one, an :class:`UnsupportedTokenizerError` naming the type, the path and
what is supported for a type bytepair does not implement.

>>> build({"type": "Two"}, "decoder", "decoder", {"Two": lambda o, w: 2})
2
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from ..errors import UnsupportedPatternError, UnsupportedTokenizerError, VocabFormatError

__all__ = ["Regex", "build", "pattern", "pattern_argument"]

T = TypeVar("T")


def build(obj: Any, where: str, stage: str, factories: Mapping[str, Callable[[dict[str, Any], str], T]]) -> T | None:
    """The component ``obj`` describes, from ``factories`` by its ``"type"`` (None for ``null``)."""
    if obj is None:
        return None
    if not isinstance(obj, dict) or "type" not in obj:
        raise VocabFormatError(f"{where}: expected an object with a \"type\", got {obj!r:.80}")
    factory = factories.get(obj["type"])
    if factory is None:
        raise UnsupportedTokenizerError(
            f"{where}: {stage} type {obj['type']!r} is not supported; supported: {', '.join(factories)}"
        )
    try:
        return factory(obj, where)
    except (UnsupportedTokenizerError, VocabFormatError):
        raise
    except UnsupportedPatternError as exc:
        if exc.refused:  # a pattern that would hang or exhaust the process: refused, named
            refused = UnsupportedPatternError(f"{where}: {exc}")
            refused.refused = True
            raise refused from None
        if exc.missing_package:  # the file is fine; this runtime lacks what it needs
            raise UnsupportedTokenizerError(f"{where}: {exc}") from None
        raise VocabFormatError(f"{where}: {exc}") from None
    except (ValueError, TypeError, KeyError, re.error) as exc:
        raise VocabFormatError(f"{where}: {exc}") from None


def pattern(obj: Any, where: str) -> tuple[str, bool]:
    """``{"String": s}`` or ``{"Regex": r}`` as ``(text, is_regex)``."""
    if isinstance(obj, dict) and len(obj) == 1:
        (kind, value), = obj.items()
        if kind in ("String", "Regex") and isinstance(value, str):
            return value, kind == "Regex"
    raise VocabFormatError(f"{where}: expected {{\"String\": ...}} or {{\"Regex\": ...}}, got {obj!r}")


class Regex:
    """A pattern to be read as a regex (HF's ``tokenizers.Regex``): ``Split`` and ``Replace`` read a
    plain ``str`` pattern as literal text, as HF does, and this as an Oniguruma regex.

    >>> pattern_argument(Regex("a+"), None), pattern_argument(".", None)
    (('a+', True), ('.', False))
    """

    __slots__ = ("pattern",)

    def __init__(self, pattern: str) -> None:
        if not isinstance(pattern, str):
            raise TypeError(f"Regex takes a str pattern, got {type(pattern).__name__}")
        self.pattern = pattern

    def __repr__(self) -> str:
        return f"Regex({self.pattern!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Regex) and other.pattern == self.pattern

    def __hash__(self) -> int:
        return hash(("Regex", self.pattern))


def pattern_argument(obj: Any, is_regex: bool | None) -> tuple[str, bool]:
    """A component's ``pattern`` argument as ``(text, is_regex)``: a :class:`Regex` is a regex, a ``str``
    literal text unless ``is_regex=True`` says otherwise (bytepair's own spelling)."""
    if isinstance(obj, Regex):
        if is_regex is False:
            raise TypeError("a Regex pattern with is_regex=False: pass the str for literal text")
        return obj.pattern, True
    if type(obj).__name__ == "Regex" and type(obj).__module__.startswith("tokenizers"):
        raise TypeError("tokenizers.Regex keeps its pattern inside Rust; use bytepair.Regex(pattern) instead")
    if not isinstance(obj, str):
        raise TypeError(f"pattern must be a str (literal text) or bytepair.Regex, got {type(obj).__name__}")
    return obj, bool(is_regex)
