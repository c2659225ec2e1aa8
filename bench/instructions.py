"""Instructions a first pass executes, counted by valgrind's callgrind: a measure the host cannot move.

    .venv/bin/python bench/instructions.py cl100k_base de zh       # an encoding, then corpus files
    .venv/bin/python bench/instructions.py llama3 de               # a build/cache/hf model (make hf-data)
    CORE=/tmp/other/core .venv/bin/python bench/instructions.py o200k_base de   # another copy of core/

Why: on a shared 2-core machine a first pass's time moves by tens of percent from one minute to
the next (on 2026-11-26 tiktoken itself ran at 7.9 MB/s where it had run at 12.7), so a change
worth 5% cannot be seen in seconds. Instructions are repeatable for the same code, input and
interpreter (hash seed fixed), whatever else runs. They are not time (a cache miss costs more than an add), so a
claim about speed still comes from ``bench_encode.py``; this is for A/B of changes to the
encoder, and one that adds tables or memos must be timed as well: a two-token search for
``tokenizer.json`` models once counted 9% fewer instructions on Qwen2.5 while taking a quarter
more CPU time (docs/PERFORMANCE.md, 2026-11-27 afternoon). Per file, two processes run under callgrind: one that loads the encoding (or
``tokenizer.json``) and encodes ``"warm up"``, and one that then also encodes the file once
(``encode_ordinary``, or ``encode(text, add_special_tokens=False).ids`` for a model); the
difference is the first pass. About 40 s per file.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent

CHILD = r"""
import lzma, sys
sys.path.insert(0, sys.argv[1])
import bytepair
name, path, encode = sys.argv[2], sys.argv[3], sys.argv[4] == "1"
text = lzma.open(path, "rt", encoding="utf-8").read()
if name in bytepair.list_encoding_names():
    enc = bytepair.get_encoding(name)
    enc.encode_ordinary("warm up")
    if encode:
        enc.encode_ordinary(text)
else:
    tok = bytepair.Tokenizer.from_file(sys.argv[5])
    tok.encode("warm up")
    if encode:
        tok.encode(text, add_special_tokens=False).ids
"""


def instructions(core: Path, name: str, text: Path, model_file: Path | None, encode: bool) -> int:
    """Instructions callgrind counts for one child process (start-up included)."""
    argv = [sys.executable, "-c", CHILD, str(core), name, str(text), "1" if encode else "0", str(model_file or "")]
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv], capture_output=True, text=True,
        env=dict(os.environ, PYTHONHASHSEED="0"),  # the same dict layouts every run
    )
    found = re.search(r"Collected : (\d+)", out.stderr)
    if out.returncode != 0 or found is None:
        raise SystemExit(f"callgrind run failed ({out.returncode}):\n{out.stderr[-2000:]}")
    return int(found.group(1))


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__)
        return 2
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    core = Path(os.environ.get("CORE", REPO / "core")).resolve()
    name, files = argv[0], argv[1:]
    model_file = None
    sys.path.insert(0, str(core))
    import bytepair

    if name not in bytepair.list_encoding_names():
        model_file = REPO / "build" / "cache" / "hf" / name / "tokenizer.json"
        if not model_file.is_file():
            raise SystemExit(f"{name} is no encoding and {model_file} is missing (make hf-data)")
    print(f"{name}, core at {core}: first-pass instructions (callgrind), one process pair per file\n")
    print("| file | instructions |")
    print("|:---|--:|")
    for f in files:
        text = BENCH / "corpus" / f"{f}.txt.xz"
        first = instructions(core, name, text, model_file, True) - instructions(core, name, text, model_file, False)
        print(f"| {f} | {first:,} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
