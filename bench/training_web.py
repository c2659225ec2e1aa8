"""Section ``training-web`` of docs/PERFORMANCE.md: training in the browser, the JS API's ``train()`` in
headless Chromium on 1 MB at an 8k vocabulary, beside ``bytepair.train`` on CPython in this process
(the same lines, the same settings).

    .venv/bin/python -m bench training-web                 # writes the section (not part of make bench)
    .venv/bin/python -m bench training-web --runs 1 --no-write

The corpus is the first 1 MB (UTF-8) of lines taken in turn from every bench/corpus file, served as a
file that the page fetches and hands to ``train([blob])`` (read line by line, as ``bytepair train FILE``
reads a file); GPT-2's pattern. Each run is a fresh page, so it includes starting the training's own
worker (Pyodide from the HTTP cache after the first run). The page's times come from ``onProgress``
events: start-up and counting (call to the first merging event), merging (first to last merging event),
the rest (tokenizer.json written and loaded) and the total to the returned tokenizer; CPython's are CPU time (``time.process_time``). Every run's
merges are checked against CPython's; a difference stops the run.
"""

from __future__ import annotations

import io
import json
import lzma
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import bytepair

from bench.common import PERFORMANCE, REPO, corpus_files, parser, replace_section
from tests.browser import CHROMIUM, CHROMIUM_ARGS, serve

PAGE = """<!doctype html><meta charset=utf-8><title>train bench</title>
<script type=module>
import { train } from "./dist/bytepair.mjs";
window.run = async (vocabSize) => {
  const blob = await (await fetch("corpus.txt")).blob();
  const marks = {};
  const t0 = performance.now();
  const tok = await train([blob], { vocabSize, pattern: "gpt2", onProgress: (e) => {
    const now = performance.now() - t0;
    marks[e.phase + "First"] ??= now;
    marks[e.phase + "Last"] = now;
  } });
  const total = performance.now() - t0;
  const merges = tok.toJSON().model.merges;
  tok.dispose();
  return { total, ...marks, merges };
};
window.ready = true;
</script>"""


def corpus_lines(limit: int) -> list[str]:
    """Lines in turn from every corpus file until ``limit`` UTF-8 bytes."""
    files = [lzma.open(p, "rt", encoding="utf-8").read().splitlines(keepends=True) for p in corpus_files()]
    lines: list[str] = []
    size = 0
    for i in range(max(map(len, files))):
        for f in files:
            if i < len(f):
                n = len(f[i].encode("utf-8"))
                if size + n > limit:
                    return lines
                lines.append(f[i])
                size += n
    return lines


def main(argv: Sequence[str]) -> int:
    p = parser("training-web", __doc__)
    p.add_argument("--vocab", type=int, default=8000)
    p.add_argument("--megabytes", type=float, default=1.0)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--no-write", action="store_true")
    p.add_argument("--output", default=str(PERFORMANCE))
    args = p.parse_args(argv)
    from playwright.sync_api import sync_playwright

    text = "".join(corpus_lines(int(args.megabytes * 1e6)))
    lines = list(io.StringIO(text, newline=""))  # the file's lines as `bytepair train` and train([blob]) read them
    size = len(text.encode("utf-8"))
    t0, w0 = time.process_time(), time.perf_counter()
    native = bytepair.train(lines, args.vocab, pattern="gpt2", show_progress=False)
    native_cpu, native_wall = time.process_time() - t0, time.perf_counter() - w0
    expected = json.loads(native.to_str())["model"]["merges"]
    print(f"CPython: {native_cpu:.2f} s CPU, {len(expected)} merges", file=sys.stderr)

    site = Path(tempfile.mkdtemp(prefix="bench-train-web-"))
    try:
        (site / "dist").symlink_to(REPO / "dist")
        (site / "corpus.txt").write_text(text, encoding="utf-8", newline="")
        (site / "index.html").write_text(PAGE, encoding="utf-8")
        server, base = serve.serve_in_background(site)
        runs = []
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context()  # one profile: the HTTP cache holds Pyodide after the first run
            for i in range(args.runs):
                page = context.new_page()
                page.goto(base + "index.html")
                page.wait_for_function("window.ready === true")
                result = page.evaluate("(v) => window.run(v)", args.vocab)
                page.close()
                if result.pop("merges") != expected:
                    sys.exit(f"run {i + 1}: the merges differ from CPython's bytepair.train")
                runs.append(result)
                print(f"run {i + 1}: {json.dumps({k: round(v) for k, v in result.items()})}", file=sys.stderr)
            version = browser.version
            browser.close()
        server.shutdown()
    finally:
        shutil.rmtree(site)

    def median(key: str, start: str | None = None) -> float:
        return statistics.median(r[key] - (r[start] if start else 0) for r in runs) / 1000

    total = median("total")
    markdown = (
        f"## Training in the browser\n\n`python -m bench training-web` on {time.strftime('%Y-%m-%d')}, {platform.machine()} "
        f"({os.cpu_count()} cores, shared), Chromium {version} (headless); {size / 1e6:.2f} MB of bench/corpus lines "
        f"(every file in turn) as one file, `train([blob], {{ vocabSize: {args.vocab}, pattern: \"gpt2\" }})`, "
        f"a fresh page per run, median of {len(runs)} runs; every run's merges equal CPython's.\n\n"
        "| step | Chromium s (wall) |\n|:---|---:|\n"
        f"| start the training worker, read the file, count the pieces (to the first merging event) | {median('mergingFirst'):.2f} |\n"
        f"| merge ({len(expected):,} merges) | {median('mergingLast', 'mergingFirst'):.2f} |\n"
        f"| write the tokenizer.json, load it into the page's runtime | {median('total', 'mergingLast'):.2f} |\n"
        f"| **total, to the returned tokenizer** | **{total:.2f}** |\n\n"
        f"The same training on CPython {platform.python_version()} (`bytepair.train`, this process, just before): "
        f"{native_wall:.2f} s wall, {native_cpu:.2f} s CPU; Chromium's total is {total / native_wall:.1f}× CPython's wall "
        "time (the page's times are wall times on a shared machine: a busy machine inflates them, and the ratio, "
        "taken in the same run, is the steadier number).\n"
    )
    print(markdown)
    if not args.no_write:
        replace_section(Path(args.output), "training-web", markdown)
    return 0
