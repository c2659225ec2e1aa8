"""Hostile input: what stops the work a stranger's file or template would make run for ever or grow
without bound; section ``hostile`` of docs/RELIABILITY.md.

    .venv/bin/python -m bench hostile          # ~4 minutes; writes the section (make bench runs it)
    .venv/bin/python -m bench hostile --print  # prints it, writes nothing

Measured, each once (the bounds are what matters, not the last millisecond):

(a) chat templates under the default budgets (20 s, 2**25 characters), natively: each runaway case
    of tests/llm/test_template_limits.py, the budget that stopped it, the seconds it ran and
    tracemalloc's peak;
(b) patterns: a Split regex that backtracks exponentially and a 50 MB one, bytepair (refused at
    load) beside HF tokenizers (Oniguruma: loads and runs them);
(c) the packed piece cache over 300,000 new pieces in a fresh process: its largest size against its
    byte limit, and the process's peak RSS;
(d) out of memory: a 104 MB text under a 500 MB address-space limit (natively), 120 M ids to decode
    under Node (wasm memory), and what the memory was once the call ended;
(e) saves killed before each write and move (tests/formats/test_atomic_saves.py's child), and what
    loaded after;
(f) the JavaScript runtime: an aborted runaway template, and how long another tokenizer on the same
    runtime waited, under Node and in Chromium (cross-origin isolated: interrupted in place; plain:
    the worker replaced).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from bench.common import CORE, RELIABILITY, REPO, log, machine_info, parser, replace_marked

DIST = REPO / "dist"
NODE_ABORT = """
const bp = await import(process.argv[2] + "/bytepair.mjs");
const runaway = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}";
const messages = [{ role: "user", content: "hi" }];
const qwen = await bp.createTokenizer({ tokenizer: "qwen2_5" });
const o200k = await bp.createTokenizer({ encoding: "o200k_base" });
const controller = new AbortController();
const stuck = qwen.applyChatTemplate(messages, { chatTemplate: runaway, templateTimeout: 600, signal: controller.signal }).catch((e) => e.name);
await new Promise((r) => setTimeout(r, 500));
const count = o200k.count("hello world");
const t0 = performance.now();
controller.abort();
const aborted = await stuck;
await count;
const waited = performance.now() - t0;
const t1 = performance.now();
const budget = await qwen.applyChatTemplate(messages, { chatTemplate: runaway }).catch((e) => e.name);
const budgetMs = performance.now() - t1;
const bytes = {};
for (let b = 0; b < 256; b++) bytes[String.fromCharCode(b < 33 || (b > 126 && b < 161) || b === 173 ? 256 + b : b)] = b;
const slow = await bp.createTokenizer({ tokenizerJson: { model: { type: "BPE", vocab: bytes, merges: [] },
  pre_tokenizer: { type: "Sequence", pretokenizers: [{ type: "Split", pattern: { Regex: "a*b*c" }, behavior: "Isolated", invert: false },
    { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: false }] }, decoder: { type: "ByteLevel" } } });
const pattern = new AbortController();
const quadratic = slow.count("a".repeat(120000), { signal: pattern.signal }).catch((e) => e.name);
await new Promise((r) => setTimeout(r, 500));
const again = o200k.count("hello world");
const t2 = performance.now();
pattern.abort();
const patternAborted = await quadratic;
await again;
console.log(JSON.stringify({ aborted, waited, restarts: o200k.backend.restarts.length, budget, budgetMs,
  patternAborted, patternWaited: performance.now() - t2 }));
qwen.dispose(); o200k.dispose(); slow.dispose();
"""
PACKED_CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
import bytepair
def peak_kb():  # VmHWM: ru_maxrss would carry the parent's peak across exec
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM"))
enc = bytepair.get_encoding("o200k_base")
enc.encode_to_array("warm up")
cache = enc.engine.cache
start = peak_kb()
largest = 0
for block in range(30):
    text = " ".join(chr(0x4E00 + (i * 7919) % 20000) + chr(0x4E00 + i % 20000) + chr(0x4E00 + block * 3 + i % 3)
                    for i in range(block * 10_000, (block + 1) * 10_000))
    enc.encode_to_array(text)
    largest = max(largest, cache.packed.bytes + cache.bytes)
print(start, peak_kb(), largest, 2 * cache.max_bytes)
"""
OOM_CHILD = """
import resource, sys, time
sys.path.insert(0, sys.argv[1])
from bytepair import Tokenizer
tok = Tokenizer.from_encoding("cl100k_base")
text = "hello world, " * 8_000_000
resource.setrlimit(resource.RLIMIT_AS, (500 << 20, 500 << 20))
t0 = time.perf_counter()
try:
    tok.encode(text)
    print("no error")
except MemoryError as exc:
    print(f"{time.perf_counter() - t0:.2f}", type(exc).__name__, exc)
"""


