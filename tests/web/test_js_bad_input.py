"""The JavaScript API's bad-input table (web/test/bad_inputs.mjs) in Chromium, through the Web Worker:
each entry point refuses each bad input with the named error and message the table gives (Node runs
the same table: web/test/bad_input.test.mjs)."""

from __future__ import annotations

import pytest

from tests.browser import ROOT, Guard, open_page

pytestmark = pytest.mark.browser

TABLE = (ROOT / "web" / "test" / "bad_inputs.mjs").read_text(encoding="utf-8")


def test_bad_input_table_in_chromium(browser, dist_server) -> None:
    guard = Guard()
    ctx, page = open_page(browser, dist_server, guard)
    result = page.evaluate(
        """async (source) => {
          const table = await import(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
          const bp = await import('./bytepair.mjs');
          const ctx = await table.context(bp);
          const results = await table.runAll(ctx);
          let special = null;
          try { await ctx.tok.encode('<|endoftext|>'); } catch (e) { special = [e.name, e.token]; }
          return { results, mismatches: table.mismatches(results), special, alive: await ctx.tok.count('still alive') };
        }""",
        TABLE,
    )
    ctx.close()
    assert not guard.violations, guard.violations
    assert len(result["results"]) >= 40
    assert result["mismatches"] == []
    assert result["special"] == ["DisallowedSpecialTokenError", "<|endoftext|>"]
    assert result["alive"] == 2
