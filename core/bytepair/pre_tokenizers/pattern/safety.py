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
other repeat or optional part, and no two alternatives that can start with the same character. An
atomic group or a possessive repeat gives nothing back to what surrounds it, but inside it backtracks
as any pattern does until its first match, so its contents are checked as a pattern of their own
(``(?>(a*)*b)`` is refused as ``(a*)*b`` is).

Polynomial blow-up is refused too: in one sequence, an unbounded repeat that gives back followed,
before a part that can fail, by another unbounded part that can take the same characters
(``a*a*b`` is cubic in the text's length over a Split's every start position, ``a*a*a*a*a*a*b``
took 1.7 s to fail on 36 characters). One repeat before a failure (``\\s+(?!\\S)``) is quadratic
where it fails, as in Oniguruma, and allowed; every published pattern has at most that.

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
    if fault is not None and fault[1] == _POLYNOMIAL:
        raise _refused(
            f"{what} {_shown(pattern)} can take time growing as a high power of the text's length ({fault[0]}): "
            "bytepair refuses it rather than hang. Rewrite it so that one repeat takes each run of text (a*a*b is a*b), "
            "or make the first repeat possessive (a*+a*b) or atomic ((?>a*)a*b)"
        )
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
        elif op is sre_constants.ATOMIC_GROUP or op is sre_constants.POSSESSIVE_REPEAT:
            # They give nothing back to what surrounds them (so an enclosing repeat sees one way to
            # match them at a position), but inside they backtrack as any pattern does until their
            # first match: (?>(a*)*b) is as exponential as (a*)*b. Their contents are checked as a
            # pattern of their own, whose end is a tail (the first match found is kept; a possessive
            # repeat X*+ is (?>X*), whose X*, at the group's end, never has to give an X back).
            found = _fault(av if op is sre_constants.ATOMIC_GROUP else av[2], None, True)
            if found is not None:
                return found
    return _ambiguity(items, tail)


_WIDE = 16
"""A repeat whose count may vary by this much or more is "unbounded" for the ambiguity count
(``\\p{N}{1,3}`` and ``?`` are not: they multiply the ways by a small constant)."""


def _ambiguity(items: Any, tail: bool) -> tuple[str, str] | None:
    """Polynomial blow-up in one sequence: two or more unbounded repeats that may give back (greedy or
    lazy) and can take the same characters, before a part that can fail. Each way to share a run of
    text between them is tried before the match fails there, n**(k-1) ways for k of them, and the
    scanner retries at every position: ``a*a*b`` is cubic in the text's length, ``a*a*a*a*a*a*b``
    took 1.7 s to fail on 36 characters. One such repeat (``\\s+(?!\\S)``, ``a*b*c``: ``a`` and ``b`` differ) is
    quadratic where it fails, as in Oniguruma. Repeats after the last part that can fail never give
    back at a tail (``\\s*[\\r\\n]+`` at a pattern's end: the ``+`` keeps its first match). The sequence
    is read with plain groups opened. A part between the two that must take a character the first
    cannot (``a*ba*c``) fixes where the first ends, so they share no run; any other part between
    them is not counted on (``a*[ab]a*c`` shares a run as ``a*a*c`` does): the rule errs on the side
    of refusing, and no published pattern comes near it (each has at most one such repeat before a
    part that can fail)."""
    flat = list(_opened(items))
    end = len(flat)
    if tail:  # the part that can fail last: repeats after it never give back
        end = next((at for at in range(len(flat) - 1, -1, -1) if _can_fail(flat[at])), -1)
    units = list(_units(flat[:max(end, 0)], True))  # (item, whether it must match, path)
    giving = [at for at, ((op, av), _, _) in enumerate(units) if op in _REPEATS and _unbounded(av)]
    # What follows a repeat that gives back costs a scan of the run for each way it gives back if it
    # is unbounded too, even when it gives nothing back itself (a*a*+c, a*(?=a*c), a*(?>a*)c). So
    # does the part that fails last at a tail, unless it is a repeat of one class, which fails at
    # once or succeeds (\s*[\r\n]+ at a tail; not a*(?=a*b) or a*(?:a*b)+).
    scanning = [at for at, (item, _, _) in enumerate(units) if _scans(item)]
    if 0 <= end < len(flat) and _scans(flat[end]) and not _one_class_repeat(flat[end]):
        units.append((flat[end], True, ()))
        scanning.append(len(units) - 1)
    for i in giving:
        mine = _consumed(units[i][0][1][2])
        for j in scanning:
            if j <= i or _exclusive(units[i][2], units[j][2]) or not _meet(mine, _scanned(units[j][0])):
                continue
            # A part between them that must take a character the first cannot take fixes where the
            # first ends (a*ba*c): then the two share no run.
            if any(must and _separator(units[k][0]) and not _meet(mine, _consumed([units[k][0]])) for k in range(i + 1, j)
                   for must in (units[k][1],)):
                continue
            first, second = _text(*units[i][0]), _shown_part(units[j][0])
            return (f"unbounded repeats side by side that can take the same text: {first!r} and {second!r}", _POLYNOMIAL)
    return None


