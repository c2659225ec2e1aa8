"""tok.countFiles / tok.encodeFiles (web/pool.mjs) in headless Chromium: two Files over the page's
runtime and a helper Web Worker give the native core's counts and ids, in input order, and the
helper really ran (a second worker was started)."""

from __future__ import annotations

import pytest

import bytepair
from tests.browser import Guard, open_page
from tests.conftest import corpus_texts

pytestmark = pytest.mark.browser


def test_two_files_over_two_workers_equal_native(browser, dist_server) -> None:
    texts = corpus_texts()
    files = [texts["en"] * 3, texts["ja"] * 3, "hello world"]
    enc = bytepair.get_encoding("cl100k_base")
    guard = Guard()
    ctx, page = open_page(browser, dist_server, guard)
    try:
        got = page.evaluate(
            """async (texts) => {
              const bp = await import('./bytepair.mjs');
              const { helperCount } = await import('./pool.mjs');
              const tok = await bp.createTokenizer({ encoding: 'cl100k_base' });
              const files = texts.map((t, i) => new File([t], `f${i}.txt`));
              const counts = await tok.countFiles(files, { workers: 2 });
              const ids = (await tok.encodeFiles(files, { workers: 2 })).map((a) => Array.from(a));
              const helpers = helperCount(tok.backend);
              tok.dispose();
              return { counts, ids, helpers, cores: navigator.hardwareConcurrency };
            }""",
            files,
        )
    finally:
        ctx.close()
    expected = [enc.encode_ordinary(t) for t in files]
    assert got["ids"] == expected
    assert got["counts"] == [len(ids) for ids in expected]
    assert got["helpers"] == 1
    assert not guard.violations, guard.violations
