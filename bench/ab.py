"""Section ``ab``: the first-pass time of two copies of ``core/``, in fresh processes taken in turn;
an A/B in CPU time, printed (it writes no document).

    .venv/bin/python -m bench ab /tmp/before/core core o200k_base en de fr code_python
    .venv/bin/python -m bench ab /tmp/before/core core build/cache/hf/llama3/tokenizer.json en zh

Why: section ``native`` measures one copy of the code against tiktoken, and on this shared host a
file's time moves by tens of percent between runs, so two runs of it cannot show a 10% change. This
runs the two copies alternately (A, B, A, B, ... so that a slow minute hits both), each process
importing one copy, calling ``get_encoding`` and encoding ``"warm up"``, then timing one
``encode_ordinary`` of the file (CPU time, as the native section's first pass). It prints the median
per copy and file, and B's time as a share of A's, with the ids of both copies checked equal: it is
how a refactor shows "same speed".
"""

from __future__ import annotations

import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from bench.common import CORPUS, parser

REPEATS = 7
CHILD = r"""
import hashlib, lzma, sys, time
sys.path.insert(0, sys.argv[1])
import bytepair
if sys.argv[2] in bytepair.list_encoding_names():
    encode = bytepair.get_encoding(sys.argv[2]).encode_ordinary
else:  # a tokenizer.json, through HF's face
    tok = bytepair.Tokenizer.from_file(sys.argv[2])
    encode = lambda text: tok.encode(text, add_special_tokens=False).ids
encode("warm up")
text = lzma.open(sys.argv[3], "rt", encoding="utf-8").read()
start = time.process_time()
ids = encode(text)
elapsed = time.process_time() - start
print(elapsed, hashlib.sha256(str(ids).encode()).hexdigest())
"""


def first_pass(core: Path, name: str, path: Path) -> tuple[float, str]:
    out = subprocess.run([sys.executable, "-c", CHILD, str(core), name, str(path)], capture_output=True, text=True, check=True)
    seconds, digest = out.stdout.split()
    return float(seconds), digest


def main(argv: Sequence[str]) -> int:
    p = parser("ab", __doc__)
    p.add_argument("a", type=Path, help="copy A: a directory holding the bytepair package (such as core/)")
    p.add_argument("b", type=Path, help="copy B: the same, for the other version")
    p.add_argument("encoding", help="the encoding to time, such as o200k_base, or the path of a tokenizer.json (timed through bytepair.Tokenizer)")
    p.add_argument("files", nargs="+", help="corpus names (bench/corpus/NAME.txt.xz), such as en de code_python")
    args = p.parse_args(argv)
    cores = [args.a.resolve(), args.b.resolve()]
    name, files = args.encoding, args.files
    print(f"{name}: A = {cores[0]}, B = {cores[1]}; {REPEATS} fresh processes each, in turn (python -m bench ab)\n")
    print("| file | A ms | B ms | B ÷ A |")
    print("|:---|--:|--:|--:|")
    for file in files:
        path = CORPUS / f"{file}.txt.xz"
        times: list[list[float]] = [[], []]
        digests = set()
        for _ in range(REPEATS):
            for which, core in enumerate(cores):
                seconds, digest = first_pass(core, name, path)
                times[which].append(seconds)
                digests.add(digest)
        if len(digests) != 1:
            sys.exit(f"{file}: the two copies gave different ids")
        a, b = (statistics.median(t) * 1000 for t in times)
        print(f"| {file} | {a:.1f} | {b:.1f} | {b / a:.2f} |", flush=True)
    return 0
