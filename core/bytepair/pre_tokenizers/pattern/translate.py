"""Translate a tokenizer pattern (tiktoken / Rust ``regex`` syntax) into a stdlib ``re`` pattern.

Why: tiktoken's patterns use ``\\p{L}``-style classes that stdlib ``re`` lacks, and stdlib ``\\s``
differs from Unicode White_Space (it also matches U+001C..U+001F). Pyodide has no ``regex`` package,
so every class is expanded into explicit ranges from the pinned tables, and the few places where
Python's reading of the syntax differs from Rust's are rewritten:

* ``$`` outside a class means *end of text* in Rust (no multi-line flag); in Python it also
  matches before a final newline, so it becomes ``\\Z``.
* ``\\s``/``\\S``/``\\d``/``\\D`` and ``\\p{..}``/``\\P{..}`` become explicit ranges.
* ``\\x{HHHH}`` becomes ``\\UHHHHHHHH``; groups become non-capturing (matches are used whole).

``dialect="onig"`` reads the pattern as Oniguruma (Ruby syntax) does, the engine Hugging Face
``tokenizers`` runs ``Split`` patterns on (tests/pre_tokenizers/test_onig_unicode.py holds each rule to it):

* ``^`` and ``$`` are the start and end of a *line* (after / before any ``\\n``, or the text's
  ends); ``\\Z`` also matches before a final ``\\n``; ``{n,m}+`` is not possessive but a repetition
  of the repetition, ``(?:X{n,m})+``, and ``{n}?`` is not lazy but optional, ``(?:X{n})?``.
* ``(?i:...)`` folds as Oniguruma does, not as ``re`` does: a literal ASCII letter matches its two
  cases plus U+212A KELVIN SIGN for k and U+017F LONG S for s (never the Turkish I forms that ``re``
  adds); a bracket class is closed under those folds before any ``^`` negates it; a bare ``\\p{..}``
  is not folded at all. So case-insensitive parts are spelled out and no ``re`` flag is used. What
  the folds cannot express (non-ASCII cased literals, and letter pairs such as ``ss`` or ``fi`` that
  Oniguruma also matches as one ligature like U+00DF or U+FB01) raises.
* ``\\s``, ``.`` and the classes read alike.

With ``bmp_only=True`` the expanded classes keep only their BMP part: the caller then replaces every
astral character by a BMP stand-in of the same class before matching (see ``astral.py``), which lets
``re`` compile each class to a constant-time bitmap instead of a linear list of ranges.

Anything the translation cannot reproduce exactly (``\\w``, ``\\b``, scripts such as ``\\p{Han}``,
other inline flags ...) raises :class:`UntranslatablePatternError`; the caller may then fall back
to the ``regex`` package if it is installed.
"""

from __future__ import annotations

from dataclasses import dataclass

from bisect import bisect_right
from functools import cache

from .unicode_classes import CLASS_NAMES, class_ranges, complement_ranges, merge_ranges

__all__ = ["Translation", "UntranslatablePatternError", "translate"]

Ranges = tuple[tuple[int, int], ...]


class UntranslatablePatternError(ValueError):
    """The pattern uses syntax whose meaning stdlib ``re`` cannot reproduce exactly."""


@dataclass(frozen=True)
class Translation:
    pattern: str
    """The stdlib ``re`` pattern."""
    literals: frozenset[str]
    """Every character the source pattern names literally (stand-ins must avoid them)."""
    has_astral_literal: bool
    """A literal or range above U+FFFF occurs, so astral stand-ins cannot be used."""


_SIMPLE_CLASS_ESCAPES = {"s": ("White_Space", False), "S": ("White_Space", True),
                         "d": ("Nd", False), "D": ("Nd", True)}
