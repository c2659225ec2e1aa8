"""Measurement ``playground`` of the browser section (``python -m bench browser``; section
``playground`` of docs/PERFORMANCE.md).

1. First load: from navigation to the first count shown, in a fresh profile (cold: everything is
   downloaded, the progress bar moves) and on the next page of the same profile (warm: the service
   worker answers from its cache). The page's own progress events are counted, to show the bar is
   real (bytes loaded out of a known total).
2. Keystroke latency: with 10 kB and 1 MB of text in the box, the time from a key going down to the
   updated view (count and token spans re-rendered, then the next frame painted), for single
   characters typed in the middle of the text, one at a time.

Both run against the built site (``site/``: `make site`) served as /playground/, on the browser
section's harness (``browser_harness.py``).

Why: the playground is where many people first meet bytepair; a first load whose progress bar does
not move, or typing that lags behind the keys, reads as broken whatever the throughput tables say.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.browser_harness import CHROMIUM, CHROMIUM_ARGS
from bench.common import log, md_table

COUNT = '[data-testid="token-count"]'
SIZES = {"10 kB": 10_000, "1 MB": 1_000_000}
KEYSTROKES = 7

# Installed in the page before typing: records, per keystroke, the time from keydown until the view
# was updated (the count is rewritten on every update, the token spans when they change, in the same
# task) and one more frame has been painted.
LATENCY_PROBE = """() => {
  window.__latencies = [];
  let down = 0;
  document.getElementById('text').addEventListener('keydown', () => { down = performance.now(); }, true);
  new MutationObserver(() => {
    if (!down) return;
    const started = down;
    down = 0;
    requestAnimationFrame(() => requestAnimationFrame(() => window.__latencies.push(performance.now() - started)));
  }).observe(document.querySelector('[data-testid="token-count"]'), { childList: true, characterData: true, subtree: true });
}"""

# Runs before the page's scripts: counts progress-bar updates and stamps the first count shown.
LOAD_PROBE = """
window.__progress = [];
window.addEventListener('DOMContentLoaded', () => {
  const bar = document.getElementById('load-progress');
  new MutationObserver(() => window.__progress.push([performance.now(), bar.value, bar.max]))
    .observe(bar, { attributes: true, attributeFilter: ['value', 'max'] });
  const count = document.querySelector('[data-testid="token-count"]');
  new MutationObserver(() => { if (!window.__firstCount && count.textContent !== '–') window.__firstCount = performance.now(); })
    .observe(count, { childList: true, characterData: true, subtree: true });
});
"""


@dataclass
class LoadRun:
    profile: int
    page: int  # 0 = cold
    first_count_ms: float
    progress_updates: int
    final_progress: tuple[float, float] | None


@dataclass
class Latency:
    size: str
    samples_ms: list[float]
    tokens: int


@dataclass
class PlaygroundResult:
    loads: list[LoadRun]
    latencies: list[Latency]


def _first_load(session: Any, profile: int, pages: int) -> list[LoadRun]:
    directory = Path(tempfile.mkdtemp(prefix="playground-", dir=session.work))
    context = session.playwright.chromium.launch_persistent_context(str(directory), executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    session.guard.observe(context)
    context.add_init_script(LOAD_PROBE)
    runs = []
    try:
        for page_index in range(pages):
            page = context.new_page()
            page.goto(session.site.url("playground/"))
            page.wait_for_function("() => window.__firstCount", timeout=120_000)
            progress = page.evaluate("() => window.__progress")
            last = progress[-1] if progress else None
            runs.append(LoadRun(profile, page_index, page.evaluate("() => window.__firstCount"), len(progress),
                                (last[1], last[2]) if last else None))  # fmt: skip
            if page_index == 0:  # let the service worker finish storing the site before the next visit
                page.evaluate("async () => { await navigator.serviceWorker.ready; }")
                page.wait_for_timeout(3000)
            page.close()
    finally:
        context.close()
        shutil.rmtree(directory, ignore_errors=True)
    return runs


def _latency(session: Any, seed: str) -> list[Latency]:
    browser = session.browser()
    context = browser.new_context(service_workers="block")
    session.guard.intercept(context)
    page = context.new_page()
    out = []
    try:
        page.goto(session.site.url("playground/"))
        page.wait_for_function(f"() => document.querySelector('{COUNT}').textContent !== '–'", timeout=120_000)
        page.evaluate(LATENCY_PROBE)
        for size, chars in SIZES.items():
            text = (seed * (chars // len(seed) + 1))[:chars]
            page.evaluate(
                """async (t) => {
                  const el = document.getElementById('text');
                  el.value = t;
                  el.dispatchEvent(new Event('input'));
                }""",
                text,
            )
            page.wait_for_function("() => document.getElementById('busy').hidden", timeout=120_000)
            page.wait_for_timeout(1500)  # the count settles; the textarea's layout is done
            page.evaluate(f"() => {{ const el = document.getElementById('text'); el.focus(); el.setSelectionRange({chars // 2}, {chars // 2}); window.__latencies = []; }}")
            for i in range(KEYSTROKES):
                page.keyboard.type("x")
                page.wait_for_function(f"() => window.__latencies.length >= {i + 1}", timeout=60_000)
                page.wait_for_timeout(200)
            samples = page.evaluate("() => window.__latencies")
            tokens = int(page.inner_text(COUNT).replace(",", ""))
            out.append(Latency(size, samples, tokens))
    finally:
        context.close()
    return out


def measure_playground(session: Any) -> PlaygroundResult:
    """First load (cold and warm, several fresh profiles) and keystroke latency at 10 kB and 1 MB."""
    loads: list[LoadRun] = []
    for profile in range(session.args.repeats):
        log(f"playground: first load, profile {profile + 1}/{session.args.repeats}")
        loads += _first_load(session, profile, 1 + session.args.warm_pages)
    log("playground: keystroke latency")
    seed = (session.site.root / "corpus" / f"{session.corpus[-1]}.txt").read_text(encoding="utf-8")
    return PlaygroundResult(loads, _latency(session, seed))


def render_playground(session: Any, result: PlaygroundResult) -> str:
    cold = [r.first_count_ms for r in result.loads if r.page == 0]
    warm = [r.first_count_ms for r in result.loads if r.page > 0]
    updates = [r.progress_updates for r in result.loads if r.page == 0]
    finals = [r.final_progress for r in result.loads if r.page == 0 and r.final_progress]
    complete = all(value == maximum for value, maximum in finals)
    load_rows = [
        ["cold (fresh profile)", f"{statistics.median(cold):,.0f}" if cold else "–", f"{len(cold)}",
         f"{min(updates) if updates else 0}–{max(updates) if updates else 0} updates, ending at 100%" if complete else "incomplete"],
        ["warm (same profile, service worker)", f"{statistics.median(warm):,.0f}" if warm else "–", f"{len(warm)}", "–"],
    ]  # fmt: skip
    latency_rows = [
        [lat.size, f"{lat.tokens:,}", f"{statistics.median(lat.samples_ms):,.0f}", f"{min(lat.samples_ms):,.0f}–{max(lat.samples_ms):,.0f}", f"{len(lat.samples_ms)}"]
        for lat in result.latencies
    ]  # fmt: skip
    return f"""### 1. First load

