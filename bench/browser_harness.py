"""What every measurement of the browser section needs: the temporary site on 127.0.0.1 (serving
``dist/``, ``node_modules/``, ``bench/web/`` and the texts through ``build/serve.py``'s handler,
counting every response's bytes), the network guard, pages of ``bench/web/bench.html`` with a time
limit of the driver's own, the session, the reference ids from tiktoken, and the formatting the
tables share.

Why apart from ``browser.py``: the start-up, encode, worst-case and playground measurements
(``browser_startup.py``, ``browser_encode.py``, ``browser_worst.py``, ``playground.py``) all run on
this harness, and none of them needs another's code.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import importlib.util
import random
import statistics
import string
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlencode, urlparse

from playwright.sync_api import Error as PlaywrightError

from bench.common import BENCH, MB, REPO, WORST_CASE_SEED, Checks, digest, log
from tests.browser import CHROMIUM  # the same Chromium and flags as the tests
from tests.browser import CHROMIUM_ARGS as TEST_CHROMIUM_ARGS
from tests.tiktoken_offline import fill_cache, offline_tiktoken

DIST = REPO / "dist"
SITE = REPO / "site"
NODE_MODULES = REPO / "node_modules"
WEB = BENCH / "web"
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
    server = load_serve_module().make_server(root)  # quiet, no CORS headers: as `build/serve.py DIR` serves
    # make_server's handler is a partial over serve.py's handler class: count what that class sends.
    made = server.RequestHandlerClass
    if not isinstance(made, functools.partial):
        raise SystemExit("build/serve.py's make_server no longer hands its handler class as a functools.partial")
    server.RequestHandlerClass = functools.partial(counting_handler(made.func), *made.args, **made.keywords)
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

    def close(self) -> None:
        """Close the shared browser, if one was launched."""
        if self._browser is not None:
            self._browser.close()

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
    one piece the reference is then tiktoken's own BPE of that piece (``single_piece_ids``), and
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
                ids = single_piece_ids(enc, text)
                expected.single_piece_fallbacks.append((name, key, str(err).splitlines()[0]))
            expected.digests[name, key], expected.tokens[name, key] = digest(ids), len(ids)
    return expected


def single_piece_ids(enc: Any, text: str) -> list[int]:
    """tiktoken's BPE of ``text`` taken whole, as one piece, through tiktoken's public API: an
    Encoding on ``enc``'s ranks whose pattern matches any text whole (``[\\s\\S]+``), so that its
    ``encode_ordinary`` merges exactly that one piece. That pattern has no look-around, so tiktoken's
    regex engine does not recurse on it as it does on the encodings' own patterns."""
    import tiktoken

    ranks = {token: enc.encode_single_token(token) for token in enc.token_byte_values()}
    whole = tiktoken.Encoding(f"{enc.name}-one-piece", pat_str=r"[\s\S]+", mergeable_ranks=ranks, special_tokens={})
    return whole.encode_ordinary(text)


def rotated(libraries: Sequence[str], shift: int) -> list[str]:
    """The libraries starting at ``shift``: a drift in the machine's load does not always land on the same one."""
    k = shift % len(libraries)
    return list(libraries[k:]) + list(libraries[:k])


# ------------------------------------------------------------------------------------- formatting
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
