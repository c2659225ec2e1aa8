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

__all__ = ["build", "pattern"]

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
