"""The browser section: the browser bundle against JavaScript tokenizers in headless Chromium;
sections `browser-startup`, `browser` and `playground` of docs/PERFORMANCE.md.

    .venv/bin/python -m bench browser                                   # full run (make bench runs it)
    .venv/bin/python -m bench browser --quick                           # a smoke run: prints, writes nothing
    .venv/bin/python -m bench browser --quick --output /tmp/perf.md

bytepair (``dist/``: Pyodide in a module Web Worker) is compared with gpt-tokenizer, js-tiktoken,
tiktoken's WebAssembly build, ai-tokenizer and ``@huggingface/tokenizers`` (tokenizers.js), all loaded
from ``node_modules`` by one page, ``bench/web/bench.html``, with an import map and no bundler.
tokenizers.js reads a tokenizer.json, which this section writes per encoding with bytepair itself
(``Tokenizer.from_encoding(name).to_str()``) into the site's ``/hf/``. A temporary site on 127.0.0.1
serves that page, ``dist/``, ``node_modules/`` and the decompressed corpus; its handler counts the
bytes of every response (``browser_harness.py``). Measured, in this order:

1. start-up: page navigation to the first ``count("hello world")``, cold (fresh profile) and warm
   (the same profile's next pages), with the bytes and requests each start needed (``browser_startup.py``);
2. first pass: each corpus file encoded once on a fresh page whose library has encoded nothing yet;
3. mixed stream: every corpus file in turn, two rounds, one page per library, time per round;
4. encode throughput on each corpus file, one page per library, first pass and warm (2-4:
   ``browser_encode.py``);
5. worst cases: 1 MB of "x", random letters, spaces and random digits, one call on a fresh page,
   with a time limit (``browser_worst.py``);
6. the playground: its first load and the latency from keystroke to updated view (``playground.py``).

Every id list is compared with tiktoken 0.14 (Rust, in this Python process) through a sha256 of the
ids, so a library that disagrees is reported even when all the JavaScript ones agree among
themselves. The command exits with status 1 on any mismatch or request that left 127.0.0.1.

Adding a measurement: write ``measure_x(session) -> result`` and ``render_x(session, result) -> str``
in a module of its own and list them in ``MEASUREMENTS`` with the section they belong to; each
section is written with ``common.replace_section``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.browser_encode import (
    first_pass_notes,
    measure_first_pass,
    measure_mixed,
    measure_throughput,
    mixed_notes,
    render_first_pass,
    render_mixed,
    render_throughput,
    throughput_notes,
)
from bench.browser_harness import (
    CHROMIUM,
    DIST,
    NODE_MODULES,
    NPM_PACKAGES,
    SITE,
    STARTUP_TEXT,
    Session,
    reference_ids,
    serve_site,
    worst_case_texts,
    write_hf_tokenizer_json,
)
from bench.browser_startup import measure_startup, render_startup, startup_notes
from bench.browser_worst import measure_worst_cases, render_worst_cases, worst_notes
from bench.common import (
    CORPUS,
    PERFORMANCE,
    REPO,
    command_line,
    cpu_model,
    has_section,
    load_corpus,
    load_summary,
    log,
    parser,
    replace_section,
)
from bench.playground import measure_playground, playground_notes, render_playground

QUICK_CORPORA = ("en", "zh", "code_python", "mixed")
WORST_CASE_CHARS = 1_000_000
QUICK_WORST_CASE_CHARS = 100_000


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = parser("browser", __doc__)
    p.add_argument(
        "--quick",
        action="store_true",
        help=f"fewer repeats and pages, only {', '.join(QUICK_CORPORA)}, a 15 s limit; writes no file unless --output",
    )
    p.add_argument(
        "--repeats", type=int, help="fresh profiles per start-up, re-encodes per file (default 5, 2 with --quick)"
    )
    p.add_argument("--warm-pages", type=int, help="warm pages per profile (default 4, 2 with --quick)")
    p.add_argument("--timeout", type=float, help="seconds one encode call may take (default 60, 15 with --quick)")
    p.add_argument("--encodings", default="o200k_base,cl100k_base", help="comma-separated encodings")
    p.add_argument(
        "--worst-encodings",
        help="comma-separated encodings for the worst cases (default: the first of --encodings; four "
        "peers that each run into the time limit on three of the four cases make every encoding cost ~12 min)",
    )
    p.add_argument("--corpus", type=Path, default=CORPUS, help="directory of NAME.txt.xz or NAME.txt files")
    p.add_argument(
        "--corpora", help=f"comma-separated corpus names (default all; {','.join(QUICK_CORPORA)} with --quick)"
    )
    p.add_argument(
        "--only",
        help="comma-separated measurements to run (start-up, first pass, mixed stream, throughput, worst cases, "
        "playground); default all. A section the run covers only in part is printed, not written over the "
        "file's (it would drop the parts left out)",
    )
    p.add_argument(
        "--output",
        type=Path,
        help=f"file whose sections `browser` and `playground` to write (default {PERFORMANCE.relative_to(REPO)}; none with --quick)",
    )
    args = p.parse_args(argv)
    args.repeats = args.repeats or (2 if args.quick else 5)
    args.warm_pages = args.warm_pages or (2 if args.quick else 4)
    args.timeout = args.timeout or (15.0 if args.quick else 60.0)
    if args.repeats < 1 or args.warm_pages < 1 or args.timeout <= 0:
        p.error("--repeats and --warm-pages must be at least 1, --timeout positive")
    if args.output is None and not args.quick:
        args.output = PERFORMANCE
    args.encodings = [e.strip() for e in args.encodings.split(",") if e.strip()]
    if args.worst_encodings:
        args.worst_encodings = [e.strip() for e in args.worst_encodings.split(",") if e.strip()]
        if not set(args.worst_encodings) <= set(args.encodings):
            p.error("--worst-encodings must be among --encodings")
    else:
        args.worst_encodings = args.encodings[:1]
    args.worst_chars = QUICK_WORST_CASE_CHARS if args.quick else WORST_CASE_CHARS
    if args.corpora:
        args.corpora = tuple(c.strip() for c in args.corpora.split(",") if c.strip())
    else:
        args.corpora = QUICK_CORPORA if args.quick else None
    return args


# ----------------------------------------------------------------------------------- measurements
@dataclass(frozen=True)
class Measurement:
    """One measurement: how to run it, how to render its result, which section it belongs to."""

    name: str
    section: str
    run: Callable[[Session], Any]
    render: Callable[[Session, Any], str]
    notes: Callable[[Session, Any], list[str]] = lambda session, result: []


MEASUREMENTS: list[Measurement] = [
    Measurement("start-up", "browser-startup", measure_startup, render_startup, startup_notes),
    Measurement("first pass", "browser", measure_first_pass, render_first_pass, first_pass_notes),
    Measurement("mixed stream", "browser", measure_mixed, render_mixed, mixed_notes),
    Measurement("throughput", "browser", measure_throughput, render_throughput, throughput_notes),
    Measurement("worst cases", "browser", measure_worst_cases, render_worst_cases, worst_notes),
    Measurement("playground", "playground", measure_playground, render_playground, playground_notes),
]


def left_out_of(section: str, chosen: list[Measurement]) -> list[str]:
    """The measurements of ``section`` a run of ``chosen`` leaves out (none: it may write the section)."""
    return [m.name for m in MEASUREMENTS if m.section == section and m not in chosen]


SECTION_TITLES = {
    "browser-startup": "Browser: start-up and download size",
    "browser": "Browser: the bundle in headless Chromium",
    "playground": "Playground: first load and keystroke latency",
}


# ------------------------------------------------------------------------------------------ context
def package_version(name: str) -> str:
    return json.loads((NODE_MODULES / name / "package.json").read_text())["version"]


def bundle_fingerprint() -> str:
    """sha256 of dist/manifest.json, which pins every asset: a rebuild during the run changes it."""
    return hashlib.sha256((DIST / "manifest.json").read_bytes()).hexdigest()[:12]


def machine_facts(session: Session, started: float) -> dict[str, str]:
    """What the numbers depend on; ``started`` (epoch seconds) dates the run."""
    manifest = json.loads((DIST / "manifest.json").read_text())
    browser = session.browser()
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)),
        "machine": f"{cpu_model() or 'unknown CPU'}, `nproc` = {len(os.sched_getaffinity(0))}",
        "browser": f"Chromium {browser.version} (`{CHROMIUM}`), headless",
        "bundle": (
            f"bytepair {manifest['bytepair']} on Pyodide {manifest['pyodide']} (Python {manifest['python']}), "
            f"`dist/manifest.json` sha256 {bundle_fingerprint()}…"
        ),
        "peers": ", ".join(
            f"{name} {package_version(pkg)}" for name, pkg in NPM_PACKAGES.items()
        ) + (
            " (js-tiktoken's and tiktoken's `lite` entry points; tiktoken is its Rust core compiled to "
            "WebAssembly; @huggingface/tokenizers is tokenizers.js, reading a tokenizer.json that bytepair's "
            "`Tokenizer.from_encoding(name).to_str()` wrote for this run)"
        ),
    }


def checks_block(session: Session) -> str:
    c = session.checks
    ids = (
        f"All {len(c.passed)} comparisons matched tiktoken 0.14."
        if not c.failed
        else f"**{len(c.failed)} of {len(c.passed) + len(c.failed)} comparisons FAILED:**\n\n"
        + "\n".join(f"- {f}" for f in c.failed)
    )
    net = (
        f"All {session.guard.seen:,} requests the pages made went to 127.0.0.1."
        if not session.guard.violations
        else f"**{len(session.guard.violations)} requests tried to leave 127.0.0.1 (blocked):**\n\n"
        + "\n".join(f"- `{u}`" for u in sorted(set(session.guard.violations)))
    )
    errors = "" if not session.errors else "\n\n**Errors:**\n\n" + "\n".join(f"- {e}" for e in session.errors)
    fallbacks = session.expected.single_piece_fallbacks
    if fallbacks:
        ids += (
            "\n\ntiktoken's own `encode_ordinary` panicked on "
            + ", ".join(f"{enc} `{key}`" for enc, key, _ in fallbacks)
            + f" (`` {fallbacks[0][2]} ``, its regex engine); those references are tiktoken's BPE of the whole text "
            "as one piece (an encoding on the same ranks whose pattern takes any text whole), which is what "
            "its own pattern makes of it."
        )
    return f"""### Checks

