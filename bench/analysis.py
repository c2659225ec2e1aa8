"""Section ``analysis`` of docs/PERFORMANCE.md: how long the analysis takes (vocabulary reports,
manifests, a diff, fertility on the bench corpus).

    .venv/bin/python -m bench analysis                 # writes the section (make bench runs it)
    .venv/bin/python -m bench analysis --no-write      # prints it only

Why: the vocabulary report walks every token (200k for o200k) and merges each one's bytes; it must
stay at seconds, not minutes, for ``bytepair analyze`` and the playground to be usable. Times are
process CPU seconds (other processes on the machine do not count), the median of ``--repeat`` runs,
each on a fresh view (the encoding itself stays loaded, as in a session).

Needs the open models' tokenizer.json files (``make hf-data``: Llama 3, Qwen2.5, GPT-4o's).
"""

from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import bytepair
from bytepair.analysis import TokenizerView, compare_tokenizers, fertility, manifest, read_corpus, vocabulary_report

from bench.common import HF_DIR, PERFORMANCE, corpus_files, parser, replace_section


def cpu(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main(argv: Sequence[str]) -> int:
    p = parser("analysis", __doc__)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--no-write", action="store_true")
    args = p.parse_args(argv)
    specs = ["cl100k_base", "o200k_base", str(HF_DIR / "llama3"), str(HF_DIR / "qwen2_5")]
    rows = []
    for spec in specs:
        face = bytepair.analysis.load(spec)  # loaded once: the times are of the analysis, not of reading files
        label = Path(spec).name
        rows.append((label, "vocabulary_report", cpu(lambda: vocabulary_report(TokenizerView.of(face)), args.repeat)))
        rows.append((label, "manifest", cpu(lambda: manifest(TokenizerView.of(face)), args.repeat)))
    gpt4o = bytepair.analysis.load(str(HF_DIR / "gpt4o"))
    rows.append(("gpt4o vs o200k_base", "compare_tokenizers", cpu(lambda: compare_tokenizers(gpt4o, "o200k_base"), args.repeat)))
    corpus = read_corpus(corpus_files())
    chars = sum(map(len, corpus.values()))
    rows.append((f"o200k_base, bench corpus ({chars / 1e6:.1f} M chars)", "fertility",
                 cpu(lambda: fertility(["o200k_base"], corpus), 1)))
    lines = [
        "## Analysis",
        "",
        f"`python -m bench analysis`: process CPU seconds, median of {args.repeat} runs (fertility: 1 run); "
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
        replace_section(PERFORMANCE, "analysis", text)
    return 0