def templates() -> list[list[str]]:
    """(a): every runaway case under the defaults."""
    sys.path.insert(0, str(REPO))
    from tests.llm.test_template_limits import MESSAGES, RUNAWAY

    from bytepair import Tokenizer
    from bytepair.errors import TemplateLimitError

    tok = Tokenizer.from_encoding("cl100k_base")
    tok.apply_chat_template(MESSAGES, chat_template="{{ messages[0].content }}")
    rows = []
    for name, (source, _) in RUNAWAY.items():
        log(f"template: {name}")
        tracemalloc.start()
        start = time.perf_counter()
        try:
            tok.apply_chat_template(MESSAGES, chat_template=source)
            outcome = "rendered"
        except TemplateLimitError as exc:
            outcome = exc.limit
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        rows.append([name, outcome, f"{seconds:.2f}", f"{peak / 1e6:.0f}"])
    return rows


def patterns() -> list[list[str]]:
    """(b): bytepair refuses at load; HF loads and runs."""
    import tokenizers

    sys.path.insert(0, str(REPO))
    from tests.test_hostile_input import tiny

    from bytepair import Tokenizer
    from bytepair.errors import UnsupportedPatternError

    def ours(spec: str) -> str:
        start = time.perf_counter()
        try:
            Tokenizer.from_str(spec)
            return "loaded"
        except UnsupportedPatternError:
            return f"refused at load in {(time.perf_counter() - start) * 1e3:.0f} ms"

    rows = []
    spec = tiny("(a*)*b")
    hf = tokenizers.Tokenizer.from_str(spec)
    start = time.perf_counter()
    hf.encode("a" * 100_000)
    rows.append(["Split `(a*)*b`, then `encode('a' * 100,000)`", ours(spec), f"runs it: {(time.perf_counter() - start) * 1e3:.0f} ms"])
    log("pattern: 50 MB")
    big = "|".join(f"w{i}" for i in range(5_000_000))[: 50_000_000]
    big = big[: big.rfind("|")]
    spec = tiny(big)
    start = time.perf_counter()
    tokenizers.Tokenizer.from_str(spec)
    hf_s = time.perf_counter() - start
    rows.append([f"Split of {len(big) / 1e6:.0f} M characters", ours(spec), f"loads it: {hf_s:.1f} s"])
    return rows


def packed_cache() -> list[str]:
    """(c): the largest the caches got, their limit, and peak RSS."""
    out = subprocess.run([sys.executable, "-c", PACKED_CHILD, str(CORE)], capture_output=True, text=True, check=True)
    start, peak, largest, limit = map(int, out.stdout.split())
    return [f"{largest / 1e6:.1f}", f"{limit / 1e6:.1f}", f"{start / 1e3:.0f} → {peak / 1e3:.0f}"]


def out_of_memory() -> list[list[str]]:
    """(d): natively under RLIMIT_AS, and under Node."""
    native = subprocess.run([sys.executable, "-c", OOM_CHILD, str(CORE)], capture_output=True, text=True, check=True).stdout.split(" ", 2)
    rows = [["`Tokenizer.encode` of 104 M characters, 500 MB address space", native[1], f"{native[0]} s", native[2].strip(), "–"]]
    node = shutil.which("node")
    if node:
        log("out of memory under Node")
        script = REPO / "tests" / "web" / "soak_memory.mjs"
        got = json.loads(subprocess.run([node, str(script), DIST.as_uri()], capture_output=True, text=True, check=True).stdout.splitlines()[-1])
        rows.append(["JS `decode` of 120 M ids (Node)", got["decode"].get("name", "answered"), f"{got['decodeMs'] / 1e3:.1f} s",
                     got["decode"].get("message", ""), f"{got['start'] >> 20} → {got['afterDecode'] >> 20} MB (restarted)"])
        rows.append(["JS `encode` of 20 M CJK characters (Node)", f"{got['grow']['ok']:,} ids", f"{got['growMs'] / 1e3:.1f} s", "–",
                     f"{got['start'] >> 20} → {got['afterGrow'] >> 20} MB (restarted)"])
    return rows


def saves() -> list[list[str]]:
    """(e): a real kill before each write and each move, for each kind of set."""
    sys.path.insert(0, str(REPO))
    from tests.formats.test_atomic_saves import SET_FILES, _load, _save, kill_points

    rows = []
    for kind in SET_FILES:
        log(f"saves: {kind}")
        with tempfile.TemporaryDirectory() as tmp:
            base = Path(tmp)
            (base / "new").mkdir()
            _save(kind, base / "new", 270)
            new = _load(kind, base / "new")
            _save(kind, base / "new", 262)
            old = _load(kind, base / "new")
            tried = {"old": 0, "new": 0, "mixed or unloadable": 0}
            for stage, stop in kill_points(kind):  # n + 1 writes (the journal last), n moves
                folder = base / f"{stage}{stop}"
                folder.mkdir()
                _save(kind, folder, 262)
                _save(kind, folder, 270, stop_after=stop, stage=stage)
                try:
                    got = _load(kind, folder)
                    tried["old" if got == old else "new" if got == new else "mixed or unloadable"] += 1
                except Exception:  # noqa: BLE001 - counted as a failure
                    tried["mixed or unloadable"] += 1
            rows.append([kind, str(sum(tried.values())), str(tried["old"]), str(tried["new"]), str(tried["mixed or unloadable"])])
    return rows