Time from navigating to `/playground/` (the built `site/`) to the first token count on screen, read
in the page (`performance.now()`); o200k_base, the default. The progress bar's updates are counted in
the page: each is a number of bytes loaded out of the known total.

{md_table([("load", "l"), ("first count, median ms", "r"), ("pages", "r"), ("progress bar", "l")], load_rows)}

### 2. From keystroke to updated view

One character typed into the middle of the text, then the time from its `keydown` until the count
and the token view have been updated and the next frame painted (median and range of {KEYSTROKES}
keystrokes, typed one at a time). The text is the corpus file `{session.corpus[-1]}` repeated to the size.
Only the edited block of the text is encoded again (`bytepair.incremental`); of the 2,000 token
spans shown, only those from the first changed token on are drawn again (none when the edit lies
beyond them, as in the 1 MB case).

{md_table([("text", "l"), ("tokens", "r"), ("median ms", "r"), ("range ms", "r"), ("keystrokes", "r")], latency_rows)}
"""


def playground_notes(session: Any, result: PlaygroundResult) -> list[str]:
    return [
        "- The playground's first load includes the page itself (HTML, CSS, its module) and registering "
        "the service worker, which then stores the whole site for offline use; the warm loads are "
        "answered by that worker. Chromium needs about a second to lay out a textarea holding 1 MB "
        "after it is filled; that happens before the keystrokes are timed, but each keystroke's own "
        "text editing is part of the latency, as it is for a person typing."
    ]
