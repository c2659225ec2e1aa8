"""Benchmark the browser bundle against JavaScript tokenizers in headless Chromium; section `browser`
of docs/PERFORMANCE.md.

    make bench                                                  # full run (after bench_encode.py)
    .venv/bin/python bench/bench_web.py --quick                 # a smoke run: prints, writes nothing
    .venv/bin/python bench/bench_web.py --quick --output /tmp/perf.md

bytepair (``dist/``: Pyodide in a module Web Worker) is compared with gpt-tokenizer, js-tiktoken,
tiktoken's WebAssembly build, ai-tokenizer and ``@huggingface/tokenizers`` (tokenizers.js), all loaded
from ``node_modules`` by one page, ``bench/web/bench.html``, with an import map and no bundler.
tokenizers.js reads a tokenizer.json, which this script writes per encoding with bytepair itself
(``Tokenizer.from_encoding(name).to_str()``) into the site's ``/hf/``. A temporary site on 127.0.0.1
serves that page, ``dist/``, ``node_modules/`` and the decompressed corpus; its handler counts the
bytes of every response. Measured, in this order:

1. start-up: page navigation to the first ``count("hello world")``, cold (fresh profile) and warm
   (the same profile's next pages), with the bytes and requests each start needed;
2. first pass: each corpus file encoded once on a fresh page whose library has encoded nothing yet;
3. mixed stream: every corpus file in turn, two rounds, one page per library, time per round;
4. encode throughput on each corpus file, one page per library, first pass and warm;
5. worst cases: 1 MB of "x", random letters, spaces and random digits, one call on a fresh page,
   with a time limit.

Every id list is compared with tiktoken 0.14 (Rust, in this Python process) through a sha256 of the
ids, so a library that disagrees is reported even when all the JavaScript ones agree among
themselves. The script exits with status 1 on any mismatch or request that left 127.0.0.1.

Adding a measurement: write ``measure_x(session) -> result`` and ``render_x(session, result) -> str``
and list them in ``MEASUREMENTS`` with the section they belong to (e.g. the future ``playground``);
each section is written with ``report.replace_section``.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import hashlib
import http.server
import importlib.util
import json
import os
import random
import shutil
import statistics
import string
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlencode, urlparse

from playwright.sync_api import Error as PlaywrightError

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(1, str(REPO))  # tests.tiktoken_offline, imported by suite (as bench_encode.py does)

from report import has_section, replace_section  # noqa: E402
from suite import (  # noqa: E402 - shared with the native benchmark
    MB,
    WORST_CASE_SEED,
    Checks,
    Column,
    command_line,
    digest,
    load_corpus,
    load_summary,
    log,
    md_table,
)
from tests.browser import CHROMIUM  # noqa: E402 - the same Chromium and flags as the tests
from tests.browser import CHROMIUM_ARGS as TEST_CHROMIUM_ARGS  # noqa: E402
from tests.tiktoken_offline import fill_cache, offline_tiktoken  # noqa: E402
from playground_latency import measure_playground, playground_notes, render_playground  # noqa: E402

DIST = REPO / "dist"
SITE = REPO / "site"
NODE_MODULES = REPO / "node_modules"
WEB = BENCH / "web"
DEFAULT_OUTPUT = REPO / "docs" / "PERFORMANCE.md"
QUICK_CORPORA = ("en", "zh", "code_python", "mixed")
CHROMIUM_ARGS = [
    *TEST_CHROMIUM_ARGS,
    # Anything not on 127.0.0.1 goes to a proxy port where nothing listens, so it fails inside
    # Chromium without any request interception (which would disable the HTTP cache: see NetworkGuard).
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=127.0.0.1",
]
GC_ARGS = ["--js-flags=--expose-gc"]  # the throughput browser: the page collects garbage before each timed call
LIBRARIES = (  # keys of LIBRARIES in bench.mjs
    "bytepair", "gpt-tokenizer", "js-tiktoken", "tiktoken", "ai-tokenizer", "@huggingface/tokenizers",
)  # fmt: skip
NPM_PACKAGES = {library: library for library in LIBRARIES if library != "bytepair"}
STARTUP_TEXT = "hello world"
WORST_CASE_CHARS = 1_000_000
QUICK_WORST_CASE_CHARS = 100_000
MIXED_ROUNDS = 2
TARGET_WORST_S = 3.0
TARGET_COLD_S = 3.0
TARGET_WARM_S = 1.0
TARGET_COLD_BYTES = 7_500_000
"""Issue 14: a cold o200k start sends at most 7.5 MB (compressed, as served). A start-up run says
whether bytepair's cold pages met it, so a bundle that grows past it shows in the notes."""
CALL_OVERHEAD_REPEATS = 20


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"fewer repeats and pages, only {', '.join(QUICK_CORPORA)}, a 15 s limit; writes no file unless --output",
    )
    parser.add_argument(
        "--repeats", type=int, help="fresh profiles per start-up, re-encodes per file (default 5, 2 with --quick)"
    )
    parser.add_argument("--warm-pages", type=int, help="warm pages per profile (default 4, 2 with --quick)")
    parser.add_argument("--timeout", type=float, help="seconds one encode call may take (default 60, 15 with --quick)")
    parser.add_argument("--encodings", default="o200k_base,cl100k_base", help="comma-separated encodings")
    parser.add_argument(
        "--worst-encodings",
        help="comma-separated encodings for the worst cases (default: the first of --encodings; four "
        "peers that each run into the time limit on three of the four cases make every encoding cost ~12 min)",
    )
    parser.add_argument(
        "--corpus", type=Path, default=BENCH / "corpus", help="directory of NAME.txt.xz or NAME.txt files"
    )
    parser.add_argument(
        "--corpora", help=f"comma-separated corpus names (default all; {','.join(QUICK_CORPORA)} with --quick)"
    )
    parser.add_argument(
        "--only",
        help="comma-separated measurements to run (start-up, first pass, mixed stream, throughput, worst cases, "
        "playground); default all. A section the run covers only in part is printed, not written over the "
        "file's (it would drop the parts left out)",
    )
    parser.add_argument(
        "--output",
        type=Path,
        help=f"file whose sections `browser` and `playground` to write (default {DEFAULT_OUTPUT.relative_to(REPO)}; none with --quick)",
    )
    args = parser.parse_args(argv)
    args.repeats = args.repeats or (2 if args.quick else 5)
    args.warm_pages = args.warm_pages or (2 if args.quick else 4)
    args.timeout = args.timeout or (15.0 if args.quick else 60.0)
    if args.repeats < 1 or args.warm_pages < 1 or args.timeout <= 0:
        parser.error("--repeats and --warm-pages must be at least 1, --timeout positive")
    if args.output is None and not args.quick:
        args.output = DEFAULT_OUTPUT
    args.encodings = [e.strip() for e in args.encodings.split(",") if e.strip()]
    if args.worst_encodings:
        args.worst_encodings = [e.strip() for e in args.worst_encodings.split(",") if e.strip()]
        if not set(args.worst_encodings) <= set(args.encodings):
            parser.error("--worst-encodings must be among --encodings")
    else:
        args.worst_encodings = args.encodings[:1]
    args.worst_chars = QUICK_WORST_CASE_CHARS if args.quick else WORST_CASE_CHARS
    if args.corpora:
        args.corpora = tuple(c.strip() for c in args.corpora.split(",") if c.strip())
    else:
        args.corpora = QUICK_CORPORA if args.quick else None
    return args