# Escapes that mean the same single character in Rust and in Python.
_CHAR_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "f": "\f", "v": "\v", "a": "\a", "0": "\0"}
_ANCHORS = {"A": r"\A", "z": r"\Z", "Z": r"\Z"}
_ONIG_ANCHORS = {**_ANCHORS, "Z": r"(?=\n?\Z)"}
# Oniguruma's only single-character case folds that reach ASCII letters from outside ASCII.
_ASCII_FOLD_EXTRA = {"k": "\u212a", "s": "\u017f"}
# ASCII letter pairs that are the full case folding of one character (U+00DF, U+FB00 ...), which
# Oniguruma matches in a case-insensitive string; stdlib re cannot.
_MULTI_CHAR_FOLDS = ("ss", "st", "ff", "fi", "fl")


@cache
def _caseless_ranges() -> Ranges:
    """Non-ASCII code points with no case folding in any Unicode version: punctuation, decimal digits,
    white space and symbols except the circled letters U+24B6..U+24E9."""
    symbols = [r for lo, hi in class_ranges("S") for r in ((lo, min(hi, 0x24B5)), (max(lo, 0x24EA), hi)) if r[0] <= r[1]]
    return merge_ranges([*class_ranges("P"), *class_ranges("Nd"), *class_ranges("White_Space"), *symbols])


def _is_caseless(lo: int, hi: int) -> bool:
    ranges = _caseless_ranges()
    i = bisect_right(ranges, (lo, 0x110000)) - 1
    return i >= 0 and ranges[i][0] <= lo and hi <= ranges[i][1]


def _ascii_fold(ch: str) -> str:
    """``ch`` and the characters Oniguruma's case-insensitive match equates with it (``ch`` is ASCII)."""
    if not ch.isalpha():
        return ch
    low = ch.lower()
    return low + low.upper() + _ASCII_FOLD_EXTRA.get(low, "")


def _esc(cp: int) -> str:
    return f"\\u{cp:04X}" if cp <= 0xFFFF else f"\\U{cp:08X}"


# Inside a class only these need a backslash; everything else is written as the character itself,
# which ``re`` parses several times faster than ``\uXXXX`` escapes (the classes hold thousands).
_CLASS_SPECIAL = frozenset("\\]-^[")


def _class_char(cp: int) -> str:
    ch = chr(cp)
    return "\\" + ch if ch in _CLASS_SPECIAL else ch


def _render_ranges(ranges: Ranges, bmp_only: bool) -> str:
    parts: list[str] = []
    for lo, hi in ranges:
        if bmp_only:
            if lo > 0xFFFF:
                continue
            hi = min(hi, 0xFFFF)
        parts.append(_class_char(lo) if lo == hi else f"{_class_char(lo)}-{_class_char(hi)}")
    return "".join(parts)


