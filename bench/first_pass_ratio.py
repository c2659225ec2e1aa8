"""First-pass ratio only: bytepair.Tokenizer ÷ HF tokenizers throughput, fresh processes, one file.

    .venv/bin/python bench/first_pass_ratio.py --models llama3,qwen2_5,deepseek_v3 --corpora zh --repeats 3

Why this exists: ``bench_tokenizer_json.py`` measures everything (streams, warm, load, tokie) and
takes long; when working on one case (e.g. Chinese first pass) this runs just its section 1 with
the same child processes (``bench_tokenizer_json.py --child first``), the same single-thread
environment, the same CPU clock and a private bytecode cache, and prints the median ratio per
model and file. The libraries take turns within each repeat. Ids are compared (digests) and a
difference stops the run. It imports ``core/bytepair`` of this worktree as it is on disk.
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
SINGLE_THREAD = {"RAYON_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="llama3,qwen2_5,deepseek_v3")
    parser.add_argument("--corpora", default="zh")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bytepair-first-") as tmp:
        work = Path(tmp)
        env = dict(os.environ, PYTHONPATH=str(REPO / "core"), PYTHONPYCACHEPREFIX=str(work / "pyc"), **SINGLE_THREAD)
        env.pop("PYTHONDONTWRITEBYTECODE", None)

        def child(*task: str) -> dict:
            proc = subprocess.run([sys.executable, str(BENCH / "bench_tokenizer_json.py"), "--child", *task],
                                  env=env, capture_output=True, text=True, cwd=REPO, check=False)
            if proc.returncode:
                raise SystemExit(proc.stderr[-2000:])
            return json.loads(proc.stdout.strip().splitlines()[-1])

        child("warm-bytecode")
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        for corpus in args.corpora.split(","):
            text_file = work / f"{corpus}.txt"
            text_file.write_bytes(lzma.decompress((BENCH / "corpus" / f"{corpus}.txt.xz").read_bytes()))
            for model in args.models.split(","):
                path = str(REPO / "build" / "cache" / "hf" / model / "tokenizer.json")
                times: dict[str, list[float]] = {"hf": [], "bytepair": []}
                digests = set()
                for _ in range(args.repeats):
                    for lib in times:
                        result = child("first", lib, path, str(text_file))
                        times[lib].append(result["encode_cpu_s"])
                        digests.add(result["digest"])
                if len(digests) != 1:
                    raise SystemExit(f"MISMATCH {model} {corpus}: bytepair's ids differ from HF's")
                hf, bp = statistics.median(times["hf"]), statistics.median(times["bytepair"])
                print(f"{model:12s} {corpus:12s} hf {hf * 1e3:7.1f} ms  bytepair {bp * 1e3:7.1f} ms  "
                      f"ratio {hf / bp:.2f}x  (bytepair runs: {', '.join(f'{t * 1e3:.0f}' for t in times['bytepair'])})",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
