"""Patterns that cannot backtrack for ever: checked when a stranger's file is loaded, before they run.

Why: stdlib ``re`` (a backtracking engine, as Oniguruma is) can take exponential time on a pattern
with a repeat inside a repeat, or a repeated choice whose branches can start alike: a
``tokenizer.json`` whose Split regex was ``(a*)*b`` took 149 s to encode ``"a" * 30`` (and froze the
browser runtime that every tokenizer of a page shares). The pre-tokenizer patterns of published
files have neither shape, so such a pattern is refused at load with
:class:`~bytepair.errors.UnsupportedPatternError`, naming it and the part at fault; so is a pattern
longer than :data:`MAX_PATTERN_CHARS` (a 50 MB pattern once took 137 s and 5.9 GB to load).

The check reads the pattern ``re`` will run (the translation, with classes spelled out), so what it
judges is what would run. A repeat counts when it may run more than once and may give back what it
took (greedy or lazy; a possessive repeat or an atomic group gives nothing back, and ``?`` runs at
most once), and when something follows it that can fail (at the very end of the pattern it never
gives back: Oniguruma's ``a{1,3}+``, a repeat of a repeat, is fine there): inside such a repeat, no
other repeat or optional part, and no two alternatives that can start with the same character.

>>> check_pattern(r"\\s+(?!\\S)|\\s+", "a Split pattern")
>>> check_pattern(r"(a*)*b", "a Split pattern")
Traceback (most recent call last):
...
bytepair.errors.UnsupportedPatternError: a Split pattern '(a*)*b' can take exponential time (a repeat inside a repeat: 'a*' inside '(a*)*'): bytepair refuses it rather than hang. Rewrite it without a repeat inside a repeat or a repeated choice whose branches can start alike (a possessive repeat such as x*+ or an atomic group (?>...) is fine)
"""

from __future__ import annotations

import re
from typing import Any

from ...errors import UnsupportedPatternError

try:  # the stdlib's own parser of the patterns it compiles (3.11+: re._parser)
    from re import _parser as sre_parse  # type: ignore[attr-defined]
    from re import _constants as sre_constants  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - older layouts
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

__all__ = ["MAX_PATTERN_CHARS", "check_length", "check_pattern"]

MAX_PATTERN_CHARS = 1 << 16
"""Longer patterns are refused (the longest in a published tokenizer.json is under 300 characters)."""

_REPEATS = {sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT}
_MAXREPEAT = sre_constants.MAXREPEAT
_ANY_CHAR = frozenset({"*"})  # a first-character set that may be anything


def check_pattern(pattern: str, what: str, translated: str | None = None) -> None:
    """Refuse ``pattern`` (named ``what`` in the error) if it is too long or can backtrack
    exponentially; ``translated`` is the ``re`` form that will run (default: ``pattern`` itself)."""
    check_length(pattern, what)
    source = pattern if translated is None else translated
    try:
        tree = sre_parse.parse(source)
    except (re.error, RecursionError):  # compiling it will say what is wrong
        return
    fault = _fault(tree, None)
    if fault is not None:
        inner, _ = fault
        raise _refused(
            f"{what} {_shown(pattern)} can take exponential time ({inner}): bytepair refuses it rather than hang. "
            "Rewrite it without a repeat inside a repeat or a repeated choice whose branches can start alike "
            "(a possessive repeat such as x*+ or an atomic group (?>...) is fine)"
        )