class _Translator:
    def __init__(self, src: str, bmp_only: bool, dialect: str = "tiktoken") -> None:
        if dialect not in ("tiktoken", "onig"):
            raise ValueError(f"unknown regex dialect {dialect!r}")
        self.src = src
        self.pos = 0
        self.bmp_only = bmp_only
        self.onig = dialect == "onig"
        self.out: list[str] = []
        self.literals: set[str] = set()
        self.astral = False
        # Oniguruma reading only: whether case-insensitivity is on, saved at each open group, the
        # index in ``out`` where the last atom and each open group begin, and the run of literal
        # letters so far (a case-insensitive string, checked for multi-character folds).
        self.icase = False
        self.groups: list[tuple[int, bool]] = []
        self.atom = 0
        self.letters = ""

    # -- helpers ---------------------------------------------------------------------------
    def fail(self, what: str) -> UntranslatablePatternError:
        return UntranslatablePatternError(
            f"{what} at position {self.pos} of pattern {self.src!r} has no exact stdlib-re "
            "equivalent; install the `regex` package to use this pattern"
        )

    def peek(self, k: int = 0) -> str:
        i = self.pos + k
        return self.src[i] if i < len(self.src) else ""

    def literal(self, ch: str) -> str:
        self.literals.add(ch)
        if ord(ch) > 0xFFFF:
            self.astral = True
        return ch

    def folded_literal(self, ch: str) -> str:
        """The ``re`` text of literal ``ch`` outside a class, case-folded as Oniguruma does if on."""
        if not (self.onig and self.icase):
            return ch
        if not ch.isascii():
            if not _is_caseless(ord(ch), ord(ch)):
                raise self.fail(f"case-insensitive non-ASCII character {ch!r}")
            return ch
        self.letters = self.letters + ch.lower() if ch.isalpha() else ""
        if self.letters.endswith(_MULTI_CHAR_FOLDS):
            raise self.fail(f"case-insensitive {self.letters[-2:]!r} (Oniguruma also matches its ligature)")
        variants = _ascii_fold(ch)
        self.literals.update(variants)
        return f"[{variants}]" if len(variants) > 1 else ch

    def read_property(self) -> tuple[str, bool]:
        """At ``\\p`` or ``\\P``: return (class name, negated) and advance past it."""
        negated = self.src[self.pos + 1] == "P"
        self.pos += 2
        if self.peek() == "{":
            end = self.src.find("}", self.pos)
            if end < 0:
                raise self.fail("unterminated \\p{")
            name = self.src[self.pos + 1 : end]
            self.pos = end + 1
        else:
            name = self.peek()
            self.pos += 1
        if name.startswith("^"):
            name, negated = name[1:], not negated
        if name not in CLASS_NAMES:
            raise self.fail(f"Unicode class \\p{{{name}}}")
        return name, negated

    def read_hex_escape(self) -> str:
        """At ``\\x``, ``\\u`` or ``\\U``: return the character and advance past it."""
        kind = self.src[self.pos + 1]
        self.pos += 2
        if kind == "x" and self.peek() == "{":
            end = self.src.find("}", self.pos)
            digits = self.src[self.pos + 1 : end] if end > 0 else ""
            self.pos = end + 1
        else:
            width = {"x": 2, "u": 4, "U": 8}[kind]
            digits = self.src[self.pos : self.pos + width]
            self.pos += width
        try:
            cp = int(digits, 16)
            return chr(cp)
        except ValueError:
            raise self.fail(f"hex escape {digits!r}") from None

    def class_item_ranges(self, name: str, negated: bool) -> Ranges:
        ranges = class_ranges(name)
        return complement_ranges(ranges) if negated else ranges

    # -- outside a class -------------------------------------------------------------------
    def run(self) -> Translation:
        src = self.src
        while self.pos < len(src):
            ch = src[self.pos]
            if ch in "*+?{":
                self.quantifier(ch)
                continue
            if ch not in "\\[$^(|.)" or (ch == "\\" and self.peek(1) in ("x", "u", "U")):
                pass  # a literal: it may continue a case-insensitive run of letters
            else:
                self.letters = ""
            if ch == ")":
                self.out.append(ch)
                self.pos += 1
                if self.groups:
                    self.atom, self.icase = self.groups.pop()
                continue
            self.atom = len(self.out)
            if ch == "\\":
                self.escape_outside()
            elif ch == "[":
                self.char_class()
            elif ch == "$":
                self.out.append(r"(?![^\n])" if self.onig else r"\Z")
                self.pos += 1
            elif ch == "^":
                self.out.append(r"(?<![^\n])" if self.onig else "^")
                self.pos += 1
            elif ch == "(":
                self.group_open()
            elif ch in "|.":
                self.out.append(ch)
                self.pos += 1
            else:
                self.out.append(self.folded_literal(self.literal(ch)))
                self.pos += 1
        return Translation("".join(self.out), frozenset(self.literals), self.astral)

    def quantifier(self, ch: str) -> None:
        """At ``*``, ``+``, ``?`` or ``{``: copy the quantifier (with its ``?``/``+`` suffix)."""
        self.letters = ""
        if ch != "{":
            self.out.append(ch)
            self.pos += 1
            return
        end = self.src.find("}", self.pos)
        if end < 0:
            raise self.fail("unterminated repetition")
        bounds = self.src[self.pos : end + 1]
        self.pos = end + 1
        suffix = self.peek()
        if self.onig and (suffix == "+" or (suffix == "?" and "," not in bounds)):
            # Oniguruma (Ruby syntax): X{n,m}+ is (?:X{n,m})+, a repetition of the repetition, not
            # possessive; X{n}? is (?:X{n})?, optional, not lazy (X{n,m}? is lazy as in re).
            self.pos += 1
            self.out[self.atom :] = ["(?:", *self.out[self.atom :], bounds, ")" + suffix]
            return
        self.out.append(bounds)

    def escape_outside(self) -> None:
        nxt = self.peek(1)
        if nxt in ("p", "P"):
            name, negated = self.read_property()
            body = _render_ranges(self.class_item_ranges(name, negated), self.bmp_only)
            self.out.append(f"[{body}]")
        elif nxt in _SIMPLE_CLASS_ESCAPES:
            name, negated = _SIMPLE_CLASS_ESCAPES[nxt]
            self.pos += 2
            self.out.append(f"[{_render_ranges(self.class_item_ranges(name, negated), self.bmp_only)}]")
        elif nxt in ("x", "u", "U"):
            ch = self.literal(self.read_hex_escape())
            folded = self.folded_literal(ch)
            self.out.append(_esc(ord(ch)) if folded == ch else folded)
        elif nxt in _CHAR_ESCAPES:
            self.literal(_CHAR_ESCAPES[nxt])
            self.out.append("\\" + nxt)
            self.pos += 2
        elif nxt in _ANCHORS:
            self.out.append((_ONIG_ANCHORS if self.onig else _ANCHORS)[nxt])
            self.pos += 2
        elif nxt == "N":  # any character but a newline (Oniguruma; \r is one)
            self.out.append("[^\\n]")
            self.pos += 2
        elif self.onig and nxt in _ONIG_ESCAPES:
            self.out.append(_ONIG_ESCAPES[nxt])
            self.pos += 2
        elif nxt and not nxt.isalnum():
            self.literal(nxt)
            self.out.append("\\" + nxt)
            self.pos += 2
        else:
            raise self.fail(f"escape \\{nxt}")

    def group_open(self) -> None:
        src = self.src
        start, outer_icase = len(self.out), self.icase
        if self.peek(1) != "?":
            # Capturing groups become non-capturing so that findall() returns whole matches.
            self.out.append("(?:")
            self.pos += 1
            self.groups.append((start, outer_icase))
            return
        rest = src[self.pos + 2 : self.pos + 4]
        for opener in (":", "=", "!", "<=", "<!", ">"):
            if rest.startswith(opener):
                self.out.append("(?" + opener)
                self.pos += 2 + len(opener)
                self.groups.append((start, outer_icase))
                return
        if rest.startswith("P<") or rest.startswith("<"):
            begin = self.pos + 2 + (1 if rest.startswith("P") else 0) + 1
            end = src.find(">", begin)
            if end < 0:
                raise self.fail("unterminated group name")
            self.out.append("(?:")
            self.pos = end + 1
            self.groups.append((start, outer_icase))
            return
        # Inline flags: only case-insensitivity is supported, scoped or global.
        j = self.pos + 2
        while j < len(src) and src[j] not in ":)":
            j += 1
        flags = src[self.pos + 2 : j]
        if j >= len(src) or flags not in ("i", "-i"):
            raise self.fail(f"inline flags ({flags!r})")
        if src[j] == ")" and self.pos != 0:
            raise self.fail("a global flag after the start")
        if self.onig:
            # Oniguruma's folds are spelled out (see folded_literal), so no re flag is needed.
            self.icase = flags == "i"
            if src[j] == ":":
                self.out.append("(?:")
                self.groups.append((start, outer_icase))
        else:
            self.out.append(src[self.pos : j + 1])
        self.pos = j + 1

    # -- inside a class --------------------------------------------------------------------
    def char_class(self) -> None:
        src = self.src
        self.pos += 1
        negated = self.peek() == "^"
        if negated:
            self.pos += 1
        ranges: list[tuple[int, int]] = []
        first = True
        while True:
            if self.pos >= len(src):
                raise self.fail("unterminated character class")
            ch = src[self.pos]
            if ch == "]" and not first:
                self.pos += 1
                break
            first = False
            if ch == "[" or src.startswith(("&&", "--", "~~"), self.pos):
                raise self.fail("nested class or class set operation")
            if ch == "\\" and self.peek(1) in ("p", "P"):
                name, neg = self.read_property()
                ranges.extend(self.class_item_ranges(name, neg))
                continue
            if ch == "\\" and self.peek(1) in _SIMPLE_CLASS_ESCAPES:
                name, neg = _SIMPLE_CLASS_ESCAPES[self.peek(1)]
                self.pos += 2
                ranges.extend(self.class_item_ranges(name, neg))
                continue
            lo = self.class_char()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.pos += 1
                hi = self.class_char()
                if hi < lo:
                    raise self.fail("reversed range")
                ranges.append((ord(lo), ord(hi)))
                if ord(hi) > 0xFFFF:
                    self.astral = True
            else:
                ranges.append((ord(lo), ord(lo)))
        merged = merge_ranges(ranges)
        if self.onig and self.icase:
            merged = self.fold_ranges(merged)
        if negated:
            # Negate here, over the full code-point space, so bmp_only clipping stays exact.
            merged = complement_ranges(merged)
        body = _render_ranges(merged, self.bmp_only)
        # An empty class can match nothing; Python rejects "[]", so spell it out.
        self.out.append(f"[{body}]" if body else r"(?!)")

    def fold_ranges(self, ranges: Ranges) -> Ranges:
        """Close a class under Oniguruma's case folds (its members must be ASCII or caseless)."""
        extra: list[tuple[int, int]] = []
        for lo, hi in ranges:
            if hi > 0x7F and not _is_caseless(max(lo, 0x80), hi):
                raise self.fail("a case-insensitive class with non-ASCII letters")
            for cp in range(lo, min(hi, 0x7F) + 1):
                extra.extend((ord(c), ord(c)) for c in _ascii_fold(chr(cp)))
        return merge_ranges([*ranges, *extra])

    def class_char(self) -> str:
        ch = self.src[self.pos]
        if ch != "\\":
            self.pos += 1
            return self.literal(ch)
        nxt = self.peek(1)
        if nxt in ("x", "u", "U"):
            return self.literal(self.read_hex_escape())
        if nxt in _CHAR_ESCAPES:
            self.pos += 2
            return self.literal(_CHAR_ESCAPES[nxt])
        if nxt and not nxt.isalnum():
            self.pos += 2
            return self.literal(nxt)
        raise self.fail(f"escape \\{nxt} in a class")


_ONIG_ESCAPES = {
    "h": "[0-9A-Fa-f]",  # Oniguruma's hex digit (not Perl's horizontal space)
    "H": "[^0-9A-Fa-f]",
    "R": "(?>\\r\\n|[\\n\\x0b\\x0c\\r\\x85\\u2028\\u2029])",  # a line break, CRLF whole
}
"""Escapes Oniguruma reads its own way (the ``regex`` package, the fallback, would read them otherwise)."""


def translate(pattern: str, *, bmp_only: bool = False, dialect: str = "tiktoken") -> Translation:
    """Translate ``pattern`` to stdlib ``re`` syntax with pinned Unicode classes.

    >>> translate(r"\\s+$").pattern[-2:]
    '\\\\Z'
    >>> translate(r"a$|b{1,3}+", dialect="onig").pattern
    'a(?![^\\\\n])|(?:b{1,3})+'
    >>> translate(r"(?i:'s)", dialect="onig").pattern
    "(?:'[sS\u017f])"
    """
    return _Translator(pattern, bmp_only, dialect).run()