Every id list a page produced (each library, encoding and corpus file on its fresh-page first pass,
in each mixed-stream round and on the per-file page, each worst case that finished) was compared with tiktoken 0.14's ids for the same text, by length and a sha256 of
the ids as little-endian 32-bit words, and every start-up's `count({STARTUP_TEXT!r})` with tiktoken's.
{ids}

Network: {net}{errors}"""


def render_section(session: Session, section: str, parts: list[tuple[Measurement, Any]], runtime_s: float) -> str:
    """A whole section: what, where and how it was measured, each measurement, checks, notes."""
    f, a = session.facts, session.args
    quick = (
        "\n> **Quick run** (`--quick`): a smoke test with few repeats and corpus files and a short time\n"
        "> limit; the numbers are placeholders. `make bench` writes the full run.\n"
        if a.quick
        else ""
    )
    notes = [line for m, result in parts for line in m.notes(session, result)]
    notes.append(
        "- Timings on two slow, shared cores are noisy (load average above); medians damp the noise but do "
        "not remove it, and the start-up numbers depend on disk and CPU more than on the network "
        "(everything is local)."
    )
    body = "\n".join(m.render(session, result) for m, result in parts)
    alarm = (
        f"\n> **{len(session.checks.failed)} ID MISMATCH(ES)**: a library returned ids that differ from "
        "tiktoken's; see Checks.\n"
        if session.checks.failed
        else ""
    )
    return f"""## {SECTION_TITLES.get(section, section)}

