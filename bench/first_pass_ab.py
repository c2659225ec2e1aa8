"""First-pass time of two copies of ``core/``, in fresh processes taken in turn: an A/B in wall time.

    .venv/bin/python bench/first_pass_ab.py /tmp/before/core core o200k_base en de fr code_python

Why: ``bench_encode.py`` measures one copy of the code against tiktoken, and on this shared host a
file's time moves by tens of percent between runs, so two runs of it cannot show a 10% change.
``instructions.py`` shows such a change exactly but counts instructions, not time. This runs the two
copies alternately (A, B, A, B, ... so that a slow minute hits both), each process importing one copy,
calling ``get_encoding`` and encoding ``"warm up"``, then timing one ``encode_ordinary`` of the file
(CPU time, as ``bench_encode.py``'s first pass). It prints the median per copy and file, and B's time
as a share of A's, with the ids of both copies checked equal.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent

CHILD = r"""
import hashlib, lzma, sys, time
sys.path.insert(0, sys.argv[1])
import bytepair
enc = bytepair.get_encoding(sys.argv[2])
enc.encode_ordinary("warm up")
text = lzma.open(sys.argv[3], "rt", encoding="utf-8").read()
start = time.process_time()
ids = enc.encode_ordinary(text)
elapsed = time.process_time() - start
print(elapsed, hashlib.sha256(str(ids).encode()).hexdigest())
"""


def first_pass(core: Path, name: str, path: Path) -> tuple[float, str]:
    out = subprocess.run([sys.executable, "-c", CHILD, str(core), name, str(path)], capture_output=True, text=True, check=True)
    seconds, digest = out.stdout.split()
    return float(seconds), digest


def main(argv: list[str]) -> None:
    if len(argv) < 4:
        sys.exit(__doc__)
    cores = [Path(argv[0]).resolve(), Path(argv[1]).resolve()]
    name, files = argv[2], argv[3:]
    repeats = 7
    print(f"{name}: A = {cores[0]}, B = {cores[1]}; {repeats} fresh processes each, in turn (bench/first_pass_ab.py)\n")
    print("| file | A ms | B ms | B ÷ A |")
    print("|:---|--:|--:|--:|")
    for file in files:
        path = BENCH / "corpus" / f"{file}.txt.xz"
        times: list[list[float]] = [[], []]
        digests = set()
        for _ in range(repeats):
            for which, core in enumerate(cores):
                seconds, digest = first_pass(core, name, path)
                times[which].append(seconds)
                digests.add(digest)
        if len(digests) != 1:
            sys.exit(f"{file}: the two copies gave different ids")
        a, b = (statistics.median(t) * 1000 for t in times)
        print(f"| {file} | {a:.1f} | {b:.1f} | {b / a:.2f} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
