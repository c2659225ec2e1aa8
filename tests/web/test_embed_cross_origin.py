"""Embedding bytepair from another origin, in Chromium: a page on one local origin loads
<bytepair-counter> and the JS API from a second origin (another port of 127.0.0.1) that serves the
bundle with the CORS headers the README asks for. Browsers refuse `new Worker(url)` across origins
whatever the headers, so this is the test that the worker starts through a same-origin blob: URL;
it also holds the counter's following of its for= target, its clean-up, its short error text, and
a page whose Content-Security-Policy forbids workers (a typed WorkerError, no hang)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser import DIST, ROOT, Guard, guarded_context, require_bundle, serve

pytestmark = pytest.mark.browser

HOST_PAGE = """<!doctype html><meta charset="utf-8"><title>docs site</title>
<script type="module" src="{bundle}bytepair-counter.mjs"></script>
<textarea id="prompt">Hello, world!</textarea>
<div id="note">hello world</div>
<p><bytepair-counter id="area" for="prompt" encoding="o200k_base"></bytepair-counter></p>
<p><bytepair-counter id="div" for="note" encoding="cl100k_base"></bytepair-counter></p>
<p><bytepair-counter id="bad-model" model="no-such-model">x</bytepair-counter></p>
<p><bytepair-counter id="no-assets" assets="{bundle}missing/">x</bytepair-counter></p>
<p><bytepair-counter id="prepared" tokenizer="llama3">{text}</bytepair-counter></p>
<p><bytepair-counter id="json" tokenizer-json="gpt2/tokenizer.json">{text}</bytepair-counter></p>
<p><bytepair-counter id="two" encoding="o200k_base" model="gpt-4o">x</bytepair-counter></p>
<script type="module">
  import {{ createTokenizer, WorkerError }} from "{bundle}bytepair/bytepair.mjs";
  const tok = await createTokenizer({{ model: "GPT-4o" }});
  window.apiCount = await tok.countTokens("hello world");
  window.blobCount = await tok.count(new Blob(["hello world"]));
  tok.dispose();
</script>
"""

TOKENIZER_TEXT = "x 1234567 café"  # Llama 3 splits the digits by three, GPT-2 does not: the counts differ


def hf_json(model: str) -> Path:
    path = ROOT / "build" / "cache" / "hf" / model / "tokenizer.json"
    if not path.is_file():
        pytest.fail(f"{path} is missing: run `make hf-data` (make test does it)")
    return path


def hf_count(model: str, text: str) -> int:
    tokenizers = pytest.importorskip("tokenizers")
    return len(tokenizers.Tokenizer.from_file(str(hf_json(model))).encode(text, add_special_tokens=False).ids)


CSP_PAGE = """<!doctype html><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="worker-src 'none'">
<script type="module">
  import {{ createTokenizer }} from "{bundle}bytepair/bytepair.mjs";
  createTokenizer().then(() => (window.outcome = "started"), (err) => (window.outcome = err.name + ": " + err.message));
