"""Hostile input in Chromium: an aborted runaway chat template stops, and the other tokenizers on the
runtime go on. A cross-origin-isolated page shares memory with the worker, so Python is interrupted
in place; a plain page cannot, so the worker is replaced and the tokenizers in use are opened again
in the new one (web/backends.mjs). Node runs the same cases in web/test/hostile.test.mjs."""

from __future__ import annotations

import pytest

from tests.browser import Guard, open_page

pytestmark = pytest.mark.browser

RUNAWAY = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"

SCRIPT = """async (runaway) => {
  const bp = await import('./bytepair.mjs');
  const messages = [{ role: 'user', content: 'hi' }];
  const qwen = await bp.createTokenizer({ tokenizer: 'qwen2_5' });
  const o200k = await bp.createTokenizer({ encoding: 'o200k_base' });
  const decoder = o200k.decoder();
  await decoder.write([24912]);
  const controller = new AbortController();
  const stuck = qwen.applyChatTemplate(messages, { chatTemplate: runaway, templateTimeout: 600, signal: controller.signal });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const count = o200k.count('hello world');
  const t0 = performance.now();
  controller.abort();
  const aborted = await stuck.then(() => 'answered', (e) => e.name);
  const counted = await count;
  const waited = performance.now() - t0;
  const lostDecoder = await decoder.write([2375]).then((text) => 'kept: ' + text, (e) => e.name);
  const after = (await qwen.applyChatTemplate(messages, { chatTemplate: '{{ messages[0].content }}', returnText: true })).text;
  const ids = Array.from(await o200k.encode('hello world'));
  return { isolated: crossOriginIsolated, aborted, counted, waited, lostDecoder, after, ids,
           restarts: o200k.backend.restarts.map((r) => r.reason) };
}"""


@pytest.mark.parametrize("isolated", [True, False], ids=["isolated", "plain"])
def test_an_aborted_runaway_template_frees_the_runtime(browser, dist_server, isolated: bool) -> None:
    guard = Guard(isolated=isolated)
    ctx, page = open_page(browser, dist_server, guard)
    try:
        got = page.evaluate(SCRIPT, RUNAWAY)
    finally:
        ctx.close()
    assert not guard.violations
    assert got["isolated"] is isolated
    assert (got["aborted"], got["counted"], got["after"], got["ids"]) == ("AbortError", 2, "hi", [24912, 2375])
    if isolated:  # interrupted where it ran: nothing restarted, the decoder kept its state
        assert got["restarts"] == [] and got["lostDecoder"] == "kept:  world"
        assert got["waited"] < 1000, got
    else:  # the worker was replaced; the tokenizers were opened again, the decoder's state is gone
        assert got["restarts"] == ["an aborted encodeChat did not stop"]
        assert got["lostDecoder"] == "StateError"
        assert got["waited"] < 15000, got


@pytest.mark.soak
def test_out_of_memory_in_the_runtime_is_said_and_given_back() -> None:
    """Under Node: 120 M ids to decode is too much for wasm memory, a 20 M-character encode grows it;
    each is given back by a restart once the call ends, and the tokenizers keep working."""
    import json
    import shutil
    import subprocess

    from tests.browser import DIST, ROOT, require_bundle

    require_bundle()
    result = subprocess.run([shutil.which("node") or "node", str(ROOT / "tests" / "web" / "soak_memory.mjs"), DIST.as_uri()],
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    got = json.loads(result.stdout.splitlines()[-1])
    assert got["grow"] == {"ok": 18_000_000}
    assert got["decode"]["name"] == "InputTooLargeError"
    assert got["decode"]["message"] == ("out of memory in decode (120,000,000 ids): decode the ids in parts "
                                        "(decodeStream(), or decoder())")
    assert got["counts"] == [2, 2]
    assert got["restarts"] == ["a call grew its wasm memory"] * 2
    assert got["afterGrow"] < got["start"] + (64 << 20) and got["afterDecode"] < got["start"] + (64 << 20), got
