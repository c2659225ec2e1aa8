"""Where a first pass goes: pretokenizing, pieces that are tokens, pieces that must be merged; and
what a first pass would cost if the model cost nothing.

    .venv/bin/python bench/first_pass_breakdown.py cl100k_base de en ru zh
    .venv/bin/python bench/first_pass_breakdown.py o200k_base all      # every bench/corpus file

Why this exists: ``bench_encode.py`` gives the first-pass time of each file against tiktoken's; this
splits bytepair's into its parts, so a claim about what bounds it comes from a script in the
repository. Per file, in a fresh process: one timed ``encode_ordinary`` (first pass), the same again
(warm: the piece cache holds every piece), ``split`` alone, then the distinct pieces' own encodes
through the model, timed apart for pieces that are one token and for the rest (with their number and
mean length in bytes; the model's memos are warm by then, so this understates the merges' share).
Then **model = dict**: a first pass through a fresh ``Engine`` with the same pre-tokenizer and a
"model" that is a dict of every piece's ids (worked out beforehand, looked up in C): every stage of a
first pass but the model's own work (whole-piece lookups and merges), so the bound no faster merge,
however clever, could pass in this design. Last, tiktoken 0.14's ``encode_ordinary`` of
the file (median of 5). CPU time (``time.process_time``), one run per file: an explanation of the
first pass's cost, not a benchmark table (that is ``bench_encode.py``'s).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent

CHILD = r"""
import json, lzma, os, statistics, sys, time
from itertools import chain
sys.path.insert(0, sys.argv[1])
import bytepair
from bytepair.pipeline.engine import Engine
name, path, tiktoken_cache = sys.argv[2], sys.argv[3], sys.argv[4]
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

class LookedUp:
    '''A model that costs nothing: each piece's ids were worked out beforehand.'''
    def __init__(self, ids):
        self.encode_piece = ids.__getitem__

ids = {p: enc.engine.cache[p] for p in distinct}  # exactly what the first pass found for each piece
free_engine = Engine(LookedUp(ids), enc.engine.pre_tokenizer)
t = time.process_time(); free_ids = list(chain.from_iterable(free_engine.piece_ids(text))); free = time.process_time() - t
assert free_ids == enc.encode_ordinary(text)

os.environ["TIKTOKEN_CACHE_DIR"] = tiktoken_cache
import tiktoken
reference = tiktoken.get_encoding(name)
reference.encode_ordinary(text)
times = []
for _ in range(5):
    t = time.process_time(); reference.encode_ordinary(text); times.append(time.process_time() - t)
print(json.dumps({"file": path.rsplit("/", 1)[-1].split(".")[0], "first": first, "warm": warm, "split": split,
                  "distinct": len(distinct), "whole": len(whole), "t_whole": t_whole, "merged": len(merged),
                  "mean": mean, "t_merged": t_merged, "free": free, "tiktoken": statistics.median(times)}))
"""


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__)
        return 2
    name, files = argv[0], argv[1:]
    if files == ["all"]:
        files = sorted(p.name.split(".")[0] for p in (BENCH / "corpus").glob("*.txt.xz"))
    sys.path.insert(0, str(REPO))
    from tests.tiktoken_offline import fill_cache

    cache = fill_cache(Path(tempfile.mkdtemp(prefix="bytepair-tiktoken-")))
    print(f"{name}, CPU ms, one fresh process per file (bench/first_pass_breakdown.py)\n")
    print("| file | first pass | warm | split | distinct pieces | one token | ms | merged | mean bytes | ms "
          "| model = dict | tiktoken | first ÷ tiktoken | model = dict ÷ tiktoken |")
    print("|:---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    total = dict.fromkeys(("first", "warm", "split", "t_whole", "t_merged", "free", "tiktoken"), 0.0)
    for f in files:
        path = BENCH / "corpus" / f"{f}.txt.xz"
        out = subprocess.run([sys.executable, "-c", CHILD, str(REPO / "core"), name, str(path), str(cache)],
                             capture_output=True, text=True, check=True)
        r = json.loads(out.stdout)
        for key in total:
            total[key] += r[key]
        print(f"| {r['file']} | {r['first'] * 1e3:.0f} | {r['warm'] * 1e3:.0f} | {r['split'] * 1e3:.0f} | "
              f"{r['distinct']:,} | {r['whole']:,} | {r['t_whole'] * 1e3:.0f} | {r['merged']:,} | {r['mean']:.1f} | "
              f"{r['t_merged'] * 1e3:.0f} | {r['free'] * 1e3:.0f} | {r['tiktoken'] * 1e3:.1f} | "
              f"{r['first'] / r['tiktoken']:.2f}× | {r['free'] / r['tiktoken']:.2f}× |")
    t = total
    print(f"| **all** | {t['first'] * 1e3:.0f} | {t['warm'] * 1e3:.0f} | {t['split'] * 1e3:.0f} | | | "
          f"{t['t_whole'] * 1e3:.0f} | | | {t['t_merged'] * 1e3:.0f} | {t['free'] * 1e3:.0f} | {t['tiktoken'] * 1e3:.1f} | "
          f"{t['first'] / t['tiktoken']:.2f}× | {t['free'] / t['tiktoken']:.2f}× |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
