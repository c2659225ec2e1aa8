"""The playground page in headless Chromium: live counts equal the native core's, every view works,
state survives in the URL, the page works offline, and the embed example counts too.

Screenshots land in test-results/ (looked at by a person, see the issue notes)."""

from __future__ import annotations

import json
import re
import time

import pytest

import bytepair

from .browser import ARTIFACTS, SITE, Guard, guarded_context, serve
from .conftest import corpus_texts
from .test_node_api import PREPARED

pytestmark = pytest.mark.browser
O200K = bytepair.get_encoding("o200k_base")
CL100K = bytepair.get_encoding("cl100k_base")
COUNT = '[data-testid="token-count"]'


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"playground-{name}.png"), full_page=True)


def wait_count(page, expected: int, timeout: float = 60_000) -> None:
    page.wait_for_function(
        "([sel, want]) => document.querySelector(sel).textContent.replace(/,/g, '') === String(want)",
        arg=[COUNT, expected],
        timeout=timeout,
    )


def set_text(page, text: str) -> None:
    page.get_by_label("Text", exact=True).fill(text)


def paste(page, text: str) -> None:
    """Put a large text in the box as a paste would (Playwright's fill types it in, too slowly)."""
    page.evaluate(
        "(t) => { const el = document.getElementById('text'); el.value = t; el.dispatchEvent(new Event('input')); }",
        text,
    )