# --------------------------------------------------------------------------------------- the site
@dataclass(frozen=True)
class Request:
    path: str
    status: int
    body_bytes: int  # bytes of the response body the server wrote (0 for a 304)


def load_serve_module() -> Any:
    """build/serve.py by path: build/ is not a package, and the benchmark must serve exactly as it does."""
    spec = importlib.util.spec_from_file_location("bytepair_build_serve", REPO / "build" / "serve.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def counting_handler(base: type[http.server.SimpleHTTPRequestHandler]) -> type:
    """serve.py's handler, also recording every GET's status and body size in ``server.requests``."""

    class CountingHandler(base):  # type: ignore[misc, valid-type]
        def do_GET(self) -> None:  # noqa: N802 - stdlib name
            self._status, self._body_bytes = 0, 0
            super().do_GET()
            self.server.requests.append(Request(urlparse(self.path).path, self._status, self._body_bytes))

        def send_response(self, code: int, message: str | None = None) -> None:
            self._status = int(code)
            super().send_response(code, message)

        def copyfile(self, source: Any, outputfile: Any) -> None:
            start = source.tell()
            super().copyfile(source, outputfile)
            self._body_bytes = source.tell() - start

    return CountingHandler


@dataclass
class Site:
    """The temporary site: /dist, /node_modules and /bench (symlinks into the repo), /corpus (texts)."""

    root: Path
    base: str
    server: http.server.ThreadingHTTPServer

    @property
    def requests(self) -> list[Request]:
        return self.server.requests  # type: ignore[attr-defined, no-any-return]

    def mark(self) -> int:
        return len(self.requests)

    def since(self, mark: int) -> list[Request]:
        return list(self.requests[mark:])

    def url(self, path: str, **query: str) -> str:
        return self.base + path.lstrip("/") + (f"?{urlencode(query)}" if query else "")

    def file(self, path: str) -> Path:
        return self.root / unquote(path).lstrip("/")


@contextmanager
def serve_site(work: Path, texts: dict[str, str]) -> Iterator[Site]:
    """Lay out the site in ``work`` and serve it on 127.0.0.1 in a background thread."""
    root = work / "site"
    root.mkdir()
    for name, target in (("dist", DIST), ("node_modules", NODE_MODULES), ("bench", WEB), ("playground", SITE)):
        (root / name).symlink_to(target, target_is_directory=True)
    (root / "corpus").mkdir()
    for name, text in texts.items():
        (root / "corpus" / f"{name}.txt").write_text(text, encoding="utf-8")
    serve = load_serve_module()
    handler = functools.partial(counting_handler(serve._Handler), directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.quiet = True  # type: ignore[attr-defined]
    server.requests = []  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield Site(root, f"http://127.0.0.1:{server.server_address[1]}/", server)
    finally:
        server.shutdown()
        server.server_close()


# --------------------------------------------------------------------------------------- browsers
@dataclass
class NetworkGuard:
    """Every request a page makes must go to 127.0.0.1; anything else is recorded here and fails.

    Two mechanisms, because Playwright's ``route`` (request interception) turns Chromium's HTTP cache
    off for the whole context: a warm start would then download everything again (measured: bytepair
    re-fetched 15.7 MB with 200s where it otherwise gets 304s), which would falsify the start-up and
    transfer numbers. So start-up profiles only observe requests (``context.on("request")``) while
    Chromium's flags send other hosts to a dead proxy; the throughput and worst-case contexts, where
    caching does not matter, also get a ``context.route("**/*")`` guard that aborts them.
    """

    violations: list[str] = field(default_factory=list)
    seen: int = 0

    def _local(self, url: str) -> bool:
        parsed = urlparse(url)
        return parsed.scheme in ("data", "blob", "about") or parsed.hostname == "127.0.0.1"

    def observe(self, context: Any) -> None:
        context.on("request", self._on_request)

    def intercept(self, context: Any) -> None:
        self.observe(context)
        context.route("**/*", self._on_route)

    def _on_request(self, request: Any) -> None:
        self.seen += 1
        if not self._local(request.url):
            self.violations.append(request.url)
            log(f"NETWORK GUARD: a page asked for {request.url}")

    def _on_route(self, route: Any) -> None:
        if self._local(route.request.url):
            route.continue_()
        else:
            route.abort()


class JobTimeout(Exception):
    pass


class JobError(Exception):
    pass


class BenchPage:
    """bench.html in its own browser context, and calls into it with a time limit of the driver's own.

    Why: ``page.evaluate`` waits on the page, and a synchronous library that runs for minutes blocks
    it; the page instead reports through an exposed function while the driver sleeps in short
    steps, and closing the context ends a call that ran out of time (it kills the renderer).
    """

    def __init__(self, browser: Any, site: Site, guard: NetworkGuard) -> None:
        self.context = browser.new_context()
        try:
            guard.intercept(self.context)
            self._outcomes: list[dict[str, Any]] = []
            self.page = self.context.new_page()
            # a plain function: Playwright tags the callback with an attribute, which a bound method refuses
            self.page.expose_function("benchJobDone", lambda outcome: self._outcomes.append(outcome))
            self.page.goto(site.url("bench/bench.html"))
        except BaseException:
            self.context.close()
            raise

    def call(self, method: str, *args: Any, timeout_s: float) -> Any:
        """``bench[method](...args)`` in the page; raises JobTimeout, or JobError (also if the page died)."""
        self._outcomes.clear()
        deadline = time.monotonic() + timeout_s
        try:
            self.page.evaluate("([method, args]) => bench.start(method, ...args)", [method, list(args)])
            while not self._outcomes:
                if time.monotonic() > deadline:
                    raise JobTimeout(f"{method} took more than {timeout_s:g} s")
                self.page.wait_for_timeout(50)
        except PlaywrightError as err:
            raise JobError(f"{method}: the page failed: {err}") from err
        outcome = self._outcomes[0]
        if not outcome["ok"]:
            raise JobError(outcome["error"])
        return outcome["result"]

    def close(self) -> None:
        self.context.close()


@contextmanager
def bench_page(browser: Any, site: Site, guard: NetworkGuard) -> Iterator[BenchPage]:
    page = BenchPage(browser, site, guard)
    try:
        yield page
    finally:
        page.close()


# ----------------------------------------------------------------------------------------- session
@dataclass
class Expected:
    """Reference ids from tiktoken 0.14 (Rust): sha256 fingerprints and lengths, per encoding and text."""

    digests: dict[tuple[str, str], str]
    tokens: dict[tuple[str, str], int]
    startup_count: dict[str, int]
    single_piece_fallbacks: list[tuple[str, str, str]] = field(default_factory=list)  # (encoding, text, panic)


@dataclass
class Session:
    """What every measurement needs: options, site, Playwright, references, and what went wrong."""

    args: argparse.Namespace
    site: Site
    playwright: Any
    corpus: list[str]  # corpus names, in the order the pages encode them
    worst_cases: dict[str, str]  # label -> name of its text (served as /corpus/NAME.txt)
    text_bytes: dict[str, int]  # name -> UTF-8 bytes, corpus and worst cases
    expected: Expected
    work: Path
    facts: dict[str, str] = field(default_factory=dict)
    checks: Checks = field(default_factory=Checks)
    guard: NetworkGuard = field(default_factory=NetworkGuard)
    errors: list[str] = field(default_factory=list)
    _browser: Any = None

    def browser(self) -> Any:
        """The one shared browser for throughput and worst cases, launched on first use."""
        if self._browser is None:
            self._browser = self.playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS + GC_ARGS)
        return self._browser

    def error(self, what: str) -> None:
        self.errors.append(what)
        log(f"ERROR: {what}")

    def check_ids(self, encoding: str, name: str, library: str, result: dict[str, Any], what: str) -> None:
        """Compare a page's ids (count and fingerprint) for text ``name`` with tiktoken's."""
        key = (encoding, name)
        ok = result["digest"] == self.expected.digests[key] and result["tokens"] == self.expected.tokens[key]
        theirs = self.expected.tokens[key]
        detail = "" if ok else f": {result['tokens']:,} ids (tiktoken {theirs:,}), digest {result['digest']}"
        self.checks.expect(ok, f"{library} {encoding} {what}{detail}")


# ----------------------------------------------------------------------------------------- inputs
def worst_case_texts(n: int) -> dict[str, tuple[str, str]]:
    """Label -> (name, text): ``n`` characters of one letter, seeded random letters, spaces, seeded
    random digits. The first three are single pieces under both encodings' patterns; the digits are
    not (``\\p{N}{1,3}`` cuts them into threes) and are here because the issue lists them."""
    rng = random.Random(WORST_CASE_SEED)
    return {
        f'"x" × {n:,}': ("worst-x", "x" * n),
        f"random a-z × {n:,}": ("worst-a-z", "".join(rng.choices(string.ascii_lowercase, k=n))),
        f'" " × {n:,}': ("worst-spaces", " " * n),
        f"random 0-9 × {n:,}": ("worst-digits", "".join(rng.choices(string.digits, k=n))),
    }


def write_hf_tokenizer_json(root: Path, encodings: Sequence[str]) -> None:
    """``root/hf/ENCODING.json`` for tokenizers.js, written by bytepair (its ids are checked like every library's)."""
    from bytepair.tokenizer import Tokenizer

    (root / "hf").mkdir(exist_ok=True)
    for name in encodings:
        (root / "hf" / f"{name}.json").write_text(Tokenizer.from_encoding(name).to_str(), encoding="utf-8")


SINGLE_PIECES = ("worst-x", "worst-a-z", "worst-spaces")  # texts the encodings' patterns leave whole


def reference_ids(work: Path, encodings: Sequence[str], texts: dict[str, str]) -> Expected:
    """tiktoken's ids for every text, fingerprinted as the page fingerprints its ids.

    tiktoken 0.14's pattern step panics (``RuntimeError(StackOverflow)`` from its regex engine, raised
    as pyo3's ``PanicException``, a BaseException) on 1 MB of spaces. For a text its pattern leaves as
    one piece the reference is then tiktoken's own BPE of that piece (``_encode_single_piece``), and
    the fallback is listed under Checks.
    """
    get_encoding = offline_tiktoken(fill_cache(work / "tiktoken-cache"))
    expected = Expected({}, {}, {})
    for name in encodings:
        enc = get_encoding(name)
        expected.startup_count[name] = len(enc.encode_ordinary(STARTUP_TEXT))
        for key, text in texts.items():
            try:
                ids = enc.encode_ordinary(text)
            except BaseException as err:  # noqa: BLE001 - only a Rust panic, re-raised otherwise
                if type(err).__name__ != "PanicException" or key not in SINGLE_PIECES:
                    raise
                log(f"tiktoken panicked on {name} {key}; reference: its BPE of the text as one piece")
                ids = enc._encode_single_piece(text.encode("utf-8"))
                expected.single_piece_fallbacks.append((name, key, str(err).splitlines()[0]))
            expected.digests[name, key], expected.tokens[name, key] = digest(ids), len(ids)
    return expected


# ------------------------------------------------------------------------------------ 1. start-up
@dataclass
class PageStart:
    library: str
    encoding: str
    profile: int
    page: int  # 0: the profile's first page (cold); 1..: warm
    module_ms: float  # bench.mjs running: the harness's own share of every start
    ready_ms: float
    first_count_ms: float
    timings: dict[str, Any] | None
    requests: list[Request]
    renderer_peak_kb: int | None = None  # the page's renderer process: peak private memory (renderer_peaks)


def renderer_peaks() -> dict[int, int]:
    """Chromium's renderer processes on this machine: pid -> peak private memory in kB, that is the
    peak resident set (``VmHWM`` of /proc/<pid>/status) less the file-backed pages now resident
    (``RssFile``: Chromium's own code, mapped from its binary and shared, ~55-100 MB per renderer
    here); empty where there is no /proc. A page's workers run in its renderer, so this is the
    high-water mark of what a start-up held at once: wasm memory, buffers, JavaScript heaps."""
    peaks = {}
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if b"--type=renderer" not in cmdline.read_bytes():
                continue
            fields = dict(line.split(":", 1) for line in (cmdline.parent / "status").read_text().splitlines() if ":" in line)
            peaks[int(cmdline.parent.name)] = int(fields["VmHWM"].split()[0]) - int(fields["RssFile"].split()[0])
        except (OSError, ValueError, KeyError):
            continue  # gone meanwhile
    return peaks


def open_profile(session: Session, directory: Path) -> Any:
    """A fresh persistent profile: its own Chromium process, HTTP cache, code cache, Cache Storage, origin private file system."""
    context = session.playwright.chromium.launch_persistent_context(
        str(directory), executable_path=CHROMIUM, args=CHROMIUM_ARGS
    )
    session.guard.observe(context)
    for page in context.pages:
        page.close()
    return context


def start_page(
    session: Session, context: Any, library: str, encoding: str, profile: int, index: int
) -> PageStart | None:
    """Open bench.html in start-up mode, wait for its first count, close it."""
    mark = session.site.mark()
    what = f"start-up {library} {encoding} profile {profile} page {index}"
    earlier = renderer_peaks()
    page = context.new_page()
    try:
        page.goto(session.site.url("bench/bench.html", start=library, encoding=encoding, text=STARTUP_TEXT))
        result = page.evaluate("window.startup")
        # This page's renderer: the one whose peak grew most (Chromium keeps a spare renderer
        # started, which the next page takes, so it may well be older than the page).
        now = renderer_peaks()
        grown = {pid: kb - earlier.get(pid, 0) for pid, kb in now.items()}
        peak = now[max(grown, key=grown.get)] if grown else None
    except PlaywrightError as err:
        session.error(f"{what}: {err}")
        return None
    finally:
        page.close()
    if not isinstance(result, dict) or "error" in result:
        session.error(f"{what}: {result['error'] if isinstance(result, dict) else 'bench.mjs did not run'}")
        return None
    expected_count = session.expected.startup_count[encoding]
    session.checks.expect(result["count"] == expected_count, f"{what}: count({STARTUP_TEXT!r})")
    return PageStart(
        library, encoding, profile, index, result["moduleMs"], result["readyMs"], result["firstCountMs"],
        result["timings"], session.site.since(mark), peak,
    )  # fmt: skip


def measure_startup(session: Session) -> list[PageStart]:
    """For every repeat, encoding and library: a fresh profile, its cold page, then its warm pages.

    Libraries rotate their order from one repeat to the next, so that a drift in the machine's load
    (other work on the same cores) does not always land on the same library.
    """
    a = session.args
    starts: list[PageStart] = []
    for profile in range(a.repeats):
        order = LIBRARIES[profile % len(LIBRARIES) :] + LIBRARIES[: profile % len(LIBRARIES)]
        for encoding in a.encodings:
            for library in order:
                log(f"start-up: profile {profile + 1}/{a.repeats}, {encoding}, {library}")
                directory = Path(tempfile.mkdtemp(prefix="profile-", dir=session.work))
                context = open_profile(session, directory)
                try:
                    for index in range(1 + a.warm_pages):
                        start = start_page(session, context, library, encoding, profile, index)
                        if start is None:
                            break
                        starts.append(start)
                finally:
                    context.close()
                    shutil.rmtree(directory, ignore_errors=True)
    return starts


# ------------------------------------------------------------------------------- 2. encode speed
@dataclass
class EncodeRun:
    library: str
    encoding: str
    corpus: str
    n_bytes: int
    n_tokens: int
    first_ms: float
    warm_ms: float  # median of the re-encodes


@dataclass
class ThroughputResult:
    runs: list[EncodeRun]
    call_overhead_ms: dict[tuple[str, str], float]  # (library, encoding) -> median count("") ms


def encode_corpus(session: Session, page: BenchPage, library: str, encoding: str) -> list[EncodeRun]:
    """Every corpus file, in order, on one page that has just loaded the library."""
    a = session.args
    runs = []
    for corpus in session.corpus:
        try:
            r = page.call("encodeFile", f"/corpus/{corpus}.txt", a.repeats, timeout_s=a.timeout * (1 + a.repeats))
        except (JobTimeout, JobError) as err:
            session.error(f"throughput {library} {encoding} {corpus}: {err}")
            continue
        session.check_ids(encoding, corpus, library, r, f"{corpus} (first pass)")
        warm_ms = statistics.median(r["warmMs"])
        runs.append(EncodeRun(library, encoding, corpus, r["bytes"], r["tokens"], r["firstMs"], warm_ms))
    return runs


def measure_throughput(session: Session) -> ThroughputResult:
    """Per encoding and library, a fresh page loads the library and encodes the corpus files in order."""
    result = ThroughputResult([], {})
    for encoding in session.args.encodings:
        for library in LIBRARIES:
            log(f"throughput: {encoding}, {library}")
            with bench_page(session.browser(), session.site, session.guard) as page:
                try:  # (a library that fails to load is reported, and the others still run)
                    page.call("load", library, encoding, timeout_s=120)
                    result.call_overhead_ms[library, encoding] = page.call(
                        "callOverhead", CALL_OVERHEAD_REPEATS, timeout_s=60
                    )
                except (JobTimeout, JobError) as err:
                    session.error(f"throughput: loading {library} {encoding}: {err}")
                    continue
                result.runs += encode_corpus(session, page, library, encoding)
    return result


# ----------------------------------------------------------------- first pass and mixed stream
@dataclass
class FirstPassRun:
    library: str
    encoding: str
    corpus: str
    n_bytes: int
    ms: float | None  # None: failed (see session.errors)


def rotated(libraries: Sequence[str], shift: int) -> list[str]:
    """The libraries starting at ``shift``: a drift in the machine's load does not always land on the same one."""
    k = shift % len(libraries)
    return list(libraries[k:]) + list(libraries[:k])


def measure_first_pass(session: Session) -> list[FirstPassRun]:
    """Every encoding × corpus file × library: a fresh page loads the library and encodes that file once.

    A fresh browser context per call: the library's code, its caches and V8's optimizations start
    from nothing, as on a page that meets its first text (bytepair: a new worker, empty piece cache).
    """
    a = session.args
    runs = []
    for encoding in a.encodings:
        for i, corpus in enumerate(session.corpus):
            for library in rotated(LIBRARIES, i):
                log(f"first pass: {encoding}, {corpus}, {library}")
                n_bytes = session.text_bytes[corpus]
                with bench_page(session.browser(), session.site, session.guard) as page:
                    try:
                        page.call("load", library, encoding, timeout_s=120)
                        r = page.call("encodeOnce", f"/corpus/{corpus}.txt", timeout_s=a.timeout)
                    except (JobTimeout, JobError) as err:
                        session.error(f"first pass {library} {encoding} {corpus}: {err}")
                        runs.append(FirstPassRun(library, encoding, corpus, n_bytes, None))
                        continue
                session.check_ids(encoding, corpus, library, r, f"{corpus} (first pass, fresh page)")
                runs.append(FirstPassRun(library, encoding, corpus, r["bytes"], r["ms"]))
    return runs


@dataclass
class MixedRun:
    library: str
    encoding: str
    n_bytes: int  # one round
    round_ms: list[float]  # empty: failed


def measure_mixed(session: Session) -> list[MixedRun]:
    """Per encoding and library, one fresh page encodes every corpus file in turn, MIXED_ROUNDS times."""
    a = session.args
    urls = [f"/corpus/{corpus}.txt" for corpus in session.corpus]
    n_bytes = sum(session.text_bytes[c] for c in session.corpus)
    runs = []
    for e, encoding in enumerate(a.encodings):
        for library in rotated(LIBRARIES, e):
            log(f"mixed stream: {encoding}, {library}")
            with bench_page(session.browser(), session.site, session.guard) as page:
                try:
                    page.call("load", library, encoding, timeout_s=120)
                    r = page.call("mixedStream", urls, MIXED_ROUNDS, timeout_s=a.timeout * 5 * MIXED_ROUNDS)
                except (JobTimeout, JobError) as err:
                    session.error(f"mixed stream {library} {encoding}: {err}")
                    runs.append(MixedRun(library, encoding, n_bytes, []))
                    continue
            for k, rnd in enumerate(r["rounds"]):
                for corpus, result in zip(session.corpus, rnd["files"], strict=True):
                    session.check_ids(encoding, corpus, library, result, f"{corpus} (mixed stream, round {k + 1})")
            runs.append(MixedRun(library, encoding, sum(r["bytes"]), [rnd["ms"] for rnd in r["rounds"]]))
    return runs


FIRST_PASS_SUMMARY_COLUMNS: list[Column] = (
    [("encoding", "l"), ("input MB", "r")]
    + [(f"{library} MB/s", "r") for library in LIBRARIES]
    + [("bytepair ÷ gpt-tokenizer time", "r"), ("target: bytepair ≥ gpt-tokenizer's MB/s", "l")]
)


def first_pass_totals(session: Session, runs: list[FirstPassRun], encoding: str) -> dict[str, tuple[int, float]]:
    """Per library that encoded every file: (total bytes, total ms)."""
    out = {}
    for library in LIBRARIES:
        mine = [r for r in runs if r.library == library and r.encoding == encoding]
        if len(mine) == len(session.corpus) and all(r.ms is not None for r in mine):
            out[library] = (sum(r.n_bytes for r in mine), sum(r.ms for r in mine if r.ms is not None))
    return out


def verdict(ratio: float | None) -> str:
    if ratio is None:
        return "–"
    return "met" if ratio <= 1 else "**not met**"


def render_first_pass(session: Session, runs: list[FirstPassRun]) -> str:
    summary, blocks = [], []
    for encoding in session.args.encodings:
        totals = first_pass_totals(session, runs, encoding)
        n_bytes = sum(session.text_bytes[c] for c in session.corpus)
        row = [encoding, f"{n_bytes / MB:.3f}"]
        row += [fmt_mbps(*totals[library]) if library in totals else "failed" for library in LIBRARIES]
        ratio = totals["bytepair"][1] / totals["gpt-tokenizer"][1] if {"bytepair", "gpt-tokenizer"} <= set(totals) else None
        summary.append(row + ["–" if ratio is None else f"{ratio:.2f}×", verdict(ratio)])
        body = []
        for corpus in session.corpus:
            by_library = {r.library: r for r in runs if r.encoding == encoding and r.corpus == corpus}
            cells = [fmt_mbps(session.text_bytes[corpus], by_library[lib].ms) if lib in by_library else "–" for lib in LIBRARIES]
            ours, theirs = by_library.get("bytepair"), by_library.get("gpt-tokenizer")
            r = f"{ours.ms / theirs.ms:.2f}×" if ours and theirs and ours.ms and theirs.ms else "–"
            body.append([corpus, f"{session.text_bytes[corpus] / MB:.3f}", *cells, r])
        columns: list[Column] = (
            [("corpus", "l"), ("input MB", "r")]
            + [(f"{library} MB/s", "r") for library in LIBRARIES]
            + [("bytepair ÷ gpt-tokenizer time", "r")]
        )
        blocks.append(f"#### First pass per file, {encoding}\n\n{md_table(columns, body)}")
    return f"""### 1. First pass: new text on a fresh page

Each corpus file encoded **once** by each library on a page where that library has encoded nothing
before: per encoding, file and library a fresh browser context (its own renderer, empty caches) loads
the library (not timed) and times one awaited `encode(text)` after a garbage collection; the order
of the libraries rotates from file to file. bytepair's piece cache is empty and its Python
code runs for the first time in that worker; the peers' JavaScript is not yet optimized by V8. MB/s
is total bytes over total time (MB = 10⁶ bytes); the ratio is a time ratio, under 1.00× means
bytepair took less time. **Target: bytepair's first pass at least gpt-tokenizer's speed** (ratio
≤ 1.00×). bytepair's times include the round trip to its Web Worker; the peers block the page's
main thread.

{md_table(FIRST_PASS_SUMMARY_COLUMNS, summary)}

{chr(10).join(b + chr(10) for b in blocks)}"""


def first_pass_notes(session: Session, runs: list[FirstPassRun]) -> list[str]:
    out = []
    for encoding in session.args.encodings:
        totals = first_pass_totals(session, runs, encoding)
        if not {"bytepair", "gpt-tokenizer"} <= set(totals):
            out.append(f"- First pass {encoding}: bytepair or gpt-tokenizer failed a file; no verdict.")
            continue
        ratio = totals["bytepair"][1] / totals["gpt-tokenizer"][1]
        out.append(
            f"- First pass {encoding}: bytepair {fmt_mbps(*totals['bytepair'])} MB/s against gpt-tokenizer's "
            f"{fmt_mbps(*totals['gpt-tokenizer'])} ({ratio:.2f}× its time): target {verdict(ratio)}."
        )
    return out


MIXED_COLUMNS: list[Column] = (
    [("encoding", "l"), ("round", "l"), ("input MB", "r")]
    + [(f"{library} MB/s", "r") for library in LIBRARIES]
    + [("bytepair ÷ gpt-tokenizer time", "r")]
)


def render_mixed(session: Session, runs: list[MixedRun]) -> str:
    body = []
    for encoding in session.args.encodings:
        mine = {r.library: r for r in runs if r.encoding == encoding}
        n_bytes = next((r.n_bytes for r in mine.values()), 0)
        labels = [f"{k + 1}" for k in range(MIXED_ROUNDS)] + ["both"]
        for k, label in enumerate(labels):
            def ms_of(library: str) -> float | None:
                run = mine.get(library)
                if run is None or len(run.round_ms) != MIXED_ROUNDS:
                    return None
                return sum(run.round_ms) if label == "both" else run.round_ms[k]

            size = n_bytes * (MIXED_ROUNDS if label == "both" else 1)
            cells = [fmt_mbps(size, ms_of(lib)) if ms_of(lib) is not None else "failed" for lib in LIBRARIES]
            ours, theirs = ms_of("bytepair"), ms_of("gpt-tokenizer")
            ratio = f"{ours / theirs:.2f}×" if ours and theirs else "–"
            body.append([encoding, label if label != "both" else "**both**", f"{size / MB:.3f}", *cells, ratio])
    return f"""### 2. Mixed stream: every file in turn, two rounds, one page

Per encoding and library, one fresh page loads the library and encodes the {len(session.corpus)} corpus
files one after the other ({", ".join(session.corpus)}), then all of them again: {MIXED_ROUNDS} rounds
on the same page, so round 2 meets texts (and pieces) it has seen, while round 1 mixes new text with
whatever earlier files taught the caches. Texts are fetched before the clock starts; one garbage
collection before each round; the round is timed as a whole. Every file's ids in every round are
checked. MB/s and a bytepair ÷ gpt-tokenizer time ratio per round and for both rounds together.

{md_table(MIXED_COLUMNS, body)}
"""


def mixed_notes(session: Session, runs: list[MixedRun]) -> list[str]:
    out = []
    for encoding in session.args.encodings:
        mine = {r.library: r for r in runs if r.encoding == encoding and len(r.round_ms) == MIXED_ROUNDS}
        if {"bytepair", "gpt-tokenizer"} <= set(mine):
            ours, theirs = mine["bytepair"], mine["gpt-tokenizer"]
            ratio = sum(ours.round_ms) / sum(theirs.round_ms)
            size = ours.n_bytes * MIXED_ROUNDS
            out.append(
                f"- Mixed stream {encoding}, both rounds: bytepair {fmt_mbps(size, sum(ours.round_ms))} MB/s, "
                f"gpt-tokenizer {fmt_mbps(size, sum(theirs.round_ms))} ({ratio:.2f}× its time)."
            )
    return out


# ------------------------------------------------------------------------------ 3. worst cases
@dataclass
class WorstRun:
    library: str
    encoding: str
    case: str
    n_bytes: int
    n_tokens: int | None
    ms: float | None  # None: over the time limit, or failed
    failure: str | None = None


def worst_case_run(session: Session, library: str, encoding: str, case: str, name: str) -> WorstRun:
    """One encode of one worst-case text on a fresh page (empty caches); the page dies on time-out."""
    n_bytes = session.text_bytes[name]
    with bench_page(session.browser(), session.site, session.guard) as page:
        try:
            page.call("load", library, encoding, timeout_s=120)
        except (JobTimeout, JobError) as err:
            session.error(f"worst case {library} {encoding} {case}: loading: {err}")
            return WorstRun(library, encoding, case, n_bytes, None, None, "did not load")
        try:
            r = page.call("encodeOnce", f"/corpus/{name}.txt", timeout_s=session.args.timeout)
        except JobTimeout:
            log(f"worst case: {library} {encoding} {case}: over {session.args.timeout:g} s, page closed")
            return WorstRun(library, encoding, case, n_bytes, None, None, f"> {session.args.timeout:g} s")
        except JobError as err:  # the library itself failed on this input: a result, not a harness error
            message = str(err).splitlines()[0]
            log(f"worst case: {library} {encoding} {case} threw {message}")
            return WorstRun(library, encoding, case, n_bytes, None, None, f"throws `{message}`")
    session.check_ids(encoding, name, library, r, case)
    return WorstRun(library, encoding, case, r["bytes"], r["tokens"], r["ms"])


def measure_worst_cases(session: Session) -> list[WorstRun]:
    runs = []
    for encoding in session.args.worst_encodings:
        for case, name in session.worst_cases.items():
            for library in LIBRARIES:
                log(f"worst case: {encoding}, {case}, {library}")
                runs.append(worst_case_run(session, library, encoding, case, name))
    return runs


# --------------------------------------------------------------------------------------- reporting
def fmt_ms(ms: float | None) -> str:
    return "–" if ms is None else f"{ms:,.0f}"


def fmt_mbps(n_bytes: int, ms: float | None) -> str:
    return "–" if not ms else f"{n_bytes / MB / (ms / 1000):.2f}"


def fmt_bytes(n: int) -> str:
    return f"{n:,}"


def target_mark(seconds: float, target_s: float) -> str:
    return f"< {target_s:g} s: " + ("met" if seconds < target_s else "**not met**")


def median_or_none(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def starts_of(starts: list[PageStart], library: str, encoding: str, warm: bool) -> list[PageStart]:
    return [s for s in starts if s.library == library and s.encoding == encoding and (s.page > 0) == warm]


def first_profile(starts: list[PageStart], library: str, encoding: str, warm: bool) -> PageStart | None:
    """The first profile's cold page (or its first warm page): the one whose phases and bytes are shown."""
    return next((s for s in starts_of(starts, library, encoding, warm) if s.profile == 0), None)


STARTUP_COLUMNS: list[Column] = [
    ("library", "l"),
    ("encoding", "l"),
    ("cold ms", "r"),
    ("warm ms", "r"),
    ("warm, fastest–slowest page", "r"),
    ("renderer's peak memory MB (cold / warm)", "r"),
    ("harness share ms (cold / warm)", "r"),
    ("target", "l"),
]


def startup_table(session: Session, starts: list[PageStart]) -> str:
    body = []
    for encoding in session.args.encodings:
        for library in LIBRARIES:
            cold = starts_of(starts, library, encoding, warm=False)
            warm = starts_of(starts, library, encoding, warm=True)
            if not cold:
                body.append([library, encoding, "failed", "–", "–", "–", "–", "–"])
                continue
            cold_ms = statistics.median(s.first_count_ms for s in cold)
            warm_ms = median_or_none([s.first_count_ms for s in warm])
            warm_times = [s.first_count_ms for s in warm]
            spread = f"{min(warm_times):,.0f}–{max(warm_times):,.0f}" if warm else "–"
            peaks = [
                median_or_none([s.renderer_peak_kb / 1024 for s in group if s.renderer_peak_kb])
                for group in (cold, warm)
            ]
            memory = " / ".join("–" if mb is None else f"{mb:,.0f}" for mb in peaks)
            harness = f"{fmt_ms(statistics.median(s.module_ms for s in cold))} / " + fmt_ms(
                median_or_none([s.module_ms for s in warm])
            )
            target = "–"
            if library == "bytepair":
                target = f"cold {target_mark(cold_ms / 1000, TARGET_COLD_S)}; warm " + (
                    target_mark(warm_ms / 1000, TARGET_WARM_S) if warm_ms is not None else "–"
                )
            body.append([library, encoding, fmt_ms(cold_ms), fmt_ms(warm_ms), spread, memory, harness, target])
    return md_table(STARTUP_COLUMNS, body)


def phase_rows(cold: PageStart, warm: PageStart | None) -> list[list[str]]:
    """bytepair's own milestones (worker clock) and the page's (navigation clock), cold against warm."""
    def value(start: PageStart | None, key: str) -> str:
        if start is None or start.timings is None or key not in start.timings:
            return "–"
        return fmt_ms(start.timings[key])

    keys = [k for k in (cold.timings or {}) if k != "files"]
    keys += [k for k in ((warm and warm.timings) or {}) if k != "files" and k not in keys]
    rows = [
        ["page: bench.mjs running", fmt_ms(cold.module_ms), fmt_ms(warm and warm.module_ms)],
        ["page: tokenizer ready", fmt_ms(cold.ready_ms), fmt_ms(warm and warm.ready_ms)],
        [
            f"page: first count({STARTUP_TEXT!r}) resolved",
            fmt_ms(cold.first_count_ms),
            fmt_ms(warm and warm.first_count_ms),
        ],
    ]
    for key in keys:
        label = f"worker: `{key}` (duration)" if key.startswith("build ") else f"worker: `{key}`"
        rows.append([label, value(cold, key), value(warm, key)])
    return rows


def file_rows(cold: PageStart, warm: PageStart | None) -> list[list[str]]:
    """Per asset: fetch and sha256-check milliseconds, cold against warm."""
    def cell(start: PageStart | None, path: str) -> str:
        files = (start.timings or {}).get("files", {}) if start else {}
        if path not in files:
            return "– (not fetched)"
        return f"{files[path]['fetchMs']:,.0f} / {files[path]['checkMs']:,.0f}"

    paths = list((cold.timings or {}).get("files", {}))
    paths += [p for p in ((warm and warm.timings) or {}).get("files", {}) if p not in paths]
    return [[f"`{path}`", cell(cold, path), cell(warm, path)] for path in paths]


def phases_block(session: Session, starts: list[PageStart]) -> str:
    encoding = session.args.encodings[0]
    cold = first_profile(starts, "bytepair", encoding, warm=False)
    if cold is None:
        return "bytepair did not start, so there are no phase timings."
    warm = first_profile(starts, "bytepair", encoding, warm=True)
    phases = md_table([("milestone", "l"), ("cold ms", "r"), ("warm ms", "r")], phase_rows(cold, warm))
    file_columns: list[Column] = [("asset", "l"), ("cold fetch / check ms", "r"), ("warm fetch / check ms", "r")]
    files = md_table(file_columns, file_rows(cold, warm))
    return (
        f"bytepair's phases in the first profile ({encoding}): its cold page and its first warm page. The\n"
        "`page:` rows count from navigation; the `worker:` rows are the runtime's own timings (the internal\n"
        '`"timings"` request), in milliseconds since `Runtime.load` began inside the worker, except\n'
        "`build …`, which is how long building the encoding took. Fetches run in parallel, so their times\n"
        "overlap.\n\n"
        f"{phases}\n\n{files}"
    )


TRANSFER_COLUMNS: list[Column] = [
    ("library", "l"),
    ("encoding", "l"),
    ("cold requests", "r"),
    ("cold bytes sent", "r"),
    ("cold, if gzip -6", "r"),
    ("warm requests (of them 304)", "r"),
    ("warm bytes sent", "r"),
]


def library_requests(requests: list[Request]) -> list[Request]:
    """The library's own requests: not the harness page and script (/bench/), not corpus texts."""
    return [r for r in requests if not r.path.startswith(("/bench/", "/corpus/"))]


@functools.cache
def gzip_size(path: Path) -> int:
    return len(gzip.compress(path.read_bytes(), 6, mtime=0))


def bytes_sent(start: PageStart) -> int:
    """What the server sent for the library's own requests of one page start (bodies only)."""
    return sum(r.body_bytes for r in library_requests(start.requests))


def transfer_row(session: Session, library: str, encoding: str, cold: PageStart, warm: PageStart | None) -> list[str]:
    sent = library_requests(cold.requests)
    gz = sum(gzip_size(session.site.file(r.path)) for r in sent if r.status == 200)
    row = [library, encoding, str(len(sent)), fmt_bytes(bytes_sent(cold)), fmt_bytes(gz)]
    if warm is None:
        return row + ["–", "–"]
    again = library_requests(warm.requests)
    not_modified = sum(r.status == 304 for r in again)
    return row + [f"{len(again)} ({not_modified})", fmt_bytes(bytes_sent(warm))]


def transfer_table(session: Session, starts: list[PageStart]) -> str:
    body = []
    for encoding in session.args.encodings:
        for library in LIBRARIES:
            cold = first_profile(starts, library, encoding, warm=False)
            warm = first_profile(starts, library, encoding, warm=True)
            if cold is not None:
                body.append(transfer_row(session, library, encoding, cold, warm))
    return md_table(TRANSFER_COLUMNS, body)


def harness_bytes(starts: list[PageStart]) -> int:
    cold = next((s for s in starts if s.page == 0), None)
    return sum(r.body_bytes for r in cold.requests if r.path.startswith("/bench/")) if cold else 0


def render_startup(session: Session, starts: list[PageStart]) -> str:
    a = session.args
    return f"""### 1. Start-up

Time from the page's navigation to the first `count({STARTUP_TEXT!r})` resolving, read with
`performance.now()` in the page: loading bench.html and bench.mjs (the "harness share", the same
for every library), importing the library, building the encoder (bytepair: starting Pyodide from its
memory snapshot in a Web Worker), the call (`count` for bytepair, `countTokens` for gpt-tokenizer,
`encode(…).length` for js-tiktoken and tiktoken, which have no count). **Cold**: the first page of a
fresh Chromium profile (empty HTTP cache, code cache and storage; its own Chromium process). **Warm**: the same
profile's next {a.warm_pages} pages, each opened after the previous one closed (the HTTP cache
revalidates every file, as the server says `Cache-Control: no-cache`; V8's code cache; bytepair's
snapshot of its started runtime, ranks built, that the first page stored in the origin private file
system). Medians over {a.repeats} profiles ({a.repeats} cold pages,
{a.repeats * a.warm_pages} warm pages) per row. Targets for bytepair: cold under {TARGET_COLD_S:g} s, warm
under {TARGET_WARM_S:g} s. "Renderer's peak memory": the high-water mark of the private memory of the
page's renderer process, which holds the page and its workers (Linux's `VmHWM` less the file-backed
pages, `RssFile`, Chromium's shared code; read once the first count has resolved): everything the start
held at once, the library's memory, buffers and compiled code, and Chromium's own share (~20-30 MB for
an empty page here; Chromium keeps the next page's renderer started, so the page's own is the one whose
peak grew).

{startup_table(session, starts)}

{phases_block(session, starts)}

#### Bytes transferred

What the server sent for each library's start (first profile: its cold page and its first warm
page). The server is `build/serve.py`, which sends a file's precompressed copy when the browser
accepts its coding (Chromium asks for `br`): bytepair's dist/ has Brotli and gzip copies of every
file (`make bundle` writes them), the peers' files in node_modules have none and go as they are.
The gzip column is what `gzip -6` of every file sent would be, for comparison. The harness's own {fmt_bytes(harness_bytes(starts))} bytes
(bench.html, bench.mjs; js-tiktoken's page also loads the 1 KB base64 shim in bench/web/, counted
with the harness) are left out. A 304 carries no body. bytepair fetches its two Pyodide modules
twice on a cold page (once imported by URL, once read for its integrity check), the second time as a
304.

{transfer_table(session, starts)}
"""


THROUGHPUT_COLUMNS: list[Column] = [("corpus", "l"), ("input MB", "r"), ("tokens", "r")]


def throughput_columns() -> list[Column]:
    cols = list(THROUGHPUT_COLUMNS)
    for library in LIBRARIES:
        cols += [(f"{library} first pass MB/s", "r"), (f"{library} warm MB/s", "r")]
    return cols + [("bytepair ÷ gpt-tokenizer time, warm", "r"), ("… first pass", "r")]


def ratio_cell(ours: EncodeRun | None, theirs: EncodeRun | None, attr: str) -> str:
    if ours is None or theirs is None:
        return "–"
    return f"{getattr(ours, attr) / getattr(theirs, attr):.2f}×"


def throughput_row(label: str, n_bytes: int, n_tokens: int, by_library: dict[str, EncodeRun]) -> list[str]:
    row = [label, f"{n_bytes / MB:.3f}", f"{n_tokens:,}"]
    for library in LIBRARIES:
        run = by_library.get(library)
        row += [fmt_mbps(n_bytes, run and run.first_ms), fmt_mbps(n_bytes, run and run.warm_ms)]
    ours, theirs = by_library.get("bytepair"), by_library.get("gpt-tokenizer")
    return row + [ratio_cell(ours, theirs, "warm_ms"), ratio_cell(ours, theirs, "first_ms")]


def total_runs(runs: list[EncodeRun], corpora: Sequence[str]) -> dict[str, EncodeRun]:
    """Per library, all files as one: total bytes over total time (only libraries that did them all)."""
    totals = {}
    for library in LIBRARIES:
        mine = [r for r in runs if r.library == library]
        if mine and len(mine) == len(corpora):
            totals[library] = EncodeRun(
                library, mine[0].encoding, "all", sum(r.n_bytes for r in mine), sum(r.n_tokens for r in mine),
                sum(r.first_ms for r in mine), sum(r.warm_ms for r in mine),
            )  # fmt: skip
    return totals


def throughput_tables(session: Session, result: ThroughputResult) -> str:
    blocks = []
    for encoding in session.args.encodings:
        runs = [r for r in result.runs if r.encoding == encoding]
        body = []
        for corpus in session.corpus:
            by_library = {r.library: r for r in runs if r.corpus == corpus}
            if by_library:
                any_run = next(iter(by_library.values()))
                body.append(throughput_row(corpus, any_run.n_bytes, any_run.n_tokens, by_library))
        totals = total_runs(runs, list(session.corpus))
        if totals:
            any_total = next(iter(totals.values()))
            body.append(throughput_row("**all files**", any_total.n_bytes, any_total.n_tokens, totals))
        blocks.append(f"#### {encoding}\n\n{md_table(throughput_columns(), body)}")
    return "\n\n".join(blocks)


def overhead_line(session: Session, result: ThroughputResult) -> str:
    parts = [
        f"{library} {encoding}: {ms:.2f} ms"
        for (library, encoding), ms in result.call_overhead_ms.items()
        if library == "bytepair"
    ]
    return "; ".join(parts) if parts else "not measured"


def render_throughput(session: Session, result: ThroughputResult) -> str:
    a = session.args
    return f"""### 3. Encode throughput per file, first pass and warm, one page per library

MB/s of UTF-8 input (MB = 10⁶ bytes) for one `encode(text)` call on a whole corpus file, timed in the
page around the awaited call, after a garbage collection (`--js-flags=--expose-gc`). Every library
is called with its default special-token handling; the texts contain no special tokens. For each
encoding and library a fresh page in one shared browser loads the library and then encodes the
files in the order below. **First pass**: the first encode of a file on that page. For the first
file, bytepair's piece cache is empty and the JavaScript engines' code is not yet optimized; later
files benefit from the pieces and the optimized code of earlier files, so only the first row is a
true first call. **Warm**: median of {a.repeats} re-encodes of the same file right after. Ratios
are time ratios, bytepair ÷ gpt-tokenizer: under 1.00× means bytepair took less time. Target:
bytepair's throughput at least gpt-tokenizer's (ratio ≤ 1.00×).

bytepair runs in a Web Worker: its times include sending the text there and the ids back (one
transferred `Uint32Array`); the peers run on the page's main thread, which they block meanwhile.
bytepair's fixed cost per call, the median of {CALL_OVERHEAD_REPEATS} `count("")` round trips:
{overhead_line(session, result)}. Corpus: `bench/corpus` (see `bench/corpus/README.md`).

{throughput_tables(session, result)}
"""


WORST_COLUMNS: list[Column] = (
    [("encoding", "l"), ("input", "l"), ("bytes", "r"), ("tokens", "r")]
    + [(f"{library} s", "r") for library in LIBRARIES]
    + [(f"target: bytepair < {TARGET_WORST_S:g} s", "l")]
)


def worst_cell(run: WorstRun | None) -> str:
    if run is None:
        return "–"
    return run.failure if run.ms is None else f"{run.ms / 1000:.2f}"


def render_worst_cases(session: Session, runs: list[WorstRun]) -> str:
    body = []
    for encoding in session.args.worst_encodings:
        for case, name in session.worst_cases.items():
            by_library = {r.library: r for r in runs if r.encoding == encoding and r.case == case}
            row = [encoding, case, fmt_bytes(session.text_bytes[name]), f"{session.expected.tokens[encoding, name]:,}"]
            ours = by_library.get("bytepair")
            target = "–" if ours is None else (
                "**not met**" if ours.ms is None else target_mark(ours.ms / 1000, TARGET_WORST_S)
            )  # fmt: skip
            body.append(row + [worst_cell(by_library.get(library)) for library in LIBRARIES] + [target])
    others = [e for e in session.args.encodings if e not in session.args.worst_encodings]
    skipped = (
        f" Not run for {', '.join(others)} (`--worst-encodings`): each encoding costs about four peers × three"
        f" cases × the {session.args.timeout:g} s limit."
        if others
        else ""
    )
    return f"""### 4. Worst cases: {session.args.worst_chars:,}-character pieces

One `encode` of {session.args.worst_chars:,} characters: `"x"` repeated (every merge the same), random
lowercase letters (seeded {WORST_CASE_SEED}; no run of letters repeats) and spaces, each a single piece
under both encodings' patterns, and random digits (seeded), which the patterns cut into pieces of up
to three digits, so that row is not a single piece. Each call on a fresh page right after the library
loaded (bytepair's caches empty). Seconds; a call still running after {session.args.timeout:g} s is
abandoned (its page is closed) and shown as "> {session.args.timeout:g} s". Tokens are tiktoken's count.
Target: bytepair under {TARGET_WORST_S:g} s on every row.{skipped}

{md_table(WORST_COLUMNS, body)}
"""


def throughput_notes(session: Session, result: ThroughputResult) -> list[str]:
    out = []
    for encoding in session.args.encodings:
        totals = total_runs([r for r in result.runs if r.encoding == encoding], list(session.corpus))
        ours, theirs = totals.get("bytepair"), totals.get("gpt-tokenizer")
        if ours is None or theirs is None:
            out.append(f"- {encoding}: bytepair or gpt-tokenizer did not encode every file; no throughput verdict.")
            continue
        warm, first = ours.warm_ms / theirs.warm_ms, ours.first_ms / theirs.first_ms
        verdict = "meets" if warm <= 1 else "does **not** meet"
        out.append(
            f"- {encoding}, all files: bytepair warm takes {warm:.2f}× gpt-tokenizer's time "
            f"({fmt_mbps(ours.n_bytes, ours.warm_ms)} against {fmt_mbps(theirs.n_bytes, theirs.warm_ms)} MB/s), "
            f"so it {verdict} the throughput target warm; first pass {first:.2f}×."
        )
    return out


def cold_bytes_note(encoding: str, cold: PageStart) -> str:
    """The note on bytepair's cold download: its bytes sent against ``TARGET_COLD_BYTES``."""
    sent = bytes_sent(cold)
    verdict = "met" if sent <= TARGET_COLD_BYTES else "**not met**"
    return f"- bytepair {encoding}: a cold start sent {sent:,} bytes (target ≤ {TARGET_COLD_BYTES:,}: {verdict})."


def startup_notes(session: Session, starts: list[PageStart]) -> list[str]:
    out = []
    for encoding in session.args.encodings:
        first = first_profile(starts, "bytepair", encoding, warm=False)
        if first is not None:
            out.append(cold_bytes_note(encoding, first))
        cold = [s.first_count_ms for s in starts_of(starts, "bytepair", encoding, warm=False)]
        warm = [s.first_count_ms for s in starts_of(starts, "bytepair", encoding, warm=True)]
        if not cold or not warm:
            continue
        c, w = statistics.median(cold) / 1000, statistics.median(warm) / 1000
        out.append(
            f"- bytepair {encoding}: cold start {c:.2f} s (target {target_mark(c, TARGET_COLD_S)}), "
            f"warm {w:.2f} s (target {target_mark(w, TARGET_WARM_S)}) on this machine."
        )
    return out


def failures_by_library(runs: list[WorstRun], prefix: str) -> str:
    """"lib: all 4 cases" or "lib: enc case, …" for the runs whose failure starts with ``prefix``."""
    parts = []
    for library in LIBRARIES:
        mine = [r for r in runs if r.library == library]
        hit = [r for r in mine if r.failure and r.failure.startswith(prefix)]
        if hit:
            cases = ", ".join(f"{r.encoding} {r.case}" for r in hit)
            what = f"all {len(mine)} runs" if len(hit) == len(mine) else cases
            parts.append(f"{library} ({what}{'' if prefix == '>' else ': ' + hit[0].failure})")
    return "; ".join(parts)


def worst_notes(session: Session, runs: list[WorstRun]) -> list[str]:
    out = []
    ours = [r for r in runs if r.library == "bytepair"]
    if ours:
        met = [r for r in ours if r.ms is not None and r.ms / 1000 < TARGET_WORST_S]
        slowest = max((r for r in ours if r.ms is not None), key=lambda r: r.ms or 0.0, default=None)
        worst = "" if slowest is None else f"; slowest {slowest.encoding} {slowest.case}: {slowest.ms / 1000:.2f} s"
        out.append(
            f"- Worst cases, bytepair under {TARGET_WORST_S:g} s: {len(met)} of {len(ours)} runs"
            f" ({'met' if len(met) == len(ours) else '**not met**'}){worst}."
        )
    slow = failures_by_library(runs, ">")
    if slow:
        out.append(f"- Worst cases still running after the {session.args.timeout:g} s limit: {slow}.")
    threw = failures_by_library(runs, "throws")
    if threw:
        out.append(
            f"- Worst cases that threw instead of returning ids: {threw}. `RuntimeError: unreachable` is how "
            "a Rust panic inside a WebAssembly module surfaces."
        )
    return out


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


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def bundle_fingerprint() -> str:
    """sha256 of dist/manifest.json, which pins every asset: a rebuild during the run changes it."""
    return hashlib.sha256((DIST / "manifest.json").read_bytes()).hexdigest()[:12]


def machine_facts(session: Session, started: float) -> dict[str, str]:
    """What the numbers depend on; ``started`` (epoch seconds) dates the run."""
    manifest = json.loads((DIST / "manifest.json").read_text())
    browser = session.browser()
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)),
        "machine": f"{cpu_model()}, `nproc` = {len(os.sched_getaffinity(0))}",
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
            "as one piece (`_encode_single_piece`), which is what its pattern makes of it."
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

Generated by `bench/bench_web.py`; every number in this section comes from this one run.
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
  `make bench` runs it as `.venv/bin/python bench/bench_web.py`.
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
        if session._browser is not None:
            session._browser.close()
    failed = bool(session.checks.failed or session.guard.violations or session.errors)
    log(f"done in {runtime_s:.0f} s; {len(session.checks.failed)} id mismatch(es), "
        f"{len(session.guard.violations)} network violation(s), {len(session.errors)} error(s)")  # fmt: skip
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bytepair-bench-web-") as tmp:
        return run(args, Path(tmp))


if __name__ == "__main__":
    sys.exit(main())