Generated by `python -m bench browser`; every number in this section comes from this one run.
{quick}{alarm}
- **Date:** {f["date"]}
- **Machine:** {f["machine"]}
- **Browser:** {f["browser"]}. Each start-up profile runs in a Chromium process of its own (a
  persistent profile needs one); throughput and worst cases share one browser, a fresh context per page.
- **Bundle:** {f["bundle"]}
- **Peers:** {f["peers"]}
- **Server:** `build/serve.py`'s handler on 127.0.0.1 (precompressed Brotli/gzip copies by `Accept-Encoding` where they exist, `Cache-Control: no-cache`).
- **Command:** `{command_line()}`
  (repeats = {a.repeats}, warm pages = {a.warm_pages}, time limit = {a.timeout:g} s;
  whole run {runtime_s / 60:.1f} min).
  `make bench` runs it as `.venv/bin/python -m bench browser` (in `python -m bench all`).
- **Load average** (1 min) during the run: {load_summary()}.

{body}
{checks_block(session)}

### Notes

{chr(10).join(notes)}
"""


# --------------------------------------------------------------------------------------------- main
def preflight() -> None:
    needed = (DIST / "manifest.json", SITE / "sw.js", NODE_MODULES / "gpt-tokenizer", Path(CHROMIUM))
    missing = [str(p) for p in needed if not p.exists()]
    if missing:
        raise SystemExit(f"missing {', '.join(missing)}: run `make site` (and `make chromium`) first")


def run(args: argparse.Namespace, work: Path) -> int:
    """Measure everything, print each section, write it to ``args.output``; 1 if anything went wrong."""
    from playwright.sync_api import sync_playwright

    preflight()
    started, started_epoch = time.perf_counter(), time.time()
    bundle_before = bundle_fingerprint()
    corpus = load_corpus(args.corpus, args.corpora)
    worst = worst_case_texts(args.worst_chars)
    texts = {**corpus, **dict(worst.values())}
    log(f"corpus: {', '.join(corpus)}; encodings: {', '.join(args.encodings)}; repeats {args.repeats}")
    log("reference ids from tiktoken")
    expected = reference_ids(work, args.encodings, texts)
    log("tokenizer.json per encoding for @huggingface/tokenizers, written by bytepair")
    with serve_site(work, texts) as site, sync_playwright() as playwright:
        write_hf_tokenizer_json(site.root, args.encodings)
        session = Session(
            args, site, playwright, list(corpus), {label: name for label, (name, _) in worst.items()},
            {name: len(text.encode("utf-8")) for name, text in texts.items()}, expected, work,
        )  # fmt: skip
        chosen = [m for m in MEASUREMENTS if not args.only or m.name in {n.strip() for n in args.only.split(",")}]
        results = [(m, m.run(session)) for m in chosen]
        session.facts = machine_facts(session, started_epoch)
        if bundle_fingerprint() != bundle_before:
            session.error("dist/ was rebuilt during the run: the numbers mix two bundles; run again")
        runtime_s = time.perf_counter() - started
        for section in dict.fromkeys(m.section for m in chosen):
            document = render_section(session, section, [(m, r) for m, r in results if m.section == section], runtime_s)
            print(document)
            left_out = left_out_of(section, chosen)
            if args.output is not None and left_out and has_section(args.output, section):
                # Writing it would drop the parts this run left out from the file's section.
                log(f"section {section} of {args.output} NOT written: this run left out {', '.join(left_out)}, "
                    "which it holds; run them too, or splice the part printed above into it by hand with the "
                    "date, bundle and command of this run")  # fmt: skip
            elif args.output is not None:
                replace_section(args.output, section, document)
                log(f"wrote section {section} of {args.output}")
        session.close()
    failed = bool(session.checks.failed or session.guard.violations or session.errors)
    log(f"done in {runtime_s:.0f} s; {len(session.checks.failed)} id mismatch(es), "
        f"{len(session.guard.violations)} network violation(s), {len(session.errors)} error(s)")  # fmt: skip
    return 1 if failed else 0


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bytepair-bench-web-") as tmp:
        return run(args, Path(tmp))
