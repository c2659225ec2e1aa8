"""No leaks in the browser: the worker's memory (malloc'd bytes in wasm memory, Python objects, wasm
memory size, open stream decoders; from ``tok.memoryStats()``) before and after 10,000 inspect and
count calls and 1,000 stream decoders closed or dropped unclosed. Node runs the same checks in
web/test/lifecycle.test.mjs."""

from __future__ import annotations

import pytest

from tests.browser import Guard, open_page, wait_for_warm_up

pytestmark = pytest.mark.browser

# One line's number changes per version: the digits keep the set of pieces small, so the core's
# bounded piece cache stays as it is and any growth is the bridge's.
SETUP = """
window.version = (i) => Array.from({ length: 8 }, (_, k) =>
  `${k}. The quick brown fox jumps over the lazy dog; 日本語 🫠 ${k === i % 8 ? i : k}`).join('\\n');
window.tok = await (await import('./bytepair.mjs')).createTokenizer({ encoding: 'o200k_base' });
"""


@pytest.fixture(scope="module")
def page(browser, dist_server):
    guard = Guard()
    ctx, page = open_page(browser, dist_server, guard)
    page.evaluate(f"async () => {{ {SETUP} }}")
    wait_for_warm_up(page)  # its throwaway engine must not land in the counts either way
    yield page
    ctx.close()
    assert not guard.violations, guard.violations


def collect_garbage(page) -> None:
    """A full collection in the page, where the decoders' FinalizationRegistry lives."""
    session = page.context.new_cdp_session(page)
    session.send("HeapProfiler.collectGarbage")
    session.detach()
    page.wait_for_timeout(50)


def test_ten_thousand_inspect_and_count_calls(page) -> None:
    page.evaluate("async () => { for (let i = 0; i < 200; i++) await tok.inspect(version(i)); }")
    start = page.evaluate("() => tok.memoryStats()")
    checks = page.evaluate(
        """async () => {
          const checks = [];
          for (let i = 0; i < 10000; i++) {
            const text = version(i);
            const [r, n] = await Promise.all([tok.inspect(text, { maxTokens: 50 }), tok.count(text)]);
            if (i % 2500 === 0) checks.push([r.count, n]);
          }
          return checks;
        }"""
    )
    end = page.evaluate("() => tok.memoryStats()")
    assert all(a == b for a, b in checks) and len(checks) == 4
    # Before the fix: +25 MB of malloc'd bytes (every edited block and its word count kept).
    assert end["heapBytesInUse"] - start["heapBytesInUse"] < 1_000_000, (start, end)
    assert abs(end["pythonObjects"] - start["pythonObjects"]) < 300, (start, end)
    assert end["wasmBytes"] == start["wasmBytes"], (start, end)
    assert end["cachedBlocks"] <= 2 and end["cachedWordCounts"] <= 2, end


def test_thousand_stream_decoders(page) -> None:
    start = page.evaluate("() => tok.memoryStats()")
    closed = page.evaluate(
        """async () => {
          const names = [];
          for (let i = 0; i < 1000; i++) {
            const d = tok.decoder();
            await d.write([i]);
            await d.close();
            if (i === 0) try { await d.write([1]); } catch (e) { names.push(e.name); }
          }
          return [names, (await tok.memoryStats()).openDecoders];
        }"""
    )
    assert closed == [["ClosedError"], 0]
    dropped = page.evaluate("async () => { for (let i = 0; i < 1000; i++) await tok.decoder().write([i]); return (await tok.memoryStats()).openDecoders; }")
    assert 0 <= dropped <= 1000  # the browser may have collected some already
    collect_garbage(page)
    end = page.evaluate("() => tok.memoryStats()")
    assert end["openDecoders"] == 0  # released by the FinalizationRegistry
    assert end["heapBytesInUse"] - start["heapBytesInUse"] < 500_000, (start, end)


def test_disposed_tokenizer_releases_its_decoders_and_refuses_everything(page) -> None:
    result = page.evaluate(
        """async () => {
          const other = await (await import('./bytepair.mjs')).createTokenizer({ encoding: 'o200k_base' });
          const d = other.decoder();
          await d.write([1]);
          const open = (await tok.memoryStats()).openDecoders;
          other.dispose();
          const names = [];
          for (const call of [() => other.encode('x'), () => other.inspect('x'), () => other.decoder(), () => d.write([1]), () => d.flush()]) {
            try { await call(); names.push(null); } catch (e) { names.push([e.name, e.message.includes('create a new one')]); }
          }
          return [open, names, (await tok.memoryStats()).openDecoders];
        }"""
    )
    open_before, names, open_after = result
    assert open_before == 1 and open_after == 0
    assert names == [["DisposedError", True]] * 5
