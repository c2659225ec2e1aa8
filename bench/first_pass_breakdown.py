"""Where a first pass goes: pretokenizing, pieces that are tokens, pieces that must be merged.

    .venv/bin/python bench/first_pass_breakdown.py cl100k_base de en ru zh

Why this exists: ``bench_encode.py`` gives the first-pass time of each file against tiktoken's; this
splits bytepair's into its parts, so a claim about what bounds it (the merges of new pieces) comes
from a script in the repository. Per file, in a fresh process: one timed ``encode_ordinary`` (first
pass), the same again (warm: the piece cache holds every piece), ``split`` alone, then the distinct
pieces' own encodes through the model, timed apart for pieces that are one token and for the rest
(with their number and mean length in bytes). CPU time (``time.process_time``), one run per file:
an explanation of the first pass's cost, not a benchmark table.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent

CHILD = r"""
import lzma, sys, time
sys.path.insert(0, sys.argv[1])
import bytepair
name, path = sys.argv[2], sys.argv[3]
enc = bytepair.get_encoding(name)
enc.encode_ordinary("warm up")
text = lzma.open(path, "rt", encoding="utf-8").read()
t = time.process_time(); enc.encode_ordinary(text); first = time.process_time() - t
t = time.process_time(); enc.encode_ordinary(text); warm = time.process_time() - t
t = time.process_time(); pieces = enc.engine.pre_tokenizer.split(text); split = time.process_time() - t
model = enc.engine.model
distinct = set(pieces)
whole = [p for p in distinct if model.ranks.get(p.encode("utf-8", "surrogatepass")) is not None]
merged = [p for p in distinct if model.ranks.get(p.encode("utf-8", "surrogatepass")) is None]
t = time.process_time(); [model.encode_piece(p) for p in whole]; t_whole = time.process_time() - t
t = time.process_time(); [model.encode_piece(p) for p in merged]; t_merged = time.process_time() - t
mean = sum(len(p.encode("utf-8", "surrogatepass")) for p in merged) / max(1, len(merged))
print(f"| {path.rsplit('/', 1)[-1].split('.')[0]} | {first * 1e3:.0f} | {warm * 1e3:.0f} | {split * 1e3:.0f} | "
      f"{len(distinct):,} | {len(whole):,} | {t_whole * 1e3:.0f} | {len(merged):,} | {mean:.1f} | {t_merged * 1e3:.0f} |")
"""


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__)
        return 2
    name, files = argv[0], argv[1:]
    print(f"{name}, CPU ms, one fresh process per file (bench/first_pass_breakdown.py)\n")
    print("| file | first pass | warm | split | distinct pieces | one token | ms | merged | mean bytes | ms |")
    print("|:---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for f in files:
        path = BENCH / "corpus" / f"{f}.txt.xz"
        out = subprocess.run([sys.executable, "-c", CHILD, str(REPO / "core"), name, str(path)],
                             capture_output=True, text=True, check=True)
        print(out.stdout.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