_POLYNOMIAL = "polynomial"
"""The second member of a fault found by :func:`_ambiguity` (an exponential one names its repeat)."""


def _separator(item: tuple[Any, Any]) -> bool:
    """Whether an item must take at least one character, each of one class (a literal, a class, or
    a repeat of one with a minimum of one or more)."""
    op, av = item
    if op in _REPEATS or op is sre_constants.POSSESSIVE_REPEAT:
        return av[0] >= 1 and len(av[2]) == 1 and av[2][0][0] in (sre_constants.LITERAL, sre_constants.IN)
    return op in (sre_constants.LITERAL, sre_constants.IN)


def _opened(items: Any) -> Any:
    """The items of a sequence with plain groups (capturing or not, flags) opened in place."""
    for op, av in items:
        if op is sre_constants.SUBPATTERN:
            yield from _opened(av[3])
        else:
            yield op, av


def _units(items: Any, must: bool, path: tuple[tuple[int, int], ...] = ()) -> Any:
    """The items of an opened sequence with optional parts (``X?``) and choices opened too: a repeat
    inside ``(?:a*)?`` or ``(?:a*|x)`` shares a run with one beside it (``a*(?:a*)?b``) as a plain
    ``a*`` would. Each comes as (item, whether it must match, its path: (choice, branch) pairs, so
    that two branches of one choice, never both taken, are not paired)."""
    for op, av in items:
        if op in _REPEATS and av[1] <= 1:
            yield from _units(_opened(av[2]), False, path)
        elif op is sre_constants.BRANCH:
            for branch, alternative in enumerate(av[1]):
                yield from _units(_opened(alternative), False, (*path, (id(av), branch)))
        else:
            yield (op, av), must, path


def _unbounded(av: Any) -> bool:
    return bool(av[1] == _MAXREPEAT or av[1] - av[0] >= _WIDE)


def _one_class_repeat(item: tuple[Any, Any]) -> bool:
    op, av = item
    return bool((op in _REPEATS or op is sre_constants.POSSESSIVE_REPEAT) and len(av[2]) == 1
                and av[2][0][0] in (sre_constants.LITERAL, sre_constants.IN, sre_constants.ANY))


def _scans(item: tuple[Any, Any]) -> bool:
    """Whether an item can scan a whole run: an unbounded repeat of any kind, or an atomic group or
    a lookaround holding one."""
    op, av = item
    if op in _REPEATS or op is sre_constants.POSSESSIVE_REPEAT:
        return _unbounded(av) or any(_scans(x) for x in av[2])
    if op is sre_constants.SUBPATTERN:
        return any(_scans(x) for x in av[3])
    if op is sre_constants.ATOMIC_GROUP:
        return any(_scans(x) for x in av)
    if op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
        return any(_scans(x) for x in av[1])
    if op is sre_constants.BRANCH:
        return any(_scans(x) for alternative in av[1] for x in alternative)
    return False