def check_length(pattern: str, what: str) -> None:
    """Refuse a pattern longer than :data:`MAX_PATTERN_CHARS`, before anything compiles it."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise _refused(
            f"{what} is {len(pattern):,} characters long; bytepair refuses patterns longer than {MAX_PATTERN_CHARS:,} "
            "(published pre-tokenizer patterns are under 300): is this the right file?"
        )


def _refused(message: str) -> UnsupportedPatternError:
    error = UnsupportedPatternError(message)
    error.refused = True
    return error


def _shown(pattern: str) -> str:
    return repr(pattern if len(pattern) <= 120 else pattern[:117] + "...")


def _fault(items: Any, repeat: str | None, tail: bool = True) -> tuple[str, str] | None:
    """The first dangerous part of a parsed (sub)pattern, as (what, where), or None. ``repeat`` is
    the enclosing repeat that may run more than once and give back, if any. ``tail``: nothing
    follows these items in the pattern, so a repeat among them never has to give back (once it
    stops, the match has succeeded): ``(?:a{1,3})+`` at the end of a pattern is safe, ``(a+)+b`` not."""
    last = len(items) - 1
    for at, (op, av) in enumerate(items):
        at_end = tail and at == last
        if op in _REPEATS:
            low, high, item = av
            if repeat is not None and high != low:
                return (f"a repeat inside a repeat: {_text(op, av)!r} inside {repeat!r}", repeat)
            if (high > 1 or high == _MAXREPEAT) and not at_end:
                found = _fault(item, _text(op, av), False)
            else:
                found = _fault(item, repeat, at_end)
            if found is not None:
                return found
        elif op is sre_constants.SUBPATTERN:
            found = _fault(av[3], repeat, at_end)
            if found is not None:
                return found
        elif op is sre_constants.BRANCH:
            if repeat is not None and _overlapping(list(av[1])):
                return (f"a repeated choice whose branches can start alike, in {repeat!r}", repeat)
            for alternative in av[1]:
                found = _fault(alternative, repeat, at_end)
                if found is not None:
                    return found
        elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            found = _fault(av[1], None, False)  # a lookaround is matched on its own, all of it if it fails
            if found is not None:
                return found
        # POSSESSIVE_REPEAT and ATOMIC_GROUP give nothing back: nothing inside them can blow up
        # the caller's backtracking (inside, they are matched once per position).
    return None


def _text(op: Any, av: Any) -> str:
    """A short, readable form of a repeat (enough to name it in a message)."""
    low, high, item = av
    body = _body(item)
    suffix = {(0, _MAXREPEAT): "*", (1, _MAXREPEAT): "+", (0, 1): "?"}.get((low, high))
    if suffix is None:
        suffix = f"{{{low},{'' if high == _MAXREPEAT else high}}}"
    return body + suffix + ("?" if op is sre_constants.MIN_REPEAT else "")


def _body(item: Any) -> str:
    """The text of a repeated item: a group's in parentheses, a repeat's in parentheses too."""
    if len(item) == 1 and item[0][0] in _REPEATS:
        return "(" + _text(*item[0]) + ")"
    if len(item) == 1 and item[0][0] is not sre_constants.SUBPATTERN:
        return _atom(*item[0])
    inner = item[0][1][3] if len(item) == 1 else item
    return "(" + "".join(_atom(op, av) for op, av in inner) + ")"


def _atom(op: Any, av: Any) -> str:
    if op is sre_constants.LITERAL:
        return re.escape(chr(av))
    if op in _REPEATS:
        return _text(op, av)
    if op is sre_constants.IN:
        return "[...]"
    if op is sre_constants.ANY:
        return "."
    return "..."


def _overlapping(alternatives: list[Any]) -> bool:
    """Whether two alternatives can start with the same character (or one can match nothing)."""
    seen: set[Any] = set()
    for alternative in alternatives:
        first = _first_chars(alternative)
        if first is None or first & _ANY_CHAR or first & seen or (seen & _ANY_CHAR):
            return True
        seen |= first
    return False


def _first_chars(items: Any) -> set[Any] | None:
    """Characters a (sub)pattern can start with, as code points (``"*"``: any); None if it can match
    the empty string."""
    for op, av in items:
        if op is sre_constants.LITERAL:
            return {av}
        if op is sre_constants.IN:
            chars: set[Any] = set()
            for kind, value in av:
                if kind is sre_constants.LITERAL:
                    chars.add(value)
                elif kind is sre_constants.RANGE and value[1] - value[0] < 4096:
                    chars.update(range(value[0], value[1] + 1))
                else:  # a negation, a category or a wide range: take it as anything
                    return set(_ANY_CHAR)
            return chars
        if op is sre_constants.SUBPATTERN:
            return _first_chars(av[3])
        if op in _REPEATS or op is sre_constants.POSSESSIVE_REPEAT:
            if av[0] == 0:
                return None
            return _first_chars(av[2])
        if op in (sre_constants.AT, sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            continue
        return set(_ANY_CHAR)
    return None