def javascript() -> list[list[str]]:
    """(f): Node, and Chromium isolated and plain."""
    rows = []
    node = shutil.which("node")
    if node and (DIST / "manifest.json").exists():
        log("JS: Node")
        with tempfile.NamedTemporaryFile("w", suffix=".mjs", delete=False) as f:
            f.write(NODE_ABORT)
        try:
            got = json.loads(subprocess.run([node, f.name, DIST.as_uri()], capture_output=True, text=True, check=True).stdout.splitlines()[-1])
        finally:
            os.unlink(f.name)
        rows.append(["Node (worker thread, shared memory)", got["aborted"], f"{got['waited']:.0f}", "in place" if not got["restarts"] else "worker replaced"])
        rows.append(["Node, no signal: the 20 s time budget", got["budget"], f"{got['budgetMs']:.0f}", "in place"])
        rows.append(["Node, a quadratic Split pattern (`a*b*c` on 120,000 `a`) instead", got["patternAborted"],
                     f"{got['patternWaited']:.0f}", "in place (the regex engine polls for interrupts)"])
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return rows
    sys.path.insert(0, str(REPO))
    from tests.browser import CHROMIUM, CHROMIUM_ARGS, Guard, open_page, serve
    from tests.web.test_hostile_browser import RUNAWAY, SCRIPT

    server, base = serve.serve_in_background(DIST)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for isolated in (True, False):
                log(f"JS: Chromium, isolated={isolated}")
                ctx, page = open_page(browser, base, Guard(isolated=isolated))
                got = page.evaluate(SCRIPT, RUNAWAY)
                ctx.close()
                label = "Chromium, cross-origin isolated page" if isolated else "Chromium, plain page"
                how = "in place" if not got["restarts"] else "worker replaced, tokenizers reopened"
                rows.append([label, got["aborted"], f"{got['waited']:.0f}", how])
            browser.close()
    finally:
        server.shutdown()
    return rows


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(":---" if i == 0 else "---" for i in range(len(header))) + "|"]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def main(argv: list[str]) -> int:
    options = parser("hostile", __doc__)
    options.add_argument("--print", action="store_true", help="print the section instead of writing it")
    printing = options.parse_args(argv).print
    sys.path.insert(0, str(CORE))
    info = machine_info("this checkout's core/ and dist/")
    parts = [
        "## Hostile input",
        "",
        f"Written by `.venv/bin/python -m bench hostile` ({info['date']}; {info['python']}; {info['cpu']}). "
        "Each case once: what matters is that it stops, and within what.",
        "",
        "### Chat templates, under the default budgets (20 s, 2²⁵ characters)",
        "",
        "Natively; seconds until `TemplateLimitError`, tracemalloc's peak while it ran.",
        "",
        table(["case (tests/llm/test_template_limits.py)", "stopped by", "s", "peak MB"], templates()),
        "",
        "### Patterns",
        "",
        table(["file", "bytepair", "HF tokenizers 0.23"], patterns()),
        "",
        "### The packed piece cache over 300,000 new pieces",
        "",
        "A fresh process `encode_to_array`s 300,000 distinct 3-character CJK pieces (o200k_base).",
        "",
        table(["largest (both caches) MB", "their limit MB", "peak RSS MB (before → after)"], [packed_cache()]),
        "",
        "### Out of memory",
        "",
        table(["call", "error", "time", "message", "wasm memory after"], out_of_memory()),
        "",
        "### Saves killed midway",
        "",
        "A child process saves a new set over an old one and is killed (`os._exit`) before each of its "
        "writes (the n files, then the journal) and each of its n moves; then this process loads the folder "
        "(`bpe_model`: `models.BPE.save`, read by `models.BPE.from_file`).",
        "",
        table(["set", "kills", "loaded the old set", "loaded the new set", "mixed or unloadable"], saves()),
        "",
        "### An aborted runaway template in the JavaScript runtime",
        "",
        "A runaway template runs on one tokenizer; another tokenizer's count waits behind it; the first "
        "call is aborted. Milliseconds from the abort to the count's answer.",
        "",
        table(["runtime", "the aborted call", "ms until the other answered", "how it stopped"], javascript()),
    ]
    markdown = "\n".join(parts)
    if printing:
        print(markdown)
    else:
        replace_marked(RELIABILITY, "hostile", markdown, "# Reliability\n")
        print(f"wrote section hostile of {RELIABILITY.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
