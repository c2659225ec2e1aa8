"""Measurement ``start-up`` of the browser section (section ``browser-startup`` of docs/PERFORMANCE.md):
page navigation to the first ``count("hello world")``, cold (a fresh profile) and warm (the same
profile's next pages), with the bytes and requests each start needed and the renderer's peak memory.

Why its own module: start-up is the one measurement that needs persistent profiles (each its own
Chromium process, its own HTTP cache), so its timing and its transfer tables share nothing with the
encode measurements but the harness (``browser_harness.py``).
"""

from __future__ import annotations

import functools
import gzip
import shutil
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import Error as PlaywrightError

from bench.browser_harness import (
    CHROMIUM,
    CHROMIUM_ARGS,
    LIBRARIES,
    STARTUP_TEXT,
    Request,
    Session,
    fmt_bytes,
    fmt_ms,
    median_or_none,
    target_mark,
)
from bench.common import Column, log, md_table

TARGET_COLD_S = 3.0
TARGET_WARM_S = 1.0
TARGET_COLD_BYTES = 7_500_000
"""Issue 14: a cold o200k start sends at most 7.5 MB (compressed, as served). A start-up run says
whether bytepair's cold pages met it, so a bundle that grows past it shows in the notes."""


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


# ------------------------------------------------------------------------------------- reporting
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
