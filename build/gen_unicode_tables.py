"""Generate ``core/bytepair/pre_tokenizers/pattern/unicode_tables.py``: character classes pinned to one Unicode version.

Why: the tokenizer patterns use ``\\p{L}``, ``\\p{N}``, ``\\s`` ... and the answer must not depend on the
interpreter that runs them (CPython 3.11 ships Unicode 14.0, Pyodide 314 ships 16.0). tiktoken 0.14's
regex engine agrees with Unicode 16.0 on every code point (tests/pre_tokenizers/test_unicode_exhaustive.py proves it),
so the tables are generated from ``unicodedata2==16.0.0`` (a build-time dependency only).

Usage:  python build/gen_unicode_tables.py [--check]
"""

from __future__ import annotations

from pathlib import Path

from generated import write_or_check  # build/ is the script's folder, so first on sys.path

import unicodedata2 as ucd

OUT = Path(__file__).resolve().parent.parent / "core" / "bytepair" / "pre_tokenizers" / "pattern" / "unicode_tables.py"

# General-category buckets the patterns can name. Marks, "other numbers", punctuation and symbols
# are grouped because no pattern distinguishes Mn/Mc/Me, Nl/No, Pc/Pd/... or Sm/Sc/...
BUCKETS = {
    "Lu": ("Lu",),
    "Ll": ("Ll",),
    "Lt": ("Lt",),
    "Lm": ("Lm",),
    "Lo": ("Lo",),
    "M": ("Mn", "Mc", "Me"),
    "Nd": ("Nd",),
    "No": ("Nl", "No"),
    # Punctuation and symbols (tokenizer.json patterns such as DeepSeek's name \p{P} and \p{S}).
    "P": ("Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po"),
    "S": ("Sm", "Sc", "Sk", "So"),
}

# The White_Space property (PropList.txt). It is not exposed by unicodedata and has not changed
# since Unicode 6.3; the generator checks that every listed code point is a separator or control.
WHITE_SPACE = (
    (0x09, 0x0D), (0x20, 0x20), (0x85, 0x85), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
    (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000),
)


def ranges_of(categories: tuple[str, ...]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for cp in range(0x110000):
        if ucd.category(chr(cp)) in categories:
            if out and out[-1][1] == cp - 1:
                out[-1] = (out[-1][0], cp)
            else:
                out.append((cp, cp))
    return out


def render() -> str:
    assert ucd.unidata_version == "16.0.0", ucd.unidata_version
    for lo, hi in WHITE_SPACE:
        for cp in range(lo, hi + 1):
            assert ucd.category(chr(cp)) in ("Zs", "Zl", "Zp", "Cc"), hex(cp)
    lines = [
        '"""Unicode character classes pinned to one Unicode version. GENERATED: do not edit.',
        "",
        "Made by build/gen_unicode_tables.py from unicodedata2 " + ucd.unidata_version + ".",
        "Each class is a tuple of inclusive (first, last) code-point ranges, sorted.",
        '"""',
        "",
        f'UNICODE_VERSION = "{ucd.unidata_version}"',
        "",
        "CATEGORY_RANGES: dict[str, tuple[tuple[int, int], ...]] = {",
    ]
    for name, cats in BUCKETS.items():
        rs = ranges_of(cats)
        lines.append(f'    "{name}": (')
        row: list[str] = []
        for lo, hi in rs:
            row.append(f"(0x{lo:X}, 0x{hi:X}),")
            if len(row) == 6:
                lines.append("        " + " ".join(row))
                row = []
        if row:
            lines.append("        " + " ".join(row))
        lines.append("    ),")
    lines.append("}")
    lines.append("")
    ws = " ".join(f"(0x{lo:X}, 0x{hi:X})," for lo, hi in WHITE_SPACE)
    lines.append(f"WHITE_SPACE: tuple[tuple[int, int], ...] = ({ws})")
    lines.append("")
    return "\n".join(lines)


def main() -> int:
    return write_or_check(OUT, render, __doc__.splitlines()[0], "build/gen_unicode_tables.py")


if __name__ == "__main__":
    raise SystemExit(main())