</script>
"""


@pytest.fixture(scope="module")
def origins(tmp_path_factory) -> Iterator[tuple[str, str]]:
    """(page origin, bundle origin): the bundle origin serves the counter with dist/ as bytepair/."""
    require_bundle()
    bundle_dir = tmp_path_factory.mktemp("bundle-origin")
    shutil.copy(ROOT / "demo" / "bytepair-counter.mjs", bundle_dir)
    (bundle_dir / "bytepair").symlink_to(DIST, target_is_directory=True)
    bundle_server, bundle = serve.serve_in_background(bundle_dir, cors=True)
    page_dir = tmp_path_factory.mktemp("page-origin")
    (page_dir / "docs.html").write_text(HOST_PAGE.format(bundle=bundle, text=TOKENIZER_TEXT), encoding="utf-8")
    (page_dir / "gpt2").mkdir()
    shutil.copy(hf_json("gpt2"), page_dir / "gpt2" / "tokenizer.json")
    (page_dir / "csp.html").write_text(CSP_PAGE.format(bundle=bundle), encoding="utf-8")
    page_server, page = serve.serve_in_background(page_dir)
    assert page != bundle
    yield page, bundle
    page_server.shutdown()
    bundle_server.shutdown()


def _count(page, element_id: str) -> str | None:
    return page.eval_on_selector(f"#{element_id}", "el => el.dataset.count ?? null")


def test_counter_and_api_from_another_origin(browser, origins) -> None:
    page_origin, bundle_origin = origins
    guard = Guard()
    context = guarded_context(browser, guard)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.goto(page_origin + "docs.html")
    page.wait_for_function("document.querySelector('#area').dataset.count === '4'", timeout=120_000)
    page.wait_for_function("window.apiCount === 2 && window.blobCount === 2", timeout=60_000)
    page.wait_for_function("document.querySelector('#div').dataset.count === '2'")

    # A value set by code (no input event) and a text change of a plain element are both followed.
    page.evaluate("document.getElementById('prompt').value = 'one two three four five'")
    page.wait_for_function("document.querySelector('#area').dataset.count === '5'")
    page.evaluate("document.getElementById('note').textContent = 'a b c'")
    page.wait_for_function("document.querySelector('#div').dataset.count === '3'")

    # Errors are short words, not the Python message.
    page.wait_for_function("document.querySelector('#bad-model').dataset.error === 'UnknownModelError'")
    page.wait_for_function("document.querySelector('#no-assets').dataset.error === 'AssetError'", timeout=60_000)
    labels = page.evaluate(
        "['bad-model', 'no-assets'].map(id => document.getElementById(id).shadowRoot.querySelector('.label').textContent)"
    )
    assert labels == ["unknown model", "cannot load"]

    # A tokenizer.json, prepared in the bundle or at a URL of the page's, counts as HF tokenizers does;
    # changing the attribute counts again; two tokenizers at once are refused in short words.
    llama3, gpt2 = hf_count("llama3", TOKENIZER_TEXT), hf_count("gpt2", TOKENIZER_TEXT)
    assert llama3 != gpt2
    page.wait_for_function(f"document.querySelector('#prepared').dataset.count === '{llama3}'", timeout=60_000)
    page.wait_for_function(f"document.querySelector('#json').dataset.count === '{gpt2}'", timeout=60_000)
    page.eval_on_selector("#prepared", "el => el.setAttribute('tokenizer', 'gpt2')")
    page.wait_for_function(f"document.querySelector('#prepared').dataset.count === '{gpt2}'", timeout=60_000)
    page.wait_for_function("document.querySelector('#two').dataset.error === 'InvalidInputError'")
    assert page.evaluate("document.getElementById('two').shadowRoot.querySelector('.label').textContent") == "invalid settings"

    # Removed from the page, the counter lets go of its target: the value accessor is the prototype's again.
    own = page.evaluate(
        """() => { document.getElementById('area').remove();
                   return Object.getOwnPropertyDescriptor(document.getElementById('prompt'), 'value') !== undefined; }"""
    )
    assert own is False
    assert not guard.violations
    assert not [e for e in errors if "Worker" in e or "bytepair" in e], errors
    # The bundle really came from the other origin.
    assert any(r.endswith("/bytepair/worker.mjs") for r in guard.requests)
    context.close()


def test_a_page_that_forbids_workers_gets_a_worker_error(browser, origins) -> None:
    page_origin, _ = origins
    guard = Guard()
    context = guarded_context(browser, guard)
    page = context.new_page()
    page.goto(page_origin + "csp.html")
    page.wait_for_function("window.outcome !== undefined", timeout=30_000)
    outcome = page.evaluate("window.outcome")
    assert outcome.startswith("WorkerError: "), outcome
    assert "worker-src" in outcome
    context.close()