def _scanned(item: tuple[Any, Any]) -> tuple[tuple[int, int], ...]:
    """The characters a scanning item can take (a lookaround's, though it keeps none)."""
    op, av = item
    if op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
        return _consumed(av[1])
    return _consumed([item])


def _exclusive(a: tuple[tuple[int, int], ...], b: tuple[tuple[int, int], ...]) -> bool:
    """Whether two paths go through different branches of one choice."""
    branches = dict(a)
    return any(choice in branches and branches[choice] != branch for choice, branch in b)


def _can_fail(item: tuple[Any, Any]) -> bool:
    """Whether an item can fail to match (an optional repeat, or a choice with an optional branch, cannot)."""
    op, av = item
    if op in _REPEATS or op is sre_constants.POSSESSIVE_REPEAT:
        return av[0] > 0 and any(_can_fail(x) for x in av[2])
    if op is sre_constants.SUBPATTERN:
        return any(_can_fail(x) for x in av[3])
    if op is sre_constants.ATOMIC_GROUP:
        return any(_can_fail(x) for x in av)
    if op is sre_constants.BRANCH:
        return all(any(_can_fail(x) for x in alternative) for alternative in av[1])
    return True


_ALL = ((0, 0x10FFFF),)


def _consumed(items: Any) -> tuple[tuple[int, int], ...]:
    """The code points a (sub)pattern can consume anywhere, as ranges (coarse: a category, a
    backreference or anything unusual is every character)."""
    out: list[tuple[int, int]] = []
    for op, av in items:
        if op is sre_constants.LITERAL:
            out.append((av, av))
        elif op is sre_constants.IN:
            ranges: list[tuple[int, int]] = []
            negated = False
            for kind, value in av:
                if kind is sre_constants.LITERAL:
                    ranges.append((value, value))
                elif kind is sre_constants.RANGE:
                    ranges.append(value)
                elif kind is sre_constants.NEGATE:
                    negated = True
                else:  # a category (\s, \w, \d) or a case-folding form: take it as anything
                    return _ALL
            out.extend(_complement(ranges) if negated else ranges)
        elif op in _REPEATS or op is sre_constants.POSSESSIVE_REPEAT:
            out.extend(_consumed(av[2]))
        elif op is sre_constants.SUBPATTERN:
            out.extend(_consumed(av[3]))
        elif op is sre_constants.ATOMIC_GROUP:
            out.extend(_consumed(av))
        elif op is sre_constants.BRANCH:
            for alternative in av[1]:
                out.extend(_consumed(alternative))
        elif op in (sre_constants.AT, sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            continue  # consumes nothing
        else:
            return _ALL
    return tuple(out)


def _complement(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out, start = [], 0
    for low, high in sorted(ranges):
        if low > start:
            out.append((start, low - 1))
        start = max(start, high + 1)
    if start <= 0x10FFFF:
        out.append((start, 0x10FFFF))
    return out


def _meet(a: tuple[tuple[int, int], ...], b: tuple[tuple[int, int], ...]) -> bool:
    """Whether two range lists share a code point."""
    b_sorted = sorted(b)
    for low, high in a:
        for other_low, other_high in b_sorted:
            if other_low > high:
                break
            if other_high >= low:
                return True
    return False


def _shown_part(item: tuple[Any, Any]) -> str:
    op, av = item
    if op in _REPEATS or op is sre_constants.POSSESSIVE_REPEAT:
        return _text(op, av) + ("+" if op is sre_constants.POSSESSIVE_REPEAT else "")
    return {sre_constants.ATOMIC_GROUP: "(?>...)", sre_constants.ASSERT: "(?=...)",
            sre_constants.ASSERT_NOT: "(?!...)"}.get(op, _atom(op, av))


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
