"""How long the analysis takes: vocabulary reports, manifests, a diff, fertility on the bench corpus.

Why: the vocabulary report walks every token (200k for o200k) and merges each one's bytes; it must
stay at seconds, not minutes, for ``bytepair analyze`` and the playground to be usable. Times are
process CPU seconds (other processes on the machine do not count), the median of ``--repeat`` runs,
each on a fresh view (the encoding itself stays loaded, as in a session).

Writes the ``analysis`` section of docs/PERFORMANCE.md (``--no-write`` to only print it).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "core"))
sys.path.insert(0, str(REPO / "bench"))

import bytepair  # noqa: E402
from bytepair.analysis import TokenizerView, compare_tokenizers, fertility, manifest, read_corpus, vocabulary_report  # noqa: E402

from report import replace_section  # noqa: E402

HF = REPO / "build" / "cache" / "hf"


def cpu(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    specs = ["cl100k_base", "o200k_base", str(HF / "llama3"), str(HF / "qwen2_5")]
    rows = []
    for spec in specs:
        face = bytepair.analysis.load(spec)  # loaded once: the times are of the analysis, not of reading files
        label = Path(spec).name
        rows.append((label, "vocabulary_report", cpu(lambda: vocabulary_report(TokenizerView.of(face)), args.repeat)))
        rows.append((label, "manifest", cpu(lambda: manifest(TokenizerView.of(face)), args.repeat)))
    gpt4o = bytepair.analysis.load(str(HF / "gpt4o"))
    rows.append(("gpt4o vs o200k_base", "compare_tokenizers", cpu(lambda: compare_tokenizers(gpt4o, "o200k_base"), args.repeat)))
    corpus = read_corpus(sorted((REPO / "bench" / "corpus").glob("*.txt.xz")))
    chars = sum(map(len, corpus.values()))
    rows.append((f"o200k_base, bench corpus ({chars / 1e6:.1f} M chars)", "fertility",
                 cpu(lambda: fertility(["o200k_base"], corpus), 1)))
    lines = [
        "## Analysis",
        "",
        f"`bench/bench_analysis.py`: process CPU seconds, median of {args.repeat} runs (fertility: 1 run); "
        f"{platform.python_implementation()} {platform.python_version()} on {platform.machine()}, "
        f"{time.strftime('%Y-%m-%d')}.",
        "",
        "| tokenizer | step | CPU s |",
        "|:---|:---|---:|",
    ]
    lines += [f"| {label} | `{step}` | {seconds:.2f} |" for label, step, seconds in rows]
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        replace_section(REPO / "docs" / "PERFORMANCE.md", "analysis", text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
