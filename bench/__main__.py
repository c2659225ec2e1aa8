"""``python -m bench SECTION [options]``: run one benchmark section; ``--list`` names them, ``all``
runs every section that writes a document, in the order ``make bench`` runs them.

Why each section of ``all`` in a fresh process: a section leaves its mark on the process (the native
and tokenizer-json sections import bytepair from a snapshot taken at their start, tokenizer-json
sets ``RAYON_NUM_THREADS=1`` for everything after it, every section keeps its own load samples and
start time), so ``all`` starts ``python -m bench SECTION`` for each, as separate commands did before.
It stops at the first section that fails, as make does.

A section module is imported only when its section runs: several import bytepair, Playwright or
tiktoken at the top, and the native section must import bytepair only after its snapshot.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Sequence
from typing import NamedTuple

from bench.common import REPO


class Section(NamedTuple):
    module: str
    summary: str


SECTIONS: dict[str, Section] = {
    "native": Section("bench.native", "bytepair on CPython against tiktoken 0.14 and a naive BPE (docs/PERFORMANCE.md)"),
    "tokenizer-json": Section("bench.tokenizer_json", "bytepair.Tokenizer on tokenizer.json files against HF tokenizers and tokie"),
    "browser": Section("bench.browser", "the browser bundle in headless Chromium: start-up, encoding, worst cases, the playground"),
    "reliability": Section("bench.reliability", "memory and early exit on big, awkward inputs (docs/RELIABILITY.md)"),
    "whitespace": Section("bench.whitespace", "long whitespace runs against tiktoken (docs/RELIABILITY.md)"),
    "hostile": Section("bench.hostile", "runaway templates and patterns, caches, out of memory, killed saves, aborts (docs/RELIABILITY.md)"),
    "training": Section("bench.training", "bytepair.train against HF BpeTrainer, rustbpe, bpeasy and a minbpe-style loop"),
    "training-web": Section("bench.training_web", "the JS API's train() in headless Chromium beside bytepair.train"),
    "families": Section("bench.families", "WordPiece and WordLevel (and other families' rows) beside HF: first-pass encoding, training"),
    "families-exact": Section("bench.families_exact", "every family against HF and sentencepiece on every corpus file: calls, mismatches (docs/RELIABILITY.md)"),
    "unigram": Section("bench.unigram", "Unigram and SentencePiece .model files beside HF and sentencepiece: first-pass encoding, training"),
    "analysis": Section("bench.analysis", "how long bytepair.analysis takes: vocabulary reports, manifests, a diff, fertility"),
    "corpus": Section("bench.corpus_encode", "encode_corpus on 1 and 2 processes and Dask beside tiktoken's batches; long pieces beside HF"),
    "runtimes": Section("bench.runtimes", "the npm package in Node 20/22/24, Deno, Bun, workerd, edge-runtime: cold and warm starts; its size"),
    "ab": Section("bench.ab", "the first pass of two copies of core/, in fresh processes in turn (prints only)"),
}
ALL = ("native", "tokenizer-json", "browser", "reliability", "whitespace", "hostile", "training", "families", "unigram",
       "families-exact", "analysis", "corpus", "runtimes")
"""What ``all`` (and so ``make bench``) runs, in this order: every section that writes a document,
except ``training-web``, which ``make bench`` has never run."""

USAGE = """usage: python -m bench SECTION [options]   run one section (SECTION --help for its options)
       python -m bench --list                list the sections
       python -m bench all                   run every section make bench runs, in turn"""


def listing() -> str:
    width = max(map(len, SECTIONS))
    lines = [f"  {name:<{width}}  {section.summary}" for name, section in SECTIONS.items()]
    return "sections:\n" + "\n".join(lines) + f"\n\n`all` runs: {', '.join(ALL)}"


def run_all() -> int:
    for name in ALL:
        print(f"python -m bench {name}", file=sys.stderr, flush=True)
        code = subprocess.run([sys.executable, "-m", "bench", name], cwd=REPO, check=False).returncode
        if code != 0:
            print(f"python -m bench {name} failed (exit status {code}); the sections after it did not run", file=sys.stderr)
            return code
    return 0


def main(argv: Sequence[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(f"{USAGE}\n\n{listing()}", file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    name, options = argv[0], list(argv[1:])
    if name == "--list":
        print(listing())
        return 0
    if name == "all":
        if options:
            print(f"python -m bench all takes no options (got {' '.join(options)})", file=sys.stderr)
            return 2
        return run_all()
    if name not in SECTIONS:
        print(f"{USAGE}\n\nno section {name!r}; {listing()}", file=sys.stderr)
        return 2
    return importlib.import_module(SECTIONS[name].module).main(options)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