@pytest.fixture(scope="module")
def app(browser, site_server):
    guard = Guard()
    context = guarded_context(browser, guard, viewport={"width": 1200, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site_server)
    page.wait_for_function(f"document.querySelector('{COUNT}').textContent !== '–'", timeout=60_000)
    yield page
    context.close()
    assert not guard.violations, guard.violations
    assert not errors, errors


def test_labelled_controls_exist(app) -> None:
    assert app.get_by_label("Text", exact=True).evaluate("el => el.tagName") == "TEXTAREA"
    assert app.get_by_label("Tokenizer", exact=True).evaluate("el => el.tagName") == "SELECT"
    assert app.get_by_label("Tokenizer", exact=True).input_value() == "o200k_base"
    options = app.get_by_label("Tokenizer", exact=True).evaluate("el => [...el.options].map(o => o.value)")
    # GPT-2's tokenizer.json is "hf:gpt2": "gpt2" is OpenAI's encoding of that name.
    assert options == [*bytepair.list_encoding_names(), *(f"hf:{n}" if n == "gpt2" else n for n in PREPARED)]


def test_typing_updates_the_count(app) -> None:
    box = app.get_by_label("Text", exact=True)
    box.fill("")
    box.type("Hello, wörld! 🫠 ", delay=5)
    wait_count(app, O200K.count("Hello, wörld! 🫠 "))
    box.press("End")
    box.type("日本語", delay=5)
    text = "Hello, wörld! 🫠 日本語"
    wait_count(app, O200K.count(text))
    assert app.inner_text("#char-count") == str(len(text))
    assert app.inner_text("#word-count") == str(len(text.split()))
    spans = app.locator("#tokens .tok")
    assert spans.count() == O200K.count(text)
    shot(app, "typing")


def test_encoding_picker_and_stats(app) -> None:
    text = corpus_texts()["fr"][:3000]
    set_text(app, text)
    app.get_by_label("Tokenizer", exact=True).select_option("cl100k_base")
    wait_count(app, CL100K.count(text, disallowed_special=()))
    ratio = float(app.inner_text("#chars-per-token"))
    assert abs(ratio - len(text) / CL100K.count(text)) < 0.01
    app.get_by_label("Tokenizer", exact=True).select_option("o200k_base")
    wait_count(app, O200K.count(text))


def test_compare_view(app) -> None:
    text = corpus_texts()["zh"][:2000]
    set_text(app, text)
    app.get_by_label("Compare with", exact=True).select_option("cl100k_base")
    a, b = O200K.count(text), CL100K.count(text)
    app.wait_for_function(
        "want => document.querySelector('[data-testid=compare-b-count]').textContent.replace(/,/g, '') === String(want)",
        arg=b,
    )
    assert app.inner_text('[data-testid="compare-a-count"]').replace(",", "") == str(a)
    assert app.inner_text('[data-testid="compare-diff"]').startswith(f"+{b - a:,}" if b > a else f"{b - a:,}")
    shot(app, "compare")
    app.get_by_label("Compare with", exact=True).select_option("")
    app.locator("#compare-stats").wait_for(state="hidden")


def test_ids_round_trip(app) -> None:
    text = "Round trip: ids → text. 🫠 naïve café"
    set_text(app, text)
    wait_count(app, O200K.count(text))
    app.get_by_role("tab", name="Ids", exact=True).click()
    ids_json = app.locator('[data-testid="ids-out"]').input_value()
    assert [int(x) for x in re.findall(r"\d+", ids_json)] == O200K.encode(text)
    app.get_by_role("tab", name="Ids → text").click()
    app.locator('[data-testid="ids-in"]').fill(ids_json)
    app.wait_for_function("want => document.querySelector('[data-testid=decoded]').textContent === want", arg=text)
    app.locator('[data-testid="ids-in"]').fill(" ".join(map(str, O200K.encode(text))))
    app.wait_for_function("want => document.querySelector('[data-testid=decoded]').textContent === want", arg=text)
    shot(app, "decode")


@pytest.mark.parametrize(
    ("ids", "fragment"),
    [("[1, -2]", "InvalidTokenError"), ("[1, 2.5]", "integers"), ("1 2 three", "not a number"), ("[1, 2", "Cannot read"),
     ("[99999999]", "not a token id")],
)
def test_invalid_ids_show_inline_errors(app, ids: str, fragment: str) -> None:
    app.get_by_role("tab", name="Ids → text").click()
    app.locator('[data-testid="ids-in"]').fill(ids)
    error = app.locator("#decode-error")
    # Wait for this input's message (not a stale one still showing from the previous input).
    app.wait_for_function(
        "want => { const e = document.getElementById('decode-error'); return !e.hidden && e.textContent.includes(want); }",
        arg=fragment,
    )
    assert fragment in error.inner_text()
    app.locator('[data-testid="ids-in"]').fill("")
    error.wait_for(state="hidden")
    app.get_by_role("tab", name="Tokens").click()


def test_special_token_choices(app) -> None:
    text = "Hello <|endoftext|> world"
    set_text(app, text)
    error = app.locator("#error")
    error.wait_for(state="visible")
    assert "<|endoftext|>" in error.inner_text() and "special" in error.inner_text()
    assert app.locator("#tokens .tok").count() == 0  # nothing left over from the previous text
    assert app.inner_text("#char-count") == "–"
    shot(app, "special-error")
    app.get_by_label("encode as special tokens", exact=True).check()
    wait_count(app, O200K.count(text, allowed_special="all"))
    assert error.is_hidden()
    assert app.locator("#tokens .tok.special").count() == 1
    app.get_by_label("treat as plain text", exact=True).check()
    wait_count(app, O200K.count(text, disallowed_special=()))
    app.get_by_label("report an error", exact=True).check()
    error.wait_for(state="visible")


def test_model_picker(app) -> None:
    set_text(app, "model picker")
    model = app.get_by_label("Model", exact=True)
    model.fill("gpt-4")
    model.press("Enter")
    app.wait_for_function("() => document.getElementById('encoding').value === 'cl100k_base'")
    wait_count(app, CL100K.count("model picker"))
    model.fill("no-such-model")
    model.press("Enter")
    app.wait_for_function("() => document.getElementById('model-note').textContent.includes('Unknown model')")
    app.get_by_label("Tokenizer", exact=True).select_option("o200k_base")
    app.wait_for_function("() => document.getElementById('model-note').textContent === ''")


def test_tokens_by_keyboard_and_hover(app) -> None:
    text = "a🫠b"
    set_text(app, text)
    wait_count(app, O200K.count(text))
    first = app.locator("#tokens .tok").first
    first.focus()
    tooltip = app.locator("#tooltip")
    tooltip.wait_for(state="visible")
    assert f"id {O200K.encode(text)[0]}" in tooltip.inner_text()
    app.keyboard.press("ArrowRight")
    assert f"id {O200K.encode(text)[1]}" in tooltip.inner_text()
    assert "part of" in tooltip.inner_text()  # the emoji is split over several tokens
    assert app.locator("#tokens .tok.partial").count() >= 1
    shot(app, "tooltip")


def test_url_state_restores(app, browser) -> None:
    text = "State in the URL: 日本語 🫠\nsecond line"
    set_text(app, text)
    app.get_by_label("Tokenizer", exact=True).select_option("cl100k_base")
    app.get_by_label("Compare with", exact=True).select_option("o200k_base")
    app.get_by_label("treat as plain text", exact=True).check()
    wait_count(app, CL100K.count(text))
    app.wait_for_function("() => location.hash.includes('c=o200k_base') && location.hash.includes('s=text')")
    url = app.url
    guard = Guard()
    context = guarded_context(browser, guard)
    page = context.new_page()
    page.goto(url)
    wait_count(page, CL100K.count(text))
    assert page.get_by_label("Text", exact=True).input_value() == text
    assert page.get_by_label("Tokenizer", exact=True).input_value() == "cl100k_base"
    assert page.get_by_label("Compare with", exact=True).input_value() == "o200k_base"
    assert page.get_by_label("treat as plain text", exact=True).is_checked()
    # A long text is kept compressed in the link.
    long_text = corpus_texts()["en"][:8000]
    set_text(page, long_text)
    page.wait_for_function("() => location.hash.includes('z=')")
    page.goto("about:blank")
    page.goto(page.url if page.url != "about:blank" else url)
    context.close()
    assert not guard.violations
    # Back on the main page: defaults again.
    app.get_by_label("Compare with", exact=True).select_option("")
    app.get_by_label("Tokenizer", exact=True).select_option("o200k_base")
    app.get_by_label("report an error", exact=True).check()


def test_damaged_url_state(browser, site_server) -> None:
    guard = Guard()
    context = guarded_context(browser, guard)
    page = context.new_page()
    page.goto(site_server + "#e=o999k&t=%%%not-base64&s=sideways")
    note = page.locator("#state-note")
    note.wait_for(state="visible")
    assert "could not be fully read" in note.inner_text()
    page.wait_for_function(f"document.querySelector('{COUNT}').textContent !== '–'", timeout=60_000)
    assert page.get_by_label("Tokenizer", exact=True).input_value() == "o200k_base"
    page.wait_for_timeout(500)  # the link is rewritten meanwhile: the note must stay
    assert note.is_visible() and "could not be fully read" in note.inner_text()
    shot(page, "damaged-url")
    context.close()
    assert not guard.violations


def test_one_megabyte_stays_responsive(app) -> None:
    seed = corpus_texts()["mixed"]
    text = (seed * (1_000_000 // len(seed) + 1))[:1_000_000]
    # Chromium itself needs about a second to lay out a textarea holding 1 MB; that happens before
    # tokenizing starts and is not bytepair's. Measure the main thread from the edit event on.
    app.evaluate(
        """async (t) => {
          const el = document.getElementById('text');
          el.value = t;
          await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
          window.__gaps = [];
          let last = performance.now();
          window.__timer = setInterval(() => { const now = performance.now(); window.__gaps.push(now - last); last = now; }, 20);
          el.dispatchEvent(new Event('input'));
        }""",
        text,
    )
    wait_count(app, O200K.count(text, disallowed_special=()), timeout=120_000)
    worst = app.evaluate("() => { clearInterval(window.__timer); return Math.max(...window.__gaps); }")
    assert worst < 500, f"the page froze for {worst:.0f} ms while tokenizing"
    assert app.locator("#tokens .tok").count() == 2000
    assert "Showing the first 2,000" in app.inner_text("#tokens-more")
    shot(app, "one-megabyte")
    # A keystroke in the middle of 1 MB updates the count.
    box = app.get_by_label("Text", exact=True)
    box.evaluate("(el) => { el.focus(); el.setSelectionRange(500000, 500000); }")
    app.keyboard.type("XYZ")
    edited = text[:500_000] + "XYZ" + text[500_000:]
    wait_count(app, O200K.count(edited, disallowed_special=()), timeout=60_000)


def test_ten_megabytes_pasted(app) -> None:
    """A paste of 10 MB: kept out of the box (browsers freeze laying it out), counted in full."""
    line = "Ten megabytes of pasted text, 日本語 too 🙂\n"
    text = line * (10_000_000 // len(line.encode()))
    app.get_by_role("button", name="Clear").click()
    app.evaluate(
        """(t) => {
          const data = new DataTransfer();
          data.setData('text/plain', t);
          window.__gaps = [];
          let last = performance.now();
          window.__timer = setInterval(() => { const now = performance.now(); window.__gaps.push(now - last); last = now; }, 20);
          document.getElementById('text').dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
        }""",
        text,
    )
    app.locator("#busy").wait_for(state="visible")
    wait_count(app, O200K.count(text), timeout=300_000)
    worst = app.evaluate("() => { clearInterval(window.__timer); return Math.max(...window.__gaps); }")
    assert worst < 1000, f"the page froze for {worst:.0f} ms"
    assert app.locator("#error").is_hidden()
    assert "Large text" in app.inner_text("#state-note")
    assert app.get_by_label("Text", exact=True).is_editable() is False
    shot(app, "ten-megabytes")
    app.get_by_role("button", name="Clear").click()
    wait_count(app, 0)
    assert app.get_by_label("Text", exact=True).is_editable()


def test_offline_reload(browser) -> None:
    """First visit installs the service worker; with the server stopped a reload still works."""
    server, base = serve.serve_in_background(SITE)
    context = browser.new_context()
    outside: list[str] = []
    context.on("request", lambda r: None if r.url.startswith(("http://127.0.0.1", "blob:", "data:")) else outside.append(r.url))
    page = context.new_page()
    page.goto(base)
    page.wait_for_function(f"document.querySelector('{COUNT}').textContent !== '–'", timeout=60_000)
    page.evaluate("async () => { await navigator.serviceWorker.ready; }")
    page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=60_000)
    deadline = time.time() + 60
    while time.time() < deadline:  # wait for the precache to be complete
        done = page.evaluate(
            """async () => {
              const names = (await caches.keys()).filter((n) => n.startsWith('bytepair-playground-'));
              if (!names.length) return false;
              const keys = await (await caches.open(names[0])).keys();
              return keys.some((r) => r.url.endsWith('pyodide.asm.wasm'));
            }"""
        )
        if done:
            break
        time.sleep(0.5)
    server.shutdown()
    server.server_close()
    page.reload()
    set_text(page, "Works offline: 日本語")
    wait_count(page, O200K.count("Works offline: 日本語"), timeout=60_000)
    shot(page, "offline")
    context.close()
    assert not outside, outside


def test_embed_example(browser, site_server) -> None:
    guard = Guard()
    context = guarded_context(browser, guard)
    page = context.new_page()
    page.goto(site_server + "embed.html")
    page.wait_for_function("() => document.getElementById('static-counter').dataset.count !== undefined", timeout=60_000)
    assert page.locator("#static-counter").get_attribute("data-count") == str(O200K.count("Hello, world!"))
    assert page.locator("#static-counter textarea").count() == 0  # a fixed text shows only its count
    assert " ".join(page.locator("#static-counter .badge").inner_text().split()) == "4 tokens (o200k_base)"
    page.wait_for_function("() => document.getElementById('static-counter-gpt2').dataset.count !== undefined")
    assert page.locator("#static-counter-gpt2").get_attribute("data-count") == str(
        bytepair.get_encoding("gpt2").count("Hello, world!")
    )
    editor = page.locator("#editable-counter").locator("textarea")
    editor.fill("Counting tokens for gpt-4o in the docs.")
    page.wait_for_function(
        "want => document.getElementById('editable-counter').dataset.count === String(want)",
        arg=O200K.count("Counting tokens for gpt-4o in the docs."),
    )
    prompt = "Summarize this page in one sentence, please."
    page.get_by_label("Prompt", exact=True).fill(prompt)
    page.wait_for_function(
        "want => document.getElementById('for-counter').dataset.count === String(want)", arg=CL100K.count(prompt)
    )
    shot(page, "embed")
    context.close()
    assert not guard.violations, guard.violations


def test_dark_mode_screenshot(browser, site_server) -> None:
    guard = Guard()
    context = guarded_context(browser, guard, color_scheme="dark", viewport={"width": 1200, "height": 1000})
    page = context.new_page()
    page.goto(site_server)
    page.get_by_role("button", name="Code").click()
    wait_count(page, O200K.count(page.get_by_label("Text", exact=True).input_value()))
    background = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    assert background != "rgb(251, 251, 250)"  # the dark palette is in use
    shot(page, "dark")
    context.close()
    assert not guard.violations


# ---------------------------------------------------------------- open-model tokenizers (tokenizer.json)
def hf_count(name: str, text: str) -> int:
    """The count from Hugging Face tokenizers itself (add_special_tokens=False, as the page counts)."""
    from .hf_reference import hf_folder

    tokenizers = pytest.importorskip("tokenizers")
    return len(tokenizers.Tokenizer.from_file(str(hf_folder(name) / "tokenizer.json")).encode(text, add_special_tokens=False).ids)


LLAMA_TEXT = "<|begin_of_text|>Tokenizers differ: 日本語のテキスト 🫠 and   spaces.\nSecond line, 12345."


@pytest.fixture
def wide(browser, site_server):
    guard = Guard()
    context = guarded_context(browser, guard, viewport={"width": 1366, "height": 768})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site_server)
    page.wait_for_function(f"document.querySelector('{COUNT}').textContent !== '–'", timeout=60_000)
    yield page, guard
    context.close()
    assert not guard.violations, guard.violations
    assert not errors, errors


def test_pick_llama3_count_equals_hf(wide) -> None:
    page, guard = wide
    assert not any("/tokenizers/" in p for p in guard.requests)  # nothing fetched before it is picked
    picker = page.get_by_label("Tokenizer", exact=True)
    labels = picker.evaluate("el => [...el.querySelectorAll('optgroup')].filter(g => !g.hidden).map(g => [g.label, [...g.children].map(o => o.textContent)])")
    assert labels[1] == ["Open models (tokenizer.json)", ["Llama 3", "Qwen 2.5", "Qwen 3", "DeepSeek V3", "GPT-2"]]
    picker.select_option("llama3")
    set_text(page, LLAMA_TEXT)
    wait_count(page, hf_count("llama3", LLAMA_TEXT))
    assert [p.rsplit("/", 1)[1] for p in guard.requests if "/tokenizers/" in p] == ["llama3.json.gz"]
    assert page.locator("#tokens .tok").count() == hf_count("llama3", LLAMA_TEXT)
    special = page.locator("#tokens .tok.special")
    assert special.count() == 1 and special.inner_text() == "<|begin_of_text|>"
    assert "Llama 3 always reads its special tokens" in page.inner_text("#special-note")
    page.wait_for_function("() => location.hash.includes('e=llama3')")
    # The offsets tooltip for a token that holds part of the emoji.
    partial = page.locator("#tokens .tok.partial").first
    partial.hover()
    tooltip = page.locator("#tooltip")
    tooltip.wait_for(state="visible")
    assert "holds part of: 🫠" in tooltip.inner_text() and "(UTF-16)" in tooltip.inner_text()
    shot(page, "llama3-1366")
    page.set_viewport_size({"width": 390, "height": 844})
    page.mouse.move(0, 0)
    shot(page, "llama3-390")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, width  # nothing sticks out sideways on a phone


def test_link_restores_a_prepared_tokenizer(browser, site_server) -> None:
    guard = Guard()
    context = guarded_context(browser, guard)
    page = context.new_page()
    page.goto(site_server + "#e=hf:gpt2&c=o200k_base&t=aGVsbG8gd29ybGQ")  # "hello world"
    wait_count(page, hf_count("gpt2", "hello world"))
    assert page.get_by_label("Tokenizer", exact=True).input_value() == "hf:gpt2"
    assert page.text_content("#compare-a-label") == "GPT-2"
    context.close()
    assert not guard.violations


def test_compare_o200k_with_llama3(wide) -> None:
    page, _ = wide
    text = corpus_texts()["zh"][:1500]
    set_text(page, text)
    page.get_by_label("Compare with", exact=True).select_option("llama3")
    b = hf_count("llama3", text)
    page.wait_for_function(
        "want => document.querySelector('[data-testid=compare-b-count]').textContent.replace(/,/g, '') === String(want)",
        arg=b,
    )
    assert page.inner_text('[data-testid="compare-a-count"]').replace(",", "") == str(O200K.count(text))
    assert [page.text_content("#compare-a-label"), page.text_content("#compare-b-label")] == ["o200k_base", "Llama 3"]
    page.wait_for_function("() => location.hash.includes('c=llama3')")
    shot(page, "compare-o200k-llama3")


def test_open_tokenizer_json_with_the_file_input(wide) -> None:
    from .hf_reference import hf_folder

    page, guard = wide
    path = hf_folder("qwen2_5") / "tokenizer.json"
    text = "Qwen reads this: <|im_start|>user\nhello 🫠<|im_end|>"
    page.locator("#file").set_input_files(str(path))
    page.wait_for_function("() => document.getElementById('encoding').value.startsWith('file:')", timeout=60_000)
    set_text(page, text)
    wait_count(page, hf_count("qwen2_5", text))
    assert "tokenizer.json" in page.inner_text("#file-note") and "nothing was sent" in page.inner_text("#file-note")
    assert page.locator("#tokens .tok.special").count() == 2
    assert not any("/tokenizers/" in p for p in guard.requests)  # read from the file, not the bundle
    page.wait_for_timeout(400)  # the link is written after a pause
    assert "e=" not in page.evaluate("() => location.hash") and "file" not in page.evaluate("() => location.hash")
    # A file that is not a tokenizer.json says so and changes nothing.
    page.locator("#file").set_input_files(files=[{"name": "notes.json", "mimeType": "application/json", "buffer": b'{"hello": 1}'}])
    page.wait_for_function("() => document.getElementById('file-note').classList.contains('failed')")
    assert "notes.json" in page.inner_text("#file-note") and "cannot be used" in page.inner_text("#file-note")
    assert page.get_by_label("Tokenizer", exact=True).input_value().startswith("file:")
    shot(page, "opened-file")


def test_drop_a_tokenizer_json_on_the_page(wide) -> None:
    page, _ = wide
    spec = {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "<s>": 3}, "merges": ["a b"]},
            "added_tokens": [{"id": 3, "content": "<s>", "special": True}]}
    source = json.dumps(spec)
    page.evaluate(
        """(source) => {
          const data = new DataTransfer();
          data.items.add(new File([source], 'tiny.json', { type: 'application/json' }));
          for (const type of ['dragenter', 'dragover', 'drop']) {
            document.body.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
          }
        }""",
        source,
    )
    page.wait_for_function("() => document.getElementById('encoding').selectedOptions[0]?.textContent === 'tiny.json'")
    set_text(page, "abab<s>ba")
    expected = bytepair.Tokenizer.from_str(source).encode("abab<s>ba", add_special_tokens=False).ids
    wait_count(page, len(expected))
    assert page.locator("#drop").is_hidden()
